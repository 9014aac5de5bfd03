"""Pure builders: a tidy DataFrame in, an altair chart out. No scoring here: the numbers come from
``workbench.metrics`` (scores) or ``workbench.analysis`` (UIR, F_α curves, strictness); a builder only
checks the columns it needs, fixes an order and draws. Test them through ``chart.to_dict()``.

Columns each builder reads (names are keyword arguments where the source may name them otherwise):

=========================  =====================================================================
``scores_chart``           ``output, measure, value``  (one row per output and measure)
``means_chart``            ``system, topic, measure, value``  (bars of the mean over topics)
``history_chart``          ``step, output, measure, value``
``f_alpha_chart``          ``system, alpha, value``    (Amigó et al., JAIR 2011, Fig. 4)
``per_topic_chart``        ``system, topic, measure, value``  (Amigó et al., JAIR 2011, Figs. 8–9)
``uir_heatmap``            ``system_a, system_b, uir`` or a square matrix (rows improve columns)
``measure_scatter``        ``system, topic, measure, value``  (Amigó et al., filtering metrics comparison, Fig. 1)
``strictness_chart``       ``measure, top_percent, strictness``  (Amigó et al., filtering metrics comparison, Fig. 8)
``lost_mass_chart``        ``document, measure, lost, order``  (``workbench.explain``: where a score loses mass)
=========================  =====================================================================

    >>> import pandas as pd
    >>> df = pd.DataFrame({"output": ["o1", "o1"], "measure": ["R≺", "S≺"], "value": [1.0, 0.86]})
    >>> scores_chart(df).to_dict()["layer"][0]["encoding"]["x"]["sort"]
    ['R≺', 'S≺']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import altair as alt
import pandas as pd

from workbench.analysis.results import MEASURE, MEASURES
from workbench.analysis.results import SYSTEMS as SYSTEM_NAMES
from workbench.charts.palettes import SYSTEMS
from workbench.charts.tables import ChartDataError, numeric_columns, require_columns
from workbench.data.campaign import COLUMNS
from workbench.model import natural_key
from workbench.validation import Flag, Instance, Interval, Text, validate

__all__ = ["UIR_THRESHOLD", "TABLE", "TITLE", "PIXELS", "category_colours", "ChartDataError", "require_columns",
           "numeric_columns",
           "scores_chart", "means_chart", "history_chart", "f_alpha_chart", "per_topic_chart", "uir_heatmap",
           "measure_scatter", "strictness_chart", "lost_mass_chart"]

UIR_THRESHOLD = 0.25  # Amigó et al., JAIR 2011, §6: UIR ≥ 0.25 marks a robust improvement
TABLE = Instance((pd.DataFrame,), "a pandas DataFrame")
"""The domain of the table a builder draws (:func:`require_columns` names the columns it lacks)."""
TITLE = Text(empty=True, optional=True)
"""The domain of a chart's ``title`` (None or "": the builder's own, or none)."""
PIXELS = Interval(1, 10_000, integer=True)
"""The domain of a width or height in pixels (bounded: a saved chart allocates its pixels)."""


def category_colours(field: str, order: list, title: str | None = None) -> alt.Color:
    """A colour per category in ``order``, from the colour-blind-safe :data:`~workbench.charts.palettes.SYSTEMS`
    (repeating past eight)."""
    colours = [SYSTEMS[i % len(SYSTEMS)] for i in range(len(order))]
    return alt.Color(field, sort=order, scale=alt.Scale(domain=order, range=colours),
                     title=alt.Undefined if title is None else title)


def _order(values: pd.Series) -> list:
    """Distinct values in order of first appearance (the order the caller chose)."""
    return list(dict.fromkeys(values.tolist()))


def _natural(values: pd.Series) -> list:
    return sorted(dict.fromkeys(values.tolist()), key=lambda v: natural_key(str(v)))


@validate(scores=TABLE, title=TITLE, width=replace(PIXELS, optional=True), height=PIXELS, legend=Flag())
def scores_chart(scores: pd.DataFrame, *, title: str | None = None, width: int | None = None, height: int = 220,
                 legend: bool = True) -> alt.Chart:
    """Grouped bars of several outputs' scores against one gold (Amigó et al., SIGIR 2013, Table 9): one group per
    measure, one bar per output, the value printed above each bar (``width`` defaults to 30 px per bar, ≥ 360). With a
    boolean column ``focused``, only the focused output's bars are printed and drawn opaque, the others faint (the rows
    can then be swapped with ``with_data`` as the focus moves)."""
    focused = "focused" in getattr(scores, "columns", ())
    data = require_columns(scores, ["output", "measure", "value", *(["focused"] if focused else [])],
                           "scores_chart")
    data = numeric_columns(data, ["value"], "scores_chart")
    measures, outputs = _order(data["measure"]), _order(data["output"])
    base = alt.Chart(data).encode(
        x=alt.X("measure:N", sort=measures, title=None, axis=alt.Axis(labelAngle=0, labelFontSize=14)),
        xOffset=alt.XOffset("output:N", sort=outputs),
        y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title="score"),
    )
    colour = category_colours("output:N", outputs, "output")
    if not legend:
        colour.legend = None
    bars = base.mark_bar().encode(
        color=colour,
        tooltip=["output:N", "measure:N", alt.Tooltip("value:Q", format=".4f")],
        **({"opacity": alt.condition("datum.focused", alt.value(1.0), alt.value(0.35))} if focused else {}),
    )
    labels = base.mark_text(dy=-6, fontSize=9).encode(text=alt.Text("value:Q", format=".2f"))
    if focused:
        labels = labels.transform_filter("datum.focused")
    width = width or max(360, 30 * len(measures) * len(outputs))
    return alt.layer(bars, labels).properties(width=width, height=height, title=title or "")


@validate(results=TABLE, title=TITLE, width=PIXELS)
def means_chart(results: pd.DataFrame, *, title: str | None = None, width: int = 420) -> alt.Chart:
    """Each system's mean score over topics, grouped by measure, with ±1 standard error bars (the mean and
    its error are aggregated by vega-lite when drawn) where a system has two topics or more (one topic has no
    error to draw: an empty layer would be an unnamed graphic for a screen reader)."""
    data = numeric_columns(require_columns(results, list(COLUMNS), "means_chart"), ["value"], "means_chart")
    measures, systems = _order(data["measure"]), _order(data["system"])
    base = alt.Chart(data).encode(
        x=alt.X("measure:N", sort=measures, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("system:N", sort=systems),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("mean(value):Q", title="mean over topics"),
        color=category_colours("system:N", systems),
        tooltip=["system:N", "measure:N", alt.Tooltip("mean(value):Q", format=".4f", title="mean"),
                 alt.Tooltip("count(value):Q", title="topics")],
    )
    if data.groupby(["system", "measure"], observed=True)["value"].count().max() < 2:
        return bars.properties(width=width, height=240, title=title or "")
    errors = base.mark_errorbar(extent="stderr").encode(y=alt.Y("value:Q", title="mean over topics"))
    return alt.layer(bars, errors).properties(width=width, height=240, title=title or "")


@validate(history=TABLE, title=TITLE, width=PIXELS)
def history_chart(history: pd.DataFrame, *, title: str | None = None, width: int = 360) -> alt.Chart:
    """Each measure's score after every edit, one line per measure, one panel per output; with a boolean column
    ``current`` (the step on screen, e.g. after an undo) that step is marked by a dashed rule and large points."""
    columns = ["step", "output", "measure", "value"]
    marked = "current" in getattr(history, "columns", ())
    data = require_columns(history, [*columns, "current"] if marked else columns, "history_chart")
    data = numeric_columns(data, ["value", "step"], "history_chart")
    measures, outputs = _order(data["measure"]), _order(data["output"])
    base = alt.Chart(data) if not marked else alt.Chart()
    line = base.mark_line(point=True).encode(
        x=alt.X("step:O", title="edit", axis=alt.Axis(labelAngle=0, labelOverlap=True)),
        y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1]), title="score"),
        color=category_colours("measure:N", measures),
        tooltip=["step:O", "output:N", "measure:N", alt.Tooltip("value:Q", format=".4f")],
    )
    size = {"width": width / max(1, min(len(outputs), 3)), "height": 160}
    if marked:
        now = alt.Chart().transform_filter("datum.current")
        rule = now.mark_rule(strokeDash=[4, 3], color="#222222").encode(x="step:O")
        points = now.mark_point(size=90, filled=True).encode(
            x="step:O", y="value:Q", color=category_colours("measure:N", measures))
        line = alt.layer(line, rule, points, data=data)
    line = line.properties(**size)
    return line.facet(column=alt.Column("output:N", sort=outputs, title=None)).properties(title=title or "")


@validate(curves=TABLE, highlight=replace(SYSTEM_NAMES, shortest=0, optional=False), title=TITLE, width=PIXELS)
def f_alpha_chart(curves: pd.DataFrame, *, highlight: Sequence[str] = (), title: str | None = None,
                  width: int = 360) -> alt.Chart:
    """F_α against α for several systems (Amigó et al., JAIR 2011, Fig. 4): systems in ``highlight`` drawn black and
    thick, the others grey (or all coloured when nothing is highlighted)."""
    data = require_columns(curves, ["system", "alpha", "value"], "f_alpha_chart")
    data = numeric_columns(data, ["value", "alpha"], "f_alpha_chart")
    systems = _order(data["system"])
    unknown = [s for s in highlight if s not in systems]
    if unknown:
        raise ChartDataError(f"f_alpha_chart: highlighted system(s) {unknown} are not in the table "
                             f"(it has {systems})")
    encoding = {
        "x": alt.X("alpha:Q", scale=alt.Scale(domain=[0, 1]), title="α"),
        "y": alt.Y("value:Q", title="F_α"),
        "detail": "system:N",
        "tooltip": ["system:N", alt.Tooltip("alpha:Q", format=".2f"), alt.Tooltip("value:Q", format=".4f")],
    }
    if highlight:
        data["highlighted"] = data["system"].isin(list(highlight))
        encoding["color"] = alt.condition("datum.highlighted", alt.value("black"), alt.value("#999999"))
        encoding["strokeWidth"] = alt.condition("datum.highlighted", alt.value(2.5), alt.value(1.2))
    else:
        encoding["color"] = category_colours("system:N", systems)
    chart = alt.Chart(data).mark_line().encode(**encoding)
    return chart.properties(width=width, height=240, title=title or "")


@validate(results=TABLE, systems=replace(SYSTEM_NAMES, optional=False), measures=replace(MEASURES, optional=False),
          title=TITLE, width=PIXELS)
def per_topic_chart(results: pd.DataFrame, systems: Sequence[str], measures: Sequence[str], *,
                    title: str | None = None, width: int = 480) -> alt.Chart:
    """Two measures (e.g. Purity and Inverse Purity) of two systems on every test case (Amigó et al., JAIR 2011, Figs.
    8–9): topics along x, one colour per system, one mark shape per measure."""
    data = require_columns(results, list(COLUMNS), "per_topic_chart")
    data = numeric_columns(data, ["value"], "per_topic_chart")
    for kind, wanted in (("system", systems), ("measure", measures)):
        present = data[kind]
        absent = [w for w in wanted if w not in set(present)]
        if absent:
            raise ChartDataError(f"per_topic_chart: {kind}(s) {absent} are not in the table "
                                 f"(it has {_order(present)})")
    data = data[data["system"].isin(list(systems)) & data["measure"].isin(list(measures))]
    data["topic"] = data["topic"].astype(str)
    return alt.Chart(data).mark_line(point=True, strokeWidth=1).encode(
        x=alt.X("topic:N", sort=_natural(data["topic"]), title="test case"),
        y=alt.Y("value:Q", title="score"),
        color=category_colours("system:N", list(systems)),
        strokeDash=alt.StrokeDash("measure:N", sort=list(measures)),
        shape=alt.Shape("measure:N", sort=list(measures)),
        tooltip=["system:N", "topic:N", "measure:N", alt.Tooltip("value:Q", format=".4f")],
    ).properties(width=width, height=240, title=title or "")


def _uir_long(uir: pd.DataFrame) -> pd.DataFrame:
    if {"system_a", "system_b", "uir"} <= set(uir.columns) or uir.empty:
        return require_columns(uir, ["system_a", "system_b", "uir"], "uir_heatmap")
    square = uir.copy()
    square.index = square.index.map(str)
    square.columns = square.columns.map(str)
    if sorted(square.index) != sorted(square.columns):
        raise ChartDataError("uir_heatmap: expected columns system_a, system_b, uir, or a square matrix "
                             f"whose rows and columns name the same systems; got rows {list(square.index)} "
                             f"and columns {list(square.columns)}")
    long = square.rename_axis(index="system_a", columns="system_b").stack()
    return long.rename("uir").reset_index()


@validate(uir=TABLE, threshold=Interval(-1, 1), title=TITLE, size=Interval(1, 500, integer=True))
def uir_heatmap(uir: pd.DataFrame, *, threshold: float = UIR_THRESHOLD, title: str | None = None,
                size: int = 36) -> alt.Chart:
    """The UIR matrix (Amigó et al., JAIR 2011, §4): cell (a, b) is UIR(a, b), how unanimously a improves b; cells at or
    above ``threshold`` (0.25, Amigó et al., JAIR 2011, §6) are outlined and their value printed in bold. The diagonal
    and missing cells are left blank."""
    data = numeric_columns(_uir_long(uir), ["uir"], "uir_heatmap").dropna(subset=["uir"])
    data["system_a"], data["system_b"] = data["system_a"].astype(str), data["system_b"].astype(str)
    data = data[data["system_a"] != data["system_b"]]  # UIR(a, a) says nothing
    data["robust"] = data["uir"] >= threshold
    systems = _natural(pd.concat([data["system_a"], data["system_b"]]))
    base = alt.Chart(data).encode(
        x=alt.X("system_b:N", sort=systems, title="improved upon (b)"),
        y=alt.Y("system_a:N", sort=systems, title="system (a)"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("uir:Q", title="UIR(a, b)", scale=alt.Scale(scheme="redblue", domain=[-1, 1])),
        stroke=alt.condition("datum.robust", alt.value("black"), alt.value(None)),
        strokeWidth=alt.condition("datum.robust", alt.value(2), alt.value(0)),
        tooltip=["system_a:N", "system_b:N", alt.Tooltip("uir:Q", format=".3f")],
    )
    text = alt.Text("uir:Q", format=".2f")
    plain = base.mark_text(fontSize=9).encode(text=text).transform_filter("!datum.robust")
    bold = base.mark_text(fontSize=9, fontWeight="bold").encode(text=text).transform_filter("datum.robust")
    heading = title or f"UIR matrix (outlined: UIR ≥ {threshold:g})"
    return alt.layer(cells, plain, bold).properties(width=size * len(systems), height=size * len(systems),
                                             title=heading)


@validate(results=TABLE, x=MEASURE, y=MEASURE, title=TITLE, width=PIXELS)
def measure_scatter(results: pd.DataFrame, x: str, y: str, *, title: str | None = None,
                    width: int = 260) -> alt.Chart:
    """One measure against another over (system, topic) pairs, one dot per system output for one test
    case (Amigó et al., filtering metrics comparison, Fig. 1)."""
    data = require_columns(results, list(COLUMNS), "measure_scatter")
    data = numeric_columns(data, ["value"], "measure_scatter")
    present = _order(data["measure"])
    for name in (x, y):
        if name not in present:
            raise ChartDataError(f"measure_scatter: measure {name!r} is not in the table (it has {present})")
    duplicated = data[data.duplicated(["system", "topic", "measure"], keep=False)]
    if not duplicated.empty:
        row = duplicated.iloc[0]
        raise ChartDataError(f"measure_scatter: system {row['system']!r}, topic {row['topic']!r} has measure "
                             f"{row['measure']!r} more than once")
    wide = data[data["measure"].isin([x, y])].pivot(index=["system", "topic"], columns="measure",
                                                    values="value")
    wide = wide.dropna().reset_index().rename(columns={x: "x", y: "y"})
    wide["topic"] = wide["topic"].astype(str)
    return alt.Chart(wide).mark_circle(size=30, opacity=0.7).encode(
        x=alt.X("x:Q", title=x),
        y=alt.Y("y:Q", title=y),
        color=category_colours("system:N", _order(wide["system"])),
        tooltip=["system:N", "topic:N", alt.Tooltip("x:Q", title=x, format=".4f"),
                 alt.Tooltip("y:Q", title=y, format=".4f")],
    ).properties(width=width, height=width, title=title or f"{y} vs {x}")


@validate(strictness=TABLE, top=Text(), value=Text(), title=TITLE, width=PIXELS)
def strictness_chart(strictness: pd.DataFrame, *, top: str = "top_percent", value: str = "strictness",
                     title: str | None = None, width: int = 360) -> alt.Chart:
    """Strictness of each measure over the top n% of outputs it ranks first (Amigó et al., filtering metrics comparison,
    Fig. 8)."""
    data = require_columns(strictness, ["measure", top, value], "strictness_chart")
    data = numeric_columns(data, [top, value], "strictness_chart")
    data = data.rename(columns={top: "top", value: "strictness"})
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("top:Q", title="top n% of outputs"),
        y=alt.Y("strictness:Q", title="strictness"),
        color=category_colours("measure:N", _order(data["measure"])),
        tooltip=["measure:N", "top:Q", alt.Tooltip("strictness:Q", format=".3f")],
    ).properties(width=width, height=240, title=title or "")


@validate(lost=TABLE, measures=replace(MEASURES, optional=False), title=TITLE)
def lost_mass_chart(lost: pd.DataFrame, *, measures: Sequence[str] = ("R≺", "S≺", "R∼", "S∼"),
                    title: str | None = None) -> alt.Chart:
    """Documents × measures: the score mass each document loses (``Explanation.lost()`` summed per document),
    darker for more, the value printed in the cell; rows sorted by ``order`` (so new rows can be swapped in
    with ``with_data`` and keep their place), a document whose ``chosen`` is true outlined."""
    columns = ["document", "measure", "lost", "order", "chosen"]
    if lost.empty and set(columns) <= set(lost.columns):
        data = lost[columns].copy()  # nothing lost: an empty chart, ready for rows swapped in later
    else:
        data = require_columns(lost, columns, "lost_mass_chart")
        data = numeric_columns(data, ["lost", "order"], "lost_mass_chart")
    base = alt.Chart(data).encode(
        x=alt.X("measure:N", sort=list(measures), title=None, axis=alt.Axis(labelAngle=0, orient="top")),
        y=alt.Y("document:N", sort=alt.EncodingSortField("order", order="ascending"), title=None),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("lost:Q", scale=alt.Scale(scheme="oranges", domainMin=0), legend=None),
        stroke=alt.condition("datum.chosen", alt.value("#1a237e"), alt.value(None)),
        strokeWidth=alt.condition("datum.chosen", alt.value(2), alt.value(0)),
        tooltip=["document:N", "measure:N", alt.Tooltip("lost:Q", format=".4f")],
    )
    labels = base.mark_text(fontSize=9).encode(text=alt.Text("lost:Q", format=".3f"))
    return alt.layer(cells, labels).properties(width=40 * len(measures), height=alt.Step(16),
                                               title=title or "")
