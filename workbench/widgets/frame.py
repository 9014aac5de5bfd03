"""The workbench's frame: an anywidget with nothing to show that carries the workbench's style sheet
(``workbench.css``: the focus layout, the text sizes, the score cards) and, in the browser (``frame.js``), gives
the regions stable ``data-role`` attributes (``gold-editor``, ``output-editor``, ``scores``, ``chart``, ``why``),
turns Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) inside the workbench into undo / redo, Alt+G / Alt+O / Alt+S into the
keyboard's way to the gold's tokens, the focused output's tokens and the scores (also while nothing on the page has
the focus, as on a Voilà page just opened), commits a typed row or notation after a pause (Enter and leaving the
field commit it too), says when the workbench is first drawn and, in JupyterLab, keeps its cell at the top of the
notebook's view until the user scrolls, clicks or types there (Run All would leave the view at the end).

A region is any widget with the class ``wb-role-NAME`` (see :func:`role_class`); the Python side moves the
class, the front end follows.

    >>> role_class("gold-editor")
    'wb-role-gold-editor'
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anywidget
import traitlets as T

from workbench.widgets.markup import JUMPS
from workbench.widgets.messages import received

__all__ = ["ROLES", "role_class", "MESSAGES", "Frame"]

_HERE = Path(__file__).parent
ROLES = {"gold-editor": "gold standard editor", "output-editor": "output in focus, editor",
         "scores": "scores", "chart": "chart of R and S", "why": "why: the selected document's relations"}


def role_class(role: str) -> str:
    """The class that gives a widget the ``data-role`` ``role`` in the browser."""
    return f"wb-role-{role}"


MESSAGES = ("undo", "redo", "shown")
"""What the front end sends: Ctrl+Z, Ctrl+Shift+Z, and the first time the workbench is drawn."""


class Frame(anywidget.AnyWidget):
    """See the module docstring; ``on_message(callback)``: ``callback(kind)`` gets each of :data:`MESSAGES` the
    front end sends."""

    _esm = _HERE / "frame.js"
    _css = _HERE / "workbench.css"
    labels = T.Dict(ROLES).tag(sync=True)  # role → the region's accessible name
    pause = T.Int(800).tag(sync=True)       # milliseconds without typing that commit a row or the notation
    jumps = T.Dict(JUMPS).tag(sync=True)    # Alt+<letter> → the role of the region it goes to

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._callbacks: list[Callable[[str], None]] = []
        self.on_msg(lambda _widget, content, _buffers: self.receive(content))

    def on_message(self, callback: Callable[[str], None]) -> None:
        self._callbacks.append(callback)

    def receive(self, content: object) -> None:
        """Act on a message from the front end: ``{"kind": k}`` with ``k`` one of :data:`MESSAGES` (anything
        else is ignored with a warning in the log: :mod:`~workbench.widgets.messages`)."""
        found = received(content, {kind: {} for kind in MESSAGES}, "the workbench's frame")
        if found is not None:
            for callback in self._callbacks:
                callback(found[0])
