"""The workbench the main notebook shows: a view of a :class:`~workbench.widgets.state.WorkbenchState`
(:attr:`Workbench.state`, the one API: ``bench.state.select("output 4", "d8")``, ``bench.state.undo()``), its
controls bound to the state's calls and every change of the state drawn.

The focus layout (the default) puts the gold beside one output, the scores table, the R/S chart and the why
summary docked at their right, and the other outputs as score cards below (click one to focus it); the grid
layout shows every editor. Every valid edit (a typed row committed by Enter, leaving it or a pause; a drag; an
import) and every change of (n, W_n) is a step of the history: the undo and redo buttons, Ctrl+Z and
Ctrl+Shift+Z walk it, and the history chart marks the step on screen. What notebook cells change is the starting
point, not steps: after a cell that changed the workbench the history starts again. A text-size control scales
everything for a projector; regions carry stable ``data-role`` attributes (``gold-editor``, ``output-editor``,
``scores``, ``chart``, ``why``) and keyboard shortcuts (:data:`~workbench.widgets.markup.SHORTCUTS`). The
charts are built when the workbench is first drawn (or first read), so that creating one is quick. The HTML is
:mod:`~workbench.widgets.markup`'s; the view holds no arithmetic and no state of its own beyond what is on
screen.

    >>> wb = Workbench("d1 {d2 d3}", ["d1 d2 d3"], n=10, wn=0.8)
    >>> wb.outputs[0].levels[0].value = "d1 {d2 d3}"      # as the browser sets it when a typed row is committed
    >>> float(wb.state.scores[0].s_relatedness), wb.state.step
    (1.0, 1)
    >>> wb.controls.undo.click(); float(wb.state.scores[0].s_relatedness) < 1
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import ipywidgets as W

from workbench.errors import WorkbenchError
from workbench.model import Organization
from workbench.validation import Anything, Choices, Instance, Text, check, validate
from workbench.widgets import markup
from workbench.widgets.cells import restart_history_after_cells
from workbench.widgets.deprecated import ForwardsToState
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
from workbench.widgets.live_charts import WorkbenchCharts
from workbench.widgets.messages import fields
from workbench.widgets.quiz_panel import QuizPanel
from workbench.widgets.state import WorkbenchState
from workbench.widgets.tables import GOLD, OPTIONAL_OUTPUTS, OPTIONAL_TABLE, WN, N
from workbench.widgets.why_panel import WhyPanel

__all__ = ["DocumentNotInOutputError", "InvalidEditError", "SelectionError", "UnknownOutputError", "WeightsError",
           "Workbench", "WorkbenchFormatError"]

LAYOUTS = ("focus", "grid")
TEXT_SIZES = ("100%", "125%", "150%", "175%", "200%")
_UPLOAD = {"name": Text(empty=True), "content": Instance((bytes, bytearray, memoryview), "bytes")}


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
    quiz_measure: W.Dropdown   # the quiz panel's controls (``workbench.quiz``)
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
    lost: W.Box
    quiz: W.VBox
    quiz_order: W.HBox
    quiz_result: W.HTML


def _button(description: str, tooltip: str, action: Callable[[], object]) -> W.Button:
    made = W.Button(description=description, tooltip=tooltip, layout=W.Layout(width="auto"))
    made.on_click(lambda _: action())
    return made


def _region(widget: W.DOMWidget, *classes: str) -> W.DOMWidget:
    for name in classes:
        widget.add_class(name)
    return widget


class Workbench(ForwardsToState, W.VBox):
    """Gold and output editors, the gallery, (n, W_n), live scores, their charts, history with undo, export,
    import, and a predict-then-reveal quiz over :attr:`state`; see the module docstring.

    With no tables it opens on Table 9 of Amigó et al. (SIGIR 2013); with a gold and no outputs, one output
    starts as a copy of the gold.
    """

    @validate(gold=OPTIONAL_TABLE, outputs=OPTIONAL_OUTPUTS, n=N, wn=WN, kwargs=Anything("passed to ipywidgets"))
    def __init__(self, gold: Organization | str | None = None,
                 outputs: Sequence | Mapping | Organization | str | None = None,
                 n: int | None = 10, wn: float | None = 0.8, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state = WorkbenchState(gold, outputs, n, wn)
        self._rendering = False
        self.gold = _region(OrganizationEditor(caption="gold standard"), "wb-gold", role_class("gold-editor"))
        self.gold.observe(lambda change: self._typed(GOLD, self.gold), "text")
        self.gold.board.on_select(lambda document: self._clicked(None, document))
        self.outputs: list[OrganizationEditor] = []
        self.frame = Frame()
        self.frame.on_message(self._received)
        self.controls = self._make_controls()
        self.views = self._make_views()
        self.charts = WorkbenchCharts(self.state)   # built on the first display (altair loads then)
        self._card_output: dict[int, int] = {}   # id of a score card -> the output it focuses
        self._editors = _region(W.Box(), "wb-editors")
        c, v = self.controls, self.views
        main = _region(W.Box([self._editors, _region(W.VBox([v.scores, v.chart, v.why]), "wb-dock")]), "wb-main")
        toolbar = W.Box([c.help, c.gallery, c.n, c.wn, c.uniform, c.undo, c.redo, c.layout, c.text_size, c.predict])
        strip = W.Box([v.cards, c.add_output, c.remove_output])
        details = W.Box([v.all_scores, v.lost, W.VBox([v.history, c.clear_history]), v.why_details])
        exchange = W.VBox([W.HBox([c.export_text, c.export_json, c.import_tables, c.upload]), c.exchange])
        self.children = [self.frame, _region(toolbar, "wb-toolbar"), v.help, v.status, v.quiz, main,
                         _region(strip, "wb-cards-strip"), _region(details, "wb-details"), exchange]
        _region(self, "wb-workbench", "wb-focus")
        self._stop = [self.state.on_change(self._render), restart_history_after_cells(self.state)]
        self._render()

    # ------------------------------------------------------------------------------------ building
    def _make_controls(self) -> Controls:
        state = self.state
        gallery = W.Dropdown(options=list(EXAMPLES), value=state.example, description="example",
                             layout=W.Layout(width="21em"), style={"description_width": "initial"})
        gallery.observe(lambda change: self._act(lambda: state.load_example(change["new"])) if change["new"] else None,
                        "value")
        n = W.BoundedIntText(value=10, min=1, max=1_000_000, description="n", layout=W.Layout(width="8em"),
                             style={"description_width": "1.2em"})
        wn = W.BoundedFloatText(value=0.8, min=1e-6, max=1 - 1e-6, step=0.05, description="W_n",
                                layout=W.Layout(width="8.5em"), style={"description_width": "2.4em"})
        uniform = W.Checkbox(description="uniform weights", indent=False, layout=W.Layout(width="auto"))
        for control in (n, wn, uniform):
            control.observe(lambda _: self._weights_edited(), "value")
        help_toggle = W.ToggleButton(description="? help", tooltip="show how to use the workbench and its keys",
                                     layout=W.Layout(width="auto"))
        layout = W.ToggleButtons(options=[("focus", "focus"), ("all outputs", "grid")], value="focus",
                                 tooltips=["the gold beside one output, the others as score cards",
                                           "every editor at once"], style={"button_width": "auto"})
        text_size = W.Dropdown(options=TEXT_SIZES, value="100%", description="text size",
                               layout=W.Layout(width="auto"), style={"description_width": "initial"})
        for control in (help_toggle, layout, text_size):
            control.observe(lambda _: self._render(), "value")
        predict = W.ToggleButton(description="predict, then reveal", tooltip="hide the scores for a quiz",
                                 layout=W.Layout(width="auto"))
        predict.observe(lambda change: self._predict_toggled(change["new"]), "value")
        exchange = _region(W.Textarea(placeholder="exported tables appear here; paste tables here to import",
                                      description="tables", layout=W.Layout(width="100%", height="8em")),
                           "wb-exchange")
        upload = W.FileUpload(accept=".txt,.json,.org", multiple=False, description="import file")
        upload.observe(self._uploaded, "value")
        quiz = self.quiz = QuizPanel(record=lambda order, who: self._act(lambda: state.predict(order, who)),
                                     reveal=lambda: self._act(state.reveal), measure=self._quiz_measure_chosen)
        return Controls(
            help=help_toggle, gallery=gallery, n=n, wn=wn, uniform=uniform,
            undo=_button("↶ undo", "undo the last edit (Ctrl+Z)", lambda: self._act(state.undo)),
            redo=_button("↷ redo", "redo (Ctrl+Shift+Z)", lambda: self._act(state.redo)),
            layout=layout, text_size=text_size, predict=predict,
            add_output=_button("+ output", "add an output (a copy of the gold)",
                               lambda: self._act(lambda: state.add_output(state.gold.organization))),
            remove_output=_button("− output", "remove the last output", lambda: self._act(state.remove_output)),
            clear_history=_button("clear history", "forget the history; the scores shown become step 0",
                                  lambda: self._act(state.clear_history)),
            exchange=exchange,
            export_text=_button("export notation", "write the tables as notation into the box below",
                                lambda: setattr(exchange, "value", state.to_text())),
            export_json=_button("export JSON", "write the tables as JSON into the box below",
                                lambda: setattr(exchange, "value", state.to_json())),
            import_tables=_button("import", "read the tables pasted below",
                                  lambda: self._act(lambda: state.load(exchange.value))),
            upload=upload, quiz_measure=quiz.measure, quiz_who=quiz.who, quiz_record=quiz.record,
            quiz_reveal=quiz.reveal)

    def _make_views(self) -> Views:
        why = _region(WhyPanel(), role_class("why"))
        return Views(status=_region(W.HTML(), "wb-status"), help=_region(W.HTML(markup.HELP), "wb-help"),
                     scores=_region(W.HTML(), "wb-scores", role_class("scores")),
                     all_scores=_region(W.HTML(), "wb-all-scores"), chart=_region(W.Box(), role_class("chart")),
                     why=why, why_details=why.details, cards=_region(W.Box(), "wb-cards"), history=W.VBox(),
                     lost=W.VBox(), quiz=self.quiz, quiz_order=self.quiz.order, quiz_result=self.quiz.result)

    # ------------------------------------------------------------------------------------ the view
    @property
    def scores_chart(self):
        """The docked chart of R≺ S≺ R∼ S∼ per output (an ``alt.JupyterChart``: its ``spec`` is what the browser
        draws); the charts are built on first use."""
        return self._charts_drawn()["scores"]

    @property
    def history_chart(self):
        """The chart of the scores at every step, the current one marked."""
        return self._charts_drawn()["history"]

    @property
    def lost_chart(self):
        """The chart of the score mass each document of the output in focus loses."""
        return self._charts_drawn()["lost"]

    def _charts_drawn(self) -> dict:
        if not self.charts.built:
            self.charts.build()
            for box, name in ((self.views.chart, "scores"), (self.views.history, "history"), (self.views.lost, "lost")):
                box.children = [self.charts.widgets[name]]
        return self.charts.widgets

    @property
    def layout_mode(self) -> str:
        """``"focus"`` (the gold beside one output) or ``"grid"`` (every editor)."""
        return self.controls.layout.value

    @layout_mode.setter
    def layout_mode(self, value: str) -> None:
        self.controls.layout.value = check(value, Choices(LAYOUTS), "layout_mode", "Workbench.layout_mode")

    def close(self) -> None:
        """Close the view; the state stays (and stops telling it). A view whose arguments were refused (closed
        when it is collected) has nothing to stop."""
        for stop in getattr(self, "_stop", ()):
            stop()
        super().close()

    # ------------------------------------------------------------------------------- actions
    def _act(self, action: Callable[[], object]) -> None:
        """Run a control's action on the state: a refusal is said in the status line. The state says what it
        refuses (a selection in the why panel); a call it refused for its arguments never reached it (the state is
        unchanged), so the view says that one."""
        if not self._rendering:
            try:
                action()
            except WorkbenchError as problem:
                if not isinstance(problem, SelectionError) and not self.state.status.endswith(str(problem)):
                    self.views.status.value = markup.refusal(str(problem))

    def _received(self, kind: str) -> None:
        if kind == "shown":
            self._charts_drawn()
        else:
            self._act(self.state.undo if kind == "undo" else self.state.redo)

    def _typed(self, table, editor: OrganizationEditor) -> None:
        """An editor's text changed: the state takes it, with the editor's parse when the text is valid (a move
        the keyboard carries on joins the step of the move before)."""
        parsed = None if editor.error else editor.organization
        self._act(lambda: self.state.edit(table, editor.text, parsed=parsed, joins=editor.carrying))

    def _clicked(self, index: int | None, document: str) -> None:
        """A token was clicked: in an output (``index``) or in the gold (then the focused output)."""
        self._act(lambda: self.state.select(self.state.focus if index is None else index, document))

    def _weights_edited(self) -> None:
        c = self.controls
        self._act(lambda: self.state.set_weights(*((None, None) if c.uniform.value else (c.n.value, c.wn.value))))

    def _predict_toggled(self, on: bool) -> None:
        self._act(lambda: self.state.start_quiz(self.controls.quiz_measure.value) if on else self.state.end_quiz())

    def _quiz_measure_chosen(self, measure: str) -> None:
        if self.state.quiz is not None and self.state.quiz.measure != measure:
            self._act(lambda: self.state.start_quiz(measure))

    def _uploaded(self, change) -> None:
        """A file came from the upload control: its first file is imported (the front end sends one)."""
        files = change["new"]
        if not files or self._rendering:
            return
        upload = fields(files[0] if isinstance(files, tuple | list) else files, _UPLOAD, "the workbench's upload")
        if upload is not None:
            content = bytes(upload["content"])
            self._act(lambda: self.state.load(content, upload["name"]))
            if not self.state.status:
                self.controls.exchange.value = content.decode("utf-8")

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
            v.status.value = markup.status_line(state)
            v.scores.value = markup.scores_table(state)
            v.all_scores.value = markup.scores_table(state, full=True)
            self._draw_cards()
            self.charts.draw()
            v.why.draw(state)
            self.quiz.draw(state)
        finally:
            self._rendering = False

    def _sync_editors(self) -> None:
        state = self.state
        while len(self.outputs) > len(state.outputs):
            self.outputs.pop().close()
        while len(self.outputs) < len(state.outputs):
            index = len(self.outputs)
            editor = _region(OrganizationEditor(), "wb-output")
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
        for index, editor in enumerate((self.gold, *self.outputs), start=-1):
            editor.known_documents = known
            editor.board.highlight = state.highlighted if index in (-1, state.focus) else ""

    def _sync_controls(self) -> None:
        c, state = self.controls, self.state
        c.uniform.value = state.n is None
        c.n.value, c.wn.value = state.last_weights
        c.n.disabled = c.wn.disabled = state.n is None
        c.undo.disabled, c.redo.disabled = not state.can_undo, not state.can_redo
        if c.gallery.value != state.example and state.example in EXAMPLES:
            c.gallery.value = state.example
        c.predict.value = state.quiz is not None
        c.remove_output.disabled = len(state.outputs) < 2

    def _draw_layout(self) -> None:
        grid, focus = self.controls.layout.value == "grid", self.state.focus
        for index, editor in enumerate(self.outputs):
            (editor.add_class if index == focus else editor.remove_class)(role_class("output-editor"))
        shown = [self.gold, *(self.outputs if grid else [self.outputs[focus]])]
        if list(self._editors.children) != shown:
            self._editors.children = shown
        for mode in LAYOUTS:
            (self.add_class if (mode == "grid") == grid else self.remove_class)(f"wb-{mode}")
        for size in TEXT_SIZES[1:]:
            name = f"wb-size-{size.rstrip('%')}"
            (self.add_class if size == self.controls.text_size.value else self.remove_class)(name)
        v = self.views
        v.help.layout.display = None if self.controls.help.value else "none"
        v.cards.layout.display = "none" if grid else None
        v.chart.layout.display = "none" if self.state.scores_hidden else None

    def _draw_cards(self) -> None:
        state, old, cards = self.state, list(self.views.cards.children), []
        for index, name in enumerate(state.names):
            if index == state.focus:
                continue
            card = old.pop(0) if old else None
            if card is None:
                card = _region(W.Button(), "wb-card")
                card.on_click(lambda button: self._act(lambda: self.state.focus_output(self._card_output[id(button)])))
            for k in range(8):
                card.remove_class(f"wb-card-c{k}")
            card.add_class(f"wb-card-c{index % 8}")
            self._card_output[id(card)] = index
            card.description, card.tooltip = markup.card_text(state, index), f"put {name} beside the gold"
            cards.append(card)
        for card in old:
            self._card_output.pop(id(card), None)
            card.close()
        self.views.cards.children = cards
