"""cwl_eval's cost file (its ``-c``): lines ``element_type cost``, the cost of reading a document of each element type
(seconds, characters, ...), which the run's second column names for each retrieved document.

cwl_eval (``cwl_eval.py``, ``read_in_cost_file``) splits each line on white space and reads the cost with Python's
``float``; a type given twice keeps its last cost. Here, as in every TREC file the workbench reads, blank lines
and lines whose first field starts with ``#`` are left out (cwl_eval would take ``#`` for a type), and a type is
read as UTF-8 (a byte that is not kept as it is, ``surrogateescape``). A cost must be a positive finite number
(the C/W/L measures divide by the cost spent, and cwl_eval's ``Ranking`` says "no free lunches"); anything else is
an error naming the file, the line and the column (in bytes)::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "costs"
    >>> _ = path.write_text("E1 1.0\\nE2 2.5\\n")
    >>> read_cwl_costs(path)
    {'E1': 1.0, 'E2': 2.5}
    >>> _ = path.write_text("E1 1.0\\nE2 -2\\n")
    >>> read_cwl_costs(path)
    Traceback (most recent call last):
    ...
    workbench.data.trec.errors.TrecFormatError: ..., line 2, column 4: a cost is a positive number, not '-2': 'E2 -2'
"""

from __future__ import annotations

import math
from os import PathLike

import numpy as np

from workbench.data.trec.columns import read_columns
from workbench.data.trec.errors import TrecFormatError, TrecReadingWarning
from workbench.data.trec.scan import Fields
from workbench.errors import warn
from workbench.validation import FilePath, validate

__all__ = ["read_cwl_costs"]


@validate(path=FilePath())
def read_cwl_costs(path: str | PathLike) -> dict[str, float]:
    """``{element type: cost}`` of a cwl_eval cost file (see the module); a type given again takes the later cost,
    as cwl_eval's, with a warning naming both lines."""
    columns = read_columns(path, ("element_type", "cost"), "cost")
    kinds = columns.column("element_type")
    costs: dict[str, float] = {}
    where: dict[str, int] = {}
    for row, (kind, token) in enumerate(zip(kinds.tolist(), columns.fields.ids(1).strings().tolist(), strict=True)):
        try:
            cost = float(token)
        except ValueError:
            cost = math.nan
        if not (math.isfinite(cost) and cost > 0):
            error = columns.error(row, f"a cost is a positive number, not {token!r}")
            raise TrecFormatError(error.message, path=error.path, line=error.line, text=error.text,
                                  column=_column(columns.fields, row, 1))
        name = kind.decode("utf-8", "surrogateescape")
        if name in costs:
            warn(f"{columns.path}: element type {name!r} has a cost on lines {where[name]} and "
                 f"{columns.numbers[row]}: the later one, {cost:g}, counts (as in cwl_eval)",
                 TrecReadingWarning)
        costs[name], where[name] = cost, int(columns.numbers[row])
    return costs


def _column(fields: Fields, row: int, index: int) -> int:
    """The 1-based column (in bytes) where field ``index`` of data line ``row`` starts."""
    start = int(fields.starts[fields.first[row] + index])
    newlines = np.flatnonzero(fields.buffer[:start] == ord("\n"))
    return start - (int(newlines[-1]) + 1 if newlines.size else 0) + 1
