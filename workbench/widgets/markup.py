"""The workbench's HTML as pure functions of its state: the scores table (docked, or full with the paper's printed
values), the score cards' text, the status line, the quiz's predictions and verdicts, and the help. Plain strings
from a :class:`~workbench.widgets.state.WorkbenchState`, tested without ipywidgets; the ``Workbench`` view puts
them into its widgets. Nothing here computes a score: every number is read off the state.

    >>> from workbench.widgets.state import WorkbenchState
    >>> state = WorkbenchState("d1 {d2 d3}", {"run": "d1 d2 d3"})
    >>> card_text(state, 0)
    'run\\nR≺ 1.00 S≺ 1.00 R∼ 1.00 S∼ 0.82'
    >>> '<td data-measure="S∼">0.8182</td>' in scores_table(state)
    True
"""

from __future__ import annotations

import html

from workbench.charts.palettes import FAILS_MARK, HOLDS_MARK, SYSTEMS
from workbench.widgets.state import WorkbenchState
from workbench.widgets.why import EXPLAINED, FIELDS

__all__ = ["HIDDEN", "JUMPS", "SHORTCUTS", "HELP", "swatch", "status_line", "scores_table", "printed_rows",
           "card_text", "quiz_result"]

HIDDEN = "?"  # a score hidden until a quiz's reveal
JUMPS = {"Alt+G": "gold-editor", "Alt+O": "output-editor", "Alt+S": "scores"}
"""The keys that take the keyboard to a region (by its ``data-role``); ``frame.js`` acts on them."""
SHORTCUTS = dict(zip(JUMPS, ("the gold standard's tokens", "the tokens of the output in focus", "the scores table"),
                     strict=True)) | {"Ctrl+Z": "undo", "Ctrl+Shift+Z": "redo"}
"""The workbench's keyboard shortcuts, as the help lists them."""

HELP = f"""<b>How to use the workbench</b>
<ul>
<li>Each editor has <b>one row per priority level</b>, highest first: <code>{{d1 d2}}</code> is a cluster, a bare
<code>d3</code> a singleton; a document may sit in several clusters and levels (overlap). A typed row counts when
you press Enter, leave it, or pause typing: then the scores follow, as one step of the history.</li>
<li>Below the levels: an <b>unlimited tail</b> (ranking: <i>n</i> and <i>W_n</i> weigh positions), or a
<b>finite rest</b> (filtering, clustering of a closed collection: tick <i>finite rest</i>; then <i>uniform
weights</i> apply). The <b>notation</b> tab holds the whole table as text, for pasting.</li>
<li>Every document is a <b>token</b>: drag it to another cluster, level, a new level or the tail, or click it
to see <b>why</b> it scores as it does.</li>
<li><b>Keyboard</b>: {", ".join(f"<kbd>{key}</kbd> {what}" for key, what in SHORTCUTS.items())}. On the tokens:
type a document's name to jump to it, arrows to walk them, <kbd>Enter</kbd> or <kbd>Space</kbd> to select it and
pick it up, arrows to move it (← → another cluster, ↑ ↓ another level), <kbd>Escape</kbd> to put it down: from
pick-up to put-down it is one move, one step of the history. Moving d8 to a level below: <kbd>Alt+O</kbd>
<kbd>d</kbd> <kbd>8</kbd> <kbd>Enter</kbd> <kbd>↓</kbd>.</li>
<li><b>Undo</b> and <b>redo</b> walk every edit, drag and import made here; the history starts when the
workbench is shown (what notebook cells did is the starting point). The history chart marks the step shown.</li>
<li>The <b>score cards</b> under the editors are the other outputs: click one to put it beside the gold;
<i>layout</i> shows all editors at once. <i>text size</i> enlarges everything for a projector.</li>
<li><b>Predict, then reveal</b> hides the scores: order the outputs on one measure (or pick two), record the
prediction, then reveal to see who was right and why.</li>
<li>An invalid row is kept as typed, marked and explained beside it; the last valid table stays in force. An
import that does not read changes nothing and the line above the editors says what and where.</li>
</ul>"""


def swatch(index: int) -> str:
    """The colour square of output ``index``, as the charts draw it (decorative: the name stands beside it)."""
    return (f'<span class="wb-swatch" style="background:{SYSTEMS[index % len(SYSTEMS)]}" aria-hidden="true">'
            "</span>")


