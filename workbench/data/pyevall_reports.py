"""A campaign's results in PyEvALL's three report forms (``PyEvALLEvaluation.evaluate_lst(..., report=...)``):
``simple``, ``embedded`` and ``dataframe`` (PyEvALL 0.2.11, ``pyevall/evaluation.py`` and
``pyevall/reports/reports.py``), for users whose scripts read PyEvALL's reports.

:func:`pyevall_report` scores the campaign with the measures PyEvALL's metric names spell
(:func:`~workbench.metrics.registry.as_spelled`: ``Kappa`` is ``CohenKappa``, ``nDCG`` is ``nDCG(gain=exp)``), one
system after another as ``evaluate_lst`` takes one prediction file after another:

* ``simple``: PyEvALL's meta-report, ``{"EVALUATION_1": {"metrics": {...}, "files": {...}}, ...}`` (one entry per
  system, numbered from 1 in the campaign's order): per metric its name, acronym, status, the value of each test
  case (``test_cases``: ``name``, ``average``, and ``classes`` for Precision, Recall and FMeasure, one value per
  class of the test case's gold in order of appearance) and ``average_per_test_case``, the mean over the test cases
  by the campaign's rule (:func:`~workbench.data.campaign.means`: PyEvALL's sum over the number of test cases);
  an undefined value (NaN) is None, PyEvALL's null. Plain dicts, lists, strings and floats: ``json.dumps`` writes it.
* ``embedded``: the same, with the descriptions PyEvALL embeds (``pyevall/utils/pyevall_keys_texts_reports.rep``).
* ``dataframe``: :class:`PyEvALLTables`, PyEvALL's three tables. PyEvALL 0.2.11 builds them only for a file of one
  test case (with two or more its ``generate_df_test_case`` tests a DataFrame for truth and raises ValueError);
  here they hold every test case: ``average`` one row per system (``files`` its file name), ``test_cases`` one row
  per (system, test case) in that order (``files`` = file name + ``_`` + test case, PyEvALL's label), ``classes``
  the same rows with a column ``<acronym>_<class>`` per class of the per-class metrics (None when no metric asked
  reports classes). Values are floats, NaN where PyEvALL prints ``-`` (PyEvALL's average table holds the numbers
  as text).

What differs from PyEvALL's own reports, and why: the ``files`` section says ``OK``, or PyEvALL's warning that a
TSV or CSV file was converted, and never an error, since a file the workbench cannot read is refused when the
campaign is read (:func:`~workbench.data.pyevall.read_pyevall`, naming the file and the line) rather than reported;
a test case that fails one of PyEvALL's preconditions (CohenKappa of a gold and an output of one and the same class)
is an undefined value (None) with the metric's status ``OK``, and the test cases after it keep their values, where
PyEvALL stops the metric (status ``FAIL``, a ``preconditions`` section, no later test case and no average: in its
tables, no column in the test-case table); ICMNorm of a gold whose own ICM is 0 is None, where PyEvALL 0.2.11
raises ZeroDivisionError; PyEvALL's warnings (a hierarchy a metric ignores, tied values in a ranking) are not
repeated (the metric's status stays ``OK``, its values are PyEvALL's).

    >>> import pathlib, tempfile
    >>> from workbench.data.pyevall import read_pyevall_campaign
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gold.tsv").write_text("T1\\ti1\\tA\\nT1\\ti2\\tB\\n")
    >>> _ = (folder / "sys1.tsv").write_text("T1\\ti1\\tA\\nT1\\ti2\\tA\\n")
    >>> campaign = read_pyevall_campaign(folder / "gold.tsv", [folder / "sys1.tsv"])
    >>> report = pyevall_report(campaign, ["Accuracy", "Precision"], files={"sys1": folder / "sys1.tsv"})
    >>> report["EVALUATION_1"]["metrics"]["Precision"]["results"]
    {'test_cases': [{'name': 'T1', 'classes': {'A': 0.5, 'B': None}, 'average': 0.5}], 'average_per_test_case': 0.5}
    >>> report["EVALUATION_1"]["files"]["sys1.tsv"]["errors"]
    {'FORMAT_TSV_FORMAT_IDENTIFIED_WARNING': {'description': 'Use parameter: report="embedded"!', 'status': 'CONTINUE'}}
    >>> pyevall_report(campaign, ["Accuracy"], "dataframe", files={"sys1": folder / "sys1.tsv"}).test_cases
             files  Acc
    0  sys1.tsv_T1  0.5
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, cast

import pandas as pd

from workbench.data.campaign import Campaign, means
from workbench.data.pyevall import read_format
from workbench.metrics.registry import Measure, as_spelled, bind
from workbench.model.labelling import Labelling
from workbench.reading.sources import file_path
from workbench.validation import Choices, FilePath, Flag, Instance, ListOf, MappingOf, Text, validate

__all__ = ["METRIC", "PYEVALL_METRICS", "REPORT_FORMS", "MetricName", "PyEvALLTables", "pyevall_report"]

REPORT_FORMS = ("simple", "embedded", "dataframe")
"""PyEvALL's ``report`` options (``PyEvALLUtils.PARAM_OPTION_REPORT_*``)."""

