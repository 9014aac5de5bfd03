"""Filtering measures over a 2×2 contingency (TP, FP, FN, TN), with optional smoothing.

:func:`contingency` counts from a gold and an output Organization (positives = prioritised documents,
negatives = the rest), :func:`contingency_from_labels` from two binary label vectors (``positive=`` names
the positive label). :func:`estimates` turns counts into the probabilities every measure is written in (seed
003 §4): P(G), P(S|G), P(S|¬G), P(G|S), P(G|¬S); each measure is a pure function of them.

    >>> c = FilteringContingency(tp=3, fp=1, fn=2, tn=4)
    >>> accuracy(c), round(reliability(c), 4), round(f_measure(c), 4)
    (0.7, 0.5, 0.6667)

**Smoothing** (Amigó et al., filtering metrics comparison, §5): ``None`` (plain counts); ``"laplace"`` adds one to each
cell (§5.1, Table 4); ``"noninformative"`` uses the final formulas of §5.2, P(S|G) = (TP + 2P(S))/(|G| + 2), P(S|¬G) =
(FP + 2P(S))/(|¬G| + 2), P(G|S) = (TP + 2P(G))/(|S| + 2), P(G|¬S) = (FN + 2P(G))/(|¬S| + 2), with the marginals P(G) =
|G|/|T|, P(S) = |S|/|T| unsmoothed: a non-informative output keeps P(G|S) = P(G), so the families' properties survive.
Measures that use the joint distribution (Accuracy, Utility, Phi, Kappa, MI, Odds, Chi) take it from P(G) and the
gold-conditioned P(S|G), P(S|¬G); Precision, F and Reliability use the output-conditioned P(G|S), P(G|¬S).

**Undefined values** are NaN, never an exception: P(S|G) needs a positive gold document, P(S|¬G) a negative one, P(G|S)
a returned document, P(G|¬S) a discarded one; a measure built on an undefined one is NaN, except where the paper defines
the limit: F and F(R,S) are 0 when a component is 0 (Amigó et al., filtering metrics comparison, §4.3, §4.4: the
all-positive and all-negative outputs get F(R,S) = 0); Phi and Kappa are 0 for an output that puts every document in one
class (non-informative, §4.2) while the gold has both classes; Lam% is 0 when either error rate is 0 (§4.2) but NaN when
one is 0 and the other 1; Odds is +inf when only its denominator is 0. Lam% is an error rate: lower is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import InputError
from workbench.metrics.combine import f_alpha
from workbench.metrics.labels import factorize, label_vector
from workbench.metrics.registry import ORGANIZATION, Choices, Explainer, Interval, Param, register
from workbench.model import Organization
from workbench.validation import validate

__all__ = ["SMOOTHINGS", "SMOOTHING", "WACC_LAMBDA", "UTILITY_ALPHA", "FilteringInputError", "BinaryLabelsError",
           "FilteringContingency", "contingency", "contingency_from_labels", "Estimates", "estimates", "accuracy",
           "weighted_accuracy", "utility", "linear_utility", "lam", "phi", "kappa", "mutual_information", "odds_ratio",
           "macro_accuracy", "chi", "chi_counts", "precision", "recall", "f_measure", "reliability", "sensitivity",
           "f_reliability_sensitivity"]

_EXPLAINED = Explainer("workbench.metrics.explanations.filtering:explain_filtering")

SMOOTHINGS = ("none", "laplace", "noninformative")
SMOOTHING = Choices(SMOOTHINGS)
"""The domain of the measures' ``smoothing``."""
_SMOOTHING_OR_NONE = Choices((*SMOOTHINGS, None))  # the functions' smoothing: None is "none"
WACC_LAMBDA = Interval(0)
"""The domain of WAcc's λ, the weight of a positive."""
UTILITY_ALPHA = Interval(0, low_open=True)
"""The domain of Utility's α, the gain of a true positive."""


class FilteringInputError(InputError):
    """Filtering input that cannot be counted: says which document or label and why."""


