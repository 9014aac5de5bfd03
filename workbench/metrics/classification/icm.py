"""The Information Contrast Model (Amigó & Delgado, ACL 2022): ICM, ICM-Norm for hard labels, ICM-Soft and
ICM-Soft-Norm for soft ones, with the information content estimated from the topic's gold as PyEvALL estimates it.

For an item with output classes f and gold classes g (sets, closed upwards in a hierarchy: a class stands for
itself and its ancestors),

    ICM = α₁·IC(f) + α₂·IC(g) − β·IC(f ∪ g),        averaged over the gold's items,

with α₁ = α₂ = 2, β = 3 by default (PyEvALL's defaults, the setting of the paper's experiments), each weight up to
1e100 (:data:`WEIGHT`). An unanswered item has f = ∅, IC(∅) = 0. ICM reads mono-label classes, flat or in a
hierarchy, and multi-label classes in a hierarchy: for multi-label classes without one PyEvALL reports no value
(its precondition "not implemented"), and so the workbench refuses them (the flat tree ``{c: []}`` makes them
independent classes).

**Information content** (PyEvALL ``ICM.generate_prob``): IC(c) = −log₂ P(c), P(c) the share of the gold's items
labelled c or a descendant of c; a class the gold never reaches gets P = 1/|G| (the least information PyEvALL
gives). The IC of a set is the paper's inclusion–exclusion, IC(c ∪ S) = IC(c) + IC(S) − IC(lca(c, S)) (PyEvALL's
recursion over deepest common ancestors); on a tree this is a valuation of the up-closed class sets, computed
here in closed form, IC(S) = Σ_{a ∈ ↑S} (IC(a) − IC(parent(a))) (IC above a root is 0), which is the recursion's
value in any order (to rounding). Without a hierarchy IC(S) = Σ_{c∈S} IC(c).

**Soft labels** (ICM-Soft, PyEvALL ``ICMSoft``): an item holds a weight w_c per class; the gold's weights are
propagated up the tree by their maximum, μ_c and σ_c are the mean and the mean absolute deviation of class c's
weights over the gold's items, and IC(c, w) = −log₂ (1 − Φ((w − μ_c)/σ_c)), the information of seeing c with a
weight of at least w (Φ the standard normal CDF, as ``statistics.NormalDist`` computes it); IC(c, 0) = 0, and a
probability that underflows to 0 gives log₂|G|. Sets are unions by maximum weight and the common ancestor of
(a, w) and (b, v) is (lca(a, b), min(w, v)); their IC is again the closed form, per class at the weight of its
up-closure: Σ_a IC(a, F_a) − IC(parent(a), F_a).

**ICM-Norm** (PyEvALL ``ICMNorm``): (ICM(f, g) + ICM(g, g)) / (2·ICM(g, g)), cut at 0 from below (it may exceed 1);
NaN when ICM(g, g) = 0 (a gold of one class: no information to recover; PyEvALL divides by zero).

Where PyEvALL departs, the workbench says so:

* a class of a soft label whose gold weight never varies (σ = 0): PyEvALL's ``NormalDist.cdf`` raises; here the
  normal's limit as σ → 0 is taken (P = 1 below μ, ½ at μ, 0 above, so log₂|G| above μ). A class no gold item
  names is the case σ = 0, μ = 0: any weight above 0 gives log₂|G|, as PyEvALL gives an unknown class.
* a soft output naming a class at weight 0: no information (PyEvALL gives log₂|G| to a class unknown to the gold
  before looking at the weight, so that writing a zero changes the score).

    >>> from workbench.model.labelling import Labelling
    >>> from workbench.metrics.classification.pairs import pair
    >>> p = pair(Labelling.parse("1: A\\n2: A\\n3: B\\n4: C", gold=True), Labelling.parse("1: A\\n2: B\\n3: B"))
    >>> icm(p), round(icm_norm(p), 4)      # IC: A 1 bit, B and C 2 bits; items +1, -3, +2, -2
    (-0.5, 0.3333)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.metrics.classification.pairs import ClassificationInputError, LabelledPair, closure
from workbench.validation import Interval

__all__ = [
    "WEIGHT", "ICMTerms", "WeightStatistics", "class_information", "icm", "icm_norm", "icm_soft", "icm_soft_norm",
    "icm_soft_terms", "icm_terms", "normalized", "self_icm", "set_information", "soft_information",
    "soft_set_information", "weight_statistics"
]

SQRT2 = math.sqrt(2.0)  # statistics.NormalDist's constant
WEIGHT = Interval(0, 1e100)
"""The domain of α₁, α₂ and β: up to 1e100, so that the weighted information contents (bits), added over the items,
stay far below a double's 1.8e308 (near it α·IC overflows, and ICM is inf − inf = NaN)."""


