"""PyEvALL's files (gold standards and system outputs of classification tasks) read into a :class:`Campaign`.

PyEvALL (Carrillo-de-Albornoz et al., UNED; https://github.com/UNEDLENAR/PyEvALL) reads a JSON array of records
``{"test_case": ..., "id": ..., "value": ...}``, or the same three columns as TSV or CSV (with or without the
header ``test_case id value``). A value is a class (mono-label), a list of classes (multi-label) or an object
of weights per class (soft labels); a class hierarchy is a separate nested dict (:func:`read_hierarchy`).

**A test case is a topic.** PyEvALL evaluates each test case on its own (its gold alone gives ICM's information
content, its classes the macro averages) and averages the test cases, which is what a campaign does with its
topics: ``read_pyevall_campaign(gold, outputs).evaluate(measures)`` gives one row per (system, test case), and
:func:`~workbench.data.campaign.means` the average over test cases.

**The average is PyEvALL's.** PyEvALL 0.2.11 (``evaluation.py``, ``evaluate_metric``) divides the sum of the
defined values by the number of test cases, so an undefined test case (PyEvALL's None, NaN here) counts 0. A
campaign read here carries that rule (``undefined="zero"``, kept in its results' ``attrs["undefined"]``), and
:func:`~workbench.data.campaign.means` applies it: the mean is NaN only when no test case is defined, as PyEvALL's.
``undefined="nan"`` (here or in ``means``) makes any undefined test case leave the mean undefined. A test case an
output lacks is no test case of PyEvALL's average (it compares the test cases both files hold): score with
``missing_topics="skip"`` for PyEvALL's mean of such an output.

**Preconditions.** PyEvALL stops a metric at the first test case that fails one of its preconditions (CohenKappa
of an output that answers nothing, or of a gold and an output of one and the same class over the same items): the
report gives no average, and no value for the test cases after it. Here each test case is scored on its own: the
failing one is NaN (undefined), every other keeps its value, and the mean counts the NaN as 0 (or is NaN with
``undefined="nan"``). Each output file is a system (named by its
file's stem unless given as ``{system: path}``); a test case an output lacks is a missing topic (the campaign's
``missing_topics`` policy), and an item of a test case that the output leaves out is unanswered. (PyEvALL 0.2.11
reuses one metric object over the test cases of a file, so that ICM's class probabilities of one test case stay
for the next: a class a test case's gold lacks takes an earlier test case's probability. Here each topic's
information content comes from its own gold only, as PyEvALL gives it for a file of one test case.)

Files are read through the reading layer (:mod:`workbench.reading`: UTF-8 with or without a byte-order mark,
JSON within its limits, quotes that close on their line) in time proportional to the file. Validation (PyEvALL's
rules, every refusal a :class:`~workbench.model.labelling.LabellingError` naming the file, the line and the
item):

* an id given twice in a test case (:class:`~workbench.model.labelling.RepeatedIdError`): PyEvALL refuses it
  in a gold standard and keeps the first in an output; here both are refused;
* an empty value (``""``, ``[]``, ``{}``, and in TSV/CSV ``nan``, ``none``, ``null``) in a gold standard
  (:class:`~workbench.model.labelling.EmptyLabelError`): PyEvALL drops the item with a warning; here it is
  refused. In an output it is an unanswered item, as PyEvALL counts it;
* values of different kinds in one test case (:class:`~workbench.model.labelling.MixedKindsError`); a value
  that is null, a number or a boolean; a class repeated in a list; a weight outside [0, 1], and weights that do
  not sum to 1 within :data:`~workbench.model.labelling.SUM_TOLERANCE` unless ``distribution=False``
  (:class:`~workbench.model.labelling.ProbabilityError`);
* with a hierarchy, a class it does not hold (:class:`~workbench.model.labelling.LabelNotInHierarchyError`;
  PyEvALL adds the gold's to the top of the tree), and a hierarchy that is not a tree
  (:class:`~workbench.model.labelling.HierarchyError`).

In TSV and CSV a field reads as a string, a ``[...]`` or ``{...}`` field as JSON; a field that reads as an
integer is a class name here (PyEvALL would read a ranking value), and a blank line is skipped. A field in double
quotes may hold the delimiter (``"[""A"", ""B""]"`` in a CSV file); a quote never closed on its line is refused
naming it, never read as a field that swallows the lines after it.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gold.tsv").write_text("T1\\ti1\\tA\\nT1\\ti2\\tB\\nT1\\ti3\\tA\\n")
    >>> _ = (folder / "sys1.json").write_text('[{"test_case": "T1", "id": "i1", "value": "A"},\\n'
    ...                                       ' {"test_case": "T1", "id": "i2", "value": "A"}]')
    >>> campaign = read_pyevall_campaign(folder / "gold.tsv", [folder / "sys1.json"])
    >>> campaign.evaluate(["Acc", "ICM"], progress=False).value.round(4).tolist()
    [0.3333, -0.7233]
    >>> _ = (folder / "bad.tsv").write_text("T1\\ti1\\tA\\nT1\\ti1\\tB\\n")
    >>> read_pyevall(folder / "bad.tsv", gold=True)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.model.labelling.RepeatedIdError: ...bad.tsv, line 2, test case 'T1', id 'i1': given again (first on ...
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from workbench.data.campaign import UNDEFINED, Campaign
from workbench.errors import quoted
from workbench.model import Organization
from workbench.model.labelling import (
    SUM_TOLERANCE,
    ClassTree,
    EmptyLabelError,
    HierarchyError,
    Labelling,
    LabellingError,
    LabelNotInHierarchyError,
    MixedKindsError,
    RepeatedIdError,
    check_value,
    is_empty,
    kind_of,
)
from workbench.reading import json_input
from workbench.reading.fields import rows
from workbench.reading.sources import file_path, read_input
from workbench.reading.text import Text, decode
from workbench.validation import AnyOf, Choices, FilePath, Flag, Instance, Interval, ListOf, MappingOf, validate

__all__ = ["FORMATS", "TASKS", "PyEvALLFormatError", "HIERARCHY", "read_format", "read_hierarchy", "read_pyevall",
           "read_pyevall_campaign", "sniff"]

FORMATS = ("auto", "json", "tsv", "csv")
TASKS = ("classification", "ranking", "clustering")
"""What PyEvALL's files hold: classes; a grade (gold) and a rank, 1 first (outputs); a list of clusters."""
HEADER = ["test_case", "id", "value"]
NULLS = {"", "nan", "none", "null"}  # PyEvALL's empty values of a TSV/CSV field (any case)
HIERARCHY = AnyOf(FilePath(optional=True), Instance((Mapping, ClassTree), "a nested dict of classes or a ClassTree"),
                  what="a JSON file, a nested dict of classes or a ClassTree, or None")