class BinaryLabelsError(FilteringInputError):
    """Labels that are not binary (more than two distinct ones, named), or whose positive label is unclear."""


@dataclass(frozen=True)
class FilteringContingency:
    """The 2×2 contingency: gold positives G, output positives S over a collection T."""

    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def n(self) -> float:
        return self.tp + self.fp + self.fn + self.tn


@validate(gold=ORGANIZATION, output=ORGANIZATION)
def contingency(gold: Organization, output: Organization) -> FilteringContingency:
    """Counts from Organizations: a document is positive when prioritised (in some level).

    The collection T is the gold's documents when its rest is finite, else the documents of both (an
    unlimited tail is all negative). A gold document the output does not name is a negative of the output
    (not accepted); an output document outside T is ignored (it has no gold label).
    """
    collection = gold.documents if gold.finite else gold.documents | output.documents
    g, s = gold.prioritised, output.prioritised & collection
    tp = len(g & s)
    fp, fn = len(s) - tp, len(g) - tp
    return FilteringContingency(tp, fp, fn, len(collection) - tp - fp - fn)


def contingency_from_labels(y_true: Sequence, y_pred: Sequence, positive=None) -> FilteringContingency:
    """Counts from two binary label vectors of the same items; ``positive`` is the positive label.

    Binary means binary: more than two distinct labels over both vectors raise :class:`BinaryLabelsError`
    naming them. Without ``positive`` (scikit-learn's ``pos_label``), booleans and numbers drawn from {0, 1}
    or {-1, 1} count 1/True as positive; any other labels (strings such as ``"yes"``/``"no"`` or
    ``"True"``/``"False"``, {1, 2}) must say which one is positive. Labels compare as Python values
    (:mod:`workbench.metrics.labels`).

    >>> contingency_from_labels([1, 1, 0, 0], [1, 0, 1, 0])
    FilteringContingency(tp=1, fp=1, fn=1, tn=1)
    >>> contingency_from_labels(["spam", "ham"], ["spam", "spam"], positive="spam")
    FilteringContingency(tp=1, fp=1, fn=0, tn=0)
    """
    true = label_vector(y_true, "y_true", FilteringInputError)
    pred = label_vector(y_pred, "y_pred", FilteringInputError)
    if len(true) != len(pred):
        raise FilteringInputError(f"y_true has {len(true)} items but y_pred has {len(pred)}")
    true_codes, true_labels = factorize(true, "y_true", FilteringInputError)
    pred_codes, pred_labels = factorize(pred, "y_pred", FilteringInputError)
    labels = list(dict.fromkeys(true_labels + pred_labels))
    if len(labels) > 2:
        raise BinaryLabelsError(f"binary labels expected, got {len(labels)} distinct ones: "
                                f"{_labels_text(labels)} (binarise them first, e.g. labels == 'A', to score one "
                                "class against the rest)")
    positive = _positive_label(labels, positive)
    true_positive = np.array([label == positive for label in true_labels], dtype=bool)[true_codes]
    pred_positive = np.array([label == positive for label in pred_labels], dtype=bool)[pred_codes]
    tp = int((true_positive & pred_positive).sum())
    fp, fn = int(pred_positive.sum()) - tp, int(true_positive.sum()) - tp
    return FilteringContingency(tp, fp, fn, len(true) - tp - fp - fn)


def _labels_text(labels: list) -> str:
    return ", ".join(map(repr, labels))


def _positive_label(labels: list, positive):
    """The positive label: ``positive`` when given (one of two labels present, or any label when fewer are
    present), else 1/True for booleans and numbers within {0, 1} or {-1, 1}."""
    if positive is not None:
        if len(labels) == 2 and not any(label == positive for label in labels):
            raise BinaryLabelsError(f"positive={positive!r} is not one of the labels {_labels_text(labels)}")
        return positive
    numeric = all(isinstance(label, bool | int | float) for label in labels)
    if numeric and (set(labels) <= {0, 1} or set(labels) <= {-1, 1}):
        return 1
    raise BinaryLabelsError(f"cannot tell which label is positive among {_labels_text(labels)}: pass positive= "
                            "(only booleans and numbers in {0, 1} or {-1, 1} default to 1/True)")