PYEVALL_METRICS: dict[str, tuple[str, str]] = {
    "Accuracy": ("Accuracy", "Acc"), "SystemPrecision": ("System Precision", "SP"),
    "Kappa": ("Cohen's Kappa", "Kappa"), "Precision": ("Precision", "Pr"), "Recall": ("Recall", "Re"),
    "FMeasure": ("F-Measure", "F1"), "ICM": ("Information Contrast model", "ICM"),
    "ICMNorm": ("Normalized Information Contrast Model", "ICM-Norm"),
    "ICMSoft": ("Information Contrast Model Soft", "ICM-Soft"),
    "ICMSoftNorm": ("Normalized Information Contrast Model Soft", "ICM-Soft-Norm"),
    "CrossEntropy": ("Cross Entropy", "CE"), "MAE": ("Mean Absolute Error", "MAE"),
    "PrecisionAtK": ("Precision at k", "P@k"), "RPrecision": ("R Precision", "RPre"),
    "MRR": ("Mean Reciprocal Rank", "MRR"), "MAP": ("Mean Average Precision", "MAP"),
    "DCG": ("Discounted Cumulative Gain", "DCG"), "nDCG": ("Normalized Discounted Cumulative Gain", "nDCG"),
    "ERR": ("Expected Reciprocal Rank", "ERR"), "RBP": ("Rank Biased Precision", "RBP"),
    "Purity": ("Purity", "Pur"), "InversePurity": ("Inverse Purity", "InPur"),
    "FMeasurePurityInversePurity": ("F Measure", "F(P, I)"), "FMeasureClustering": ("F Measure", "F(P, R)"),
    "RandStatistics": ("Rand Statistics", "RandS"), "Jaccard": ("Jaccard", "JACC"),
    "FolkesAndMallows": ("Folkes and Mallows", "Folk"), "NMI-SG": ("Normalized Mutual Information SG", "NMI-SG"),
    "ReliabilityBCubed": ("Reliability", "R"), "SensitivityBCubed": ("Sensitivity", "S"),
    "Entropy": ("Entropy", "E"), "ClassEntropy": ("Class Entropy", "CE"),
}
"""PyEvALL 0.2.11's metric names (``MetricFactory``) that the registry spells, each with the name and acronym its
report prints (``pyevall/metrics/metrics.py``, each metric's ``__init__``)."""

Source = str | PathLike


class MetricName(Choices):
    """The domain of a PyEvALL metric name: a key of :data:`PYEVALL_METRICS`, named short in a refusal.

    >>> METRIC.reason("Accuracy") is None, METRIC.reason("VariationOfInformation")
    (True, "must be one of PyEvALL's metric names that the registry spells (PYEVALL_METRICS: Accuracy, ...)")
    """

    def __str__(self) -> str:
        return f"one of PyEvALL's metric names that the registry spells (PYEVALL_METRICS: {self.values[0]}, ...)"


METRIC = MetricName(tuple(PYEVALL_METRICS))
"""The domain of each of :func:`pyevall_report`'s ``metrics``."""
_PER_CLASS = ("Precision", "Recall", "FMeasure")
"""The metrics whose report holds a value per class of the test case's gold."""
_COMING_SOON = "Coming soon!"  # PyEvALL's description of every metric
_NO_DESCRIPTION = 'Use parameter: report="embedded"!'  # a description outside the embedded form
# PyEvALL's texts (pyevall/utils/pyevall_keys_texts_reports.rep), whose "\\n" are a backslash and an n
_FILE_NAME = "\\nFile name: {name}."
_FILE_READ = "The file is correctly parser without errors or warnings." + _FILE_NAME
_FILE_WARNED = "The file contains errors or warnings, please review them." + _FILE_NAME
_CONVERTED = "PyEvALL has identified a {format} format and has converted it to json." + _FILE_NAME + \
    "\\nThe evaluation CONTINUE."


@dataclass(frozen=True)
class PyEvALLTables:
    """PyEvALL's ``dataframe`` report: ``average`` (a row per system), ``test_cases`` (a row per system and test
    case), ``classes`` (the same rows, a column per metric and class; None without a per-class metric)."""

    average: pd.DataFrame
    test_cases: pd.DataFrame
    classes: pd.DataFrame | None


def _value(value: float) -> float | None:
    """PyEvALL's value: None (JSON null) for an undefined one."""
    return None if math.isnan(value) else float(value)


def _classes(campaign: Campaign, system: str, topic: str, measure: Measure) -> dict[str, float | None]:
    """The measure of each class of the topic's gold, in order of appearance (PyEvALL's ``get_classes_gold``)."""
    gold, output = cast(Labelling, campaign.gold[topic]), campaign.runs[system][topic]  # a classification campaign
    return {label: _value(bind(measure.spec, {**measure.params, "label": label})(gold, output))
            for label in gold.labels()}


