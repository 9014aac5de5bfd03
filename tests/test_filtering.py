"""Filtering measures: scikit-learn on random labels, Amigó et al.'s (filtering metrics comparison) formulas, smoothing
and its properties."""

import math
import warnings

import pytest
import sklearn.metrics as skm
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench import evaluate
from workbench.errors import ParameterError
from workbench.metrics import filtering as F
from workbench.metrics.registry import MeasureParameterError, parse
from workbench.metrics.reliability import reliability_sensitivity
from workbench.model import Organization

MEASURES = {
    "Accuracy": F.accuracy, "Lam%": F.lam, "Phi": F.phi, "Kappa": F.kappa, "MI": F.mutual_information,
    "Odds": F.odds_ratio, "MAAc": F.macro_accuracy, "Chi": F.chi, "Precision": F.precision,
    "Recall": F.recall, "F": F.f_measure, "Reliability": F.reliability, "Sensitivity": F.sensitivity,
    "F(R,S)": F.f_reliability_sensitivity, "WAcc": F.weighted_accuracy,
}


def C(tp, fp, fn, tn):
    return F.FilteringContingency(tp, fp, fn, tn)


labels = st.integers(1, 60).flatmap(
    lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                        st.lists(st.booleans(), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(labels)
def test_equal_scikit_learn_on_random_labels(pair):
    true, pred = pair
    c = F.contingency_from_labels(true, pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.accuracy(c) == pytest.approx(skm.accuracy_score(true, pred), abs=1e-12)
        assert F.mutual_information(c) == pytest.approx(skm.mutual_info_score(true, pred), abs=1e-12)
        if any(true) and any(pred):
            assert F.f_measure(c) == pytest.approx(skm.f1_score(true, pred), abs=1e-12)
            assert F.precision(c) == pytest.approx(skm.precision_score(true, pred), abs=1e-12)
            assert F.recall(c) == pytest.approx(skm.recall_score(true, pred), abs=1e-12)
        if 0 < sum(true) < len(true):  # a two-class gold: scikit-learn and the paper agree on the limits
            assert F.phi(c) == pytest.approx(skm.matthews_corrcoef(true, pred), abs=1e-12)
            assert F.kappa(c) == pytest.approx(skm.cohen_kappa_score(true, pred), abs=1e-12)
        else:
            assert math.isnan(F.phi(c))


def test_hand_computed_contingency():
    """TP 3, FP 1, FN 2, TN 4: P = 3/4, R = 3/5, P(¬G|¬S) = 4/6, P(¬S|¬G) = 4/5;
    Reliability = 3/4·4/6 = 1/2, Sensitivity = 3/5·4/5 = 12/25 (Amigó et al., filtering metrics comparison, §4.4)."""
    c = C(3, 1, 2, 4)
    assert F.reliability(c) == pytest.approx(0.5)
    assert F.sensitivity(c) == pytest.approx(12 / 25)
    assert F.f_reliability_sensitivity(c) == pytest.approx(2 * 0.5 * 0.48 / 0.98)
    assert F.macro_accuracy(c) == pytest.approx((3 / 5 + 4 / 5) / 2)
    assert F.odds_ratio(c) == pytest.approx(3 * 4 / (2 * 1))
    assert F.utility(c, alpha=2) == pytest.approx(2 * 3 - 1)
    assert F.linear_utility(c, 1, 1, 1, 1) == pytest.approx(3 + 4 - 1 - 2)
    assert F.weighted_accuracy(c, lam=9) == pytest.approx((9 * 3 + 4) / (9 * 5 + 5))
    assert F.chi(c) == pytest.approx((3 / 5 * 4 / 5 - 1 / 5 * 2 / 5 + 1) / 2)
    assert F.chi_counts(c) == pytest.approx((3 * 4 - 1 * 2 + 10) / 20)
    # Lam%: logit⁻¹((logit(2/5) + logit(1/5))/2)
    logit = lambda x: math.log(x / (1 - x))  # noqa: E731
    expected = 1 / (1 + math.exp(-(logit(2 / 5) + logit(1 / 5)) / 2))
    assert F.lam(c) == pytest.approx(expected)


# A non-informative output: |T| = 100, |G| = 20, |S| = 50, P(S|G) = P(S|¬G) = 1/2 (Amigó et al., filtering metrics
# comparison, §2.2).
NON_INFORMATIVE = C(10, 40, 10, 40)


@pytest.mark.parametrize("smoothing", [None, "noninformative"])
def test_informativeness_family_scores_non_informative_outputs_fixed(smoothing):
    """Amigó et al., filtering metrics comparison, §4.2: Lam% = ½, Phi = 0, Odds = 1, MAAc = ½, Kappa = 0, Chi = ½, MI =
    0 for any non-informative output; non-informative smoothing preserves it (§5.2)."""
    c = NON_INFORMATIVE
    assert F.lam(c, smoothing) == pytest.approx(0.5)
    assert F.phi(c, smoothing) == pytest.approx(0.0, abs=1e-12)
    assert F.odds_ratio(c, smoothing) == pytest.approx(1.0)
    assert F.macro_accuracy(c, smoothing) == pytest.approx(0.5)
    assert F.kappa(c, smoothing) == pytest.approx(0.0, abs=1e-12)
    assert F.chi(c, smoothing) == pytest.approx(0.5)
    assert F.mutual_information(c, smoothing) == pytest.approx(0.0, abs=1e-12)
    e = F.estimates(c, smoothing)
    assert e.g_s == pytest.approx(0.2)  # P(G|S) = P(G)


def test_laplace_breaks_non_informativeness_as_section_5_1_says():
    """Amigó et al., filtering metrics comparison, §5.1: with Laplace, P(G|S_∅) = 1/2 ≠ P(G), Recall(S_∅) = 1/(|G|+2),
    Recall(S_T) = (|G|+1)/(|G|+2), Precision(S_T) = (|G|+1)/(|T|+2); Lam% of a non-informative output
    moves off ½."""
    g, t = 20, 100
    zero, placebo = C(0, 0, g, t - g), C(g, t - g, 0, 0)
    assert F.precision(zero, "laplace") == pytest.approx(0.5)
    assert F.recall(zero, "laplace") == pytest.approx(1 / (g + 2))
    assert F.recall(placebo, "laplace") == pytest.approx((g + 1) / (g + 2))
    assert F.precision(placebo, "laplace") == pytest.approx((g + 1) / (t + 2))
    assert F.lam(C(2, 8, 18, 72), "laplace") != pytest.approx(0.5)
    # Non-informative smoothing keeps P(G|S) = P(G) for the zero output: (0 + 2·0.2)/(0 + 2).
    assert F.precision(zero, "noninformative") == pytest.approx(0.2)


def test_final_formulas_of_section_5_2():
    c = C(3, 1, 2, 4)
    p_g, p_s = 5 / 10, 4 / 10
    e = F.estimates(c, "noninformative")
    assert e.s_g == pytest.approx((3 + 2 * p_s) / (5 + 2))
    assert e.s_ng == pytest.approx((1 + 2 * p_s) / (5 + 2))
    assert e.g_s == pytest.approx((3 + 2 * p_g) / (4 + 2))
    assert e.g_ns == pytest.approx((2 + 2 * p_g) / (6 + 2))


def test_smoothing_and_strict_monotonicity_of_f():
    """Amigó et al., filtering metrics comparison, §4.3/§5.1: with no true positive, moving a false positive to the true
    negatives leaves F at 0; Laplace makes it improve. The §5.2 formulas as printed do not always: the recall prior
    2P(S) shrinks with the output, so here F goes from P = R = (0 + 2·0.05)/(5 + 2) = 1/70 down to P = 0.1/6, R = (0 +
    2·0.04)/7, F = 2PR/(P + R) ≈ 0.013559 (a counterexample to §5.2's claim)."""
    before, after = C(0, 5, 5, 90), C(0, 4, 5, 91)
    assert F.f_measure(before) == F.f_measure(after) == 0.0
    assert F.f_measure(after, smoothing="laplace") > F.f_measure(before, smoothing="laplace")
    assert F.f_measure(before, smoothing="noninformative") == pytest.approx(1 / 70)
    p, r = 0.1 / 6, 0.08 / 7
    assert F.f_measure(after, smoothing="noninformative") == pytest.approx(2 * p * r / (p + r))
    # Precision alone, the component the paper discusses, does improve.
    assert F.precision(after, "noninformative") > F.precision(before, "noninformative")


def test_r_s_limits_for_the_trivial_outputs():
    """Amigó et al., filtering metrics comparison, §4.4: the all-positive and all-negative outputs get F(R,S) = 0 (R is
    undefined for the all-positive output, whose negative class is empty, so R is NaN and S = 0)."""
    placebo, zero = C(20, 80, 0, 0), C(0, 0, 20, 80)
    assert F.f_reliability_sensitivity(placebo) == 0.0 and F.f_reliability_sensitivity(zero) == 0.0
    assert math.isnan(F.reliability(placebo)) and F.sensitivity(placebo) == 0.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=14))
def test_reliability_sensitivity_equal_the_general_measures_on_filtering(labels):
    """Amigó et al., SIGIR 2013, §4.3 / Amigó et al., filtering metrics comparison, §4.4: on a filtering organization R≺
    = P(G|S)·P(¬G|¬S) and S≺ = P(S|G)·P(¬S|¬G). Where a class is empty this module says NaN (0/0) and the general engine
    0."""
    docs = [f"d{i}" for i in range(len(labels))]
    gold = Organization.from_filtering([d for d, (g, _) in zip(docs, labels, strict=True) if g],
                                       [d for d, (g, _) in zip(docs, labels, strict=True) if not g])
    out = Organization.from_filtering([d for d, (_, s) in zip(docs, labels, strict=True) if s],
                                      [d for d, (_, s) in zip(docs, labels, strict=True) if not s])
    c = F.contingency(gold, out)
    rs = reliability_sensitivity(gold, out)
    gold_split = min(c.tp + c.fn, c.fp + c.tn) > 0
    output_split = min(c.tp + c.fp, c.fn + c.tn) > 0
    assert math.isnan(F.reliability(c)) == (not output_split)
    assert math.isnan(F.sensitivity(c)) == (not gold_split)
    if gold_split and output_split:
        assert (F.reliability(c), F.sensitivity(c)) == pytest.approx((rs.r_priority, rs.s_priority), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 60), st.integers(1, 59), st.integers(1, 59))
