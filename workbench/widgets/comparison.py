"""Compare the systems of a campaign: tidy results (``system, topic, measure, value``) → the comparison
charts of ``workbench.charts`` behind a chart, system and measure selector.

The UIR matrix, the F_α curves, the strictness curves, Tukey's HSD, Friedman's test and the ranking agreement come
from ``workbench.analysis`` (``uir_matrix`` over the two selected measures, ``f_alpha_curves`` with measure x as
precision and y as recall, ``top_n_strictness`` over every measure, ``tukey_hsd`` of measure x with its
homogeneous groups, ``friedman`` of measure x with Nemenyi's or Conover's single-step post-hoc and its groups,
``ranking_agreement`` of measure x and measure y: τ, τ_ap and the swapped pairs); tables
computed beforehand may be passed as ``f_alpha`` and ``strictness`` instead. The widget computes nothing itself.

The analyses run, and the summary and any refusal show, as soon as a selector changes; the chart itself (altair,
about 0.4 CPU-s to import, and the chart's vega bundle sent to the browser) is built when the browser first draws
the widget (``workbench.widgets.drawn``), or when ``chart_widget`` is first read: a page of several widgets
shows the others first (issue 41).

    >>> cmp = Comparison(results)                                      # doctest: +SKIP
    >>> cmp.view.value = "measure vs measure"; cmp.measure_y.value = "S∼"  # doctest: +SKIP
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

import ipywidgets as W
import pandas as pd

from workbench import charts
from workbench.charts.tables import ChartDataError, numeric_columns, require_columns
from workbench.data.campaign import COLUMNS
from workbench.validation import Anything, Instance, validate
from workbench.widgets.drawn import Drawn

if TYPE_CHECKING:
    import altair as alt

__all__ = ["FRIEDMAN", "Comparison"]

_RESULTS = Instance((pd.DataFrame,), "a tidy results DataFrame (system, topic, measure, value)")
_TABLE = Instance((pd.DataFrame,), "a DataFrame computed beforehand", optional=True)
_EMBED = {"actions": False}  # no export menu (its button has no accessible name); ``save_chart`` writes figures
MEANS, SCATTER, PER_TOPIC, UIR, F_ALPHA, STRICTNESS, TUKEY, AGREEMENT = (
    "mean scores", "measure vs measure", "two systems per test case", "UIR matrix", "F_α curves",
    "strictness", "Tukey's HSD groups", "ranking agreement (τ)")
FRIEDMAN = {"Friedman + Nemenyi groups": "nemenyi", "Friedman + Conover groups": "conover"}


def _analysis(name: str):
    try:
        from workbench import analysis

        return getattr(analysis, name)
    except (ImportError, AttributeError) as missing:
        raise ChartDataError(f"this chart needs workbench.analysis.{name} ({missing})") from None


class Comparison(W.VBox):
    """Charts of a campaign's results with selectors: ``view`` (which chart), ``systems`` (which systems),
    ``measure_x`` / ``measure_y`` (the two measures a scatter, per-topic chart or UIR uses)."""

    @validate(results=_RESULTS, f_alpha=_TABLE, strictness=_TABLE, kwargs=Anything("passed to ipywidgets"))
    def __init__(self, results: pd.DataFrame, *, f_alpha: pd.DataFrame | None = None,
                 strictness: pd.DataFrame | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.results = numeric_columns(require_columns(results, list(COLUMNS), "Comparison"), ["value"],
                                       "Comparison")
        self.f_alpha, self.strictness = f_alpha, strictness
        systems = list(dict.fromkeys(self.results["system"].astype(str)))
        measures = list(dict.fromkeys(self.results["measure"].astype(str)))
        self.view = W.Dropdown(options=[MEANS, SCATTER, PER_TOPIC, UIR, F_ALPHA, STRICTNESS, TUKEY, *FRIEDMAN,
                                        AGREEMENT],
                               value=MEANS, description="chart")
        self.systems = W.SelectMultiple(options=systems, value=tuple(systems), description="systems",
                                        rows=min(8, len(systems)))
        self.measure_x = W.Dropdown(options=measures, value=measures[0], description="measure x")
        self.measure_y = W.Dropdown(options=measures, value=measures[min(1, len(measures) - 1)],
                                    description="measure y")
        for control in (self.view, self.systems, self.measure_x, self.measure_y):
            control.observe(lambda _: self.redraw(), "value")
        self.message = W.HTML()
        self.message.add_class("wb-comparison-message")
        self.summary = W.HTML()  # what the Tukey, Friedman and agreement views read out: the groups, τ, the swaps
        self.summary.add_class("wb-comparison-summary")
        self._planned: Callable[[], alt.TopLevelMixin] = self._plan()
        self._chart: alt.JupyterChart | None = None
        self._chart_box = W.Box([Drawn(self._show_chart)])  # the chart, once drawn
        self.children = [W.HBox([W.VBox([self.view, self.measure_x, self.measure_y]), self.systems]),
                         self.message, self.summary, self._chart_box]
        self.add_class("wb-comparison")

    @property
    def chart_widget(self) -> alt.JupyterChart:
        """The chart as a widget (built now if the browser has not drawn the comparison yet)."""
        if self._chart is None:
            self._show_chart()
        assert self._chart is not None
        return self._chart

    def _show_chart(self) -> None:
        """Build the chart widget from the selectors' last plan, where the browser has just drawn a placeholder."""
        if self._chart is not None:
            return
        import altair as alt

        charts.enable_offline()
        self._chart = alt.JupyterChart(self._planned_chart(), embed_options=_EMBED)
        self._chart_box.children = [self._chart]

    def _planned_chart(self) -> alt.TopLevelMixin:
        """The chart of the last plan (on a refusal: said, and the mean scores drawn instead)."""
        try:
            return self._planned()
        except ValueError as problem:  # ChartDataError from a builder
            self.message.value = f'<span style="color:#b00020">⚠ {html.escape(str(problem))}</span>'
            return charts.means_chart(self.results)

    def build(self) -> alt.TopLevelMixin:
        """The chart the selectors ask for (raises ``ChartDataError`` when they ask for the impossible)."""
        return self._plan()()

    def _plan(self) -> Callable[[], alt.TopLevelMixin]:
        """What the selectors ask for: the analyses run and the summary written now, and the call that draws their
        chart (altair loads then); raises ``ChartDataError`` when they ask for the impossible."""
        chosen = list(self.systems.value)
        if not chosen:
            raise ChartDataError("select at least one system")
        results = self.results[self.results["system"].astype(str).isin(chosen)]
        x, y, view = self.measure_x.value, self.measure_y.value, self.view.value
        self.summary.value = ""
        if view == TUKEY:
            pairs = _analysis("tukey_hsd")(results, x, missing="intersection")
            groups = " ".join("{" + ", ".join(map(str, g)) + "}" for g in pairs.attrs["groups"])
            self.summary.value = (f"<b>Homogeneous groups</b> (best first; no two systems of a group differ): "
                                  f"{html.escape(groups)}<br><small>{html.escape(pairs.attrs['report'])}</small>")
            return lambda: charts.tukey_chart(pairs, title=f"Tukey's HSD on {x}: differences of means, 95% "
                                                          "intervals")
        if view in FRIEDMAN:
            pairs = _analysis("friedman")(results, x, posthoc=FRIEDMAN[view], correction="single-step",
                                          missing="intersection")
            test, name = pairs.attrs["friedman"], FRIEDMAN[view].capitalize()
            groups = " ".join("{" + ", ".join(map(str, g)) + "}" for g in pairs.attrs["groups"])
            self.summary.value = (f"<b>Friedman's test</b>: χ² = {test['statistic']:.4g}, df = {test['df']}, "
                                  f"p = {test['pvalue']:.3g}. <b>Homogeneous groups</b> (best mean rank first; no "
                                  f"two systems of a group differ): {html.escape(groups)}<br>"
                                  f"<small>{html.escape(pairs.attrs['report'])}</small>")
            ranks = pairs.rename(columns={"rank_difference": "mean_difference"})
            return lambda: charts.tukey_chart(ranks, test=name, difference="difference of mean ranks",
                                              title=f"Friedman + {name} on {x}: differences of mean ranks, 95% "
                                                    "intervals")
        if view == AGREEMENT:
            found = _analysis("ranking_agreement")(results, x, y, missing="intersection")
            swaps = ", ".join(f"{a} ↔ {b}" for a, b in found.swaps[["a", "b"]].itertuples(index=False))
            self.summary.value = (f"<b>{html.escape(str(found))}</b>"
                                  + (f"<br>swapped: {html.escape(swaps)}" if swaps else ""))
            return lambda: charts.agreement_chart(found.rankings, x, y, title=f"systems ranked by {x} and by {y}")
        if view == MEANS:
            return lambda: charts.means_chart(results)
        if view == SCATTER:
            return lambda: charts.measure_scatter(results, x, y)
        if view == PER_TOPIC:
            if len(chosen) != 2:
                raise ChartDataError(f"select exactly two systems to compare per test case ({len(chosen)} "
                                     "selected)")
            return lambda: charts.per_topic_chart(results, chosen, list(dict.fromkeys([x, y])))
        if view == UIR:
            matrix = _analysis("uir_matrix")(results, list(dict.fromkeys([x, y])))
            return lambda: charts.uir_heatmap(matrix, title=f"UIR over {x} and {y} (outlined: ≥ 0.25)")
        if view == F_ALPHA:
            curves = _analysis("f_alpha_curves")(results, x, y) if self.f_alpha is None else self.f_alpha
            chosen_curves = curves[curves["system"].astype(str).isin(chosen)]
            return lambda: charts.f_alpha_chart(chosen_curves, title=f"F_α of {x} (α = 1) and {y} (α = 0)")
        curves = _analysis("top_n_strictness")(results) if self.strictness is None else self.strictness
        return lambda: charts.strictness_chart(curves)

    def redraw(self) -> None:
        """Rebuild the chart after a selector changed (once drawn; before, its plan waits for the drawing); on a bad
        selection say why and keep the last chart."""
        try:
            draw = self._plan()
            if self._chart is not None:
                self._chart.chart = draw()
        except ValueError as problem:  # ChartDataError, or the analysis refusing the selection
            self.message.value = f'<span style="color:#b00020">⚠ {html.escape(str(problem))}</span>'
            self.summary.value = ""
            return
        self.message.value = ""
        self._planned = draw
