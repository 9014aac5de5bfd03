"""The interpolated precision–recall chart: each system's mean curve over topics with the per-topic spread
as a band. The numbers come from :func:`workbench.analysis.curves.precision_recall` (the kernel
:func:`workbench.metrics.ranking.curves.interpolated_precision`) and :func:`~workbench.analysis.curves.
curve_summary`; the builder only draws them.

    >>> import pandas as pd
    >>> curves = pd.DataFrame({"system": ["A"] * 4, "topic": ["q1", "q1", "q2", "q2"],
    ...                        "recall": [0.0, 1.0, 0.0, 1.0], "precision": [1.0, 0.5, 0.5, 0.25]})
    >>> [layer["mark"]["type"] for layer in precision_recall_chart(curves).to_dict()["layer"]]
    ['area', 'line']
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from workbench.analysis.curves import COLUMNS, curve_summary
from workbench.charts.builders import PIXELS, TABLE, TITLE, ChartDataError, category_colours, require_columns
from workbench.metrics.ranking.curves import ELEVEN_POINTS
from workbench.validation import Choices, validate

__all__ = ["SPREADS", "precision_recall_chart"]

SPREADS = {"quartiles": ("q25", "q75", "25th–75th percentile of topics"),
           "range": ("min", "max", "min–max over topics"), "none": None}


@validate(curves=TABLE, spread=Choices(tuple(SPREADS)), title=TITLE, width=PIXELS)
def precision_recall_chart(curves: pd.DataFrame, *, spread: str = "quartiles", title: str | None = None,
                           width: int = 360) -> alt.LayerChart:
    """Interpolated precision against recall, one colour per system: the mean over topics as a line (with
    points on the 11-point curve, as steps on a full curve: interpolated precision holds from one level to
    the next), and the spread over topics as a band (``spread``: ``"quartiles"``, ``"range"`` or
    ``"none"``). ``curves``: ``system, topic, recall, precision`` as :func:`precision_recall` returns."""
    data = require_columns(curves, COLUMNS, "precision_recall_chart")
    for column in ("recall", "precision"):
        converted = pd.to_numeric(data[column], errors="coerce")
        if converted.isna().any():
            row = data.index[converted.isna()][0]
            raise ChartDataError(f"precision_recall_chart: column {column!r} holds a non-number, "
                                 f"{data.loc[row, column]!r} (row {row})")
        data[column] = converted.astype(float)
    summary = curve_summary(data)
    systems = list(dict.fromkeys(summary["system"]))
    eleven = np.array_equal(np.sort(summary["recall"].unique()), np.asarray(ELEVEN_POINTS))
    interpolate = "linear" if eleven else "step-before"
    x = alt.X("recall:Q", scale=alt.Scale(domain=[0, 1]), title="recall")
    color = category_colours("system:N", systems, "system")
    tooltip = ["system:N", alt.Tooltip("recall:Q", format=".3f"), alt.Tooltip("mean:Q", format=".4f"),
               alt.Tooltip("q25:Q", format=".4f"), alt.Tooltip("q75:Q", format=".4f"), "topics:Q"]
    base = alt.Chart(summary)
    line = base.mark_line(point=eleven, interpolate=interpolate).encode(
        x=x, y=alt.Y("mean:Q", scale=alt.Scale(domain=[0, 1]), title="interpolated precision (mean over topics)"),
        color=color, tooltip=tooltip)
    heading = title or ("11-point interpolated precision–recall" if eleven else
                        "interpolated precision–recall")
    if SPREADS[spread] is None:
        return alt.layer(line).properties(width=width, height=width * 2 // 3, title=heading)
    low, high, what = SPREADS[spread]
    band = base.mark_area(opacity=0.18, interpolate=interpolate).encode(
        x=x, y=alt.Y(f"{low}:Q"), y2=alt.Y2(f"{high}:Q"), color=color, tooltip=tooltip)
    return alt.layer(band, line).properties(width=width, height=width * 2 // 3,
                                            title=alt.TitleParams(heading, subtitle=f"band: {what}"))
