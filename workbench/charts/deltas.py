"""The per-topic differences of two systems as bars (:func:`workbench.analysis.topic_deltas`): one bar per topic,
sorted as the table is (where ``a`` wins most first), coloured by who wins, a click selecting the topic.

The chart carries two parameters for a live view: the point selection ``pick`` (the topic of the bar clicked,
read through ``alt.JupyterChart.selections``) and the variable ``chosen`` (the topic whose bar is outlined, set
through ``alt.JupyterChart.params``).

    >>> import pandas as pd
    >>> deltas = pd.DataFrame({"topic": ["q2", "q1"], "value_a": [0.9, 0.2], "value_b": [0.1, 0.6],
    ...                        "difference": [0.8, -0.4], "advantage": [0.8, -0.4], "winner": ["A", "B"]})
    >>> spec = topic_deltas_chart(deltas, ("A", "B"), "AP").to_dict()
    >>> [p["name"] for p in spec["params"]], spec["encoding"]["x"]["sort"]
    (['pick', 'chosen'], ['q2', 'q1'])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import altair as alt
import pandas as pd

from workbench.analysis.results import MEASURE
from workbench.analysis.results import SYSTEMS as SYSTEM_NAMES
from workbench.charts.builders import PIXELS, TABLE, TITLE, require_columns
from workbench.charts.palettes import SYSTEMS, TIE
from workbench.validation import Text, validate

__all__ = ["COLUMNS", "topic_deltas_chart"]

COLUMNS = ["topic", "value_a", "value_b", "difference", "advantage", "winner"]


@validate(deltas=TABLE, systems=replace(SYSTEM_NAMES, shortest=2, longest=2, optional=False,
                                        what="the two systems (a, b)"),
          measure=MEASURE, chosen=Text(empty=True, optional=True), width=replace(PIXELS, optional=True), height=PIXELS,
          title=TITLE)
def topic_deltas_chart(deltas: pd.DataFrame, systems: Sequence[str], measure: str, *, chosen: str | None = None,
                       width: int | None = None, height: int = 150, title: str | None = None) -> alt.Chart:
    """Bars of ``advantage`` (a − b, turned so that up favours ``a``) per topic, in the table's order, coloured
    by ``winner`` (``a``: the first system colour, ``b``: the second, a tie grey), the ``chosen`` topic
    outlined; ``width`` defaults to 9 px per topic (at least 360)."""
    data = require_columns(deltas, COLUMNS, "topic_deltas_chart").assign(topic=lambda f: f["topic"].astype(str))
    a, b = (str(s) for s in systems)
    topics = data["topic"].tolist()
    pick = alt.selection_point(name="pick", fields=["topic"], on="click", clear=False, empty=False)
    focus = alt.param(name="chosen", value=chosen if chosen is not None else "")
    many = len(topics) > 40
    return alt.Chart(data).mark_bar(cursor="pointer").encode(
        x=alt.X("topic:N", sort=topics, title=f"topics ({len(topics)}), where {a} wins most first",
                axis=alt.Axis(labels=not many, ticks=not many, labelAngle=-60)),
        y=alt.Y("advantage:Q", title=f"{a} better ↑  ·  {b} better ↓"),
        color=alt.Color("winner:N", scale=alt.Scale(domain=[a, b, "tie"], range=[SYSTEMS[0], SYSTEMS[1], TIE]),
                        legend=alt.Legend(title="wins", orient="top")),
        stroke=alt.condition("datum.topic === chosen", alt.value("#000000"), alt.value(None)),
        strokeWidth=alt.condition("datum.topic === chosen", alt.value(2.5), alt.value(0)),
        opacity=alt.condition("chosen === '' || datum.topic === chosen", alt.value(1.0), alt.value(0.55)),
        tooltip=["topic:N", alt.Tooltip("value_a:Q", format=".4f", title=a),
                 alt.Tooltip("value_b:Q", format=".4f", title=b),
                 alt.Tooltip("difference:Q", format="+.4f", title=f"{a} − {b}"), "winner:N"],
    ).add_params(pick, focus).properties(
        width=width or max(360, 9 * len(topics)), height=height,
        title=title if title is not None else f"{measure} per topic: {a} − {b} (click a bar)")