# ------------------------------------------------------------------------------------ estimates
@dataclass(frozen=True)
class Estimates:
    """The probabilities the measures are written in (Amigó et al., filtering metrics comparison, §4), and the
    (smoothed) collection size."""

    p_g: float  # P(G)
    s_g: float  # P(S|G): recall
    s_ng: float  # P(S|¬G): fall-out
    g_s: float  # P(G|S): precision
    g_ns: float  # P(G|¬S)
    n: float  # |T| (+4 with Laplace)

    @property
    def p_s(self) -> float:
        """P(S) consistent with the joint: P(S|G)P(G) + P(S|¬G)P(¬G)."""
        return _mix(self.s_g, self.p_g) + _mix(self.s_ng, 1 - self.p_g)

    def joint(self) -> np.ndarray:
        """[[P(S∧G), P(S∧¬G)], [P(¬S∧G), P(¬S∧¬G)]] from P(G) and the gold-conditioned estimates."""
        pg, png = self.p_g, 1 - self.p_g
        return np.array([[_mix(self.s_g, pg), _mix(self.s_ng, png)],
                         [_mix(1 - self.s_g, pg), _mix(1 - self.s_ng, png)]])


def _mix(conditional: float, marginal: float) -> float:
    """conditional × marginal, 0 when the marginal is 0 (an undefined conditional over an empty class)."""
    return 0.0 if marginal == 0 else conditional * marginal


def _ratio(num: float, den: float) -> float:
    return num / den if den else math.nan


@validate(smoothing=_SMOOTHING_OR_NONE)
def estimates(c: FilteringContingency, smoothing: str | None = None) -> Estimates:
    """Probabilities from counts, smoothed as Amigó et al., filtering metrics comparison, §5.1 (``"laplace"``) or §5.2
    (``"noninformative"``); None is ``"none"``.

    >>> e = estimates(FilteringContingency(tp=0, fp=10, fn=5, tn=85), "noninformative")
    >>> round(e.g_s, 4)  # (0 + 2·0.05) / (10 + 2)
    0.0083
    """
    tp, fp, fn, tn = c.tp, c.fp, c.fn, c.tn
    if smoothing == "laplace":
        tp, fp, fn, tn = tp + 1, fp + 1, fn + 1, tn + 1
    n = tp + fp + fn + tn
    g, ng, s, ns = tp + fn, fp + tn, tp + fp, fn + tn
    if smoothing == "noninformative":
        if n == 0:
            return Estimates(math.nan, math.nan, math.nan, math.nan, math.nan, 0)
        p_g, p_s = g / n, s / n
        return Estimates(p_g, (tp + 2 * p_s) / (g + 2), (fp + 2 * p_s) / (ng + 2),
                         (tp + 2 * p_g) / (s + 2), (fn + 2 * p_g) / (ns + 2), n)
    return Estimates(_ratio(g, n), _ratio(tp, g), _ratio(fp, ng), _ratio(tp, s), _ratio(fn, ns), n)


def _est(c: FilteringContingency | Estimates, smoothing) -> Estimates:
    return c if isinstance(c, Estimates) else estimates(c, smoothing)


# -------------------------------------------------------------------------------------- measures
@validate(smoothing=_SMOOTHING_OR_NONE)
def accuracy(c, smoothing=None) -> float:
    """Acc = (TP + TN)/|T| = P(S|G)P(G) + P(¬S|¬G)P(¬G) (Amigó et al., filtering metrics comparison, §4.1)."""
    j = _est(c, smoothing).joint()
    return float(j[0, 0] + j[1, 1])


@validate(lam=WACC_LAMBDA, smoothing=_SMOOTHING_OR_NONE)
def weighted_accuracy(c, lam: float = 1.0, smoothing=None) -> float:
    """WAcc_λ = (λTP + TN)/(λ(TP + FN) + TN + FP) (Androutsopoulos et al. 2000; Amigó et al., filtering metrics
    comparison, §4.1)."""
    e = _est(c, smoothing)
    j = e.joint()
    return _ratio(lam * j[0, 0] + j[1, 1], lam * e.p_g + (1 - e.p_g))


