"""What scripts need from ``python -m workbench``: tables as plain rows, JSON and JSON-lines output (``-`` for
standard input is :func:`workbench.reading.sources.with_stdin`). ``json`` prints one object, ``jsonl`` one tidy row per
line; NaN is ``null``. Nothing here needs pandas (``eval`` prints without it); a DataFrame becomes a
:class:`Table` through :func:`table_of`.

    >>> print(jsonl_rows(Table(["system", "topic", "measure", "value"], [("a", "all", "RR", 0.5)])), end="")
    {"system": "a", "topic": "all", "measure": "RR", "value": 0.5}
"""

from __future__ import annotations

import contextlib
import json
import math
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from workbench.errors import OutputError

__all__ = ["JSON_FORMATS", "emit", "say", "Table", "table_of", "records", "dumps", "jsonl_rows", "nested",
           "eval_json", "tables_json"]

if TYPE_CHECKING:
    import pandas as pd

JSON_FORMATS = ("json", "jsonl")


def emit(text: str | bytes) -> None:
    """Write to standard output and flush (text encoded as standard output encodes it, bytes as they are); a
    failure other than a closed pipe is an :class:`OutputError` saying why. A write the system takes only in
    part (a disk that fills up, a file-size limit) is continued until it is whole or refused: Python's buffered
    writer reports the part written and nothing else, so that the rest was lost with status 0."""
    try:
        stream = sys.stdout
        if isinstance(text, str) and not hasattr(stream, "buffer"):  # a stream of Python's own (StringIO)
            stream.write(text)
            stream.flush()
            return
        data = text if isinstance(text, bytes) else text.encode(stream.encoding or "utf-8", stream.errors or "strict")
        stream.flush()
        buffer, view = stream.buffer, memoryview(data)
        while view:
            view = view[buffer.write(view):]
        buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(f"cannot write the output ({error.strerror or error})") from None
    except UnicodeEncodeError as error:
        raise OutputError(f"cannot write the output in {error.encoding}: {error.object[error.start:error.end]!r} "
                          "(set PYTHONIOENCODING=utf-8)") from None
    except (AttributeError, ValueError):  # no standard output at all (closed when the program started), or closed
        raise OutputError("cannot write the output: standard output is closed") from None


def say(line: str) -> None:
    """One line on standard error, if there is one to write to."""
    with contextlib.suppress(OSError, AttributeError, ValueError):
        print(line, file=sys.stderr, flush=True)


class Table(NamedTuple):
    """A table as the shell prints it: column names and rows of plain values."""

    columns: list[str]
    rows: list[tuple]


def table_of(frame: pd.DataFrame) -> Table:
    """A DataFrame as a :class:`Table` (its index left out)."""
    return Table([str(c) for c in frame.columns], list(frame.itertuples(index=False, name=None)))


# --------------------------------------------------------------------------------------------- JSON
def _plain(value):
    """A JSON value: numpy scalars as Python ones, NaN and infinities as null."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def records(table: Table) -> list[dict]:
    """The rows of ``table`` as dicts of plain JSON values, columns in order."""
    return [dict(zip(table.columns, map(_plain, row), strict=True)) for row in table.rows]


def dumps(value) -> str:
    """Strict JSON (no NaN), UTF-8 text kept as is (measure names such as ``R∼``)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def jsonl_rows(data: Table, **fields) -> str:
    """One JSON object per row (``fields`` first, e.g. ``table="means"``), one per line."""
    return "".join(dumps({**fields, **row}) + "\n" for row in records(data))


def nested(table: Table, keys: Sequence[str], value: str = "value") -> dict:
    """``{k1: {k2: ... value}}`` from the tidy columns ``keys`` (in row order), e.g. system → measure → mean."""
    out: dict = {}
    for row in records(table):
        node = out
        for key in keys[:-1]:
            node = node.setdefault(str(row[key]), {})
        node[str(row[keys[-1]])] = row[value]
    return out


def eval_json(results: Table, means_table: Table, per_topic: bool, attrs: dict) -> str:
    """``eval --format json``: one object with the systems' means (system → measure → mean), the per-topic
    scores when asked (system → topic → measure → value) and what the topic policies did (``attrs``)."""
    column = results.columns.index
    document = {
        "measures": list(dict.fromkeys(row[column("measure")] for row in results.rows)),
        "systems": list(dict.fromkeys(row[column("system")] for row in results.rows)),
        "means": nested(means_table, ["system", "measure"]),
    }
    if per_topic:
        document["per_topic"] = nested(results, ["system", "topic", "measure"])
    for key in ("missing_topics", "extra_topics"):
        if key in attrs:
            document[key] = attrs[key]
    return dumps(document) + "\n"


def tables_json(tables: dict[str, Table], fmt: str, **extra) -> str:
    """Several tables (``compare``): ``json`` one object ``{name: [rows], **extra}``, ``jsonl`` every row of
    every table on its own line with a ``table`` field naming its table."""
    if fmt == "jsonl":
        return "".join(jsonl_rows(data, table=name) for name, data in tables.items())
    return dumps({**{name: records(data) for name, data in tables.items()}, **extra}) + "\n"
