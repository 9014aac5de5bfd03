"""The named errors of the workbench's state and widgets; every one is a :class:`workbench.WorkbenchError`.

An operation that raises one of them has changed nothing (imports, weights and tables apply all or nothing).

    >>> from workbench.errors import WorkbenchError
    >>> issubclass(SelectionError, WorkbenchFormatError), issubclass(SelectionError, WorkbenchError)
    (False, True)
"""

from __future__ import annotations

from workbench.errors import InputError, ParameterError

__all__ = ["WorkbenchFormatError", "WeightsError", "SelectionError", "UnknownOutputError",
           "DocumentNotInOutputError", "InvalidEditError", "QuizError", "MeasureNotScoredError"]


class WorkbenchFormatError(InputError):
    """Tables the workbench cannot read (an import, or ``set_tables`` arguments): names the line (notation) or
    the key (JSON) at fault."""


class WeightsError(ParameterError):
    """(n, W_n) refused: not a positive whole n and a W_n strictly between 0 and 1, only one of the two left
    out, or weights the kernel cannot score these tables with (uniform weights over an unlimited tail)."""


class SelectionError(ParameterError):
    """A document the workbench cannot explain; the why panel shows the same message and keeps the last valid
    explanation."""


class UnknownOutputError(SelectionError):
    """An output named that the workbench does not have (neither a 0-based index nor a displayed name)."""


class DocumentNotInOutputError(SelectionError):
    """``select`` named a document that the selected output does not hold (nor, with an unlimited tail, its
    gold)."""


class InvalidEditError(SelectionError):
    """The gold or the selected output holds an invalid edit in progress: there is nothing valid to explain."""


class QuizError(ParameterError):
    """A prediction the quiz cannot take: an unknown measure or output, fewer than two outputs, an output
    named twice."""


class MeasureNotScoredError(ParameterError):
    """The inspector was asked for a measure the campaign did not score (not among its measures)."""
