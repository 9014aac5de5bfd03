"""``python -m workbench trec_eval``: trec_eval 10.0 as a drop-in, printing exactly what it prints.

    python -m workbench trec_eval [-q] [-c] [-n] [-l N] [-M N] [-J] [-N N] [-m MEASURE[.PARAMS]]... QRELS RUN

Options are trec_eval's (``getopt_long``: ``-mP.5,7,3``, ``-M100``, ``-l2`` and their long forms); ``-m``
takes a measure or one of the nicknames ``official`` (the default), ``all_trec`` and ``set``, with trec_eval's
parameters after a dot (``P.5,7,3``, ``ndcg.1=3,2=9,4=4.5``, ``utility.2,-1,0,0``, ``iprec_at_recall..10,.25``).
The parts, each replaceable on its own:

* :func:`read_qrels` / :func:`read_results` read the two files as trec_eval does (qrels grades through
  ``atol``, scores through ``atof`` then stored as 32-bit floats, the run id of the last line) into columns
  (:class:`TrecLines`: ids as :class:`~workbench.ids.DocumentIds`, no Python object per line): a plain file
  (one space between fields, nothing trec_eval and Arrow would read differently) by Arrow's multi-threaded
  CSV reader, any other by an exact scanner of C's whitespace;
* :func:`build_table` ranks each topic (:func:`~workbench.metrics.ranking.trec_eval_order`, then ``-M``,
  ``-J``) into one :class:`~workbench.metrics.ranking.GainTable` row, documents matched to their judgements
  by hashed (topic, document) keys checked on the ids;
* :data:`MEASURES` lists trec_eval's measures in its printing order, each computed by the registered kernels of
  :mod:`workbench.metrics.ranking` and :mod:`workbench.metrics.trec_measures`;
* :func:`run` evaluates and :func:`render` prints (``%-22s\\t%s\\t%6.4f``).

Topics are those both files share, in the qrels' byte order; ``-c`` evaluates every qrels topic, a missing one
on trec_eval's one-document placeholder ranking, and averages over all of them. What trec_eval rejects raises a
named error with the file and line; what it accepts silently (run topics without judgements, negative or
fractional grades, unreadable scores) gets its result and a :class:`~workbench.errors.WorkbenchWarning`.
"""

from __future__ import annotations

import getopt
import math
import mmap
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.data.trec_errors import TrecFormatError
from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.ids import DocumentIds
from workbench.metrics import ranking as rk
from workbench.metrics import trec_measures as tm
from workbench.metrics.ranking import GainTable, trec_eval_order

BOGUS_DOCNO = "ceci_nest_pas_un_docno"  # trec_eval.c's placeholder ranking for a missing topic under -c


class TrecEvalError(WorkbenchError):
    """A trec_eval command line trec_eval itself refuses (illegal measure, bad parameters, no topics...)."""


# --------------------------------------------------------------------------------------------- reading
@dataclass(frozen=True)
class TrecLines:
    """A qrels or run file's lines as columns, in file order: the topic names (in byte order, as trec_eval's
    ``strcmp`` orders them; one character per byte), each line's topic (an index into them), the document ids
    (compared as trec_eval compares them, byte by byte), the values (qrels grades after ``atol``, run scores
    after ``atof``) and the 1-based line numbers."""

    topics: tuple[str, ...]
    rows: np.ndarray
    docs: DocumentIds
    values: np.ndarray
    lines: np.ndarray


_ATOL = re.compile(rb"\s*([+-]?\d+)")
_ATOF = re.compile(rb"\s*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))", re.IGNORECASE)
_INTEGER = re.compile(rb"[+-]?\d+")


_C_LONG = np.iinfo(np.int64)


def _atol(text: bytes) -> int:
    """C's atol (glibc's ``strtol``): the leading integer, clamped to a 64-bit long, 0 if none."""
    match = _ATOL.match(text)
    return min(max(int(match.group(1)), int(_C_LONG.min)), int(_C_LONG.max)) if match else 0


def _atof(text: bytes) -> float:
    """C's atof: the leading decimal number, 0.0 if none."""
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


def _text(value: bytes) -> str:
    return value.decode("latin-1")  # one character per byte: byte order and bytes printed back are kept