def _counts(e: Estimates) -> np.ndarray:
    """Effective [[TP, FP], [FN, TN]] from the estimates (the counts themselves without smoothing)."""
    return e.joint() * e.n


@validate(alpha=UTILITY_ALPHA, smoothing=_SMOOTHING_OR_NONE)
def utility(c, alpha: float = 2.0, smoothing=None) -> float:
    """Utility = α·TP − FP (Amigó et al., filtering metrics comparison, §4.1; TREC filtering's T11U is α = 2), α > 0.
    Not normalised."""
    (tp, fp), _ = _counts(_est(c, smoothing))
    return float(alpha * tp - fp)


@validate(smoothing=_SMOOTHING_OR_NONE)
def linear_utility(c, a1: float = 2.0, a2: float = 0.0, a3: float = 1.0, a4: float = 0.0,
                   smoothing=None) -> float:
    """Utility_{α1..α4} = α1·TP + α2·TN − α3·FP − α4·FN (Hull 1998; Amigó et al., filtering metrics comparison,
    §4.1)."""
    (tp, fp), (fn, tn) = _counts(_est(c, smoothing))
    return float(a1 * tp + a2 * tn - a3 * fp - a4 * fn)


@validate(smoothing=_SMOOTHING_OR_NONE)
def lam(c, smoothing=None) -> float:
    """Lam% = logit⁻¹((logit P(¬S|G) + logit P(S|¬G))/2) (Cormack & Lynam 2005; Amigó et al., filtering metrics
    comparison, §4.2).

    An error rate (lower is better), computed as √(ab)/(√(ab) + √((1−a)(1−b))) with a = P(¬S|G),
    b = P(S|¬G): 0 when either rate is 0, NaN when one is 0 and the other 1.
    """
    e = _est(c, smoothing)
    a, b = 1 - e.s_g, e.s_ng
    good, bad = math.sqrt(a * b), math.sqrt((1 - a) * (1 - b))
    return _ratio(good, good + bad)


@validate(smoothing=_SMOOTHING_OR_NONE)
def phi(c, smoothing=None) -> float:
    """Phi = (TP·TN − FP·FN)/√(|G||¬G||S||¬S|) = (P(S|G) − P(S|¬G))·√(P(G)P(¬G)/(P(S)P(¬S))) (§4.2).

    0 for an output that puts every document in one class (non-informative); NaN for a one-class gold.
    """
    e = _est(c, smoothing)
    if e.p_g in (0.0, 1.0) or math.isnan(e.p_g):
        return math.nan
    p_s = e.p_s
    if p_s in (0.0, 1.0):
        return 0.0
    return float((e.s_g - e.s_ng) * math.sqrt(e.p_g * (1 - e.p_g) / (p_s * (1 - p_s))))


@validate(smoothing=_SMOOTHING_OR_NONE)
def kappa(c, smoothing=None) -> float:
    """Cohen's κ = (Acc − Acc_random)/(1 − Acc_random), Acc_random = P(S)P(G) + P(¬S)P(¬G) (§4.2).

    0 for a one-class output when the gold has both classes; NaN when both are one and the same class.
    """
    e = _est(c, smoothing)
    p_s = e.p_s
    chance = p_s * e.p_g + (1 - p_s) * (1 - e.p_g)
    return _ratio(accuracy(e) - chance, 1 - chance)


@validate(smoothing=_SMOOTHING_OR_NONE)
def mutual_information(c, smoothing=None) -> float:
    """MI = Σ P(x, y) log(P(x, y)/(P(x)P(y))) over the 2×2 joint, in nats (Amigó et al., filtering metrics comparison,
    §4.2)."""
    j = _est(c, smoothing).joint()
    if np.isnan(j).any():
        return math.nan
    rows, cols = j.sum(axis=1), j.sum(axis=0)
    total = 0.0
    for x in range(2):
        for y in range(2):
            if j[x, y] > 0:
                total += j[x, y] * math.log(j[x, y] / (rows[x] * cols[y]))
    return max(total, 0.0)