@dataclass(frozen=True)
class ICMTerms:
    """Per gold item: IC of the output's classes, of the gold's, of their union, and the item's ICM."""

    output: np.ndarray
    gold: np.ndarray
    union: np.ndarray
    value: np.ndarray


# ------------------------------------------------------------------------------------------- hard labels
def class_information(p: LabelledPair) -> np.ndarray:
    """IC(c) = −log₂ P(c) per class, P(c) the share of gold items in c's subtree (1/|G| when none is)."""
    n = p.n_gold
    reached = closure(p.indicators("gold")[:n], p.parent).sum(axis=0)
    share = np.where(reached > 0, reached / n, 1 / n)
    return -np.log2(share)


def _increments(information: np.ndarray, parent: np.ndarray | None) -> np.ndarray:
    """IC(a) − IC(parent(a)) per class (IC(a) for a root): what a class adds to a set that holds its parent."""
    if parent is None:
        return information
    above = np.where(parent >= 0, information[np.maximum(parent, 0)], 0.0)
    return information - above


def set_information(rows: np.ndarray, information: np.ndarray, parent: np.ndarray | None) -> np.ndarray:
    """IC of each row's class set (booleans): Σ over the up-closed set of the classes' increments."""
    return closure(rows, parent).astype(np.float64) @ _increments(information, parent)