def _shown(value: bytes | str) -> str:
    """An id or line as a message shows it (UTF-8 where it is, else replacement characters)."""
    return (value.encode("latin-1") if isinstance(value, str) else value).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class _Tokens:
    """A file cut into whitespace-separated fields without building them as Python objects: the byte
    buffer, every field's start and end, each kept line's first field, field count and 1-based number."""

    buffer: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    first: np.ndarray
    counts: np.ndarray
    numbers: np.ndarray

    def column(self, index: int) -> np.ndarray:
        """Field ``index`` of every kept line as a fixed-width bytes array (no line may lack it)."""
        starts, ends = self.starts[self.first + index], self.ends[self.first + index]
        width = int((ends - starts).max(initial=1))
        out = np.zeros((starts.size, width), dtype=np.uint8)
        step = max(_BLOCK // (8 * width), 1)  # a block's worth of positions at a time
        for a in range(0, starts.size, step):
            s, e = starts[a:a + step], ends[a:a + step]
            index_ = s[:, None] + np.arange(width)
            inside = index_ < e[:, None]
            out[a:a + s.size] = np.where(inside, self.buffer[np.minimum(index_, self.buffer.size - 1)], 0)
        return out.view(f"S{width}").ravel()

    def field(self, row: int, index: int) -> bytes:
        """Field ``index`` of kept line ``row``."""
        i = self.first[row] + index
        return self.buffer[self.starts[i]:self.ends[i]].tobytes()

    def line(self, row: int) -> str:
        """The text of kept line ``row`` (for error messages)."""
        a, n = self.first[row], self.counts[row]
        return " ".join(_shown(self.buffer[self.starts[i]:self.ends[i]].tobytes()) for i in range(a, a + n))


_BLOCK = 1 << 21  # bytes scanned at a time: small temporaries are reused, large ones cost fresh pages


def _field_bounds(buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each field starts and ends, and where each newline is; separators are C's isspace bytes
    (space, ``\\t \\n \\v \\f \\r``)."""
    starts, ends, newlines = [], [], []
    before = np.ones(1, dtype=bool)  # the byte before the block is a separator (or the file's start)
    for at in range(0, buffer.size, _BLOCK):
        block = buffer[at:at + _BLOCK]
        space = ((block - np.uint8(9)) < 5) | (block == 32)  # \t..\r as unsigned bytes, and space
        previous = np.concatenate((before, space[:-1]))
        starts.append(np.flatnonzero(previous > space) + at)
        ends.append(np.flatnonzero(space > previous) + at)
        newlines.append(np.flatnonzero(block == 10) + at)
        before = space[-1:]
    if not before[0]:  # the last field runs to the end of the file
        ends.append(np.array([buffer.size]))
    return np.concatenate(starts), np.concatenate(ends), np.concatenate(newlines)


def _read(path: str | Path) -> bytes | mmap.mmap:
    """The file's bytes, mapped into memory where the file allows it (no copy); ``-`` is standard input. An
    empty file is an error, as in trec_eval."""
    try:
        if str(path) == "-":
            raw = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as file:
                try:
                    raw = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                except (ValueError, OSError):  # an empty file, a pipe
                    raw = file.read()
    except OSError as error:
        raise TrecFormatError(f"cannot read the file ({error.strerror or error})", path=path) from None
    if not len(raw):
        raise TrecFormatError("the file is empty", path=path)
    return raw


def _tokens(raw: bytes | mmap.mmap, skip_blank: bool) -> _Tokens:
    """The fields of the file's lines, ``#`` comment lines (and blank ones when ``skip_blank``) left out;
    separators are C's isspace characters, as trec_eval's."""
    buffer = np.frombuffer(raw, dtype=np.uint8)
    starts, ends, newlines = _field_bounds(buffer)
    n_lines = newlines.size + (0 if raw[-1:] == b"\n" else 1)
    counts = np.diff(np.concatenate(([0], np.searchsorted(starts, newlines), [starts.size])))[:n_lines]
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    kept = counts > 0 if skip_blank else np.ones(n_lines, dtype=bool)
    if raw.find(b"#") >= 0 and starts.size:
        opening = buffer[starts[np.minimum(first, starts.size - 1)]]
        kept &= ~((counts > 0) & (opening == ord("#")))
    return _Tokens(buffer, starts, ends, first[kept], counts[kept], np.flatnonzero(kept) + 1)


def _malformed(path, tokens: _Tokens, bad: np.ndarray, what: str) -> None:
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise TrecFormatError(f"malformed {what} line: {tokens.counts[row]} fields", path=path,
                              line=int(tokens.numbers[row]), text=tokens.line(row))


def _exact_lines(table: _Tokens, values: np.ndarray) -> TrecLines:
    """The columns of a file cut by the exact scanner: topics (field 1), documents (field 3), ``values``."""
    names, rows = np.unique(table.column(0), return_inverse=True)
    return TrecLines(tuple(map(_text, names.tolist())), rows.ravel(), DocumentIds.from_bytes(table.column(2)),
                     values, table.numbers)


_QRELS_FIELDS = ("topic", "iteration", "document", "grade")
_RUN_FIELDS = ("topic", "iteration", "document", "rank", "score", "runid")
_NOT_PLAIN = (b"\t", b"\r", b"\v", b"\f", b"\0", b"#")
_PLAIN_GRADE = r"^-?[0-9]{1,18}$"  # what Arrow's int64 and C's atol read alike (Arrow also reads 0x1F)


def _plain_table(raw: bytes | mmap.mmap, names: tuple[str, ...]):
    """The file as an Arrow table (ids as bytes, ``grade`` as an int64, ``score`` as a float64) read by
    Arrow's multi-threaded CSV reader when the file is plain, i.e. read alike by trec_eval and Arrow: no byte
    ``\\t \\r \\v \\f \\0`` and no ``#`` anywhere, every line exactly ``len(names)`` non-empty fields
    between single spaces (Arrow refuses another count; a blank line or a leading, trailing or doubled space
    leaves an empty field), grades plain integers, no NaN score. None otherwise: the exact scanner reads it
    and says what trec_eval would do with the rest."""
    if any(raw.find(byte) >= 0 for byte in _NOT_PLAIN):
        return None
    import pyarrow as pa
    from pyarrow import compute
    from pyarrow import csv as arrow_csv

    types = {name: pa.float64() if name == "score" else pa.string() if name == "grade" else pa.binary()
             for name in names}
    try:
        table = arrow_csv.read_csv(
            pa.py_buffer(raw), read_options=arrow_csv.ReadOptions(column_names=list(names), block_size=1 << 22),
            parse_options=arrow_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                                 escape_char=False, ignore_empty_lines=False),
            convert_options=arrow_csv.ConvertOptions(column_types=types, null_values=[],
                                                     strings_can_be_null=False))
    except pa.ArrowException:  # a field count or a number Arrow refuses: the exact scanner says what it is
        return None
    if table.num_rows == 0 or any(compute.min(compute.binary_length(table.column(name))).as_py() == 0
                                  for name in names if types[name] == pa.binary()):
        return None
    if "grade" in names:
        if not compute.all(compute.match_substring_regex(table.column("grade"), _PLAIN_GRADE)).as_py():
            return None
        table = table.set_column(names.index("grade"), "grade", compute.cast(table.column("grade"), pa.int64()))
    if "score" in names and compute.any(compute.is_nan(table.column("score"))).as_py():
        return None
    return table


def _numbers(array, dtype) -> np.ndarray:
    """A numeric Arrow array without nulls (of numpy's ``dtype``) as numpy, read from its buffer (pyarrow's
    ``to_numpy`` imports pandas)."""
    dtype = np.dtype(dtype)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _arrow_lines(table, value: str) -> TrecLines:
    """The columns of a plain file read by Arrow (every line is a data line: line numbers count from 1)."""
    topics = table.column("topic").combine_chunks().dictionary_encode()
    seen = topics.dictionary.to_pylist()
    order = sorted(range(len(seen)), key=seen.__getitem__)
    rank = np.empty(len(seen), dtype=np.int64)
    rank[order] = np.arange(len(seen))
    return TrecLines(tuple(_text(seen[i]) for i in order), rank[_numbers(topics.indices, np.int32)],
                     DocumentIds.from_arrow(table.column("document"), encoding="latin-1"),
                     np.concatenate([_numbers(chunk, np.float64 if value == "score" else np.int64)
                                     for chunk in table.column(value).chunks]),
                     np.arange(1, table.num_rows + 1))


def read_qrels(path: str | Path) -> TrecLines:
    """The lines of a qrels file (``qid iter docno rel``), as trec_eval's ``get_qrels.c`` reads them: exactly
    four fields per line (a blank line is malformed), ``#`` lines are comments, the grade read by ``atol`` (a
    warning says when that changes it). A plain file is read by Arrow (:func:`_plain_table`)."""
    raw = _read(path)
    plain = _plain_table(raw, _QRELS_FIELDS)
    if plain is not None:
        return _arrow_lines(plain, "grade")
    table = _tokens(raw, skip_blank=False)
    _malformed(path, table, table.counts != 4, "qrels (4 fields: qid iter docno rel)")
    numbers = table.numbers
    tokens = table.column(3)
    try:
        grades = tokens.astype(np.int64)
        plain = all(map(_INTEGER.fullmatch, tokens.tolist()))
    except (ValueError, OverflowError):
        plain = False
    if not plain:
        grades = np.array([_atol(t) for t in tokens.tolist()], dtype=np.int64)
        changed = [f"line {n}: {_shown(t)!r} as {g}" for t, g, n in zip(tokens.tolist(), grades.tolist(),
                                                                        numbers.tolist(), strict=True)
                   if not _INTEGER.fullmatch(t) or int(t) != g]
        warnings.warn(f"{path}: relevance grades that are not plain 64-bit integers are read as trec_eval's atol reads "
                      f"them ({'; '.join(changed[:3])}{'; …' if len(changed) > 3 else ''})",
                      WorkbenchWarning, stacklevel=2)
    return _exact_lines(table, grades)


def read_results(path: str | Path) -> tuple[TrecLines, str]:
    """``(lines, run id)`` of a run file (``qid iter docno rank sim run_id``), as trec_eval's
    ``get_trec_results.c`` reads them: blank and ``#`` lines skipped, at least six fields, fields after the
    sixth ignored, the run id taken from the last line, the score read by ``atof`` (a warning says when the
    text is not a plain number). A NaN score is refused: trec_eval's order would be undefined. A plain file is
    read by Arrow (:func:`_plain_table`)."""
    raw = _read(path)
    plain = _plain_table(raw, _RUN_FIELDS)
    if plain is not None:
        return _arrow_lines(plain, "score"), _text(plain.column("runid")[-1].as_py())
    table = _tokens(raw, skip_blank=True)
    if not table.numbers.size:
        raise TrecFormatError("the run holds no result lines", path=path)
    _malformed(path, table, table.counts < 6, "run (6 fields: qid iter docno rank sim run_id)")
    numbers = table.numbers
    tokens = table.column(4)
    try:
        if np.char.count(tokens, b"_").any():  # numpy reads 1_0 as 10, atof as 1
            raise ValueError
        scores = tokens.astype(np.float64)
    except ValueError:
        scores = np.array([_atof(t) for t in tokens.tolist()])
        unreadable = [f"line {n}: {_shown(t)!r} as {v!r}" for t, v, n in zip(tokens.tolist(), scores.tolist(),
                                                                             numbers.tolist(), strict=True)
                      if _ATOF.fullmatch(t) is None]
        warnings.warn(f"{path}: scores that are not plain numbers are read as trec_eval's atof reads them "
                      f"({'; '.join(unreadable[:3])}{'; …' if len(unreadable) > 3 else ''})",
                      WorkbenchWarning, stacklevel=2)
    if np.isnan(scores).any():
        row = int(np.flatnonzero(np.isnan(scores))[0])
        raise TrecFormatError("score is NaN (trec_eval's order of such documents is undefined)", path=path,
                              line=int(numbers[row]), text=table.line(row))
    return _exact_lines(table, scores), _text(table.field(-1, 5))


# ----------------------------------------------------------------------------------------------- table
@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation options: ``-l``, ``-M``, ``-J``, ``-c``, ``-N``."""

    rel_level: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    complete: bool = False
    num_docs: int = 0


def _positions(rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Each element's index within its row, for elements grouped by row."""
    starts = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=n_rows))[:-1]))
    return np.arange(rows.size) - starts[rows]


