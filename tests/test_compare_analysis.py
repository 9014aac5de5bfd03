"""Comparing many systems (issue 23 item 2): Tukey's HSD equal to scipy.stats.tukey_hsd (and its blocked form to
a two-way ANOVA fitted by least squares), win/tie/loss counts, Kendall's τ against scipy.stats.kendalltau, τ_ap
against its definition and a hand-computed case, and seeds/folds aggregated before testing."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from workbench.analysis import (
    FoldsError,
    ResultsError,
    aggregate_folds,
    group_systems,
    kendall_tau_b,
    ranking_agreement,
    tau_ap,
    tukey_hsd,
    win_tie_loss,
)
from workbench.errors import ParameterError


def tidy(table: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(s, f"t{t}", measure, v) for s, values in table.items() for t, v in enumerate(values)],
                        columns=["system", "topic", "measure", "value"])


@st.composite
def score_tables(draw, max_systems=6, max_topics=15):
    k, n = draw(st.integers(2, max_systems)), draw(st.integers(2, max_topics))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shift = rng.normal(0, 0.1, k)[:, None]
    return {f"s{i}": (rng.random(n) * 0.5 + shift[i]).round(draw(st.sampled_from([2, 8]))).tolist()
            for i in range(k)}


@settings(max_examples=60, deadline=None)
@given(table=score_tables(), alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_tukey_hsd_equals_scipy(table, alpha):
    mine = tukey_hsd(tidy(table), "AP", alpha=alpha)
    theirs = stats.tukey_hsd(*[np.array(v) for v in table.values()])
    interval = theirs.confidence_interval(confidence_level=1 - alpha)
    names = list(table)
    for row in mine.itertuples():
        i, j = names.index(row.a), names.index(row.b)
        assert row.mean_difference == pytest.approx(theirs.statistic[i, j], abs=1e-12)
        assert row.pvalue == pytest.approx(theirs.pvalue[i, j], abs=1e-9)
        assert (row.low, row.high) == pytest.approx((interval.low[i, j], interval.high[i, j]), abs=1e-9)
    assert len(mine) == len(names) * (len(names) - 1) // 2


@settings(max_examples=30, deadline=None)
@given(table=score_tables())
def test_blocked_tukey_reads_the_residual_of_a_two_way_anova(table):
    """The blocked design's MSE is the residual mean square of systems + topics fitted by least squares."""
    mine = tukey_hsd(tidy(table), "AP", design="blocked")
    y = np.array(list(table.values()))
    k, n = y.shape
    design = np.hstack([np.kron(np.eye(k), np.ones((n, 1))), np.kron(np.ones((k, 1)), np.eye(n))[:, 1:]])
    fit, *_ = np.linalg.lstsq(design, y.ravel(), rcond=None)
    df = (k - 1) * (n - 1)
    mse = ((y.ravel() - design @ fit) ** 2).sum() / df
    for row in mine.itertuples():
        se = np.sqrt(mse / n)
        expected = stats.studentized_range.sf(abs(row.mean_difference) / se, k, df) if se > 1e-12 else None
        if expected is not None and np.isfinite(row.statistic):
            assert row.pvalue == pytest.approx(expected, abs=1e-9)