def test_non_informative_f_rs_stays_below_a_quarter(t, g, s):
    """Amigó et al., filtering metrics comparison, §4.4 / Fig. 4: every non-informative output scores F(R,S) ≤ 0.25
    (exact independence: TP = |S||G|/|T| as a real count)."""
    assume(g < t and s < t)
    tp = s * g / t
    c = C(tp, s - tp, g - tp, t - s - g + tp)
    assert F.f_reliability_sensitivity(c) <= 0.25 + 1e-12


contingencies = st.tuples(*[st.integers(0, 30)] * 4).map(lambda x: C(*x))


@settings(max_examples=200, deadline=None)
@given(contingencies, st.sampled_from([None, "laplace", "noninformative"]))
def test_every_measure_within_its_declared_range_or_nan(c, smoothing):
    for name, function in MEASURES.items():
        value = function(c, smoothing=smoothing)
        low, high = parse(name).spec.range
        assert math.isnan(value) or low - 1e-12 <= value <= high + 1e-12, (name, value)
    if smoothing == "laplace":  # every cell positive: nothing is undefined
        assert not any(math.isnan(f(c, smoothing=smoothing)) for f in MEASURES.values())


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 30))
def test_perfect_output_scores_the_maximum(pos, neg):
    c = C(pos, 0, 0, neg)
    for name in ("Accuracy", "Phi", "Kappa", "MAAc", "Chi", "Precision", "Recall", "F", "Reliability",
                 "Sensitivity", "F(R,S)", "WAcc"):
        assert MEASURES[name](c) == pytest.approx(1.0), name
    assert F.lam(c) == 0.0  # an error rate: its best
    assert F.odds_ratio(c) == math.inf


