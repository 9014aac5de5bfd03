"""RepLab 2013 TSV files (gold standards and system outputs share the format), read and written.

A file is tab-separated with every field in double quotes, a header ``"entity_id" "tweet_id" "<label>"`` and
one line per (entity, tweet). The label column decides what an entity's :class:`~workbench.Organization` is:

- ``filtering``: ``RELATED`` / ``UNRELATED`` → :meth:`Organization.from_filtering` (related tweets as one
  level of singletons above a finite rest of unrelated ones);
- ``topic``: any topic name → :meth:`Organization.from_clustering` (one cluster per topic, in order of first
  appearance; a tweet on several lines with different topics is in several clusters);
- ``priority``: ``ALERT`` / ``MILDLY_IMPORTANT`` / ``UNIMPORTANT`` (grades 2, 1, 0) or a number → one level
  of singletons per grade, highest first, grades kept, over an empty finite rest.

The official topic gold is ISO-8859-1 (Latin-1): read it with ``encoding="latin-1"``; reading it as UTF-8
raises :class:`ReplabEncodingError` naming the line. A gzip-compressed file is read through (any name).

    >>> import io, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gold.tsv"
    >>> rows = ['"entity_id"\\t"tweet_id"\\t"topic"', '"E1"\\t"t1"\\t"Jokes"', '"E1"\\t"t2"\\t"Jokes"']
    >>> _ = path.write_text("\\n".join(rows))
    >>> read_replab(path)["E1"].format()
    '{t1 t2}\\nrest:'
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from workbench.data.files import file_path, read_input, write_whole
from workbench.errors import InputError, excerpt
from workbench.model import Organization, OrganizationError, natural_key

__all__ = ["LABELS", "FILTERING", "PRIORITY", "ReplabFormatError", "ReplabEncodingError", "read_replab", "write_replab"]

LABELS = ("filtering", "topic", "priority")
FILTERING = {"RELATED": True, "UNRELATED": False}
PRIORITY = {"ALERT": 2.0, "MILDLY_IMPORTANT": 1.0, "UNIMPORTANT": 0.0}
_PRIORITY_NAMES = {grade: name for name, grade in PRIORITY.items()}
_HEADER = ("entity_id", "tweet_id")


class ReplabFormatError(InputError):
    """A malformed RepLab file: says what is wrong and where (file, 1-based line, offending text)."""

    def __init__(self, message: str, *, path: str | os.PathLike | None = None, line: int | None = None,
                 text: str | None = None, column: int | None = None) -> None:
        self.message, self.path, self.line, self.text = message, path, line, text
        where = ", ".join(part for part in (str(path) if path is not None else "",
                                            f"line {line}" if line is not None else "") if part)
        shown = f": {excerpt(text, around=None if column is None else column - 1)}" if text is not None else ""
        super().__init__(f"{where}: {message}{shown}" if where else f"{message}{shown}")


class ReplabEncodingError(ReplabFormatError):
    """The file's bytes are not valid in the encoding asked for (the Latin-1 topic gold read as UTF-8)."""


def _decode(data: bytes, encoding: str, path) -> str:
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line_no = data.count(b"\n", 0, error.start) + 1
        start = data.rfind(b"\n", 0, error.start) + 1
        end = data.find(b"\n", error.start)
        raw = data[start:end if end >= 0 else len(data)].rstrip(b"\r")
        utf8 = encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")
        hint = " (the RepLab 2013 gold files are Latin-1: pass encoding='latin-1')" if utf8 else ""
        raise ReplabEncodingError(
            f"byte 0x{data[error.start]:02x} at column {error.start - start + 1} is not valid "
            f"{encoding}{hint}",
            path=path, line=line_no, text=raw.decode("latin-1"), column=error.start - start + 1
        ) from None
    except UnicodeError as error:  # a codec that fails otherwise ('idna', say)
        raise ReplabEncodingError(f"cannot decode the file as {encoding}: {error}", path=path) from None
    except LookupError:
        raise ReplabFormatError(f"unknown encoding {encoding!r}", path=path) from None
    return text.removeprefix("\ufeff")


def _unquote(field: str, path, line_no: int, line: str) -> str:
    if field.startswith('"'):
        if len(field) < 2 or not field.endswith('"'):
            raise ReplabFormatError("a quoted field is never closed", path=path, line=line_no, text=line)
        inner = field[1:-1]
        if '"' in inner.replace('""', ""):
            raise ReplabFormatError("a double quote inside a quoted field must be doubled (\"\")",
                                    path=path, line=line_no, text=line)
        return inner.replace('""', '"')
    if '"' in field:
        raise ReplabFormatError("a double quote inside an unquoted field", path=path, line=line_no, text=line)
    return field