"""The domain of a ``hierarchy`` argument."""
TOLERANCE = Interval(0, 1)
"""The domain of a ``tolerance``: how far from 1 the weights of a soft label may sum."""
_OPTIONS = {"format": Choices(FORMATS), "hierarchy": HIERARCHY, "classes": ListOf(
    Instance((str,), "a class name"), shortest=1, optional=True, what="a list of class names"),
            "distribution": Flag(), "tolerance": TOLERANCE}


class PyEvALLFormatError(LabellingError):
    """A file that is not PyEvALL's: not a JSON array of records, a record without its three fields, a row
    without three columns, an unreadable file."""


Source = str | PathLike


def _read_text(path: Source, error: type[LabellingError]) -> Text:
    """The file's text (UTF-8, a byte-order mark left out), refused with ``error`` when it cannot be read."""
    return decode(read_input(file_path(path), error), path, "utf-8", error)


@validate(source=AnyOf(FilePath(), Instance((Mapping, ClassTree), "a nested dict of classes or a ClassTree"),
                       what="a JSON file, a nested dict of classes or a ClassTree"))
def read_hierarchy(source: Source | Mapping | ClassTree) -> ClassTree:
    """A class tree from PyEvALL's nested dict (``{"P": ["S1", "S2"]}``), or from a JSON file holding one."""
    if isinstance(source, ClassTree):
        return source
    if isinstance(source, Mapping):
        return ClassTree.from_nested(source)
    text = _read_text(source, HierarchyError)
    nested = json_input.load(text)
    try:
        return ClassTree.from_nested(nested)
    except HierarchyError as error:
        raise HierarchyError(error.message, path=text.path, where=error.where) from None


