"""Issue 40: the methods that judge measures (:mod:`workbench.analysis.meta`) — hand-computed cases for every
statistic, the plain-loop transcription of ``tests/meta_bruteforce.py`` on random campaigns (the same numbers from the
same seed), the family's errors, and the charts' specs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from tests import meta_bruteforce as brute
from tests.conftest import reference_module
from workbench.analysis import (
    FIGURE2_FUZZINESS,
    ResultsError,
    achieved_significance,
    discriminative_power,
    measure_trust,
    stability_method,
    swap_rates,
    swap_sensitivity,
    topic_samples,
    topic_set_size,
    topics_for_ci,
    topics_for_power,
)
from workbench.analysis.meta.samples import multiplicities
from workbench.analysis.meta.topic_sets import difference_variance, expected_ci_width, power_of
from workbench.charts import (
    ChartDataError,
    asl_chart,
    sensitivity_chart,
    stability_chart,
    swap_chart,
    topic_set_size_chart,
    trust_charts,
)
from workbench.data import Campaign
from workbench.errors import ParameterError
from workbench.model import Organization


def frame(scores: dict[str, list[float]], measure: str = "m") -> pd.DataFrame:
    """Tidy results of one measure from ``{system: [score per topic]}`` (topics t0, t1, …)."""
    rows = [(s, f"t{t}", measure, float(v)) for s, values in scores.items() for t, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def only(table: pd.DataFrame, **where) -> pd.Series:
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        mask &= (table[column] == value).to_numpy()
    (index,) = np.flatnonzero(mask)
    return table.iloc[index]


# ------------------------------------------------------------------------------------------ the draws
def test_the_draws_are_one_seeded_matrix_of_the_documented_calls():
    index = topic_samples(7, 50, seed=3)
    assert index.shape == (50, 1, 7) and index.min() >= 0 and index.max() < 7
    np.testing.assert_array_equal(index, np.random.default_rng(3).integers(0, 7, size=(50, 1, 7)))
    np.testing.assert_array_equal(topic_samples(7, 50, seed=np.random.default_rng(3)), index)
    assert not np.array_equal(topic_samples(7, 50, seed=4), index)
    halves = topic_samples(10, 20, sets=2, replace=False, seed=1)
    assert halves.shape == (20, 2, 5)
    assert all(sorted(row.ravel().tolist()) == list(range(10)) for row in halves)  # disjoint halves
    keys = np.random.default_rng(1).random((20, 10))
    np.testing.assert_array_equal(halves.reshape(20, 10), np.argsort(keys, axis=1, kind="stable"))
    counts = multiplicities(np.array([[0, 0, 2], [1, 2, 2]]), 4)
    assert counts.tolist() == [[2, 0, 1, 0], [0, 1, 2, 0]]
    with pytest.raises(ParameterError, match="size"):
        topic_samples(10, 5, size=6, sets=2, replace=False)


# ------------------------------------------------------------------------------------------ stability, by hand
def test_stability_minority_rate_by_hand():
    """A wins topic 0, B wins topic 1: over one-topic subsets, A is better on the c0 sets drawing topic 0 and B on
    the c1 others, so the minority rate is min(c0, c1) / c and nothing ties."""
    table = stability_method(frame({"A": [1.0, 0.0], "B": [0.0, 1.0]}), draw="subsets", size=1, samples=40, seed=5,
                             progress=False)
    drawn = np.argsort(np.random.default_rng(5).random((40, 2)), axis=1, kind="stable")[:, 0]
    c0 = int((drawn == 0).sum())
    row = only(table, fuzziness=0.05)
    assert 0 < c0 < 40
    assert row["minority_rate"] == min(c0, 40 - c0) / 40 and row["ties"] == 0.0
    assert (row["comparisons"], row["topics"], row["systems"], row["draw"]) == (40, 1, 2, "subsets")


def test_stability_ties_follow_the_fuzziness_of_the_larger_mean():
    """Means 0.5, 0.48, 0.2 on every topic set: A and B differ by 0.02, 4% of 0.5 — a tie at f = 5%, not at 1%."""
    scores = {"A": [0.5, 0.5, 0.5], "B": [0.48, 0.48, 0.48], "C": [0.2, 0.2, 0.2]}
    table = stability_method(frame(scores), fuzziness=[0.01, 0.05], samples=30, progress=False)
    assert only(table, fuzziness=0.05)["ties"] == pytest.approx(1 / 3, abs=0)
    assert only(table, fuzziness=0.01)["ties"] == 0.0
    assert table["minority_rate"].tolist() == [0.0, 0.0]
    equal = stability_method(frame({"A": [0.3, 0.1], "B": [0.3, 0.1]}), fuzziness=0.0, samples=10, progress=False)
    assert equal["ties"].tolist() == [1.0]  # a difference of 0 is a tie even at f = 0


# ------------------------------------------------------------------------------------------ swap, by hand
HAND_SWAP = {"A": [0.50, 0.40], "B": [0.45, 0.42], "C": [0.10, 0.10]}


def test_swap_rates_by_hand():
    """Halves of one topic each: A − B is +0.05 on topic 0 and −0.02 on topic 1, so it always swaps, in bin 5 when
    Q is topic 0 and in bin 2 when Q is topic 1; A − C and B − C (≥ 0.30) never swap and fall in the last bin."""
    rates = swap_rates(frame(HAND_SWAP), draw="halves", samples=30, seed=2, progress=False)
    first = np.argsort(np.random.default_rng(2).random((30, 2)), axis=1, kind="stable")[:, 0]
    c0 = int((first == 0).sum())
    by_bin = rates.set_index("bin")
    assert by_bin.loc[5, "observations"] == by_bin.loc[5, "swaps"] == c0
    assert by_bin.loc[2, "observations"] == by_bin.loc[2, "swaps"] == 30 - c0
    assert (by_bin.loc[20, "observations"], by_bin.loc[20, "swaps"]) == (60, 0)
    assert by_bin["observations"].sum() == 90 and math.isinf(by_bin.loc[20, "high"])
    assert by_bin.loc[3, "low"] == 0.03 and by_bin.loc[3, "high"] == 0.04 and math.isnan(by_bin.loc[3, "swap_rate"])
    for rule in ("first", "stays"):
        summary = swap_sensitivity(rates, rule=rule)
        assert summary[["difference_required", "sensitivity", "discriminated"]].values.tolist() == [[0.2, 2 / 3, 60]]


def test_a_difference_on_a_bin_edge_falls_in_the_bin_above():
    """0.30 − 0.27 is 0.0299999… in floating point: 0.03 in exact arithmetic, so bin 3."""
    assert 0.30 - 0.27 < 0.03
    rates = swap_rates(frame({"A": [0.30, 0.30], "B": [0.27, 0.27]}), samples=5, progress=False)
    assert rates.loc[rates["observations"] > 0, "bin"].tolist() == [3]


def test_sensitivity_rules_differ_where_a_late_bin_swaps_too_often():
    rates = pd.DataFrame({"measure": "m", "bin": [0, 1, 2, 3], "low": [0.0, 0.01, 0.02, 0.03],
                          "high": [0.01, 0.02, 0.03, np.inf], "observations": [10, 10, 0, 10], "swaps": [5, 0, 0, 2],
                          "ties": [4, 0, 0, 0], "swap_rate": [0.5, 0.0, np.nan, 0.2], "systems": 2, "topics": 4,
                          "samples": 30, "draw": "bootstrap"})
    first = swap_sensitivity(rates).iloc[0]  # 30 comparisons in the bins and 4 ties
    assert (first["difference_required"], first["discriminated"], first["sensitivity"]) == (0.01, 20, 20 / 34)
    stays = swap_sensitivity(rates, rule="stays").iloc[0]
    assert math.isnan(stays["difference_required"]) and stays["sensitivity"] == 0.0
    everything = rates.assign(swaps=0, swap_rate=[0.0, 0.0, np.nan, 0.0])
    assert swap_sensitivity(everything).iloc[0]["sensitivity"] == 30 / 34  # ties never discriminate
    ties_only = rates.assign(observations=[0, 0, 0, 10], swaps=[0, 0, 0, 5], swap_rate=[np.nan] * 3 + [0.5])
    assert math.isnan(swap_sensitivity(ties_only).iloc[0]["difference_required"])  # ties are no evidence


# ------------------------------------------------------------------------------------------ bootstrap, by hand
def test_bootstrap_asl_by_hand():
    """z = (0.2, 0): z̄ = 0.1, σ̄ = 0.1·√2, t = 1. w = (0.1, −0.1): a resample of one topic twice has no spread and a
    non-zero mean, |t*| = ∞ ≥ 1; a resample of both has mean 0, t* = 0. So ASL = the share of the former, and the
    50th-largest of 1,000 |t*| is ∞, whose |w̄*| is 0.1."""
    asl = achieved_significance(frame({"A": [0.7, 0.5], "B": [0.5, 0.5]}), samples=1000, seed=4, progress=False)
    index = np.random.default_rng(4).integers(0, 2, size=(1000, 1, 2))[:, 0]
    same = float(np.mean(index[:, 0] == index[:, 1]))
    row = asl.iloc[0]
    assert row["t"] == pytest.approx(1.0, rel=1e-14) and row["asl"] == same
    assert row["required_difference"] == pytest.approx(0.1, rel=1e-14)
    assert row["significant"] == (same < 0.05) and row["difference"] == pytest.approx(0.1)


def test_bootstrap_asl_of_constant_and_of_no_differences():
    constant = achieved_significance(frame({"A": [0.6, 0.5, 0.4], "B": [0.5, 0.4, 0.3]}), samples=100,
                                     progress=False).iloc[0]
    assert math.isinf(constant["t"]) and constant["asl"] == 0.0 and constant["significant"]
    assert constant["required_difference"] == pytest.approx(0.0, abs=1e-15)
    same = achieved_significance(frame({"A": [0.6, 0.5, 0.4], "B": [0.6, 0.5, 0.4]}), samples=100,
                                 progress=False).iloc[0]
    assert (same["t"], same["asl"], same["significant"]) == (0.0, 1.0, False)


def test_discriminative_power_counts_the_pairs_under_alpha():
    asl = pd.DataFrame({"measure": ["m"] * 3 + ["n"] * 3, "system_a": list("AAB") * 2, "system_b": list("BCC") * 2,
                        "mean_a": 0.0, "mean_b": 0.0, "difference": 0.0, "t": 0.0,
                        "asl": [0.01, 0.2, 0.04, 0.5, 0.6, 0.7],
                        "significant": [True, False, True, False, False, False],
                        "required_difference": [0.05, 0.07, 0.06, 0.1, 0.2, 0.15], "rank": [1, 3, 2, 1, 2, 3],
                        "alpha": 0.05, "samples": 1000, "topics": 50})
    power = discriminative_power(asl)
    assert power[["measure", "pairs", "significant", "discriminative_power", "estimated_difference"]].values.tolist() \
        == [["m", 3, 2, 2 / 3, 0.07], ["n", 3, 0, 0.0, 0.2]]
    with pytest.raises(ResultsError, match="several alphas"):
        discriminative_power(asl.assign(alpha=[0.05, 0.01, 0.05, 0.05, 0.05, 0.05]))


# ------------------------------------------------------------------------------------------ topic set size, by hand
def test_power_design_is_the_smallest_n_with_enough_power():
    """Δ = 0.5, α = 0.05, β = 0.2: Sakai's starting point ((1.96 + 0.8416)/0.5)² + 1.96²/2 ≈ 33.3; the exact
    noncentral-t power first reaches 0.8 at n = 34."""
    z_a, z_b = stats.norm.isf(0.025), stats.norm.isf(0.2)
    assert ((z_a + z_b) / 0.5) ** 2 + z_a**2 / 2 == pytest.approx(33.32, abs=0.01)
    n = topics_for_power(0.05, 0.01, alpha=0.05, beta=0.2)  # minD 0.05, σ_t 0.1
    assert n == 34
    assert power_of(34, 0.5, 0.05) >= 0.8 > power_of(33, 0.5, 0.05)
    assert topics_for_power(0.05, 0.0) == 2


def test_power_design_agrees_with_statsmodels():
    power = reference_module("statsmodels.stats.power")
    for difference, variance, alpha, beta in [(0.05, 0.01, 0.05, 0.2), (0.1, 0.1, 0.05, 0.2), (0.02, 0.03, 0.01, 0.1),
                                              (0.3, 0.05, 0.05, 0.2)]:
        solved = power.TTestPower().solve_power(effect_size=difference / math.sqrt(variance), alpha=alpha,
                                                power=1 - beta, alternative="two-sided")
        assert topics_for_power(difference, variance, alpha, beta) == max(2, math.ceil(solved - 1e-9))


def test_ci_design_by_hand():
    """The expected width 2·t(α/2; n−1)·σ·√(2/(n−1))·Γ(n/2)/Γ((n−1)/2)/√n first falls to δ at the n returned."""
    sd, delta = math.sqrt(0.1), 0.1

    def width(n):
        c = math.sqrt(2 / (n - 1)) * math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2))
        return 2 * stats.t.isf(0.025, n - 1) * sd * c / math.sqrt(n)

    n = topics_for_ci(delta, 0.1)
    assert width(n) <= delta < width(n - 1) and n == 156
    assert expected_ci_width(n, sd, 0.05) == pytest.approx(width(n), rel=1e-12)
    assert 4 * stats.norm.isf(0.025) ** 2 * 0.1 / delta**2 == pytest.approx(153.7, abs=0.1)  # Sakai's start
    assert special.gamma(3) == 2  # the Γ of the formula is Euler's
    assert topics_for_ci(0.1, 0.0) == 2


def test_variance_estimates_by_hand():
    """Two systems × two topics [[a, b], [c, d]]: V_E = (a − b − c + d)²/4, and the variance of the two differences
    (a − c, b − d) is (a − b − c + d)²/2 = 2·V_E."""
    a, b, c, d = 0.5, 0.3, 0.2, 0.4
    scores = np.array([[a, b], [c, d]])
    assert difference_variance(scores, "residual") == pytest.approx(((a - b - c + d) ** 2 / 4,
                                                                     (a - b - c + d) ** 2 / 2))
    assert difference_variance(scores, "pairs")[1] == pytest.approx((a - b - c + d) ** 2 / 2)
    assert difference_variance(scores, "within")[0] == pytest.approx(((a - b) ** 2 / 2 + (c - d) ** 2 / 2) / 2)
    table = topic_set_size(frame({"A": [a, b], "B": [c, d]}), differences=[0.05, 0.1], design=["power", "ci"])
    assert len(table) == 4 and table["difference_variance"].iloc[0] == pytest.approx((a - b - c + d) ** 2 / 2)
    assert table["topics"].tolist() == [topics_for_power(0.05, 0.08), topics_for_power(0.1, 0.08),
                                        topics_for_ci(0.05, 0.08), topics_for_ci(0.1, 0.08)]


# ------------------------------------------------------------------------------------------ the brute force
def random_scores(seed: int, systems: int = 6, topics: int = 12, discrete: bool = False) -> dict[str, list[float]]:
    """Systems of graded quality; ``discrete`` rounds the scores to tenths, so that means tie and differences land
    on bin edges (as P@10's do)."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(0.3, 0.6, systems)
    values = np.clip(quality[:, None] + rng.normal(0, 0.2, (systems, topics)), 0, 1)
    if discrete:
        values = np.round(values, 1)
    return {f"S{i}": values[i].tolist() for i in range(systems)}


CASES = [(seed, discrete) for seed in (1, 2, 3) for discrete in (False, True)]


@pytest.mark.parametrize(("seed", "discrete"), CASES)
def test_stability_equals_the_plain_loop(seed, discrete):
    scores = random_scores(seed, discrete=discrete)
    fuzz = [0.0, 0.05, 0.1]
    for draw, size in (("bootstrap", None), ("subsets", 5)):
        table = stability_method(frame(scores), fuzziness=fuzz, samples=60, draw=draw, size=size, seed=seed,
                                 progress=False)
        sets = (brute.bootstrap_sets(12, 60, 12, 1, seed) if draw == "bootstrap"
                else brute.subsets(12, 60, 5, 1, seed))
        for f in fuzz:
            minority, ties = brute.stability(scores, [s[0] for s in sets], f)
            row = only(table, fuzziness=f)
            assert (row["minority_rate"], row["ties"]) == (minority, ties), (draw, f)


@pytest.mark.parametrize(("seed", "discrete"), CASES)
def test_swap_method_equals_the_plain_loop(seed, discrete):
    scores = random_scores(seed, discrete=discrete)
    for draw, size, trials in (("bootstrap", 12, brute.bootstrap_sets(12, 60, 12, 2, seed)),
                               ("halves", 6, brute.subsets(12, 60, 6, 2, seed))):
        rates = swap_rates(frame(scores), samples=60, draw=draw, seed=seed, bins=20, progress=False)
        table, zero = brute.swap(scores, trials, 0.01, 20)
        assert rates["observations"].tolist() == [table[i][0] for i in range(21)], draw
        assert rates["swaps"].tolist() == [table[i][1] for i in range(21)], draw
        assert rates["ties"].iloc[0] == zero and rates["topics"].iloc[0] == size
        for rule in ("first", "stays"):
            required, sensitivity = brute.difference_required(table, zero, 0.01, 0.05, rule)
            got = swap_sensitivity(rates, rule=rule).iloc[0]
            assert got["sensitivity"] == sensitivity, (draw, rule)
            assert (math.isnan(required) and math.isnan(got["difference_required"])) or \
                got["difference_required"] == required


@pytest.mark.parametrize(("seed", "discrete"), CASES)
def test_bootstrap_equals_the_plain_loop(seed, discrete):
    scores = random_scores(seed, systems=5, discrete=discrete)
    asl = achieved_significance(frame(scores), samples=80, seed=seed, progress=False)
    samples = [s[0] for s in brute.bootstrap_sets(12, 80, 12, 1, seed)]
    systems = list(scores)
    for row in asl.itertuples():
        t, level, required = brute.bootstrap(scores[row.system_a], scores[row.system_b], samples, 0.05)
        assert row.t == pytest.approx(t, rel=1e-12) and row.asl == level
        assert row.required_difference == pytest.approx(required, rel=1e-12, abs=1e-15)
    assert asl["rank"].tolist() != [] and sorted(asl["rank"]) == list(range(1, len(systems) * 2 + 1))
    power = discriminative_power(asl).iloc[0]
    assert power["significant"] == int((asl["asl"] < 0.05).sum())


@pytest.mark.parametrize(("seed", "discrete"), CASES)
def test_variance_estimates_equal_the_plain_loop(seed, discrete):
    scores = random_scores(seed, discrete=discrete)
    matrix = np.array(list(scores.values()))
    assert difference_variance(matrix, "residual")[0] == pytest.approx(brute.residual_variance(scores), rel=1e-12)
    assert difference_variance(matrix, "within")[0] == pytest.approx(brute.within_variance(scores), rel=1e-12)
    assert difference_variance(matrix, "pairs")[1] == pytest.approx(brute.pair_variance(scores), rel=1e-12)


def test_a_lower_is_better_measure_is_judged_as_its_negation():
    """VI is lower-is-better: its results judged as they are equal those of −VI registered as higher-is-better."""
    scores = random_scores(7, systems=4)
    lower = frame(scores, "VI")
    negated = frame({s: [-v for v in values] for s, values in scores.items()}, "m")
    a = achieved_significance(lower, samples=50, progress=False)
    b = achieved_significance(negated, samples=50, progress=False)
    assert a["asl"].tolist() == b["asl"].tolist() and a["t"].tolist() == b["t"].tolist()
    assert a["difference"].tolist() == pytest.approx((-b["difference"]).tolist())
    sa = stability_method(lower, samples=40, progress=False)
    sb = stability_method(negated, samples=40, progress=False)
    assert sa["minority_rate"].tolist() == sb["minority_rate"].tolist()


# ------------------------------------------------------------------------------------------ the family's errors
def test_bad_input_is_named():
    one = frame({"A": [0.1, 0.2]})
    with pytest.raises(ResultsError, match="2 systems at least"):
        stability_method(one, progress=False)
    with pytest.raises(ResultsError, match="usable topic"):
        swap_rates(frame({"A": [0.1], "B": [0.2]}), progress=False)
    two = frame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.1]})
    with pytest.raises(ParameterError, match="swap_rates: size must be an integer in"):
        swap_rates(two, draw="halves", size=2, progress=False)
    with pytest.raises(ParameterError, match="stability_method: size"):
        stability_method(two, draw="subsets", size=4, progress=False)
    with pytest.raises(ParameterError, match="draw must be one of bootstrap, subsets"):
        stability_method(two, draw="halves")
    with pytest.raises(ParameterError, match="fuzziness"):
        stability_method(two, fuzziness=[0.05, 1.5])
    with pytest.raises(ResultsError, match="measure 'AP' is not in the results"):
        achieved_significance(two, ["AP"], progress=False)
    with pytest.raises(ResultsError, match="swap_sensitivity: the table lacks column"):
        swap_sensitivity(two)
    with pytest.raises(ParameterError, match="measure_trust: measures must be the measures to score"):
        measure_trust(Campaign({"q": Organization.from_graded({"a": 1})},
                               {"s": {"q": Organization.from_ranking(["a"])}}))
    with pytest.raises(ChartDataError, match="asl_chart: the table lacks"):
        asl_chart(two)