def _rows(path, encoding: str):
    """(line number, [entity, tweet, label]) for the header and each data line; blank lines skipped."""
    text = _decode(read_input(path, ReplabFormatError), encoding, path)
    found = False
    for line_no, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 3:
            ends = ("; the line runs on over carriage returns: the file's lines end with CR alone (as on classic Mac "
                    "OS), convert them to LF" if "\r" in line else "")
            raise ReplabFormatError(f"expected 3 tab-separated fields (entity_id, tweet_id, label), got "
                                    f"{len(fields)}{ends}", path=path, line=line_no, text=line)
        found = True
        yield line_no, [_unquote(field.strip(), path, line_no, line) for field in fields], line
    if not found:
        raise ReplabFormatError("empty file: expected the header \"entity_id\"\t\"tweet_id\"\t\"<label>\"",
                                path=path)


def _detect(column: str, path, line_no: int, line: str) -> str:
    name = column.strip().lower()
    if name in LABELS:
        return name
    raise ReplabFormatError(f"cannot tell the task from the label column {column!r}: pass label= one of "
                            f"{', '.join(LABELS)}", path=path, line=line_no, text=line)


def read_replab(path: str | os.PathLike, label: str | None = None,
                encoding: str = "utf-8") -> dict[str, Organization]:
    """One :class:`Organization` per entity (in order of first appearance) from a RepLab TSV file.

    ``label`` is ``"filtering"``, ``"topic"`` or ``"priority"``; ``None`` takes it from the header's third
    column name. ``encoding`` is the file's (``"latin-1"`` for the official topic gold). Every malformed line
    raises :class:`ReplabFormatError` with the file, line number and the line's text.
    """
    if label is not None and label not in LABELS:
        raise ReplabFormatError(f"label must be one of {', '.join(LABELS)}, got {label!r}", path=path)
    rows = _rows(path, encoding)
    header_no, header, header_line = next(rows)
    if tuple(field.strip().lower() for field in header[:2]) != _HEADER:
        mark = (f" (the file starts with a UTF-8 byte-order mark, read in {encoding} as {header_line[:3]!r}: read it "
                "as utf-8, or save it without the mark)" if header_line.startswith("ï»¿") else "")
        raise ReplabFormatError('the first line must be the header "entity_id"\t"tweet_id"\t"<label>"' + mark,
                                path=path, line=header_no, text=header_line)
    kind = label or _detect(header[2], path, header_no, header_line)
    seen: dict[tuple, int] = {}
    by_entity: dict[str, list[tuple[str, object]]] = {}
    for line_no, (entity, tweet, value), line in rows:
        if not entity or not tweet:
            raise ReplabFormatError("empty entity_id or tweet_id", path=path, line=line_no, text=line)
        parsed = _value(kind, value, path, line_no, line)
        key = (entity, tweet, parsed) if kind == "topic" else (entity, tweet)
        if key in seen:
            what = f"tweet {tweet!r} of entity {entity!r}" + (f" in topic {value!r}" * (kind == "topic"))
            raise ReplabFormatError(f"{what} is already on line {seen[key]}", path=path, line=line_no,
                                    text=line)
        seen[key] = line_no
        by_entity.setdefault(entity, []).append((tweet, parsed))
    build = {"filtering": _filtering, "topic": _topics, "priority": _priorities}[kind]
    out = {}
    for entity, pairs in by_entity.items():
        try:
            out[entity] = build(pairs)
        except OrganizationError as error:  # a tweet both in a level and in the rest, say
            raise ReplabFormatError(f"entity {entity!r}: {error}", path=path) from None
    return out


def _value(kind: str, value: str, path, line_no: int, line: str):
    text = value.strip()
    if kind == "filtering":
        if text.upper() not in FILTERING:
            raise ReplabFormatError(f"a filtering label is RELATED or UNRELATED, got {value!r}",
                                    path=path, line=line_no, text=line)
        return FILTERING[text.upper()]
    if kind == "priority":
        if text.upper() in PRIORITY:
            return PRIORITY[text.upper()]
        try:
            grade = float(text)
        except ValueError:
            grade = float("nan")
        if grade != grade or grade in (float("inf"), float("-inf")):
            raise ReplabFormatError(f"a priority label is one of {', '.join(PRIORITY)} or a finite number, "
                                    f"got {value!r}", path=path, line=line_no, text=line)
        return grade
    if not text:
        raise ReplabFormatError("empty topic label", path=path, line=line_no, text=line)
    return value


