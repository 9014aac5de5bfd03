"""Hard-label measures: Accuracy, System Precision and Cohen's kappa (mono-label), Precision, Recall and F per
class and macro-averaged (mono- and multi-label), as PyEvALL (``pyevall/metrics/metrics.py``) defines them.

Everything is a function of per-class counts over one topic (:class:`ClassCounts`): for a class c, ``tp`` the
gold items labelled c that the output labels c, ``gold`` the gold items labelled c, ``predicted`` the output's
items labelled c — every item the output labels, those the gold lacks included (PyEvALL counts them: a
prediction for an item without gold label is a wrong one).

* Accuracy = Σ_c TP_c / |G| (an unanswered gold item is wrong); System Precision = Σ_c TP_c / |answered| (NaN when
  the output answers nothing);
* Kappa = (Acc − P_e) / (1 − P_e), P_e = Σ_c (O_c/|G|)(G_c/|G|) over the gold's classes, O_c the gold items the
  output labels c (0 when P_e = 1; NaN when the output answers nothing, or when gold and output hold one and the
  same class over the same items: PyEvALL's preconditions);
* per class c: P_c = TP_c / predicted_c (NaN when the output never says c), R_c = TP_c / G_c (NaN when the gold
  never says c), F_c = 1 / (α/P_c + (1 − α)/R_c) (0 when P_c or R_c is 0 or P_c undefined, NaN when R_c is);
* macro: the mean over the gold's classes (Precision over those where P_c is defined: PyEvALL skips the others;
  NaN when none is). PyEvALL reports no per-class value for a class only the output names; here its precision
  is defined (0: every item it got is wrong), as the legacy EvALL reference values of PyEvALL's tests have it.

    >>> from workbench.model.labelling import Labelling
    >>> from workbench.metrics.classification.pairs import pair
    >>> p = pair(Labelling.parse("1: A\\n2: A\\n3: B\\n4: C", gold=True), Labelling.parse("1: A\\n2: B\\n3: B\\n5: C"))
    >>> accuracy(p), system_precision(p), round(kappa(p), 4)
    (0.5, 0.5, 0.3333)
    >>> precision_per_class(p), round(macro_f(p), 4)
    ({'A': 1.0, 'B': 0.5, 'C': 0.0}, 0.4444)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.metrics.classification.pairs import LabelledPair, class_named
from workbench.validation import Interval, validate

__all__ = [
    "F_ALPHA", "ClassCounts", "accuracy", "class_counts", "combine_kappa", "f_of", "f_per_class", "kappa",
    "kappa_parts", "macro_f", "macro_precision", "macro_recall", "of_class", "precision_per_class", "recall_per_class",
    "system_precision"
]


F_ALPHA = Interval(0, 1)
"""The domain of FMeasure's α, the weight of precision in F_α = 1/(α/P + (1 − α)/R)."""


@dataclass(frozen=True)
class ClassCounts:
    """Per class (the pair's class order): true positives, gold items, predicted items; and per topic the gold
    items and the output's answered items."""

    tp: np.ndarray
    gold: np.ndarray
    predicted: np.ndarray
    n_gold: int
    n_answered: int


def class_counts(p: LabelledPair) -> ClassCounts:
    """The counts of a mono- or multi-label pair."""
    p.require("this measure", "mono", "multi")
    k = len(p.classes)
    if p.kind == "mono":
        gold, output = p.gold, p.output
        hits = (gold == output) & (gold >= 0)
        tp = np.bincount(gold[hits], minlength=k)
        gold_count = np.bincount(gold[gold >= 0], minlength=k)
        predicted = np.bincount(output[output >= 0], minlength=k)
    else:
        tp = (p.gold & p.output).sum(axis=0)
        gold_count, predicted = p.gold.sum(axis=0), p.output.sum(axis=0)
    return ClassCounts(tp.astype(np.int64), gold_count.astype(np.int64), predicted.astype(np.int64), p.n_gold,
                       int(p.answered.sum()))


def accuracy(p: LabelledPair) -> float:
    """Σ_c TP_c / |G| (mono-label)."""
    p.require("Acc", "mono")
    return float(class_counts(p).tp.sum() / p.n_gold)


def system_precision(p: LabelledPair) -> float:
    """Σ_c TP_c / the output's answered items (mono-label); NaN when it answers none."""
    p.require("SP", "mono")
    counts = class_counts(p)
    return float(counts.tp.sum() / counts.n_answered) if counts.n_answered else math.nan


