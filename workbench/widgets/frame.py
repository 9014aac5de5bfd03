"""The workbench's frame: an anywidget with nothing to show that carries the workbench's style sheet
(``workbench.css``: the focus layout, the text sizes, the score cards) and, in the browser, gives the regions
stable ``data-role`` attributes (``gold-editor``, ``output-editor``, ``scores``, ``chart``, ``why``) and turns
Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) inside the workbench into undo / redo (``frame.js``).

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

_HERE = Path(__file__).parent
ROLES = {"gold-editor": "gold standard editor", "output-editor": "output in focus, editor",
         "scores": "scores", "chart": "chart of R and S", "why": "why: the selected document's relations"}


def role_class(role: str) -> str:
    """The class that gives a widget the ``data-role`` ``role`` in the browser."""
    return f"wb-role-{role}"


class Frame(anywidget.AnyWidget):
    """See the module docstring; ``on_key(callback)`` gets ``"undo"`` or ``"redo"``."""

    _esm = _HERE / "frame.js"
    _css = _HERE / "workbench.css"
    labels = T.Dict(ROLES).tag(sync=True)  # role → the region's accessible name

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._keys: list[Callable[[str], None]] = []
        self.on_msg(lambda _widget, content, _buffers: self.receive(content))

    def on_key(self, callback: Callable[[str], None]) -> None:
        self._keys.append(callback)

    def receive(self, content: dict) -> None:
        """Act on a message from the front end: ``{"kind": "undo"}`` or ``{"kind": "redo"}``."""
        if isinstance(content, dict) and content.get("kind") in ("undo", "redo"):
            for callback in self._keys:
                callback(content["kind"])
