"""Significance tests: t and Wilcoxon against scipy, randomization against scipy's exact permutation test,
the bootstrap against a one-resample-at-a-time implementation, Holm and Bonferroni by hand."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from workbench.analysis import ResultsError
from workbench.analysis.paired_tests import (
    adjust,
    bootstrap_test,
    paired_t,
    randomization_test,
    significance,
    wilcoxon_signed_rank,
)
from workbench.errors import ParameterError


def tidy(scores: dict, measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(s, t, measure, v) for s, vs in scores.items() for t, v in enumerate(vs)],
                        columns=["system", "topic", "measure", "value"])


@pytest.mark.parametrize("seed", range(5))
def test_paired_t_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random((4, 15)), rng.random((4, 15))
    t, p = paired_t(a - b)
    reference = stats.ttest_rel(a, b, axis=1)  # scipy.stats.ttest_rel
    np.testing.assert_allclose(t, reference.statistic, rtol=1e-12)
    np.testing.assert_allclose(p, reference.pvalue, rtol=1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_wilcoxon_exact_equals_scipy(seed):
    d = np.random.default_rng(seed).normal(0.05, 0.2, (3, 14))  # continuous: no ties, no zeros
    w, p = wilcoxon_signed_rank(d, "exact")
    for row in range(3):
        reference = stats.wilcoxon(d[row], method="exact")
        assert w[row] == reference.statistic
        assert p[row] == pytest.approx(reference.pvalue, rel=1e-12)
    np.testing.assert_array_equal(wilcoxon_signed_rank(d, "auto")[1], p)  # auto picks exact here


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.4]), min_size=6, max_size=40))
def test_wilcoxon_asymptotic_equals_scipy_with_ties_and_zeros(diffs):
    d = np.array(diffs)
    if np.count_nonzero(d) < 2:
        return
    w, p = wilcoxon_signed_rank(d[None, :], "asymptotic")
    reference = stats.wilcoxon(d, method="asymptotic", zero_method="wilcox", correction=False)
    assert w[0] == reference.statistic
    assert p[0] == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-15)


def test_wilcoxon_exact_refuses_ties():
    with pytest.raises(ParameterError, match="asymptotic"):
        wilcoxon_signed_rank(np.array([[0.1, 0.1, -0.2, 0.3]]), "exact")


@pytest.mark.parametrize("seed", range(4))
def test_randomization_exact_equals_scipy_permutation_test(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.random(9), rng.random(9)
    mean, p = randomization_test((a - b)[None, :], n_resamples=10_000)  # 2^9 = 512 ≤ 10,000: exact
    reference = stats.permutation_test((a, b), lambda x, y: np.mean(x - y), permutation_type="samples",
                                       n_resamples=np.inf, alternative="two-sided")
    assert mean[0] == pytest.approx(np.mean(a - b))
    assert p[0] == pytest.approx(reference.pvalue, rel=1e-12)


def test_randomization_monte_carlo_is_close_to_exact_and_seeded():
    d = np.random.default_rng(3).normal(0.08, 0.25, (2, 14))
    _, exact = randomization_test(d, n_resamples=2**14)
    _, sampled = randomization_test(d, n_resamples=4000, rng=np.random.default_rng(11))
    np.testing.assert_allclose(sampled, exact, atol=0.03)
    _, again = randomization_test(d, n_resamples=4000, rng=np.random.default_rng(11))
    np.testing.assert_array_equal(sampled, again)
    assert np.all(sampled > 0)  # (hits + 1)/(B + 1)


def test_bootstrap_equals_resample_by_resample_computation():
    d = np.random.default_rng(5).normal(0.05, 0.3, (2, 10))
    t, p = bootstrap_test(d, n_resamples=500, rng=np.random.default_rng(9))
    index = np.random.default_rng(9).integers(0, 10, size=(500, 10))
    for row in range(2):
        t_obs = d[row].mean() / (d[row].std(ddof=1) / np.sqrt(10))
        shifted = d[row] - d[row].mean()
        hits = 0
        for draw in index:
            sample = shifted[draw]
            t_star = sample.mean() / (sample.std(ddof=1) / np.sqrt(10))
            hits += abs(t_star) >= abs(t_obs) - 1e-12
        assert t[row] == pytest.approx(t_obs)
        assert p[row] == pytest.approx(hits / 500)


def test_identical_systems_are_never_significant():
    same = tidy({"A": [0.1, 0.5, 0.3], "B": [0.1, 0.5, 0.3]})
    for test in ("t", "wilcoxon", "randomization", "bootstrap"):
        row = significance(same, ["AP"], test=test).iloc[0]
        assert row["statistic"] == 0 and row["p_value"] == 1 and not row["significant"], test


def test_constant_difference_t():
    t, p = paired_t(np.array([[0.2, 0.2, 0.2]]))
    assert np.isinf(t[0]) and p[0] == 0


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.2]
    # Holm: sorted 0.01, 0.03, 0.04, 0.2 × 4, 3, 2, 1 = 0.04, 0.09, 0.08→0.09 (monotone), 0.2
    np.testing.assert_allclose(adjust(p, "holm"), [0.04, 0.09, 0.09, 0.2])
    np.testing.assert_allclose(adjust(p, "bonferroni"), [0.04, 0.16, 0.12, 0.8])
    np.testing.assert_allclose(adjust(p, "none"), p)
    with pytest.raises(ParameterError, match="correction must be one of"):
        adjust(p, "fdr")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_lies_between_raw_and_bonferroni(p):
    p = np.array(p)
    holm, bonferroni = adjust(p, "holm"), adjust(p, "bonferroni")
    assert np.all(p <= holm + 1e-15) and np.all(holm <= bonferroni + 1e-15) and np.all(holm <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(holm[order]) >= -1e-15)


def campaign() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    base = rng.random(20)
    noise = np.clip(base + rng.normal(0, .05, 20), 0, 1)
    scores = {"good": np.clip(base + 0.15, 0, 1), "same": base, "noise": noise}
    frame = tidy(scores)
    return pd.concat([frame, tidy({k: 1 - v for k, v in scores.items()}, "P@10")], ignore_index=True)


def test_significance_table_and_report():
    table = significance(campaign(), ["AP", "P@10"], test="t", correction="holm")
    assert len(table) == 6 and set(table.measure) == {"AP", "P@10"}
    assert list(table.columns) == ["measure", "system_a", "system_b", "mean_a", "mean_b", "difference",
                                   "statistic", "p_value", "p_adjusted", "significant", "better", "test", "parameters",
                                   "correction"]
    ap = table[table.measure == "AP"]
    scores = campaign().query("measure == 'AP'").pivot(index="topic", columns="system", values="value")
    expected = stats.ttest_rel(scores["good"], scores["same"]).pvalue
    row = ap[(ap.system_a == "good") & (ap.system_b == "same")].iloc[0]
    assert row["p_value"] == pytest.approx(expected) and row["significant"]
    np.testing.assert_allclose(ap["p_adjusted"], adjust(ap["p_value"], "holm"))
    report = table.attrs["report"]
    assert "paired t-test" in report and "holm correction over the 3 pairs" in report
    assert set(table["test"]) == {"paired t-test (two-sided)"} and set(table["parameters"]) == {"df=19"}
    bonferroni = significance(campaign(), ["AP"], test="randomization", correction="bonferroni", seed=4)
    assert "n_resamples=10000, seed=4" in bonferroni.attrs["report"]
    assert set(bonferroni["correction"]) == {"bonferroni (over the 3 pairs of each measure)"}


def test_significance_bad_input():
    with pytest.raises(ParameterError, match="test must be one of"):
        significance(campaign(), ["AP"], test="mcnemar")
    with pytest.raises(ParameterError, match="alpha"):
        significance(campaign(), ["AP"], alpha=5)
    one = tidy({"A": [0.3], "B": [0.2]})
    with pytest.raises(ResultsError, match="needs at least 2"):
        significance(one, ["AP"])
    holes = campaign().drop(index=3)
    with pytest.raises(ResultsError, match="system 'good' on topic 3 for measure 'AP' is missing"):
        significance(holes, ["AP"])
    with pytest.warns(UserWarning, match="dropped 1 topic"):
        table = significance(holes, ["AP"], missing="intersection")
    assert "over 19 topics" in table.attrs["report"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=3, max_size=12))
def test_p_values_are_probabilities_and_symmetric_in_the_pair(diffs):
    """Swapping the two systems negates every difference: the two-sided p-value does not change."""
    d = np.array([diffs])
    for test in (paired_t, lambda x: wilcoxon_signed_rank(x, "asymptotic"),
                 lambda x: randomization_test(x, n_resamples=2**12)):
        _, p = test(d)
        _, q = test(-d)
        assert 0 <= p[0] <= 1 and p[0] == pytest.approx(q[0], abs=1e-12)
