"""The workbench the main notebook shows: a gold editor beside output editors, live R≺ R∼ S≺ S∼ (and F).

Every valid edit of any editor, and every change of (n, W_n), recomputes ``scores`` with
``workbench.metrics.reliability.reliability_sensitivity`` (for the output in focus, ``workbench.explain``, whose
scores are the same) and redraws the charts in place (``JupyterChart``).
Documents are tokens: dragging one moves it (the text follows), clicking one (or :meth:`Workbench.select`)
explains it with ``workbench.explain``: its relations in the why panel (:attr:`Workbench.why`) and the mass
each document loses in the chart beside the scores. The widget holds no arithmetic: it parses, calls the
kernels, tabulates and draws.

    >>> wb = Workbench("d1 {d2 d3}", ["d1 d2 d3"], n=10, wn=0.8)
    >>> wb.outputs[0].levels[0].value = "d1 {d2 d3}"      # as the browser sets it when one types
    >>> float(wb.scores[0].s_relatedness)
    1.0
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import altair as alt
import ipywidgets as W
import pandas as pd
import traitlets as T

from workbench.charts import enable_offline, history_chart, lost_mass_chart, scores_chart, with_data
from workbench.errors import WorkbenchError
from workbench.metrics.explain import Explanation, explain
from workbench.metrics.reliability import reliability_sensitivity
from workbench.model import Organization, natural_key
from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.gallery import EXAMPLES
from workbench.widgets.why import WhyPanel, lost_by_document, lost_rows, why_frame

# Measure name -> RSScores field, in the order the scores are shown (seed 000, Table 9 prints R, S pairs).
MEASURES = {"R≺": "r_priority", "S≺": "s_priority", "F≺": "f_priority",
            "R∼": "r_relatedness", "S∼": "s_relatedness", "F∼": "f_relatedness"}
CHARTED = ("R≺", "R∼", "S≺", "S∼")
HISTORY_SHOWN = 50  # the history chart draws the last 50 edits; ``Workbench.history`` keeps them all
_SECTION = "## "


class WorkbenchFormatError(WorkbenchError):
    """An import the workbench cannot read: names the line (notation) or the key (JSON) at fault."""


class SelectionError(WorkbenchFormatError):
    """A document the workbench cannot explain; the why panel shows the same message and keeps the last valid
    explanation."""


class UnknownOutputError(SelectionError):
    """``select`` named an output the workbench does not have (neither a 0-based index nor a displayed name)."""


class DocumentNotInOutputError(SelectionError):
    """``select`` named a document that the selected output does not hold (nor, with an unlimited tail, its
    gold)."""


class InvalidEditError(SelectionError):
    """The gold or the selected output holds an invalid edit in progress: there is nothing valid to explain."""


def _texts(outputs) -> dict[str, str]:
    def text(value, name):
        if isinstance(value, Organization):
            return value.format()
        if isinstance(value, str):
            return value
        raise WorkbenchFormatError(f"{name}: expected an Organization or notation text, "
                                   f"got {type(value).__name__}")

    if isinstance(outputs, Mapping):
        return {str(name): text(value, name) for name, value in outputs.items()}
    if isinstance(outputs, str | Organization):
        outputs = [outputs]
    return {f"output {i}": text(value, f"output {i}") for i, value in enumerate(outputs, start=1)}


class Workbench(W.VBox):
    """Gold and output editors, the gallery, (n, W_n), live scores, their chart, history and export.

    With no tables it opens on seed 000's Table 9; with a gold and no outputs, one output starts as a copy
    of the gold.
    """

    n = T.Int(10, allow_none=True)
    wn = T.Float(0.8, allow_none=True)
    scores = T.List()

    def __init__(self, gold: Organization | str | None = None,
                 outputs: Sequence | Mapping | Organization | str | None = None,
                 n: int | None = 10, wn: float | None = 0.8, **kwargs) -> None:
        super().__init__(**kwargs)
        enable_offline()
        self._hold = False
        self._step = 0
        self._history: list[tuple[int, str, str, float]] = []
        self.gold = OrganizationEditor(caption="gold standard")
        self.gold.add_class("wb-gold")
        self.outputs: list[OrganizationEditor] = []
        self.gold.observe(self._edited, "organization")
        self.gold.observe(self._edit_in_progress, "error")
        self.gold.board.on_select(lambda document: self._clicked(None, document))
        self._focus = 0                      # the output the contribution chart and the why panel explain
        self._chosen: str | None = None      # the document whose relations the why panel lists
        self._explanation: Explanation | None = None  # the last valid explanation of the focused output
        self._explained_for: tuple = ()      # (gold, output, n, wn) it explains: a click reuses it
        self._lost: dict[str, dict[str, float]] = {}  # its lost mass per document and measure
        self._why = why_frame(None, "")
        self._why_panel = WhyPanel()
        self._lost_chart: alt.JupyterChart | None = None

        self._gallery = W.Dropdown(options=list(EXAMPLES), value=None, description="example",
                                   layout=W.Layout(width="380px"))
        self._gallery.add_class("wb-gallery")
        self._gallery.observe(self._gallery_chosen, "value")
        self._uniform = W.Checkbox(description="uniform weights (closed collections)", indent=False)
        self._n = W.BoundedIntText(value=10, min=1, max=1_000_000, description="n",
                                   layout=W.Layout(width="130px"))
        self._wn = W.BoundedFloatText(value=0.8, min=0.01, max=0.99, step=0.05, description="W_n",
                                      layout=W.Layout(width="150px"))
        for control in (self._uniform, self._n, self._wn):
            control.observe(self._weights_edited, "value")
        self._add_output = W.Button(description="+ output", tooltip="add an output (a copy of the gold)")
        self._add_output.on_click(lambda _: self.add_output(self.gold.text))
        self._remove_output = W.Button(description="− output", tooltip="remove the last output")
        self._remove_output.on_click(lambda _: self.remove_output())
        self._editors = W.Box(layout=W.Layout(flex_flow="row wrap", align_items="flex-start"))
        self._table = W.HTML()
        self._table.add_class("wb-scores")
        self._status = W.HTML()
        self._status.add_class("wb-status")
        self._scores_chart: alt.JupyterChart | None = None  # made at the first scores
        self._history_chart: alt.JupyterChart | None = None
        self._drawn_for: tuple[str, ...] = ()
        # the scores chart, then the lost-mass chart: side by side, the second wraps below when the page is narrow
        self._charts = W.HBox(layout=W.Layout(align_items="center", flex_flow="row wrap"))
        self._history_box = W.VBox()
        self._clear = W.Button(description="clear history")
        self._clear.on_click(lambda _: self.clear_history())
        self._exchange = W.Textarea(placeholder="exported tables appear here; paste tables here to import",
                                    layout=W.Layout(width="100%", height="140px"))
        self._exchange.add_class("wb-exchange")
        export_text = W.Button(description="export notation")
        export_text.on_click(lambda _: setattr(self._exchange, "value", self.to_text()))
        export_json = W.Button(description="export JSON")
        export_json.on_click(lambda _: setattr(self._exchange, "value", self.to_json()))
        self._upload = W.FileUpload(accept=".txt,.json,.org", multiple=False, description="import file")
        self._upload.observe(self._uploaded, "value")
        self._import = W.Button(description="import", tooltip="read the tables pasted above")
        self._import.on_click(lambda _: self._import_clicked())

        self.children = [
            W.HBox([self._gallery, self._uniform, self._n, self._wn]),
            self._editors,
            W.HBox([self._add_output, self._remove_output]),
            self._status,
            W.HBox([self._table, self._charts], layout=W.Layout(align_items="center", flex_flow="row wrap")),
            self._why_panel,
            W.VBox([self._history_box, self._clear]),
            W.VBox([W.HBox([export_text, export_json, self._import, self._upload]), self._exchange]),
        ]
        self.add_class("wb-workbench")
        if gold is None and outputs is None:
            self.load_example(next(iter(EXAMPLES)))
        else:
            gold = gold if gold is not None else ""
            self.set_tables(gold, outputs if outputs is not None else [gold], n, wn)

    # ------------------------------------------------------------------------------ public API
    @property
    def names(self) -> list[str]:
        """The outputs' names, in order."""
        return [editor.caption for editor in self.outputs]

    def set_tables(self, gold, outputs, n: int | None = 10, wn: float | None = 0.8) -> None:
        """Replace the gold, the outputs (list, or dict name -> table) and (n, W_n); one recomputation."""
        texts = _texts(outputs)
        if not texts:
            raise WorkbenchFormatError("the workbench needs at least one output to score against the gold")
        gold_text = _texts({"gold": gold})["gold"]
        self._focus, self._chosen = 0, None  # new tables: nothing selected
        with self._batch():
            self.gold.text = gold_text
            while len(self.outputs) > len(texts):
                self._drop_last_output()
            for index, (name, text) in enumerate(texts.items()):
                if index == len(self.outputs):
                    self._append_output(name, text)
                else:
                    self.outputs[index].caption, self.outputs[index].text = name, text
            self.n, self.wn = n, wn

    def load_example(self, name: str) -> None:
        """Show one of the papers' examples (``gallery.EXAMPLES``) with its weighting."""
        example = EXAMPLES[name]
        n, wn = example.weights if example.weights else (None, None)
        with self._batch():
            self._gallery.value = name
            self.set_tables(example.gold, example.outputs, n, wn)

    def _gallery_chosen(self, change) -> None:
        if change["new"] and not self._hold:
            self.load_example(change["new"])

    def add_output(self, value: Organization | str = "", name: str | None = None) -> OrganizationEditor:
        """Add an output editor (named ``output k`` unless a name is given)."""
        with self._batch():
            text = _texts([value])["output 1"]
            editor = self._append_output(name or f"output {len(self.outputs) + 1}", text)
        return editor

    def remove_output(self) -> None:
        """Remove the last output editor (one output always stays)."""
        if len(self.outputs) > 1:
            with self._batch():
                self._drop_last_output()

    def select(self, output: int | str, document: str) -> pd.DataFrame:
        """Explain ``document`` in ``output`` (a 0-based index or a displayed name such as ``"output 4"``), as a
        click on its token does: highlight its occurrences in the gold and that output, list its relations in
        the why panel, and return :attr:`why`.

        Raises :class:`UnknownOutputError`, :class:`DocumentNotInOutputError` or :class:`InvalidEditError`
        (the panel shows the message and keeps the last valid explanation).
        """
        index = self._output_index(output)
        name = self.names[index]
        problem = self._edit_problem(index)
        if problem:
            self._why_panel.warn(problem)
            raise InvalidEditError(problem)
        gold, organization = self.gold.organization, self.outputs[index].organization
        if not _in_output(gold, organization, document):
            message = (f"{document!r} is not in {name}" + ("" if organization.finite else " nor in the gold")
                       + f": pick one of {_listing(_documents(gold, organization))}")
            self._why_panel.warn(message)
            raise DocumentNotInOutputError(message)
        self._focus, self._chosen = index, document
        self._explain()
        return self.why

    @property
    def why(self) -> pd.DataFrame:
        """The why panel's table: the selected document's relations per measure, ``Explanation.relations`` with
        ``measure`` in front and the mass each relation ``kept`` and ``lost`` (see ``why.why_frame``); the last
        valid one while an edit is invalid."""
        return self._why.copy()

    @property
    def explanation(self) -> Explanation | None:
        """The last valid :class:`workbench.Explanation` of the selected output (the first one until a
        selection)."""
        return self._explanation

    def scores_frame(self) -> pd.DataFrame:
        """The current scores: one row per output and measure (columns ``output, measure, value``)."""
        return pd.DataFrame(
            [(name, measure, float(getattr(score, field)))
             for name, score in zip(self.names, self.scores, strict=True)
             for measure, field in MEASURES.items()],
            columns=["output", "measure", "value"],
        )

    @property
    def history(self) -> pd.DataFrame:
        """Scores after every edit: columns ``step, output, measure, value`` (step 0 = the start)."""
        return pd.DataFrame(self._history, columns=["step", "output", "measure", "value"])

    def clear_history(self) -> None:
        """Forget the history; the current scores become step 0."""
        self._step, self._history = 0, []
        if not self.scores:
            return
        self._record()
        self._draw()

    # ------------------------------------------------------------------------- export / import
    def to_text(self) -> str:
        """The tables in the notation, one ``## name`` section each (gold first), weights in a comment."""
        weights = "uniform" if self.n is None else f"n={self.n} wn={self.wn!r}"
        parts = [f"# workbench tables, weights: {weights}", f"{_SECTION}gold", self.gold.text]
        for editor in self.outputs:
            parts += [f"{_SECTION}{editor.caption}", editor.text]
        return "\n".join(parts) + "\n"

    def load_text(self, text: str) -> None:
        """Inverse of :meth:`to_text`: sections ``## gold`` then ``## <output name>`` of notation."""
        sections: dict[str, list[str]] = {}
        weights: tuple[int | None, float | None] = (self.n, self.wn)
        current = None
        for line_no, line in enumerate(text.splitlines(), start=1):
            if line.startswith(_SECTION):
                current = line[len(_SECTION):].strip()
                if not current or current in sections:
                    raise WorkbenchFormatError(f"line {line_no}: section name {current!r} is empty or "
                                               "repeated")
                sections[current] = []
            elif current is None:
                if line.startswith("# workbench tables, weights:"):
                    weights = _read_weights(line.split(":", 1)[1].strip(), line_no)
                elif line.strip():
                    raise WorkbenchFormatError(f"line {line_no}: text before the first '## gold' section: "
                                               f"{line.strip()!r}")
            else:
                sections[current].append(line)
        if "gold" not in sections or next(iter(sections)) != "gold" or len(sections) < 2:
            raise WorkbenchFormatError("expected a '## gold' section first, then one '## <name>' per output")
        texts = {name: "\n".join(lines) for name, lines in sections.items()}
        gold = texts.pop("gold")
        self.set_tables(gold, texts, *weights)

    def to_json(self) -> str:
        """The tables as JSON: each table's notation as typed, plus (when that text is valid) its levels and
        rest as lists, else the ``error`` that makes it invalid."""
        def table(editor: OrganizationEditor) -> dict:
            if editor.error:
                return {"name": editor.caption, "text": editor.text, "error": editor.error}
            organization = editor.organization
            return {"name": editor.caption, "text": editor.text,
                    "levels": [[sorted(c, key=natural_key) for c in level] for level in organization.levels],
                    "rest": None if organization.rest is None else sorted(organization.rest, key=natural_key)}
        return json.dumps({"n": self.n, "wn": self.wn, "gold": table(self.gold),
                           "outputs": [table(e) for e in self.outputs]}, ensure_ascii=False, indent=1)

    def load_json(self, text: str) -> None:
        """Inverse of :meth:`to_json`; a table without ``text`` is built from its ``levels`` and ``rest``."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as problem:
            raise WorkbenchFormatError(f"not JSON: line {problem.lineno}, column {problem.colno}: "
                                       f"{problem.msg}") from None
        if not isinstance(data, dict) or "gold" not in data or not isinstance(data.get("outputs"), list):
            raise WorkbenchFormatError("expected a JSON object with 'gold' and a list 'outputs'")
        gold = _table_from_json(data["gold"], "gold")
        outputs = {}
        for i, item in enumerate(data["outputs"], start=1):
            name = item.get("name", f"output {i}") if isinstance(item, dict) else f"output {i}"
            outputs[str(name)] = _table_from_json(item, f"outputs[{i - 1}]")
        self.set_tables(gold, outputs, data.get("n"), data.get("wn"))

    # --------------------------------------------------------------------------------- plumbing
    @contextmanager
    def _batch(self):
        held, self._hold = self._hold, True
        try:
            yield
        finally:
            self._hold = held
        if not held:
            self._sync_weight_controls()
            self._refresh()

    def _append_output(self, name: str, text: str) -> OrganizationEditor:
        editor = OrganizationEditor(text, caption=name)
        editor.add_class("wb-output")
        editor.observe(self._edited, "organization")
        editor.observe(self._edit_in_progress, "error")
        editor.board.on_select(lambda document: self._clicked(self.outputs.index(editor), document))
        self.outputs.append(editor)
        self._editors.children = [self.gold, *self.outputs]
        return editor

    def _drop_last_output(self) -> None:
        editor = self.outputs.pop()
        editor.unobserve(self._edited, "organization")
        editor.unobserve(self._edit_in_progress, "error")
        if self._focus >= len(self.outputs):
            self._focus, self._chosen = 0, None
        self._editors.children = [self.gold, *self.outputs]
        editor.close()

    def _edited(self, _change=None) -> None:
        if not self._hold:
            self._refresh()

    @T.observe("n", "wn")
    def _weights_changed(self, _change) -> None:
        if not self._hold:
            self._sync_weight_controls()
            self._refresh()

    def _sync_weight_controls(self) -> None:
        held, self._hold = self._hold, True
        try:
            uniform = self.n is None
            self._uniform.value = uniform
            self._n.disabled = self._wn.disabled = uniform
            if not uniform:
                self._n.value, self._wn.value = self.n, self.wn
        finally:
            self._hold = held

    def _weights_edited(self, _change) -> None:
        if self._hold:
            return
        if self._uniform.value:
            self.n = self.wn = None
        else:
            with self._batch():
                self.n, self.wn = self._n.value, self._wn.value

    def _refresh(self) -> None:
        gold = self.gold.organization
        known = frozenset().union(gold.documents, *(e.organization.documents for e in self.outputs))
        for editor in (self.gold, *self.outputs):
            editor.known_documents = known
        try:  # the output in focus is explained anyway (why panel, lost-mass chart): its scores come with it
            focus = self._explained()
            scores = [focus.scores if index == self._focus else
                      reliability_sensitivity(gold, editor.organization, n=self.n, wn=self.wn)
                      for index, editor in enumerate(self.outputs)]
        except ValueError as problem:  # e.g. uniform weights asked for an unlimited tail
            self._status.value = f'<span style="color:#b00020">⚠ {html.escape(str(problem))}</span>'
            self.scores = []
            self._table.value = ""
            self._why_panel.warn(str(problem))
            return
        self._status.value = ""
        self.scores = scores
        self._step += 1 if self._history else 0
        self._record()
        self._table.value = self._table_html()
        self._draw()
        self._explain()

    # ------------------------------------------------------------------------------------ why
    def _output_index(self, output: int | str) -> int:
        if isinstance(output, bool) or not isinstance(output, int | str):
            raise UnknownOutputError(f"output must be a 0-based index or a name, got {type(output).__name__}")
        if isinstance(output, int):
            if 0 <= output < len(self.outputs):
                return output
            message = f"no output {output}: the indices are 0 to {len(self.outputs) - 1}"
        elif output in self.names:
            return self.names.index(output)
        else:
            message = f"no output named {output!r}: the outputs are {', '.join(map(repr, self.names))}"
        self._why_panel.warn(message)
        raise UnknownOutputError(message)

    def _edit_problem(self, index: int) -> str:
        """What makes the gold or output ``index`` invalid right now ("" when both are valid)."""
        for editor in (self.gold, *self.outputs[index:index + 1]):
            if editor.error:
                return (f"{editor.caption} has an invalid edit in progress ({editor.error}); the explanation "
                        "shown is the last valid one")
        return ""

    def _clicked(self, index: int | None, document: str) -> None:
        """A token was clicked: in an output (``index``) or in the gold (then the focused output)."""
        with contextlib.suppress(SelectionError):  # the panel says why
            self.select(self._focus if index is None else index, document)

    def _edit_in_progress(self, _change) -> None:
        if self._hold or not self.outputs:
            return
        problem = self._edit_problem(self._focus)
        if problem:
            self._why_panel.warn(problem)
        elif self._why_panel.warned:
            self._explain()

    def _explain(self) -> None:
        """Explain the focused output; redraw the contribution chart and, with a chosen document, the panel.
        On any problem the panel says so and everything shown stays the last valid explanation."""
        problem = self._edit_problem(self._focus)
        if problem:
            self._why_panel.warn(problem)
            return
        name = self.names[self._focus]
        gold, organization = self.gold.organization, self.outputs[self._focus].organization
        try:
            explanation = self._explained()
        except ValueError as problem:
            self._why_panel.warn(f"{name}: {problem}")
            return
        chosen = self._chosen if self._chosen is not None and _in_output(gold, organization, self._chosen) else None
        self._draw_lost(name, chosen)
        self._highlight(chosen if chosen is not None else "")
        if self._chosen is None:
            self._why_panel.clear()
        elif chosen is None:
            self._why_panel.warn(f"{self._chosen!r} is no longer in {name}: the explanation shown is the last "
                                 "valid one")
        else:
            self._why = why_frame(explanation, chosen)
            self._why_panel.show(name, chosen, self._why, explanation.scores)

    def _explained(self) -> Explanation:
        """``explain`` of the output in focus against the gold (computed again only when either organization or
        the weights changed: a click in the same output reuses it); raises what ``explain`` raises."""
        key = (self.gold.organization, self.outputs[self._focus].organization, self.n, self.wn)
        if key != self._explained_for:  # tuples compare items by identity first: cheap when unchanged
            explanation = explain(*key[:2], n=self.n, wn=self.wn)
            self._explanation, self._explained_for = explanation, key
            self._lost = lost_by_document(explanation)
        return self._explanation

    def _highlight(self, document: str) -> None:
        self.gold.board.highlight = document
        for index, editor in enumerate(self.outputs):
            editor.board.highlight = document if index == self._focus else ""

    def _draw_lost(self, name: str, chosen: str | None) -> None:
        rows = lost_rows(self._lost, chosen)
        title = f"{name}: score mass lost per document"
        if self._lost_chart is None:
            frame = pd.DataFrame(rows, columns=["document", "measure", "lost", "order", "chosen"])
            self._lost_chart = alt.JupyterChart(lost_mass_chart(frame, title=title))
            self._charts.children = [*self._charts.children, self._lost_chart]
        else:
            spec = with_data(self._lost_chart.spec, rows)
            spec["title"] = title
            self._lost_chart.spec = spec

    def _draw(self) -> None:
        columns = ("step", "output", "measure", "value")
        scores = [dict(zip(columns[1:], entry[1:], strict=True)) for entry in self._history
                  if entry[0] == self._step]
        history = [dict(zip(columns, (float(entry[0]), *entry[1:]), strict=True)) for entry in self._history
                   if entry[0] > self._step - HISTORY_SHOWN]
        if self._scores_chart is None or self._drawn_for != tuple(self.names):  # new outputs: (re)build
            charts = scores_chart(pd.DataFrame(scores)), history_chart(pd.DataFrame(history))
            if self._scores_chart is None:
                self._scores_chart, self._history_chart = (alt.JupyterChart(chart) for chart in charts)
                self._charts.children = [self._scores_chart, *self._charts.children]
                self._history_box.children = [self._history_chart]
            else:
                self._scores_chart.chart, self._history_chart.chart = charts
        else:  # same outputs: swap the rows into the built specs (no altair rebuild and validation)
            self._scores_chart.spec = with_data(self._scores_chart.spec, scores)
            self._history_chart.spec = with_data(self._history_chart.spec, history)
        self._drawn_for = tuple(self.names)

    def _record(self) -> None:
        self._history += [(self._step, name, measure, float(getattr(score, MEASURES[measure])))
                          for name, score in zip(self.names, self.scores, strict=True) for measure in CHARTED]

    def _table_html(self) -> str:
        head = "".join(f"<th>{html.escape(m)}</th>" for m in MEASURES)
        rows = "".join(
            f'<tr data-output="{html.escape(name)}"><th class="wb-name">{html.escape(name)}</th>'
            + "".join(f'<td data-measure="{m}">{getattr(score, field):.4f}</td>'
                      for m, field in MEASURES.items())
            + "</tr>"
            for name, score in zip(self.names, self.scores, strict=True)
        )
        weights = "uniform weights" if self.n is None else f"n = {self.n}, W_n = {self.wn:g}"
        style = "<style>.wb-scores-table th, .wb-scores-table td {white-space: nowrap; padding: 2px 6px}</style>"
        return (f'{style}<table class="wb-scores-table"><caption>{weights}</caption><tr><th>output</th>{head}'
                f"</tr>{rows}{self._printed_html()}</table>")

    def _printed_html(self) -> str:
        """The paper's printed values, while the tables are exactly those of the loaded example."""
        example = EXAMPLES.get(self._gallery.value)
        if (example is None or not example.printed or self.gold.text != example.gold
                or {e.caption: e.text for e in self.outputs} != example.outputs or (self.n, self.wn) !=
                (example.weights or (None, None))):
            return ""
        cells = dict.fromkeys(MEASURES, "")
        rows = ""
        for name, values in example.printed.items():
            cells.update(zip(("R≺", "S≺", "R∼", "S∼"), (f"{v:g}" for v in values), strict=True))
            rows += (f'<tr class="wb-printed" style="color:#777"><th>{html.escape(name)} (printed)</th>'
                     + "".join(f"<td>{v}</td>" for v in cells.values()) + "</tr>")
        return f'<tr><th colspan="7" style="text-align:left">{html.escape(example.source)}:</th></tr>{rows}'


    def _uploaded(self, change) -> None:
        if not change["new"]:
            return
        (upload,) = change["new"]
        try:
            text = bytes(upload["content"]).decode("utf-8")
        except UnicodeDecodeError as problem:
            self._status.value = (f'<span style="color:#b00020">⚠ import: {html.escape(upload["name"])} is '
                                  f"not UTF-8 text (byte {problem.start})</span>")
            return
        self._exchange.value = text
        self._import_clicked()

    def _import_clicked(self) -> None:
        text = self._exchange.value
        try:
            self.load_json(text) if text.lstrip().startswith("{") else self.load_text(text)
        except ValueError as problem:
            self._status.value = f'<span style="color:#b00020">⚠ import: {html.escape(str(problem))}</span>'


