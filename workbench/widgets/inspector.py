"""Why system A beat system B: an :class:`~workbench.widgets.inspector_state.InspectorState` bound to controls.

A focus layout for one projector screen (1280×720): on the left the per-topic differences of the measure
(:func:`workbench.charts.topic_deltas_chart`: sorted, coloured by who wins, the paired test in the line above it)
and under it the documents that make the difference on the topic shown, largest first; on the right that topic's
two runs side by side (:class:`~workbench.widgets.rankings.RankingsBoard`), each document coloured by its gold
grade (unjudged ones dashed), a bar for what it contributes, both scores, the same document linked across the
lists. A click on a bar (or the topic list) opens that topic. The measure switches among the campaign's; a clustering or
filtering campaign shows its documents by cluster or outcome. A refusal (an unknown topic, a measure the campaign
did not score...) is said in red and the last valid view stays; from Python the same refusal is raised.

    >>> inspector = Inspector(campaign, systems=("A", "B"), measure="AP")   # doctest: +SKIP
    >>> inspector.topic = "q1"; inspector.table.head()                      # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import html
import math
from collections.abc import Sequence

import altair as alt
import ipywidgets as W
import numpy as np
import pandas as pd

from workbench.charts import enable_offline, topic_deltas_chart, with_data
from workbench.data.campaign import Campaign
from workbench.errors import WorkbenchError
from workbench.validation import AnyOf, Anything, Interval, Text, validate
from workbench.widgets.inspector_state import ARGUMENTS, InspectorState
from workbench.widgets.messages import fields
from workbench.widgets.rankings import RankingsBoard

__all__ = ["Inspector"]

_EMBED = {"actions": False, "renderer": "svg"}  # SVG: each bar is an element a browser test can click
CHART_WIDTH, CHART_HEIGHT = 300, 120  # the chart's plot in pixels: the left column of the focus layout
_NARROW = {"description_width": "initial"}


class Inspector(W.VBox):
    """See the module docstring; the state is :attr:`state` (arguments as :class:`InspectorState`)."""

    @validate(**ARGUMENTS, kwargs=Anything("passed to ipywidgets"))
    def __init__(self, campaign: Campaign, systems: Sequence[str] | None = None, measure: str | None = None, *,
                 measures: Sequence[str] | None = None, results: pd.DataFrame | None = None, k: int = 10,
                 test: str = "t", **kwargs) -> None:
        super().__init__(**kwargs)
        enable_offline()
        self.state = InspectorState(campaign, systems, measure, measures=measures, results=results, k=k, test=test)
        self._rendering = False
        self._drawn_for: tuple = ()
        names = list(campaign.runs)
        a, b = self.state.systems
        self.system_a = W.Dropdown(options=names, value=a, description="system A", layout=W.Layout(width="14em"),
                                   style=_NARROW)
        self.system_b = W.Dropdown(options=names, value=b, description="system B", layout=W.Layout(width="14em"),
                                   style=_NARROW)
        self.measure_control = W.Dropdown(options=self.state.measures, value=self.state.measure,
                                          description="measure", layout=W.Layout(width="14em"), style=_NARROW)
        self.part_control = W.Dropdown(options=[""], value="", description="part", layout=W.Layout(width="11em"),
                                       style=_NARROW)
        self.topic_control = W.Dropdown(options=[], description="topic", layout=W.Layout(width="11em"), style=_NARROW)
        self.k_control = W.BoundedIntText(value=self.state.k, min=1, max=100_000, description="top k",
                                          layout=W.Layout(width="8em"), style=_NARROW)
        for control, action in ((self.system_a, self._systems_chosen), (self.system_b, self._systems_chosen),
                                (self.measure_control, lambda: self._act(lambda: setattr(
                                    self.state, "measure", self.measure_control.value))),
                                (self.part_control, lambda: self._act(lambda: setattr(
                                    self.state, "part", self.part_control.value or None))),
                                (self.topic_control, lambda: self._act(lambda: setattr(
                                    self.state, "topic", self.topic_control.value))),
                                (self.k_control, lambda: self._act(lambda: setattr(self.state, "k",
                                                                                   int(self.k_control.value))))):
            control.observe(lambda _change, act=action: None if self._rendering else act(), "value")
        for control, name in ((self.system_a, "system-a"), (self.system_b, "system-b"),
                              (self.measure_control, "measure"), (self.part_control, "part"),
                              (self.topic_control, "topic"), (self.k_control, "k")):
            control.add_class(f"wb-inspector-{name}")
        self.message_view = W.HTML()
        self.message_view.add_class("wb-inspector-message")
        self.summary = W.HTML()
        self.summary.add_class("wb-inspector-summary")
        self.chart = alt.JupyterChart(self._build_chart(), embed_options=_EMBED)
        self.chart.add_class("wb-inspector-chart")
        self.chart.selections.observe(self._picked, ["pick"])
        self.board = RankingsBoard(part="lists")
        self.difference_board = RankingsBoard(part="difference")
        for board in (self.board, self.difference_board):
            board.observe(lambda change: None if self._rendering else self._act(
                lambda: setattr(self.state, "document", change["new"] or None)), "selected")
        controls = W.HBox([self.system_a, self.system_b, self.measure_control, self.part_control,
                           self.topic_control, self.k_control], layout=W.Layout(flex_flow="row wrap"))
        side = W.VBox([self.chart, self.difference_board])
        side.add_class("wb-inspector-side")
        main = W.Box([side, self.board])
        main.add_class("wb-inspector-main")
        self.children = [controls, self.message_view, self.summary, main]
        self.add_class("wb-inspector")
        self._render()

    # --------------------------------------------------------------------------------- public state
    @property
    def topic(self) -> str:
        return self.state.topic

    @topic.setter
    def topic(self, value: str) -> None:
        self._apply(lambda: setattr(self.state, "topic", value))

    @property
    def measure(self) -> str:
        return self.state.measure

    @measure.setter
    def measure(self, value: str) -> None:
        self._apply(lambda: setattr(self.state, "measure", value))

    @property
    def systems(self) -> tuple[str, str]:
        return self.state.systems

    @systems.setter
    def systems(self, value: Sequence[str]) -> None:
        self._apply(lambda: setattr(self.state, "systems", value))

    @property
    def k(self) -> int:
        return self.state.k

    @k.setter
    def k(self, value: int) -> None:
        self._apply(lambda: setattr(self.state, "k", value))

    @property
    def document(self) -> str | None:
        return self.state.document

    @document.setter
    def document(self, value: str | None) -> None:
        self._apply(lambda: setattr(self.state, "document", value))

    @property
    def part(self) -> str | None:
        return self.state.part

    @part.setter
    def part(self, value: str | None) -> None:
        self._apply(lambda: setattr(self.state, "part", value))

    @property
    def deltas(self) -> pd.DataFrame:
        """The per-topic differences (:attr:`InspectorState.deltas`)."""
        return self.state.deltas

    @property
    def table(self) -> pd.DataFrame:
        """Both runs' rows on the topic shown (:attr:`InspectorState.table`)."""
        return self.state.table

    @property
    def scores(self) -> dict[str, float]:
        return self.state.scores

    @property
    def message(self) -> str:
        """What was refused last ("" when the last change applied)."""
        return self.state.message

    # ------------------------------------------------------------------------------------- actions
    def _apply(self, action):
        """Run ``action`` on the state and redraw; a refusal propagates (the state changed nothing)."""
        try:
            return action()
        finally:
            self._render()

    def _act(self, action) -> None:
        """A control's action: a refusal is shown instead of raised."""
        with contextlib.suppress(WorkbenchError):  # the state's message says why; _apply has drawn it
            self._apply(action)

    def _systems_chosen(self) -> None:
        self._act(lambda: setattr(self.state, "systems", (self.system_a.value, self.system_b.value)))

    def _picked(self, change) -> None:
        """A bar was clicked: its topic is shown (an empty selection, after the chart redraws, is ignored; a
        selection of another shape is ignored with a warning in the log)."""
        points = getattr(change["new"], "value", None) or []
        if not points or self._rendering:
            return
        first = points[0] if isinstance(points, list) else points
        point = fields(first, {"topic": AnyOf(Text(), Interval(integer=True), what="a topic")}, "the inspector's chart")
        if point is not None:
            self._act(lambda: setattr(self.state, "topic", str(point["topic"])))

    # ------------------------------------------------------------------------------------- drawing
    def _build_chart(self) -> alt.Chart:
        return topic_deltas_chart(self.state.deltas, self.state.systems, self.state.measure, chosen=self.state.topic,
                                  width=CHART_WIDTH, height=CHART_HEIGHT)

    def _render(self) -> None:
        if self._rendering:
            return
        self._rendering = True
        try:
            state = self.state
            self.message_view.value = (f"⚠ {html.escape(state.message)}" if state.message else "")
            self.system_a.value, self.system_b.value = state.systems
            self.measure_control.value = state.measure
            self.part_control.options = state.parts or [""]
            self.part_control.value = state.part or ""
            self.part_control.layout.display = None if state.parts else "none"
            topics = state.deltas["topic"].astype(str).tolist()
            if list(self.topic_control.options) != topics:
                self.topic_control.options = topics
            self.topic_control.value = state.topic
            self.k_control.value = state.k
            self._draw_chart()
            self._draw_summary()
            self._draw_board()
        finally:
            self._rendering = False

    def _draw_chart(self) -> None:
        state = self.state
        drawn_for = (state.systems, state.measure)
        if drawn_for != self._drawn_for:
            if self._drawn_for and drawn_for[0] == self._drawn_for[0]:  # same systems: the rows swapped in
                spec = with_data(self.chart.spec, state.deltas.assign(topic=state.deltas["topic"].astype(str)))
                chart = self._build_chart().to_dict()
                spec["encoding"], spec["title"] = chart["encoding"], chart["title"]
                self.chart.spec = spec
            elif self._drawn_for:
                self.chart.chart = self._build_chart()
            self._drawn_for = drawn_for
        self.chart.params.chosen = state.topic

    def _draw_summary(self) -> None:
        state = self.state
        a, b = state.systems
        test = state.test
        scores = state.scores
        better = test["better"] or "neither"
        self.summary.value = (
            f"<b>{html.escape(state.measure)}</b>, mean over {len(state.deltas)} topics: "
            f"{html.escape(a)} {test['mean_a']:.4f}, {html.escape(b)} {test['mean_b']:.4f}; "
            f"{html.escape(test['test'])}: p = {test['p_value']:.4g} (better: {html.escape(str(better))}). "
            f"Topic <b>{html.escape(state.topic)}</b>: {html.escape(a)} "
            f"<span class='wb-inspector-score' data-system='{html.escape(a)}'>{_number(scores[a])}</span>, "
            f"{html.escape(b)} <span class='wb-inspector-score' data-system='{html.escape(b)}'>"
            f"{_number(scores[b])}</span>." + "".join(
                f" <span class='wb-inspector-unanswered'>{html.escape(system)} did not answer this topic: its run "
                f"has no ranking for it, scored as trec_eval -c scores it (every relevant document missed).</span>"
                for system in state.unanswered))

    def _draw_board(self) -> None:
        state = self.state
        table = state.table
        if state.part is not None:
            table = table[table["part"] == state.part]
        a, b = state.systems
        per_system = {system: table[table["system"] == system] for system in (a, b)}
        where = {system: _positions(rows) for system, rows in per_system.items()}
        columns = []
        for system, other in ((a, b), (b, a)):
            rows = per_system[system]
            shown = _first(rows, state.k, state.task)
            said = "unanswered (no ranking for this topic); " if system in state.unanswered else ""
            columns.append({"system": system, "score": _number(state.scores[system]),
                            "caption": f"{said}{len(rows)} rows; {min(len(shown), len(rows))} shown",
                            "rows": [_row(row, where[other].get(row.document), other, state.task)
                                     for row in shown.itertuples(index=False)]})
        difference = state.difference()
        if state.part is not None:
            difference = difference[difference["part"] == state.part]
        difference = difference[difference["difference"] != 0].head(10)
        self.board.kind = state.task
        self.board.scale = float(np.nanmax(np.abs(table["contribution"].to_numpy(dtype=float)), initial=0.0)) or 1.0
        self.difference_board.systems = [a, b]
        self.difference_board.difference = [
            {"document": str(r.document), "a": float(r.contribution_a), "b": float(r.contribution_b),
             "difference": float(r.difference), "tone": _tone(r.gold, state.task, True),
             "label": _label(r.gold, state.task, True)} for r in difference.itertuples(index=False)]
        self.board.columns = columns
        self.board.caption = (f"topic {state.topic}, {state.measure}"
                              + (f", part {state.part}" if state.part else "")
                              + ": each document's contribution; a click links it across both runs")
        self.board.selected = self.difference_board.selected = state.document or ""


