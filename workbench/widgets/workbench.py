"""The workbench the main notebook shows: a :class:`~workbench.widgets.state.WorkbenchState` bound to controls.

The focus layout (the default) puts the gold beside one output, the scores table, the R/S chart and the why
summary docked at their right, and the other outputs as score cards below (click one to focus it); the grid
layout shows every editor. Every valid edit (typed, dragged, imported) and every change of (n, W_n) is a step
of the history: the undo and redo buttons, Ctrl+Z and Ctrl+Shift+Z walk it, and the history chart marks the
step on screen. A text-size control scales everything for a projector; regions carry stable ``data-role``
attributes (``gold-editor``, ``output-editor``, ``scores``, ``chart``, ``why``). In predict-then-reveal mode
the scores stay hidden until :attr:`Workbench.revealed`; predictions are plain data
(:attr:`Workbench.predictions`). The widget holds no arithmetic and no state of its own beyond what is on
screen: it forwards edits to the state and draws it.

    >>> wb = Workbench("d1 {d2 d3}", ["d1 d2 d3"], n=10, wn=0.8)
    >>> wb.outputs[0].levels[0].value = "d1 {d2 d3}"      # as the browser sets it when one types
    >>> float(wb.scores[0].s_relatedness), wb.step
    (1.0, 1)
    >>> wb.controls.undo.click(); float(wb.scores[0].s_relatedness) < 1
    True
"""

from __future__ import annotations

import contextlib
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import ipywidgets as W
import pandas as pd

from workbench.charts import enable_offline, history_chart, lost_mass_chart, scores_chart, with_data
from workbench.charts.palettes import FAILS_MARK, HOLDS_MARK, SYSTEMS
from workbench.errors import WorkbenchError
from workbench.model import Organization
from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.errors import (
    DocumentNotInOutputError,
    InvalidEditError,
    SelectionError,
    UnknownOutputError,
    WeightsError,
    WorkbenchFormatError,
)
from workbench.widgets.frame import Frame, role_class
from workbench.widgets.gallery import EXAMPLES
from workbench.widgets.state import WorkbenchState
from workbench.widgets.tables import GOLD
from workbench.widgets.why import EXPLAINED, FIELDS, LOST_COLUMNS
from workbench.widgets.why_panel import WhyPanel

__all__ = ["DocumentNotInOutputError", "InvalidEditError", "SelectionError", "UnknownOutputError", "WeightsError",
           "Workbench", "WorkbenchFormatError"]

HISTORY_SHOWN = 50  # the history chart draws the last 50 steps; ``Workbench.history`` keeps them all
LAYOUTS = ("focus", "grid")
TEXT_SIZES = ("100%", "125%", "150%", "175%", "200%")
SKIP = "—"  # a rank left out of a prediction
_EMBED = {"actions": False}  # no export menu on the live charts (``save_chart`` writes figures)
HELP = """<b>How to use the workbench</b>
<ul>
<li>Each editor has <b>one row per priority level</b>, highest first: <code>{d1 d2}</code> is a cluster, a bare
<code>d3</code> a singleton; a document may sit in several clusters and levels (overlap).</li>
<li>Below the levels: an <b>unlimited tail</b> (ranking: <i>n</i> and <i>W_n</i> weigh positions), or a
<b>finite rest</b> (filtering, clustering of a closed collection: tick <i>finite rest</i>; then <i>uniform
weights</i> apply). The <b>notation</b> tab holds the whole table as text, for pasting.</li>
<li>Every document is a <b>token</b>: drag it to another cluster, level, a new level or the tail, or click it
to see <b>why</b> it scores as it does. From the keyboard: Tab to the tokens, arrows to walk them, Enter or
Space to select and pick one up, arrows to move it, Escape to put it down.</li>
<li><b>Undo</b> and <b>redo</b> (Ctrl+Z, Ctrl+Shift+Z) walk every edit, drag and import; the history chart
marks the step shown.</li>
<li>The <b>score cards</b> under the editors are the other outputs: click one to put it beside the gold;
<i>layout</i> shows all editors at once. <i>text size</i> enlarges everything for a projector.</li>
<li><b>Predict, then reveal</b> hides the scores: order the outputs on one measure (or pick two), record the
prediction, then reveal to see who was right and why.</li>
<li>An invalid row is kept as typed, marked and explained beside it; the last valid table stays in force.</li>
</ul>"""


