"""The "why" panel: which relations of one document hold and which fail on the other side, for each of R≺ S≺
R∼ S∼, with their weights and the score mass they keep or lose. It reads a ``workbench.explain``
:class:`Explanation` and computes no score (seed 000 §3; ../shared/design/RS-SEMANTICS.md points 3–6).

    >>> panel = WhyPanel()
    >>> panel.warn("no output named 'output 9'")
    >>> "output 9" in panel.message.value
    True
"""

from __future__ import annotations

import html

import ipywidgets as W
import pandas as pd

from workbench.metrics.explain import ExplainError
from workbench.model import natural_key

MEASURES = ("R≺", "S≺", "R∼", "S∼")
SCORE_FIELDS = {"R≺": "r_priority", "S≺": "s_priority", "R∼": "r_relatedness", "S∼": "s_relatedness"}
COLUMNS = ["measure", "occurrence", "level", "cluster", "partner", "partner_level", "relation", "weight", "holds",
           "mass", "kept", "lost"]
LOST_COLUMNS = ["document", "measure", "lost", "order", "chosen"]
TAIL_ROW = "(tail)"  # the contribution chart's name for the unlimited tail's row
ROWS_SHOWN = 30  # per measure; the DataFrame (``Workbench.why``) keeps them all
LOST_DOCUMENTS_SHOWN = 25


def why_frame(explanation, document: str) -> pd.DataFrame:
    """One row per relation of ``document`` and measure: ``explanation.relations(document, measure)`` with
    the ``measure`` in front (the score mass at stake, ``mass``, and what the relation ``kept`` and ``lost``
    come from the kernel). A measure whose side lacks the document has no rows (e.g.
    S≺ and S∼ read the gold, which may not hold an output's document)."""
    parts = []
    for measure in MEASURES if explanation is not None else ():
        try:
            relations = explanation.relations(document, measure)
        except ExplainError:
            continue
        parts.append(relations.assign(measure=measure))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def lost_by_document(explanation) -> dict[str, dict[str, float]]:
    """document → measure → the score mass it loses (``explanation.lost()`` summed over its occurrences; the
    unlimited tail's row as ``(tail)``), documents that lose most first."""
    lost = explanation.lost()
    sums = lost.assign(document=lost["document"].fillna(TAIL_ROW)).groupby(["document", "measure"])["lost"].sum()
    per_document: dict[str, dict[str, float]] = {}
    for (document, measure), mass in sums.items():
        per_document.setdefault(document, {})[measure] = float(mass)
    return dict(sorted(per_document.items(), key=lambda item: -sum(item[1].values())))


def lost_rows(per_document: dict[str, dict[str, float]], chosen: str | None) -> list[dict]:
    """The contribution chart's rows (columns ``LOST_COLUMNS``) from :func:`lost_by_document`: the documents
    that lose any mass (at most ``LOST_DOCUMENTS_SHOWN``, those losing most) and the chosen one."""
    shown = [d for d, masses in per_document.items() if sum(masses.values()) > 0][:LOST_DOCUMENTS_SHOWN]
    if chosen is not None and chosen not in shown:
        shown.append(chosen)
    shown.sort(key=lambda d: (d == TAIL_ROW, natural_key(d)))
    return [{"document": d, "measure": m, "lost": per_document.get(d, {}).get(m, 0.0), "order": i,
             "chosen": d == chosen} for i, d in enumerate(shown) for m in MEASURES]


class WhyPanel(W.VBox):
    """The panel under the scores: a message line (problems, kept apart from the last valid explanation) and
    one table per measure of the selected document's relations, failing ones first."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = W.HTML()
        self.message.add_class("wb-why-message")
        self.body = W.HTML()
        self.body.add_class("wb-why-body")
        self.children = [self.message, self.body]
        self.add_class("wb-why")

    @property
    def warned(self) -> bool:
        return bool(self.message.value)

    def warn(self, message: str) -> None:
        """Show ``message``; the explanation below stays the last valid one."""
        self.message.value = f'<span style="color:#b00020">⚠ {html.escape(message)}</span>'

    def clear(self) -> None:
        self.message.value = self.body.value = ""

    def show(self, output: str, document: str, why: pd.DataFrame, scores) -> None:
        """Draw ``why`` (see :func:`why_frame`) for ``document`` in ``output``; ``scores`` its RSScores."""
        self.message.value = ""
        by_measure: dict[str, list[dict]] = {measure: [] for measure in MEASURES}
        for row in why.to_dict("records"):
            by_measure[row["measure"]].append(row)
        sections = []
        for measure, rows in by_measure.items():
            rows.sort(key=lambda r: (r["holds"], -r["lost"]))  # failing relations first, the costliest on top
            score = float(getattr(scores, SCORE_FIELDS[measure]))
            side = "output" if measure.startswith("R") else "gold"
            kept, lost = sum(r["kept"] for r in rows), sum(r["lost"] for r in rows)
            failing = sum(r["holds"] < 1 for r in rows)
            head = (f"<b>{measure}</b> = {score:.4f}: " + (
                f"{html.escape(document)} keeps {kept:.4f}, loses {lost:.4f} through {failing} failing of "
                f"{len(rows)} relations" if rows else
                f"no relation of {html.escape(document)} in the {side} (it is not prioritised there)"))
            body = "".join(_row(r) for r in rows[:ROWS_SHOWN])
            more = (f'<tr><td colspan="7"><i>… {len(rows) - ROWS_SHOWN} more (Workbench.why has them '
                    "all)</i></td></tr>" if len(rows) > ROWS_SHOWN else "")
            sections.append(
                f'<div class="wb-why-measure" data-measure="{measure}">{head}<table class="wb-why-table">'
                "<tr><th>level</th><th>relation</th><th>partner</th><th>weight</th><th>holds</th>"
                f"<th>kept</th><th>lost</th></tr>{body}{more}</table></div>")
        style = ("<style>.wb-why-table td, .wb-why-table th {padding: 1px 6px; white-space: nowrap} "
                 ".wb-why-fails {color: #b00020} .wb-why-measure {display: inline-block; vertical-align: top; "
                 "margin: 0 16px 8px 0}</style>")
        self.body.value = (f'{style}<div class="wb-why-title"><b>why: {html.escape(document)} in '
                           f"{html.escape(output)}</b></div>{''.join(sections)}")


def _row(row: dict) -> str:
    fails = ' class="wb-why-fails"' if row["holds"] < 1 else ""
    return (f'<tr{fails}><td>{html.escape(str(row["level"]))}</td><td>{html.escape(str(row["relation"]))}</td>'
            f'<td>{html.escape(str(row["partner"]))} ({html.escape(str(row["partner_level"]))})</td>'
            f'<td>{row["weight"]:.4f}</td><td>{row["holds"]:.3f}</td><td>{row["kept"]:.4f}</td>'
            f'<td>{row["lost"]:.4f}</td></tr>')
