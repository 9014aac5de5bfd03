"""Documents as tokens: one organization drawn level by level, cluster by cluster, each document a token that
can be clicked (to ask why it scores as it does) or dragged to another cluster, level, or to the tail/rest.
From the keyboard: Tab reaches the board, the arrow keys walk its tokens, Enter or Space selects one (as a
click) and picks it up, the arrow keys then move it (←/→ into the cluster before/after, ↑/↓ to the level
above/below, ↓ from the last level to a new level and then to the tail), Escape puts it down. The arrows after the
first while a token is held *carry* the same move on (``carried``: the workbench keeps one step of its history for
the whole move, however many keys made it).

The board only draws and reports; :func:`~workbench.widgets.moves.move_document` is the pure edit a drop asks
for, and the editor owning the board turns its result back into notation text (so text, board and scores never
disagree). The front end is an anywidget whose ES module and style sheet are the files ``board.js`` and
``board.css`` beside this module (shipped in the wheel; nothing is fetched: it works offline, in JupyterLab and
in Voilà).

    >>> board = DocumentBoard()
    >>> board.show(Organization.parse("d1 {d2 d3}"))
    >>> board.levels
    [[['d1'], ['d2', 'd3']]]
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anywidget
import traitlets as T

from workbench.model import Organization, natural_key
from workbench.validation import Domain, Text
from workbench.widgets.messages import received
from workbench.widgets.moves import PLACE, Place

__all__ = ["DocumentBoard"]

_HERE = Path(__file__).parent
_MOVE: dict[str, Domain] = {"document": Text(), "source": PLACE, "target": PLACE}
_MESSAGES: dict[str, dict[str, Domain]] = {"select": {"document": Text()}, "move": _MOVE, "carry": _MOVE}


class DocumentBoard(anywidget.AnyWidget):
    """The tokens of one organization; ``on_select`` and ``on_move`` callbacks get the front end's clicks and
    drops (``select(document)``, ``move(document, source, target, carried)`` with :data:`Place` values;
    ``carried``: the move goes on from the one before, the same token still held)."""

    _esm = _HERE / "board.js"
    _css = _HERE / "board.css"
    board_id = T.Unicode("").tag(sync=True)
    caption = T.Unicode("").tag(sync=True)    # the table's name, for screen readers
    levels = T.List().tag(sync=True)          # levels of clusters of documents, as drawn
    tail = T.List().tag(sync=True)            # the finite rest, or the known documents in the unlimited tail
    finite = T.Bool(False).tag(sync=True)
    hidden_levels = T.Int(0).tag(sync=True)   # levels beyond max_levels, not drawn
    highlight = T.Unicode("").tag(sync=True)  # the document whose tokens are marked
    stale = T.Bool(False).tag(sync=True)      # the text is invalid: the board shows the last valid one

    def __init__(self, max_levels: int = 200, **kwargs) -> None:
        super().__init__(**kwargs)
        self.board_id = self.model_id
        self.max_levels = max_levels
        self._select: list[Callable[[str], None]] = []
        self._move: list[Callable[[str, Place, Place, bool], None]] = []
        self.on_msg(lambda _widget, content, _buffers: self.receive(content))

    def show(self, organization: Organization, tail: frozenset[str] = frozenset()) -> None:
        """Draw ``organization`` (``tail``: the documents to show in an unlimited tail)."""
        drawn = organization.levels[:self.max_levels]
        self.hidden_levels = len(organization.levels) - len(drawn)
        self.finite = organization.finite
        self.levels = [[sorted(cluster, key=natural_key) for cluster in level] for level in drawn]
        self.tail = sorted(organization.rest if organization.finite else tail, key=natural_key)

    def on_select(self, callback: Callable[[str], None]) -> None:
        self._select.append(callback)

    def on_move(self, callback: Callable[[str, Place, Place, bool], None]) -> None:
        self._move.append(callback)

    def receive(self, content: object) -> None:
        """Act on a message from the front end, as the browser sends it: ``{"kind": "select", "document": d}``
        (a click, Enter or Space) or ``{"kind": "move", "document": d, "source": place, "target": place}`` (a
        drop or an arrow key; places as JSON carries them: ``[level, cluster]``, ``[level, null]``, ``"tail"``),
        ``"kind": "carry"`` likewise for an arrow that goes on moving a token an arrow has moved already.
        Any other message is ignored with a warning in the log (:mod:`~workbench.widgets.messages`).
        """
        found = received(content, _MESSAGES, "the document board")
        if found is None:
            return
        kind, message = found
        if kind == "select":
            for selected in self._select:
                selected(message["document"])
        else:
            source, target = _as_place(message["source"]), _as_place(message["target"])
            for moved in self._move:
                moved(message["document"], source, target, kind == "carry")


def _as_place(value: Place | list) -> Place:
    """A place as JSON brings it (``[level, cluster]`` or ``"tail"``) back to a :data:`Place`."""
    return tuple(value) if isinstance(value, list) else value  # type: ignore[return-value]
