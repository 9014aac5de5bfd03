"""The errors the workbench raises on bad input, in five families a caller can catch by meaning.

Every error raised because of what a user gave (notation, measure names and parameters, engine arguments, files,
campaigns, analysis inputs, widget edits) is a :class:`WorkbenchError`, itself a :class:`ValueError`, and its message
says what was seen and where (file:line, line:column, topic or parameter); each belongs to one family
(:func:`families`): :class:`ParameterError`, :class:`InputError`, :class:`CampaignError`, :class:`OutputError` or
:class:`MissingExtraError`. Anything else escaping the package is a bug.

    >>> from workbench import Organization, WorkbenchError
    >>> try:
    ...     Organization.parse("{d1")
    ... except WorkbenchError as error:
    ...     print(type(error).__name__)
    OrganizationError
"""

from __future__ import annotations

import math
import os
import reprlib
import sys
import warnings

__all__ = ["WorkbenchError", "ParameterError", "ParameterTypeError", "InputError", "CampaignError", "OutputError",
           "MissingExtraError", "families", "located", "excerpt", "quoted", "WorkbenchWarning",
           "WorkbenchDeprecationWarning", "warn"]


class WorkbenchError(ValueError):
    """Bad input to the workbench: the base of every named error the package raises. ``exit_status`` is the
    command line's status when it stops on this error: 2, unless the error says otherwise (1 for output that
    cannot be written; the trec_eval drop-in's errors carry trec_eval 10.0's own)."""

    exit_status = 2

    def _render_traceback_(self) -> list[str]:
        """What IPython and Jupyter show when this error ends a cell: its name and message (what, where, what to do)
        on one line and how to see more, not the package's frames, which say nothing about the input (issue 41: a
        failed fetch printed 67 lines). ``%tb`` shows the whole traceback: asked again, the error renders in full.

        >>> error = WorkbenchError("gold.txt, line 3: a grade must be an integer, got 'x'")
        >>> error._render_traceback_()
        ["WorkbenchError: gold.txt, line 3: a grade must be an integer, got 'x'", '(%tb shows the traceback)']
        >>> error._render_traceback_()[-1]
        "workbench.errors.WorkbenchError: gold.txt, line 3: a grade must be an integer, got 'x'"
        """
        if self.__dict__.get("_rendered_short"):
            import traceback

            return "".join(traceback.format_exception(self)).splitlines()
        self._rendered_short = True
        return [f"{type(self).__name__}: {self}", "(%tb shows the traceback)"]


class ParameterError(WorkbenchError):
    """A bad measure, parameter or argument (an unknown measure name, a value outside its domain, a choice not
    offered); ``parameter`` names it where there is one, and the message says what was seen. Raised by the one
    validator (:mod:`workbench.validation`), it also names the ``function``, the ``value`` and its ``domain``.

    >>> error = ParameterError("n must be a positive number of positions, got -1", parameter="n")
    >>> error.parameter, isinstance(error, ValueError)
    ('n', True)
    """

    def __init__(self, message: str, *, parameter: str = "", function: str = "", value: object = None,
                 domain: object = None) -> None:
        self.parameter, self.function, self.value, self.domain = parameter, function, value, domain
        super().__init__(message)


class ParameterTypeError(ParameterError, TypeError):
    """An argument of the wrong type (also a :class:`TypeError`, as Python code expects)."""


class InputError(WorkbenchError):
    """Input that cannot be read as given — a file, a line, a table, a labelling, an edit, a sample —, named where
    it is: ``path`` (as text), ``line`` and ``column`` (1-based) where they are known, ``where`` for more (a test
    case, a key), and the offending ``text``, quoted in the message (:func:`located`).

    >>> error = InputError("a quoted field is never closed", path="gold.csv", line=3, column=6, text='T1,x,"A')
    >>> print(error)
    gold.csv, line 3, column 6: a quoted field is never closed: 'T1,x,"A'
    >>> error.path, error.line, error.column
    ('gold.csv', 3, 6)
    """

    def __init__(self, message: str, *, path: object = None, line: int | None = None, column: int | None = None,
                 text: str | None = None, where: str = "") -> None:
        if isinstance(path, bytes | os.PathLike):
            path = os.fsdecode(path)
        self.message, self.path, self.line, self.column, self.text, self.where = (message, path, line, column, text,
                                                                                  where)
        super().__init__(located(message, path=path, line=line, column=column, text=text, where=where))


_LONGEST = 700  # characters of a message before the quoted text


