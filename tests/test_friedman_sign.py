"""The sign test equal to ``scipy.stats.binomtest``; Friedman's test equal to ``scipy.stats.friedmanchisquare``
and its Nemenyi and Conover post-hoc to scikit-posthocs' ``posthoc_nemenyi_friedman`` and
``posthoc_conover_friedman`` (every correction) on random scores with ties; the degenerate cases by their rule;
the intervals agreeing with the verdicts; ``compare_report``, ``significance`` and ``compare --test``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.conftest import reference_module
from workbench.analysis import compare_report, friedman, sign_test, significance
from workbench.analysis.rank_tests import friedman_test, posthoc_pairs
from workbench.analysis.results import ResultsError
from workbench.cli import main
from workbench.errors import ParameterError


@pytest.fixture(scope="module")
def sp():
    """scikit-posthocs, imported by the tests that compare with it only (it imports matplotlib: about a second)."""
    return reference_module("scikit_posthocs")


def _tidy(scores: np.ndarray, measure: str = "AP") -> pd.DataFrame:
    """systems × topics → tidy results (systems s0…, topics t0…)."""
    return pd.DataFrame([(f"s{i}", f"t{j}", measure, float(v)) for i, row in enumerate(scores)
                         for j, v in enumerate(row)], columns=["system", "topic", "measure", "value"])


SCORES = st.tuples(st.integers(2, 7), st.integers(2, 12), st.integers(0, 2**32 - 1),
                   st.sampled_from([3, 6, 1000])).map(
    lambda a: np.random.default_rng(a[2]).integers(0, a[3], (a[0], a[1])) / a[3])
"""systems × topics scores, from few values (many ties) to many."""


# ------------------------------------------------------------------------------------------ sign test
@settings(max_examples=100, deadline=None)
@given(d=st.lists(st.integers(-3, 3), min_size=1, max_size=60))
def test_sign_test_equals_binomtest(d):
    k, p = sign_test([d])
    positive, n = sum(x > 0 for x in d), sum(x != 0 for x in d)
    assert k[0] == positive
    assert p[0] == (pytest.approx(stats.binomtest(positive, n).pvalue, rel=1e-12) if n else 1.0)


def test_sign_test_in_significance_and_the_report():
    scores = np.array([[0.5, 0.6, 0.7, 0.8, 0.9, 0.4], [0.4, 0.5, 0.6, 0.7, 0.9, 0.5]])
    table = significance(_tidy(scores), ["AP"], test="sign", correction="none")
    assert table.loc[0, "statistic"] == 4 and table.loc[0, "p_value"] == pytest.approx(
        stats.binomtest(4, 5).pvalue)
    assert table.loc[0, "test"] == "sign test (two-sided, zero differences dropped)"
    report = compare_report(_tidy(scores), test="sign")
    assert "sign test (two-sided, zero differences dropped), Holm correction" in report.footnote


# ----------------------------------------------------------------------------------------- Friedman
@settings(max_examples=60, deadline=None)
@given(scores=SCORES)
def test_friedman_equals_scipy(scores):
    statistic, p, df = friedman_test(scores)
    if len(scores) < 3:  # scipy takes three samples at least
        with pytest.raises(ValueError, match="At least 3"):
            stats.friedmanchisquare(*scores)
        return
    with np.errstate(invalid="ignore"):
        theirs = stats.friedmanchisquare(*scores)
    if np.isnan(theirs.statistic):  # every topic ties every system: 0/0 there, the rule here
        assert (statistic, p) == (0.0, 1.0) and (scores == scores[0]).all()
        return
    assert statistic == pytest.approx(theirs.statistic, rel=1e-10, abs=1e-10)
    assert p == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15) and df == len(scores) - 1


@settings(max_examples=60, deadline=None)
@given(scores=SCORES)
def test_nemenyi_equals_scikit_posthocs(sp, scores):
    pairs, _, _, p, _ = posthoc_pairs(scores, "nemenyi")
    theirs = sp.posthoc_nemenyi_friedman(scores.T).to_numpy()
    assert p == pytest.approx([theirs[i, j] for i, j in pairs], rel=1e-9, abs=1e-15)


@settings(max_examples=80, deadline=None)
@given(scores=SCORES, correction=st.sampled_from(["none", "holm", "bonferroni", "single-step"]))
def test_conover_equals_scikit_posthocs(sp, scores, correction):
    pairs, _, _, p, _ = posthoc_pairs(scores, "conover", correction)
    with np.errstate(divide="ignore", invalid="ignore"):
        theirs = sp.posthoc_conover_friedman(scores.T, p_adjust=None if correction == "none" else correction)
    theirs = theirs.to_numpy()
    expected = np.array([theirs[i, j] for i, j in pairs])
    if np.isnan(expected).any():  # ranked alike by every topic (B = 0) or all tied: the documented rule
        ranks = stats.rankdata(scores, axis=0)
        assert (ranks == ranks[:, :1]).all()
        same = np.array([ranks[i].sum() == ranks[j].sum() for i, j in pairs])
        assert (p[same] == 1.0).all() and (p[~same] == 0.0).all()
        return
    assert p == pytest.approx(expected, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(("posthoc", "correction"), [("nemenyi", "holm"), ("conover", "none"),
                                                      ("conover", "bonferroni"), ("conover", "single-step")])
@settings(max_examples=30, deadline=None)
@given(scores=SCORES)
def test_intervals_exclude_zero_exactly_where_the_pair_differs(posthoc, correction, scores):
    table = friedman(_tidy(scores), "AP", posthoc=posthoc, correction=correction)
    clear = (table["pvalue"] - 0.05).abs() > 1e-9  # not on the edge
    excludes = (table["low"] > 0) | (table["high"] < 0)
    assert (excludes[clear] == table["significant"][clear]).all()


def test_holm_has_no_interval():
    table = friedman(_tidy(np.array([[1, 2, 3, 4], [2, 3, 4, 5], [0, 1, 1, 2.0]])), "AP", posthoc="conover")
    assert table[["low", "high"]].isna().all().all()


def test_the_table_by_hand():
    """Every topic ranks s2 > s0 > s1: χ² = 2n (k = 3), mean ranks 3, 2, 1; Nemenyi's q = ΔR̄ / √(k(k+1)/12n)."""
    scores = np.array([[0.3, 0.5, 0.4, 0.6, 0.5], [0.2, 0.3, 0.35, 0.4, 0.1], [0.6, 0.7, 0.65, 0.8, 0.9]])
    table = friedman(_tidy(scores), "AP")
    assert table.attrs["friedman"]["statistic"] == pytest.approx(10.0)
    assert table.attrs["mean_ranks"] == {"s0": 2.0, "s1": 1.0, "s2": 3.0}
    assert table["statistic"].tolist() == pytest.approx([1 / np.sqrt(1 / 5), 1 / np.sqrt(1 / 5), 2 / np.sqrt(1 / 5)])
    assert table.attrs["groups"] == [["s2", "s0"], ["s0", "s1"]]
    assert "Friedman's test (χ² = 10, df = 2" in table.attrs["report"]