@dataclass(frozen=True)
class Controls:
    """The controls a user operates, for scripts and tests: ``wb.controls.n.value = 4`` does what typing 4
    does, ``wb.controls.undo.click()`` what clicking undo does."""

    help: W.ToggleButton
    gallery: W.Dropdown
    n: W.BoundedIntText
    wn: W.BoundedFloatText
    uniform: W.Checkbox
    undo: W.Button
    redo: W.Button
    layout: W.ToggleButtons
    text_size: W.Dropdown
    predict: W.ToggleButton
    add_output: W.Button
    remove_output: W.Button
    clear_history: W.Button
    exchange: W.Textarea
    export_text: W.Button
    export_json: W.Button
    import_tables: W.Button
    upload: W.FileUpload
    quiz_measure: W.Dropdown
    quiz_who: W.Text
    quiz_record: W.Button
    quiz_reveal: W.Button


@dataclass(frozen=True)
class Views:
    """What the workbench shows, as widgets: the regions (``scores`` table, ``chart``, ``why`` summary) and the
    rest (status line, help, score cards box, why details, lost-mass and history charts, quiz panel)."""

    status: W.HTML
    help: W.HTML
    scores: W.HTML
    all_scores: W.HTML
    chart: W.Box
    why: WhyPanel
    why_details: W.HTML
    cards: W.Box
    history: W.Box
    quiz: W.VBox
    quiz_order: W.HBox
    quiz_result: W.HTML


