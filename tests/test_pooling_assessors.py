"""Pools and assessors against trectools 0.0.50: ``make_pool`` equal to ``TrecPoolMaker.make_pool`` (topX, rrf, rbp
with sum and max) on random tie-free runs whose rank column follows the scores (the edge of an RRF/RBP pool
compared where no tie sits on it: trectools leaves those to its sort); the budget by hand; ``qrels_agreement``
equal to ``TrecQrel.check_agreement``, ``check_kappa`` (binary grades), ``check_overlap`` and
``check_confusion_matrix``, and Cohen's κ to scikit-learn's on graded qrels; ``fleiss_kappa`` equal to
``misc.check_fleish_kappa`` and to statsmodels; ``ranking_agreement`` between two assessors' qrels equal to
``misc.get_correlation`` (kendall, spearman, tauap; its "pearson" is Pearson's r of the rank positions, which is
Spearman's ρ: compared as such) and Pearson's r to scipy on the summaries."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.conftest import reference_module, shared_dataset
from workbench import Campaign
from workbench.analysis.agreement import ranking_agreement
from workbench.analysis.assessors import fleiss_kappa, qrels_agreement
from workbench.analysis.pooling import make_pool
from workbench.errors import CampaignError, ParameterError

trectools = reference_module("trectools")
misc = reference_module("trectools.misc")
sklearn_metrics = reference_module("sklearn.metrics")
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")  # trectools' sort_values(inplace=True)


def random_runs(seed: int, systems: int = 4, topics: int = 3, pool: int = 25) -> dict:
    """``{system: {topic: {doc: score}}}``, every score distinct (tie-free), topics named by integers."""
    rng = np.random.default_rng(seed)
    runs = {}
    for s in range(systems):
        runs[f"run{s}"] = {}
        for t in range(1, topics + 1):
            docs = rng.choice(pool, size=int(rng.integers(1, pool)), replace=False)
            scores = rng.permutation(len(docs)) + rng.random() * 0.5
            runs[f"run{s}"][str(t)] = {f"d{d}": float(v) for d, v in zip(docs, scores, strict=True)}
    return runs


def trec_runs(runs: dict) -> list:
    """The runs as trectools' ``TrecRun`` (as its reader leaves them: sorted by query, score desc, docid)."""
    out = []
    for system, run in runs.items():
        rows = []
        for topic, scored in run.items():
            for rank, (doc, score) in enumerate(sorted(scored.items(), key=lambda kv: -kv[1]), start=1):
                rows.append((topic, "Q0", doc, rank, score, system))
        trec = trectools.TrecRun()
        trec.run_data = pd.DataFrame(rows, columns=["query", "q0", "docid", "rank", "score", "system"]).sort_values(
            ["query", "score", "docid"], ascending=[True, False, True])
        out.append(trec)
    return out


def value_of(runs: dict, topic: str, doc: str, strategy: str, p: float, merge: str, k: float) -> float:
    ranks = [sorted(run[topic], key=lambda d: -run[topic][d]).index(doc) + 1 for run in runs.values()
             if doc in run.get(topic, {})]
    weights = [1 / (k + r) if strategy == "rrf" else (1 - p) * p ** (r - 1) for r in ranks]
    return max(weights) if merge == "max" and strategy == "rbp" else sum(weights)