def test_organizations_adapter():
    """Positives = prioritised documents, negatives = the rest; a gold document the output does not name is
    a negative; an output document outside a finite gold is ignored; an unlimited-tail gold takes the
    output's documents as negatives."""
    gold = Organization.from_filtering(["d1", "d2", "d3"], ["d4", "d5", "d6"])
    out = Organization.from_filtering(["d1", "d4", "x9"], ["d2"])
    assert F.contingency(gold, out) == C(1, 1, 2, 2)
    ranking_gold = Organization.parse("d1 d2")
    assert F.contingency(ranking_gold, Organization.from_filtering(["d1", "d7"], ["d8"])) == C(1, 1, 1, 1)
    scores = evaluate(gold, out, ["Accuracy", "F(alpha=0.5)", "F(R,S)", "Reliability(smoothing=laplace)"])
    assert scores["Accuracy"] == pytest.approx(0.5)
    assert scores["F(alpha=0.5)"] == pytest.approx(F.f_measure(C(1, 1, 2, 2)))


def test_names_parse_distinctly():
    """F(alpha=0.5) (filtering), F(P,IP)(alpha=0.5) (clustering) and F(R,S) are three measures."""
    names = {n: parse(n) for n in ("F(alpha=0.5)", "F(P,IP)(alpha=0.5)", "F(R,S)", "F(R,S)(alpha=0.3)",
                                   "Utility(alpha=3)", "Lam%(smoothing=noninformative)", "Chi-counts")}
    assert [m.name for m in names.values()] == ["F", "F(P,IP)", "F(R,S)", "F(R,S)", "Utility", "Lam%",
                                                "Chi-counts"]
    assert names["F(alpha=0.5)"].spec.task == "filtering"
    assert names["F(P,IP)(alpha=0.5)"].spec.task == "clustering"
    for measure in names.values():
        assert parse(str(measure)) == measure
    with pytest.raises(MeasureParameterError, match="smoothing must be one of none, laplace, noninformative"):
        parse("Phi(smoothing=add-one)")


