"""Two runs' documents side by side: the front end of the inspector's topic view.

Each list is a run on one topic: its documents in rank order (or grouped by cluster, outcome or level), each a
token coloured by what the gold says of it (its grade, unjudged documents marked; its gold class; positive or
negative), with a bar for what it contributes to the score and, beside it, where the other run puts it. The
same document is linked across the two lists; a click (or Enter) on a token picks it in both. A board draws the
lists (``part="lists"``) or the table of the documents that make the difference between the runs, largest first
(``part="difference"``), so that a page can place them apart (the inspector puts the table under its chart).

The board only draws and reports the document picked (``selected``); the inspector fills it from
:class:`~workbench.widgets.inspector_state.InspectorState`. The front end is an anywidget whose ES module and style
sheet are ``rankings.js`` and ``rankings.css`` beside this module (nothing fetched: offline, JupyterLab, Voilà).

    >>> board = RankingsBoard()
    >>> board.columns = [{"system": "A", "score": "0.5000", "rows": []}]
    >>> board.receive({"kind": "select", "document": "d1"}); board.selected
    'd1'
"""

from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets as T

from workbench.charts.palettes import GRADES, SYSTEMS
from workbench.validation import Text
from workbench.widgets.messages import received

__all__ = ["TONES", "RankingsBoard"]

_HERE = Path(__file__).parent


def _text_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (relative luminance, WCAG)."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "#000000" if luminance > 0.22 else "#FFFFFF"


TONES = {f"g{grade}": list(colours) for grade, colours in enumerate(GRADES)}
TONES |= {f"c{k}": [colour, _text_on(colour)] for k, colour in enumerate(SYSTEMS)}
TONES |= {"unjudged": ["#FFFFFF", "#222222"], "positive": list(GRADES[3]), "negative": list(GRADES[0]),
          "plain": ["#FFFFFF", "#222222"]}
"""Token colours by what the gold says: a grade (g0…g4), a gold class (c0…c7, the system palette), a filtering
label, unjudged (white, drawn dashed) or nothing (plain)."""


class RankingsBoard(anywidget.AnyWidget):
    """See the module docstring. ``columns``: one dict per run, ``{system, score, caption, rows}``, each row
    ``{document, group, label, tone, contribution, lost, other}``; ``difference``: rows ``{document, a, b,
    difference}``; ``systems``: the two runs' names (the table's heads); ``scale``: the largest |contribution|
    (the bars' full width)."""

    _esm = _HERE / "rankings.js"
    _css = _HERE / "rankings.css"
    part = T.Enum(("lists", "difference"), "lists").tag(sync=True)
    caption = T.Unicode("").tag(sync=True)
    kind = T.Unicode("ranking").tag(sync=True)     # ranking, clustering, filtering, organization
    systems = T.List(T.Unicode()).tag(sync=True)
    columns = T.List().tag(sync=True)
    difference = T.List().tag(sync=True)
    scale = T.Float(1.0).tag(sync=True)
    selected = T.Unicode("").tag(sync=True)        # the document picked ("" for none)
    palette = T.Dict(TONES).tag(sync=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.on_msg(lambda _widget, content, _buffers: self.receive(content))

    def receive(self, content: object) -> None:
        """Act on a message from the front end: ``{"kind": "select", "document": ...}`` (a click on a token; a
        second click on it picks none). Any other message is ignored with a warning in the log
        (:mod:`~workbench.widgets.messages`)."""
        found = received(content, {"select": {"document": Text(empty=True, optional=True)}}, "the rankings board")
        if found is not None:
            document = found[1]["document"] or ""
            self.selected = "" if document == self.selected else document
