"""Agreement and tests that read rounding as a difference (issue 31, class 11): ranking_agreement sums each
system's scores exactly, so that two systems with the same values on other topics tie (adding them one by one
in trec_eval's order left 0.424 against 0.42400000000000004 and ordered them: τ-b 0.8487 where it is 0.8593 with
the tie); the Wilcoxon test gives scipy's default p-value (exact, a permutation, or the normal approximation by
scipy's rule; it used the exact distribution where scipy does not) and still offers the other ways; the diversity
measures rank equal scores as ndeval does through pyndeval (document id ascending; trec_eval's order has the
greatest id first)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.conftest import reference_module
from workbench.analysis import ranking_agreement, significance
from workbench.analysis.agreement import exact_summary
from workbench.analysis.paired_tests import wilcoxon_signed_rank
from workbench.data.campaign import Campaign
from workbench.data.trec.memory import runs_from_dicts
from workbench.data.trec.readers import read_trec_qrels, read_trec_run
from workbench.errors import ParameterError

GRID = st.integers(0, 1000).map(lambda v: v / 1000)  # scores of three decimals, as printed measures are


# ---------------------------------------------------------------------------------------- ranking_agreement
def _results(values: dict[str, list[float]], measure: str) -> list[tuple]:
    return [(system, f"t{i}", measure, v) for system, vs in values.items() for i, v in enumerate(vs)]


def test_two_systems_with_the_same_scores_on_other_topics_tie():
    a = [0.229, 0.945, 0.901, 0.031]
    values_a = {"s1": a, "s2": a[::-1], "s3": [0.5, 0.5, 0.5, 0.6]}
    values_b = {"s1": [0.2, 0.3, 0.4, 0.5], "s2": [0.3, 0.3, 0.4, 0.6], "s3": [0.1, 0.1, 0.1, 0.1]}
    assert sum(a) / 4 != sum(a[::-1]) / 4  # one by one, the order leaves its last bit
    frame = pd.DataFrame(_results(values_a, "AP") + _results(values_b, "P@10"),
                         columns=["system", "topic", "measure", "value"])
    found = ranking_agreement(frame, "AP", "P@10")
    exact_a = [float(sum(map(Fraction, v)) / 4) for v in values_a.values()]
    exact_b = [float(sum(map(Fraction, v)) / 4) for v in values_b.values()]
    assert found.tau == pytest.approx(stats.kendalltau(exact_a, exact_b).statistic, abs=1e-15)
    assert found.rankings.set_index("system").loc["s1", "AP"] == found.rankings.set_index("system").loc["s2", "AP"]
    assert [set(pair) for pair in found.swaps[["a", "b"]].values.tolist()] == []  # a tie is no swap


@settings(max_examples=150, deadline=None)
@given(base=st.lists(st.lists(GRID, min_size=5, max_size=5), min_size=2, max_size=5),
       other=st.lists(st.lists(GRID, min_size=5, max_size=5), min_size=2, max_size=5), data=st.data())
def test_tau_is_kendalls_tau_b_of_the_exact_means(base, other, data):
    """Systems drawn with some of them the same values on other topics: τ-b is scipy's τ-b of the exact means
    (Fractions), ties and all."""
    systems = {}
    for i, row in enumerate(base):
        systems[f"s{i}"] = row
        systems[f"p{i}"] = data.draw(st.permutations(row))
    measure_b = {name: other[i % len(other)] for i, name in enumerate(systems)}
    frame = pd.DataFrame(_results(systems, "AP") + _results(measure_b, "P@10"),
                         columns=["system", "topic", "measure", "value"])
    found = ranking_agreement(frame, "AP", "P@10")
    exact = {m: [float(sum(map(Fraction, v)) / 5) for v in values.values()]
             for m, values in (("AP", systems), ("P@10", measure_b))}
    expected = stats.kendalltau(exact["AP"], exact["P@10"]).statistic
    assert (np.isnan(found.tau) and np.isnan(expected)) or found.tau == pytest.approx(expected, abs=1e-12)


def test_exact_summaries_follow_each_aggregate():
    values = np.array([[0.229, 0.945, 0.901, 0.031]])
    assert exact_summary(values, "sum")[0] == float(sum(map(Fraction, values[0].tolist())))
    assert exact_summary(np.array([[0.5, 0.02]]), "gmean")[0] == pytest.approx(0.1, abs=1e-15)


# ----------------------------------------------------------------------------------------------- Wilcoxon
DIFFERENCES = st.lists(st.sampled_from([0.0, 0.0, -3.0, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0, 0.25, 1.75]),
                       min_size=1, max_size=60) | st.lists(st.floats(-1, 1, allow_subnormal=False), min_size=1,
                                                           max_size=60)


@settings(max_examples=400, deadline=None)
@given(d=DIFFERENCES)
def test_wilcoxon_is_scipys_default(d):
    """Zeros, ties, 1 to 60 differences: the statistic and p-value of scipy.stats.wilcoxon(d) with its defaults
    (scipy ≥ 1.13; all differences zero: p = 1 here, NaN there)."""
    d = np.array(d)
    statistic, p = wilcoxon_signed_rank(d)
    if not d.any():
        assert (statistic[0], p[0]) == (0.0, 1.0)
        return
    theirs = stats.wilcoxon(d)
    assert statistic[0] == pytest.approx(theirs.statistic, abs=1e-9)
    assert p[0] == pytest.approx(theirs.pvalue, rel=1e-9, abs=1e-15)


def test_the_other_ways_are_offered():
    d = np.array([0.0, 0.0, 1.0, 2.0, 3.0, -4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0])
    assert wilcoxon_signed_rank(d)[1][0] == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12)  # approximation
    exact = wilcoxon_signed_rank(d, "exact")[1][0]  # Wilcoxon's distribution of the 14 non-zero differences
    assert exact == pytest.approx(stats.wilcoxon(d[d != 0], method="exact").pvalue, rel=1e-12)
    assert wilcoxon_signed_rank(d, "asymptotic")[1][0] == pytest.approx(
        stats.wilcoxon(d, method="asymptotic").pvalue, rel=1e-12)
    small = np.array([0.0, 1.0, 1.0, -2.0, 3.0, 4.0])
    assert wilcoxon_signed_rank(small, "permutation")[1][0] == pytest.approx(stats.wilcoxon(small).pvalue,
                                                                           rel=1e-12)
    with pytest.raises(ParameterError, match="assumes no tied"):
        wilcoxon_signed_rank(small, "exact")
    with pytest.raises(ParameterError, match="13 at most"):
        wilcoxon_signed_rank(np.arange(1.0, 16.0), "permutation")
    results = pd.DataFrame([(s, t, "AP", v) for s, values in {"a": small, "b": 0 * small}.items()
                            for t, v in enumerate(values)], columns=["system", "topic", "measure", "value"])
    with pytest.raises(ParameterError, match="significance: wilcoxon_method must be one of auto, exact, permutation, "
                                             "asymptotic, got 'scipy'"):
        significance(results, ["AP"], test="wilcoxon", wilcoxon_method="scipy")


def test_significance_passes_the_method_through():
    rows = [(s, t, "AP", v) for s, vs in {"a": [0.1, 0.2, 0.3, 0.4, 0.5], "b": [0.1, 0.25, 0.2, 0.45, 0.5]}.items()
            for t, v in enumerate(vs)]
    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])
    d = np.array([0.0, -0.05, 0.1, -0.05, 0.0])
    for method in ("auto", "asymptotic"):
        table = significance(frame, ["AP"], test="wilcoxon", wilcoxon_method=method)
        assert table.loc[0, "p_value"] == pytest.approx(wilcoxon_signed_rank(d, method)[1][0], rel=1e-12)


# ------------------------------------------------------------------------------------ diversity and ties
@st.composite
def tied_campaign(draw):
    """Subtopic qrels and a run per topic whose scores tie often (0..3)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qrels, run = [], []
    for t in range(draw(st.integers(1, 3))):
        n_docs, n_sub = int(rng.integers(2, 14)), int(rng.integers(1, 5))
        for s in range(1, n_sub + 1):
            for d in rng.choice(n_docs, size=rng.integers(1, n_docs + 1), replace=False):
                qrels.append((f"t{t}", str(s), f"d{d:02d}", int(rng.integers(0, 2))))
        docs = rng.choice(n_docs + 4, size=rng.integers(2, n_docs + 5), replace=False)
        run += [(f"t{t}", f"d{d:02d}", float(rng.integers(0, 4))) for d in docs]
    return qrels, run


