"""PyEvALL's report forms of a campaign's results (issue 43 item 8, :mod:`workbench.data.pyevall_reports`).

``simple`` and ``embedded`` equal the reports of PyEvALL 0.2.11's ``evaluate_lst`` on the same files, and
``dataframe`` PyEvALL's tables where PyEvALL builds them (files of one test case; with more, PyEvALL 0.2.11 raises
ValueError and the workbench's tables hold the values of PyEvALL's simple report). Two ways, one generator
(:func:`random_case`: JSON, TSV and CSV files of one to three test cases, one or two systems, unanswered items, and a
gold of one class, where PyEvALL stops Kappa at its precondition and its ICMNorm divides by zero):

* PyEvALL's reports recorded in tests/data/pyevall-reports.json, which always runs, and whose recording is checked
  against the live PyEvALL where it is installed (``python -m tests.test_pyevall_reports`` records them again);
* live, on other seeds, where pyevall is installed, and on ranking and clustering files.

Where PyEvALL stops a metric at a failed precondition the report differs as documented: the test cases before it
equal, the failing one is None, the metric's status OK. (PyEvALL's own repository cases, the 25 pairs of
``test/resources/metric/test/classification/*/1`` of UNEDLENAR/PyEvALL e2bb3f1, were compared the same way while
this was written and all equal; their files are PyEvALL's data and are not copied here.)
"""

from __future__ import annotations

import functools
import json
import math
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.conftest import reference_module
from workbench.data.campaign import MissingTopicsWarning
from workbench.data.pyevall import read_pyevall_campaign
from workbench.data.pyevall_reports import PYEVALL_METRICS, PyEvALLTables, pyevall_report
from workbench.errors import ParameterError
from workbench.metrics.registry import as_spelled, specs

RECORDED = Path(__file__).with_name("data") / "pyevall-reports.json"
MONO = ["Accuracy", "SystemPrecision", "Kappa", "Precision", "Recall", "FMeasure", "ICM", "ICMNorm"]
FORMS = ("simple", "embedded", "dataframe")
RECORDED_SEEDS = range(12)

# pyevall 0.2.11 (the oracle) calls DataFrame.from_dict with a list, which pandas deprecates, once per evaluation
pytestmark = pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")


def random_case(seed: int) -> dict:
    """Gold and output files of one seed: every test case's gold holds each class A B C (PyEvALL's ICM keeps one
    test case's class probabilities for the next, so that a class a test case's gold lacks would score as the
    workbench does not: see workbench.data.pyevall), outputs say those classes and leave some items out; seed 0
    holds a test case of one class alike between two others."""
    rng = random.Random(seed)
    format = ("json", "tsv", "csv")[seed % 3]
    if seed == 0:  # T2: one class alike, where PyEvALL stops Kappa (its T3 is left out) and ICMNorm divides by 0
        gold = {"T1": {"i1": "A", "i2": "B", "i3": "C", "i4": "A"}, "T2": {"i1": "A", "i2": "A", "i3": "A"},
                "T3": {"i1": "C", "i2": "B", "i3": "A", "i4": "B"}}
        outputs = {"s1": {"T1": {"i1": "A", "i2": "C", "i3": "C", "i4": "B"}, "T2": {"i1": "A", "i2": "A", "i3": "A"},
                          "T3": {"i1": "C", "i2": "A", "i4": "B"}}}
    else:
        gold = {}
        for case in range(1 if seed % 2 else rng.randint(2, 3)):
            labels = ["A", "B", "C"] + [rng.choice("ABC") for _ in range(rng.randint(0, 6))]
            rng.shuffle(labels)
            gold[f"T{case}"] = {f"i{k}": label for k, label in enumerate(labels)}
        outputs = {f"s{n}": {case: {item: rng.choice("ABC") for item in items if rng.random() < 0.85}
                             for case, items in gold.items()} for n in range(1, rng.randint(1, 2) + 1)}
    extension = "txt" if format != "json" else "json"
    return {"seed": seed, "metrics": MONO,
            "gold": {"name": f"gold.{extension}", "text": file_text(gold, format)},
            "outputs": [{"name": f"{system}.{extension}", "text": file_text(values, format)}
                        for system, values in outputs.items()]}


def file_text(values: dict[str, dict[str, str]], format: str) -> str:
    """PyEvALL's file of ``{test case: {id: class}}``: a JSON array of records, or TSV/CSV with its header."""
    rows = [(case, item, value) for case, items in values.items() for item, value in items.items()]
    if format == "json":
        return json.dumps([{"test_case": case, "id": item, "value": value} for case, item, value in rows])
    delimiter = "\t" if format == "tsv" else ","
    return "".join(delimiter.join(row) + "\n" for row in [("test_case", "id", "value"), *rows])


