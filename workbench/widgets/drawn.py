"""A widget that shows nothing and tells Python when the browser has drawn it: a view puts one where its costly
part goes and builds that part then (``Comparison``'s altair chart, whose import alone takes about 0.4 CPU-s), so
that a page — a Voilà app, which runs every cell before it draws a widget — shows everything else first.

The front end says ``{"kind": "shown"}`` after the frame that drew it has been painted (each time a view of it is
drawn); Python calls the callback once.

    >>> calls = []
    >>> drawn = Drawn(lambda: calls.append("built"))
    >>> drawn.receive({"kind": "shown"}); drawn.receive({"kind": "shown"}); calls
    ['built']
"""

from __future__ import annotations

from collections.abc import Callable

import anywidget

from workbench.widgets.messages import received

__all__ = ["Drawn"]


class Drawn(anywidget.AnyWidget):
    """See the module docstring: ``Drawn(callback)``, ``callback()`` called the first time a view is drawn."""

    _esm = """
export default {
  render({ model }) {   // after the next paint: what was drawn with it shows before Python builds the rest
    requestAnimationFrame(() => setTimeout(() => model.send({ kind: "shown" }), 0));
  },
};
"""

    def __init__(self, callback: Callable[[], None]) -> None:
        super().__init__()
        self._callback: Callable[[], None] | None = callback
        self.on_msg(lambda _widget, content, _buffers: self.receive(content))

    def receive(self, content: object) -> None:
        """Act on a message from the front end: the first ``{"kind": "shown"}`` calls the callback (anything else
        is ignored with a warning in the log: :mod:`~workbench.widgets.messages`)."""
        if received(content, {"shown": {}}, "a view drawn later") is not None and self._callback is not None:
            callback, self._callback = self._callback, None
            callback()
