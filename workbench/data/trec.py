"""TREC files: qrels (``qid iter docno rel``), runs (``qid Q0 docno rank score tag``), trec_eval output.

Readers return Organizations per topic (graded gold via :meth:`Organization.from_graded`; rankings ordered
by the tie policy of :func:`workbench.metrics.ranking.order_by_score`) and, where useful, the raw table;
writers go back to each format. Every malformed line raises :class:`TrecFormatError` naming the file, the
line number and the offending text::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0\\nq1 0 d3 1\\n")
    >>> read_trec_qrels(path)["q1"].format()
    '[2] d1\\n[1] d3'
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Iterator, Mapping
from os import PathLike
from pathlib import Path

import pandas as pd

from workbench.errors import WorkbenchError
from workbench.metrics.ranking import order_by_score, ranked_documents
from workbench.model import Organization, natural_key

TIES = ("trec_eval", "levels")


class TrecFormatError(WorkbenchError):
    """A malformed TREC file: ``path``, ``line`` (1-based, or None for the whole file) and ``text``."""

    def __init__(self, message: str, *, path: str | PathLike | None = None, line: int | None = None,
                 text: str | None = None) -> None:
        self.message, self.path, self.line, self.text = message, path, line, text
        where = str(path) if path is not None else "<input>"
        if line is not None:
            where += f", line {line}"
        detail = f": {text!r}" if text is not None else ""
        super().__init__(f"{where}: {message}{detail}")


# ------------------------------------------------------------------------------------------ lines
def _lines(path: str | PathLike, encoding: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, text, fields) of every non-blank line that is not a ``#`` comment; ``.gz`` read too."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise TrecFormatError(f"cannot read the file ({error.strerror or error})", path=path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise TrecFormatError(f"broken gzip data ({error})", path=path) from None
    empty = True
    for number, chunk in enumerate(raw.splitlines(), start=1):
        try:
            text = chunk.decode(encoding)
        except UnicodeDecodeError as error:
            shown = chunk.decode(encoding, errors="replace")
            raise TrecFormatError(f"not valid {encoding} at byte {error.start} (give encoding=...)",
                                  path=path, line=number, text=shown) from None
        except LookupError:
            raise TrecFormatError(f"unknown encoding {encoding!r}", path=path) from None
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark is not part of the first topic id
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            empty = False
            yield number, text, stripped.split()
    if empty:
        raise TrecFormatError("the file holds no data lines", path=path)


def _write(path: str | PathLike, lines: list[str]) -> None:
    """Write UTF-8 text, gzip-compressed when the name ends in ``.gz``."""
    data = "".join(lines).encode("utf-8")
    Path(path).write_bytes(gzip.compress(data) if str(path).endswith(".gz") else data)


def _number(field: str, what: str, path, number: int, text: str) -> float:
    try:
        value = float(field)
    except ValueError:
        raise TrecFormatError(f"{what} {field!r} is not a number", path=path, line=number,
                              text=text) from None
    if math.isnan(value):
        raise TrecFormatError(f"{what} is NaN", path=path, line=number, text=text)
    return value


def _check_duplicate(seen: dict, key: tuple, path, number: int, text: str) -> None:
    if key in seen:
        raise TrecFormatError(f"document {key[-1]!r} of topic {key[-2]!r} already on line {seen[key]}",
                              path=path, line=number, text=text)
    seen[key] = number


# ------------------------------------------------------------------------------------------ qrels
def read_trec_qrels_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every judgement line as a row: ``topic, iteration, document, relevance`` (float; negative, zero and
    fractional grades kept). ``#`` lines are comments. Raises :class:`TrecFormatError`."""
    rows, seen = [], {}
    for number, text, fields in _lines(path, encoding):
        if len(fields) != 4:
            raise TrecFormatError(f"a qrels line has 4 fields (qid iter docno rel), this one {len(fields)}",
                                  path=path, line=number, text=text)
        topic, iteration, doc, rel = fields
        grade = _number(rel, "relevance", path, number, text)
        if math.isinf(grade):
            raise TrecFormatError("relevance is infinite", path=path, line=number, text=text)
        _check_duplicate(seen, (topic, doc), path, number, text)
        rows.append((topic, iteration, doc, grade))
    return pd.DataFrame(rows, columns=["topic", "iteration", "document", "relevance"])


