"""What scripts need from ``python -m workbench``: JSON and JSON-lines output (``-`` for standard input is
:func:`workbench.data.files.with_stdin`). ``json`` prints one object, ``jsonl`` one tidy row per line; NaN is
``null``.

    >>> import pandas as pd
    >>> print(jsonl_rows(pd.DataFrame({"system": ["a"], "topic": ["all"], "measure": ["RR"], "value": [0.5]})),
    ...       end="")
    {"system": "a", "topic": "all", "measure": "RR", "value": 0.5}
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

JSON_FORMATS = ("json", "jsonl")


# --------------------------------------------------------------------------------------------- JSON
def _plain(value):
    """A JSON value: numpy scalars as Python ones, NaN and infinities as null."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def records(frame: pd.DataFrame) -> list[dict]:
    """The rows of ``frame`` as dicts of plain JSON values, columns in order."""
    columns = [str(c) for c in frame.columns]
    return [dict(zip(columns, map(_plain, row), strict=True)) for row in frame.itertuples(index=False)]


def dumps(value) -> str:
    """Strict JSON (no NaN), UTF-8 text kept as is (measure names such as ``R∼``)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def jsonl_rows(frame: pd.DataFrame, **fields) -> str:
    """One JSON object per row (``fields`` first, e.g. ``table="means"``), one per line."""
    return "".join(dumps({**fields, **row}) + "\n" for row in records(frame))


def nested(frame: pd.DataFrame, keys: Sequence[str], value: str = "value") -> dict:
    """``{k1: {k2: ... value}}`` from the tidy columns ``keys`` (in row order), e.g. system → measure → mean."""
    out: dict = {}
    for row in records(frame[[*keys, value]]):
        node = out
        for key in keys[:-1]:
            node = node.setdefault(str(row[key]), {})
        node[str(row[keys[-1]])] = row[value]
    return out


def eval_json(results: pd.DataFrame, means_table: pd.DataFrame, per_topic: bool) -> str:
    """``eval --format json``: one object with the systems' means (system → measure → mean), the per-topic
    scores when asked (system → topic → measure → value) and what the topic policies did."""
    document = {
        "measures": list(dict.fromkeys(results["measure"])),
        "systems": list(dict.fromkeys(results["system"])),
        "means": nested(means_table, ["system", "measure"]),
    }
    if per_topic:
        document["per_topic"] = nested(results, ["system", "topic", "measure"])
    for key in ("missing_topics", "extra_topics"):
        if key in results.attrs:
            document[key] = results.attrs[key]
    return dumps(document) + "\n"


def tables_json(tables: dict[str, pd.DataFrame], fmt: str, **extra) -> str:
    """Several tables (``compare``): ``json`` one object ``{name: [rows], **extra}``, ``jsonl`` every row of
    every table on its own line with a ``table`` field naming its table."""
    if fmt == "jsonl":
        return "".join(jsonl_rows(frame, table=name) for name, frame in tables.items())
    return dumps({**{name: records(frame) for name, frame in tables.items()}, **extra}) + "\n"
