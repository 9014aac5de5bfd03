"""The error every boundary of the workbench raises for a malformed organization."""

from __future__ import annotations

from workbench.errors import InputError, excerpt

__all__ = ["OrganizationError"]


class OrganizationError(InputError):
    """A malformed organization: says what is wrong and where (line, column, token; 1-based).

    >>> str(OrganizationError("unbalanced '}'", line=2, column=7, token="}"))
    "line 2, column 7, at '}': unbalanced '}'"
    """

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None,
                 token: str | None = None, path: object = None) -> None:
        self.token = token
        super().__init__(message, path=path, line=line, column=column,
                         where="" if token is None else f"at {excerpt(token)}")