@settings(max_examples=120, deadline=None)
@given(data=tied_campaign(), k=st.integers(1, 20))
def test_diversity_measures_rank_ties_as_pyndeval_does(data, k, tmp_path_factory):
    """Through a run file and through dicts alike (trec_eval's order put the greatest id first: 558 of 600
    topic values of α-nDCG@5 differed from pyndeval's on such runs)."""
    pyndeval = reference_module("pyndeval")
    qrels, run = data
    folder = tmp_path_factory.mktemp("ties")
    (folder / "qrels").write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
    (folder / "run").write_text("".join(f"{t} Q0 {d} 1 {score} r\n" for t, d, score in run))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold = read_trec_qrels(folder / "qrels", subtopics=True)
        by_file = read_trec_run(folder / "run")
    topics = dict.fromkeys(r[0] for r in run)
    by_dicts = runs_from_dicts({"r": {t: {d: sc for tt, d, sc in run if tt == t} for t in topics}})
    names = [f"alpha_nDCG@{k}", f"ERR_IA@{k}", "NRBP", f"P_IA@{k}", f"StRecall@{k}"]
    theirs = pyndeval.RelevanceEvaluator(qrels, [f"alpha-nDCG@{k}", f"ERR-IA@{k}", "NRBP", f"P-IA@{k}",
                                                 f"strec@{k}"]).evaluate(run)
    for runs in (by_file, by_dicts):
        mine = Campaign(gold, runs).evaluate(names, progress=False)
        for topic, values in theirs.items():
            got = mine[mine["topic"] == topic].set_index("measure")["value"]
            expected = list(values.values())
            if k == 1:  # ndeval leaves ERR-IA@1 unnormalised (tests/test_diversity.py)
                names_k, expected = names[:1] + names[2:], expected[:1] + expected[2:]
            else:
                names_k = names
            assert got[names_k].tolist() == pytest.approx(expected, abs=1e-12), topic


def test_the_explanation_ranks_ties_as_the_measure_does():
    """A diversity measure's explanation lists the documents in the order its value was computed in."""
    qrels = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "relevance": [1, 0, 1]})
    runs = {"r": pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})}
    campaign = Campaign.from_frames(qrels, runs)
    explanation = campaign.explain("r", "q", "alpha_nDCG@2")
    ranked = explanation.contributions.sort_values("rank")["document"].tolist()
    assert ranked[:3] == ["a", "b", "c"]  # pyndeval: equal scores by id ascending (trec_eval: c, b, a)
    assert explanation.contributions["contribution"].sum() == pytest.approx(explanation.score, abs=1e-12)
