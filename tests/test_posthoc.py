"""The post-hoc family (:mod:`workbench.analysis.posthoc_family`) equal to scikit-posthocs' function of the same name on
random scores with ties (every correction each test takes), on scikit-posthocs' own docstring example, and by hand;
the degenerate cases by their rule; ``posthoc``'s table and its refusals."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.conftest import reference_module
from workbench.analysis.posthoc_family import POSTHOC_TESTS, pair_indices, posthoc
from workbench.errors import ParameterError

sp = reference_module("scikit_posthocs")

SCORES = st.tuples(st.integers(2, 6), st.integers(3, 12), st.integers(0, 2**32 - 1),
                   st.sampled_from([4, 7, 1000])).map(
    lambda a: np.random.default_rng(a[2]).integers(0, a[3], (a[0], a[1])) / a[3])
"""systems × topics scores, from few values (many ties) to many."""

EXAMPLE = np.array([[31, 27, 24], [31, 28, 31], [45, 29, 46], [21, 18, 48], [42, 36, 46], [32, 17, 40]], float)
"""scikit-posthocs' docstring example of the blocked tests: 6 blocks (topics) × 3 groups (systems)."""


def _theirs(test: str, scores: np.ndarray, correction: str) -> np.ndarray:
    """scikit-posthocs' p-values of the pairs in the workbench's order."""
    adjust = None if correction == "none" else correction
    blocks, samples = scores.T, [list(row) for row in scores]
    call = {
        "durbin": lambda: sp.posthoc_durbin(blocks, p_adjust=adjust),
        "siegel-friedman": lambda: sp.posthoc_siegel_friedman(blocks, p_adjust=adjust),
        "miller-friedman": lambda: sp.posthoc_miller_friedman(blocks),
        "quade": lambda: sp.posthoc_quade(blocks, p_adjust=adjust),
        "wilcoxon": lambda: sp.posthoc_wilcoxon(samples, p_adjust=adjust),
        "dunn": lambda: sp.posthoc_dunn(samples, p_adjust=adjust),
        "t": lambda: sp.posthoc_ttest(samples, p_adjust=adjust),
        "mann-whitney": lambda: sp.posthoc_mannwhitney(samples, p_adjust=adjust),
        "scheffe": lambda: sp.posthoc_scheffe(samples),
        "tamhane": lambda: sp.posthoc_tamhane(samples),
    }[test]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant samples: scipy and scikit-posthocs warn; NaN handled below
        matrix = call().to_numpy()
    a, b = pair_indices(len(scores))
    return matrix[a, b]


WIDE = st.tuples(st.integers(2, 5), st.integers(14, 30), st.integers(0, 2**32 - 1), st.sampled_from([4, 7, 1000])).map(
    lambda a: np.random.default_rng(a[2]).integers(0, a[3], (a[0], a[1])) / a[3])
"""More than 13 topics: scipy's Wilcoxon takes the exact or the normal distribution there, not the permutation test
of 2¹³ sign assignments that makes a few cases take seconds (that branch is ``wilcoxon_signed_rank``'s, compared
with scipy in ``tests/test_rounding_and_ties.py``)."""

NEW = [(test, correction) for test in POSTHOC_TESTS if test not in ("nemenyi", "conover")
       for correction in POSTHOC_TESTS[test].corrections]


@pytest.mark.parametrize(("test", "correction"), NEW)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_each_test_equals_scikit_posthocs(test, correction, data):
    scores = data.draw(WIDE if POSTHOC_TESTS[test].design == "paired" else SCORES)
    ours = POSTHOC_TESTS[test].pairs(scores, correction, 0.05).pvalue
    theirs = _theirs(test, scores, correction)
    defined = ~np.isnan(theirs)
    assert ours[defined] == pytest.approx(theirs[defined], rel=1e-9, abs=1e-12)
    assert ((ours >= 0) & (ours <= 1)).all()


@pytest.mark.parametrize("test", [t for t, _ in NEW if POSTHOC_TESTS[t].design == "topics as blocks"])
def test_scikit_posthocs_docstring_example(test):
    """Their docstrings' 6 × 3 matrix (``sp.posthoc_quade(x)`` and its siblings)."""
    ours = POSTHOC_TESTS[test].pairs(EXAMPLE.T, POSTHOC_TESTS[test].corrections[-1], 0.05).pvalue
    assert ours == pytest.approx(_theirs(test, EXAMPLE.T, POSTHOC_TESTS[test].corrections[-1]), rel=1e-12)


