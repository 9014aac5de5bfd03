"""The one family of errors the workbench raises on bad input.

Every error raised because of what a user gave (notation, measure names and parameters, engine arguments, files,
campaigns, analysis inputs, widget edits) is a :class:`WorkbenchError`, itself a :class:`ValueError`, and its message
says what was seen and where (file:line, line:column, topic or parameter). Anything else escaping the package is
a bug.

    >>> from workbench import Organization, WorkbenchError
    >>> try:
    ...     Organization.parse("{d1")
    ... except WorkbenchError as error:
    ...     print(type(error).__name__)
    OrganizationError
"""

from __future__ import annotations


class WorkbenchError(ValueError):
    """Bad input to the workbench: the base of every named error the package raises."""


class WorkbenchWarning(UserWarning):
    """Something the workbench did on the user's behalf (a topic skipped, a duplicate dropped)."""