@validate(smoothing=_SMOOTHING_OR_NONE)
def odds_ratio(c, smoothing=None) -> float:
    """Odds = TP·TN/(FN·FP) = [P(S|G)/P(¬S|G)]·[P(¬S|¬G)/P(S|¬G)] (Karon & Alexander 1958; §4.2).

    1 for a non-informative output; +inf when only the denominator is 0; NaN for 0/0.
    """
    e = _est(c, smoothing)
    num, den = e.s_g * (1 - e.s_ng), (1 - e.s_g) * e.s_ng
    if den == 0:
        return math.inf if num > 0 else math.nan
    return num / den


@validate(smoothing=_SMOOTHING_OR_NONE)
def macro_accuracy(c, smoothing=None) -> float:
    """MAAc = (P(S|G) + P(¬S|¬G))/2, the mean of the two classes' accuracies (Mitchell 1997; §4.2)."""
    e = _est(c, smoothing)
    return (e.s_g + 1 - e.s_ng) / 2


@validate(smoothing=_SMOOTHING_OR_NONE)
def chi(c, smoothing=None) -> float:
    """Chi, Amigó et al.'s (filtering metrics comparison) probabilistic form: (P(S|G)P(¬S|¬G) − P(S|¬G)P(¬S|G) + 1)/2; ½
    when non-informative."""
    e = _est(c, smoothing)
    return (e.s_g * (1 - e.s_ng) - e.s_ng * (1 - e.s_g) + 1) / 2


@validate(smoothing=_SMOOTHING_OR_NONE)
def chi_counts(c, smoothing=None) -> float:
    """Chi-counts = (|S∩G|·|¬S∩¬G| − |S∩¬G|·|¬S∩G| + |T|)/(|S| + |G| + |¬S| + |¬G|), Chi in Amigó et al.'s
    (filtering metrics comparison) count form as printed.

    The paper prints it beside the probabilistic form as if equal; it is not (it grows with |T|), hence
    named apart (``Chi-counts``).
    """
    e = _est(c, smoothing)
    (tp, fp), (fn, tn) = _counts(e)
    return _ratio(tp * tn - fp * fn + e.n, 2 * e.n)


@validate(smoothing=_SMOOTHING_OR_NONE)
def precision(c, smoothing=None) -> float:
    """Precision = P(G|S) = TP/(TP + FP); NaN when nothing is returned."""
    return float(_est(c, smoothing).g_s)


@validate(smoothing=_SMOOTHING_OR_NONE)
def recall(c, smoothing=None) -> float:
    """Recall = P(S|G) = TP/(TP + FN); NaN when the gold has no positive."""
    return float(_est(c, smoothing).s_g)



@validate(smoothing=_SMOOTHING_OR_NONE)
def f_measure(c, alpha: float = 0.5, smoothing=None) -> float:
    """F_α = 1/(α/P + (1−α)/R) (van Rijsbergen 1974; Amigó et al., filtering metrics comparison, §4.3); 0 when P or R is
    0."""
    e = _est(c, smoothing)
    return f_alpha(e.g_s, e.s_g, alpha)


@validate(smoothing=_SMOOTHING_OR_NONE)
def reliability(c, smoothing=None) -> float:
    """Reliability = P(G|S)·P(¬G|¬S), the product of both classes' precisions (Amigó et al., filtering metrics
    comparison, §4.4)."""
    e = _est(c, smoothing)
    return e.g_s * (1 - e.g_ns)


@validate(smoothing=_SMOOTHING_OR_NONE)
def sensitivity(c, smoothing=None) -> float:
    """Sensitivity = P(S|G)·P(¬S|¬G), the product of both classes' recalls (Amigó et al., filtering metrics comparison,
    §4.4)."""
    e = _est(c, smoothing)
    return e.s_g * (1 - e.s_ng)


