"""The why panel: a summary docked beside the scores (which document, and per measure what it keeps and loses
through how many failing relations) and, further down, one table per measure of its relations, failing ones
first. Holding and failing relations are told apart by a mark (✓/✗) as well as by a colour-blind-safe colour
(``workbench.charts.palettes``). It draws a ``why.why_frame`` and computes nothing.

    >>> panel = WhyPanel()
    >>> panel.warn("no output named 'output 9'")
    >>> panel.message_text
    "⚠ no output named 'output 9'"
"""

from __future__ import annotations

import html

import ipywidgets as W
import pandas as pd

from workbench.charts.palettes import FAILS, FAILS_MARK, HOLDS, HOLDS_MARK
from workbench.widgets.why import EXPLAINED, FIELDS, ROWS_SHOWN

__all__ = ["WhyPanel"]

_STYLE = (f"<style>.wb-why-table td, .wb-why-table th {{padding: 1px 6px; white-space: nowrap}} "
          f".wb-why-fails {{color: {FAILS}}} .wb-why-holds {{color: {HOLDS}}} .wb-why-measure {{display: "
          "inline-block; vertical-align: top; margin: 0 16px 8px 0}</style>")


class WhyPanel(W.VBox):
    """The summary (a message line kept apart from the last valid explanation, then the summary) as this box;
    the relation tables in :attr:`details`, a widget the workbench places further down."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = W.HTML()
        self.message.add_class("wb-why-message")
        self.summary = W.HTML()
        self.summary.add_class("wb-why-summary")
        self.details = W.HTML()
        self.details.add_class("wb-why-body")
        self.message_text = ""
        self.children = [self.message, self.summary]
        self.add_class("wb-why")

    @property
    def warned(self) -> bool:
        return bool(self.message_text)

    def warn(self, message: str) -> None:
        """Show ``message``; the explanation below stays the last valid one."""
        self.message_text = f"⚠ {message}" if message else ""
        self.message.value = f'<span class="wb-error">{html.escape(self.message_text)}</span>' if message else ""

    def clear(self) -> None:
        self.warn("")
        self.summary.value = self.details.value = ""

    def draw(self, state) -> None:
        """Show what a :class:`~workbench.widgets.state.WorkbenchState` explains (``why_shown``, its
        ``why_message`` above), or that the panel waits for a quiz's reveal."""
        if state.scores_hidden:
            self.clear()
            self.summary.value = "<i>the why panel returns with the reveal</i>"
            return
        shown = state.why_shown
        if shown is None:
            self.clear()
        else:
            self.show(shown.output, shown.document, shown.frame, shown.scores)
        self.warn(state.why_message)

    def show(self, output: str, document: str, why: pd.DataFrame, scores) -> None:
        """Draw ``why`` (see ``why.why_frame``) for ``document`` in ``output``; ``scores`` its RSScores."""
        self.warn("")
        by_measure: dict[str, list[dict]] = {measure: [] for measure in EXPLAINED}
        for row in why.to_dict("records"):
            by_measure[row["measure"]].append(row)
        lines, sections = [], []
        for measure, rows in by_measure.items():
            rows.sort(key=lambda r: (r["holds"], -r["lost"]))  # failing relations first, the costliest on top
            score = float(getattr(scores, FIELDS[measure]))
            side = "output" if measure.startswith("R") else "gold"
            kept, lost = sum(r["kept"] for r in rows), sum(r["lost"] for r in rows)
            failing = sum(r["holds"] < 1 for r in rows)
            head = (f"<b>{measure}</b> = {score:.4f}: " + (
                f"{html.escape(document)} keeps {kept:.4f}, loses {lost:.4f} through "
                f'<span class="wb-why-fails">{FAILS_MARK} {failing}</span> failing of {len(rows)} relations'
                if rows else f"no relation of {html.escape(document)} in the {side} (it is not prioritised there)"))
            lines.append(f'<div class="wb-why-line" data-measure="{measure}">{head}</div>')
            body = "".join(_row(r) for r in rows[:ROWS_SHOWN])
            more = (f'<tr><td colspan="8"><i>… {len(rows) - ROWS_SHOWN} more (Workbench.why has them '
                    "all)</i></td></tr>" if len(rows) > ROWS_SHOWN else "")
            sections.append(
                f'<div class="wb-why-measure" data-measure="{measure}">{head}<table class="wb-why-table">'
                "<tr><th>level</th><th>relation</th><th>partner</th><th>weight</th><th>holds</th><th>✓/✗</th>"
                f"<th>kept</th><th>lost</th></tr>{body}{more}</table></div>")
        title = (f'<div class="wb-why-title"><b>why: {html.escape(document)} in {html.escape(output)}</b></div>')
        self.summary.value = f"{_STYLE}{title}{''.join(lines)}"
        self.details.value = f"{_STYLE}{title}{''.join(sections)}"


def _row(row: dict) -> str:
    holds = row["holds"] >= 1
    kind, mark = ("wb-why-holds", HOLDS_MARK) if holds else ("wb-why-fails", FAILS_MARK)
    return (f'<tr class="{kind}"><td>{html.escape(str(row["level"]))}</td><td>{html.escape(str(row["relation"]))}'
            f'</td><td>{html.escape(str(row["partner"]))} ({html.escape(str(row["partner_level"]))})</td>'
            f'<td>{row["weight"]:.4f}</td><td>{row["holds"]:.3f}</td>'
            f'<td>{mark}</td><td>{row["kept"]:.4f}</td>'
            f'<td>{row["lost"]:.4f}</td></tr>')
