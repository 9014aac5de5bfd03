"""Charts of the many-system comparisons of :mod:`workbench.analysis`: Tukey's HSD intervals (``tukey_hsd``'s
frame) and the two system rankings of a ranking agreement (``ranking_agreement``'s ``rankings``). Pure builders:
a frame in, an altair chart out, nothing computed but the layout.

    >>> import pandas as pd
    >>> pairs = pd.DataFrame({"a": ["A"], "b": ["B"], "mean_difference": [0.1], "low": [0.02], "high": [0.18],
    ...                       "significant": [True]})
    >>> tukey_chart(pairs).to_dict()["layer"][0]["mark"]["type"]
    'rule'
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from workbench.analysis.results import MEASURE
from workbench.charts.builders import PIXELS, TABLE, TITLE, ChartDataError, category_colours, require_columns
from workbench.validation import Text, validate

__all__ = ["tukey_chart", "agreement_chart"]


@validate(pairs=TABLE, title=TITLE, width=PIXELS, test=Text(), difference=Text())
def tukey_chart(pairs: pd.DataFrame, *, title: str | None = None, width: int = 360, test: str = "Tukey's HSD",
                difference: str = "difference of means") -> alt.LayerChart:
    """One row per pair ``a − b``: the simultaneous interval (``low``–``high``) around ``mean_difference``, dark
    where the pair differs significantly (by ``test``, the legend's title), a rule at 0; ``difference`` titles
    the axis (Friedman's post-hoc tests draw differences of mean ranks)."""
    data = require_columns(pairs, ["a", "b", "mean_difference", "low", "high", "significant"], "tukey_chart")
    data = data.assign(pair=data["a"].astype(str) + " − " + data["b"].astype(str),
                       verdict=data["significant"].map({True: "differ", False: "do not differ"}))
    order = data["pair"].tolist()
    y = alt.Y("pair:N", sort=order, title=None)
    colour = alt.Color("verdict:N", scale=alt.Scale(domain=["differ", "do not differ"], range=["#1f3b73", "#9aa5b1"]),
                       title=test)
    tooltip = ["pair:N", alt.Tooltip("mean_difference:Q", format=".4f"), alt.Tooltip("low:Q", format=".4f"),
               alt.Tooltip("high:Q", format=".4f"), "verdict:N"]
    base = alt.Chart(data)
    intervals = base.mark_rule(strokeWidth=2).encode(x=alt.X("low:Q", title=difference), x2="high:Q",
                                                     y=y, color=colour, tooltip=tooltip)
    points = base.mark_point(filled=True, size=50).encode(x="mean_difference:Q", y=y, color=colour, tooltip=tooltip)
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(strokeDash=[4, 3], color="#666").encode(x="zero:Q")
    return alt.layer(intervals, points, zero).properties(width=width, height=max(60, 22 * len(order)),
                                                         title=title or "")


@validate(rankings=TABLE, measure_a=MEASURE, measure_b=MEASURE, title=TITLE, width=PIXELS)
def agreement_chart(rankings: pd.DataFrame, measure_a: str, measure_b: str, *, title: str | None = None,
                    width: int = 240) -> alt.LayerChart:
    """Each system's rank under ``measure_a`` and under ``measure_b`` joined by a line (a slope chart: crossing
    lines are the swapped pairs); ``rankings`` has ``system`` and ``rank <measure>`` columns."""
    columns = ["system", f"rank {measure_a}", f"rank {measure_b}"]
    data = require_columns(rankings, columns, "agreement_chart")
    if measure_a == measure_b:
        raise ChartDataError("agreement_chart: name two measures")
    long = data.melt(id_vars="system", value_vars=columns[1:], var_name="measure", value_name="rank")
    long["measure"] = long["measure"].str.removeprefix("rank ")
    systems = data.sort_values(columns[1])["system"].tolist()
    encoding = {"x": alt.X("measure:N", sort=[measure_a, measure_b], title=None, axis=alt.Axis(labelAngle=0)),
                "y": alt.Y("rank:Q", scale=alt.Scale(reverse=True, domain=[1, max(len(systems), 2)]),
                           title="rank (1 = best)", axis=alt.Axis(tickMinStep=1)),
                "color": category_colours("system:N", systems), "detail": "system:N",
                "tooltip": ["system:N", "measure:N", "rank:Q"]}
    lines = alt.Chart(long).mark_line(point=True).encode(**encoding)
    return alt.layer(lines).properties(width=width, height=max(120, 24 * len(systems)), title=title or "")
