"""The named errors of the workbench's state and widgets; every one is a :class:`workbench.WorkbenchError`.

An operation that raises one of them has changed nothing (imports, weights and tables apply all or nothing). An
argument outside its declared domain is refused before, by the validator (:mod:`workbench.validation`).

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
    """Weights the kernel cannot score these tables with (uniform weights over an unlimited tail, weights that
    give no finite score); n and W_n themselves are declared (``tables.N``, ``tables.WN``)."""


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
    """A prediction the quiz cannot take: an output the workbench does not have, or one named twice (the measure
    and the shape of a prediction are declared: ``quiz.MEASURE``, ``quiz.ORDER``)."""


class MeasureNotScoredError(ParameterError):
    """The inspector was asked for a measure the campaign did not score (not among its measures)."""