@pytest.mark.parametrize(("strategy", "merge"), [("depth", "sum"), ("rrf", "sum"), ("rbp", "sum"), ("rbp", "max")])
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), depth=st.integers(1, 12), p=st.sampled_from([0.5, 0.8, 0.95]))
def test_make_pool_equals_trectools(strategy, merge, seed, depth, p):
    runs = random_runs(seed)
    ours = make_pool(runs, strategy, depth, p=p, merge=merge, k=60)
    maker = trectools.TrecPoolMaker()
    with contextlib.redirect_stdout(io.StringIO()):
        theirs = maker.make_pool(trec_runs(runs), strategy={"depth": "topX"}.get(strategy, strategy), topX=depth,
                                 rbp_strategy=merge, rbp_p=p, rrf_den=60).pool
    theirs = {str(topic): docs for topic, docs in theirs.items()}
    assert set(ours.documents) == set(theirs)
    for topic, docs in ours.documents.items():
        if strategy == "depth":
            assert set(docs) == theirs[topic]
            continue
        values = {d: value_of(runs, topic, d, strategy, p, merge, 60)
                  for d in {d for run in runs.values() for d in run.get(topic, {})}}
        edge = sorted(values.values(), reverse=True)[:depth][-1]
        above = {d for d, v in values.items() if v > edge + 1e-12}
        assert above <= set(docs) and above <= theirs[topic]
        assert len(docs) == len(theirs[topic]) == min(depth, len(values))
        assert all(abs(values[d] - edge) < 1e-12 for d in set(docs) ^ theirs[topic])  # they differ on ties only


def test_the_budget_by_hand():
    runs = {"a": {"1": {"x": 3, "y": 2, "z": 1}, "2": {"u": 1}}, "b": {"1": {"w": 3, "x": 2}, "2": {"u": 2}}}
    pool = make_pool(runs, depth=2)
    assert pool.documents == {"1": ["w", "x", "y"], "2": ["u"]}
    assert pool.budget.to_dict("list") == {"topic": ["1", "2"], "documents": [3, 1]}
    assert (pool.total, pool.mean) == (4, 2.0)
    assert str(pool) == "depth pool of 2 topics: 4 documents to judge (2.0 per topic)"
    rrf = make_pool(runs, "rrf", 2)  # x: 1/61 + 1/62 beats w and y (1/61 and 1/62 alone)
    assert rrf.documents["1"] == ["x", "w"]
    rbp = make_pool(runs, "rbp", 1, p=0.5, merge="max")  # x (0.5 in a) ties w (0.5 in b): by id
    assert rbp.documents["1"] == ["w"]


def test_pools_read_runs_as_read_from_files():
    runs = Campaign.from_dicts({"1": {"x": 1}}, {"a": {"1": {"x": 3, "y": 2}}, "b": {"1": {"z": 1}}}).runs
    assert make_pool(runs, depth=1).documents == {"1": ["x", "z"]}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"strategy": "top"}, "make_pool: strategy must be one of depth, rrf, rbp"),
    ({"depth": 0}, "make_pool: depth must be an integer in"),
    ({"p": 1.0}, r"make_pool: p must be in \(0, 1\)"),
    ({"merge": "min"}, "make_pool: merge must be one of sum, max"),
])
def test_pool_misuses_are_named(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        make_pool({"a": {"1": {"x": 1.0}}}, **kwargs)


# --------------------------------------------------------------------------------------------- assessors
def random_qrels(seed: int, grades: int = 2, topics: int = 4, docs: int = 30, share: float = 0.7) -> dict:
    rng = np.random.default_rng(seed)
    return {str(t): {f"d{d}": int(rng.integers(0, grades)) for d in range(docs) if rng.random() < share}
            for t in range(1, topics + 1)}


def trec_qrel(qrels: dict):
    q = trectools.TrecQrel()
    q.qrels_data = pd.DataFrame([(t, "Q0", d, g) for t, docs in qrels.items() for d, g in docs.items()],
                                columns=["query", "q0", "docid", "rel"])
    return q


def related(seed: int, grades: int) -> tuple[dict, dict]:
    """Two assessors who agree more often than chance."""
    a = random_qrels(seed, grades)
    rng = np.random.default_rng(seed + 1)
    b = {t: {d: (g if rng.random() < 0.7 else int(rng.integers(0, grades))) for d, g in docs.items()
             if rng.random() < 0.9} for t, docs in a.items()}
    return a, b


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_binary_agreement_equals_trectools(seed):
    a, b = related(seed, 2)
    found = qrels_agreement(a, b)
    ta, tb = trec_qrel(a), trec_qrel(b)
    with contextlib.redirect_stdout(io.StringIO()):
        assert found.agreement == pytest.approx(ta.check_agreement(tb), rel=1e-12)
        assert found.kappa == pytest.approx(ta.check_kappa(tb), rel=1e-9)
        assert found.jaccard == pytest.approx(ta.check_overlap(tb), rel=1e-12)
        assert (found.confusion.to_numpy() == ta.check_confusion_matrix(tb, labels=[0, 1])).all()
        per_topic = ta.check_agreement(tb, topics=list(a))
    assert found.topics["agreement"].tolist() == pytest.approx([per_topic[t] for t in found.topics["topic"]])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), grades=st.integers(2, 5))
