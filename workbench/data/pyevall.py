"""PyEvALL's files (gold standards and system outputs of classification tasks) read into a :class:`Campaign`.

PyEvALL (Carrillo-de-Albornoz et al., UNED; https://github.com/UNEDLENAR/PyEvALL) reads a JSON array of records
``{"test_case": ..., "id": ..., "value": ...}``, or the same three columns as TSV or CSV (with or without the
header ``test_case id value``). A value is a class (mono-label), a list of classes (multi-label) or an object
of weights per class (soft labels); a class hierarchy is a separate nested dict (:func:`read_hierarchy`).

**A test case is a topic.** PyEvALL evaluates each test case on its own (its gold alone gives ICM's information
content, its classes the macro averages) and averages the test cases, which is what a campaign does with its
topics: ``read_pyevall_campaign(gold, outputs).evaluate(measures)`` gives one row per (system, test case), and
:func:`~workbench.data.campaign.means` the average over test cases. Each output file is a system (named by its
file's stem unless given as ``{system: path}``); a test case an output lacks is a missing topic (the campaign's
``missing_topics`` policy), and an item of a test case that the output leaves out is unanswered. (PyEvALL 0.2.11
reuses one metric object over the test cases of a file, so that ICM's class probabilities of one test case stay
for the next: a class a test case's gold lacks takes an earlier test case's probability. Here each topic's
information content comes from its own gold only, as PyEvALL gives it for a file of one test case.)

Validation (PyEvALL's rules, every refusal a :class:`~workbench.model.labelling.LabellingError` naming the file,
the line and the item):

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
integer is a class name here (PyEvALL would read a ranking value), and a blank line is skipped.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "gold.tsv").write_text("T1\\ti1\\tA\\nT1\\ti2\\tB\\nT1\\ti3\\tA\\n")
    >>> _ = (folder / "sys1.json").write_text('[{"test_case": "T1", "id": "i1", "value": "A"},\\n'
    ...                                       ' {"test_case": "T1", "id": "i2", "value": "A"}]')
    >>> campaign = read_pyevall_campaign(folder / "gold.tsv", [folder / "sys1.json"])
    >>> campaign.evaluate(["Acc", "ICM"], progress=False).value.round(4).tolist()
    [0.3333, -0.7233]
    >>> _ = (folder / "bad.tsv").write_text("T1\\ti1\\tA\\nT1\\ti1\\tB\\n")
    >>> read_pyevall(folder / "bad.tsv", gold=True)
    Traceback (most recent call last):
    ...
    workbench.model.labelling.RepeatedIdError: bad.tsv, line 2, test case 'T1', id 'i1': given again (first on line 1)
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from workbench.data.campaign import Campaign
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

__all__ = ["FORMATS", "PyEvALLFormatError", "read_hierarchy", "read_pyevall", "read_pyevall_campaign", "sniff"]

FORMATS = ("auto", "json", "tsv", "csv")
HEADER = ["test_case", "id", "value"]
NULLS = {"", "nan", "none", "null"}  # PyEvALL's empty values of a TSV/CSV field (any case)


class PyEvALLFormatError(LabellingError):
    """A file that is not PyEvALL's: not a JSON array of records, a record without its three fields, a row
    without three columns, an unreadable file."""


Source = str | PathLike


def read_hierarchy(source: Source | Mapping | ClassTree) -> ClassTree:
    """A class tree from PyEvALL's nested dict (``{"P": ["S1", "S2"]}``), or from a JSON file holding one."""
    if isinstance(source, ClassTree):
        return source
    if isinstance(source, Mapping):
        return ClassTree.from_nested(source)
    path = Path(source)
    try:
        nested = json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as error:
        raise HierarchyError(f"cannot read the file ({error.strerror or error})", where=str(path)) from None
    except (ValueError, UnicodeDecodeError) as error:
        raise HierarchyError(f"not JSON ({error})", where=str(path)) from None
    try:
        return ClassTree.from_nested(nested)
    except HierarchyError as error:
        raise HierarchyError(error.message, where=path.name) from None


