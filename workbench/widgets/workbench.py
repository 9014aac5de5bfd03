"""The workbench the main notebook shows: a gold editor beside output editors, live R≺ R∼ S≺ S∼ (and F).

Every valid edit of any editor, and every change of (n, W_n), recomputes ``scores`` with
``workbench.metrics.reliability.reliability_sensitivity`` and redraws the charts in place (``JupyterChart``).
The widget holds no arithmetic: it parses, calls the kernel, tabulates and draws.

    >>> wb = Workbench("d1 {d2 d3}", ["d1 d2 d3"], n=10, wn=0.8)
    >>> wb.outputs[0].levels[0].value = "d1 {d2 d3}"      # as the browser sets it when one types
    >>> float(wb.scores[0].s_relatedness)
    1.0
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from contextlib import contextmanager

import altair as alt
import ipywidgets as W
import pandas as pd
import traitlets as T

from workbench.charts import enable_offline, history_chart, scores_chart, with_data
from workbench.errors import WorkbenchError
from workbench.metrics.reliability import reliability_sensitivity
from workbench.model import Organization, natural_key
from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.gallery import EXAMPLES

# Measure name -> RSScores field, in the order the scores are shown (seed 000, Table 9 prints R, S pairs).
MEASURES = {"R≺": "r_priority", "S≺": "s_priority", "F≺": "f_priority",
            "R∼": "r_relatedness", "S∼": "s_relatedness", "F∼": "f_relatedness"}
CHARTED = ("R≺", "R∼", "S≺", "S∼")
HISTORY_SHOWN = 50  # the history chart draws the last 50 edits; ``Workbench.history`` keeps them all
_SECTION = "## "


class WorkbenchFormatError(WorkbenchError):
    """An import the workbench cannot read: names the line (notation) or the key (JSON) at fault."""


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
        self._charts = W.HBox(layout=W.Layout(align_items="center"))
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
            W.HBox([self._table, self._charts], layout=W.Layout(align_items="center")),
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
        self.outputs.append(editor)
        self._editors.children = [self.gold, *self.outputs]
        return editor

    def _drop_last_output(self) -> None:
        editor = self.outputs.pop()
        editor.unobserve(self._edited, "organization")
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
        try:
            scores = [reliability_sensitivity(gold, editor.organization, n=self.n, wn=self.wn)
                      for editor in self.outputs]
        except ValueError as problem:  # e.g. uniform weights asked for an unlimited tail
            self._status.value = f'<span style="color:#b00020">⚠ {html.escape(str(problem))}</span>'
            self.scores = []
            self._table.value = ""
            return
        self._status.value = ""
        self.scores = scores
        self._step += 1 if self._history else 0
        self._record()
        self._table.value = self._table_html()
        self._draw()

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
                self._charts.children, self._history_box.children = [self._scores_chart], [self._history_chart]
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