def kappa_parts(p: LabelledPair) -> tuple[float, float]:
    """(Accuracy, P_e) of Cohen's kappa; P_e is NaN where PyEvALL's preconditions refuse kappa."""
    p.require("CohenKappa", "mono")
    counts = class_counts(p)
    n = p.n_gold
    acc = counts.tp.sum() / n
    if counts.n_answered == 0 or _one_class_alike(p):
        return float(acc), math.nan
    on_gold = p.output[:n]
    chance = 0.0
    for c in np.flatnonzero(counts.gold > 0):  # O_c: gold items the output labels c (the confusion matrix's column)
        chance += (np.count_nonzero(on_gold == c) / n) * (counts.gold[c] / n)
    return float(acc), float(chance)


def combine_kappa(acc: float, chance: float) -> float:
    """(Acc − P_e)/(1 − P_e), 0 when P_e = 1 (PyEvALL), NaN when P_e is."""
    if math.isnan(chance):
        return math.nan
    return (acc - chance) / (1 - chance) if 1 - chance != 0 else 0.0


def kappa(p: LabelledPair) -> float:
    """Cohen's kappa over the gold's classes (mono-label)."""
    return combine_kappa(*kappa_parts(p))


def _one_class_alike(p: LabelledPair) -> bool:
    """Gold and output each hold one class, the same, over the same items (PyEvALL's degenerate kappa)."""
    gold_classes = np.unique(p.gold[:p.n_gold])
    output_classes = np.unique(p.output[p.answered])
    same_items = bool(np.all(p.answered[:p.n_gold])) and not np.any(p.answered[p.n_gold:])
    return len(gold_classes) == 1 and len(output_classes) == 1 and gold_classes[0] == output_classes[0] and same_items


def precision_per_class(p: LabelledPair) -> dict[str, float]:
    """P_c = TP_c / predicted_c for every class the gold or the output names (NaN where the output never says c)."""
    counts = class_counts(p)
    return {p.classes[c]: (float(counts.tp[c] / counts.predicted[c]) if counts.predicted[c] else math.nan)
            for c in _named(p, counts)}


def recall_per_class(p: LabelledPair) -> dict[str, float]:
    """R_c = TP_c / G_c for every class the gold or the output names (NaN where the gold never says c)."""
    counts = class_counts(p)
    return {p.classes[c]: (float(counts.tp[c] / counts.gold[c]) if counts.gold[c] else math.nan)
            for c in _named(p, counts)}


def _named(p: LabelledPair, counts: ClassCounts) -> np.ndarray:
    return np.flatnonzero((counts.gold > 0) | (counts.predicted > 0))


def f_of(precision: float, recall: float, alpha: float) -> float:
    """1 / (α/P + (1 − α)/R); 0 when P or R is 0 or P is undefined (a class the output never says), NaN when R is
    (a class the gold never says)."""
    if math.isnan(recall):
        return math.nan
    if math.isnan(precision) or precision == 0 or recall == 0:
        return 0.0
    return 1 / ((alpha / precision) + ((1 - alpha) / recall))


@validate(alpha=F_ALPHA)
def f_per_class(p: LabelledPair, alpha: float = 0.5) -> dict[str, float]:
    """F_c for every class the gold or the output names."""
    precision, recall = precision_per_class(p), recall_per_class(p)
    return {label: f_of(precision[label], recall[label], alpha) for label in recall}


def _over_gold_classes(p: LabelledPair, per_class: dict[str, float]) -> list[float]:
    """The values of the gold's classes, in the classes' order (a class only the output names is left out)."""
    gold = class_counts(p).gold
    return [value for label, value in per_class.items() if gold[p.classes.index(label)] > 0]


def macro_precision(p: LabelledPair) -> float:
    """The mean of P_c over the gold's classes where it is defined (NaN when it is nowhere)."""
    values = [v for v in _over_gold_classes(p, precision_per_class(p)) if not math.isnan(v)]
    return _mean(values) if values else math.nan


def macro_recall(p: LabelledPair) -> float:
    """The mean of R_c over the gold's classes."""
    return _mean(_over_gold_classes(p, recall_per_class(p)))


@validate(alpha=F_ALPHA)
def macro_f(p: LabelledPair, alpha: float = 0.5) -> float:
    """The mean of F_c over the gold's classes."""
    return _mean(_over_gold_classes(p, f_per_class(p, alpha)))


def _mean(values: list[float]) -> float:
    total = 0.0
    for value in values:  # summed in the classes' order, as PyEvALL sums
        total += value
    return float(total / len(values))


def of_class(per_class: dict[str, float], p: LabelledPair, label, measure: str = "of_class") -> float:
    """The value of one class (a measure's ``label``): NaN for a class this topic knows that neither side names (a
    declared class, a class of the hierarchy); a class it does not know is refused (:func:`~.pairs.class_named`)."""
    return per_class.get(class_named(p, label, measure), math.nan)

