"""TREC qrels and runs written so that they read back equal (:mod:`workbench.data.trec.readers`), or not at all.

A value the format cannot carry is refused with :class:`TrecWriteError` before anything is written, naming the
topic, document or system: an empty field, a field holding whitespace trec_eval splits at (space, tab, line
ends, ``\\v``, ``\\f``) or a NUL byte, a topic starting with ``#`` (the line would be a comment), a grade that is
not a whole number within 64 bits (trec_eval reads grades with ``atol``), a NaN score, a rank that is not an
integer, text that UTF-8 cannot encode, and a topic without any line to write (an empty gold or ranking). The
file is written whole or not at all (a temporary file renamed into place), gzip-compressed when its name ends in
``.gz``::

    >>> import pathlib, tempfile
    >>> from workbench.model import Organization
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> try:
    ...     write_trec_run({"my sys": {"q1": Organization.from_ranking(["d1"])}}, path)
    ... except TrecWriteError as error:
    ...     print(error)
    system 'my sys' holds a space, which a TREC file cannot carry (trec_eval splits fields at it)
    >>> path.exists()
    False
"""

from __future__ import annotations

import gzip
import math
import re
from collections.abc import Iterable, Mapping
from os import PathLike
from typing import Any

import pandas as pd

from workbench.data.files import write_whole
from workbench.data.trec.ranked import RankedRun
from workbench.errors import OutputError, quoted
from workbench.metrics.ranking.table import ranked_documents
from workbench.model import Organization, natural_key
from workbench.reading.sources import file_path
from workbench.validation import DATAFRAME, AnyOf, FilePath, Instance, MappingOf, validate

__all__ = ["TrecWriteError", "write_text", "write_trec_qrels", "write_trec_run"]

_SEPARATORS = re.compile(r"[ \t\n\v\f\r\0]")
_NAMES = {" ": "a space", "\t": "a tab", "\n": "a line feed", "\v": "a vertical tab", "\f": "a form feed",
          "\r": "a carriage return", "\0": "a NUL character"}
_LONG = 2**63


class TrecWriteError(OutputError):
    """A value a TREC file cannot hold so that it reads back equal; nothing was written."""


def _field(value: Any, what: str, first: bool = False) -> str:
    text = str(value)
    if not text:
        raise TrecWriteError(f"{what} is empty, which a TREC file cannot carry (fields are separated by spaces)")
    found = _SEPARATORS.search(text)
    if found:
        raise TrecWriteError(f"{what} holds {_NAMES[found.group()]}, which a TREC file cannot carry (trec_eval "
                             "splits fields at it)")
    if first and text.startswith("#"):
        raise TrecWriteError(f"{what} starts with '#': the line would read as a comment")
    try:
        text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        raise TrecWriteError(f"{what} holds a character UTF-8 cannot encode ({text!r})") from None
    return text


def _number(value: Any, what: str, name: str) -> float:
    """``value`` as a double, or the error naming ``what`` and its ``name`` (grade, score, rank)."""
    try:
        return float(value)
    except OverflowError:
        raise TrecWriteError(f"{what} has {name} {quoted(value)}, too large for a double") from None
    except (TypeError, ValueError):
        raise TrecWriteError(f"{what} has {name} {quoted(value)}, not a number") from None


def _grade(value: Any, what: str) -> str:
    number = _number(value, what, "grade")
    if not number.is_integer() or abs(number) >= _LONG:
        raise TrecWriteError(f"{what} has grade {quoted(value)}: trec_eval reads grades as whole numbers (atol), so "
                             "it would read back otherwise (round the grades first)")
    return str(int(number))


def _score(value: Any, what: str) -> str:
    number = _number(value, what, "score")
    if math.isnan(number):
        raise TrecWriteError(f"{what} has score NaN, which trec_eval cannot rank")
    return repr(number)


def _rank(value: Any, what: str) -> str:
    if isinstance(value, bool) or not _number(value, what, "rank").is_integer() or abs(float(value)) >= _LONG:
        raise TrecWriteError(f"{what} has rank {quoted(value)}, not an integer")
    return str(int(value))


def _frame_rows(frame: pd.DataFrame, columns: list[str], what: str) -> Iterable[tuple]:
    """The frame's ``columns``, row by row, or the error naming the columns it lacks."""
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise TrecWriteError(f"{what} frame lacks the column(s) {', '.join(map(repr, missing))}; it needs "
                             f"{', '.join(columns)} (it has {', '.join(map(repr, map(str, frame.columns)))})")
    return frame[columns].itertuples(index=False)