def test_lower_is_better_ranks_the_lowest_best():
    scores = np.array([[0.1, 0.2, 0.1], [0.5, 0.6, 0.7], [0.3, 0.4, 0.2]])
    table = friedman(_tidy(scores, "Lam%"), "Lam%")
    assert max(table.attrs["mean_ranks"], key=table.attrs["mean_ranks"].get) == "s0"
    assert table.attrs["groups"][0][0] == "s0"


def test_two_systems_and_all_ties():
    two = friedman(_tidy(np.array([[0.5, 0.6, 0.7], [0.4, 0.5, 0.6]])), "AP")
    assert two.attrs["friedman"]["statistic"] == pytest.approx(3.0)  # n (k − 1) for a unanimous pair
    tied = friedman(_tidy(np.full((3, 4), 0.5)), "AP", posthoc="conover")
    assert tied.attrs["friedman"]["pvalue"] == 1.0 and (tied["pvalue"] == 1.0).all()


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"posthoc": "dunn"}, ParameterError, "friedman: posthoc must be one of nemenyi, conover"),
    ({"correction": "fdr"}, ParameterError, "friedman: correction must be one of"),
    ({"alpha": 1.5}, ParameterError, r"friedman: alpha must be in \(0, 1\)"),
    ({"systems": ["s0"]}, ResultsError, "two systems at least"),
])
def test_misuses_are_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        friedman(_tidy(np.array([[0.5, 0.6], [0.4, 0.5]])), "AP", **kwargs)


# ------------------------------------------------------------------------- the report and the command
@pytest.mark.parametrize("test", ["nemenyi", "conover"])
def test_compare_report_marks_follow_the_post_hoc(test):
    rng = np.random.default_rng(2)
    scores = rng.random((4, 10)) + np.array([[0.0], [0.6], [0.1], [-0.5]])
    frame = _tidy(scores)
    report = compare_report(frame, test=test)
    pairs = friedman(frame, "AP", posthoc=test).set_index(["a", "b"])
    for system in ("s1", "s2", "s3"):
        assert report.p_adjusted.loc[system, "AP"] == pytest.approx(pairs.loc[("s0", system), "pvalue"])
    assert f"Friedman's test with {test.capitalize()}'s post-hoc over the 6 pairs" in report.footnote


def test_compare_command_runs_the_sign_and_friedman_tests(tmp_path, capsys):
    rng = np.random.default_rng(1)
    qrels = [f"q{t} 0 d{d} {int(rng.random() < 0.4)}" for t in range(8) for d in range(12)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    lines = [f"q{t} Q0 d{d} 0 {rng.random() + skill * (f'q{t} 0 d{d} 1' in qrels):.6f} {system}"
             for system, skill in (("bm25", 0.0), ("bert", 0.6), ("rand", -0.5)) for t in range(8) for d in range(12)]
    (tmp_path / "runs").write_text("\n".join(lines) + "\n")
    common = ["compare", "--gold", str(tmp_path / "qrels"), "--run", str(tmp_path / "runs"), "-m", "AP", "-q"]
    assert main([*common, "--test", "conover", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"means", "uir", "friedman"} <= set(data)
    assert main([*common, "--test", "nemenyi"]) == 0
    out = capsys.readouterr().out
    assert "Friedman's test and Nemenyi's post-hoc (alpha = 0.05); homogeneous groups (best first) AP: chi2" in out
    assert main([*common, "--test", "sign", "--format", "markdown"]) == 0
    assert "sign test (two-sided, zero differences dropped)" in capsys.readouterr().out
