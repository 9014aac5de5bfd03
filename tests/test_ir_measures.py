"""ir_measures' spellings are the workbench's: each name gives ir_measures' value per topic, and trec_eval's
spellings give pytrec_eval's, on random graded campaigns with many score ties, read from TREC files.

ir_measures takes most measures from pytrec_eval (trec_eval's order: score, then document id descending);
a few come from other providers that break score ties their own way (``RR@10``: msmarco, ``ERR@20``: gdeval,
``Judged@10``, ``RBP(rel=1)``: cwl_eval). Those are compared on runs without ties, and also, where trec_eval
has the measure, against pytrec_eval with ties.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

from tests.conftest import reference_module, write_trec
from workbench.data import Campaign, read_trec_qrels, read_trec_run
from workbench.metrics.registry import parse

ir_measures = reference_module("ir_measures")
pytrec_eval = reference_module("pytrec_eval")

# The names of issue 10 (item 4), as ir_measures spells them.
IR_MEASURES_NAMES = ["AP", "AP@100", "AP(rel=2)", "nDCG", "nDCG@10", "P@10", "P(rel=2)@5", "R@100", "RR",
                     "RR@10", "Rprec", "Bpref", "infAP", "Judged@10", "NumRel", "NumRet", "NumRelRet",
                     "IPrec@0.1", "SetP", "SetR", "SetF", "Success@10", "ERR@20", "RBP(p=0.8, rel=1)",
                     "nDCG(gains={1:2,2:1,3:5})@10", "nDCG(gains={2:5})"]

# ir_measures' judged_only (trec_eval's -J: unjudged documents leave the ranking), on every measure that has it.
JUDGED_ONLY_NAMES = ["AP(judged_only=True)", "AP(rel=2, judged_only=True)@100", "P(judged_only=True)@10",
                     "P(rel=2, judged_only=True)@5", "nDCG(judged_only=True)", "nDCG(judged_only=True)@10",
                     "nDCG(gains={1:2,2:1,3:5}, judged_only=True)@10", "RR(judged_only=True)",
                     "Rprec(judged_only=True)", "R(judged_only=True)@100", "R(judged_only=True)@5",
                     "Success(judged_only=True)@10", "IPrec(judged_only=True)@0.1", "SetP(judged_only=True)",
                     "SetF(judged_only=True)", "SetAP(judged_only=True)"]
IR_MEASURES_NAMES += JUDGED_ONLY_NAMES

# trec_eval's spellings (pytrec_eval's keys) and the relevance level they are computed at.
TREC_EVAL_NAMES = ["map", "map_cut_100", "ndcg", "ndcg_cut_10", "P_10", "P_5", "recip_rank", "recall_100",
                   "Rprec", "success_10", "bpref", "infAP", "num_rel", "num_ret", "num_rel_ret", "set_P",
                   "set_recall", "set_F"]


def campaign(seed: int, ties: bool, topics: int = 12) -> tuple[dict, dict]:
    """Random qrels ``{topic: {doc: grade 0..3}}`` and a run ``{topic: {doc: score}}``: some relevant
    documents unretrieved, some retrieved ones unjudged, and (``ties``) scores from a handful of values."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(1, topics + 1):
        docs = [f"d{i:03d}" for i in range(rng.randint(5, 60))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        grades = {d: rng.choice([0, 0, 0, 1, 1, 2, 3]) for d in judged}
        if not any(grades.values()):
            grades[judged[0]] = rng.randint(1, 3)
        retrieved = rng.sample(docs, rng.randint(1, len(docs)))
        values = [rng.choice([0.25, 0.5, 1.0, 2.0]) for _ in retrieved] if ties else \
            rng.sample(range(1, 10 * len(retrieved)), len(retrieved))
        qrels[str(t)] = grades
        run[str(t)] = {d: float(v) for d, v in zip(retrieved, values, strict=True)}
    return qrels, run


def workbench_scores(tmp_path, qrels: dict, run: dict, name: str) -> dict[str, float]:
    """Per topic, the workbench's value of ``name`` through the files users have (qrels and run text)."""
    qrels_path, run_path = write_trec(tmp_path, qrels, {"sys": run})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = Campaign(read_trec_qrels(qrels_path), read_trec_run(run_path)).evaluate(
            [name], missing_topics="skip", progress=False)
    return dict(zip(frame["topic"], frame["value"], strict=True))


def test_the_listed_names_parse_as_ir_measures_spells_them():
    """Every listed name prints back as ir_measures prints it (same name, same params)."""
    for name in IR_MEASURES_NAMES:
        measure = parse(name)
        assert str(parse(str(measure))) == str(measure)
        ours, theirs = str(measure).replace(" ", ""), str(ir_measures.parse_measure(name))
        theirs = {"NumRet(rel=1)": "NumRelRet"}.get(theirs, theirs)  # ir_measures prints NumRelRet so
        assert ours == theirs.replace(" ", "") or name.startswith("RBP"), (ours, theirs)


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_same_value_as_ir_measures(tmp_path, name, seed):
    measure = ir_measures.parse_measure(name)
    ties = ir_measures.pytrec_eval.supports(measure)  # other providers order score ties their own way
    qrels, run = campaign(seed, ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
    ours = workbench_scores(tmp_path, qrels, run, name)
    assert set(ours) == set(run)
    printed = 5e-6 if name.startswith("ERR") else 1e-9  # gdeval prints ERR to 5 decimals
    for topic in ours:
        n_rel = sum(grade >= 1 for grade in qrels[topic].values())
        if name.startswith("IPrec") and math.floor(0.1 * n_rel + 0.9) != math.floor(0.1 * n_rel + 0.5):
            continue  # pytrec_eval bundles trec_eval 9: ⌊rR + 0.9⌋ relevant documents where version 10 rounds rR
        assert ours[topic] == pytest.approx(theirs.get(topic, 0.0), abs=printed), (name, topic)


@pytest.mark.parametrize("name", TREC_EVAL_NAMES)
def test_trec_eval_spellings_equal_pytrec_eval_with_ties(tmp_path, name):
    qrels, run = campaign(3, ties=True)
    key = {"map_cut_100": "map_cut", "ndcg_cut_10": "ndcg_cut", "P_10": "P", "P_5": "P",
           "recall_100": "recall", "success_10": "success"}.get(name, name)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {key} if key != name else {name})
    theirs = evaluator.evaluate(run)
    ours = workbench_scores(tmp_path, qrels, run, name)
    for topic, value in ours.items():
        assert value == pytest.approx(theirs[topic][name], abs=1e-9), (name, topic)


def test_judged_only_matters_in_these_campaigns(tmp_path):
    """Retrieved documents without judgements do move the judged ones up: judged_only changes values."""
    qrels, run = campaign(1, ties=True)
    assert any(doc not in qrels[topic] for topic in run for doc in run[topic])
    assert workbench_scores(tmp_path, qrels, run, "P(judged_only=True)@10") != \
        workbench_scores(tmp_path, qrels, run, "P@10")


def test_ties_matter_in_these_campaigns():
    """The campaigns with ties do reorder documents: trec_eval's order differs from the run's file order."""
    qrels, run = campaign(1, ties=True)
    assert any(len(set(scores.values())) < len(scores) for scores in run.values())


@pytest.mark.parametrize(("trec_eval", "ir_measures_name"), [
    ("map", "AP"), ("map_cut_100", "AP@100"), ("ndcg", "nDCG"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"),
    ("recip_rank", "RR"), ("success_10", "Success@10"), ("Rprec", "Rprec"), ("recall_100", "R@100"),
])
def test_trec_eval_spellings_are_aliases_of_the_same_measure(trec_eval, ir_measures_name):
    assert parse(trec_eval) == parse(ir_measures_name)