def _file(path: Source | None, default: str, is_gold: bool, embedded: bool) -> tuple[str, dict[str, Any]]:
    """A file's name and section: ``OK``, or a ``WARNING`` that PyEvALL converted TSV or CSV to JSON."""
    name, format = (default, "json") if path is None else (Path(file_path(path)).name, read_format(path))
    section: dict[str, Any] = {"name": name, "status": "OK", "gold": is_gold,
                               "description": _FILE_READ.format(name=name) if embedded else _NO_DESCRIPTION,
                               "errors": {}}
    if format != "json":
        section["status"] = "WARNING"
        section["description"] = _FILE_WARNED.format(name=name) if embedded else _NO_DESCRIPTION
        section["errors"][f"FORMAT_{format.upper()}_FORMAT_IDENTIFIED_WARNING"] = {
            "description": _CONVERTED.format(format=format, name=name) if embedded else _NO_DESCRIPTION,
            "status": "CONTINUE"}
    return name, section


@validate(campaign=Instance((Campaign,), "a Campaign (read_pyevall_campaign)"),
          metrics=ListOf(METRIC, shortest=1, what="a list of PyEvALL's metric names"),
          form=Choices(REPORT_FORMS),
          files=MappingOf(Text(), FilePath(), optional=True, what="a mapping system → its file"),
          gold=FilePath(optional=True), progress=Flag())
def pyevall_report(campaign: Campaign, metrics: Sequence[str], form: str = "simple", *,
                   files: Mapping[str, Source] | None = None, gold: Source | None = None,
                   progress: bool = True) -> dict[str, Any] | PyEvALLTables:
    """The campaign's results in PyEvALL's report ``form`` (:data:`REPORT_FORMS`) for PyEvALL's ``metrics``
    (``["Accuracy", "Precision"]``, as ``evaluate_lst`` takes them). ``files`` (``{system: path}``) and ``gold``
    are the files the campaign was read from: the report names each by its file name and says, as PyEvALL does,
    that a TSV or CSV file was converted (:func:`~workbench.data.pyevall.read_format`); without them a system is
    named by itself, the gold standard ``gold``, both JSON. The test cases of a system are the gold's that its
    output holds (PyEvALL's common test cases). ``progress`` shows the campaign's progress bar while it scores
    (:meth:`~workbench.data.campaign.Campaign.evaluate`). See the module docstring for the layout."""
    measures = {metric: as_spelled(metric, "pyevall") for metric in metrics}
    results = campaign.evaluate(list(measures.values()), missing_topics="skip", extra_topics="ignore",
                                progress=progress)
    averages = {(row.system, row.measure): row.value for row in means(results).itertuples(index=False)}
    values = {(row.system, row.topic, row.measure): row.value for row in results.itertuples(index=False)}
    embedded = form == "embedded"
    gold_name, gold_section = _file(gold, "gold", True, embedded)
    sections = {system: _file((files or {}).get(system), system, False, embedded) for system in campaign.runs}
    report: dict[str, Any] = {}
    for number, system in enumerate(campaign.runs, start=1):
        topics = [topic for topic in campaign.gold if topic in campaign.runs[system]]
        section = {}
        for metric, measure in measures.items():
            cases = []
            for topic in topics:
                case: dict[str, Any] = {"name": topic}
                if metric in _PER_CLASS and campaign.kind == "classification":
                    case["classes"] = _classes(campaign, system, topic, measure)
                case["average"] = _value(values[system, topic, str(measure)])
                cases.append(case)
            name, acronym = PYEVALL_METRICS[metric]
            section[metric] = {"name": name, "acronym": acronym, "description": _COMING_SOON, "status": "OK",
                               "results": {"test_cases": cases, "average_per_test_case":
                                           _value(averages[system, str(measure)]) if cases else None}}
        name, file_section = sections[system]
        report[f"EVALUATION_{number}"] = {"metrics": section, "files": {name: file_section,
                                                                          gold_name: gold_section}}
    return _tables(report, [name for name, _ in sections.values()]) if form == "dataframe" else report


def _tables(report: Mapping[str, Any], names: Sequence[str]) -> PyEvALLTables:
    """PyEvALL's three tables of a report (``PyEvALLDataframeReport``), every test case of every system."""
    average, cases, classes = [], [], []
    for evaluation, file in zip(report.values(), names, strict=True):
        sections = evaluation["metrics"].values()
        average.append({"files": file, **{m["acronym"]: _number(m["results"]["average_per_test_case"])
                                          for m in sections}})
        for index, case in enumerate(next(iter(sections))["results"]["test_cases"]):
            label = f"{file}_{case['name']}"
            cases.append({"files": label, **{m["acronym"]: _number(m["results"]["test_cases"][index]["average"])
                                             for m in sections}})
            per_class = {f"{m['acronym']}_{c}": _number(v) for m in sections
                         for c, v in m["results"]["test_cases"][index].get("classes", {}).items()}
            classes.append({"files": label, **per_class})
    with_classes = any(len(row) > 1 for row in classes)
    return PyEvALLTables(pd.DataFrame(average), pd.DataFrame(cases), pd.DataFrame(classes) if with_classes else None)


def _number(value: float | None) -> float:
    """A report's value as a table's number: NaN for None (PyEvALL's ``-``)."""
    return math.nan if value is None else value