@validate(smoothing=_SMOOTHING_OR_NONE)
def f_reliability_sensitivity(c, alpha: float = 0.5, smoothing=None) -> float:
    """F(R,S) = 1/(α/R + (1−α)/S); 0 when R or S is 0 (the all-positive and all-negative outputs)."""
    e = _est(c, smoothing)
    return f_alpha(reliability(e), sensitivity(e), alpha)


# --------------------------------------------------------------------------------------- registry
_SOURCE = "Amigó, Gonzalo, Verdejo et al., filtering metrics and formal constraints"


def _on_organizations(function):
    def compute(gold, output, *, smoothing="none", **params):
        return function(estimates(contingency(gold, output), smoothing), **params)

    compute.__name__ = f"filtering_{function.__name__}"
    compute.__doc__ = function.__doc__
    return compute


_INF = math.inf
_WEIGHT = Interval(0, 1)
_ALPHA = {"alpha": Param(0.5, _WEIGHT, "α: the weight of the first measure in F_α = 1/(α/x + (1 − α)/y)")}
_LINEAR = {key: Param(default, Interval(0), f"the weight of {what}") for key, default, what in (
    ("a1", 2.0, "TP"), ("a2", 0.0, "TN"), ("a3", 1.0, "FP (subtracted)"), ("a4", 0.0, "FN (subtracted)"))}
_SMOOTHING = {"smoothing": Param("none", SMOOTHING, "how the probabilities are estimated from the counts: "
                                                              "as they are, Laplace's +1, or the non-informative "
                                                              "system's (Amigó et al., filtering metrics "
                                                              "comparison)")}
for _name, _function, _params, _range, _desc in (
    ("Accuracy", accuracy, {}, (0, 1), "(TP + TN)/|T|"),
    ("WAcc", weighted_accuracy, {"lam": Param(1.0, WACC_LAMBDA, "λ: the weight of a relevant document")}, (0, 1),
     "weighted accuracy (λTP + TN)/(λ|G| + |¬G|)"),
    ("Utility", utility, {"alpha": Param(2.0, UTILITY_ALPHA, "α: the gain of a true positive")},
     (-_INF, _INF), "α·TP − FP"),
    ("LinearUtility", linear_utility, _LINEAR, (-_INF, _INF), "α1·TP + α2·TN − α3·FP − α4·FN"),
    ("Lam%", lam, {}, (0, 1), "logistic average misclassification rate (lower is better)"),
    ("Phi", phi, {}, (-1, 1), "Phi correlation coefficient"),
    ("Kappa", kappa, {}, (-1, 1), "Cohen's kappa"),
    ("MI", mutual_information, {}, (0, math.log(2)), "mutual information of output and gold (nats)"),
    ("Odds", odds_ratio, {}, (0, _INF), "odds ratio TP·TN/(FN·FP)"),
    ("MAAc", macro_accuracy, {}, (0, 1), "macro-averaged accuracy"),
    ("Chi", chi, {}, (0, 1), "Chi, probabilistic form (½ when non-informative)"),
    ("Chi-counts", chi_counts, {}, (-_INF, _INF),
     "Chi, count form as printed in Amigó et al., filtering metrics comparison"),
    ("Precision", precision, {}, (0, 1), "P(G|S)"),
    ("Recall", recall, {}, (0, 1), "P(S|G)"),
    ("F", f_measure, _ALPHA, (0, 1), "F_α of precision and recall"),
    ("Reliability", reliability, {}, (0, 1), "P(G|S)·P(¬G|¬S)"),
    ("Sensitivity", sensitivity, {}, (0, 1), "P(S|G)·P(¬S|¬G)"),
    ("F(R,S)", f_reliability_sensitivity, _ALPHA, (0, 1), "F_α of Reliability and Sensitivity"),
):
    register(_name, _on_organizations(_function), task="filtering", source=_SOURCE,
             params={**_params, **_SMOOTHING}, range=_range, description=_desc,
             direction="lower" if _name == "Lam%" else "higher",
             explained=_EXPLAINED)