def qrels_grades(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """``{topic: {document: relevance}}`` from a qrels frame (judged non-relevant documents included)."""
    grades: dict[str, dict[str, float]] = {}
    for topic, doc, rel in frame[["topic", "document", "relevance"]].itertuples(index=False):
        grades.setdefault(topic, {})[doc] = rel
    return grades


def read_trec_qrels(path: str | PathLike, encoding: str = "utf-8") -> dict[str, Organization]:
    """Graded gold per topic: one level per positive grade, highest first, grades kept
    (:meth:`Organization.from_graded`). Judged non-relevant documents are in :func:`read_trec_qrels_frame`."""
    return {topic: Organization.from_graded(grades)
            for topic, grades in qrels_grades(read_trec_qrels_frame(path, encoding)).items()}


def write_trec_qrels(qrels: pd.DataFrame | Mapping[str, Organization], path: str | PathLike) -> None:
    """Write a qrels frame (lossless) or ``{topic: Organization}`` (each prioritised document with its gain
    from ``grade_of()``, in level order; a finite rest as grade 0)."""
    if isinstance(qrels, pd.DataFrame):
        rows = qrels[["topic", "iteration", "document", "relevance"]].itertuples(index=False)
    else:
        rows = [(topic, "0", doc, grade) for topic, gold in qrels.items() for doc, grade in _gold_rows(gold)]
    lines = [f"{t} {i} {d} {_format_number(r)}\n" for t, i, d, r in rows]
    _write(path, lines)


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


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# ------------------------------------------------------------------------------------------- runs
def read_trec_run_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every run line as a row: ``topic, q0, document, rank, score, system`` (fields after the sixth are
    ignored). Raises :class:`TrecFormatError` on short lines, non-numeric or NaN scores, a non-integer rank,
    and a document twice in one topic of one system."""
    rows, seen = [], {}
    for number, text, fields in _lines(path, encoding):
        if len(fields) < 6:
            raise TrecFormatError(f"a run line has 6 fields (qid Q0 docno rank score tag), this one "
                                  f"{len(fields)}", path=path, line=number, text=text)
        topic, q0, doc, rank, score, system = fields[:6]
        try:
            rank_value = int(rank)
        except ValueError:
            raise TrecFormatError(f"rank {rank!r} is not an integer", path=path, line=number,
                                  text=text) from None
        value = _number(score, "score", path, number, text)
        _check_duplicate(seen, (system, topic, doc), path, number, text)
        rows.append((topic, q0, doc, rank_value, value, system))
    return pd.DataFrame(rows, columns=["topic", "q0", "document", "rank", "score", "system"])


def run_scores(frame: pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    """``{system: {topic: {document: score}}}`` from a run frame (file order kept)."""
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for system, topic, doc, score in frame[["system", "topic", "document", "score"]].itertuples(index=False):
        scores.setdefault(system, {}).setdefault(topic, {})[doc] = score
    return scores


def read_trec_run(path: str | PathLike, encoding: str = "utf-8",
                  ties: str = "trec_eval") -> dict[str, dict[str, Organization]]:
    """``{system (the tag): {topic: ranking}}``. The rank column is ignored.

    ``ties="trec_eval"``: one document per level, score descending then document id descending (what
    trec_eval scores); ``ties="levels"``: documents with equal scores share one level (a tie).
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    runs: dict[str, dict[str, Organization]] = {}
    for system, topics in run_scores(read_trec_run_frame(path, encoding)).items():
        runs[system] = {topic: _ranking(scores, ties) for topic, scores in topics.items()}
    return runs


def _ranking(scores: dict[str, float], ties: str) -> Organization:
    docs = list(scores)
    order = [docs[i] for i in order_by_score(docs, list(scores.values()))]
    if ties == "trec_eval":
        return Organization.from_ranking(order)
    levels: list[list[str]] = []
    for i, doc in enumerate(order):
        if i and scores[doc] == scores[order[i - 1]]:
            levels[-1].append(doc)
        else:
            levels.append([doc])
    return Organization(tuple(tuple(frozenset([d]) for d in level) for level in levels))


def write_trec_run(run: pd.DataFrame | Mapping[str, Mapping[str, Organization]],
                   path: str | PathLike) -> None:
    """Write a run frame (lossless) or ``{system: {topic: Organization}}``: documents in
    :func:`~workbench.metrics.ranking.ranked_documents` order, rank 1, 2, ..., and a score per level
    (levels − index) so that a tied level keeps one score and reading back with the default tie policy
    gives the same order."""
    if isinstance(run, pd.DataFrame):
        rows = run[["topic", "q0", "document", "rank", "score", "system"]].itertuples(index=False)
    else:
        rows = [row for system, topics in run.items() for topic, output in topics.items()
                for row in _run_rows(system, topic, output)]
    _write(path, [f"{t} {q} {d} {r} {float(s)!r} {tag}\n" for t, q, d, r, s, tag in rows])


def _run_rows(system: str, topic: str, output: Organization) -> list[tuple]:
    level_of: dict[str, int] = {}
    for index, level in enumerate(output.levels):
        for cluster in level:
            for doc in cluster:
                level_of.setdefault(doc, index)
    top = len(output.levels)
    return [(topic, "Q0", doc, rank, float(top - level_of[doc]), system)
            for rank, doc in enumerate(ranked_documents(output), start=1)]


# ------------------------------------------------------------------------------- trec_eval output
def read_trec_eval_output(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """trec_eval's output (``measure  topic|all  value``, with or without ``-q``) as a tidy frame
    ``measure, topic, value, text``: ``value`` is the number (NaN for text values such as ``runid`` or
    ``relstring``), ``text`` the value as printed."""
    rows = []
    for number, text, fields in _lines(path, encoding):
        if len(fields) != 3:
            raise TrecFormatError(f"a trec_eval output line has 3 fields (measure topic value), this one "
                                  f"{len(fields)}", path=path, line=number, text=text)
        measure, topic, printed = fields
        try:
            value = float(printed)
        except ValueError:
            value = math.nan
        rows.append((measure, topic, value, printed))
    return pd.DataFrame(rows, columns=["measure", "topic", "value", "text"])


def write_trec_eval_output(frame: pd.DataFrame, path: str | PathLike) -> None:
    """Write a frame of ``measure, topic, value[, text]`` in trec_eval's layout (``%-22s\\t%s\\t%s``); the
    printed ``text`` is used where present, else the value with 4 decimals as trec_eval prints."""
    lines = []
    has_text = "text" in frame.columns
    for row in frame.itertuples(index=False):
        printed = row.text if has_text and isinstance(row.text, str) else f"{row.value:.4f}"
        lines.append(f"{row.measure:<22}\t{row.topic}\t{printed}\n")
    _write(path, lines)