def _selected(lines: TrecLines, topics: Sequence[str]) -> tuple[DocumentIds, np.ndarray, np.ndarray, np.ndarray]:
    """The documents, values and line numbers of the lines whose topic is one of ``topics``, and each one's
    row (its topic's index in ``topics``)."""
    index = {topic: row for row, topic in enumerate(topics)}
    row_of = np.array([index.get(topic, -1) for topic in lines.topics], dtype=np.int64)
    rows = row_of[lines.rows]
    if (row_of >= 0).all():
        return lines.docs, lines.values, lines.lines, rows
    kept = np.flatnonzero(rows >= 0)
    return lines.docs.take(kept), lines.values[kept], lines.lines[kept], rows[kept]


class _KeyCollision(Exception):
    """Two different (topic, document) pairs share a 64-bit hashed key: the keys are rebuilt exactly."""


_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # spreads a row number over 64 bits before it is mixed into a hash


def _keys(parts: Sequence[tuple[np.ndarray, DocumentIds]], exact: bool) -> list[np.ndarray]:
    """One integer per (row, document) of each part, equal for equal pairs: the document's 64-bit hash mixed
    with the row (different pairs may share one: :func:`_same` tells), or, ``exact``, the row and the
    document's ``strcmp`` code among all the parts' documents (one code per distinct id)."""
    if not exact:
        return [docs.hashes() ^ (rows.astype(np.uint64) * _SPREAD) for rows, docs in parts]
    width = max(docs.words.shape[1] for _, docs in parts)
    words = np.concatenate([np.pad(docs.words, ((0, 0), (0, width - docs.words.shape[1]))) for _, docs in parts])
    codes = DocumentIds(words, np.concatenate([docs.lengths for _, docs in parts]), None).codes()
    bounds = np.cumsum([len(docs) for _, docs in parts])[:-1]
    return [rows * (codes.max(initial=0) + 1) + part for (rows, _), part in zip(parts, np.split(codes, bounds),
                                                                             strict=True)]