def test_homogeneous_groups_by_hand():
    """Three clearly separated pairs: A ≈ B far above C ≈ D."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.05, (4, 30))
    noise -= noise.mean(axis=1, keepdims=True)  # the means are exactly 0.2, 0.8, 0.201, 0.801
    table = {"C": (0.2 + noise[0]).tolist(), "A": (0.8 + noise[1]).tolist(), "D": (0.201 + noise[2]).tolist(),
             "B": (0.801 + noise[3]).tolist()}
    frame = tukey_hsd(tidy(table), "AP")
    assert frame.attrs["groups"] == [["B", "A"], ["D", "C"]]
    assert set(map(tuple, frame.loc[frame["significant"], ["a", "b"]].values)) == {
        ("C", "A"), ("C", "B"), ("A", "D"), ("D", "B")}


def test_groups_follow_the_direction_of_the_measure():
    table = {"x": [0.1, 0.12, 0.11], "y": [0.9, 0.91, 0.92]}
    assert tukey_hsd(tidy(table, "Lam%"), "Lam%").attrs["groups"][0] == ["x"]  # lower is better


@settings(max_examples=40, deadline=None)
@given(table=score_tables(), tolerance=st.sampled_from([0.0, 0.05]))
def test_win_tie_loss_counts_every_topic(table, tolerance):
    frame = win_tie_loss(tidy(table), "AP", baseline="s1", tolerance=tolerance)
    base = np.array(table["s1"])
    for row in frame.itertuples():
        d = np.array(table[row.system]) - base
        assert (row.wins, row.ties, row.losses) == (int((d > tolerance).sum()), int((abs(d) <= tolerance).sum()),
                                                    int((d < -tolerance).sum()))
    assert "s1" not in set(frame["system"])


def test_win_tie_loss_reads_the_direction_and_names_a_bad_baseline():
    frame = win_tie_loss(tidy({"base": [0.2, 0.3], "new": [0.1, 0.3]}, "Lam%"), "Lam%")
    assert frame[["wins", "ties", "losses"]].values.tolist() == [[1, 1, 0]]
    with pytest.raises(ResultsError, match="baseline 'zz' is not among the systems"):
        win_tie_loss(tidy({"a": [1, 2], "b": [2, 3]}), "AP", baseline="zz")
    with pytest.raises(ResultsError, match="measure 'P@10' is not in the results"):
        win_tie_loss(tidy({"a": [1, 2], "b": [2, 3]}), "P@10")


@settings(max_examples=100, deadline=None)
@given(x=st.lists(st.integers(0, 5), min_size=2, max_size=12), data=st.data())
def test_kendall_tau_b_equals_scipy(x, data):
    y = data.draw(st.lists(st.integers(0, 5), min_size=len(x), max_size=len(x)))
    theirs = stats.kendalltau(x, y).statistic
    mine = kendall_tau_b(np.array(x), np.array(y))
    assert (np.isnan(mine) and np.isnan(theirs)) or mine == pytest.approx(theirs, abs=1e-12)


def _tau_ap_by_definition(reference, other):
    """Yilmaz et al. 2008, eq. 2: p' = the mean over i = 2..N of C(i)/(i − 1); τ_ap = 2p' − 1."""
    above = [sum(reference.index(other[j]) < reference.index(other[i]) for j in range(i)) / i
             for i in range(1, len(other))]
    return 2 * np.mean(above) - 1


@settings(max_examples=100, deadline=None)
@given(order=st.permutations(list("ABCDEFG")))
def test_tau_ap_equals_its_definition_and_is_one_on_the_same_ranking(order):
    reference = list("ABCDEFG")
    assert tau_ap(reference, order) == pytest.approx(_tau_ap_by_definition(reference, order), abs=1e-12)
    assert tau_ap(order, order) == pytest.approx(1.0) and tau_ap(order, order[::-1]) == pytest.approx(-1.0)


def test_tau_ap_weighs_a_swap_at_the_top_more_than_kendalls_tau():
    """ABCD against BACD: C(2) = 0, C(3) = 2, C(4) = 3 → τ_ap = 2/3 · (0 + 1 + 1) − 1 = 1/3 (τ = 2/3); against
    ABDC: 2/3 · (1 + 1 + 2/3) − 1 = 7/9."""
    assert tau_ap(list("ABCD"), list("BACD")) == pytest.approx(1 / 3)
    assert tau_ap(list("ABCD"), list("ABDC")) == pytest.approx(7 / 9)


@settings(max_examples=40, deadline=None)
@given(table=score_tables(max_systems=7), data=st.data())
def test_ranking_agreement_lists_every_swapped_pair(table, data):
    other = {s: [v + data.draw(st.floats(-0.3, 0.3)) for v in values] for s, values in table.items()}
    both = pd.concat([tidy(table, "AP"), tidy(other, "nDCG")])
    found = ranking_agreement(both, "AP", "nDCG")
    mean_a = {s: math.fsum(v) / len(v) for s, v in table.items()}  # summed exactly, as the systems are ranked
    mean_b = {s: math.fsum(v) / len(v) for s, v in other.items()}
    swapped = {frozenset((x, y)) for x, y in itertools.combinations(table, 2)
               if (mean_a[x] - mean_a[y]) * (mean_b[x] - mean_b[y]) < 0}
    assert {frozenset(p) for p in found.swaps[["a", "b"]].values.tolist()} == swapped
    assert all(mean_a[a] > mean_a[b] for a, b in found.swaps[["a", "b"]].values)
    names = list(table)
    tau = stats.kendalltau([mean_a[s] for s in names], [mean_b[s] for s in names]).statistic
    assert (np.isnan(found.tau) and np.isnan(tau)) or found.tau == pytest.approx(tau, abs=1e-12)
    assert found.tau_ap == pytest.approx(tau_ap(list(found.rankings["system"]),
                                                sorted(names, key=lambda s: -mean_b[s])), abs=1e-12)


def test_ranking_agreement_between_two_sets_of_judgements_and_its_errors():
    a, b = tidy({"x": [0.5, 0.6], "y": [0.4, 0.3], "z": [0.1, 0.2]}), tidy({"x": [0.1, 0.1], "y": [0.4, 0.3],
                                                                             "z": [0.2, 0.2]})
    found = ranking_agreement(a, "AP", "AP", results_b=b)
    assert found.rankings["system"].tolist() == ["x", "y", "z"] and len(found.swaps) == 2
    assert "2 of 3 pairs swapped" in str(found)
    with pytest.raises(ResultsError, match="both 'AP'"):
        ranking_agreement(a, "AP", "AP")
    with pytest.raises(ResultsError, match="measure 'P@5' is not in the results"):
        ranking_agreement(a, "AP", "P@5", results_b=b)


# -------------------------------------------------------------------------------------------- folds
def test_seeds_are_averaged_and_folds_joined():
    seeds = pd.DataFrame([("m", t, "AP", seed, 0.1 * seed + t) for seed in (1, 2, 3) for t in range(4)],
                         columns=["system", "topic", "measure", "seed", "value"])
    out = aggregate_folds(seeds, by="seed")
    assert out["value"].tolist() == pytest.approx([0.2 + t for t in range(4)])
    assert out.attrs["aggregated"]["kind"] == "seeds" and list(out.columns) == ["system", "topic", "measure", "value"]
    folds = pd.DataFrame([("m", t, "AP", t % 2, float(t)) for t in range(4)],
                         columns=["system", "topic", "measure", "fold", "value"])
    out = aggregate_folds(folds)
    assert out.attrs["aggregated"]["kind"] == "folds" and out["value"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_a_fold_column_that_does_not_partition_the_topics_is_named():
    rows = [("m", 0, "AP", 0, 0.1), ("m", 0, "AP", 1, 0.2), ("m", 1, "AP", 1, 0.3)]
    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "fold", "value"])
    with pytest.raises(FoldsError, match=r"does not partition the topics: system 'm', topic 0"):
        aggregate_folds(frame, by="fold", kind="folds")
    with pytest.raises(FoldsError, match=r"does not repeat every topic: system 'm', topic 1"):
        aggregate_folds(frame, by="fold", kind="seeds")
    with pytest.raises(FoldsError, match="lack column"):
        aggregate_folds(frame, by="seed")


def test_group_systems_reads_the_model_out_of_run_names():
    frame = tidy({"bert_seed1": [0.2, 0.4], "bert_seed2": [0.4, 0.6], "bm25": [0.1, 0.1]})
    grouped = aggregate_folds(group_systems(frame, r"(.*)_seed\d+"), by="group", kind="seeds")
    assert grouped.groupby("system")["value"].mean().to_dict() == pytest.approx({"bert": 0.4, "bm25": 0.1})
    with pytest.raises(ParameterError, match=r"group_systems: pattern must be a regular expression with a group"):
        group_systems(frame, r".*_seed\d+")
