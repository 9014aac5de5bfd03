"""The table a chart is drawn from: the columns it needs and its numbers, checked before altair is imported (a
widget checks its data when built and draws its chart later: ``workbench.widgets.comparison``).

    >>> import pandas as pd
    >>> require_columns(pd.DataFrame({"system": ["A"], "value": ["0.5"]}), ["value"], "a chart")["value"].tolist()
    ['0.5']
    >>> numeric_columns(pd.DataFrame({"value": ["0.5", None]}), ["value"], "a chart")["value"].tolist()
    [0.5, nan]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from workbench.errors import InputError

__all__ = ["ChartDataError", "require_columns", "numeric_columns"]


class ChartDataError(InputError):
    """A chart was given a table it cannot draw: names the chart, the missing columns and those present."""


def require_columns(frame: pd.DataFrame, columns: Iterable[str], chart: str) -> pd.DataFrame:
    """A copy of ``frame[columns]`` (a DataFrame, as the builders declare); ``ChartDataError`` naming ``chart``
    when a column or all rows are missing."""
    columns = list(columns)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ChartDataError(f"{chart}: the table lacks column(s) {missing}; it has {list(frame.columns)}")
    if frame.empty:
        raise ChartDataError(f"{chart}: the table has no rows")
    return frame[columns].copy()


def numeric_columns(frame: pd.DataFrame, columns: Sequence[str], chart: str) -> pd.DataFrame:
    """``frame`` with ``columns`` read as floats (missing values kept as NaN); a value that is no number is a
    :class:`ChartDataError` naming ``chart``, the column, the value and its row."""
    for column in columns:
        converted = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[converted.isna() & frame[column].notna()]
        if len(bad):
            raise ChartDataError(f"{chart}: column {column!r} holds a non-number, {frame.loc[bad[0], column]!r} "
                                 f"(row {bad[0]})")
        frame[column] = converted.astype(float)
    return frame
