"""What notebook cells do to a workbench is its starting point, not steps to undo: after a cell that changed a
:class:`~workbench.widgets.state.WorkbenchState` (``bench.state.select(...)``, a move, a text set from code), its
history starts again there. A class then meets a history that starts when the workbench is shown, and the first
Ctrl+Z never takes back what a demonstration cell did. Edits made in the workbench itself, between cells, stay
steps. Plain Python over IPython's cell events (``pre_run_cell``, ``post_run_cell``); outside IPython nothing
happens.

    >>> class Events:                             # IPython's shell.events, as far as it is used here
    ...     def __init__(self): self.callbacks = {}
    ...     def register(self, event, callback): self.callbacks.setdefault(event, []).append(callback)
    ...     def unregister(self, event, callback): self.callbacks[event].remove(callback)
    ...     def trigger(self, event): [callback() for callback in self.callbacks[event]]
    >>> from workbench.widgets.state import WorkbenchState
    >>> state, events = WorkbenchState("d1 d2", ["d2 d1"]), Events()
    >>> stop = restart_history_after_cells(state, events)
    >>> events.trigger("pre_run_cell"); state.edit(0, "d1 d2"); events.trigger("post_run_cell")  # a cell edits
    >>> state.step, state.can_undo
    (0, False)
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable

from workbench.errors import WorkbenchError
from workbench.widgets.state import WorkbenchState

__all__ = ["restart_history_after_cells"]


def restart_history_after_cells(state: WorkbenchState, events=None) -> Callable[[], None]:
    """Clear ``state``'s history after every cell that changed it; ``events``: IPython's ``shell.events``
    (default: the running IPython's, else nothing is watched). Returns what stops watching (it stops by itself
    once the state is gone)."""
    if events is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return lambda: None
        shell = get_ipython()
        if shell is None:
            return lambda: None
        events = shell.events
    watched = weakref.ref(state)
    before: list = [None]  # what the state was when the cell started: (tables, step, steps)

    def mark(state: WorkbenchState) -> tuple:
        return state.tables, state.step, state.steps

    def changed(now: tuple, then: tuple) -> bool:
        return now[0] is not then[0] or now[1:] != then[1:]

    def pre_run_cell(*_info) -> None:
        state = watched()
        before[0] = None if state is None else mark(state)

    def post_run_cell(*_result) -> None:
        state = watched()
        if state is None:
            stop()
        elif before[0] is not None and changed(mark(state), before[0]):
            with contextlib.suppress(WorkbenchError):
                state.clear_history()
        before[0] = None

    def stop() -> None:
        for event, callback in (("pre_run_cell", pre_run_cell), ("post_run_cell", post_run_cell)):
            with contextlib.suppress(ValueError):
                events.unregister(event, callback)

    events.register("pre_run_cell", pre_run_cell)
    events.register("post_run_cell", post_run_cell)
    return stop