def sniff(text: str) -> str:
    """``json`` when the file starts with ``[``, else ``tsv`` when its first line has a tab, else ``csv``."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return "json"
    first = stripped.splitlines()[0] if stripped else ""
    return "tsv" if "\t" in first else "csv"


def read_pyevall(path: Source, *, gold: bool = False, format: str = "auto",
                 hierarchy: Source | Mapping | ClassTree | None = None, classes: Sequence[str] | None = None,
                 distribution: bool = True, tolerance: float = SUM_TOLERANCE) -> dict[str, Labelling]:
    """``{test case: Labelling}`` of one PyEvALL file (a gold standard when ``gold``), in the file's order.

    ``format``: ``auto`` (sniffed: :func:`sniff`), ``json``, ``tsv`` or ``csv``; ``hierarchy``: the class tree
    (:func:`read_hierarchy`) every class must belong to; ``classes``: the classes in order (an ordinal scale, for
    CEM); ``distribution``: soft values are distributions (sum to 1 within ``tolerance``), or independent
    per-class probabilities when False. See the module docstring for what is refused."""
    if format not in FORMATS:
        raise PyEvALLFormatError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    path = Path(path)
    name = path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise PyEvALLFormatError(f"cannot read the file ({error.strerror or error})", where=str(path)) from None
    except UnicodeDecodeError as error:
        raise PyEvALLFormatError(f"not UTF-8 text (byte {error.start})", where=name) from None
    if not text.strip():
        raise PyEvALLFormatError("empty file", where=name)
    tree = read_hierarchy(hierarchy) if hierarchy is not None else None
    chosen = sniff(text) if format == "auto" else format
    rows = _json_records(text, name) if chosen == "json" else _delimited_records(text, name, chosen)
    topics: dict[str, dict[str, Any]] = {}
    first_line: dict[tuple[str, str], int] = {}
    kinds: dict[str, tuple[str, int]] = {}
    for line, test_case, item, value in rows:
        where = f"{name}, line {line}, test case {test_case!r}"
        if (test_case, item) in first_line:
            raise RepeatedIdError(f"given again (first on line {first_line[test_case, item]})", where=where, item=item)
        first_line[test_case, item] = line
        topic = topics.setdefault(test_case, {})
        if is_empty(value):
            if gold:
                raise EmptyLabelError("a gold item needs a class (PyEvALL drops it with a warning; here it is refused: "
                                      "give its class or remove the item)", where=where, item=item)
            topic[item] = value
            continue
        value = check_value(value, where=where, item=item, distribution=distribution, tolerance=tolerance)
        kind = kind_of(value) or "mono"
        if test_case in kinds and kinds[test_case][0] != kind:
            raise MixedKindsError(f"a {kind} value where line {kinds[test_case][1]} holds a {kinds[test_case][0]} one: "
                                  "a test case holds values of one kind", where=where, item=item)
        kinds.setdefault(test_case, (kind, line))
        if tree is not None:
            for label in (value,) if isinstance(value, str) else tuple(value):
                if label not in tree:
                    raise LabelNotInHierarchyError(f"class {label!r} is not in the hierarchy", where=where, item=item)
        topic[item] = value
    out = {}
    for test_case, items in topics.items():
        kind = kinds.get(test_case, ("mono", 0))[0]
        try:
            out[test_case] = Labelling(items, kind, tree, None if classes is None else tuple(classes), distribution,
                                       gold)
        except LabellingError as error:
            line = first_line.get((test_case, error.item)) if error.item is not None else None
            place = f"{name}, line {line}, test case {test_case!r}" if line else f"{name}, test case {test_case!r}"
            raise type(error)(error.message, where=place, item=error.item) from None
    return out


def _json_records(text: str, name: str):
    """(line, test_case, id, value) of each record of a JSON array, the line where the record starts."""
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    if not text.startswith("[", start):
        raise PyEvALLFormatError("a PyEvALL JSON file is an array of records [{...}, ...]", where=name)
    position = start + 1
    first = True
    while True:
        position = _skip_space(text, position)
        if text.startswith("]", position):
            break
        if not first:
            if not text.startswith(",", position):
                raise PyEvALLFormatError("expected ',' or ']' between records", where=f"{name}, line "
                                         f"{_line(text, position)}")
            position = _skip_space(text, position + 1)
        first = False
        line = _line(text, position)
        try:
            record, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise PyEvALLFormatError(f"not JSON: {error.msg} (column {error.colno})",
                                     where=f"{name}, line {error.lineno}") from None
        yield (line, *_fields(record, f"{name}, line {line}"))
    if text[position + 1:].strip():
        raise PyEvALLFormatError("text after the closing ']'", where=f"{name}, line {_line(text, position + 1)}")


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    if position >= len(text):
        raise PyEvALLFormatError("the array is never closed with ']'")
    return position


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _fields(record: Any, where: str) -> tuple[str, str, Any]:
    """(test_case, id, value) of a record, checked as PyEvALL's JSON schema checks it."""
    if not isinstance(record, dict):
        raise PyEvALLFormatError(f"a record is an object with test_case, id and value, got {type(record).__name__}",
                                 where=where)
    keys = set(record)
    if keys != set(HEADER):
        missing, extra = sorted(set(HEADER) - keys), sorted(keys - set(HEADER))
        problem = "; ".join(filter(None, [f"missing {', '.join(missing)}" if missing else "",
                                          f"unknown {', '.join(extra)}" if extra else ""]))
        raise PyEvALLFormatError(f"a record has exactly test_case, id and value ({problem})", where=where)
    for key in ("test_case", "id"):
        if not isinstance(record[key], str) or not record[key]:
            raise PyEvALLFormatError(f"{key} is a non-empty string, got {record[key]!r}", where=where)
    return record["test_case"], record["id"], record["value"]