def write_text(path: str | PathLike, lines: Iterable[str]) -> None:
    """Write the lines as UTF-8 (gzip-compressed when the name ends in ``.gz``), whole or not at all."""
    data = "".join(lines).encode("utf-8", errors="surrogateescape")
    write_whole(path, gzip.compress(data, mtime=0) if str(path).endswith(".gz") else data)


def _nonempty(rows: list, what: str) -> list:
    if not rows:
        raise TrecWriteError(f"{what}: a TREC file holds a topic only through its lines, so it would read back "
                             "without it")
    return rows


def _gold_rows(gold: Organization) -> list[tuple[str, float]]:
    grade = gold.grade_of()
    rows, seen = [], set()
    for level in gold.levels:
        for cluster in level:
            for doc in sorted(cluster, key=natural_key):
                if doc not in seen:
                    seen.add(doc)
                    rows.append((doc, grade[doc]))
    return rows + [(doc, 0.0) for doc in sorted(gold.rest or (), key=natural_key)]


@validate(qrels=AnyOf(DATAFRAME, MappingOf(values=Instance((Organization,), "an Organization"),
                                           what="a mapping topic → Organization")), path=FilePath())
def write_trec_qrels(qrels: pd.DataFrame | Mapping[str, Organization], path: str | PathLike) -> None:
    """Write a qrels frame (``topic, iteration, document, relevance``) or ``{topic: Organization}`` (each
    prioritised document with its grade from ``grade_of()``, in level order; a finite rest as grade 0)."""
    path = file_path(path)
    if isinstance(qrels, pd.DataFrame):
        rows = _frame_rows(qrels, ["topic", "iteration", "document", "relevance"], "the qrels")
    else:
        rows = [(topic, "0", doc, grade) for topic, gold in qrels.items() for doc, grade in _nonempty(
            _gold_rows(gold), f"topic {topic!r} judges no document")]
    lines = []
    for topic, iteration, doc, grade in rows:
        where = f"topic {topic!r}, document {doc!r}"
        lines.append(f"{_field(topic, f'topic {topic!r}', first=True)} {_field(iteration, f'{where}: iteration')} "
                     f"{_field(doc, f'document {doc!r} of topic {topic!r}')} {_grade(grade, where)}\n")
    write_text(path, lines)


def _run_rows(system: str, topic: str, output: Organization) -> list[tuple]:
    level_of: dict[str, int] = {}
    for index, level in enumerate(output.levels):
        for cluster in level:
            for doc in cluster:
                level_of.setdefault(doc, index)
    top = len(output.levels)
    return [(topic, "Q0", doc, rank, float(top - level_of[doc]), system)
            for rank, doc in enumerate(ranked_documents(output), start=1)]


def _ranked_rows(system: str, topic: str, run: RankedRun) -> list[tuple]:
    return [(topic, "Q0", doc, rank, score, system)
            for rank, (doc, score) in enumerate(zip(run.documents(topic), run.scores(topic).tolist(), strict=True),
                                                start=1)]


@validate(run=AnyOf(DATAFRAME, MappingOf(values=Instance((Mapping,), "a mapping topic → Organization"),
                                         what="a mapping system → topic → Organization")), path=FilePath())
def write_trec_run(run: pd.DataFrame | Mapping[str, Mapping[str, Organization]], path: str | PathLike) -> None:
    """Write a run frame (``topic, q0, document, rank, score, system``) or ``{system: {topic: Organization}}``:
    documents in :func:`~workbench.metrics.ranking.table.ranked_documents` order, rank 1, 2, ..., and a score per
    level (levels − index) so that a tied level keeps one score and reading back with ``ties="levels"`` gives
    the same levels. A read or fused run (:class:`~workbench.data.trec.ranked.RankedRun`) is written with its own
    scores, in its order."""
    path = file_path(path)
    if isinstance(run, pd.DataFrame):
        rows = _frame_rows(run, ["topic", "q0", "document", "rank", "score", "system"], "the run")
    else:
        rows = [row for system, topics in run.items() for topic in topics
                for row in _nonempty(_ranked_rows(system, topic, topics) if isinstance(topics, RankedRun) else
                                     _run_rows(system, topic, topics[topic]),
                                     f"system {system!r} ranks no document for topic {topic!r}")]
    lines = []
    for topic, q0, doc, rank, score, system in rows:
        where = f"document {doc!r} of topic {topic!r}"
        lines.append(f"{_field(topic, f'topic {topic!r}', first=True)} {_field(q0, f'{where}: the Q0 field')} "
                     f"{_field(doc, where)} {_rank(rank, where)} {_score(score, where)} "
                     f"{_field(system, f'system {system!r}')}\n")
    write_text(path, lines)