def _documents(gold: Organization, output: Organization) -> frozenset[str]:
    """The documents one can ask about in ``output``: those it names, and (unlimited tail) the gold's too."""
    return output.documents if output.finite else output.documents | gold.documents


def _in_output(gold: Organization, output: Organization, document: str) -> bool:
    return document in _documents(gold, output)


def _listing(documents: frozenset[str], shown: int = 12) -> str:
    names = sorted(documents, key=natural_key)
    return " ".join(names[:shown]) + (f" … ({len(names)} in all)" if len(names) > shown else "")


def _read_weights(text: str, line_no: int) -> tuple[int | None, float | None]:
    if text == "uniform":
        return None, None
    try:
        fields = dict(item.split("=", 1) for item in text.split())
        return int(fields["n"]), float(fields["wn"])
    except (KeyError, ValueError):
        raise WorkbenchFormatError(f"line {line_no}: weights must read 'uniform' or 'n=10 wn=0.8', "
                                   f"got {text!r}") from None


def _table_from_json(item, where: str) -> str:
    if not isinstance(item, dict):
        raise WorkbenchFormatError(f"{where}: expected an object with 'text' or 'levels'")
    if isinstance(item.get("text"), str):
        return item["text"]
    levels, rest = item.get("levels"), item.get("rest")
    if not isinstance(levels, list):
        raise WorkbenchFormatError(f"{where}: expected 'text' (notation) or 'levels' (lists of clusters)")
    try:
        return Organization(tuple(tuple(frozenset(c) for c in level) for level in levels),
                            None if rest is None else frozenset(rest)).format()
    except (TypeError, ValueError) as problem:
        raise WorkbenchFormatError(f"{where}: {problem}") from None

