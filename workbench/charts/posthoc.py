"""Charts of the post-hoc comparisons: Demšar's critical-difference diagram (JMLR 2006, §3.2.2, Fig. 1) of a
Friedman-type post-hoc test's mean ranks, and the sign plot of any post-hoc test's p-values (scikit-posthocs'
``sign_plot``). Pure builders: the pairs frame of :func:`~workbench.analysis.rank_tests.friedman` or
:func:`~workbench.analysis.posthoc_family.posthoc` in, an altair chart out, nothing computed but the layout.

    >>> import pandas as pd
    >>> from workbench.analysis import friedman
    >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4, .6], "B": [.2, .3, .35, .4],
    ...         "C": [.6, .7, .65, .8]}.items() for t, v in enumerate(vs)]
    >>> pairs = friedman(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP")
    >>> [layer["mark"]["type"] for layer in critical_difference_chart(pairs).to_dict()["layer"]][:3]
    ['rule', 'tick', 'text']
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from workbench.analysis.posthoc_family import POSTHOC_TESTS
from workbench.charts.builders import PIXELS, TABLE, TITLE, ChartDataError, require_columns
from workbench.validation import validate

__all__ = ["SIGNIFICANCE_LEVELS", "critical_difference_chart", "sign_plot"]

SIGNIFICANCE_LEVELS = (("p < 0.001", 0.001, "#08306b"), ("p < 0.01", 0.01, "#2171b5"),
                       ("p < 0.05", 0.05, "#6baed6"), ("not significant", math.inf, "#f0f0f0"))
"""The sign plot's classes of p-values (scikit-posthocs' ``sign_plot``): label, upper bound, colour (one blue
whose lightness grows with p: it reads in every colour vision; the label is in the tooltip)."""


def _mean_ranks(pairs: pd.DataFrame) -> dict:
    """The Friedman mean ranks (1 the worst) in the frame's ``.attrs``, or :class:`ChartDataError`."""
    if "mean_ranks" in pairs.attrs:
        return dict(pairs.attrs["mean_ranks"])
    test = pairs.attrs.get("test")
    if "locations" in pairs.attrs and test in POSTHOC_TESTS and POSTHOC_TESTS[test].location == "mean rank":
        return dict(pairs.attrs["locations"])
    raise ChartDataError("critical_difference_chart: draws the pairs of friedman() or of posthoc() with a test "
                         "on each topic's ranks (nemenyi, conover, durbin, siegel-friedman, miller-friedman)")


