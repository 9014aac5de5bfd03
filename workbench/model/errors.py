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
                 token: str | None = None) -> None:
        self.message, self.line, self.column, self.token = message, line, column, token
        where = []
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        if token is not None:
            where.append(f"at {excerpt(token)}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