def write_case(folder: Path, case: dict) -> tuple[str, list[str]]:
    """The case's gold and output files, under their names, in ``folder``."""
    for file in (case["gold"], *case["outputs"]):
        (folder / file["name"]).write_text(file["text"], encoding="utf-8")
    return str(folder / case["gold"]["name"]), [str(folder / f["name"]) for f in case["outputs"]]


def pyevalls(outputs: list[str], gold: str, metrics: list[str], form: str) -> Any:
    """PyEvALL's ``evaluate_lst`` report of ``form``: a dict, the three tables as lists of records, or the error
    its dataframe form raises."""
    from pyevall.evaluation import PyEvALLEvaluation

    try:
        report = PyEvALLEvaluation().evaluate_lst(outputs, gold, metrics, report=form, log_level="none")
    except ValueError as error:  # its dataframe form, with two test cases or more
        return {"raises": f"{type(error).__name__}: {error}"}
    if form != "dataframe":
        return report.report
    return {name: None if frame is None else frame.astype(object).where(frame.notna(), None).to_dict("records")
            for name, frame in (("average", report.df_average), ("test_cases", report.df_test_case),
                                ("classes", report.df_test_case_classes))}


def metrics_of(outputs: list[str], gold: str) -> list[str]:
    """MONO, less ICMNorm where PyEvALL 0.2.11's ICMNorm divides by zero (a gold whose own ICM is 0)."""
    try:
        pyevalls(outputs, gold, ["ICMNorm"], "simple")
    except ZeroDivisionError:
        return [metric for metric in MONO if metric != "ICMNorm"]
    return MONO


def same(ours: Any, theirs: Any) -> bool:
    """Equal, numbers to 1e-12 (PyEvALL sums in its own order), None alike."""
    if isinstance(theirs, dict):
        return isinstance(ours, dict) and list(ours) == list(theirs) and all(same(ours[k], theirs[k]) for k in theirs)
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(same, ours, theirs))
    if isinstance(theirs, float) and not isinstance(theirs, bool):
        return isinstance(ours, float) and math.isclose(ours, theirs, rel_tol=1e-12, abs_tol=1e-12)
    return ours == theirs


def assert_report(ours: dict, theirs: dict) -> None:
    """Our report is PyEvALL's, but where PyEvALL stopped a metric at a failed precondition (documented)."""
    assert list(ours) == list(theirs)
    for evaluation, expected in theirs.items():
        mine = ours[evaluation]
        assert same(mine["files"], expected["files"]), (mine["files"], expected["files"])
        assert list(mine["metrics"]) == list(expected["metrics"])
        for metric, section in expected["metrics"].items():
            got = mine["metrics"][metric]
            if "preconditions" not in section:
                assert same(got, section), (metric, got, section)
                continue
            assert got["status"] == "OK" and (got["name"], got["acronym"]) == (section["name"], section["acronym"])
            if section["status"] == "WARNING":  # a warning PyEvALL's checks give (tied ranks): not repeated here
                assert same(got["results"], section["results"]), (metric, got, section)
                continue
            assert section["status"] == "FAIL"
            done = section["results"]["test_cases"]
            assert same(got["results"]["test_cases"][:len(done)], done)
            assert got["results"]["test_cases"][len(done)]["average"] is None


def assert_tables(ours: PyEvALLTables, theirs: dict, simple: dict) -> None:
    """Our tables are PyEvALL's (whose ``-``, text, is NaN here, whose average table holds text, and which has no
    column for a metric it stopped), or where PyEvALL raises, the values of its simple report."""
    if "raises" in theirs:
        assert "ambiguous" in theirs["raises"]
        rows = [(f"{next(iter(evaluation['files']))}_{case['name']}", case)  # the prediction file comes first
                for evaluation in simple.values()
                for case in evaluation["metrics"]["Recall"]["results"]["test_cases"]]
        assert ours.test_cases["files"].tolist() == [label for label, _ in rows]
        assert ours.test_cases["Re"].tolist() == pytest.approx([case["average"] for _, case in rows])
        assert ours.classes["Re_A"].tolist() == pytest.approx([case["classes"]["A"] for _, case in rows])
        assert ours.average["Acc"].tolist() == pytest.approx(
            [e["metrics"]["Accuracy"]["results"]["average_per_test_case"] for e in simple.values()])
        return
    for name in ("average", "test_cases", "classes"):
        mine, expected = getattr(ours, name), theirs[name]
        if expected is None:
            assert mine is None, name
            continue
        expected = pd.DataFrame(expected).replace("-", math.nan)
        stopped = [column for column in mine.columns if column not in expected.columns]
        assert mine[stopped].isna().all().all(), name
        mine = mine.drop(columns=stopped)
        assert list(mine.columns) == list(expected.columns), name
        assert mine["files"].tolist() == expected["files"].tolist()
        numbers = expected.drop(columns="files").astype(float)
        pd.testing.assert_frame_equal(mine.drop(columns="files"), numbers, check_dtype=False, rtol=1e-12)


