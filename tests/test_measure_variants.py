"""The measures of issue 23 item 3 beside their peers on random runs: Hits@k (ranx), R_cap@k (trec_eval's
relative_P through pytrec_eval), RBP@k (ranx's binary RBP of the cut run, and its formula), Q-measure@k and
O/P/P+ at a cutoff (pyNTCIREVAL), tie-averaged nDCG (scikit-learn's ndcg_score, McSherry & Najork)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from workbench import evaluate
from workbench.data.trec.memory import evaluate_run
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.registry import parse
from workbench.model import Organization


@st.composite
def distinct_scored(draw, max_docs=25, max_grade=3):
    """qrels {q: {doc: grade}} and a run {q: {doc: score}} with distinct scores (so that every tool ranks alike)."""
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        docs = [f"d{i}" for i in range(draw(st.integers(1, max_docs)))]
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs)))
        qrels[f"q{t}"] = {d: draw(st.integers(0, max_grade)) for d in judged}
        ranked = draw(st.permutations(docs))[:draw(st.integers(1, len(docs)))]
        run[f"q{t}"] = {d: float(len(ranked) - i) for i, d in enumerate(ranked)}
    return qrels, run


def _ranx(ranx, qrels, run, metrics):
    return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False, make_comparable=True)


@settings(max_examples=60, deadline=None)
@given(data=distinct_scored(), k=st.integers(1, 30), level=st.integers(1, 3))
def test_hits_and_rbp_at_k_equal_ranx(ranx, data, k, level):
    qrels, run = data
    if not any(g >= level for q in qrels.values() for g in q.values()):
        return  # ranx refuses qrels without a relevant document
    theirs = _ranx(ranx, qrels, run, [f"hits@{k}-l{level}", f"hits-l{level}"])
    mine = evaluate_run(qrels, run, [f"Hits(rel={level})@{k}", f"Hits(rel={level})"])
    topics = list(run)
    assert [mine[f"Hits(rel={level})@{k}"][t] for t in topics] == pytest.approx(list(theirs[f"hits@{k}-l{level}"]))
    assert [mine[f"Hits(rel={level})"][t] for t in topics] == pytest.approx(list(theirs[f"hits-l{level}"]))
    # ranx's rbp weighs the grade itself; with binary qrels it is RBP(rel=1), here of the run cut at k
    binary = {q: {d: int(g >= level) for d, g in docs.items()} for q, docs in qrels.items()}
    cut = {q: dict(list(docs.items())[:k]) for q, docs in run.items()}
    theirs = _ranx(ranx, binary, cut, ["rbp.8"])
    mine = evaluate_run(binary, run, [f"RBP(p=0.8, rel=1)@{k}"])[f"RBP(p=0.8, rel=1)@{k}"]
    assert [mine[t] for t in topics] == pytest.approx(list(theirs), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(data=distinct_scored(), p=st.sampled_from([0.5, 0.8, 0.95]))
def test_rbp_of_raw_grades_equals_ranx_and_scaled_divides_by_the_top_grade(ranx, data, p):
    """Issue 31 class 11: which gain RBP gives a grade. ranx's ``rbp`` weighs the grade itself (gain=raw, grades
    below 1 giving 0); by default the grade over the topic's highest judged grade (NTCIREVAL's, trec_eval's)."""
    qrels, run = data
    if not any(g >= 1 for q in qrels.values() for g in q.values()):
        return  # ranx refuses qrels without a relevant document
    theirs = _ranx(ranx, qrels, run, [f"rbp.{round(p * 100):02d}" if p < 0.9 else "rbp.95"])
    mine = evaluate_run(qrels, run, [f"RBP(p={p}, gain=raw)", f"RBP(p={p})"])
    topics = list(run)
    assert [mine[f"RBP(p={p}, gain=raw)"][t] for t in topics] == pytest.approx(list(theirs), abs=1e-12)
    for t in topics:  # scaled: every gain divided by the topic's top grade
        top = max(qrels[t].values())
        raw = mine[f"RBP(p={p}, gain=raw)"][t]
        assert mine[f"RBP(p={p})"][t] == pytest.approx(raw / top if top else 0.0, abs=1e-12)


def test_rbp_at_k_by_hand():
    """Graded RBP@2 of gains (2, 0, 1) over g_max 2, p = 0.5: (1 − p)(2/2 + 0·p) = 0.5; RBP itself adds 1/2·p²."""
    gold, output = Organization.from_graded({"a": 2, "c": 1}), Organization.from_ranking(["a", "b", "c"])
    assert evaluate(gold, output, "RBP(p=0.5)@2")["RBP(p=0.5)@2"] == 0.5
    assert evaluate(gold, output, "RBP(p=0.5)")["RBP(p=0.5)"] == 0.5 + 0.5 * 0.5 * 0.25


@settings(max_examples=60, deadline=None)
@given(data=distinct_scored(), k=st.integers(1, 30), level=st.integers(1, 3))
def test_r_cap_equals_trec_evals_relative_precision(data, k, level):
    pytrec_eval = reference_module("pytrec_eval")
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {f"relative_P.{k}"}, relevance_level=level).evaluate(run)
    mine = evaluate_run(qrels, run, [f"R_cap(rel={level})@{k}"])[f"R_cap(rel={level})@{k}"]
    for topic, values in theirs.items():
        assert mine[topic] == pytest.approx(values[f"relative_P_{k}"], abs=1e-12)
        n_rel = sum(g >= level for g in qrels[topic].values())
        found = sum(qrels[topic].get(d, 0) >= level for d in list(run[topic])[:k])
        assert mine[topic] == (found / min(k, n_rel) if n_rel else 0.0)


