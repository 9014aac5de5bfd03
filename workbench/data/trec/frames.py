"""Judgements and runs from DataFrames in long format, through the same arrays and the same trec_eval ranking as
TREC files (:mod:`workbench.data.trec.ranked`), so that the same data gives the same scores whichever door it came
in by (dicts and records: :mod:`workbench.data.trec.memory`).

    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [0.2, 0.9]})
    >>> runs_from_frames({"bm25": run})["bm25"].documents("q1")
    ['d2', 'd1']
    >>> judgements_from_frame(qrels)["q1"].format()
    '[1] d1'

Ids are strings, or integers read as their text (the integer 301 is the topic ``"301"``; a float or a boolean is
refused); relevance and scores must be numbers, kept as given (numeric text is read as Python reads it;
booleans are refused). Bad input raises :class:`~workbench.data.trec.errors.FrameError` naming the column and the
first offending row. A string column that pandas holds in Arrow (pandas 3's default) is read in place, without a
Python object per id.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from workbench.data.trec.errors import DuplicateEntryError, FrameError
from workbench.data.trec.lines import Labels
from workbench.data.trec.memory import COLUMN, FRAMES, SYSTEM_COLUMN
from workbench.data.trec.ranked import (
    MAX_DOCS,
    SCORE_PRECISION,
    TIES,
    Judgements,
    RankedRun,
    id_texts,
    judgements,
    rank_runs,
)
from workbench.errors import quoted
from workbench.ids import DocumentIds, arrow_call
from workbench.validation import DATAFRAME, validate

if TYPE_CHECKING:  # imported where a frame holds Arrow strings
    import pyarrow as pa

__all__ = ["SYSTEM_COLUMNS", "judgements_from_frame", "runs_from_frames"]

SYSTEM_COLUMNS = ("system", "run")


def _plain(value: object) -> object:
    return value.item() if isinstance(value, np.generic) else value


def _row(frame: pd.DataFrame, position: int) -> str:
    """``row 3`` (the position), with the index label when it says something else."""
    label = _plain(frame.index[position])
    return f"row {position}" if label == position else f"row {position} (index {label!r})"


def _column(frame: pd.DataFrame, column: str, what: str) -> pd.Series:
    """An id column, refused when a value is missing or the column holds numbers that are not integers."""
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        raise FrameError(f"{what}: column {column!r} is missing a value at {_row(frame, int(np.argmax(missing)))}")
    if pd.api.types.is_bool_dtype(values.dtype) or (pd.api.types.is_numeric_dtype(values.dtype)
                                                     and not pd.api.types.is_integer_dtype(values.dtype)):
        raise FrameError(f"{what}: column {column!r} holds {values.dtype} values, not ids: ids are strings (or "
                         f"integers, read as their text), e.g. {str(_plain(values.iloc[0]))!r} at {_row(frame, 0)}")
    return values


def _arrow_strings(values: pd.Series) -> pa.ChunkedArray | None:
    """The column as an Arrow string array when pandas holds it as one (no copy), else None."""
    import pyarrow as pa

    dtype = values.dtype
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow" or \
            isinstance(dtype, pd.ArrowDtype) and (pa.types.is_string(dtype.pyarrow_dtype)
                                                  or pa.types.is_large_string(dtype.pyarrow_dtype)):
        array = pa.array(values)
        return array if isinstance(array, pa.ChunkedArray) else pa.chunked_array([array])
    return None


def _texts(frame: pd.DataFrame, values: pd.Series, column: str, what: str) -> list[str]:
    """Values held otherwise (objects, integers) as a list of ``str``: integers as their text, anything but a
    string or an integer refused, naming the row."""
    items = (values.astype(str) if pd.api.types.is_integer_dtype(values.dtype) else values).tolist()
    if all(type(item) is str for item in items):
        return items
    texts = []
    for position, item in enumerate(items):
        if isinstance(item, str) or isinstance(item, int | np.integer) and not isinstance(item, bool | np.bool_):
            try:
                texts.append(str(item))
            except ValueError:  # past Python's limit on writing an integer
                raise FrameError(f"{what}: column {column!r} holds an integer too long to be an id at "
                                 f"{_row(frame, position)}: {quoted(item)}") from None
        else:
            raise FrameError(f"{what}: column {column!r} holds a {type(item).__name__} at {_row(frame, position)}: "
                             f"{_plain(item)!r}; ids are strings (or integers, read as their text)")
    return texts


def _documents(frame: pd.DataFrame, column: str, what: str) -> DocumentIds:
    """An id column as :class:`~workbench.ids.DocumentIds`: read in place from an Arrow-backed string column,
    else joined and encoded in one piece."""
    values = _column(frame, column, what)
    strings = _arrow_strings(values)
    if strings is not None:
        return DocumentIds.from_arrow(strings)
    return DocumentIds.from_strings(_texts(frame, values, column, what))


def _labels(frame: pd.DataFrame, column: str, what: str) -> Labels:
    """A column of few distinct ids (topics, systems) as codes in order of first appearance (a hash table: no
    sort of millions of strings) and their texts."""
    values = _column(frame, column, what)
    strings = _arrow_strings(values)
    if strings is not None:
        return _stretches_coded(strings.chunk(0) if strings.num_chunks == 1 else strings.combine_chunks())
    codes, names = pd.factorize(values)
    texts = _texts(frame, pd.Series(names, dtype=object), column, what) if len(names) else []
    if pd.api.types.is_integer_dtype(values.dtype):
        integers = frozenset(texts)
    else:  # strings and integers: none written alike (1 and "1")
        integers = id_texts(f"column {column!r} value", names.tolist(), what).integers
    return Labels(codes.astype(np.int64, copy=False), tuple(texts), integers)


def _stretches_coded(strings: pa.Array) -> Labels:
    """An Arrow string column of few distinct values as codes (int32) in order of first appearance and their texts:
    a frame's topics mostly come in stretches, so that the first value of each stretch of equal neighbours (Arrow's
    ``not_equal``) is all Arrow's ``dictionary_encode`` reads (2M rows of 2,000 topics: 22 → 14 ms); the whole
    column when its first :data:`_PROBE` rows change value often (shuffled rows: 32 ms either way).

    >>> import pyarrow as pa
    >>> labels = _stretches_coded(pa.array(["q2", "q2", "q1", "q2"]))
    >>> labels.codes.tolist(), labels.names
    ([0, 0, 1, 0], ('q2', 'q1'))
    """
    import pyarrow as pa

    n = len(strings)
    heads = None
    if n > 1 and _changes(strings.slice(0, _PROBE)).sum() <= _PROBE // 4:
        heads = np.flatnonzero(np.concatenate(([True], _changes(strings))))
        if heads.size > n // 4:
            heads = None
    encoded = arrow_call("dictionary_encode", strings if heads is None else
                         arrow_call("take", strings, pa.array(heads)))
    indices = encoded.indices
    codes = np.frombuffer(indices.buffers()[1], dtype=np.int32, count=len(indices), offset=indices.offset * 4)
    if heads is not None:
        codes = np.repeat(codes, np.diff(np.append(heads, n)))
    return Labels(codes, tuple(encoded.dictionary.to_pylist()))  # int32


_PROBE = 1 << 12  # rows whose changes of value say whether a column comes in stretches (_stretches_coded)


def _changes(strings: pa.Array) -> np.ndarray:
    """Whether each value after the first differs from the one before it."""
    n = len(strings)
    if n < 2:
        return np.zeros(0, dtype=bool)
    return arrow_call("not_equal", strings.slice(1), strings.slice(0, n - 1)).to_numpy(zero_copy_only=False)


def _merged(parts: list[Labels], what: str) -> Labels:
    """The labels of several columns one after the other, equal texts one code (in order of first appearance);
    an id given as an integer in one and as a string in another is refused."""
    if len(parts) == 1:
        return parts[0]
    given = id_texts(what, [int(name) if name in part.integers else name for part in parts for name in part.names])
    code_of: dict[str, int] = {}
    mapped = [np.array([code_of.setdefault(name, len(code_of)) for name in part.names], dtype=np.int64)[part.codes]
              for part in parts]
    return Labels(np.concatenate(mapped), tuple(code_of), given.integers)


def _numbers(frame: pd.DataFrame, column: str, what: str, finite: bool) -> np.ndarray:
    values = frame[column]
    if pd.api.types.is_bool_dtype(values):
        raise FrameError(f"{what}: column {column!r} holds booleans, not numbers (e.g. .astype(int) says "
                         "which grade True is)")
    try:
        numbers = np.asarray(pd.to_numeric(values, errors="coerce"), dtype=float)
    except OverflowError:  # an int past a double
        at = next(i for i, value in enumerate(values) if isinstance(value, int) and not _fits_double(value))
        raise FrameError(f"{what}: column {column!r} is too large for a double at {_row(frame, at)}: "
                         f"{quoted(values.iloc[at])}") from None
    # a float column's NaN was given as NaN (read again, it stays NaN): only other columns hold unread text
    unread = np.zeros(0, dtype=np.int64) if values.dtype.kind == "f" else \
        np.flatnonzero(np.isnan(numbers) & values.notna().to_numpy())
    if unread.size:  # text pandas does not read (digits past Python's integer limit): as Python's float reads it
        numbers = numbers.copy()
        for at in unread.tolist():
            if isinstance(values.iloc[at], str):
                with contextlib.suppress(ValueError):
                    numbers[at] = float(values.iloc[at])
    bad = np.isnan(numbers) | (np.isinf(numbers) if finite else False)
    if bad.any():
        at = int(np.argmax(bad))
        given = values.iloc[at]
        reason = ("is infinite" if np.isinf(numbers[at]) else "is missing (NaN)" if pd.isna(given)
                  else "is not a number")
        raise FrameError(f"{what}: column {column!r} {reason} at {_row(frame, at)}: {quoted(_plain(given))}")
    return numbers


def _fits_double(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _columns(frame: pd.DataFrame, needed: tuple[str, ...], what: str, keywords: str) -> None:
    missing = [column for column in needed if column not in frame.columns]
    if missing:
        raise FrameError(f"{what}: no column {', '.join(map(repr, missing))}; the frame has "
                         f"{', '.join(map(repr, map(str, frame.columns)))} (name the columns with {keywords})")
    if len(frame) == 0:
        raise FrameError(f"{what}: the frame has no rows")


def _duplicate(error: DuplicateEntryError, frame: pd.DataFrame, columns: str, what: str) -> FrameError:
    return FrameError(f"{what}: {columns} {error.topic!r}, {error.document!r} again at "
                      f"{_row(frame, error.again)} (first at {_row(frame, error.first)}); trec_eval stops on "
                      "duplicate documents")


# ---------------------------------------------------------------------------------------------- frames
@validate(frame=DATAFRAME, query=COLUMN, document=COLUMN, relevance=COLUMN)
def judgements_from_frame(frame: pd.DataFrame, *, query: str = "query_id", document: str = "doc_id",
                          relevance: str = "relevance") -> Judgements:
    """Graded judgements from a long frame ``query_id, doc_id, relevance`` (other columns ignored)."""
    what = "qrels"
    _columns(frame, (query, document, relevance), what, "query=, document=, relevance=")
    topics, docs = _labels(frame, query, what), _documents(frame, document, what)
    grades = _numbers(frame, relevance, what, finite=True)
    return judgements(topics, docs, grades, locate=lambda error: _duplicate(error, frame, f"({query}, {document})",
                                                                            what))


@validate(runs=FRAMES, query=COLUMN, document=COLUMN, score=COLUMN, system=SYSTEM_COLUMN, ties=TIES,
          score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def runs_from_frames(runs: pd.DataFrame | Mapping[str, pd.DataFrame], *, query: str = "query_id",
                     document: str = "doc_id", score: str = "score", system: str | None = None,
                     ties: str = "trec_eval", score_precision: str = "float64",
                     max_docs: int | None = None) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` from one long frame ``query_id, doc_id, score`` with a system column (``system``,
    by default ``"system"`` or else ``"run"``), or from ``{system: frame}``; ranked as
    :func:`~workbench.data.trec.ranked.rank_runs` ranks a TREC file."""
    if isinstance(runs, pd.DataFrame):
        if system is None:
            system = next((c for c in SYSTEM_COLUMNS if c in runs.columns), SYSTEM_COLUMNS[0])
        _columns(runs, (query, document, score, system), "runs", "query=, document=, score=, system=, or give "
                 "a dict {system: frame}")
        parts = [(runs, _labels(runs, system, "runs"), "runs")]
    else:
        parts = []
        named = id_texts("system", runs, "runs")
        for name, frame in runs.items():
            what = f"run {name!r}"
            _columns(frame, (query, document, score), what, "query=, document=, score=")
            text = str(name)
            parts.append((frame, Labels(np.broadcast_to(np.int32(0), (len(frame),)), (text,),  # no memory
                                        named.integers & {text}), what))
    systems = _merged([names for _, names, _ in parts], "system")
    topics = _merged([_labels(frame, query, what) for frame, _, what in parts], "topic")
    docs = DocumentIds.concatenate([_documents(frame, document, what) for frame, _, what in parts])
    numbers = [_numbers(frame, score, what, finite=False) for frame, _, what in parts]
    scores = numbers[0] if len(numbers) == 1 else np.concatenate(numbers)  # one frame's: read in place
    starts = np.cumsum([0] + [len(frame) for frame, _, _ in parts])

    def locate(error: DuplicateEntryError) -> FrameError:
        which = int(np.searchsorted(starts, error.again, side="right")) - 1
        frame, _, what = parts[which]
        error.first, error.again = error.first - starts[which], error.again - starts[which]
        return _duplicate(error, frame, f"({query}, {document})", what)

    return rank_runs(systems, topics, docs, scores, ties=ties, score_precision=score_precision, max_docs=max_docs,
                     locate=locate)