@validate(pairs=TABLE, title=TITLE, width=PIXELS)
def critical_difference_chart(pairs: pd.DataFrame, *, title: str | None = None,
                              width: int = 480) -> alt.LayerChart | alt.FacetChart:
    """Demšar's diagram: the systems on an axis of mean rank (1 the best, on the left, as in Demšar's Fig. 1),
    each named at the end of a leader line (the better half to the left, the rest to the right), a thick bar
    under the axis joining each homogeneous group (``.attrs["groups"]``: systems no test separates), and above
    the axis the critical difference where the test gives every pair one interval: the half-width of ``low``–
    ``high``, Demšar's CD = q_α √(k(k+1)/(6n)) for Nemenyi's test."""
    require_columns(pairs, ["a", "b", "low", "high"], "critical_difference_chart")
    ranks = _mean_ranks(pairs)
    k = len(ranks)
    demsar = {system: k + 1 - rank for system, rank in ranks.items()}  # 1 the best
    order = sorted(demsar, key=lambda system: demsar[system])
    half = (len(order) + 1) // 2
    leaders, labels = [], []
    for i, system in enumerate(order):
        left = i < half
        depth = -(i + 1) if left else -(len(order) - i)
        end = 0.6 if left else k + 0.4
        leaders += [{"system": system, "x": demsar[system], "y": 0.0, "step": 0},
                    {"system": system, "x": demsar[system], "y": depth, "step": 1},
                    {"system": system, "x": end, "y": depth, "step": 2}]
        labels.append({"system": system, "x": end, "y": depth, "align": "right" if left else "left",
                       "text": f"{system} ({demsar[system]:.2f})" if left else f"({demsar[system]:.2f}) {system}"})
    x = alt.Scale(domain=[0.4 - k * 0.25, k + 0.6 + k * 0.25], nice=False)
    y = alt.Scale(domain=[-(half + 1.0), 1.6], nice=False)
    hidden = alt.Axis(labels=False, ticks=False, domain=False, grid=False, title=None)
    axis_rule = alt.Chart(pd.DataFrame({"x": [1.0], "x2": [float(k)], "y": [0.0]})).mark_rule(color="#222").encode(
        x=alt.X("x:Q", scale=x, axis=hidden), x2="x2:Q", y=alt.Y("y:Q", scale=y, axis=hidden))
    ticks = pd.DataFrame({"x": [float(r) for r in range(1, k + 1)], "y": 0.0})
    tick_marks = alt.Chart(ticks).mark_tick(orient="vertical", color="#222", size=8).encode(
        x=alt.X("x:Q", scale=x), y=alt.Y("y:Q", scale=y))
    tick_labels = alt.Chart(ticks).mark_text(dy=-12, color="#222").encode(
        x=alt.X("x:Q", scale=x), y=alt.Y("y:Q", scale=y), text=alt.Text("x:Q", format="d"))
    lines = alt.Chart(pd.DataFrame(leaders)).mark_line(color="#444", strokeWidth=1).encode(
        x=alt.X("x:Q", scale=x), y=alt.Y("y:Q", scale=y), detail="system:N", order="step:Q")
    names = [alt.Chart(pd.DataFrame([row for row in labels if row["align"] == align])).mark_text(
        align=align, dx=-4 if align == "right" else 4, fontSize=12).encode(
        x=alt.X("x:Q", scale=x), y=alt.Y("y:Q", scale=y), text="text:N",
        tooltip=["system:N"]) for align in ("right", "left") if any(r["align"] == align for r in labels)]
    layers: list[alt.Chart] = [axis_rule, tick_marks, tick_labels, lines, *names]
    groups = [g for g in pairs.attrs.get("groups", []) if len(g) > 1]
    if groups:
        bars = pd.DataFrame([{"group": i, "x": min(demsar[s] for s in g) - 0.05, "x2": max(demsar[s] for s in g)
                              + 0.05, "y": -0.35 - 0.25 * (i % max(half, 1))} for i, g in enumerate(groups)])
        layers.append(alt.Chart(bars).mark_rule(strokeWidth=4, color="#111").encode(
            x=alt.X("x:Q", scale=x), x2="x2:Q", y=alt.Y("y:Q", scale=y)))
    widths = ((pairs["high"] - pairs["low"]) / 2).to_numpy(dtype=float)
    if np.isfinite(widths).all() and np.allclose(widths, widths[0], rtol=1e-9):  # one for all: the critical difference
        cd = float(widths[0])
        bar = pd.DataFrame({"x": [1.0], "x2": [1.0 + cd], "y": [1.1], "text": [f"CD = {cd:.2f}"]})
        base = alt.Chart(bar)
        layers += [base.mark_rule(strokeWidth=2, color="#222").encode(x=alt.X("x:Q", scale=x), x2="x2:Q",
                                                                      y=alt.Y("y:Q", scale=y)),
                   base.mark_text(dy=-9, align="left").encode(x=alt.X("x:Q", scale=x), y=alt.Y("y:Q", scale=y),
                                                              text="text:N")]
    height = max(120, 26 * (half + 3))
    return alt.layer(*layers).properties(width=width, height=height, title=title or "")


@validate(pairs=TABLE, title=TITLE, width=PIXELS)
def sign_plot(pairs: pd.DataFrame, *, title: str | None = None, width: int = 320) -> alt.Chart:
    """Every pair's p-value (``a, b, pvalue``) as a cell of a symmetric systems × systems grid, coloured by its
    class (:data:`SIGNIFICANCE_LEVELS`), the diagonal empty: scikit-posthocs' ``sign_plot``."""
    data = require_columns(pairs, ["a", "b", "pvalue"], "sign_plot")
    systems = list(dict.fromkeys([*data["a"].tolist(), *data["b"].tolist()]))
    both = pd.concat([data[["a", "b", "pvalue"]],
                      data[["b", "a", "pvalue"]].set_axis(["a", "b", "pvalue"], axis=1)], ignore_index=True)
    names = [name for name, _, _ in SIGNIFICANCE_LEVELS]
    both["class"] = [next((name for name, bound, _ in SIGNIFICANCE_LEVELS if p < bound), names[-1])
                     for p in both["pvalue"]]
    side = max(12, width // max(len(systems), 1))
    colour = alt.Color("class:N", scale=alt.Scale(domain=names, range=[c for _, _, c in SIGNIFICANCE_LEVELS]),
                       title="p-value")
    return alt.Chart(both).mark_rect(stroke="#ffffff").encode(
        x=alt.X("b:N", sort=systems, title=None), y=alt.Y("a:N", sort=systems, title=None), color=colour,
        tooltip=["a:N", "b:N", alt.Tooltip("pvalue:Q", format=".4g"), "class:N"]).properties(
        width=side * len(systems), height=side * len(systems), title=title or "")