class Workbench(W.VBox):
    """Gold and output editors, the gallery, (n, W_n), live scores, their charts, history with undo, export,
    import, and a predict-then-reveal quiz; see the module docstring. The state is :attr:`state`.

    With no tables it opens on Table 9 of Amigó et al. (SIGIR 2013); with a gold and no outputs, one output
    starts as a copy of the gold.
    """

    def __init__(self, gold: Organization | str | None = None,
                 outputs: Sequence | Mapping | Organization | str | None = None,
                 n: int | None = 10, wn: float | None = 0.8, **kwargs) -> None:
        super().__init__(**kwargs)
        enable_offline()
        self.state = WorkbenchState(gold, outputs, n, wn)
        self._rendering = False
        self._message = ""                  # a refusal of the widget's own (import, quiz), shown in the status
        self._last_weights = (10, 0.8)      # what n and W_n come back to after uniform weights
        self.gold = OrganizationEditor(caption="gold standard")
        self.gold.add_class("wb-gold")
        self.gold.add_class(role_class("gold-editor"))
        self.gold.observe(lambda change: self._typed(GOLD, self.gold), "text")
        self.gold.board.on_select(lambda document: self._clicked(None, document))
        self.outputs: list[OrganizationEditor] = []
        self.frame = Frame()   # the style sheet, data-role attributes and Ctrl+Z / Ctrl+Shift+Z in the browser
        self.frame.on_key(lambda key: self._act(self.state.undo if key == "undo" else self.state.redo))
        self.controls = self._make_controls()
        self.views = self._make_views()
        self._scores_chart: alt.JupyterChart | None = None
        self._history_chart: alt.JupyterChart | None = None
        self._lost_chart: alt.JupyterChart | None = None
        self._drawn_for: tuple[str, ...] = ()
        self._card_output: dict[int, int] = {}   # id of a score card -> the output it focuses
        self._editors = W.Box()
        self._editors.add_class("wb-editors")
        c, v = self.controls, self.views
        dock = W.VBox([v.scores, v.chart, v.why])
        dock.add_class("wb-dock")
        main = W.Box([self._editors, dock])
        main.add_class("wb-main")
        toolbar = W.Box([c.help, c.gallery, c.n, c.wn, c.uniform, c.undo, c.redo, c.layout, c.text_size, c.predict])
        toolbar.add_class("wb-toolbar")
        strip = W.Box([v.cards, c.add_output, c.remove_output])
        strip.add_class("wb-cards-strip")
        self._lost_box = W.VBox()
        details = W.Box([v.all_scores, self._lost_box, W.VBox([v.history, c.clear_history]), v.why_details])
        details.add_class("wb-details")
        exchange = W.VBox([W.HBox([c.export_text, c.export_json, c.import_tables, c.upload]), c.exchange])
        self.children = [self.frame, toolbar, v.help, v.status, v.quiz, main, strip, details, exchange]
        self.add_class("wb-workbench")
        self.add_class("wb-focus")
        self._render()

    # ------------------------------------------------------------------------------------ building
    def _make_controls(self) -> Controls:
        def button(description: str, tooltip: str, action) -> W.Button:
            made = W.Button(description=description, tooltip=tooltip, layout=W.Layout(width="auto"))
            made.on_click(lambda _: action())
            return made

        gallery = W.Dropdown(options=list(EXAMPLES), value=self.state.example, description="example",
                             layout=W.Layout(width="21em"), style={"description_width": "initial"})
        gallery.observe(lambda change: change["new"] and self._act(lambda: self.state.load_example(change["new"])),
                        "value")
        n = W.BoundedIntText(value=10, min=1, max=1_000_000, description="n", layout=W.Layout(width="8em"),
                             style={"description_width": "1.2em"})
        wn = W.BoundedFloatText(value=0.8, min=1e-6, max=1 - 1e-6, step=0.05, description="W_n",
                                layout=W.Layout(width="8.5em"), style={"description_width": "2.4em"})
        uniform = W.Checkbox(description="uniform weights", indent=False, layout=W.Layout(width="auto"))
        for control in (n, wn, uniform):
            control.observe(lambda _: self._weights_edited(), "value")
        help_toggle = W.ToggleButton(description="? help", tooltip="show how to use the workbench",
                                     layout=W.Layout(width="auto"))
        help_toggle.observe(lambda _: self._render(), "value")
        layout = W.ToggleButtons(options=[("focus", "focus"), ("all outputs", "grid")], value="focus",
                                 tooltips=["the gold beside one output, the others as score cards",
                                           "every editor at once"], style={"button_width": "auto"})
        layout.observe(lambda _: self._render(), "value")
        text_size = W.Dropdown(options=TEXT_SIZES, value="100%", description="text size",
                               layout=W.Layout(width="auto"), style={"description_width": "initial"})
        text_size.observe(lambda _: self._render(), "value")
        predict = W.ToggleButton(description="predict, then reveal", tooltip="hide the scores for a quiz",
                                 layout=W.Layout(width="auto"))
        predict.observe(lambda change: self._predict_toggled(change["new"]), "value")
        exchange = W.Textarea(placeholder="exported tables appear here; paste tables here to import",
                              description="tables", layout=W.Layout(width="100%", height="8em"))
        exchange.add_class("wb-exchange")
        upload = W.FileUpload(accept=".txt,.json,.org", multiple=False, description="import file")
        upload.observe(self._uploaded, "value")
        quiz_measure = W.Dropdown(options=EXPLAINED, value="R∼", description="measure",
                                  layout=W.Layout(width="auto"))
        quiz_measure.observe(lambda change: self._quiz_measure_chosen(change["new"]), "value")
        return Controls(
            help=help_toggle, gallery=gallery, n=n, wn=wn, uniform=uniform,
            undo=button("↶ undo", "undo the last edit (Ctrl+Z)", lambda: self._act(self.state.undo)),
            redo=button("↷ redo", "redo (Ctrl+Shift+Z)", lambda: self._act(self.state.redo)),
            layout=layout, text_size=text_size, predict=predict,
            add_output=button("+ output", "add an output (a copy of the gold)",
                              lambda: self._act(lambda: self.state.add_output(self.state.gold.text))),
            remove_output=button("− output", "remove the last output", lambda: self._act(self.state.remove_output)),
            clear_history=button("clear history", "forget the history; the scores shown become step 0",
                                 lambda: self._act(self.state.clear_history)),
            exchange=exchange,
            export_text=button("export notation", "write the tables as notation into the box below",
                               lambda: setattr(exchange, "value", self.to_text())),
            export_json=button("export JSON", "write the tables as JSON into the box below",
                               lambda: setattr(exchange, "value", self.to_json())),
            import_tables=button("import", "read the tables pasted below",
                                 lambda: self._act(lambda: self.state.load(exchange.value), "import")),
            upload=upload, quiz_measure=quiz_measure,
            quiz_who=W.Text(value="class", description="who", layout=W.Layout(width="12em"),
                            style={"description_width": "2.5em"}),
            quiz_record=button("record prediction", "record this order of the outputs", self._record_prediction),
            quiz_reveal=button("reveal", "show the scores and who was right",
                               lambda: self._act(self.state.reveal)),
        )

    def _make_views(self) -> Views:
        status = W.HTML()
        status.add_class("wb-status")
        help_text = W.HTML(HELP)
        help_text.add_class("wb-help")
        scores = W.HTML()
        scores.add_class("wb-scores")
        scores.add_class(role_class("scores"))
        all_scores = W.HTML()
        all_scores.add_class("wb-all-scores")
        chart = W.Box()
        chart.add_class(role_class("chart"))
        why = WhyPanel()
        why.add_class(role_class("why"))
        cards = W.Box()
        cards.add_class("wb-cards")
        quiz_order = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        quiz_result = W.HTML()
        c = self.controls
        quiz = W.VBox([W.HBox([W.HTML("<b>Predict, then reveal:</b> order the outputs on"), c.quiz_measure,
                               c.quiz_who], layout=W.Layout(flex_flow="row wrap", align_items="center")),
                       quiz_order, W.HBox([c.quiz_record, c.quiz_reveal]), quiz_result])
        quiz.add_class("wb-quiz")
        return Views(status=status, help=help_text, scores=scores, all_scores=all_scores, chart=chart, why=why,
                     why_details=why.details,
                     cards=cards, history=W.VBox(), quiz=quiz, quiz_order=quiz_order, quiz_result=quiz_result)

    # ------------------------------------------------------------------------------ public API
    @property
    def names(self) -> list[str]:
        """The outputs' names, in order."""
        return self.state.names

    @property
    def scores(self) -> list:
        """One :class:`workbench.RSScores` per output (the current step's)."""
        return self.state.scores

    @property
    def n(self) -> int | None:
        return self.state.n

    @n.setter
    def n(self, value: int | None) -> None:
        """A number keeps (or brings back) W_n; None asks for uniform weights (both None)."""
        self.set_weights(*((None, None) if value is None else (value, self.wn if self.wn is not None else
                                                                self._last_weights[1])))

    @property
    def wn(self) -> float | None:
        return self.state.wn

    @wn.setter
    def wn(self, value: float | None) -> None:
        """A number keeps (or brings back) n; None asks for uniform weights (both None)."""
        self.set_weights(*((None, None) if value is None else (self.n if self.n is not None else
                                                                self._last_weights[0], value)))

    def set_weights(self, n: int | None, wn: float | None) -> None:
        """Score with (n, W_n), or uniform weights with ``(None, None)``; raises :class:`WeightsError` and
        changes nothing when the tables cannot be scored so."""
        self.state.set_weights(n, wn)
        self._message = ""
        self._render()

    @property
    def scores_chart(self) -> alt.JupyterChart:
        """The docked chart of R≺ S≺ R∼ S∼ per output (its ``spec`` is what the browser draws)."""
        return self._scores_chart

    @property
    def history_chart(self) -> alt.JupyterChart:
        """The chart of the scores at every step, the current one marked."""
        return self._history_chart

    @property
    def lost_chart(self) -> alt.JupyterChart:
        """The chart of the score mass each document of the output in focus loses."""
        return self._lost_chart

    @property
    def status(self) -> str:
        """The status line as plain text ("" when the last action applied)."""
        return self._status_text()

    @property
    def layout_mode(self) -> str:
        """``"focus"`` (the gold beside one output) or ``"grid"`` (every editor)."""
        return self.controls.layout.value

    @layout_mode.setter
    def layout_mode(self, value: str) -> None:
        if value not in LAYOUTS:
            raise WorkbenchFormatError(f"layout must be one of {', '.join(LAYOUTS)}, got {value!r}")
        self.controls.layout.value = value

    def set_tables(self, gold, outputs, n: int | None = 10, wn: float | None = 0.8) -> None:
        """Replace the gold, the outputs (list, or dict name -> table) and (n, W_n) as one step, or raise and
        change nothing."""
        self._apply(lambda: self.state.set_tables(gold, outputs, n, wn))

    def load_example(self, name: str) -> None:
        """Show one of the papers' examples (``gallery.EXAMPLES``) with its weighting."""
        self._apply(lambda: self.state.load_example(name))

    def add_output(self, value: Organization | str = "", name: str | None = None) -> OrganizationEditor:
        """Add an output (named ``output k`` unless a name is given); returns its editor."""
        self._apply(lambda: self.state.add_output(value, name))
        return self.outputs[-1]

    def remove_output(self) -> None:
        """Remove the last output (one output always stays)."""
        self._apply(self.state.remove_output)

    def undo(self) -> bool:
        """Back one step (as Ctrl+Z); False when there is none."""
        return self._apply(self.state.undo)

    def redo(self) -> bool:
        """Forward one step (as Ctrl+Shift+Z); False when there is none."""
        return self._apply(self.state.redo)

    @property
    def step(self) -> int:
        return self.state.step

    @property
    def history(self) -> pd.DataFrame:
        """Scores at every step: columns ``step, output, measure, value, current``."""
        return self.state.history

    def clear_history(self) -> None:
        """Forget the history; the current scores become step 0."""
        self._apply(self.state.clear_history)

    @property
    def focus(self) -> int:
        """The index of the output beside the gold (and explained)."""
        return self.state.focus

    def focus_output(self, output: int | str) -> None:
        """Put ``output`` (index or name) beside the gold, as a click on its score card does."""
        self._apply(lambda: self.state.focus_output(output))

    def select(self, output: int | str, document: str) -> pd.DataFrame:
        """Explain ``document`` in ``output`` (index or name), as a click on its token does; returns :attr:`why`.
        Raises :class:`UnknownOutputError`, :class:`DocumentNotInOutputError` or :class:`InvalidEditError`
        (the why panel shows the message and keeps the last valid explanation)."""
        return self._apply(lambda: self.state.select(output, document))

    @property
    def why(self) -> pd.DataFrame:
        """The why panel's table (see ``WorkbenchState.why``)."""
        return self.state.why

    @property
    def explanation(self):
        """The last valid :class:`workbench.Explanation` of the output in focus."""
        return self.state.explanation

    def scores_frame(self) -> pd.DataFrame:
        """The current scores: one row per output and measure (columns ``output, measure, value``)."""
        return self.state.scores_frame()

    def to_text(self) -> str:
        """The tables in the notation, one ``## name`` section each (gold first), weights in a comment."""
        return self.state.to_text()

    def to_json(self) -> str:
        """The tables as JSON (see ``exchange.to_json``)."""
        return self.state.to_json()

    def load_text(self, text: str) -> None:
        """Inverse of :meth:`to_text`, as one step; raises :class:`WorkbenchFormatError` and changes nothing."""
        self._apply(lambda: self.state.load_text(text))

    def load_json(self, text: str) -> None:
        """Inverse of :meth:`to_json`, as one step; raises :class:`WorkbenchFormatError` and changes nothing."""
        self._apply(lambda: self.state.load_json(text))

    @property
    def predictions(self) -> dict[str, list[str]]:
        """Who → outputs in predicted order on the quiz's measure (best first). Setting it starts a quiz (the
        scores hide) if none runs."""
        return self.state.predictions

    @predictions.setter
    def predictions(self, value: Mapping[str, list[str]]) -> None:
        self._apply(lambda: setattr(self.state, "predictions", value))

    @property
    def revealed(self) -> bool:
        """Whether the scores are shown; False while a quiz waits for its reveal."""
        return self.state.revealed

    @revealed.setter
    def revealed(self, value: bool) -> None:
        self._apply(lambda: setattr(self.state, "revealed", bool(value)))

    def start_quiz(self, measure: str = "R∼") -> None:
        """Hide the scores and take predictions on ``measure``."""
        self._apply(lambda: self.state.start_quiz(measure))

    def predict(self, order: list[str], who: str = "class") -> None:
        """Record ``who``'s order of outputs (the one predicted highest first)."""
        self._apply(lambda: self.state.predict(order, who))

    def reveal(self) -> pd.DataFrame:
        """Show the scores; returns the verdicts (see ``WorkbenchState.verdicts``)."""
        return self._apply(self.state.reveal)

    def verdicts(self) -> pd.DataFrame:
        return self.state.verdicts()

    def end_quiz(self) -> None:
        self._apply(self.state.end_quiz)

    # ------------------------------------------------------------------------------- actions
    def _apply(self, action):
        """Run ``action`` on the state and redraw; errors propagate (the state changed nothing)."""
        self._message = ""
        try:
            return action()
        finally:
            self._render()

    def _act(self, action, what: str = "") -> None:
        """Run a control's action: a refusal is said in the status line (after ``what``) instead of raised."""
        if self._rendering:
            return
        try:
            self._apply(action)
        except WorkbenchError as problem:
            self._message = f"{what}: {problem}" if what else str(problem)
            self._render()

    def _typed(self, table, editor: OrganizationEditor) -> None:
        """An editor's text changed: the state takes it, with the editor's parse when the text is valid."""
        if not self._rendering:
            parsed = None if editor.error else editor.organization
            self._act(lambda: self.state.edit(table, editor.text, parsed=parsed))

    def _clicked(self, index: int | None, document: str) -> None:
        """A token was clicked: in an output (``index``) or in the gold (then the focused output)."""
        with contextlib.suppress(SelectionError):  # the why panel says why
            self.select(self.state.focus if index is None else index, document)

    def _weights_edited(self) -> None:
        if self._rendering:
            return
        c = self.controls
        weights = (None, None) if c.uniform.value else (c.n.value, c.wn.value)
        self._act(lambda: self.state.set_weights(*weights))

    def _predict_toggled(self, on: bool) -> None:
        if self._rendering:
            return
        self._act(lambda: self.state.start_quiz(self.controls.quiz_measure.value) if on else self.state.end_quiz())

    def _quiz_measure_chosen(self, measure: str) -> None:
        if self.state.quiz is not None and self.state.quiz.measure != measure:
            self._act(lambda: self.state.start_quiz(measure))

    def _record_prediction(self) -> None:
        order = [dropdown.value for dropdown in self.views.quiz_order.children if dropdown.value != SKIP]
        self._act(lambda: self.state.predict(order, self.controls.quiz_who.value.strip() or "class"))

    def _uploaded(self, change) -> None:
        if not change["new"] or self._rendering:
            return
        (upload,) = change["new"]
        content = bytes(upload["content"])
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError as problem:
            self._message = f"import: {upload['name']} is not UTF-8 text (byte {problem.start})"
            self._render()
            return
        self.controls.exchange.value = text
        self._act(lambda: self.state.load(text), "import")

    # --------------------------------------------------------------------------------- drawing
    def _render(self) -> None:
        """Draw the state: editors, layout, status, scores, charts, why, cards, quiz."""
        if self._rendering:
            return
        self._rendering = True
        try:
            self._sync_editors()
            self._sync_controls()
            self._draw_layout()
            v, state = self.views, self.state
            v.status.value = (f'<span class="wb-error">⚠ {html.escape(self._status_text())}</span>'
                              if self._status_text() else "")
            hidden = state.scores_hidden
            v.scores.value = self._table_html(hidden)
            v.all_scores.value = self._table_html(hidden, tuple(FIELDS), full=True)
            self._draw_cards(hidden)
            if not hidden:
                self._draw_charts()
            v.chart.layout.display = "none" if hidden else None
            self._draw_why(hidden)
            self._draw_quiz()
        finally:
            self._rendering = False

    def _status_text(self) -> str:
        return self._message or self.state.status

    def _sync_editors(self) -> None:
        state = self.state
        while len(self.outputs) > len(state.outputs):
            self.outputs.pop().close()
        while len(self.outputs) < len(state.outputs):
            editor = OrganizationEditor()
            editor.add_class("wb-output")
            index = len(self.outputs)
            editor.observe(lambda change, i=index, e=editor: self._typed(i, e), "text")
            editor.board.on_select(lambda document, i=index: self._clicked(i, document))
            self.outputs.append(editor)
        for editor, table in ((self.gold, state.gold), *zip(self.outputs, state.outputs, strict=True)):
            if editor is not self.gold:
                editor.caption = table.name
            if editor.text != table.text:
                editor.text = table.text
        known = frozenset().union(state.gold.organization.documents,
                                  *(t.organization.documents for t in state.outputs))
        for editor in (self.gold, *self.outputs):
            editor.known_documents = known
        self.gold.board.highlight = state.highlighted
        for index, editor in enumerate(self.outputs):
            editor.board.highlight = state.highlighted if index == state.focus else ""

    def _sync_controls(self) -> None:
        c, state = self.controls, self.state
        uniform = state.n is None
        if not uniform:
            self._last_weights = (state.n, state.wn)
        c.uniform.value = uniform
        c.n.value, c.wn.value = self._last_weights
        c.n.disabled = c.wn.disabled = uniform
        c.undo.disabled, c.redo.disabled = not state.can_undo, not state.can_redo
        if c.gallery.value != state.example and state.example in EXAMPLES:
            c.gallery.value = state.example
        c.predict.value = state.quiz is not None
        if state.quiz is not None:
            c.quiz_measure.value = state.quiz.measure
        c.remove_output.disabled = len(state.outputs) < 2

    def _draw_layout(self) -> None:
        grid = self.controls.layout.value == "grid"
        focus = self.state.focus
        for index, editor in enumerate(self.outputs):
            if index == focus:
                editor.add_class(role_class("output-editor"))
            else:
                editor.remove_class(role_class("output-editor"))
        shown = [self.gold, *(self.outputs if grid else [self.outputs[focus]])]
        if list(self._editors.children) != shown:
            self._editors.children = shown
        for mode in LAYOUTS:
            (self.add_class if (mode == "grid") == grid else self.remove_class)(f"wb-{mode}")
        for size in TEXT_SIZES[1:]:
            name = f"wb-size-{size.rstrip('%')}"
            (self.add_class if size == self.controls.text_size.value else self.remove_class)(name)
        self.views.help.layout.display = None if self.controls.help.value else "none"
        self.views.cards.layout.display = "none" if grid else None
        self.views.quiz.layout.display = None if self.state.quiz is not None else "none"

    def _table_html(self, hidden: bool, measures=EXPLAINED, full: bool = False) -> str:
        """The scores table: the four measures docked beside the editors; ``full``: all six and the paper's
        printed values (under the editors)."""
        state = self.state
        head = "".join(f'<th scope="col">{html.escape(m)}</th>' for m in measures)
        rows = "".join(
            f'<tr data-output="{html.escape(name)}"{" class=wb-focused" if i == state.focus else ""}>'
            f'<th scope="row" class="wb-name">{_swatch(i)}{html.escape(name)}</th>'
            + "".join(f'<td data-measure="{m}">{"?" if hidden else f"{getattr(score, FIELDS[m]):.4f}"}</td>'
                      for m in measures)
            + "</tr>"
            for i, (name, score) in enumerate(zip(state.names, state.scores, strict=True)))
        weights = "uniform weights" if state.n is None else f"n = {state.n}, W_n = {state.wn:g}"
        printed = "" if hidden or not full else self._printed_html()
        kind = "wb-all-scores-table" if full else "wb-scores-table"
        caption = f"all scores, {weights}" if full else f"{weights}, step {state.step}"
        return (f'<table class="{kind}"><caption>{caption}</caption>'
                f'<tr><th scope="col" class="wb-name">output</th>{head}</tr>{rows}{printed}</table>')

    def _printed_html(self) -> str:
        """The paper's printed values, while the tables are exactly those of the loaded example."""
        printed = self.state.printed()
        if printed is None:
            return ""
        source, values = printed
        cells = dict.fromkeys(FIELDS, "")
        rows = ""
        for name, row in values.items():
            cells.update(zip(EXPLAINED, (f"{v:g}" for v in row), strict=True))
            rows += (f'<tr class="wb-printed"><th scope="row" class="wb-name">{html.escape(name)} (printed)</th>'
                     + "".join(f"<td>{v}</td>" for v in cells.values()) + "</tr>")
        return f'<tr><th colspan="7" class="wb-name">{html.escape(source)}:</th></tr>{rows}'

    def _draw_cards(self, hidden: bool) -> None:
        state = self.state
        cards = []
        old = list(self.views.cards.children)
        for index, (name, score) in enumerate(zip(state.names, state.scores, strict=True)):
            if index == state.focus:
                continue
            values = " ".join(f"{m} {'?' if hidden else f'{getattr(score, FIELDS[m]):.2f}'}" for m in EXPLAINED)
            card = old.pop(0) if old else None
            if card is None:
                card = W.Button()
                card.add_class("wb-card")
                card.on_click(lambda button: self._act(
                    lambda: self.state.focus_output(self._card_output[id(button)])))
            for k in range(len(SYSTEMS)):
                card.remove_class(f"wb-card-c{k}")
            card.add_class(f"wb-card-c{index % len(SYSTEMS)}")
            self._card_output[id(card)] = index
            card.description = f"{name}\n{values}"
            card.tooltip = f"put {name} beside the gold"
            cards.append(card)
        for card in old:
            self._card_output.pop(id(card), None)
            card.close()
        self.views.cards.children = cards

    def _draw_charts(self) -> None:
        state = self.state
        focused = state.names[state.focus]
        scores = [{"output": row.output, "measure": row.measure, "value": row.value, "focused": row.output == focused}
                  for row in state.scores_frame().itertuples() if row.measure in EXPLAINED]
        history = state.history_rows(HISTORY_SHOWN)
        names = tuple(state.names)
        if self._scores_chart is None or self._drawn_for != names:   # new outputs: (re)build
            charts = (scores_chart(pd.DataFrame(scores), width=290, height=140, legend=False,
                                   title="R and S (the output in focus printed)"),
                      history_chart(pd.DataFrame(history), title="scores after each edit (dashed: the step shown)"))
            if self._scores_chart is None:
                self._scores_chart, self._history_chart = (alt.JupyterChart(chart, embed_options=_EMBED)
                                                           for chart in charts)
                self.views.chart.children = [self._scores_chart]
                self.views.history.children = [self._history_chart]
            else:
                self._scores_chart.chart, self._history_chart.chart = charts
        else:  # same outputs: swap the rows into the built specs (no altair rebuild and validation)
            self._scores_chart.spec = with_data(self._scores_chart.spec, scores)
            self._history_chart.spec = with_data(self._history_chart.spec, history)
        self._drawn_for = names
        name, rows = state.lost
        title = f"{name}: score mass lost per document"
        if self._lost_chart is None:
            self._lost_chart = alt.JupyterChart(lost_mass_chart(pd.DataFrame(rows, columns=LOST_COLUMNS),
                                                                title=title), embed_options=_EMBED)
            self._lost_box.children = [self._lost_chart]
        else:
            spec = with_data(self._lost_chart.spec, rows)
            spec["title"] = title
            self._lost_chart.spec = spec

    def _draw_why(self, hidden: bool) -> None:
        panel, state = self.views.why, self.state
        shown = state.why_shown
        if hidden:
            panel.clear()
            panel.summary.value = "<i>the why panel returns with the reveal</i>"
            return
        if shown is None:
            panel.clear()
        else:
            panel.show(shown.output, shown.document, shown.frame, shown.scores)
        panel.warn(state.why_message)

    def _draw_quiz(self) -> None:
        state, v = self.state, self.views
        if state.quiz is None:
            return
        names = state.names
        dropdowns = list(v.quiz_order.children)
        while len(dropdowns) > len(names):
            dropdowns.pop().close()
        while len(dropdowns) < len(names):
            rank = len(dropdowns) + 1
            dropdowns.append(W.Dropdown(description=f"{rank}.", layout=W.Layout(width="auto"),
                                        style={"description_width": "1.6em"}))
        for rank, (dropdown, name) in enumerate(zip(dropdowns, names, strict=True)):
            options = [*names, SKIP]
            if list(dropdown.options) != options:
                dropdown.options = options
                dropdown.value = name if rank < 2 else SKIP
        v.quiz_order.children = dropdowns
        lines = [f"<b>{html.escape(who)}</b>: {' &gt; '.join(map(html.escape, order))}"
                 for who, order in state.predictions.items()]
        result = "<br>".join(lines) or "<i>no prediction recorded yet</i>"
        if state.quiz.revealed:
            table = state.verdicts()
            marks = {"right": HOLDS_MARK, "wrong": FAILS_MARK, "tie": "="}
            rows = "".join(
                f'<tr class="wb-verdict-{row.outcome}"><td>{html.escape(row.who)}</td><td>{html.escape(row.higher)}'
                f" above {html.escape(row.lower)}</td><td>{row.score_higher:.4f} vs {row.score_lower:.4f}</td>"
                f"<td>{marks[row.outcome]} {row.outcome}</td></tr>" for row in table.itertuples())
            result += (f'<table class="wb-verdicts"><caption>on {html.escape(state.quiz.measure)}</caption>'
                       f"<tr><th>who</th><th>predicted</th><th>scores</th><th>verdict</th></tr>{rows}</table>")
        v.quiz_result.value = result
        self.controls.quiz_reveal.disabled = state.quiz.revealed


def _swatch(index: int) -> str:
    return (f'<span class="wb-swatch" style="background:{SYSTEMS[index % len(SYSTEMS)]}" aria-hidden="true">'
            "</span>")
