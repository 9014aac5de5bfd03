"""The members ``Workbench`` forwarded to its :class:`~workbench.widgets.state.WorkbenchState` before 0.3
(``bench.undo()``, ``bench.scores``, ``bench.n = 4``...): the state is the one API now (``bench.state.undo()``).
For one release they still work, through :class:`ForwardsToState`, each with a :class:`DeprecationWarning`
naming its replacement.
"""

from __future__ import annotations

from workbench.errors import warn

__all__ = ["FORWARDED", "SETTABLE", "ForwardsToState"]

FORWARDED = frozenset((
    "names", "scores", "n", "wn", "set_weights", "status", "set_tables", "load_example", "add_output",
    "remove_output", "undo", "redo", "step", "history", "clear_history", "focus", "focus_output", "select", "why",
    "explanation", "scores_frame", "to_text", "to_json", "load_text", "load_json", "predictions", "revealed",
    "start_quiz", "predict", "reveal", "verdicts", "end_quiz"))
"""The 32 members forwarded before 0.3."""
SETTABLE = frozenset(("n", "wn", "predictions", "revealed"))


def _warn(name: str, verb: str) -> None:
    warn(f"Workbench.{name} is deprecated since 0.3: {verb} Workbench.state.{name}", DeprecationWarning)


class ForwardsToState:
    """A mixin for a view with a ``state``: reading (or, for :data:`SETTABLE`, setting) one of :data:`FORWARDED`
    warns and forwards to the state. To be removed in the release after 0.3."""

    @property
    def focus(self):  # shadows ipywidgets' DOMWidget.focus(), as the property it replaces did
        """Deprecated: ``state.focus``."""
        _warn("focus", "read")
        return self.state.focus

    def __getattr__(self, name: str):
        if name in FORWARDED:
            _warn(name, "use")
            return getattr(self.state, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name in SETTABLE:
            _warn(name, "set")
            setattr(self.state, name, value)
        else:
            super().__setattr__(name, value)