def sniff(text: str) -> str:
    """``json`` when the file starts with ``[``, else ``tsv`` when its first line has a tab, else ``csv``."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "json"
    first = stripped.split("\n", 1)[0]
    return "tsv" if "\t" in first else "csv"


@validate(path=FilePath())
def read_format(path: Source) -> str:
    """The format PyEvALL reads a file in (:func:`sniff`: ``json``, ``tsv`` or ``csv``), the file read through the
    reading layer (an unreadable one refused as :class:`PyEvALLFormatError`, naming it)."""
    return sniff(_read_text(path, PyEvALLFormatError).content)


@validate(path=FilePath(), gold=Flag(), **_OPTIONS)
def read_pyevall(path: Source, *, gold: bool = False, format: str = "auto",
                 hierarchy: Source | Mapping | ClassTree | None = None, classes: Sequence[str] | None = None,
                 distribution: bool = True, tolerance: float = SUM_TOLERANCE) -> dict[str, Labelling]:
    """``{test case: Labelling}`` of one PyEvALL file (a gold standard when ``gold``), in the file's order.

    ``format``: ``auto`` (sniffed: :func:`sniff`), ``json``, ``tsv`` or ``csv``; ``hierarchy``: the class tree
    (:func:`read_hierarchy`) every class must belong to; ``classes``: the classes in order (an ordinal scale, for
    CEM); ``distribution``: soft values are distributions (sum to 1 within ``tolerance``), or independent
    per-class probabilities when False. See the module docstring for what is refused."""
    text = _read_text(path, PyEvALLFormatError)
    if not text.content.strip():
        raise text.fail("empty file")
    tree = read_hierarchy(hierarchy) if hierarchy is not None else None
    chosen = sniff(text.content) if format == "auto" else format
    records = _json_records(text) if chosen == "json" else _delimited_records(text, chosen)
    topics: dict[str, dict[str, Any]] = {}
    first_line: dict[tuple[str, str], int] = {}
    kinds: dict[str, tuple[str, int]] = {}
    for line, test_case, item, value in records:
        where: dict[str, Any] = {"path": text.path, "line": line, "where": f"test case {quoted(test_case)}",
                                 "item": item}
        if (test_case, item) in first_line:
            raise RepeatedIdError(f"given again (first on line {first_line[test_case, item]})", **where)
        first_line[test_case, item] = line
        topic = topics.setdefault(test_case, {})
        if is_empty(value):
            if gold:
                raise EmptyLabelError("a gold item needs a class (PyEvALL drops it with a warning; here it is refused: "
                                      "give its class or remove the item)", **where)
            topic[item] = value
            continue
        value = check_value(value, distribution=distribution, tolerance=tolerance, **where)
        kind = kind_of(value) or "mono"
        if test_case in kinds and kinds[test_case][0] != kind:
            raise MixedKindsError(f"a {kind} value where line {kinds[test_case][1]} holds a {kinds[test_case][0]} one: "
                                  "a test case holds values of one kind", **where)
        kinds.setdefault(test_case, (kind, line))
        if tree is not None:
            for label in (value,) if isinstance(value, str) else tuple(value):
                if label not in tree:
                    raise LabelNotInHierarchyError(f"class {quoted(label)} is not in the hierarchy", **where)
        topic[item] = value
    out = {}
    for test_case, items in topics.items():
        kind = kinds.get(test_case, ("mono", 0))[0]
        try:
            out[test_case] = Labelling(items, kind, tree, None if classes is None else tuple(classes), distribution,
                                       gold, tolerance)
        except LabellingError as error:
            found = first_line.get((test_case, error.item)) if error.item is not None else None
            raise type(error)(error.message, path=text.path, line=found, where=f"test case {quoted(test_case)}",
                              item=error.item) from None
    return out


def _json_records(text: Text) -> Iterator[tuple[int, str, str, Any]]:
    """(line, test_case, id, value) of each record of a JSON array, the line where the record starts."""
    for line, record in json_input.items(text, "a JSON array of records [{...}, ...] (PyEvALL's format)"):
        yield (line, *_fields(text, record, line))


def _fields(text: Text, record: Any, line: int) -> tuple[str, str, Any]:
    """(test_case, id, value) of a record, checked as PyEvALL's JSON schema checks it."""
    if not isinstance(record, dict):
        raise text.fail(f"a record is an object with test_case, id and value, got {type(record).__name__}",
                        line=line)
    keys = set(record)
    if keys != set(HEADER):
        missing, extra = sorted(set(HEADER) - keys), sorted(keys - set(HEADER))
        problem = "; ".join(filter(None, [f"missing {', '.join(missing)}" if missing else "",
                                          f"unknown {', '.join(map(repr, extra))}" if extra else ""]))
        raise text.fail(f"a record has exactly test_case, id and value ({problem})", line=line)
    for key in ("test_case", "id"):
        if not isinstance(record[key], str) or not record[key]:
            raise text.fail(f"{key} is a non-empty string, got {quoted(record[key])}", line=line)
    return record["test_case"], record["id"], record["value"]