def test_bad_input_is_named():
    with pytest.raises(F.FilteringInputError, match="3 items but y_pred has 2"):
        F.contingency_from_labels([1, 0, 1], [1, 0])
    with pytest.raises(F.FilteringInputError, match="y_true holds NaN at position 1"):
        F.contingency_from_labels([1.0, float("nan")], [1, 0])
    with pytest.raises(ParameterError, match="^contingency: gold must be an Organization"):
        F.contingency(["d1"], Organization.from_filtering([], []))
    with pytest.raises(ParameterError, match="^estimates: smoothing must be one of none, laplace, noninformative"):
        F.estimates(C(1, 1, 1, 1), "add-one")
    for function, parameter, value in ((F.accuracy, "smoothing", "add-one"), (F.weighted_accuracy, "lam", -1),
                                       (F.utility, "alpha", 0)):  # each measure names itself
        with pytest.raises(ParameterError, match=f"^{function.__name__}: {parameter} must be"):
            function(C(1, 1, 1, 1), **{parameter: value})


def test_undefined_values_are_nan_not_exceptions():
    empty = C(0, 0, 0, 0)
    for name, function in MEASURES.items():
        value = function(empty)
        assert math.isnan(value) or name in ("F", "F(R,S)"), (name, value)
    assert math.isnan(F.precision(C(0, 0, 3, 3)))  # nothing returned
    assert F.f_measure(C(0, 0, 3, 3)) == 0.0  # recall 0: the paper's limit
    assert F.odds_ratio(C(2, 0, 1, 3)) == math.inf
    assert math.isnan(F.lam(C(3, 3, 0, 0)))  # P(¬S|G) = 0 and P(S|¬G) = 1
    assert F.lam(C(3, 0, 1, 3)) == 0.0
