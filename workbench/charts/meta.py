"""Charts of the methods that judge measures (:mod:`workbench.analysis.meta`): pure builders, a method's frame in,
an altair chart out, nothing computed but the layout.

==========================  ===========================================================================
``stability_chart``         minority rate against proportion of ties, one line per measure traced over the
                            fuzziness values (Sakai, P-measure, SIGIR 2006, Figure 2; Buckley and Voorhees 2000)
``swap_chart``              swap rate against the absolute difference, one line per measure, α marked
                            (Voorhees and Buckley 2002)
``sensitivity_chart``       the P-measure paper's Table 1: difference required and sensitivity per measure
``asl_chart``               achieved significance level of every pair of systems, sorted, one curve per measure,
                            α marked (Sakai, SIGIR 2006)
``topic_set_size_chart``    topics needed against the minimum difference (or CI width), per measure and design
``trust_charts``            all of them for a :class:`~workbench.analysis.meta.trust.TrustReport`
==========================  ===========================================================================

    >>> import pandas as pd
    >>> points = pd.DataFrame({"measure": ["AP", "AP", "RR", "RR"], "fuzziness": [0.01, 0.05, 0.01, 0.05],
    ...                        "minority_rate": [0.01, 0.0, 0.12, 0.04], "ties": [0.02, 0.1, 0.07, 0.33]})
    >>> stability_chart(points).to_dict()["encoding"]["x"]["title"]
    'proportion of ties'
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from workbench.analysis.meta.trust import TrustReport
from workbench.analysis.results import ALPHA
from workbench.charts.builders import (
    PIXELS,
    TABLE,
    TITLE,
    ChartDataError,
    category_colours,
    numeric_columns,
    require_columns,
)
from workbench.validation import AnyOf, Choices, Instance, validate

__all__ = ["stability_chart", "swap_chart", "sensitivity_chart", "asl_chart", "topic_set_size_chart",
           "trust_charts"]

_ALPHA = AnyOf(ALPHA, Choices((None,)), what=f"{ALPHA} or None")


def _measures(frame: pd.DataFrame) -> list:
    return list(dict.fromkeys(frame["measure"].tolist()))


def _alpha_of(frame: pd.DataFrame, alpha: float | None, chart: str) -> float:
    """``alpha`` as given, else the frame's one ``alpha`` column value, else 0.05."""
    if alpha is not None:
        return float(alpha)
    if "alpha" in frame.columns:
        values = pd.to_numeric(frame["alpha"], errors="coerce").dropna().unique()
        if len(values) > 1:
            raise ChartDataError(f"{chart}: the table holds several alphas ({sorted(values)}); pass alpha=")
        if len(values) == 1:
            return float(values[0])
    return 0.05


def _level_rule(alpha: float, field: str) -> alt.Chart:
    return alt.Chart(pd.DataFrame({field: [alpha]})).mark_rule(strokeDash=[4, 3], color="#555555").encode(
        y=alt.Y(f"{field}:Q"), tooltip=[alt.Tooltip(f"{field}:Q", title="α")])


@validate(stability=TABLE, title=TITLE, width=PIXELS)
def stability_chart(stability: pd.DataFrame, *, title: str | None = None, width: int = 360) -> alt.Chart:
    """Minority rate (y) against proportion of ties (x), one line per measure through its fuzziness values (the
    P-measure paper's Figure 2): the lower and the further left, the more stable. ``stability``: ``measure,
    fuzziness, minority_rate, ties`` as :func:`~workbench.analysis.meta.stability.stability_method` returns."""
    data = require_columns(stability, ["measure", "fuzziness", "minority_rate", "ties"], "stability_chart")
    data = numeric_columns(data, ["fuzziness", "minority_rate", "ties"], "stability_chart").sort_values(
        ["measure", "fuzziness"], kind="stable")
    measures = _measures(require_columns(stability, ["measure"], "stability_chart"))
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("ties:Q", title="proportion of ties", axis=alt.Axis(format="%")),
        y=alt.Y("minority_rate:Q", title="minority rate", axis=alt.Axis(format="%")),
        color=category_colours("measure:N", measures, "measure"),
        order="fuzziness:Q",
        tooltip=["measure:N", alt.Tooltip("fuzziness:Q", format=".0%"), alt.Tooltip("ties:Q", format=".2%"),
                 alt.Tooltip("minority_rate:Q", format=".2%")],
    ).properties(width=width, height=width * 2 // 3,
                 title=title or "Stability (Buckley & Voorhees): minority rate against proportion of ties")