def test_siegel_and_miller_by_hand():
    """Topics rank C > A > B unanimously (4 topics, k = 3): mean ranks 2, 1, 3, z = ΔR̄ / √(k(k+1)/6n) = ΔR̄ / √0.5."""
    scores = np.array([[.3, .5, .4, .6], [.2, .3, .35, .4], [.6, .7, .65, .8]])
    z = np.array([1, 1, 2]) / np.sqrt(0.5)
    siegel = POSTHOC_TESTS["siegel-friedman"].pairs(scores, "none", 0.05)
    assert siegel.location.tolist() == [2.0, 1.0, 3.0] and siegel.statistic == pytest.approx(z)
    assert siegel.pvalue == pytest.approx(2 * stats.norm.sf(z))
    assert POSTHOC_TESTS["miller-friedman"].pairs(scores, "none", 0.05).pvalue == pytest.approx(stats.chi2.sf(z**2, 2))


def test_scheffe_by_hand():
    """Two systems of 3 topics: MSE the pooled variance, F = Δ² / (MSE · 2/n · (k − 1))."""
    scores = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    mse = (1.0 + 4.0) / 2
    f = 4.0 / (mse * 2 / 3)
    found = POSTHOC_TESTS["scheffe"].pairs(scores, "none", 0.05)
    assert found.statistic == pytest.approx([f]) and found.pvalue == pytest.approx([stats.f.sf(f, 1, 4)])


def test_identical_systems_differ_by_nothing():
    scores = np.array([[0.2, 0.4, 0.9, 0.1], [0.2, 0.4, 0.9, 0.1], [0.5, 0.6, 0.7, 0.8]])
    for test, declared in POSTHOC_TESTS.items():
        found = declared.pairs(scores, declared.corrections[0], 0.05)
        assert found.location[0] == found.location[1] and found.pvalue[0] == pytest.approx(1.0), test


def test_every_topic_tying_every_system():
    scores = np.full((3, 5), 0.5)
    for test, declared in POSTHOC_TESTS.items():
        with np.errstate(all="ignore"):
            found = declared.pairs(scores, declared.corrections[0], 0.05)
        assert (found.pvalue == 1.0).all(), test


def _tidy(scores: np.ndarray, measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(f"s{i}", f"t{j}", measure, float(v)) for i, row in enumerate(scores)
                         for j, v in enumerate(row)], columns=["system", "topic", "measure", "value"])


def test_the_table_and_its_report():
    rng = np.random.default_rng(4)
    scores = rng.random((4, 15)) + np.array([[0.0], [0.8], [0.1], [-0.6]])
    table = posthoc(_tidy(scores), "AP", "dunn", correction="bonferroni")
    assert table.columns.tolist() == ["a", "b", "difference", "statistic", "pvalue", "low", "high", "significant"]
    assert table["pvalue"].to_numpy() == pytest.approx(_theirs("dunn", scores, "bonferroni"))
    assert (table["significant"] == (table["pvalue"] < 0.05)).all()
    assert table.attrs["groups"][0][0] == "s1"
    assert table.attrs["report"].startswith("Dunn post-hoc test (independent samples; bonferroni over the 6 pairs")
    nemenyi = posthoc(_tidy(scores), "AP")
    assert nemenyi[["low", "high"]].notna().all().all() and "controlling the family itself" in nemenyi.attrs["report"]


def test_lower_is_better_locations_are_oriented():
    scores = np.array([[0.1, 0.2, 0.1, 0.15], [0.5, 0.6, 0.7, 0.55], [0.3, 0.4, 0.2, 0.35]])
    table = posthoc(_tidy(scores, "Lam%"), "Lam%", "t")
    assert table.attrs["groups"][0][0] == "s0" and table.loc[0, "difference"] > 0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"test": "tukey"}, "posthoc: test must be one of nemenyi, conover, durbin"),
    ({"test": "scheffe", "correction": "holm"}, "posthoc: correction must be one of none, got 'holm'"),
    ({"test": "dunn", "correction": "single-step"}, "posthoc: correction must be one of holm, bonferroni, none"),
    ({"correction": "fdr"}, "posthoc: correction must be one of"),
])
def test_misuses_are_named(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        posthoc(_tidy(np.array([[0.5, 0.6, 0.2], [0.4, 0.5, 0.1]])), "AP", **kwargs)