def _same(rows: np.ndarray, docs: DocumentIds, at: np.ndarray, other_rows: np.ndarray, other_docs: DocumentIds,
          other_at: np.ndarray) -> bool:
    """Whether the (row, document) pairs at ``at`` equal the other's at ``other_at``, every one."""
    return bool(((rows[at] == other_rows[other_at]) & other_docs.equal(other_at, docs, at)).all())


def _refuse_duplicates(keys: np.ndarray, rows: np.ndarray, docs: DocumentIds, lines: np.ndarray,
                       topics: Sequence[str], what: str, path, exact: bool) -> None:
    """trec_eval's "duplicate docs" error, naming the earliest line that repeats a (topic, document) met
    before it in the arrays' order."""
    ordered = np.sort(keys)
    if not (ordered[1:] == ordered[:-1]).any():
        return
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    first, repeated = order[:-1][same], order[1:][same]
    if not exact and not _same(rows, docs, first, rows, docs, repeated):
        raise _KeyCollision
    at = int(repeated[np.argmin(lines[repeated])])
    raise TrecFormatError(f"document {_shown(docs[at])!r} is {what} twice for topic {_shown(topics[rows[at]])!r} "
                          "(trec_eval: duplicate docs)", path=path, line=int(lines[at]))


_FILTER_BITS = 24  # the judged keys' top bits mark 2^24 slots (16 MB): most unjudged keys fall on an empty one


def _grades(keys: np.ndarray, rows: np.ndarray, docs: DocumentIds, judged: tuple, exact: bool) -> np.ndarray:
    """Each (row, document)'s grade in the qrels (``judged``: their keys, rows, documents and grades), NaN
    where it is not judged. The keys whose top bits no judged key has are not judged; the others and the
    judged keys are sorted together: as each set's keys are unique, a judged pair is two equal neighbours,
    one from each set."""
    q_keys, q_rows, q_docs, grades = judged
    shift = keys.dtype.type(64 - _FILTER_BITS)
    slots = np.zeros(1 << _FILTER_BITS, dtype=bool)
    slots[(q_keys >> shift).astype(np.intp)] = True
    candidates = np.flatnonzero(slots[(keys >> shift).astype(np.intp)])
    both = np.concatenate((q_keys, keys[candidates]))
    order = np.argsort(both)
    ordered = both[order]
    pairs = np.flatnonzero(ordered[1:] == ordered[:-1])
    first, second = order[pairs], order[pairs + 1]
    at, mine = np.minimum(first, second), candidates[np.maximum(first, second) - q_keys.size]
    if not exact and not _same(rows, docs, mine, q_rows, q_docs, at):
        raise _KeyCollision
    found = np.full(keys.size, np.nan)
    found[mine] = grades[at]
    return found


