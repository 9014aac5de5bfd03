"""CEM, the Closeness Evaluation Measure for ordinal classification (Amigó, Gonzalo, Mizzaro & Carrillo-de-Albornoz,
ACL 2020: CEM^ORD with the ordinal proximity prox^ORD).

Classes are ordered (negative < neutral < positive; priority levels). The closer two classes are in the gold's
distribution, the more an output that says one when the gold says the other keeps:

    prox(a, b) = −log₂ ((n_a/2 + Σ_{c strictly between a and b} n_c + n_b) / N)   for a ≠ b,
    prox(a, a) = −log₂ (n_a/2 / N),

n_c the gold's items of class c, N the gold's items, a the output's class and b the gold's. Then

    CEM(output, gold) = Σ_d prox(output(d), gold(d)) / Σ_d prox(gold(d), gold(d)),

in [0, 1], 1 for the gold itself. An unanswered item keeps nothing (its proximity is 0). The order comes from
the measure's ``order`` parameter (``CEM(order=neg<neu<pos)``, lowest first), else the classes the gold declares
in order (a reader's ``classes=``, an organization's levels), else from labels that are all numbers.

    >>> from workbench.model.labelling import Labelling
    >>> from workbench.metrics.classification.pairs import pair
    >>> gold = Labelling.parse("1: neg\\n2: neu\\n3: neu\\n4: pos", gold=True, classes=["neg", "neu", "pos"])
    >>> round(cem(pair(gold, Labelling.parse("1: neu\\n2: neu\\n3: neu\\n4: pos"))), 4)
    0.8
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.metrics.classification.pairs import ClassificationInputError, LabelledPair
from workbench.metrics.registry import Words
from workbench.validation import validate

__all__ = ["ClassOrder", "ORDER", "cem", "cem_terms", "class_ranks", "proximity"]


class ClassOrder(Words):
    """The domain of CEM's ``order``: the classes lowest first, separated by ``<``, each named once (the classes
    themselves are the data's: one the topic lacks has no items, and weighs nothing), or None.

    >>> ORDER.reason("neg<neu<pos") is None, ORDER.reason("neg<neu<neg") is None
    (True, False)
    """

    def reason(self, value: Any) -> str | None:
        why = super().reason(value)
        if why is not None or value is None:
            return why
        names = [name.strip() for name in str(value).split("<")]
        return f"must be {self}" if "" in names or len(set(names)) < len(names) else None


ORDER = ClassOrder("class order, lowest first, each class once: neg<neu<pos (None: the gold's declared classes)")


@validate(order=ORDER)
def class_ranks(p: LabelledPair, order: str | None = None) -> np.ndarray:
    """Each class's rank on the ordinal scale (``order``: the classes lowest first, ``"neg<neu<pos"``)."""
    if order is not None:
        given = {name.strip(): float(rank) for rank, name in enumerate(str(order).split("<"))}
        source = f"order {order!r}"
    elif p.declared is not None:
        given = {label: float(rank) for rank, label in enumerate(p.declared)}
        source = "the declared classes"
    else:
        try:
            given = {label: float(label) for label in p.classes}
        except ValueError:
            raise ClassificationInputError("CEM needs the order of the classes: give order=neg<neu<pos, declare the "
                                           "gold's classes in order (classes=...), or use numeric labels") from None
        source = "the numeric labels"
    missing = [label for label in p.classes if label not in given]
    if missing:
        raise ClassificationInputError(f"CEM: class {missing[0]!r} has no place in {source} "
                                       f"({', '.join(map(str, given))})")
    ranks = np.array([float(given[label]) for label in p.classes])
    if len(set(ranks.tolist())) < len(ranks):
        raise ClassificationInputError(f"CEM: {source} give two classes the same rank")
    return ranks


def proximity(p: LabelledPair, order: str | None = None) -> np.ndarray:
    """prox(a, b) for every (output class a, gold class b): a classes × classes array."""
    p.require("CEM", "mono")
    ranks = class_ranks(p, order)
    counts = np.bincount(p.gold[:p.n_gold], minlength=len(p.classes)).astype(np.float64)
    low, high = np.minimum.outer(ranks, ranks), np.maximum.outer(ranks, ranks)
    strictly = (ranks[None, None, :] > low[:, :, None]) & (ranks[None, None, :] < high[:, :, None])
    mass = counts[:, None] / 2 + (strictly * counts).sum(axis=2) + np.where(np.eye(len(ranks), dtype=bool), 0.0,
                                                                            counts[None, :])
    with np.errstate(divide="ignore"):
        return -np.log2(mass / p.n_gold)


def cem_terms(p: LabelledPair, order: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per gold item: prox(output, gold) (0 unanswered) and prox(gold, gold)."""
    prox = proximity(p, order)
    gold, output = p.gold[:p.n_gold], p.output[:p.n_gold]
    kept = np.where(output >= 0, prox[np.maximum(output, 0), gold], 0.0)
    return kept, prox[gold, gold]


def cem(p: LabelledPair, order: str | None = None) -> float:
    """CEM^ORD: the output's proximity to the gold over the gold's own."""
    kept, perfect = cem_terms(p, order)
    total = perfect.sum()
    return float(kept.sum() / total) if total > 0 else math.nan
