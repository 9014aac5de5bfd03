"""PyEvALL's ranking and clustering files read into campaigns, and its measures under its names (issue 43 item 8):
each PyEvALL metric, read through :func:`~workbench.metrics.registry.as_spelled`, equals PyEvALL 0.2.11's value on
the same random files (rankings without tied ranks); the files' refusals name the file and the line."""

from __future__ import annotations

import json
import math
import random

import pytest

from tests.conftest import reference_module
from workbench.data.campaign import means
from workbench.data.pyevall import PyEvALLFormatError, read_pyevall_campaign
from workbench.metrics.registry import UnknownMeasureError, as_spelled

RANKING = ["PrecisionAtK", "RPrecision", "MRR", "MAP", "DCG", "nDCG", "ERR", "RBP"]
CLUSTERING = ["Entropy", "ClassEntropy", "FMeasureClustering", "Purity", "InversePurity",
              "FMeasurePurityInversePurity", "RandStatistics", "Jaccard", "FolkesAndMallows", "NMI-SG",
              "ReliabilityBCubed", "SensitivityBCubed"]


def _write(path, values: dict[str, dict[str, object]]) -> str:
    path.write_text(json.dumps([{"test_case": case, "id": item, "value": value} for case, items in values.items()
                                for item, value in items.items()]))
    return str(path)


def _ranking_files(tmp_path, seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    gold, output = {}, {}
    for case in range(4):
        items = [f"i{k}" for k in range(rng.randint(3, 25))]
        gold[f"T{case}"] = {item: rng.choice([0, 0, 1, 2, 3]) for item in rng.sample(items, rng.randint(2, len(items)))}
        gold[f"T{case}"][items[0]] = 1  # one relevant item at least
        ranked = rng.sample(items, rng.randint(1, len(items)))
        output[f"T{case}"] = {item: rank for rank, item in enumerate(ranked, start=1)}
    return _write(tmp_path / "gold.json", gold), _write(tmp_path / "sys.json", output)


def _clustering_files(tmp_path, seed: int) -> tuple[str, str]:
    rng = random.Random(seed)
    gold, output = {}, {}
    for case in range(3):
        items = [f"i{k}" for k in range(rng.randint(2, 20))]
        gold[f"T{case}"] = {item: [f"L{rng.randint(0, 3)}"] for item in items}
        output[f"T{case}"] = {item: [f"C{rng.randint(0, 4)}"] for item in items}
    return _write(tmp_path / "gold.json", gold), _write(tmp_path / "sys.json", output)


def _pyevalls(gold: str, output: str, metrics: list[str]) -> dict[str, dict[str, float]]:
    from pyevall.evaluation import PyEvALLEvaluation

    report = PyEvALLEvaluation().evaluate(output, gold, metrics, log_level="none").report["metrics"]
    return {metric: {case["name"]: case["average"] for case in report[metric]["results"]["test_cases"]}
            for metric in metrics}


@pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")
@pytest.mark.parametrize(("task", "files", "metrics"), [("ranking", _ranking_files, RANKING),
                                                        ("clustering", _clustering_files, CLUSTERING)])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pyevalls_files_score_as_pyevall_under_its_names(tmp_path, task, files, metrics, seed):
    reference_module("pyevall")
    gold, output = files(tmp_path, seed)
    theirs = _pyevalls(gold, output, metrics)
    campaign = read_pyevall_campaign(gold, output, task=task)
    names = {metric: str(as_spelled(metric, "pyevall")) for metric in metrics}
    results = campaign.evaluate(list(names.values()), progress=False)
    ours = {(row.topic, row.measure): row.value for row in results.itertuples()}
    for metric, measure in names.items():
        for case, value in theirs[metric].items():
            assert ours[case, measure] == pytest.approx(value if value is not None else math.nan, nan_ok=True,
                                                        abs=1e-12), (metric, case)


def test_the_spellings_pyevall_means():
    assert [str(as_spelled(n, "pyevall")) for n in RANKING] == [
        "P@10", "Rprec", "RR", "AP@1000", "DCG(gain=exp)", "nDCG(gain=exp)", "ERR(max_grade=None)", "RBP(gain=raw)"]
    assert [str(as_spelled(n, "pyevall")) for n in CLUSTERING] == [
        "Entropy(probability=joint)", "ClassEntropy(probability=joint)", "ClusteringF", "Purity", "InversePurity",
        "F(P,IP)", "Rand", "Jaccard", "FM", "NMI(average_method=geometric)", "BCubed-P(variant=occurrence)",
        "BCubed-R(variant=occurrence)"]
    assert str(as_spelled("ndcg_burges", "ranx")) == "nDCG(gain=exp)"
    with pytest.raises(UnknownMeasureError, match="pyevall has no measure spelled 'Purity2'"):
        as_spelled("Purity2", "pyevall")


def test_a_ranking_campaign_by_hand_and_its_pyevall_mean(tmp_path):
    """T1: ranks i2, i1 over grades i1 = 1, i2 = 0: P@10 = 1/10, RR = 1/2; T2 has no relevant item: RR undefined
    in PyEvALL (None), 0 here, and both count it 0 in the mean."""
    gold = _write(tmp_path / "gold.json", {"T1": {"i1": 1, "i2": 0}, "T2": {"i3": 0}})
    output = _write(tmp_path / "sys.json", {"T1": {"i2": 1, "i1": 2}, "T2": {"i3": 1}})
    campaign = read_pyevall_campaign(gold, output, task="ranking")
    assert campaign.kind == "ranking" and campaign.undefined == "zero"
    averages = means(campaign.evaluate(["P@10", "RR"], progress=False)).set_index("measure").value
    assert averages["P@10"] == pytest.approx(0.05) and averages["RR"] == pytest.approx(0.25)


@pytest.mark.parametrize(("task", "text", "message"), [
    ("ranking", '[{"test_case": "T1", "id": "i1", "value": "A"}]', "a grade"),
    ("ranking", '[{"test_case": "T1", "id": "i1", "value": 1},\n {"test_case": "T1", "id": "i1", "value": 2}]',
     "given again"),
    ("clustering", '[{"test_case": "T1", "id": "i1", "value": "C1"}]', "a list of cluster names"),
    ("clustering", '[{"test_case": "T1", "id": "i1", "value": []}]', "a list of cluster names"),
])
def test_a_bad_gold_file_is_refused_naming_the_file_and_line(tmp_path, task, text, message):
    (tmp_path / "gold.json").write_text(text)
    output = _write(tmp_path / "sys.json", {"T1": {"i1": 1 if task == "ranking" else ["C1"]}})
    with pytest.raises(PyEvALLFormatError, match=message) as caught:
        read_pyevall_campaign(tmp_path / "gold.json", output, task=task)
    assert "gold.json" in str(caught.value) and caught.value.line is not None


def test_an_output_rank_below_one_is_refused(tmp_path):
    gold = _write(tmp_path / "gold.json", {"T1": {"i1": 1}})
    output = _write(tmp_path / "sys.json", {"T1": {"i1": 0}})
    with pytest.raises(PyEvALLFormatError, match="a rank"):
        read_pyevall_campaign(gold, output, task="ranking")
