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

import math
import os
from collections.abc import Iterator, Mapping

from workbench.data.files import write_whole
from workbench.errors import InputError, quoted
from workbench.model import Organization, OrganizationError, natural_key
from workbench.reading.fields import rows
from workbench.reading.sources import file_path, read_input
from workbench.reading.text import Text, decode
from workbench.validation import ENCODING, Choices, FilePath, MappingOf, validate

__all__ = ["LABELS", "LABEL", "WRITTEN_LABEL", "FILTERING", "PRIORITY", "ReplabFormatError", "ReplabEncodingError",
           "read_replab", "write_replab"]

LABELS = ("filtering", "topic", "priority")
LABEL = Choices((*LABELS, None))
"""The column read (``label=``; None: the file's own)."""
WRITTEN_LABEL = Choices(LABELS)
"""The column written (``label=``)."""
FILTERING = {"RELATED": True, "UNRELATED": False}
PRIORITY = {"ALERT": 2.0, "MILDLY_IMPORTANT": 1.0, "UNIMPORTANT": 0.0}
_PRIORITY_NAMES = {grade: name for name, grade in PRIORITY.items()}
_HEADER = ("entity_id", "tweet_id")


class ReplabFormatError(InputError):
    """A malformed RepLab file: says what is wrong and where (file, 1-based line and column, offending text)."""


class ReplabEncodingError(ReplabFormatError):
    """The file's bytes are not valid in the encoding asked for (the Latin-1 topic gold read as UTF-8)."""


def _rows(path, encoding: str) -> Iterator[tuple[Text, int, list[str]]]:
    """(text, line number, [entity, tweet, label]) for the header and each data line; blank lines skipped."""
    text = decode(read_input(path, ReplabFormatError), path, encoding, ReplabFormatError, ReplabEncodingError)
    found = False
    for line_no, fields in rows(text, "\t", strict=True, strip=True):
        if len(fields) != 3:
            raise text.fail(f"expected 3 tab-separated fields (entity_id, tweet_id, label), got {len(fields)}",
                            line=line_no)
        found = True
        yield text, line_no, fields
    if not found:
        raise text.fail("empty file: expected the header \"entity_id\"\t\"tweet_id\"\t\"<label>\"")


def _detect(text: Text, column: str, line_no: int) -> str:
    name = column.strip().lower()
    if name in LABELS:
        return name
    raise text.fail(f"cannot tell the task from the label column {quoted(column)}: pass label= one of "
                    f"{', '.join(LABELS)}", line=line_no)


@validate(path=FilePath(), label=LABEL, encoding=ENCODING)
def read_replab(path: str | os.PathLike, label: str | None = None,
                encoding: str = "utf-8") -> dict[str, Organization]:
    """One :class:`Organization` per entity (in order of first appearance) from a RepLab TSV file.

    ``label`` is ``"filtering"``, ``"topic"`` or ``"priority"``; ``None`` takes it from the header's third
    column name. ``encoding`` is the file's (``"latin-1"`` for the official topic gold). Every malformed line
    raises :class:`ReplabFormatError` with the file, line number and the line's text.
    """
    path = file_path(path)
    lines = _rows(path, encoding)
    text, header_no, header = next(lines)
    if tuple(field.strip().lower() for field in header[:2]) != _HEADER:
        header_line = text.index.line(header_no)
        mark = (f" (the file starts with a UTF-8 byte-order mark, read in {encoding} as {header_line[:3]!r}: read it "
                "as utf-8, or save it without the mark)" if header_line.startswith("ï»¿") else "")
        raise text.fail('the first line must be the header "entity_id"\t"tweet_id"\t"<label>"' + mark,
                        line=header_no)
    kind = label or _detect(text, header[2], header_no)
    seen: dict[tuple, int] = {}
    by_entity: dict[str, list[tuple[str, object]]] = {}
    for _, line_no, (entity, tweet, value) in lines:
        if not entity or not tweet:
            raise text.fail("empty entity_id or tweet_id", line=line_no)
        parsed = _value(text, kind, value, line_no)
        key = (entity, tweet, parsed) if kind == "topic" else (entity, tweet)
        if key in seen:
            what = (f"tweet {quoted(tweet)} of entity {quoted(entity)}"
                    + (f" in topic {quoted(value)}" * (kind == "topic")))
            raise text.fail(f"{what} is already on line {seen[key]}", line=line_no)
        seen[key] = line_no
        by_entity.setdefault(entity, []).append((tweet, parsed))
    build = {"filtering": _filtering, "topic": _topics, "priority": _priorities}[kind]
    out = {}
    for entity, pairs in by_entity.items():
        try:
            out[entity] = build(pairs)
        except OrganizationError as error:  # a tweet both in a level and in the rest, say
            raise ReplabFormatError(f"entity {quoted(entity)}: {error}", path=path) from None
    return out


def _value(text: Text, kind: str, value: str, line_no: int) -> object:
    label = value.strip()
    if kind == "filtering":
        if label.upper() not in FILTERING:
            raise text.fail(f"a filtering label is RELATED or UNRELATED, got {quoted(value)}", line=line_no)
        return FILTERING[label.upper()]
    if kind == "priority":
        if label.upper() in PRIORITY:
            return PRIORITY[label.upper()]
        try:
            grade = float(label)
        except ValueError:
            grade = float("nan")
        if not math.isfinite(grade):
            raise text.fail(f"a priority label is one of {', '.join(PRIORITY)} or a finite number, got {quoted(value)}",
                            line=line_no)
        return grade
    if not label:
        raise text.fail("empty topic label", line=line_no)
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
    if not field or any(c in field for c in "\t\r\n\0"):
        raise ReplabFormatError(f"cannot write {what} {quoted(field)}: RepLab fields are non-empty and hold no tab, "
                                "line break or NUL")
    return '"' + field.replace('"', '""') + '"'


def _label_rows(kind: str, entity: str, org: Organization):
    """(tweet, label) pairs that :func:`read_replab` reads back into ``org``."""
    def fail(why: str):
        raise ReplabFormatError(f"entity {quoted(entity)}: cannot write this organization as {kind} labels: {why}")

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


@validate(organizations=MappingOf(what="a mapping entity → Organization"), path=FilePath(), label=WRITTEN_LABEL,
          encoding=ENCODING)
def write_replab(organizations: Mapping[str, Organization], path: str | os.PathLike, label: str = "topic",
                 encoding: str = "utf-8") -> None:
    """Write one Organization per entity in the RepLab format :func:`read_replab` reads back unchanged.

    Topic clusters are named ``topic1``, ``topic2``… in level order; priority grades 2, 1, 0 are written
    ``ALERT``, ``MILDLY_IMPORTANT``, ``UNIMPORTANT`` and other grades as numbers (levels without grades get
    ``n-1 … 0``, top first). An organization the format cannot hold raises :class:`ReplabFormatError`.
    """
    path = file_path(path)
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