def build_table(qrels: TrecLines, results: TrecLines, topics: Sequence[str], options: Options,
                qrels_path: str | Path = "<qrels>", run_path: str | Path = "<run>") -> GainTable:
    """One :class:`GainTable` row per topic, all topics at once: the run's documents in trec_eval's order
    (:func:`~workbench.metrics.ranking.trec_eval_order`: 32-bit scores, then document ids descending), cut to
    ``-M`` documents, judged ones only under ``-J`` (:meth:`GainTable.judged_only`); a topic the run lacks gets
    trec_eval's placeholder ranking. Duplicate documents in a topic's ranking or judgements are refused, as
    trec_eval refuses them. Documents are matched to judgements by 64-bit hashes of (topic, document), every
    match checked on the ids themselves; should two pairs share a hash, by exact ``strcmp`` codes."""
    n = len(topics)
    q_docs, grades, q_lines, q_rows = _selected(qrels, topics)
    docs, scores, lines, rows = _selected(results, topics)
    missing = np.flatnonzero(np.bincount(rows, minlength=n) == 0) if options.max_docs != 0 else np.zeros(0, int)
    order = trec_eval_order(scores, docs, groups=rows)
    rows = rows[order]
    if options.max_docs is not None:
        kept = _positions(rows, n) < options.max_docs
        order, rows = order[kept], rows[kept]
    docs, lines = docs.take(order), lines[order]
    placeholders = DocumentIds.from_strings([BOGUS_DOCNO] * missing.size, encoding="latin-1")

    def judgements(exact: bool) -> tuple[np.ndarray, np.ndarray]:
        keys, q_keys, placeholder_keys = _keys([(rows, docs), (q_rows, q_docs), (missing, placeholders)], exact)
        _refuse_duplicates(q_keys, q_rows, q_docs, q_lines, topics, "judged", qrels_path, exact)
        _refuse_duplicates(keys, rows, docs, lines, topics, "retrieved", run_path, exact)
        judged = (q_keys, q_rows, q_docs, grades)  # keys unique in each file now
        return (_grades(keys, rows, docs, judged, exact),
                _grades(placeholder_keys, missing, placeholders, judged, exact))

    try:
        found, placeholder_found = judgements(exact=False)
    except _KeyCollision:
        found, placeholder_found = judgements(exact=True)
    if missing.size:
        rows, found = np.concatenate((rows, missing)), np.concatenate((found, placeholder_found))
        by_row = np.argsort(rows, kind="stable")
        rows, found = rows[by_row], found[by_row]
    num_ret = np.bincount(rows, minlength=n)
    column = _positions(rows, n)
    width = int(num_ret.max(initial=0))
    gains, judged, pooled = np.zeros((n, width)), np.zeros((n, width), bool), np.zeros((n, width), bool)
    gains[rows, column] = np.where(found > 0, found, 0.0)
    judged[rows, column] = found >= 0
    pooled[rows, column] = ~np.isnan(found)
    positive = grades > 0
    best = np.lexsort((-grades[positive], q_rows[positive]))
    best_rows = q_rows[positive][best]
    ideal = np.zeros((n, int(np.bincount(best_rows, minlength=n).max(initial=0))))
    ideal[best_rows, _positions(best_rows, n)] = grades[positive][best]
    table = GainTable(gains, ideal, tuple(topics), num_ret=num_ret, judged=judged, pooled=pooled,
                      n_judged=np.bincount(q_rows[grades >= 0], minlength=n))
    return table.judged_only() if options.judged_only else table


def relevance_strings(table: GainTable, length: int = 10) -> list[str]:
    """trec_eval's ``relstring``: the grades of the first ``length`` retrieved documents, one character each
    (the digit, ``>`` above 9, ``-`` not pooled, ``.`` pooled but unjudged)."""
    out = []
    for row in range(table.gains.shape[0]):
        chars = []
        for r in range(max(0, min(length, int(table.num_ret[row])))):
            if table.judged[row, r]:
                grade = int(table.gains[row, r])
                chars.append(">" if grade > 9 else str(grade))
            else:
                chars.append("." if table.pooled[row, r] else "-")
        out.append("".join(chars))
    return out


# -------------------------------------------------------------------------------------------- measures
@dataclass(frozen=True)
class TrecMeasure:
    """One of trec_eval's measures: how its parameters read (``kind``), its defaults, how its per-topic
    values are computed (one column per printed value), and how topics combine (``mean``, ``sum``, ``gm``)."""

    name: str
    kind: str  # plain | long | cut_long | cut_double | params | pairs
    compute: Callable[[GainTable, object, Options], list[np.ndarray]]
    default: tuple = ()
    summary: str = "mean"
    per_topic: bool = True


def _gains(pairs) -> dict[float, float]:
    """trec_eval's ``rel_level=gain`` pairs whose name is an integer (``gain_init.c``)."""
    return {float(int(k)): v for k, v in pairs if re.fullmatch(r"[+-]?\d+", k)}


def _pair(pairs, key: str, default: float) -> float:
    return next((v for k, v in reversed(pairs) if k == key), default)