def assert_case(folder: Path, case: dict, theirs: dict) -> None:
    """The workbench's three reports of the case's files are PyEvALL's (``theirs``: form → its report)."""
    gold, outputs = write_case(folder, case)
    campaign = read_pyevall_campaign(gold, outputs)
    for form in FORMS:
        report = pyevall_report(campaign, case["metrics"], form, files={Path(o).stem: o for o in outputs}, gold=gold)
        if form == "dataframe":
            assert_tables(report, theirs[form], theirs["simple"])
        else:
            assert_report(report, theirs[form])


@functools.cache
def recorded() -> list[dict]:
    """The recorded cases, read once (no test changes them)."""
    return json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("index", RECORDED_SEEDS)
def test_the_reports_equal_pyevalls_recorded_reports(tmp_path, index):
    case = recorded()[index]
    assert_case(tmp_path, case, case["pyevall"])


def test_the_recorded_cases_hold_what_they_test():
    cases = recorded()
    assert [case["seed"] for case in cases] == list(RECORDED_SEEDS)
    simple = [c["pyevall"]["simple"] for c in cases]
    assert any("preconditions" in m for s in simple for e in s.values() for m in e["metrics"].values())
    assert any("raises" in c["pyevall"]["dataframe"] for c in cases)
    assert any(len(c["outputs"]) > 1 and "raises" not in c["pyevall"]["dataframe"] for c in cases)
    assert any("ICMNorm" not in c["metrics"] for c in cases)
    assert {c["gold"]["text"][0] for c in cases} == {"[", "t"}  # JSON, and TSV and CSV with their header
    assert any("," in c["gold"]["text"].split("\n")[0] for c in cases)


def test_the_recorded_reports_are_pyevalls(tmp_path):
    reference_module("pyevall")
    for case in recorded():
        gold, outputs = write_case(tmp_path, case)
        for form in FORMS:
            assert same(pyevalls(outputs, gold, case["metrics"], form), case["pyevall"][form]), (case["seed"], form)


@pytest.mark.parametrize("seed", [101, 102, 103])
def test_a_random_campaign_reports_as_pyevall_live(tmp_path, seed):
    reference_module("pyevall")
    case = random_case(seed)
    gold, outputs = write_case(tmp_path, case)
    assert_case(tmp_path, case, {form: pyevalls(outputs, gold, MONO, form) for form in FORMS})


TASK_FILES = {  # gold and output values of two test cases: grades and ranks, lists of clusters
    "ranking": ({"T1": {"a": 2, "b": 0, "c": 1, "d": 1}, "T2": {"a": 1, "e": 0}},
                {"T1": {"b": 1, "a": 2, "c": 3, "x": 4}, "T2": {"e": 1, "a": 2}}),
    "clustering": ({"T1": {"a": ["L1"], "b": ["L1"], "c": ["L2"], "d": ["L2"], "e": ["L3"]},
                    "T2": {"a": ["L1"], "b": ["L2"], "c": ["L2"]}},
                   {"T1": {"a": ["C1"], "b": ["C2"], "c": ["C2"], "d": ["C2"], "e": ["C3"]},
                    "T2": {"a": ["C1"], "b": ["C1"], "c": ["C2"]}})}


@pytest.mark.parametrize("task", TASK_FILES)
def test_ranking_and_clustering_campaigns_report_as_pyevall_live(tmp_path, task):
    """PyEvALL's ranking and clustering files, every metric of the task (no classes in these reports)."""
    reference_module("pyevall")
    gold, output = tmp_path / "gold.json", tmp_path / "sys.json"
    for path, values in zip((gold, output), TASK_FILES[task], strict=True):
        path.write_text(json.dumps([{"test_case": case, "id": item, "value": value}
                                    for case, items in values.items() for item, value in items.items()]))
    metrics = [metric for metric in PYEVALL_METRICS if as_spelled(metric, "pyevall").spec.task == task]
    campaign = read_pyevall_campaign(gold, [output], task=task)
    for form in ("simple", "embedded"):
        ours = pyevall_report(campaign, metrics, form, files={"sys": output}, gold=gold, progress=False)
        assert_report(ours, pyevalls([str(output)], str(gold), metrics, form))


