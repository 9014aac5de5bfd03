"""The papers' notation for organizations (seed 000, Tables 1–5 and 9), read and written.

One priority level per line, highest first; ``{d1 d2}`` is a cluster, a bare id a singleton cluster;
``#`` starts a comment; blank lines are ignored; commas separate like spaces; an optional last line
``rest: d8 d9`` lists a finite rest; ``[2] d1 d2`` gives a level its relevance grade (all levels or none).
``parse_organization`` returns plain tuples; ``Organization.parse`` wraps them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from workbench.model.errors import OrganizationError

_TOKEN = re.compile(r"[{}]|[^\s{},]+")
_GRADE = re.compile(r"[\s,]*\[([^\]]*)\]")
_REST = re.compile(r"\s*rest\s*:", re.IGNORECASE)
_WRITABLE = re.compile(r"[^\s{},#\[\]]+")


def _tokens(line: str):
    """(column, token) pairs of one line, its comment removed; columns are 1-based."""
    code = line.split("#", 1)[0]
    for match in _TOKEN.finditer(code):
        yield match.start() + 1, match.group()


def _parse_level(line_no: int, line: str) -> tuple[frozenset[str], ...]:
    clusters: list[frozenset[str]] = []
    open_col: int | None = None
    members: dict[str, int] = {}
    for col, token in _tokens(line):
        if token == "{":
            if open_col is not None:
                raise OrganizationError("nested '{': clusters cannot contain clusters",
                                        line=line_no, column=col, token=token)
            open_col, members = col, {}
        elif token == "}":
            if open_col is None:
                raise OrganizationError("unbalanced '}' with no '{' before it", line=line_no, column=col, token=token)
            if not members:
                raise OrganizationError("empty cluster '{}'", line=line_no, column=open_col, token="{}")
            clusters.append(frozenset(members))
            open_col = None
        elif "[" in token or "]" in token:
            raise OrganizationError("'[' and ']' only write a level's grade at the start of its line, as in "
                                    "'[2] d1 d2'", line=line_no, column=col, token=token)
        elif open_col is not None:
            if token in members:
                raise OrganizationError(f"document {token!r} twice in one cluster (first at column {members[token]})",
                                        line=line_no, column=col, token=token)
            members[token] = col
        else:
            clusters.append(frozenset([token]))
    if open_col is not None:
        raise OrganizationError("unbalanced '{' is never closed", line=line_no, column=open_col, token="{")
    return tuple(clusters)


def parse_organization(text: str):
    """Parse the notation into (levels, rest, grades); ``rest`` is None for an unlimited tail, ``grades``
    None when no level carries a ``[grade]``."""
    if not isinstance(text, str):
        raise OrganizationError(f"expected notation text, got {type(text).__name__}")
    levels: list[tuple[frozenset[str], ...]] = []
    level_lines: dict[str, tuple[int, int]] = {}
    rest: frozenset[str] | None = None
    grades: list[float | None] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not any(True for _ in _tokens(line)) and not _REST.match(line.split("#", 1)[0]):
            continue
        if rest is not None:
            col, token = next(_tokens(line))
            raise OrganizationError("'rest:' must be the last line", line=line_no, column=col, token=token)
        head = _REST.match(line.split("#", 1)[0])
        if head:
            rest_docs: dict[str, int] = {}
            for col, token in _tokens(line[head.end():]):
                col += head.end()
                if token in "{}" or "[" in token or "]" in token:
                    raise OrganizationError("the rest holds bare documents, not clusters or grades",
                                            line=line_no, column=col, token=token)
                if token in rest_docs:
                    raise OrganizationError(f"document {token!r} twice in rest: (first at column {rest_docs[token]})",
                                            line=line_no, column=col, token=token)
                if token in level_lines:
                    first_line, first_col = level_lines[token]
                    raise OrganizationError(
                        f"document {token!r} is both in a level (line {first_line}, column {first_col}) and in rest:",
                        line=line_no, column=col, token=token)
                rest_docs[token] = col
            rest = frozenset(rest_docs)
            continue
        grade_match = _GRADE.match(line.split("#", 1)[0])
        if grade_match:
            try:
                grades.append(float(grade_match.group(1)))
            except ValueError:
                raise OrganizationError("a level's grade must be a number, as in '[2] d1 d2'", line=line_no,
                                        column=grade_match.start(1) + 1, token=grade_match.group(0).strip()) from None
            line = " " * grade_match.end() + line[grade_match.end():]
        else:
            grades.append(None)
        levels.append(_parse_level(line_no, line))
        for col, token in _tokens(line):
            if token not in "{}":
                level_lines.setdefault(token, (line_no, col))
    if any(g is None for g in grades) and any(g is not None for g in grades):
        line_no = next(i for i, g in enumerate(grades, start=1) if g is None)
        raise OrganizationError("either every level has a [grade] or none has", line=line_no)
    return tuple(levels), rest, (tuple(grades) if grades and grades[0] is not None else None)


def format_organization(levels, rest, grades, sort_key: Callable[[str], object]) -> str:
    """Write levels and rest in the notation; singletons are written bare, members in ``sort_key`` order."""
    def cluster_text(cluster: frozenset[str]) -> str:
        members = sorted(cluster, key=sort_key)
        for doc in members:
            if not _WRITABLE.fullmatch(doc):
                raise OrganizationError(
                    "the notation cannot write this document id (it holds a space, brace, bracket, comma or '#')",
                    token=doc)
        return members[0] if len(members) == 1 else "{" + " ".join(members) + "}"

    lines = [" ".join(cluster_text(c) for c in level) for level in levels]
    if grades is not None:
        lines = [f"[{int(g)}] {line}" if g.is_integer() and abs(g) < 1e15 else f"[{g!r}] {line}"
                 for g, line in zip(grades, lines, strict=True)]
    if rest is not None:
        lines.append(" ".join(["rest:", *sorted(rest, key=sort_key)]))
    return "\n".join(lines)