def _delimited_records(text: Text, kind: str) -> Iterator[tuple[int, str, str, Any]]:
    """(line, test_case, id, value) of each row of a TSV or CSV file (a header row ``test_case id value`` skipped)."""
    for line, row in rows(text, "\t" if kind == "tsv" else ",", strip=True):
        if line == 1 and row == HEADER:
            continue
        if len(row) != 3:
            raise text.fail(f"a row has 3 {kind.upper()} columns (test_case, id, value), got {len(row)}", line=line)
        test_case, item, value = row
        for key, field in (("test_case", test_case), ("id", item)):
            if not field:
                raise text.fail(f"{key} is empty", line=line)
        yield line, test_case, item, _field_value(text, value, line, test_case, item)


def _field_value(text: Text, field: str, line: int, test_case: str, item: str) -> Any:
    """A TSV/CSV value: empty for PyEvALL's nulls, JSON for ``[...]`` / ``{...}``, else the class name."""
    if field.lower() in NULLS:
        return ""
    if (field.startswith("[") and field.endswith("]")) or (field.startswith("{") and field.endswith("}")):
        try:
            return json_input.load(Text(field, text.path, error=LabellingError))
        except LabellingError as error:
            raise LabellingError(f"{quoted(field)} looks like a JSON list or object but is not one ({error.message})",
                                 path=text.path, line=line, where=f"test case {quoted(test_case)}", item=item) from None
    return field


@validate(gold=FilePath(), outputs=AnyOf(FilePath(), ListOf(FilePath(), shortest=1), MappingOf(
    Instance((str,), "a system name"), FilePath(), shortest=1), what="a file name, a list of them or {system: file}"),
          undefined=UNDEFINED, task=Choices(TASKS), **_OPTIONS)
