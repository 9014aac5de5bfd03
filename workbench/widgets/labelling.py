"""A gold and an output labelling side by side, editable, with their scores and ICM's terms per item live.

:class:`LabellingState` is the plain state (no ipywidgets): the two texts in the notation of
:meth:`workbench.model.labelling.Labelling.parse`, the labellings in force (a text that does not read keeps the
last valid one and says why), the scores of the chosen measures (:func:`workbench.evaluate`) and an explanation
(:func:`workbench.explain`). :class:`LabellingEditor` draws it: two text areas, the scores, the rows of one
measure's explanation. Nothing here computes a score.

    >>> state = LabellingState("1: A\\n2: A\\n3: B", "1: A\\n2: B\\n3: B", ["Acc", "Re", "MAE"])
    >>> state.scores()["Re"], state.scores()["MAE"]
    (0.75, 'MAE is defined for soft-label (learning with disagreement) classification; this gold is mono-label')
    >>> state.edit("output", "1: A\\n2: {B")
    >>> state.errors["output"], state.scores()["Acc"]
    ("line 2, id '2': '{B' opens '{' but does not end with '}'", 0.6666666666666666)
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.data.one_pair import evaluate
from workbench.errors import WorkbenchError
from workbench.metrics.registry import parse
from workbench.model.labelling import Labelling
from workbench.validation import Anything, Choices, ListOf, Text, validate

__all__ = ["LabellingEditor", "LabellingState", "scores_html"]

SIDES = ("gold", "output")
_ARGUMENTS = {"gold": Text(empty=True), "output": Text(empty=True), "measures": ListOf(Text(), shortest=1),
              "options": Anything("passed to Labelling.parse, which declares them")}


class LabellingState:
    """The two texts, the labellings in force, the measures (names, parsed once) and the last error per side."""

    @validate(**_ARGUMENTS, explained=Text(optional=True))
    def __init__(self, gold: str, output: str, measures: Sequence[str], *, explained: str | None = None,
                 **options: Any) -> None:
        self.measures = [str(parse(name)) for name in measures]
        self.explained = explained or next((m for m in self.measures if m.startswith("ICM")), self.measures[0])
        self.options = options  # hierarchy, classes, distribution: the task's, for both sides
        self.texts = {"gold": gold, "output": output}
        self.errors = {"gold": "", "output": ""}
        self.labellings = {side: Labelling.parse(text, gold=side == "gold", **options)
                           for side, text in self.texts.items()}

    @validate(side=Choices(SIDES), text=Text(empty=True))
    def edit(self, side: str, text: str) -> None:
        """Read ``text`` as ``side``; while it does not read, the last valid labelling stays and ``errors`` says
        why."""
        self.texts[side] = text
        try:
            self.labellings[side] = Labelling.parse(text, gold=side == "gold", **self.options)
            self.errors[side] = ""
        except WorkbenchError as error:
            self.errors[side] = str(error)

    def scores(self) -> dict[str, float | str]:
        """Each measure's value, or why it has none here (a measure of another context)."""
        out: dict[str, float | str] = {}
        for name in self.measures:
            try:
                out[name] = evaluate(self.labellings["gold"], self.labellings["output"], name)[name]
            except WorkbenchError as error:
                out[name] = str(error)
        return out

    def explanation(self):
        """:func:`workbench.explain` of the explained measure (None when it has no value here)."""
        from workbench.data.one_pair import explain

        try:
            return explain(self.labellings["gold"], self.labellings["output"], self.explained)
        except WorkbenchError:
            return None


def scores_html(scores: Mapping[str, float | str]) -> str:
    """The scores as an HTML table (a measure without a value here shows why, greyed)."""
    rows = []
    for name, value in scores.items():
        if isinstance(value, str):
            cell = f'<td style="color:#888" title="{html.escape(value)}">—</td>'
        else:
            cell = f"<td>{'undefined' if math.isnan(value) else f'{value:.4f}'}</td>"
        rows.append(f"<tr><th style='text-align:left'>{html.escape(name)}</th>{cell}</tr>")
    return "<table>" + "".join(rows) + "</table>"


class LabellingEditor:
    """The view: gold and output text areas side by side, the scores, and the chosen measure's rows per item
    (``.state`` is the :class:`LabellingState`; ``.widget`` the ipywidgets box to display)."""

    @validate(**_ARGUMENTS)
    def __init__(self, gold: str, output: str, measures: Sequence[str], **options: Any) -> None:
        import ipywidgets as W

        self.state = LabellingState(gold, output, measures, **options)
        layout = W.Layout(width="auto", height="14em")
        self.areas = {side: W.Textarea(value=self.state.texts[side], layout=layout, continuous_update=True)
                      for side in SIDES}
        self.notes = {side: W.HTML() for side in SIDES}
        self.scores = W.HTML()
        self.rows = W.HTML()
        columns = [W.VBox([W.HTML(f"<b>{side}</b>"), self.areas[side], self.notes[side]],
                          layout=W.Layout(flex="1 1 0")) for side in SIDES]
        self.widget = W.VBox([W.HBox(columns), W.HBox([self.scores, self.rows])])
        for side in SIDES:
            self.areas[side].observe(lambda change, side=side: self._edited(side, change["new"]), names="value")
        self._draw()

    def _edited(self, side: str, text: str) -> None:
        self.state.edit(side, text)
        self._draw()

    def _draw(self) -> None:
        for side in SIDES:
            error = self.state.errors[side]
            self.notes[side].value = f'<span class="wb-error">{html.escape(error)}</span>' if error else ""
        self.scores.value = scores_html(self.state.scores())
        explanation = self.state.explanation()
        self.rows.value = "" if explanation is None else (
            f"<b>{html.escape(explanation.measure)}</b> per item<br>"
            + explanation.contributions.to_html(index=False, float_format=lambda x: f"{x:.3f}", na_rep=""))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