@validate(rates=TABLE, alpha=_ALPHA, title=TITLE,
          width=PIXELS)
def swap_chart(rates: pd.DataFrame, *, alpha: float | None = 0.05, title: str | None = None,
               width: int = 360) -> alt.LayerChart | alt.FacetChart:
    """Swap rate (y) against the absolute difference (x, each bin at its lower edge; empty bins left out), one line
    per measure, a dashed rule at ``alpha``: where a measure's line stays under it, a difference of that size holds
    at 1 − α confidence (Voorhees and Buckley 2002). ``rates``: :func:`~workbench.analysis.meta.swap.swap_rates`."""
    data = require_columns(rates, ["measure", "low", "observations", "swap_rate"], "swap_chart")
    data = numeric_columns(data, ["low", "observations", "swap_rate"], "swap_chart")
    measures = _measures(data)
    data = data[data["observations"] > 0]
    if data.empty:
        raise ChartDataError("swap_chart: every bin is empty")
    lines = alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("low:Q", title="absolute difference (lower edge of the bin)"),
        y=alt.Y("swap_rate:Q", title="swap rate", axis=alt.Axis(format="%")),
        color=category_colours("measure:N", measures, "measure"),
        tooltip=["measure:N", alt.Tooltip("low:Q", format=".3f", title="difference ≥"),
                 alt.Tooltip("swap_rate:Q", format=".2%"), alt.Tooltip("observations:Q", format=",")],
    )
    layers = [lines] if alpha is None else [lines, _level_rule(float(alpha), "swap_rate")]
    return alt.layer(*layers).properties(width=width, height=width * 2 // 3,
                                         title=title or "Swap method (Voorhees & Buckley): swap rate by difference")


@validate(table=TABLE, title=TITLE)
def sensitivity_chart(table: pd.DataFrame, *, title: str | None = None) -> alt.LayerChart | alt.FacetChart:
    """The P-measure paper's Table 1 as a small table: one column per measure (in the order of ``table``, most
    sensitive first in a :class:`~workbench.analysis.meta.trust.TrustReport`), rows "absolute diff. required" and
    "sensitivity" (and "discriminative power" when the table has it). A measure without a difference required
    shows "—"."""
    wanted = ["measure", "difference_required", "sensitivity"]
    extra = ["discriminative_power"] if "discriminative_power" in getattr(table, "columns", ()) else []
    data = numeric_columns(require_columns(table, wanted + extra, "sensitivity_chart"), wanted[1:] + extra,
                    "sensitivity_chart")
    measures = _measures(data)
    cells = []
    for _, row in data.iterrows():
        required = row["difference_required"]
        cells.append({"measure": row["measure"], "row": "absolute diff. required",
                      "text": "—" if np.isnan(required) else f"{required:.2f}"})
        cells.append({"measure": row["measure"], "row": "sensitivity", "text": f"{row['sensitivity']:.1%}"})
        if extra:
            cells.append({"measure": row["measure"], "row": "discriminative power",
                          "text": f"{row['discriminative_power']:.1%}"})
    rows = ["absolute diff. required", "sensitivity"] + (["discriminative power"] if extra else [])
    grid = pd.DataFrame(cells)
    base = alt.Chart(grid).encode(
        x=alt.X("measure:N", sort=measures, title=None, axis=alt.Axis(orient="top", labelAngle=0, domain=False,
                                                                      ticks=False)),
        y=alt.Y("row:N", sort=rows, title=None, axis=alt.Axis(domain=False, ticks=False)))
    frame = base.mark_rect(fill="white", stroke="#cccccc")
    text = base.mark_text(fontSize=12).encode(text="text:N", tooltip=["measure:N", "row:N", "text:N"])
    return alt.layer(frame, text).properties(width=max(240, 90 * len(measures)), height=26 * len(rows),
                                             title=title or "Difference required and sensitivity at 95% confidence")


