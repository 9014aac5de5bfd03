"""A gold labelling meets an output: the one place a classification topic becomes arrays for the kernels.

:func:`pair` lines the items up, the gold's first (in its order) and then the items only the output names, and
numbers the classes: those the gold names (in order of first appearance), then those only the output names, then
those only the class tree holds. What each kernel reads:

* ``gold``: mono, one class code per item (−1 for an item the gold lacks); multi, one row of booleans per item;
  soft, one row of weights per item (a hierarchy's classes included, weight 0 where not named);
* ``output``: the same shapes, −1 / all False / all 0 for an item the output does not answer;
* ``parent``: each class's parent column (−1 for a root), or None without a hierarchy.

    >>> from workbench.model.labelling import Labelling
    >>> p = pair(Labelling.parse("i1: A\\ni2: B", gold=True), Labelling.parse("i2: A\\ni3: C"))
    >>> p.classes, p.ids, p.gold.tolist(), p.output.tolist()
    (('A', 'B', 'C'), ('i1', 'i2', 'i3'), [0, 1, -1], [-1, 0, 2])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.errors import InputError
from workbench.metrics.registry import SIDE
from workbench.model import Organization
from workbench.model.labelling import (
    Labelling,
    LabellingError,
    LabelNotInHierarchyError,
    MixedKindsError,
    is_empty,
)
from workbench.validation import Choices, check, validate

__all__ = ["CONTEXTS", "ClassificationInputError", "LabelledPair", "closure", "depths", "labelling_of", "pair",
           "class_named"]


class ClassificationInputError(InputError):
    """A gold and an output that cannot be scored together: not labellings, or not in the measure's context
    (a mono-label measure on multi-label data, a hard-label measure on soft labels...)."""


CONTEXTS = {"mono": "mono-label", "multi": "multi-label", "soft": "soft-label (learning with disagreement)"}


@dataclass(frozen=True, eq=False)
class LabelledPair:
    """One topic's gold and output as arrays (see the module docstring); ``n_gold`` items are the gold's."""

    kind: str
    classes: tuple[str, ...]
    ids: tuple[str, ...]
    n_gold: int
    gold: np.ndarray
    output: np.ndarray
    answered: np.ndarray
    gold_named: np.ndarray  # (k,) the classes the gold names (soft: keys of some gold item, even at weight 0)
    named: np.ndarray  # (k,) the classes the gold or the output names
    parent: np.ndarray | None
    declared: tuple[str, ...] | None
    distribution: bool

    def require(self, measure: str, *kinds: str) -> None:
        """Refuse a measure outside its contexts (:class:`ClassificationInputError` naming both)."""
        if self.kind not in kinds:
            allowed = " or ".join(CONTEXTS[k] for k in kinds)
            raise ClassificationInputError(f"{measure} is defined for {allowed} classification; this gold is "
                                           f"{CONTEXTS[self.kind]}")

    def known(self) -> tuple[str, ...]:
        """The classes this topic knows: those the gold or the output names, those of the gold's hierarchy, and
        those the gold declares (its ``classes=``)."""
        return tuple(dict.fromkeys((*self.classes, *(self.declared or ()))))

    def indicators(self, side: str) -> np.ndarray:
        """A side's classes as an (items × classes) array: booleans for hard labels (a mono code as one True),
        weights for soft ones."""
        values = self.gold if side == "gold" else self.output
        if self.kind != "mono":
            return values
        rows = np.zeros((len(self.ids), len(self.classes)), dtype=bool)
        given = values >= 0
        rows[np.flatnonzero(given), values[given]] = True
        return rows


@validate(value=SIDE, side=Choices(("gold", "output")))
def labelling_of(value: Labelling | Organization, side: str) -> Labelling:
    """A gold or an output as a :class:`Labelling` (an :class:`Organization` by its levels)."""
    if isinstance(value, Labelling):
        return value
    try:
        return Labelling.from_organization(value, gold=side == "gold")
    except LabellingError as error:
        raise ClassificationInputError(f"{side}: {error}") from None


@validate(gold=SIDE, output=SIDE)
def pair(gold, output) -> LabelledPair:
    """``gold`` and ``output`` (labellings, or organizations read by level) lined up as arrays."""
    gold, output = labelling_of(gold, "gold"), labelling_of(output, "output")
    answered_items = [item for item in output if not is_empty(output[item])]
    if answered_items and output.kind != gold.kind:
        raise MixedKindsError(f"the output holds {output.kind} values and the gold {gold.kind} values: a gold and "
                              "an output of one kind are compared", where="output")
    tree = gold.hierarchy
    if tree is not None:
        for item in answered_items:
            for label in _labels(output[item]):
                if label not in tree:
                    raise LabelNotInHierarchyError(f"class {label!r} is not in the gold's hierarchy",
                                                   where="output", item=item)
    ids = tuple(gold) + tuple(item for item in output if item not in gold.items)
    order: dict[str, int] = {}
    for side in (gold, output):
        for item in side:
            for label in _labels(side[item]):
                order.setdefault(label, len(order))
    named = len(order)
    for label in tree.classes if tree is not None else ():
        order.setdefault(label, len(order))
    classes = tuple(order)
    k, n = len(classes), len(ids)
    gold_named = np.zeros(k, dtype=bool)
    gold_named[[order[label] for label in gold.labels()]] = True
    named_mask = np.arange(k) < named
    answered = np.array([output.answered(item) for item in ids], dtype=bool)
    if gold.kind == "mono":
        gold_codes = np.full(n, -1, dtype=np.int64)
        gold_codes[:len(gold)] = [order[gold[item]] for item in gold]
        output_codes = np.array([order[output[item]] if answered[i] else -1 for i, item in enumerate(ids)],
                                dtype=np.int64)
        gold_values, output_values = gold_codes, output_codes
    else:
        dtype = bool if gold.kind == "multi" else np.float64
        gold_values, output_values = np.zeros((n, k), dtype=dtype), np.zeros((n, k), dtype=dtype)
        for values, side in ((gold_values, gold), (output_values, output)):
            for i, item in enumerate(ids):
                value = side.items.get(item)
                if not value:
                    continue
                if gold.kind == "multi":
                    values[i, [order[label] for label in value]] = True
                else:
                    values[i, [order[label] for label in value]] = list(value.values())
    parent = None
    if tree is not None:
        parent = np.array([order[tree.parent[c]] if c in tree and tree.parent[c] is not None else -1
                           for c in classes], dtype=np.int64)
    return LabelledPair(gold.kind, classes, ids, len(gold), gold_values, output_values, answered, gold_named,
                        named_mask, parent, gold.classes, gold.distribution)


def class_named(p: LabelledPair, label, measure: str) -> str:
    """The class a measure's ``label`` parameter names (as text), refused as a
    :class:`~workbench.errors.ParameterError` naming the label and the classes this topic knows
    (:meth:`LabelledPair.known`) when it is none of them: a typo would otherwise score NaN.

    >>> from workbench.model.labelling import Labelling
    >>> p = pair(Labelling.parse("1: A\\n2: B", gold=True), Labelling.parse("1: A"))
    >>> class_named(p, "B", "Pr")
    'B'
    >>> class_named(p, "Z", "Pr")
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: Pr: label must be one of A, B, got 'Z'
    """
    return check(str(label), Choices(p.known()), "label", measure)


def _labels(value) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    return tuple(value)


def closure(rows: np.ndarray, parent: np.ndarray | None) -> np.ndarray:
    """Each row's classes with their ancestors (booleans: any; weights: the largest below each class, as an
    ancestor holds all its descendants' items); ``rows`` unchanged without a hierarchy."""
    if parent is None:
        return rows
    out = rows.copy()
    depth = depths(parent)
    for column in np.argsort(-depth, kind="stable"):  # deepest first: a child is final before its parent reads it
        above = parent[column]
        if above >= 0:
            out[:, above] = np.maximum(out[:, above], out[:, column])
    return out


def depths(parent: np.ndarray) -> np.ndarray:
    """Each class's depth in the tree (0 for a root)."""
    depth = np.zeros(len(parent), dtype=np.int64)
    for column in range(len(parent)):
        node = parent[column]
        while node >= 0:
            depth[column] += 1
            node = parent[node]
    return depth