def _number(value: float) -> str:
    return "undefined" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


def _first(rows: pd.DataFrame, k: int, task: str) -> pd.DataFrame:
    """The rows a list shows: a ranking's top k and (up to k of) the relevant documents it misses; else the
    first k rows, group by group."""
    if task == "ranking":
        rank = rows["rank"].to_numpy(dtype=float, na_value=np.nan)
        missed = np.flatnonzero(np.isnan(rank))
        return rows.iloc[np.concatenate((np.flatnonzero(rank <= k), missed[:k + 1]))]
    return rows.head(k)


def _positions(rows: pd.DataFrame) -> dict:
    """Where each document sits in a run: its rank (rankings) or group."""
    return dict(zip(rows["document"].tolist(), rows["group"].tolist(), strict=True))


def _tone(gold, task: str, judged) -> str:
    if task == "ranking":
        if judged is False or judged is pd.NA or gold is None or (isinstance(gold, float) and math.isnan(gold)):
            return "unjudged"
        return f"g{min(max(int(gold), 0), 4)}"
    if task == "clustering" and isinstance(gold, str) and gold[1:].split(" ")[0].isdigit():
        return f"c{(int(gold[1:].split(' ')[0]) - 1) % 8}"
    if task == "filtering":
        return gold if gold in ("positive", "negative") else "plain"
    return "plain"


def _label(gold, task: str, judged) -> str:
    if task == "ranking":
        if judged is False or judged is pd.NA or gold is None or (isinstance(gold, float) and math.isnan(gold)):
            return "unjudged"
        return f"grade {gold:g}"
    return "" if gold is None or (isinstance(gold, float) and math.isnan(gold)) else str(gold)


def _row(row, other_place, other: str, task: str) -> dict:
    judged = row.judged if row.judged is not pd.NA else False
    place = "" if other_place is None else (f"{other}: #{other_place}" if task == "ranking" and other_place != "missed"
                                            else f"{other}: {other_place}")
    return {"document": None if row.document is None or row.document is pd.NA else str(row.document),
            "group": str(row.group), "label": _label(row.gold, task, judged), "tone": _tone(row.gold, task, judged),
            "contribution": float(row.contribution), "lost": float(row.lost), "other": place}