@settings(max_examples=150, deadline=None)
@given(data=distinct_scored(max_grade=3), beta=st.sampled_from([0.0, 0.5, 1.0, 2.0]), k=st.integers(1, 30),
       grades=st.lists(st.integers(1, 9), min_size=3, max_size=3, unique=True).map(sorted))
def test_sakai_measures_at_a_cutoff_equal_pyntcireval(data, beta, k, grades):
    """Q@k: pyNTCIREVAL's QMeasure(cutoff=k) (1 / min(R, k)); O, P, P+ at k: pyNTCIREVAL on the top k."""
    pm = reference_module("pyNTCIREVAL.metrics")
    from pyNTCIREVAL import Labeler

    qrels, run = data
    for topic, levels in qrels.items():
        ranked = list(run[topic])
        gains = {d: float(grades[lv - 1]) for d, lv in levels.items() if lv > 0}
        gold, output = Organization.from_graded(gains), Organization.from_ranking(ranked)
        names = [f"Q-measure(beta={beta})@{k}", f"O-measure(beta={beta})@{k}", f"P-measure(beta={beta})@{k}",
                 f"P+-measure(beta={beta})@{k}"]
        mine = list(evaluate(gold, output, names).values())
        if not gains:
            assert mine == [0.0] * 4
            continue
        labeler = Labeler(levels)
        xrelnum = labeler.compute_per_level_doc_num(4)
        cut = labeler.label(ranked[:k])
        theirs = [pm.QMeasure(xrelnum, grades, beta, cutoff=k).compute(labeler.label(ranked)),
                  *(m.compute(cut) if any(g for _, g in cut) else 0.0
                    for m in (pm.OMeasure(xrelnum, grades, beta), pm.PMeasure(xrelnum, grades, beta),
                              pm.PPlusMeasure(xrelnum, grades, beta)))]
        assert mine == pytest.approx(theirs, abs=1e-12), names


def test_q_measure_at_k_by_hand():
    """Gains (0, 2, 1) against judged (2, 1, 1), β = 1: BR(2) = (1 + 2) / (2 + 3) = 3/5; Q@2 = BR(2) / min(2, 3)."""
    t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    q = parse("Q-measure@2")
    assert q.spec.compute.score(t, **q.params)[0] == pytest.approx(0.3, abs=1e-15)


@st.composite
def tied_run(draw):
    """One topic: every judged document scored, with integer scores (many ties); grades 0..3."""
    n = draw(st.integers(2, 20))
    grades = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    return grades, scores


@settings(max_examples=150, deadline=None)
@given(topic=tied_run(), k=st.one_of(st.none(), st.integers(1, 25)))
def test_tie_averaged_ndcg_equals_scikit_learn(topic, k):
    """nDCG(ties=average)@k through the array path (read runs) and the Organization path (a tied level per
    score) against sklearn.metrics.ndcg_score(ignore_ties=False), every judged document ranked."""
    ndcg_score = reference_module("sklearn.metrics").ndcg_score
    grades, scores = topic
    docs = [f"d{i:02d}" for i in range(len(grades))]
    name = 'nDCG(ties="average")' + (f"@{k}" if k else "")
    qrels, run = {"q": dict(zip(docs, grades, strict=True))}, {"q": dict(zip(docs, map(float, scores), strict=True))}
    mine = evaluate_run(qrels, run, [name])[name]["q"]
    theirs = ndcg_score([grades], [scores], k=k, ignore_ties=False) if any(grades) else 0.0
    assert mine == pytest.approx(theirs, abs=1e-12)
    levels = [[frozenset([d]) for d, s in zip(docs, scores, strict=True) if s == level]
              for level in sorted(set(scores))[::-1]]
    output = Organization(tuple(tuple(level) for level in levels))
    gold = Organization.from_graded({d: g for d, g in zip(docs, grades, strict=True) if g})
    assert evaluate(gold, output, name)[name] == pytest.approx(theirs, abs=1e-12)


def test_tie_averaged_ndcg_by_hand_and_without_ties():
    """Gains 2 and 0 tied at ranks 1–2, then 1: DCG = 1·(1 + 1/log2 3) + 1/2; the ideal (2, 1) gives 2 + 1/log2 3.
    Without ties the value is trec_eval's."""
    gold = Organization.from_graded({"a": 2, "c": 1})
    tied = Organization.parse("a b\nc")
    value = evaluate(gold, tied, "nDCG(ties=average)")["nDCG(ties=average)"]
    assert value == pytest.approx((1 + 1 / math.log2(3) + 0.5) / (2 + 1 / math.log2(3)), abs=1e-15)
    plain = Organization.from_ranking(["b", "a", "c"])
    assert evaluate(gold, plain, ["nDCG(ties=average)", "nDCG"]) == pytest.approx(
        {"nDCG(ties=average)": evaluate(gold, plain, "nDCG")["nDCG"], "nDCG": evaluate(gold, plain, "nDCG")["nDCG"]})


def test_judged_only_keeps_the_ties_between_judged_documents():
    t = GainTable(np.array([[2.0, 0.0, 0.0, 1.0]]), np.array([[2.0, 1.0]]),
                  judged=np.array([[True, False, True, True]]), tied=np.array([[False, True, True, False]]))
    assert t.judged_only().tied.tolist() == [[False, True, False]]