def status_line(state: WorkbenchState) -> str:
    """What was refused last, marked as an error ("" when the last change applied)."""
    return refusal(state.status)


def refusal(message: str) -> str:
    """A refusal's message, marked as an error ("" for none)."""
    return f'<span class="wb-error">⚠ {html.escape(message)}</span>' if message else ""


def scores_table(state: WorkbenchState, *, full: bool = False) -> str:
    """The scores table: R≺ S≺ R∼ S∼ per output (docked beside the editors), or with ``full`` all six measures
    and, while the tables are the example's, the values the paper prints. Scores read ``?`` during a quiz."""
    hidden = state.scores_hidden
    measures = tuple(FIELDS) if full else EXPLAINED
    head = "".join(f'<th scope="col">{html.escape(m)}</th>' for m in measures)
    rows = "".join(
        f'<tr data-output="{html.escape(name)}"{" class=wb-focused" if i == state.focus else ""}>'
        f'<th scope="row" class="wb-name">{swatch(i)}{html.escape(name)}</th>'
        + "".join(f'<td data-measure="{m}">{HIDDEN if hidden else f"{getattr(score, FIELDS[m]):.4f}"}</td>'
                  for m in measures)
        + "</tr>"
        for i, (name, score) in enumerate(zip(state.names, state.scores, strict=True)))
    weights = "uniform weights" if state.n is None else f"n = {state.n}, W_n = {state.wn:g}"
    printed = "" if hidden or not full else printed_rows(state)
    kind = "wb-all-scores-table" if full else "wb-scores-table"
    caption = f"all scores, {weights}" if full else f"{weights}, step {state.step}"
    return (f'<table class="{kind}"><caption>{caption}</caption>'
            f'<tr><th scope="col" class="wb-name">output</th>{head}</tr>{rows}{printed}</table>')


def printed_rows(state: WorkbenchState) -> str:
    """The paper's printed values as rows of the full table, while the tables are exactly those of the loaded
    example ("" otherwise)."""
    printed = state.printed()
    if printed is None:
        return ""
    source, values = printed
    cells = dict.fromkeys(FIELDS, "")
    rows = ""
    for name, row in values.items():
        cells.update(zip(EXPLAINED, (f"{v:g}" for v in row), strict=True))
        rows += (f'<tr class="wb-printed"><th scope="row" class="wb-name">{html.escape(name)} (printed)</th>'
                 + "".join(f"<td>{v}</td>" for v in cells.values()) + "</tr>")
    return (f'<tr><th colspan="{len(FIELDS) + 1}" scope="rowgroup" class="wb-name">{html.escape(source)}:</th>'
            f"</tr>{rows}")


def card_text(state: WorkbenchState, index: int) -> str:
    """The score card of output ``index``: its name, then its four scores to two decimals (``?`` in a quiz)."""
    score = state.scores[index]
    values = " ".join(f"{m} {HIDDEN if state.scores_hidden else f'{getattr(score, FIELDS[m]):.2f}'}"
                      for m in EXPLAINED)
    return f"{state.names[index]}\n{values}"


def quiz_result(state: WorkbenchState) -> str:
    """The predictions recorded and, once revealed, the verdicts: who, the predicted pair, both scores and
    right / wrong / tie (marked, not only coloured)."""
    lines = [f"<b>{html.escape(who)}</b>: {' &gt; '.join(map(html.escape, order))}"
             for who, order in state.predictions.items()]
    result = "<br>".join(lines) or "<i>no prediction recorded yet</i>"
    if state.quiz is None or not state.quiz.revealed:
        return result
    marks = {"right": HOLDS_MARK, "wrong": FAILS_MARK, "tie": "="}
    rows = "".join(
        f'<tr class="wb-verdict-{row.outcome}"><td>{html.escape(row.who)}</td><td>{html.escape(row.higher)}'
        f" above {html.escape(row.lower)}</td><td>{row.score_higher:.4f} vs {row.score_lower:.4f}</td>"
        f"<td>{marks[row.outcome]} {row.outcome}</td></tr>" for row in state.verdicts().itertuples())
    return (f'{result}<table class="wb-verdicts"><caption>on {html.escape(state.quiz.measure)}</caption>'
            f'<tr><th scope="col">who</th><th scope="col">predicted</th><th scope="col">scores</th>'
            f'<th scope="col">verdict</th></tr>{rows}</table>')
