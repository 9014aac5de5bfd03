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

Ids are read as strings (``str()``: the integer 301 is the topic ``"301"``); relevance and scores must be
numbers, kept as given (numeric text is read as Python reads it; booleans are refused). Bad input raises
:class:`~workbench.data.trec.errors.FrameError` naming the column and the first offending row.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping

import numpy as np
import pandas as pd

from workbench.data.trec.errors import FrameError
from workbench.data.trec.lines import Labels
from workbench.data.trec.ranked import DuplicateEntryError, Judgements, RankedRun, judgements, rank_runs
from workbench.errors import quoted

SYSTEM_COLUMNS = ("system", "run")


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _row(frame: pd.DataFrame, position: int) -> str:
    """``row 3`` (the position), with the index label when it says something else."""
    label = _plain(frame.index[position])
    return f"row {position}" if label == position else f"row {position} (index {label!r})"


def _ids(frame: pd.DataFrame, column: str, what: str) -> np.ndarray:
    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        raise FrameError(f"{what}: column {column!r} is missing a value at {_row(frame, int(np.argmax(missing)))}")
    return np.asarray(values.astype(str).to_numpy(), dtype=object)


def _labels(values: np.ndarray) -> Labels:
    """Codes in order of first appearance (pandas' hash table: no sort of millions of strings)."""
    codes, names = pd.factorize(values)
    return Labels(codes.astype(np.int64), tuple(str(name) for name in names))


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
    unread = np.flatnonzero(np.isnan(numbers) & values.notna().to_numpy())
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


def _columns(frame, needed: tuple[str, ...], what: str, keywords: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise FrameError(f"{what}: expected a DataFrame, got {type(frame).__name__}")
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
def judgements_from_frame(frame: pd.DataFrame, *, query: str = "query_id", document: str = "doc_id",
                          relevance: str = "relevance") -> Judgements:
    """Graded judgements from a long frame ``query_id, doc_id, relevance`` (other columns ignored)."""
    what = "qrels"
    _columns(frame, (query, document, relevance), what, "query=, document=, relevance=")
    topics, docs = _labels(_ids(frame, query, what)), _ids(frame, document, what)
    grades = _numbers(frame, relevance, what, finite=True)
    return judgements(topics, docs, grades, locate=lambda error: _duplicate(error, frame, f"({query}, {document})",
                                                                            what))


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
        parts = [(runs, _ids(runs, system, "runs"), "runs")]
    elif isinstance(runs, Mapping) and runs:
        parts = []
        for name, frame in runs.items():
            what = f"run {name!r}"
            _columns(frame, (query, document, score), what, "query=, document=, score=")
            parts.append((frame, np.full(len(frame), str(name), dtype=object), what))
    else:
        raise FrameError("runs: expected a DataFrame with a system column or a non-empty dict {system: frame}")
    systems = _labels(np.concatenate([names for _, names, _ in parts]))
    topics = _labels(np.concatenate([_ids(frame, query, what) for frame, _, what in parts]))
    docs = np.concatenate([_ids(frame, document, what) for frame, _, what in parts])
    scores = np.concatenate([_numbers(frame, score, what, finite=False) for frame, _, what in parts])
    starts = np.cumsum([0] + [len(frame) for frame, _, _ in parts])

    def locate(error: DuplicateEntryError) -> FrameError:
        which = int(np.searchsorted(starts, error.again, side="right")) - 1
        frame, _, what = parts[which]
        error.first, error.again = error.first - starts[which], error.again - starts[which]
        return _duplicate(error, frame, f"({query}, {document})", what)

    return rank_runs(systems, topics, docs, scores, ties=ties, score_precision=score_precision, max_docs=max_docs,
                     locate=locate)
