"""DCG at a cutoff and ir_measures' ``SDCG(dcg=log2)`` (issue 43 item 3): spellings of the declared measures, equal
to ranx's ``dcg@k`` (the grade as gain, Järvelin & Kekäläinen) and ``dcg_burges@k`` (2^g − 1, Burges et al.),
PyEvALL 0.2.11's ``DCG`` (2^g − 1 over the whole ranking) and ir_measures' ``SDCG(dcg='log2')`` on random runs
without score ties (ranx and cwl_eval order ties their own way)."""

from __future__ import annotations

import json
import math
import random
import warnings

import pytest

from tests.conftest import reference_module
from workbench.data import Campaign
from workbench.metrics.registry import MeasureParameterError, parse


def campaign(seed: int, topics: int = 10) -> tuple[dict, dict]:
    """Random graded qrels (grades 0..3, some retrieved documents unjudged) and a run without score ties."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(1, topics + 1):
        docs = [f"d{i:03d}" for i in range(rng.randint(3, 40))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        grades = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in judged}
        grades[judged[0]] = rng.randint(1, 3)
        retrieved = rng.sample(docs, rng.randint(1, len(docs)))
        qrels[f"q{t}"] = grades
        run[f"q{t}"] = {d: float(v) for d, v in zip(retrieved, rng.sample(range(1, 10 * len(retrieved)),
                                                                           len(retrieved)), strict=True)}
    return qrels, run


def scores(qrels: dict, run: dict, name: str) -> dict[str, float]:
    frame = Campaign.from_dicts(qrels, {"sys": run}).evaluate([name], progress=False)
    return dict(zip(frame["topic"], frame["value"], strict=True))


def test_the_spellings_parse_as_the_declared_measures():
    assert str(parse("SDCG(dcg=log2, max_rel=3)@10")) == "SDCG(max_rel=3)@10"
    assert parse("SDCG(dcg='log2', max_rel=3)@10") == parse("SDCG(max_rel=3)@10")
    assert str(parse("DCG@5")) == "DCG@5" and parse("dcg@5") == parse("DCG@5")
    assert parse("DCG(dcg=exp-log2)@5") == parse("DCG(gain=exp)@5")
    with pytest.raises(MeasureParameterError, match="dcg must be one of log2 .SDCG has no other."):
        parse("SDCG(dcg=exp-log2, max_rel=3)@10")


def test_dcg_at_a_cutoff_by_hand():
    """Grades 2, 0, 1 at ranks 1–3: DCG@2 = 2, DCG = 2 + 1/log2(4) = 2.5; exp gains 3 and 1: 3 + 1/2 = 3.5."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert scores(qrels, run, "DCG@2")["q"] == 2.0 and scores(qrels, run, "DCG")["q"] == 2.5
    assert scores(qrels, run, "DCG(gain=exp)")["q"] == 3.5 and scores(qrels, run, "DCG@10")["q"] == 2.5


@pytest.mark.parametrize(("ours", "theirs"), [("DCG@5", "dcg@5"), ("DCG@10", "dcg@10"), ("DCG", "dcg"),
                                              ("DCG(gain=exp)@5", "dcg_burges@5"), ("DCG(gain=exp)", "dcg_burges")])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dcg_equals_ranx(ranx, ours, theirs, seed):
    qrels, run = campaign(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), theirs, return_mean=False, make_comparable=True)
    expected = dict(zip(ranx.Run(run).keys(), values.tolist(), strict=True))
    assert scores(qrels, run, ours) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("name", ["SDCG(dcg='log2', max_rel=3)@10", "SDCG(dcg='log2', min_rel=1, max_rel=3)@5"])
@pytest.mark.parametrize("seed", [1, 2])
def test_sdcg_with_irmeasures_dcg_parameter_equals_ir_measures(name, seed):
    ir_measures = reference_module("ir_measures")
    qrels, run = campaign(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {m.query_id: float(m.value) for m in ir_measures.iter_calc([ir_measures.parse_measure(name)],
                                                                            qrels, run)}
    ours = scores(qrels, run, name)
    assert ours == pytest.approx({topic: theirs.get(topic, 0.0) for topic in ours}, abs=1e-9)


@pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")
@pytest.mark.parametrize("seed", [1, 2])
def test_dcg_with_exp_gains_equals_pyevalls_dcg(tmp_path, seed):
    """PyEvALL's ranking files: the gold's value is the grade, the output's the rank (1 first)."""
    reference_module("pyevall")
    from pyevall.evaluation import PyEvALLEvaluation

    qrels, run = campaign(seed)
    gold = [{"test_case": t, "id": d, "value": g} for t, grades in qrels.items() for d, g in grades.items()]
    output = [{"test_case": t, "id": d, "value": rank} for t, docs in run.items()
              for rank, d in enumerate(sorted(docs, key=docs.get, reverse=True), start=1)]
    (tmp_path / "gold.json").write_text(json.dumps(gold))
    (tmp_path / "output.json").write_text(json.dumps(output))
    report = PyEvALLEvaluation().evaluate(str(tmp_path / "output.json"), str(tmp_path / "gold.json"), ["DCG"],
                                          log_level="none").report
    theirs = {case["name"]: case["average"] for case in report["metrics"]["DCG"]["results"]["test_cases"]}
    ours = scores(qrels, run, "DCG(gain=exp)")
    assert set(theirs) == set(ours) and all(not math.isnan(value) for value in ours.values())
    assert ours == pytest.approx(theirs, rel=1e-12)
