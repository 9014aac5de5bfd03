"""A measure asked of a campaign whose kind it does not fit (issue 43 item 2): a classification campaign refuses
it, naming the measure PyEvALL means by the name; a ranking campaign scores it with a warning naming the measure
ir_measures means (its ranking ``Accuracy`` is ``PairwiseAccuracy``: every value of the filtering Accuracy
differs from it)."""

from __future__ import annotations

import json
import warnings

import pytest

from workbench.data.campaign import FITTING_TASKS, KINDS, Campaign, MeasureKindWarning
from workbench.data.pyevall import read_pyevall_campaign
from workbench.errors import CampaignError
from workbench.metrics.registry import specs
from workbench.model import Organization

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d4": 1, "d5": 0}}
RUNS = {"bm25": {"q1": {"d1": 0.9, "d3": 0.5, "d2": 0.1}, "q2": {"d5": 2.0, "d4": 1.0}}}


@pytest.fixture
def classification(tmp_path):
    gold, output = tmp_path / "gold.json", tmp_path / "sys.json"
    gold.write_text(json.dumps([{"test_case": "T1", "id": i, "value": v} for i, v in (("1", "A"), ("2", "B"))]))
    output.write_text(json.dumps([{"test_case": "T1", "id": "1", "value": "A"}]))
    return read_pyevall_campaign(gold, output)


def test_every_declared_task_fits_some_kind():
    assert set(FITTING_TASKS) == set(KINDS)
    assert {spec.task for spec in specs()} <= set(FITTING_TASKS["organization"])


def test_a_users_own_task_fits_every_campaign(classification):
    from workbench.metrics.registry import registered

    with registered("half", lambda gold, output: 0.5, task="my task", source="a notebook"), \
            warnings.catch_warnings():
        warnings.simplefilter("error", MeasureKindWarning)
        assert Campaign.from_dicts(QRELS, RUNS).evaluate(["half"], progress=False).value.tolist() == [0.5, 0.5]


def test_the_kinds_of_campaigns(classification):
    assert Campaign.from_dicts(QRELS, RUNS).kind == "ranking"
    assert classification.kind == "classification"
    assert Campaign({"q": Organization.parse("d1")}, {"s": {"q": Organization.parse("d1")}}).kind == "organization"


def test_ir_measures_accuracy_on_a_ranking_campaign_is_warned_naming_pairwise_accuracy():
    campaign = Campaign.from_dicts(QRELS, RUNS)
    with pytest.warns(MeasureKindWarning, match="ir_measures' Accuracy is PairwiseAccuracy here"):
        results = campaign.evaluate(["Accuracy", "PairwiseAccuracy"], progress=False)
    values = results.pivot(index="topic", columns="measure", values="value")
    # by hand: q1 (d1 d3 d2 retrieved, d1 d2 relevant) filtering Accuracy 2/3, pairwise 1/2; q2: 1/2 and 0
    assert values["Accuracy"].tolist() == pytest.approx([2 / 3, 1 / 2])
    assert values["PairwiseAccuracy"].tolist() == pytest.approx([1 / 2, 0.0])


def test_a_clustering_measure_on_a_ranking_campaign_is_warned_and_ranking_measures_are_not():
    campaign = Campaign.from_dicts(QRELS, RUNS)
    with pytest.warns(MeasureKindWarning, match="'Purity' is the clustering measure Purity"):
        campaign.evaluate(["Purity"], progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", MeasureKindWarning)
        campaign.evaluate(["AP", "PairwiseAccuracy", "R≺(n=10, wn=0.8)"], progress=False)


@pytest.mark.parametrize(("asked", "meant"), [("Accuracy", "Acc"), ("Kappa", "CohenKappa"), ("Precision", "Pr"),
                                              ("Recall", "Re")])
def test_a_classification_campaign_refuses_another_tasks_measure_naming_pyevalls(classification, asked, meant):
    with pytest.raises(CampaignError, match=f"pyevall's {asked} is {meant} here: ask for {meant}"):
        classification.evaluate([asked], progress=False)


@pytest.mark.parametrize("asked", ["AP", "Purity", "R≺(n=10, wn=0.8)"])
def test_a_classification_campaign_refuses_measures_no_peer_means_there(classification, asked):
    with pytest.raises(CampaignError, match="does not fit a classification campaign"):
        classification.evaluate([asked], progress=False)