def test_long_runs_show_a_progress_bar_and_progress_false_hides_it(monkeypatch):
    from workbench.analysis.meta import bootstrap, stability, swap

    seen = []
    for module in (stability, swap, bootstrap):
        monkeypatch.setattr(module, "progress_bar", lambda work, **shown: seen.append(shown) or iter(work))
    results = pd.concat([frame(random_scores(1), "AP"), frame(random_scores(2), "RR")])
    stability_method(results, samples=20)
    swap_rates(results, samples=20, progress=False)
    achieved_significance(results, samples=20)
    assert seen == [{"desc": "stability method", "unit": "chunk", "shown": True},
                    {"desc": "swap method", "unit": "chunk", "shown": False},
                    {"desc": "bootstrap tests", "unit": "chunk", "shown": True}]


def test_the_same_seed_gives_the_same_numbers():
    results = frame(random_scores(11))
    first = measure_trust(results, samples=40, seed=9, progress=False)
    again = measure_trust(results, samples=40, seed=9, progress=False)
    other = measure_trust(results, samples=40, seed=10, progress=False)
    pd.testing.assert_frame_equal(first.table, again.table)
    pd.testing.assert_frame_equal(first.asl, again.asl)
    assert not first.swap["observations"].equals(other.swap["observations"])


def test_measure_trust_scores_a_campaign_and_sums_up_in_table_1_form():
    rng = np.random.default_rng(1)
    gold = {f"q{i}": Organization.from_graded({f"d{j}": int(rng.integers(0, 3)) for j in range(8)}) for i in range(6)}
    runs = {f"s{k}": {q: Organization.from_ranking(list(rng.permutation([f"d{j}" for j in range(8)])))
                      for q in gold} for k in range(4)}
    report = measure_trust(Campaign(gold, runs), ["AP", "RR", "P-measure"], samples=30, progress=False)
    assert sorted(report.table["measure"]) == ["AP", "P-measure", "RR"]
    assert list(report.table.columns) == ["measure", "difference_required", "sensitivity", "discriminative_power",
                                          "estimated_difference", "minority_rate", "ties", "topics_needed"]
    assert report.table["sensitivity"].is_monotonic_decreasing
    assert set(report.stability["fuzziness"]) == set(FIGURE2_FUZZINESS)
    assert "4 systems, 6 topics, 30 samples" in report.summary
    assert set(report.topic_sets["design"]) == {"power", "ci"}