def read_pyevall_campaign(gold: Source, outputs: Source | Sequence[Source] | Mapping[str, Source], *,
                          format: str = "auto", hierarchy: Source | Mapping | ClassTree | None = None,
                          classes: Sequence[str] | None = None, distribution: bool = True,
                          tolerance: float = SUM_TOLERANCE, undefined: str = "zero",
                          task: str = "classification") -> Campaign:
    """A campaign of PyEvALL files: the gold's test cases are its topics, each output file a system (its file's
    stem, or the key of ``{system: path}``). Arguments as :func:`read_pyevall`; the hierarchy and the classes
    apply to the gold and to every output. ``undefined``: how its means take an undefined test case
    (:data:`~workbench.data.campaign.UNDEFINED_POLICIES`): ``"zero"``, PyEvALL's average, or ``"nan"``.

    ``task``: PyEvALL's classification files (Labellings), its ranking files (a ranking campaign: the gold's
    value an item's grade, an output's its rank, 1 first; scored as trec_eval ranks, so that PyEvALL's measures
    are their spellings: ``PrecisionAtK`` is ``P@10``, ``nDCG`` is ``nDCG(gain=exp)``, ...; the catalogue's
    ``pyevall`` rows) or its clustering files (an item's value the list of its clusters: Organizations of one
    level of clusters). The hierarchy, classes and distribution read classification files only."""
    tree = read_hierarchy(hierarchy) if hierarchy is not None else None

    def read(path: Source, gold: bool) -> dict[str, Labelling]:
        return read_pyevall(path, gold=gold, format=format, hierarchy=tree, classes=classes,
                            distribution=distribution, tolerance=tolerance)

    if isinstance(outputs, str | bytes | PathLike):
        outputs = [outputs]
    if not isinstance(outputs, Mapping):
        named: dict[str, Source] = {}
        for path in outputs:
            system = Path(file_path(path)).stem
            if system in named:
                raise PyEvALLFormatError(f"two outputs are named {quoted(system)} ({named[system]} and {path}): give "
                                         "{system: path}")
            named[system] = path
        outputs = named
    if task != "classification":
        return _task_campaign(gold, outputs, format, task, undefined)
    gold_topics: Mapping[str, Any] = read(gold, True)  # a Campaign holds Labellings as it holds Organizations
    runs: dict[str, Mapping[str, Any]] = {system: read(path, False) for system, path in outputs.items()}
    return Campaign(gold_topics, runs, undefined)


def _task_values(path: Source, format: str, task: str, gold: bool) -> dict[str, dict[str, Any]]:
    """``{test case: {id: value}}`` of a ranking file (integers: grades, or ranks ≥ 1) or a clustering file (lists
    of cluster names), every refusal naming the file and the line."""
    text = _read_text(path, PyEvALLFormatError)
    if not text.content.strip():
        raise text.fail("empty file")
    chosen = sniff(text.content) if format == "auto" else format
    records = _json_records(text) if chosen == "json" else _delimited_records(text, chosen)
    out: dict[str, dict[str, Any]] = {}
    for line, test_case, item, value in records:
        where = f"test case {quoted(test_case)}, id {quoted(item)}"
        if item in out.setdefault(test_case, {}):
            raise text.fail("given again in its test case", line=line, where=where)
        if task == "ranking":
            number = int(value) if isinstance(value, str) and value.strip().lstrip("-").isdigit() and \
                len(value) < 20 else value
            if not isinstance(number, int) or isinstance(number, bool) or number < (0 if gold else 1):
                what = "a grade (an integer ≥ 0)" if gold else "a rank (an integer ≥ 1, 1 first)"
                raise text.fail(f"a ranking file's value is {what}, got {quoted(value)}", line=line, where=where)
            out[test_case][item] = number
        else:
            if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value) or \
                    (gold and not value):
                raise text.fail(f"a clustering file's value is a list of cluster names, got {quoted(value)}",
                                line=line, where=where)
            out[test_case][item] = value
    return out


def _task_campaign(gold: Source, outputs: Mapping[str, Source], format: str, task: str, undefined: str) -> Campaign:
    """A campaign of PyEvALL's ranking or clustering files (:func:`read_pyevall_campaign`)."""
    import dataclasses

    truth = _task_values(gold, format, task, True)
    systems = {system: _task_values(path, format, task, False) for system, path in outputs.items()}
    if task == "ranking":
        campaign = Campaign.from_dicts(truth, {system: {case: {item: -float(rank) for item, rank in items.items()}
                                                        for case, items in run.items()}
                                               for system, run in systems.items()})
        return dataclasses.replace(campaign, undefined=undefined)

    def clustering(items: Mapping[str, list[str]]) -> Organization:
        members: dict[str, list[str]] = {}
        for item, clusters in items.items():
            for cluster in dict.fromkeys(clusters):
                members.setdefault(cluster, []).append(item)
        return Organization.from_clustering(list(members.values()))

    return Campaign({case: clustering(items) for case, items in truth.items()},
                    {system: {case: clustering(items) for case, items in run.items()}
                     for system, run in systems.items()}, undefined)
