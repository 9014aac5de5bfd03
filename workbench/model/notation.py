"""The papers' notation for organizations (Amigó et al., SIGIR 2013, Tables 1–5 and 9), read and written.

One priority level per line, highest first; ``{d1 d2}`` is a cluster, a bare id a singleton cluster;
``#`` starts a comment; blank lines are ignored; commas separate like spaces; an optional last line
``rest: d8 d9`` lists a finite rest; ``[2] d1 d2`` gives a level its relevance grade (all levels or none).
``parse_organization`` returns plain tuples; ``Organization.parse`` wraps them.

Any document id can be written: an id that is not a plain word — it holds a space, line break, brace, bracket,
comma, ``#`` or ``"``, or it would read as the ``rest:`` header (``rest``, ``REST:x``) — is written as a JSON
string in double quotes (``"rest:"``, ``"a b"``, ``"say \\"hi\\""``), and the parser reads such a quoted id
back, so ``parse(format(o)) == o`` for every organization:

    >>> format_organization(((frozenset({"rest:"}), frozenset({"d1"})),), None, None, str)
    '"rest:" d1'
    >>> parse_organization('"rest:" d1 "a b"')[0]
    ((frozenset({'rest:'}), frozenset({'d1'}), frozenset({'a b'})),)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from workbench.model.errors import OrganizationError
from workbench.reading.text import lines

__all__ = ["parse_organization", "format_id", "format_organization"]

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

_LEXEME = re.compile(r"""
      (?P<space>[\s,]+)
    | (?P<comment>\#.*)
    | (?P<brace>[{}])
    | (?P<quoted>"(?:[^"\\]|\\.)*")
    | (?P<unclosed>")
    | (?P<bare>[^\s{},#"][^\s{},#]*)
""", re.VERBOSE | re.DOTALL)
_GRADE = re.compile(r"[\s,]*\[([^\]]*)\]")
_REST = re.compile(r"\s*rest\s*:", re.IGNORECASE)
_BARE = re.compile(r"[^\s{},#\[\]\"]+")
_READS_AS_REST = re.compile(r"rest(:.*)?", re.IGNORECASE | re.DOTALL)


def _tokens(line: str, line_no: int, offset: int = 0) -> Iterator[tuple[int, str, str]]:
    """(column, kind, text) of each token of one line up to its comment: kind ``brace`` (text ``{``/``}``) or
    ``doc`` (text the document id, a quoted id decoded); columns are 1-based, ``offset`` characters skipped."""
    for match in _LEXEME.finditer(line, offset):  # the alternatives cover every character: no gap
        kind = match.lastgroup
        if kind == "space":
            continue
        text, col = match.group(), match.start() + 1
        if kind == "comment":
            return
        if kind == "brace":
            yield col, "brace", text
        elif kind == "bare":
            if "[" in text or "]" in text:
                raise OrganizationError("'[' and ']' only write a level's grade at the start of its line, as in "
                                        "'[2] d1 d2' (quote an id that holds them: \"d[1]\")",
                                        line=line_no, column=col, token=text)
            yield col, "doc", text
        elif kind == "quoted":
            try:
                doc = json.loads(text, strict=False)
            except json.JSONDecodeError as error:
                raise OrganizationError(f"a quoted id is a JSON string: {error.msg} at character {error.pos + 1}",
                                        line=line_no, column=col, token=text) from None
            if not doc:
                raise OrganizationError("a document id cannot be empty", line=line_no, column=col, token=text)
            yield col, "doc", doc
        elif kind == "unclosed":
            raise OrganizationError("a quoted id is never closed (end it with '\"')", line=line_no, column=col,
                                    token=line[match.start():])


def _parse_level(line_no: int, line: str, offset: int) -> tuple[tuple[frozenset[str], ...], list]:
    """The clusters of one level line and its (column, document) pairs."""
    clusters: list[frozenset[str]] = []
    open_col: int | None = None
    members: dict[str, int] = {}
    docs = []
    for col, kind, token in _tokens(line, line_no, offset):
        if kind == "doc":
            docs.append((col, token))
        if token == "{" and kind == "brace":
            if open_col is not None:
                raise OrganizationError("nested '{': clusters cannot contain clusters",
                                        line=line_no, column=col, token=token)
            open_col, members = col, {}
        elif token == "}" and kind == "brace":
            if open_col is None:
                raise OrganizationError("unbalanced '}' with no '{' before it", line=line_no, column=col, token=token)
            if not members:
                raise OrganizationError("empty cluster '{}'", line=line_no, column=open_col, token="{}")
            clusters.append(frozenset(members))
            open_col = None
        elif open_col is not None:
            if token in members:
                raise OrganizationError(f"document {token!r} twice in one cluster (first at column {members[token]})",
                                        line=line_no, column=col, token=token)
            members[token] = col
        else:
            clusters.append(frozenset([token]))
    if open_col is not None:
        raise OrganizationError("unbalanced '{' is never closed", line=line_no, column=open_col, token="{")
    return tuple(clusters), docs


def _grade(line_no: int, match: re.Match) -> float:
    column, token = match.start(1) + 1, match.group(0).strip()
    try:
        grade = float(match.group(1))
    except ValueError:
        raise OrganizationError("a level's grade is a number, as in '[2] d1 d2'", line=line_no, column=column,
                                token=token) from None
    if math.isnan(grade):
        raise OrganizationError("a level's grade is NaN", line=line_no, column=column, token=token)
    return grade


def parse_organization(text: str) -> tuple[tuple[tuple[frozenset[str], ...], ...], frozenset[str] | None,
                                            tuple[float, ...] | None]:
    """Parse the notation into (levels, rest, grades); ``rest`` is None for an unlimited tail, ``grades``
    None when no level carries a ``[grade]``. ``text`` is a string (``Organization.parse`` declares it)."""
    levels: list[tuple[frozenset[str], ...]] = []
    level_lines: dict[str, tuple[int, int]] = {}
    rest: frozenset[str] | None = None
    grades: list[float | None] = []
    level_starts: list[int] = []  # the line of each level
    for line_no, line in lines(text):
        head = _REST.match(line)
        grade_match = None if head else _GRADE.match(line)
        start = head or grade_match
        tokens = _tokens(line, line_no, start.end() if start else 0)
        first = next(tokens, None)
        if first is not None:
            where = (first[0], first[2])
        elif start is not None:  # a line of a head alone
            where = (start.start() + 1, start.group().strip())
        else:
            continue
        if rest is not None:
            raise OrganizationError("'rest:' must be the last line", line=line_no, column=where[0], token=where[1])
        if head:
            rest_docs: dict[str, int] = {}
            for col, kind, token in ([first] if first else []) + list(tokens):
                if kind == "brace":
                    raise OrganizationError("the rest holds bare documents, not clusters",
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
        grades.append(_grade(line_no, grade_match) if grade_match else None)
        level, docs = _parse_level(line_no, line, grade_match.end() if grade_match else 0)
        if not level:  # a grade alone on its line
            raise OrganizationError("a level's grade comes before its documents, as in '[2] d1 d2'", line=line_no,
                                    column=where[0], token=where[1])
        levels.append(level)
        level_starts.append(line_no)
        for col, token in docs:
            level_lines.setdefault(token, (line_no, col))
    if any(g is None for g in grades) and any(g is not None for g in grades):
        line_no = next(start for start, g in zip(level_starts, grades, strict=True) if g is None)
        raise OrganizationError("either every level has a [grade] or none has", line=line_no)
    graded = tuple(g for g in grades if g is not None)  # every level's grade, or none (checked above)
    return tuple(levels), rest, (graded if graded else None)


def format_id(doc: str) -> str:
    """A document id as the notation writes it: bare when it reads back as itself, else a JSON string
    (non-printable characters escaped, so the quoted id stays on one line; surrogate code points as they are,
    since JSON would read the escapes of a high and a low surrogate back as one character).

    >>> format_id("d1"), format_id("REST:x"), format_id("a\\nb")
    ('d1', '"REST:x"', '"a\\\\nb"')
    """
    if _BARE.fullmatch(doc) and not _READS_AS_REST.fullmatch(doc):
        return doc
    return '"' + "".join(c if (c.isprintable() or "\ud800" <= c <= "\udfff") and c not in '"\\'
                         else json.dumps(c)[1:-1] for c in doc) + '"'


def format_organization(levels: Iterable[Iterable[frozenset[str]]], rest: Iterable[str] | None,
                        grades: Iterable[float] | None, sort_key: Callable[[str], SupportsRichComparison]) -> str:
    """Write levels and rest in the notation; singletons are written bare, members in ``sort_key`` order."""
    def cluster_text(cluster: frozenset[str]) -> str:
        members = [format_id(doc) for doc in sorted(cluster, key=sort_key)]
        return members[0] if len(members) == 1 else "{" + " ".join(members) + "}"

    written = [" ".join(cluster_text(c) for c in level) for level in levels]
    if grades is not None:
        written = [f"[{int(g)}] {line}" if g.is_integer() and abs(g) < 1e15 else f"[{g!r}] {line}"
                   for g, line in zip(grades, written, strict=True)]
    if rest is not None:
        written.append(" ".join(["rest:", *(format_id(doc) for doc in sorted(rest, key=sort_key))]))
    return "\n".join(written)