def _utility(table: GainTable, params, options: Options) -> list[np.ndarray]:
    if len(params) != 4:
        raise TrecEvalError(f"utility needs 4 coefficients, got {len(params)} (trec_eval: improper number "
                            f"of coefficients)")
    return [tm.utility(table, *params, num_docs=options.num_docs, rel_level=options.rel_level)]


def _dcg(table: GainTable, pairs, ideal: bool) -> list[np.ndarray]:
    values, best = tm.gain_tables(table, _gains(pairs))
    chosen = best if ideal else values
    return [chosen @ (1.0 / np.log2(np.arange(chosen.shape[1]) + 2.0))]


def _log(values: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(values, tm.MIN_GEO_MEAN))


_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = tuple(i / 10 for i in range(11))
MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "plain", lambda t, p, o: [], summary="runid", per_topic=False),
    TrecMeasure("num_q", "long", lambda t, p, o: [np.ones(t.gains.shape[0])], summary="count",
                per_topic=False),
    TrecMeasure("num_ret", "long", lambda t, p, o: [tm.num_ret(t)], summary="sum"),
    TrecMeasure("num_rel", "long", lambda t, p, o: [tm.num_rel(t, o.rel_level)], summary="sum"),
    TrecMeasure("num_rel_ret", "long", lambda t, p, o: [tm.num_rel_ret(t, o.rel_level)], summary="sum"),
    TrecMeasure("map", "plain", lambda t, p, o: [t.shared(rk.average_precision, None, o.rel_level)]),
    TrecMeasure("gm_map", "plain", lambda t, p, o: [_log(t.shared(rk.average_precision, None, o.rel_level))],
                summary="gm", per_topic=False),
    TrecMeasure("Rprec", "plain", lambda t, p, o: [rk.r_precision(t, rel=o.rel_level)]),
    TrecMeasure("bpref", "plain", lambda t, p, o: [t.shared(tm.bpref, o.rel_level)]),
    TrecMeasure("recip_rank", "plain", lambda t, p, o: [rk.reciprocal_rank(t, rel=o.rel_level)]),
    TrecMeasure("iprec_at_recall", "cut_double",
                lambda t, p, o: list(t.shared(tm.interpolated_precisions, p, o.rel_level).T), _RECALLS),
    TrecMeasure("P", "cut_long", lambda t, p, o: [rk.precision_at(t, k, o.rel_level) for k in p], _CUTOFFS),
    TrecMeasure("relstring", "params", lambda t, p, o: [relevance_strings(t, int(p[0]))], (10.0,),
                summary="none"),
    TrecMeasure("recall", "cut_long", lambda t, p, o: [tm.recall_at(t, k, o.rel_level) for k in p], _CUTOFFS),
    TrecMeasure("infAP", "plain", lambda t, p, o: [tm.inferred_ap(t, o.rel_level)]),
    TrecMeasure("gm_bpref", "plain", lambda t, p, o: [_log(t.shared(tm.bpref, o.rel_level))], summary="gm",
                per_topic=False),
    TrecMeasure("Rprec_mult", "cut_double",
                lambda t, p, o: [tm.r_precision_multiple(t, m, o.rel_level) for m in p],
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    TrecMeasure("utility", "params", _utility, (1.0, -1.0, 0.0, 0.0)),
    TrecMeasure("11pt_avg", "params", lambda t, p, o: [tm.eleven_point_average(t, p, o.rel_level)], _RECALLS),
    TrecMeasure("binG", "plain", lambda t, p, o: [tm.binary_g(t, o.rel_level)]),
    TrecMeasure("G", "pairs", lambda t, p, o: [tm.g_measure(t, _gains(p))]),
    TrecMeasure("dcg", "pairs", lambda t, p, o: _dcg(t, p, ideal=False)),
    TrecMeasure("ideal_dcg", "pairs", lambda t, p, o: _dcg(t, p, ideal=True)),
    TrecMeasure("ndcg", "pairs", lambda t, p, o: [rk.ndcg(t, gains=_gains(p))]),
    TrecMeasure("ndcg_rel", "pairs", lambda t, p, o: [tm.ndcg_rel(t, _gains(p))]),
    TrecMeasure("Rndcg", "pairs", lambda t, p, o: [tm.r_ndcg(t, _gains(p), o.rel_level)]),
    TrecMeasure("ndcg_cut", "cut_long", lambda t, p, o: [rk.ndcg(t, k) for k in p], _CUTOFFS),
    TrecMeasure("map_cut", "cut_long", lambda t, p, o: [rk.average_precision(t, k, o.rel_level) for k in p],
                _CUTOFFS),
    TrecMeasure("relative_P", "cut_long", lambda t, p, o: [tm.relative_precision_at(t, k, o.rel_level) for k in p],
                _CUTOFFS),
    TrecMeasure("success", "cut_long", lambda t, p, o: [rk.success_at(t, k, o.rel_level) for k in p], (1, 5, 10)),
    TrecMeasure("set_P", "plain", lambda t, p, o: [tm.set_precision(t, o.rel_level)]),
    TrecMeasure("set_relative_P", "plain", lambda t, p, o: [tm.set_relative_precision(t, o.rel_level)]),
    TrecMeasure("set_recall", "plain", lambda t, p, o: [tm.set_recall(t, o.rel_level)]),
    TrecMeasure("set_map", "plain", lambda t, p, o: [tm.set_map(t, o.rel_level)]),
    TrecMeasure("set_F", "params", lambda t, p, o: [tm.set_f(t, p[0], o.rel_level)], (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", "long", lambda t, p, o: [tm.num_nonrel_judged_ret(t, o.rel_level)],
                summary="sum"),
    TrecMeasure("rbp", "pairs", lambda t, p, o: [tm.rbp_with_gains(t, _pair(p, "p", 0.9), _gains(p))]),
    TrecMeasure("rbp_resid", "pairs", lambda t, p, o: [tm.rbp_residual(t, _pair(p, "p", 0.9))]),
    TrecMeasure("unj", "cut_long", lambda t, p, o: [tm.unjudged_at(t, k) for k in p], (5, 10, 20)),
)
_BY_NAME = {m.name: m for m in MEASURES}

NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}