@validate(asl=TABLE, alpha=_ALPHA, title=TITLE,
          width=PIXELS)
def asl_chart(asl: pd.DataFrame, *, alpha: float | None = None, title: str | None = None,
              width: int = 360) -> alt.LayerChart | alt.FacetChart:
    """Sakai's ASL curves: each pair of systems' achieved significance level (y) against its rank when the pairs
    are sorted by ASL (x), one curve per measure on one chart, a dashed rule at α (``alpha``, else the frame's):
    the further right a curve stays under it, the more pairs the measure discriminates. ``asl``:
    :func:`~workbench.analysis.meta.bootstrap.achieved_significance`."""
    data = require_columns(asl, ["measure", "system_a", "system_b", "asl", "rank"], "asl_chart")
    measures = _measures(data)
    data = numeric_columns(data, ["asl", "rank"], "asl_chart").sort_values(["measure", "rank"], kind="stable")
    level = _alpha_of(asl, alpha, "asl_chart")
    data["pair"] = data["system_a"].astype(str) + " vs " + data["system_b"].astype(str)
    curves = alt.Chart(data).mark_line(point=len(data) <= 400).encode(
        x=alt.X("rank:Q", title="system pairs sorted by ASL"),
        y=alt.Y("asl:Q", title="achieved significance level", scale=alt.Scale(domain=[0, 1])),
        color=category_colours("measure:N", measures, "measure"),
        tooltip=["measure:N", "pair:N", alt.Tooltip("asl:Q", format=".3f"), "rank:Q"],
    )
    return alt.layer(curves, _level_rule(level, "asl")).properties(
        width=width, height=width * 2 // 3, title=title or "Bootstrap ASL curves (Sakai, SIGIR 2006)")


@validate(sizes=TABLE, title=TITLE, width=PIXELS)
def topic_set_size_chart(sizes: pd.DataFrame, *, title: str | None = None, width: int = 360) -> alt.Chart:
    """Topics needed (y, log scale) against the minimum detectable difference or CI width (x), one colour per
    measure, solid for the power design and dashed for the CI design (Sakai's topic set size design).
    ``sizes``: :func:`~workbench.analysis.meta.topic_sets.topic_set_size`."""
    data = require_columns(sizes, ["measure", "design", "difference", "topics"], "topic_set_size_chart")
    data = numeric_columns(data, ["difference", "topics"], "topic_set_size_chart").dropna(subset=["topics"])
    if data.empty:
        raise ChartDataError("topic_set_size_chart: no measure has a topic set size (all NaN)")
    return alt.Chart(data).mark_line(point=True).encode(
        x=alt.X("difference:Q", title="minimum detectable difference (power) or CI width (ci)"),
        y=alt.Y("topics:Q", title="topics needed", scale=alt.Scale(type="log")),
        color=category_colours("measure:N", _measures(data), "measure"),
        strokeDash=alt.StrokeDash("design:N", sort=["power", "ci"], title="design"),
        tooltip=["measure:N", "design:N", alt.Tooltip("difference:Q", format=".3f"), alt.Tooltip("topics:Q")],
    ).properties(width=width, height=width * 2 // 3, title=title or "Topic set size design (Sakai)")


@validate(report=Instance((TrustReport,), "a TrustReport (measure_trust's)"), title=TITLE, width=PIXELS)
def trust_charts(report: TrustReport, *, title: str | None = None, width: int = 320) -> alt.VConcatChart:
    """Which measure to trust, at a glance: the Table 1 summary on top, then the stability and swap charts side by
    side, then the ASL curves and the topic set sizes. ``report``: :func:`~workbench.analysis.meta.trust.
    measure_trust`."""
    top = sensitivity_chart(report.table, title=report.summary)
    middle = alt.hconcat(stability_chart(report.stability, width=width), swap_chart(
        report.swap, alpha=float(report.sensitivity["alpha"].iloc[0]), width=width))
    bottom = alt.hconcat(asl_chart(report.asl, width=width), topic_set_size_chart(report.topic_sets, width=width))
    return alt.vconcat(top, middle, bottom).resolve_scale(color="shared").properties(
        title=title or "Which measure to trust")
