"""The predict-then-reveal panel of the workbench: the measure, who predicts, one dropdown per rank (the output
predicted there, or ``—``), *record prediction* and *reveal*, and what was predicted and, once revealed, the
verdicts (:func:`workbench.widgets.markup.quiz_result`). It draws a
:class:`~workbench.widgets.state.WorkbenchState`'s quiz and hands what is chosen to callbacks; the quiz itself
is the state's (:mod:`workbench.widgets.quiz`).

    >>> panel = QuizPanel(record=print, reveal=lambda: None, measure=lambda name: None)
    >>> from workbench.widgets.state import WorkbenchState
    >>> state = WorkbenchState(); state.start_quiz("S≺"); panel.draw(state)
    >>> [rank.value for rank in panel.order.children]
    ['output 1', 'output 2', '—', '—', '—']
    >>> panel.record.click()
    ['output 1', 'output 2'] class
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as W

from workbench.widgets import markup
from workbench.widgets.state import WorkbenchState
from workbench.widgets.why import EXPLAINED

__all__ = ["SKIP", "QuizPanel"]

SKIP = "—"  # a rank left out of a prediction


class QuizPanel(W.VBox):
    """See the module docstring: ``record(order, who)``, ``reveal()`` and ``measure(name)`` are called when the
    class records a prediction, asks for the reveal, or picks another measure."""

    def __init__(self, *, record: Callable[[list[str], str], None], reveal: Callable[[], None],
                 measure: Callable[[str], None], **kwargs) -> None:
        super().__init__(**kwargs)
        self.measure = W.Dropdown(options=EXPLAINED, value="R∼", description="measure", layout=W.Layout(width="auto"))
        self.measure.observe(lambda change: measure(change["new"]), "value")
        self.who = W.Text(value="class", description="who", layout=W.Layout(width="12em"),
                          style={"description_width": "2.5em"})
        self.order = W.HBox(layout=W.Layout(flex_flow="row wrap"))
        self.record = W.Button(description="record prediction", tooltip="record this order of the outputs",
                               layout=W.Layout(width="auto"))
        self.record.on_click(lambda _: record([rank.value for rank in self.order.children if rank.value != SKIP],
                                              self.who.value.strip() or "class"))
        self.reveal = W.Button(description="reveal", tooltip="show the scores and who was right",
                               layout=W.Layout(width="auto"))
        self.reveal.on_click(lambda _: reveal())
        self.result = W.HTML()
        self.children = [W.HBox([W.HTML("<b>Predict, then reveal:</b> order the outputs on"), self.measure, self.who],
                                layout=W.Layout(flex_flow="row wrap", align_items="center")),
                         self.order, W.HBox([self.record, self.reveal]), self.result]
        self.add_class("wb-quiz")

    def draw(self, state: WorkbenchState) -> None:
        """Show ``state``'s quiz (hidden without one); a rank keeps its choice while the outputs stay the same."""
        quiz = state.quiz
        self.layout.display = None if quiz is not None else "none"
        if quiz is None:
            return
        self.measure.value = quiz.measure
        names, ranks = state.names, list(self.order.children)
        while len(ranks) > len(names):
            ranks.pop().close()
        while len(ranks) < len(names):
            ranks.append(W.Dropdown(description=f"{len(ranks) + 1}.", layout=W.Layout(width="auto"),
                                    style={"description_width": "1.6em"}))
        for rank, (dropdown, name) in enumerate(zip(ranks, names, strict=True)):
            options = [*names, SKIP]
            if list(dropdown.options) != options:
                dropdown.options = options
                dropdown.value = name if rank < 2 else SKIP
        self.order.children = ranks
        self.result.value = markup.quiz_result(state)
        self.reveal.disabled = quiz.revealed