def icm_terms(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> ICMTerms:
    """The ICM of every gold item (hard labels: mono-label, or multi-label in a hierarchy)."""
    p.require("ICM", "mono", "multi")
    if p.kind == "multi" and p.parent is None:
        raise ClassificationInputError("ICM of multi-label classes needs a class hierarchy, as in PyEvALL, which "
                                       "reports no value without one; give the gold one (a flat tree {c: []} for "
                                       "independent classes)")
    n = p.n_gold
    information = class_information(p)
    gold, output = p.indicators("gold")[:n], p.indicators("output")[:n]
    ic_output = set_information(output, information, p.parent)
    ic_gold = set_information(gold, information, p.parent)
    ic_union = set_information(output | gold, information, p.parent)
    return ICMTerms(ic_output, ic_gold, ic_union, alpha_1 * ic_output + alpha_2 * ic_gold - beta * ic_union)


def icm(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> float:
    """ICM averaged over the gold's items."""
    return _average(icm_terms(p, alpha_1, alpha_2, beta).value)


def self_icm(terms: ICMTerms, alpha_1: float, alpha_2: float, beta: float) -> np.ndarray:
    """ICM(g, g) per item: the gold scored against itself (its union is itself)."""
    return alpha_1 * terms.gold + alpha_2 * terms.gold - beta * terms.gold


def normalized(value: float, perfect: float) -> float:
    """(ICM + ICM(g,g)) / (2·ICM(g,g)), cut at 0 from below; NaN when ICM(g, g) = 0."""
    if perfect == 0 or math.isnan(perfect) or math.isnan(value):
        return math.nan
    return max(0.0, (value - (perfect * -1)) / (perfect - (perfect * -1)))


def icm_norm(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> float:
    """ICM normalized by the gold's own ICM."""
    terms = icm_terms(p, alpha_1, alpha_2, beta)
    return normalized(_average(terms.value), _average(self_icm(terms, alpha_1, alpha_2, beta)))


# ------------------------------------------------------------------------------------------- soft labels
@dataclass(frozen=True)
class WeightStatistics:
    """Per class, the mean and the mean absolute deviation of the gold's weights, and the gold's size."""

    mean: np.ndarray
    deviation: np.ndarray
    n: int


def weight_statistics(p: LabelledPair) -> WeightStatistics:
    """μ_c and σ_c over the gold's items, the weights propagated up the tree by their maximum."""
    n = p.n_gold
    weights = closure(p.gold[:n], p.parent)
    mean = weights.sum(axis=0) / n
    return WeightStatistics(mean, np.abs(weights - mean).sum(axis=0) / n, n)


def soft_information(columns: np.ndarray, weights: np.ndarray, stats: WeightStatistics) -> np.ndarray:
    """IC(c, w) for classes ``columns`` at weights ``weights`` (arrays of one shape)."""
    out = np.zeros(weights.shape, dtype=np.float64)
    floor = -math.log2(1 / stats.n)
    for index in zip(*np.nonzero(weights), strict=True):
        w, column = float(weights[index]), int(columns[index])
        mu, sigma = float(stats.mean[column]), float(stats.deviation[column])
        if sigma == 0:
            chance = 1.0 if w < mu else 0.5 if w == mu else 0.0
        else:
            chance = 1 - 0.5 * (1.0 + math.erf((w - mu) / (sigma * SQRT2)))
        out[index] = floor if chance == 0.0 else -math.log2(chance)
    return out


def soft_set_information(rows: np.ndarray, stats: WeightStatistics, parent: np.ndarray | None) -> np.ndarray:
    """IC of each row's weighted classes: Σ_a IC(a, F_a) − IC(parent(a), F_a), F the up-closure by maximum."""
    up = closure(rows, parent)
    k = up.shape[1]
    columns = np.broadcast_to(np.arange(k), up.shape)
    own = soft_information(columns, up, stats)
    if parent is None:
        return own.sum(axis=1)
    has_parent = np.broadcast_to(parent >= 0, up.shape)
    above = soft_information(np.broadcast_to(np.maximum(parent, 0), up.shape), np.where(has_parent, up, 0.0), stats)
    return (own - above).sum(axis=1)


def icm_soft_terms(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> ICMTerms:
    """The ICM-Soft of every gold item."""
    p.require("ICM-Soft", "soft")
    n = p.n_gold
    stats = weight_statistics(p)
    gold, output = p.gold[:n], p.output[:n]
    ic_output = soft_set_information(output, stats, p.parent)
    ic_gold = soft_set_information(gold, stats, p.parent)
    ic_union = soft_set_information(np.maximum(output, gold), stats, p.parent)
    return ICMTerms(ic_output, ic_gold, ic_union, alpha_1 * ic_output + alpha_2 * ic_gold - beta * ic_union)


def icm_soft(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> float:
    """ICM-Soft averaged over the gold's items."""
    return _average(icm_soft_terms(p, alpha_1, alpha_2, beta).value)


def icm_soft_norm(p: LabelledPair, alpha_1: float = 2.0, alpha_2: float = 2.0, beta: float = 3.0) -> float:
    """ICM-Soft normalized by the gold's own ICM-Soft."""
    terms = icm_soft_terms(p, alpha_1, alpha_2, beta)
    return normalized(_average(terms.value), _average(self_icm(terms, alpha_1, alpha_2, beta)))


def _average(values: np.ndarray) -> float:
    total = 0.0
    for value in values.tolist():  # in the gold's order, as PyEvALL sums
        total += value
    return total / len(values)