def _filtering(pairs) -> Organization:
    return Organization.from_filtering([t for t, related in pairs if related],
                                       [t for t, related in pairs if not related])


def _topics(pairs) -> Organization:
    clusters: dict[str, list[str]] = {}
    for tweet, topic in pairs:
        clusters.setdefault(topic, []).append(tweet)
    return Organization.from_clustering(clusters.values())


def _priorities(pairs) -> Organization:
    levels: dict[float, list[str]] = {}
    for tweet, grade in pairs:
        levels.setdefault(grade, []).append(tweet)
    order = sorted(levels, reverse=True)
    singletons = tuple(tuple(frozenset([t]) for t in levels[g]) for g in order)
    return Organization(singletons, frozenset(), tuple(order))


# ----------------------------------------------------------------------------------------------- writing
def _quote(field: str, what: str) -> str:
    if not field or any(c in field for c in "\t\r\n"):
        raise ReplabFormatError(f"cannot write {what} {field!r}: RepLab fields are non-empty and hold no tab "
                                "or line break")
    return '"' + field.replace('"', '""') + '"'


def _label_rows(kind: str, entity: str, org: Organization):
    """(tweet, label) pairs that :func:`read_replab` reads back into ``org``."""
    def fail(why: str):
        raise ReplabFormatError(f"entity {entity!r}: cannot write this organization as {kind} labels: {why}")

    if not org.finite:
        fail("an unlimited tail has no RepLab label (build it with a finite rest)")
    top = org.levels[0] if org.levels else ()
    if kind == "filtering":
        if len(org.levels) > 1:
            fail("filtering needs at most one level over a finite rest (Organization.from_filtering)")
        related = [doc for cluster in top for doc in sorted(cluster, key=natural_key)]
        if len(set(related)) != len(related):
            fail("a tweet is in two clusters")
        unrelated = sorted(org.rest, key=natural_key)
        return [(t, "RELATED") for t in related] + [(t, "UNRELATED") for t in unrelated]
    if kind == "topic":
        if len(org.levels) > 1 or org.rest:
            fail("topics need one level of clusters and no rest (Organization.from_clustering)")
        return [(t, f"topic{i}") for i, cluster in enumerate(top, start=1)
                for t in sorted(cluster, key=natural_key)]
    if org.rest or any(len(c) > 1 for level in org.levels for c in level):
        fail("priority needs levels of single tweets and no rest")
    grades = org.grades or tuple(float(len(org.levels) - i) for i in range(1, len(org.levels) + 1))
    if list(grades) != sorted(set(grades), reverse=True):
        fail(f"level grades {grades} are not strictly decreasing")
    return [(t, _PRIORITY_NAMES.get(g, repr(g))) for g, level in zip(grades, org.levels, strict=True)
            for (t,) in level]


def write_replab(organizations: Mapping[str, Organization], path: str | os.PathLike, label: str = "topic",
                 encoding: str = "utf-8") -> None:
    """Write one Organization per entity in the RepLab format :func:`read_replab` reads back unchanged.

    Topic clusters are named ``topic1``, ``topic2``… in level order; priority grades 2, 1, 0 are written
    ``ALERT``, ``MILDLY_IMPORTANT``, ``UNIMPORTANT`` and other grades as numbers (levels without grades get
    ``n-1 … 0``, top first). An organization the format cannot hold raises :class:`ReplabFormatError`.
    """
    path = file_path(path)
    if label not in LABELS:
        raise ReplabFormatError(f"label must be one of {', '.join(LABELS)}, got {label!r}", path=path)
    lines = ["\t".join(_quote(f, "header") for f in (*_HEADER, label))]
    for entity, org in organizations.items():
        quoted = _quote(str(entity), "entity_id")
        for tweet, value in _label_rows(label, entity, org):
            lines.append("\t".join((quoted, _quote(tweet, "tweet_id"), _quote(value, "label"))))
    try:
        data = ("\n".join(lines) + "\n").encode(encoding)
    except UnicodeEncodeError as error:
        raise ReplabEncodingError(f"{error.object[error.start:error.end]!r} cannot be written in {encoding}",
                                  path=path) from None
    write_whole(path, data)
