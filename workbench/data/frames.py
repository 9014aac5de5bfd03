"""Judgements and runs from what users hold in memory: DataFrames in long format, pytrec_eval-style dicts and
ir_datasets-style namedtuples, through the same arrays and the same trec_eval ranking as TREC files
(:mod:`workbench.data.ranked`), so that the same data gives the same scores whichever door it came in by.

    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [0.2, 0.9]})
    >>> runs_from_frames({"bm25": run})["bm25"].documents("q1")
    ['d2', 'd1']
    >>> judgements_from_frame(qrels)["q1"].format()
    '[1] d1'

Ids are read as strings (``str()``: the integer 301 is the topic ``"301"``); relevance and scores must be
numbers (numeric text is read as a number, as in a file; booleans are refused). Bad input raises
:class:`FrameError` naming the column and the first offending row.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from workbench.data.ranked import DuplicateEntryError, Judgements, RankedRun, judgements, rank_runs
from workbench.errors import WorkbenchError

SYSTEM_COLUMNS = ("system", "run")


class FrameError(WorkbenchError):
    """A DataFrame, dict or record that cannot be read as judgements or a run: names the column and the
    first offending row."""


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


def _numbers(frame: pd.DataFrame, column: str, what: str, finite: bool) -> np.ndarray:
    values = frame[column]
    if pd.api.types.is_bool_dtype(values):
        raise FrameError(f"{what}: column {column!r} holds booleans, not numbers (e.g. .astype(int) says "
                         "which grade True is)")
    numbers = np.asarray(pd.to_numeric(values, errors="coerce"), dtype=float)
    bad = np.isnan(numbers) | (np.isinf(numbers) if finite else False)
    if bad.any():
        at = int(np.argmax(bad))
        given = values.iloc[at]
        reason = ("is infinite" if np.isinf(numbers[at]) else "is missing (NaN)" if pd.isna(given)
                  else "is not a number")
        raise FrameError(f"{what}: column {column!r} {reason} at {_row(frame, at)}: {_plain(given)!r}")
    return numbers


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
    topics, docs = _ids(frame, query, what), _ids(frame, document, what)
    grades = _numbers(frame, relevance, what, finite=True)
    try:
        return judgements(topics, docs, grades)
    except DuplicateEntryError as error:
        raise _duplicate(error, frame, f"({query}, {document})", what) from None


def runs_from_frames(runs: pd.DataFrame | Mapping[str, pd.DataFrame], *, query: str = "query_id",
                     document: str = "doc_id", score: str = "score", system: str | None = None,
                     ties: str = "trec_eval", score_precision: str = "float32",
                     max_docs: int | None = None) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` from one long frame ``query_id, doc_id, score`` with a system column (``system``,
    by default ``"system"`` or else ``"run"``), or from ``{system: frame}``; ranked as
    :func:`~workbench.data.ranked.rank_runs` ranks a TREC file."""
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
    systems = np.concatenate([names for _, names, _ in parts])
    topics = np.concatenate([_ids(frame, query, what) for frame, _, what in parts])
    docs = np.concatenate([_ids(frame, document, what) for frame, _, what in parts])
    scores = np.concatenate([_numbers(frame, score, what, finite=False) for frame, _, what in parts])
    try:
        return rank_runs(systems, topics, docs, scores, ties=ties, score_precision=score_precision,
                         max_docs=max_docs)
    except DuplicateEntryError as error:
        starts = np.cumsum([0] + [len(frame) for frame, _, _ in parts])
        which = int(np.searchsorted(starts, error.again, side="right")) - 1
        frame, _, what = parts[which]
        error.first, error.again = error.first - starts[which], error.again - starts[which]
        raise _duplicate(error, frame, f"({query}, {document})", what) from None


# ----------------------------------------------------------------------------------------------- dicts
def _frame_from_dict(nested: Mapping, value: str, what: str) -> pd.DataFrame:
    """``{query: {doc: value}}`` as a long frame indexed by ``(query, doc)`` (so errors name the pair)."""
    if not isinstance(nested, Mapping):
        raise FrameError(f"{what}: expected a dict {{query: {{doc: {value}}}}}, got {type(nested).__name__}")
    pairs, values = [], []
    for query, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise FrameError(f"{what}: the value of query {query!r} is a {type(docs).__name__}, expected a "
                             f"dict {{doc: {value}}}")
        pairs.extend((query, doc) for doc in docs)
        values.extend(docs.values())
    return pd.DataFrame({"query_id": [q for q, _ in pairs], "doc_id": [d for _, d in pairs],
                         value: pd.Series(values, dtype=object).to_numpy()},
                        index=pd.MultiIndex.from_tuples(pairs) if pairs else None)


def judgements_from_dicts(qrels: Mapping[str, Mapping[str, float]]) -> Judgements:
    """Judgements from pytrec_eval's ``{query: {doc: relevance}}``."""
    return judgements_from_frame(_frame_from_dict(qrels, "relevance", "qrels"))


def runs_from_dicts(runs: Mapping[str, Mapping[str, Mapping[str, float]]], *, ties: str = "trec_eval",
                    score_precision: str = "float32", max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: {query: {doc: score}}}`` (each run as pytrec_eval takes it)."""
    if not isinstance(runs, Mapping) or not runs:
        raise FrameError("runs: expected a non-empty dict {system: {query: {doc: score}}}")
    frames = {}
    for name, run in runs.items():
        if isinstance(run, Mapping) and any(not isinstance(v, Mapping) for v in run.values()):
            raise FrameError(f"runs: the value of {name!r} is not a run {{query: {{doc: score}}}}; give the "
                             "runs as {system: run}, e.g. {'bm25': run}")
        frames[name] = _frame_from_dict(run, "score", f"run {name!r}")
    return runs_from_frames(frames, ties=ties, score_precision=score_precision, max_docs=max_docs)


# ------------------------------------------------------------------------------------------ namedtuples
def _frame_from_records(records: Iterable, fields: tuple[str, ...], what: str) -> pd.DataFrame:
    rows = list(records)
    if rows and not all(hasattr(rows[0], name) for name in fields):
        raise FrameError(f"{what}: records need the fields {', '.join(fields)} (as ir_datasets' namedtuples), "
                         f"the first is {rows[0]!r}")
    return pd.DataFrame({name: [getattr(row, name) for row in rows] for name in fields})


def judgements_from_namedtuples(qrels: Iterable) -> Judgements:
    """Judgements from any iterable of records with ``query_id, doc_id, relevance`` (ir_datasets' TrecQrel)."""
    return judgements_from_frame(_frame_from_records(qrels, ("query_id", "doc_id", "relevance"), "qrels"))


def runs_from_namedtuples(runs: Mapping[str, Iterable], *, ties: str = "trec_eval", score_precision: str = "float32",
                          max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: records}``, each record with ``query_id, doc_id, score`` (ir_datasets'
    ScoredDoc)."""
    if not isinstance(runs, Mapping) or not runs:
        raise FrameError("runs: expected a non-empty dict {system: iterable of (query_id, doc_id, score)}")
    frames = {name: _frame_from_records(records, ("query_id", "doc_id", "score"), f"run {name!r}")
              for name, records in runs.items()}
    return runs_from_frames(frames, ties=ties, score_precision=score_precision, max_docs=max_docs)
