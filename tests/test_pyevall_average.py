"""A campaign of PyEvALL's files averages its test cases as PyEvALL does (issue 43 item 1): the sum of the defined
values over the number of test cases (PyEvALL 0.2.11, ``evaluation.py``, ``evaluate_metric``), the rule carried by
the campaign's results (``attrs["undefined"]``) to :func:`~workbench.data.campaign.means`; NaN on request.

The three test cases: T1 gold A B A, output A A A; T2 gold A B, output C C (no gold class said: macro precision
undefined); T3 gold A A, output A A (one class alike: CohenKappa fails PyEvALL's precondition)."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import reference_module
from workbench.data.campaign import Campaign, means, summaries
from workbench.data.pyevall import read_pyevall_campaign
from workbench.errors import ParameterError

GOLD = {"T1": {"1": "A", "2": "B", "3": "A"}, "T2": {"1": "A", "2": "B"}, "T3": {"1": "A", "2": "A"}}
OUTPUT = {"T1": {"1": "A", "2": "A", "3": "A"}, "T2": {"1": "C", "2": "C"}, "T3": {"1": "A", "2": "A"}}


def write(folder, name: str, values: dict) -> str:
    path = folder / f"{name}.json"
    path.write_text(json.dumps([{"test_case": tc, "id": i, "value": v} for tc, items in values.items()
                                for i, v in items.items()]))
    return str(path)


@pytest.fixture
def files(tmp_path):
    return write(tmp_path, "gold", GOLD), write(tmp_path, "sys", OUTPUT)


def test_an_undefined_test_case_counts_zero_in_the_mean_over_all_test_cases(files):
    results = read_pyevall_campaign(*files).evaluate(["Pr", "CohenKappa", "Acc"], progress=False)
    by_topic = results.set_index(["topic", "measure"]).value
    assert math.isnan(by_topic["T2", "Pr"]) and math.isnan(by_topic["T3", "CohenKappa"])
    assert results.attrs["undefined"] == {"policy": "zero"}
    averages = means(results).set_index("measure").value
    # by hand: Pr (2/3 + 0 + 1)/3; CohenKappa (0 + 0 + 0)/3 (T1: Acc 2/3, P_e 2/3); Acc (2/3 + 0 + 1)/3
    assert averages["Pr"] == pytest.approx(5 / 9) and averages["Acc"] == pytest.approx(5 / 9)
    assert averages["CohenKappa"] == 0.0


def test_the_nan_rule_on_request_from_the_reader_or_from_means(files):
    results = read_pyevall_campaign(*files, undefined="nan").evaluate(["Pr", "Acc"], progress=False)
    assert results.attrs["undefined"] == {"policy": "nan"}
    averages = means(results).set_index("measure").value
    assert math.isnan(averages["Pr"]) and averages["Acc"] == pytest.approx(5 / 9)
    zero = read_pyevall_campaign(*files).evaluate(["Pr"], progress=False)
    assert math.isnan(means(zero, undefined="nan").value.iloc[0])
    assert means(zero, wide=True).loc["sys", "Pr"] == pytest.approx(5 / 9)


def test_no_defined_test_case_leaves_the_mean_undefined_as_pyevalls_none():
    nan = float("nan")
    assert math.isnan(summaries([("s", "T1", "Pr", nan), ("s", "T2", "Pr", nan)], undefined="zero")[0][3])
    assert summaries([("s", "T1", "Pr", nan), ("s", "T2", "Pr", 0.5)], undefined="zero")[0][3] == 0.25


def test_other_campaigns_keep_the_nan_rule_and_refuse_an_unknown_one():
    from workbench.model import Organization

    campaign = Campaign({"q1": Organization.parse("d1")}, {"s": {"q1": Organization.parse("d1")}})
    assert campaign.undefined == "nan"
    assert campaign.evaluate(["Purity"], progress=False).attrs["undefined"] == {"policy": "nan"}
    with pytest.raises(ParameterError, match="undefined"):
        Campaign(campaign.gold, campaign.runs, undefined="mean")
    with pytest.raises(ParameterError, match="undefined"):
        means(campaign.evaluate(["Purity"], progress=False), undefined="skip")


@pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")
def test_the_means_equal_pyevalls_average_and_kappa_where_pyevall_stops(files):
    """PyEvALL's own report on the same files: its ``average_per_test_case`` is the workbench's mean; for Kappa it
    stops at T3 (the failed precondition) and reports no average, where the workbench scores T1 and T2 and counts T3
    as 0."""
    reference_module("pyevall")
    from pyevall.evaluation import PyEvALLEvaluation

    gold, output = files
    metrics = {"Precision": "Pr", "Accuracy": "Acc", "SystemPrecision": "SP", "Recall": "Re", "Kappa": "CohenKappa"}
    report = PyEvALLEvaluation().evaluate(output, gold, list(metrics), log_level="none").report["metrics"]
    averages = means(read_pyevall_campaign(gold, output).evaluate(list(metrics.values()), progress=False))
    mine = averages.set_index("measure").value
    for metric, measure in metrics.items():
        theirs = report[metric]["results"]["average_per_test_case"]
        if metric == "Kappa":
            assert theirs is None and report[metric]["preconditions"]
            cases = report[metric]["results"]["test_cases"]
            assert [case["name"] for case in cases] == ["T1", "T2"]
            assert mine[measure] == pytest.approx(sum(case["average"] for case in cases) / 3)
        else:
            assert mine[measure] == pytest.approx(theirs), metric