# -------------------------------------------------------------------------------- -m and its parameters
def _split(text: str) -> list[bytes]:
    return text.encode("latin-1").split(b",")


def _parameters(measure: TrecMeasure, text: str | None):
    """(parameter values, printed name or names) of a measure given trec_eval's ``-m name.PARAMS`` text
    (``meas_init.c``: cutoffs sorted, unique and positive; pairs ``name=value``)."""
    kind = measure.kind
    if kind in ("plain", "long"):
        return (), [measure.name]
    if kind == "cut_long":
        values = sorted(_atol(v) for v in _split(text)) if text is not None else list(measure.default)
        if values[0] <= 0:
            raise TrecEvalError(f"-m {measure.name}.{text}: a cutoff is not positive (trec_eval: Negative "
                                "cutoff detected)")
        if len(set(values)) < len(values):
            raise TrecEvalError(f"-m {measure.name}.{text}: duplicate cutoffs")
        return tuple(values), [f"{measure.name}_{v}" for v in values]
    if kind == "cut_double":
        values = sorted(_atof(v) for v in _split(text)) if text is not None else list(measure.default)
        if len(set(values)) < len(values):
            raise TrecEvalError(f"-m {measure.name}.{text}: duplicate cutoffs")
        return tuple(values), [f"{measure.name}_{v:3.2f}" for v in values]
    name = measure.name if text is None else f"{measure.name}_{text}"
    if kind == "params":
        return (tuple(_atof(v) for v in _split(text)) if text is not None else measure.default), [name]
    if text is None:
        return (), [name]
    last = ","
    for char in text:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise TrecEvalError(f"-m {measure.name}.{text}: malformed pair parameters (write name=value,...)")
    pairs = []
    for item in text.split(","):
        key, _, value = item.partition("=")
        pairs.append((key, _atof(value.encode("latin-1"))))
    return tuple(pairs), [name]