def located(message: str, *, path: object = None, line: int | None = None, column: int | None = None,
            text: str | None = None, where: str = "") -> str:
    """The message of an error in input: ``path, line L, column C, where: message: 'text'`` (each part where
    known; a long ``text`` quoted around its column, a long message cut in its middle).

    >>> located("unbalanced '{'", line=2, column=4, text="d1 {d2")
    "line 2, column 4: unbalanced '{': 'd1 {d2'"
    """
    parts = [str(path)] if path is not None else []
    parts += [f"line {line}"] if line is not None else []
    parts += [f"column {column}"] if column is not None else []
    parts += [where] if where else []
    place = ", ".join(parts)
    if len(message) > _LONGEST:  # a message quoting much of the input: its start and its end
        message = message[:_LONGEST - 90] + " … " + message[-80:]
    shown = ""
    if text is not None:
        shown = f": {excerpt(text, around=column - 1 if column is not None and len(text) > 60 else None)}"
    return f"{place}: {message}{shown}" if place else f"{message}{shown}"


class CampaignError(WorkbenchError):
    """A campaign, its runs or its results that cannot be evaluated, compared or fused as asked; the message says
    which system, topic (and measure) and why."""


class OutputError(WorkbenchError):
    """Output that cannot be written (a full disk, a closed pipe, a folder the system refuses); a command exits with
    status 1 on it."""

    exit_status = 1


class MissingExtraError(WorkbenchError, ImportError):
    """A part of workbench was used without the extra that installs what it needs (an ImportError too; raised by
    :func:`workbench.extras.needs_extra`, which names the command that installs it)."""


def families() -> tuple[type[WorkbenchError], ...]:
    """The families every named error belongs to, one each, so that a caller catches by meaning: a bad parameter,
    unreadable input, an inconsistent campaign, output that cannot be written, or a missing extra
    (:class:`MissingExtraError`).

    >>> [family.__name__ for family in families()]
    ['ParameterError', 'InputError', 'CampaignError', 'OutputError', 'MissingExtraError']
    """
    return ParameterError, InputError, CampaignError, OutputError, MissingExtraError


def excerpt(text: str | bytes, limit: int = 60, around: int | None = None) -> str:
    """A short, escaped quotation of offending input for an error message: at most ``limit`` characters of
    ``text`` (the window centred on index ``around`` if given), control characters and undecodable bytes
    escaped, ``…`` marking a cut.

    >>> print(excerpt(b"q1\\t0 d1 \\xff" + b"x" * 100, limit=12))
    'q1\\t0 d1 \\\\xff…'
    >>> print(excerpt("a" * 50 + "!" + "b" * 50, limit=6, around=50))
    …'aaa!bb'…
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="backslashreplace")
    start = 0 if around is None else max(0, min(around - limit // 2, len(text) - limit))
    shown = repr(text[start:start + limit])
    if start + limit < len(text):
        shown = shown[:-1] + "…" + shown[-1] if around is None else shown + "…"
    return "…" + shown if start > 0 else shown


def quoted(value: object, limit: int = 60) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters (``…`` marking the cut) without writing
    out the whole of a long value; an integer too long for Python to print (past ``sys.get_int_max_str_digits()``)
    is named by its number of digits, inside a container too, and a value whose ``repr`` fails by its type.

    >>> quoted(0.5), quoted("x" * 100, limit=8), quoted(10 ** 5000), quoted([1, 10 ** 5000])
    ('0.5', "'xxxxxx…", '<an integer of about 5,000 digits>', '[1, <an integer of about 5,000 digits>]')
    """
    try:
        text = _SHORT.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still named
        text = f"<a {type(value).__name__} that cannot be shown>"
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _ShortRepr(reprlib.Repr):
    """reprlib's cut representation, with integers of any length named by their size."""

    def repr_int(self, x: int, level: int) -> str:
        try:
            return super().repr_int(x, level)
        except ValueError:  # Python's limit on converting an integer to text
            return f"<an integer of about {round(abs(x).bit_length() * math.log10(2)):,} digits>"


_SHORT = _ShortRepr()
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = 200
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 12


class WorkbenchWarning(UserWarning):
    """Something the workbench did on the user's behalf (a topic skipped, a duplicate dropped)."""


class WorkbenchDeprecationWarning(WorkbenchWarning, DeprecationWarning):
    """A name kept for one release that says what replaces it (:func:`workbench.lazy.deprecated_names`); shown, as
    every :class:`DeprecationWarning`, when the code that uses it is the user's own (a notebook, a script)."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type[Warning] = WorkbenchWarning) -> None:
    """Issue ``message`` as a ``category`` warning at the first line outside the workbench package that led to it
    (the user's line: in a notebook, the cell), however deep in the package it arose, as Python 3.12's
    ``skip_file_prefixes`` does; every warning of the package goes through here, so none names a line of the
    package's own (a hand-counted ``stacklevel`` went stale whenever a wrapper was added). Called from a thread or a
    worker with no user's line on its stack, the warning names the outermost frame.

        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     warn("a topic skipped")
        >>> caught[0].category.__name__, caught[0].filename.startswith("<doctest")  # this line, not errors.py
        ('WorkbenchWarning', True)
    """
    frame, level = sys._getframe(1), 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