# ------------------------------------------------------------------------------------------ charts
def test_the_charts_draw_the_methods_frames():
    results = pd.concat([frame(random_scores(5), "AP"), frame(random_scores(6), "RR")])
    report = measure_trust(results, samples=30, progress=False)
    spec = stability_chart(report.stability).to_dict()
    assert spec["mark"]["type"] == "line" and spec["encoding"]["y"]["title"] == "minority rate"
    assert spec["encoding"]["color"]["scale"]["domain"] == ["AP", "RR"]
    swap = swap_chart(report.swap).to_dict()
    lines, rule = swap["layer"]
    assert rule["mark"]["type"] == "rule" and next(iter(swap["datasets"].values()))
    assert all(row["observations"] > 0 for row in swap["datasets"][lines["data"]["name"]])
    table = sensitivity_chart(report.table).to_dict()
    texts = {row["row"] for rows in table["datasets"].values() for row in rows if "row" in row}
    assert texts == {"absolute diff. required", "sensitivity", "discriminative power"}
    curves = asl_chart(report.asl).to_dict()
    assert curves["layer"][1]["encoding"]["y"]["field"] == "asl"
    assert [row["asl"] for rows in curves["datasets"].values() for row in rows if "asl" in row][-1] == 0.05
    sizes = topic_set_size_chart(report.topic_sets).to_dict()
    assert sizes["encoding"]["y"]["scale"]["type"] == "log"
    whole = trust_charts(report).to_dict()
    assert len(whole["vconcat"]) == 3 and whole["title"] == "Which measure to trust"
    with pytest.raises(ChartDataError, match="every bin is empty"):
        swap_chart(report.swap.assign(observations=0))
    missing = report.table.assign(difference_required=np.nan)
    assert any(row.get("text") == "—" for rows in sensitivity_chart(missing).to_dict()["datasets"].values()
               for row in rows)