def test_several_test_cases_and_systems_by_hand(tmp_path):
    """T1 gold A B A, T2 gold A B; s1 says A A A and A A, s2 says B B B and lacks T2 (no test case of its
    report): Accuracy s1 (2/3 + 1/2)/2 = 7/12, s2 1/3; Precision of s1 on T1: A 2/3, B never said (None)."""
    gold, s1, s2 = (tmp_path / "gold.json", tmp_path / "s1.json", tmp_path / "s2.json")
    gold.write_text(file_text({"T1": {"1": "A", "2": "B", "3": "A"}, "T2": {"1": "A", "2": "B"}}, "json"))
    s1.write_text(file_text({"T1": {"1": "A", "2": "A", "3": "A"}, "T2": {"1": "A", "2": "A"}}, "json"))
    s2.write_text(file_text({"T1": {"1": "B", "2": "B", "3": "B"}}, "json"))
    campaign = read_pyevall_campaign(gold, [s1, s2])
    with pytest.warns(MissingTopicsWarning, match="'s2' lacks 1 gold topic"):
        report = pyevall_report(campaign, ["Accuracy", "Precision"])
    accuracy = report["EVALUATION_1"]["metrics"]["Accuracy"]
    assert accuracy["results"]["average_per_test_case"] == pytest.approx(7 / 12)
    assert [case["name"] for case in report["EVALUATION_2"]["metrics"]["Accuracy"]["results"]["test_cases"]] == ["T1"]
    assert report["EVALUATION_2"]["metrics"]["Accuracy"]["results"]["average_per_test_case"] == pytest.approx(1 / 3)
    t1 = report["EVALUATION_1"]["metrics"]["Precision"]["results"]["test_cases"][0]
    assert t1["classes"] == {"A": pytest.approx(2 / 3), "B": None}
    assert report["EVALUATION_1"]["files"]["s1"]["description"] == 'Use parameter: report="embedded"!'
    assert list(report["EVALUATION_2"]["files"]) == ["s2", "gold"]
    with pytest.warns(MissingTopicsWarning):
        tables = pyevall_report(campaign, ["Accuracy", "Precision"], "dataframe")
    assert tables.test_cases["files"].tolist() == ["s1_T1", "s1_T2", "s2_T1"]
    assert list(tables.classes.columns) == ["files", "Pr_A", "Pr_B"]
    assert tables.average.set_index("files")["Acc"].tolist() == pytest.approx([7 / 12, 1 / 3])


def test_every_pyevall_metric_the_registry_spells_has_its_names_and_back():
    spelled = {s.partition(" (")[0] for spec in specs() for s in spec.spellings.get("pyevall", ())}
    assert spelled == set(PYEVALL_METRICS)
    assert all(as_spelled(metric, "pyevall") for metric in PYEVALL_METRICS)


def test_a_bad_form_or_metric_is_refused_naming_it(tmp_path):
    case = random_case(1)
    campaign = read_pyevall_campaign(*write_case(tmp_path, case))
    with pytest.raises(ParameterError, match="form"):
        pyevall_report(campaign, ["Accuracy"], "table")
    with pytest.raises(ParameterError, match="PyEvALL's metric names"):
        pyevall_report(campaign, ["VariationOfInformation"])


def record() -> None:
    """Write PyEvALL's three reports of the cases of :data:`RECORDED_SEEDS` to tests/data/pyevall-reports.json."""
    import tempfile

    cases = []
    for seed in RECORDED_SEEDS:
        case = random_case(seed)
        with tempfile.TemporaryDirectory() as folder:
            gold, outputs = write_case(Path(folder), case)
            case["metrics"] = metrics_of(outputs, gold)
            case["pyevall"] = {form: pyevalls(outputs, gold, case["metrics"], form) for form in FORMS}
        cases.append(case)
    lines = ",\n".join(json.dumps(case, ensure_ascii=False) for case in cases)  # a case a line
    RECORDED.write_text(f'{{"pyevall": "0.2.11", "cases": [\n{lines}\n]}}\n', encoding="utf-8")


if __name__ == "__main__":
    record()