def _delimited_records(text: str, name: str, kind: str):
    """(line, test_case, id, value) of each row of a TSV or CSV file (a header row ``test_case id value`` skipped)."""
    reader = csv.reader(io.StringIO(text), delimiter="\t" if kind == "tsv" else ",", quotechar='"')
    line = 0
    for row in reader:
        line = reader.line_num
        if not any(field.strip() for field in row):
            continue
        if line == 1 and [field.strip() for field in row] == HEADER:
            continue
        where = f"{name}, line {line}"
        if len(row) != 3:
            raise PyEvALLFormatError(f"a row has 3 {kind.upper()} columns (test_case, id, value), got {len(row)}",
                                     where=where)
        test_case, item, value = (field.strip() for field in row)
        for key, field in (("test_case", test_case), ("id", item)):
            if not field:
                raise PyEvALLFormatError(f"{key} is empty", where=where)
        yield line, test_case, item, _field_value(value, f"{where}, test case {test_case!r}", item)


def _field_value(field: str, where: str, item: str) -> Any:
    """A TSV/CSV value: empty for PyEvALL's nulls, JSON for ``[...]`` / ``{...}``, else the class name."""
    if field.lower() in NULLS:
        return ""
    if (field.startswith("[") and field.endswith("]")) or (field.startswith("{") and field.endswith("}")):
        try:
            return json.loads(field)
        except ValueError as error:
            raise LabellingError(f"{field!r} looks like a JSON list or object but is not one ({error})", where=where,
                                 item=item) from None
    return field


def read_pyevall_campaign(gold: Source, outputs: Source | Sequence[Source] | Mapping[str, Source], *,
                          format: str = "auto", hierarchy: Source | Mapping | ClassTree | None = None,
                          classes: Sequence[str] | None = None, distribution: bool = True,
                          tolerance: float = SUM_TOLERANCE) -> Campaign:
    """A campaign of PyEvALL files: the gold's test cases are its topics, each output file a system (its file's
    stem, or the key of ``{system: path}``). Arguments as :func:`read_pyevall`; the hierarchy and the classes
    apply to the gold and to every output."""
    tree = read_hierarchy(hierarchy) if hierarchy is not None else None

    def read(path: Source, gold: bool) -> dict[str, Labelling]:
        return read_pyevall(path, gold=gold, format=format, hierarchy=tree, classes=classes,
                            distribution=distribution, tolerance=tolerance)

    if isinstance(outputs, str | PathLike):
        outputs = [outputs]
    if not isinstance(outputs, Mapping):
        named: dict[str, Source] = {}
        for path in outputs:
            system = Path(path).stem
            if system in named:
                raise PyEvALLFormatError(f"two outputs are named {system!r} ({named[system]} and {path}): give "
                                         "{system: path}")
            named[system] = path
        outputs = named
    gold_topics: Mapping[str, Any] = read(gold, True)  # a Campaign holds Labellings as it holds Organizations
    runs: dict[str, Mapping[str, Any]] = {system: read(path, False) for system, path in outputs.items()}
    return Campaign(gold_topics, runs)