def select_measures(requests: Sequence[str]) -> list[tuple[TrecMeasure, object, list[str]]]:
    """The measures trec_eval computes for these ``-m`` arguments, in its order, with their parameters (the
    first ``-m name.PARAMS`` of a measure counts) and printed names; none given means ``official``."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for request in requests or ["official"]:
        name, dot, text = request.partition(".")
        if dot:
            if not text:
                raise TrecEvalError(f"-m {request}: improper measure parameter (nothing after the dot)")
            params.setdefault(name, text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in _BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(f"illegal measure {name!r}; the workbench's trec_eval knows "
                                f"{', '.join([*NICKNAMES, *_BY_NAME])}")
    return [(m, *_parameters(m, params.get(m.name))) for m in MEASURES if m.name in marked]


# ------------------------------------------------------------------------------------------ evaluation
@dataclass
class Evaluation:
    """What trec_eval prints: per-topic values (``topics``, then one list per printed name) and summaries."""

    runid: str
    topics: tuple[str, ...]
    rows: list[tuple[TrecMeasure, list[str], list]]  # measure, printed names, per-name per-topic values


def _clean_placeholder(names: list[str], columns: list, row: int) -> None:
    """trec_eval.c's clean-up of a missing topic's placeholder ranking, by printed name."""
    for name, column in zip(names, columns, strict=False):  # runid has a name but no column
        if name in ("num_ret", "utility", "rbp_resid") or name.startswith("unj"):
            column[row] = 0.0
        elif name == "relstring":
            column[row] = ""


def evaluate(qrels_path: str | Path, run_path: str | Path, requests: Sequence[str] = (),
             options: Options = Options()) -> Evaluation:
    """Read, rank and score as trec_eval does; see the module docstring."""
    selected = select_measures(requests)
    if options.rel_level < 1:
        raise TrecEvalError(f"-l {options.rel_level}: the workbench's trec_eval needs a relevance level ≥ 1")
    if options.max_docs is not None and options.max_docs < 0:
        raise TrecEvalError(f"-M {options.max_docs}: the maximum number of documents must be ≥ 0")
    qrels = read_qrels(qrels_path)
    results, runid = read_results(run_path)
    judged_topics, judged, ran = qrels.topics, set(qrels.topics), set(results.topics)
    extra = [t for t in results.topics if t not in judged]
    if extra:
        warnings.warn(f"{run_path}: {len(extra)} run topic(s) have no judgements in {qrels_path} and are "
                      f"ignored, as trec_eval does ({', '.join(extra[:5])}{', …' if len(extra) > 5 else ''})",
                      WorkbenchWarning, stacklevel=2)
    topics = list(judged_topics) if options.complete else [t for t in judged_topics if t in ran]
    if not topics:
        raise TrecEvalError("no topic has both results and judgements (trec_eval: No queries with both "
                            "results and relevance info)")
    chosen = np.isin(qrels.topics, topics)[qrels.rows] if len(topics) < len(qrels.topics) else slice(None)
    negative = int((qrels.values[chosen] < 0).sum())
    if negative:
        warnings.warn(f"{qrels_path}: {negative} judgement(s) have a negative grade; as trec_eval, they count as "
                      "pooled but unjudged (infAP, bpref, unj, relstring '.'), not as judged non-relevant",
                      WorkbenchWarning, stacklevel=2)
    table = build_table(qrels, results, topics, options, qrels_path, run_path)
    missing = [row for row, topic in enumerate(topics) if topic not in ran]
    rows = []
    for measure, params, names in selected:
        columns = [list(np.asarray(c).tolist()) if not isinstance(c, list) else list(c)
                   for c in measure.compute(table, params, options)]
        for row in missing:
            _clean_placeholder(names, columns, row)
        rows.append((measure, names, columns))
    return Evaluation(runid, tuple(topics), rows)


# ---------------------------------------------------------------------------------------------- output
def _number(value: float) -> str:
    return "  -nan" if math.isnan(value) else f"{value:6.4f}"


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}\n"


def _summary(measure: TrecMeasure, column: list, count: int) -> float:
    total = 0.0
    for value in column:
        total += value
    if measure.summary == "sum":
        return total
    if measure.summary == "gm":
        return math.exp(total / count)
    return total / count


def render(evaluation: Evaluation, per_topic: bool = False, summary: bool = True) -> str:
    """trec_eval's output: with ``per_topic`` (``-q``) every topic's values first, then the summary."""
    out: list[str] = []
    if per_topic:  # each printed value's texts for all topics at once, then interleaved topic by topic
        printed = []
        for measure, names, columns in evaluation.rows:
            if not measure.per_topic:
                continue
            for name, column in zip(names, columns, strict=True):
                texts = ([f"'{value}'" for value in column] if measure.name == "relstring" else
                         [str(int(value)) for value in column] if measure.kind == "long" else
                         [_number(value) for value in column])
                printed.append((f"{name:<22}\t", texts))
        for row, topic in enumerate(evaluation.topics):
            out.extend(f"{head}{topic}\t{texts[row]}\n" for head, texts in printed)
    if summary:
        count = len(evaluation.topics)
        for measure, names, columns in evaluation.rows:
            if measure.summary == "runid":
                out.append(_line("runid", "all", evaluation.runid))
            elif measure.summary == "count":
                out.append(_line(names[0], "all", str(count)))
            elif measure.summary != "none":
                for name, column in zip(names, columns, strict=True):
                    value = _summary(measure, column, count)
                    out.append(_line(name, "all", str(int(value)) if measure.kind == "long" else _number(value)))
    return "".join(out)


# ------------------------------------------------------------------------------------------ command line
USAGE = ("usage: python -m workbench trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] "
         "[-m MEASURE[.PARAMS]]... QRELS RUN")
_LONG = ["help", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=", "nosummary",
         "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic="]


def main(argv: Sequence[str]) -> int:
    """Parse trec_eval's options (``getopt_long``, arguments may be glued: ``-mP.5``, ``-M100``), evaluate
    and print to standard output. Bad input raises a :class:`~workbench.errors.WorkbenchError`."""
    try:
        found, paths = getopt.gnu_getopt(list(argv), "hqm:cl:nJN:M:", _LONG)
    except getopt.GetoptError as error:
        raise TrecEvalError(f"{error} ({USAGE})") from None
    requests: list[str] = []
    per_topic, summary = False, True
    settings: dict = {}
    for flag, value in found:
        if flag in ("-h", "--help"):
            sys.stdout.write(f"{USAGE}\n{__doc__}")
            return 0
        if flag in ("-q", "--query_eval_wanted"):
            per_topic = True
        elif flag in ("-m", "--measure"):
            requests.append(value)
        elif flag in ("-c", "--complete_rel_info_wanted"):
            settings["complete"] = True
        elif flag in ("-n", "--nosummary"):
            summary = False
        elif flag in ("-J", "--Judged_docs_only"):
            settings["judged_only"] = True
        else:
            key = {"-l": "rel_level", "--level_for_rel": "rel_level", "-N": "num_docs",
                   "--Number_docs_in_coll": "num_docs", "-M": "max_docs",
                   "--Max_retrieved_per_topic": "max_docs"}[flag]
            settings[key] = _atol(value.encode("latin-1"))
    if len(paths) != 2:
        raise TrecEvalError(f"expected the qrels and the run file, got {len(paths)} paths ({USAGE})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        evaluation = evaluate(paths[0], paths[1], requests, Options(**settings))
    for warning in caught:
        print(f"workbench trec_eval: note: {warning.message}", file=sys.stderr)
    printed = render(evaluation, per_topic=per_topic, summary=summary)
    binary = getattr(sys.stdout, "buffer", None)
    if binary is None:
        sys.stdout.write(printed)
    else:  # the files' own bytes back (ids were read one character per byte)
        sys.stdout.flush()
        binary.write(printed.encode("latin-1"))
        binary.flush()
    return 0