def test_graded_kappa_equals_scikit_learn(seed, grades):
    a, b = related(seed, grades)
    found = qrels_agreement(a, b, relevant=1)
    common = [(a[t][d], b[t][d]) for t in a for d in a[t] if d in b.get(t, {})]
    x, y = zip(*common, strict=True)
    assert found.judged == len(common)
    assert found.kappa == pytest.approx(sklearn_metrics.cohen_kappa_score(x, y), rel=1e-9, abs=1e-12)
    labels = sorted(set(x) | set(y))
    assert (found.confusion.to_numpy() == sklearn_metrics.confusion_matrix(x, y, labels=labels)).all()


def test_kappa_by_hand_and_refusals():
    """4 documents, 3 alike: p_o = 3/4; a gives 1 to half, b to 3/4: p_e = 1/2·3/4 + 1/2·1/4 = 1/2, κ = 1/2."""
    found = qrels_agreement({"q": {"a": 1, "b": 0, "c": 1, "d": 0}}, {"q": {"a": 1, "b": 1, "c": 1, "d": 0}})
    assert (found.agreement, found.kappa, found.jaccard) == (0.75, 0.5, pytest.approx(2 / 3))
    assert "4 documents judged by both: 75.0% labelled alike, Cohen's κ = 0.5000" in str(found)
    with pytest.raises(CampaignError, match="no document is judged in both"):
        qrels_agreement({"q": {"a": 1}}, {"q": {"b": 1}})
    with pytest.raises(ParameterError, match="fleiss_kappa: qrels must be a list of two qrels at least"):
        fleiss_kappa([{"q": {"a": 1}}])


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), assessors=st.integers(2, 5), grades=st.integers(2, 4))
def test_fleiss_kappa_equals_trectools_and_statsmodels(seed, assessors, grades):
    qrels = [random_qrels(seed + i, grades, share=1.0) for i in range(assessors)]  # all judge every document
    ours = fleiss_kappa(qrels)
    aligned = [np.array([q[t][d] for t in qrels[0] for d in qrels[0][t]]) for q in qrels]
    inter_rater = reference_module("statsmodels.stats.inter_rater")
    table, _ = inter_rater.aggregate_raters(np.stack(aligned, axis=1))
    assert ours == pytest.approx(misc.check_fleish_kappa(tuple(aligned)), rel=1e-9, abs=1e-12)
    assert ours == pytest.approx(inter_rater.fleiss_kappa(table), rel=1e-9, abs=1e-12)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_system_rankings_under_two_assessors_equal_trectools(seed):
    """The systems' MAP under assessor a and under assessor b; trectools ranks both lists and correlates them."""
    rng = np.random.default_rng(seed)
    systems = 6
    means_a = rng.permutation(systems) / 10 + rng.random() * 0.01  # tie-free
    means_b = means_a + rng.normal(0, 0.15, systems)
    rows = [(f"s{i}", "t", "AP", v) for i, v in enumerate(means_a)]
    rows_b = [(f"s{i}", "t", "AP", v) for i, v in enumerate(means_b)]
    columns = ["system", "topic", "measure", "value"]
    found = ranking_agreement(pd.DataFrame(rows, columns=columns), "AP", "AP",
                              results_b=pd.DataFrame(rows_b, columns=columns))
    sorted_a = sorted(((v, f"s{i}") for i, v in enumerate(means_a)), reverse=True)
    sorted_b = sorted(((v, f"s{i}") for i, v in enumerate(means_b)), reverse=True)
    assert found.tau == pytest.approx(misc.get_correlation(sorted_a, sorted_b, "kendall")[0], rel=1e-12)
    assert found.spearman == pytest.approx(misc.get_correlation(sorted_a, sorted_b, "spearman")[0], rel=1e-12)
    assert found.spearman == pytest.approx(misc.get_correlation(sorted_a, sorted_b, "pearson")[0], rel=1e-12)
    assert found.tau_ap == pytest.approx(misc.get_correlation(sorted_a, sorted_b, "tauap")[0], rel=1e-12)
    assert found.pearson == pytest.approx(stats.pearsonr(means_a, means_b)[0], rel=1e-12)


