"""EvALL's and PyEvALL's Entropy, Class Entropy and clustering F-measure (issue 43 item 8): hand-computed cases,
the conditional entropies against scikit-learn's (H(L|C) = H(L)·(1 − homogeneity)), and PyEvALL 0.2.11 itself on
random partitions (its files: a clustering value is the list of an item's clusters)."""

from __future__ import annotations

import json
import math
import random

import pytest

from tests.conftest import reference_module
from workbench import evaluate
from workbench.metrics.clustering import cluster_disorder, clustering_f, contingency_from_labels
from workbench.metrics.registry import parse
from workbench.model import Organization

LOG2 = math.log2


def test_hand_computed_case():
    """Classes 0 0 1 1, clusters a a a b: cluster a holds 2 of class 0 and 1 of class 1."""
    c = contingency_from_labels([0, 0, 1, 1], ["a", "a", "a", "b"])
    assert cluster_disorder(c) == pytest.approx(-(3 / 4) * (2 / 3 * LOG2(2 / 3) + 1 / 3 * LOG2(1 / 3)))
    assert cluster_disorder(c, "classes") == pytest.approx(-(2 / 4) * (2 * 0.5 * LOG2(0.5)))
    # PyEvALL's joint reading: −Σ_i (a_i/N) Σ_j (n_ij/N) log2(n_ij/N)
    assert cluster_disorder(c, probability="joint") == pytest.approx(
        -(3 / 4) * (2 / 4 * LOG2(2 / 4) + 1 / 4 * LOG2(1 / 4)) - (1 / 4) * (1 / 4 * LOG2(1 / 4)))
    assert cluster_disorder(c, "classes", "joint") == pytest.approx(
        -(2 / 4) * (2 / 4 * LOG2(2 / 4)) - (2 / 4) * (2 * 1 / 4 * LOG2(1 / 4)))
    # class 0: best cluster a (P 2/3, R 1: F 0.8); class 1: cluster b (P 1, R 1/2: F 2/3)
    assert clustering_f(c) == pytest.approx(0.5 * 0.8 + 0.5 * 2 / 3)


def test_a_perfect_clustering_has_no_disorder_and_f_one():
    gold = Organization.from_clustering([["d1", "d2"], ["d3"]])
    values = evaluate(gold, gold, ["Entropy", "ClassEntropy", "Entropy(probability=joint)", "ClusteringF"])
    assert values["Entropy"] == values["ClassEntropy"] == 0.0 and values["ClusteringF"] == 1.0
    assert values["Entropy(probability=joint)"] > 0  # PyEvALL's joint reading is not 0 even then


def test_the_entropies_are_undefined_with_overlap_and_the_f_measure_is_not():
    gold = Organization.from_clustering([["d1", "d2"], ["d2", "d3"]])
    output = Organization.from_clustering([["d1", "d2", "d3"]])
    values = evaluate(gold, output, ["Entropy", "ClassEntropy", "ClusteringF"])
    assert math.isnan(values["Entropy"]) and math.isnan(values["ClassEntropy"])
    assert values["ClusteringF"] == pytest.approx(0.8)  # each class: P 2/3, R 1 over 4 occurrences


@pytest.mark.parametrize("seed", range(5))
def test_conditional_entropies_equal_scikit_learns(seed):
    metrics = reference_module("sklearn.metrics")
    rng = random.Random(seed)
    n = rng.randint(2, 40)
    true = [rng.randint(0, 4) for _ in range(n)]
    pred = [rng.randint(0, 5) for _ in range(n)]
    c = contingency_from_labels(true, pred)
    h_true = metrics.mutual_info_score(true, true) / math.log(2)
    h_pred = metrics.mutual_info_score(pred, pred) / math.log(2)
    homogeneity, completeness, _ = metrics.homogeneity_completeness_v_measure(true, pred)
    assert cluster_disorder(c) == pytest.approx(h_true * (1 - homogeneity), abs=1e-12)
    assert cluster_disorder(c, "classes") == pytest.approx(h_pred * (1 - completeness), abs=1e-12)


def _write(path, clusters: dict[str, list[str]]) -> None:
    path.write_text(json.dumps([{"test_case": "T1", "id": item, "value": value} for item, value in clusters.items()]))


@pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")
@pytest.mark.parametrize("seed", range(6))
def test_equal_to_pyevall_on_random_partitions(tmp_path, seed):
    """PyEvALL's Entropy and ClassEntropy are the joint readings; its FMeasureClustering the clustering F."""
    reference_module("pyevall")
    from pyevall.evaluation import PyEvALLEvaluation

    rng = random.Random(seed)
    items = [f"i{k}" for k in range(rng.randint(2, 25))]
    gold = {item: [f"L{rng.randint(0, 3)}"] for item in items}
    output = {item: [f"C{rng.randint(0, 4)}"] for item in items}
    _write(tmp_path / "gold.json", gold)
    _write(tmp_path / "output.json", output)
    metrics = {"Entropy": "Entropy(probability=joint)", "ClassEntropy": "ClassEntropy(probability=joint)",
               "FMeasureClustering": "FMeasureClustering"}
    report = PyEvALLEvaluation().evaluate(str(tmp_path / "output.json"), str(tmp_path / "gold.json"), list(metrics),
                                          log_level="none").report["metrics"]

    def organization(values):
        clusters: dict[str, list[str]] = {}
        for item, (label,) in values.items():
            clusters.setdefault(label, []).append(item)
        return Organization.from_clustering(list(clusters.values()))

    ours = evaluate(organization(gold), organization(output), list(metrics.values()))
    for metric, measure in metrics.items():
        theirs = report[metric]["results"]["test_cases"][0]["average"]
        assert ours[measure] == pytest.approx(theirs, abs=1e-12), (metric, seed)


def test_pyevalls_names_are_spellings_of_the_declared_measures():
    assert parse("FMeasureClustering") == parse("ClusteringF")
    assert parse("Entropy").spec.spellings["pyevall"] == ("Entropy (probability=joint)",)