# ------------------------------------------------------------------- trectools' own examples, on their files
def test_trectools_pooling_example_on_trec_robust_2003():
    """trectools' examples/Example2_Making_Doc_Pools.ipynb (commit 8a896de) on its aplrob03a and UIUC03Rd1 runs:
    a top-10 pool of 1,636 documents covering aplrob03a's top 10 entirely (10.0), as printed there; an RRF pool of 20
    per topic (2,000 documents) covering 8.26 of them, where the notebook prints 8.35: trectools takes RRF's ranks
    from the file's rank column, which counts from 0 in aplrob03a (its first document weighs 1/60, not 1/61).
    Counted from 1 there, trectools gives 8.25 (measured with 0.0.50); the last 0.01 is a tie at a pool's edge,
    taken by id here and left to an unstable sort there. (trectools 0.0.50 itself prints 0.0: its RRF pool turns
    the topics into integers, which its run's string topics never match.)"""
    from workbench.data.read import read_runs

    folder = shared_dataset("trec_robust2003", "runs")
    runs = read_runs([folder / "input.aplrob03a.gz", folder / "input.UIUC03Rd1.gz"])
    first = runs[next(iter(runs))]
    depth10 = make_pool(runs, "depth", 10)
    assert (depth10.total, depth10.coverage(first, 10)) == (1636, 10.0)
    rrf = make_pool(runs, "rrf", 20, k=60)
    assert rrf.total == 2000 and rrf.coverage(first, 10) == pytest.approx(8.26)


def test_trectools_agreement_example_on_trec_robust_2003():
    """trectools' examples/Example5_Agreement_QRels.ipynb: the Robust 2003 qrels against a copy whose first 10
    judgements go from 0 to 1 — agreement 0.9999223578372 and the confusion matrix [[122712, 10, 0], [0, 5667, 0],
    [0, 0, 407]] as printed there. Its κ, 0.999188229143584, is its two-grade formula applied to grades 0–2 (the mean
    grade taken for the share of relevant documents); Cohen's κ over the three grades is scikit-learn's."""
    from workbench.data.trec.readers import read_trec_qrels

    path = shared_dataset("trec_robust2003", "qrels.txt")
    original = read_trec_qrels(path)
    lines = path.read_text().splitlines()
    modified: dict = {}
    for i, line in enumerate(lines):
        topic, _, doc, grade = line.split()
        modified.setdefault(topic, {})[doc] = 1 if i < 10 else int(grade)
    found = qrels_agreement(original, modified)
    assert found.agreement == pytest.approx(0.9999223578372, rel=1e-12)
    assert found.confusion.to_numpy().tolist() == [[122712, 10, 0], [0, 5667, 0], [0, 0, 407]]
    a = [int(line.split()[3]) for line in lines]
    b = [1 if i < 10 else g for i, g in enumerate(a)]
    assert found.kappa == pytest.approx(sklearn_metrics.cohen_kappa_score(a, b), rel=1e-12)
