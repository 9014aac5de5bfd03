"""Interpolated precision–recall curves over a :class:`~workbench.metrics.ranking.table.GainTable`.

Interpolated precision at recall r is the best precision at any rank where recall reaches r (Manning,
Raghavan & Schütze, *Introduction to IR* §8.4), with trec_eval's rule for "reaches" (``iprec_at_recall``):
r needs n(r) of the R relevant documents found, and a level beyond what the run finds is 0. ``rule="round"``
is trec_eval 10's n(r) = round(r·R) (halves up, C's ``lround``); ``rule="v9"`` is trec_eval 9's
⌊r·R + 0.9⌋, which pytrec_eval keeps. The 11-point curve takes r = 0, 0.1, …, 1; the full curve every level
k/R a topic can reach (:func:`recall_levels`), where both rules give k.

    >>> from workbench.metrics.ranking.table import GainTable
    >>> t = GainTable.from_gains([[1, 0, 1, 0, 0, 1]], [[1, 1, 1, 1]])  # R = 4, 3 found at ranks 1, 3, 6
    >>> interpolated_precision(t, [0.0, 0.25, 0.5, 0.75, 1.0]).round(4).tolist()
    [[1.0, 1.0, 0.6667, 0.5, 0.0]]
    >>> interpolated_precision(t, [0.3]).round(4).tolist(), interpolated_precision(t, [0.3], rule="v9").tolist()
    ([[1.0]], [[0.6666666666666666]])
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from workbench.metrics.ranking.table import RELEVANCE_LEVEL, GainTable, relevant_ranks
from workbench.validation import Choices, Interval, Numbers, validate

__all__ = ["ELEVEN_POINTS", "RULES", "RULE", "RECALL_LEVEL", "RECALL_LEVELS", "interpolated_precision",
           "interpolation_ranks", "recall_levels"]

ELEVEN_POINTS = tuple(i / 10 for i in range(11))
RULES = ("round", "v9")
RULE = Choices(RULES)
"""The domain of ``rule``: trec_eval 10's n(r) = round(r·R), or trec_eval 9's ⌊r·R + 0.9⌋."""
RECALL_LEVEL = Interval(0, 1)
"""The domain of a recall level."""
RECALL_LEVELS = Numbers(low=RECALL_LEVEL.low, high=RECALL_LEVEL.high)
"""The domain of the recall levels of a curve: an array of them."""


@validate(recall=RECALL_LEVELS, rel=RELEVANCE_LEVEL, rule=RULE)
def interpolated_precision(table: GainTable, recall: Iterable[float] = ELEVEN_POINTS,
                           rel: float = 1.0, rule: str = "round") -> np.ndarray:
    """Interpolated precision of every query (rows) at every recall level (columns).

    A document is relevant when its gain reaches ``rel``; a query without relevant documents is 0
    throughout (as trec_eval). ``rule`` counts the relevant documents a level needs (module docstring).
    Vectorised: a level needing n relevant documents reads the best precision at or after the n-th one, a
    reversed running maximum over the relevant documents alone (:func:`_best_from_each_relevant`).
    """
    needed, reached = _needed(table, recall, rel, rule)
    best = table.shared(_best_from_each_relevant, rel)
    at = np.minimum(np.maximum(needed - 1, 0), best.shape[1] - 1)  # none needed: the best of all
    return np.where(reached, best[np.arange(needed.shape[0])[:, None], at], 0.0)


def _best_from_each_relevant(table: GainTable, rel: float) -> np.ndarray:
    """Row by row, the best precision at or after its j-th relevant retrieved document (column j, from 0), then 0s:
    the precision at every rank's envelope (:func:`_envelope`) read at the relevant ranks only, where it changes
    (2,000 topics × 1,000 ranks, 7% relevant: a matrix of 2,000 × 74 rather than 2,000 × 1,001; trec_eval's eleven
    ``iprec_at_recall`` levels 30 → 9 ms), found as AP, infAP and bpref find them (:func:`~workbench.metrics.ranking.
    table.relevant_ranks`: the j-th relevant rank of a row has j + 1 relevant documents at or above it; with the ranks
    AP found, 10 → 3 ms)."""
    at = relevant_ranks(table, rel)  # row by row, in rank order
    precision = np.zeros((at.n_rows, int(at.counts.max(initial=0)) + 1))
    precision[at.rows, at.ordinals - 1] = at.ordinals / np.arange(1, table.gains.shape[1] + 1)[at.columns]
    return np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]


@validate(recall=RECALL_LEVELS, rel=RELEVANCE_LEVEL, rule=RULE)
def interpolation_ranks(table: GainTable, recall: Iterable[float] = ELEVEN_POINTS, rel: float = 1.0,
                        rule: str = "round") -> tuple[np.ndarray, np.ndarray]:
    """For every query (rows) and recall level (columns), the rank index (from 0) whose precision
    :func:`interpolated_precision` takes (the first best one at or after the rank where the level is reached),
    and whether that precision counts (a level the run does not reach, or one whose best precision is 0,
    takes none): the interpolated precision is the share of relevant documents down to that rank.

    >>> t = GainTable.from_gains([[1, 0, 1, 0, 0, 1]], [[1, 1, 1, 1]])
    >>> index, counts = interpolation_ranks(t, [0.5, 0.75])
    >>> index.tolist(), counts.tolist()
    ([[2, 5]], [[True, True]])
    """
    precision, best_after, index, reached = _interpolation(table, recall, rel, rule)
    n_queries, width = precision.shape
    best = (precision == best_after[:, :width]) & (precision > 0)
    positions = np.where(best, np.arange(width)[None, :], width)
    following = np.minimum.accumulate(positions[:, ::-1], axis=1)[:, ::-1]  # the first best rank at or after
    following = np.hstack([following, np.full((n_queries, 1), width)])
    at = following[np.arange(n_queries)[:, None], np.minimum(index, width)]
    return at, reached & (at < width)


def _interpolation(table: GainTable, recall: Iterable[float], rel: float,
                   rule: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Precision at the relevant ranks (0 elsewhere), its best at or after each rank (one more column: nothing
    found), the rank index where each level's n(r) relevant documents are found, and whether it is reached."""
    precision, best_after = table.shared(_envelope, rel)  # one per table and level: recall levels share it
    n_queries, width = precision.shape
    needed, reached = _needed(table, recall, rel, rule)
    # rank index of the needed-th relevant document: rows are made one sorted array by an offset per row
    offset = np.arange(n_queries, dtype=np.int64)[:, None] * (width + 1)
    keys = table.shared(_counts_in_one_order, rel)
    index = np.searchsorted(keys, (np.maximum(needed, 1) + offset).ravel()).reshape(needed.shape)
    index = np.where(needed == 0, 0, index - np.arange(n_queries)[:, None] * width)
    return precision, best_after, index, reached


def _needed(table: GainTable, recall: Iterable[float], rel: float, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """For every query (rows) and recall level (columns), the relevant documents the level needs, and whether the
    run retrieves that many."""
    levels = np.asarray(recall, dtype=float)
    share = levels[None, :] * table.n_relevant(rel)[:, None]
    if rule == "round":  # lround: the fraction compared exactly (share + 0.5 could round up)
        whole = np.floor(share)
        needed = (whole + (share - whole >= 0.5)).astype(np.int64)
    else:
        needed = np.floor(share + 0.9).astype(np.int64)
    return needed, needed <= relevant_ranks(table, rel).counts[:, None]  # the relevant documents retrieved


def _counts_in_one_order(table: GainTable, rel: float) -> np.ndarray:
    """Every row's running count of relevant documents (:meth:`~workbench.metrics.ranking.table.GainTable.
    relevant_counts`) as one sorted array, row ``i``'s offset by ``i · (width + 1)``, so that one sorted search finds
    the rank of any row's n-th relevant document (:func:`interpolation_ranks`); made once per table and shared by
    every recall level.

    >>> _counts_in_one_order(GainTable.from_gains([[1, 0], [0, 1]], [[1], [1]]), 1.0).tolist()
    [1, 1, 3, 4]
    """
    found = table.relevant_counts(rel)
    offset = np.arange(found.shape[0], dtype=np.int64)[:, None] * (found.shape[1] + 1)
    return (found + offset).ravel()


def _envelope(table: GainTable, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Precision at the relevant ranks (0 elsewhere) and its best at or after each rank, with one more column:
    nothing found."""
    relevant = table.relevant(rel)
    precision = np.where(relevant, table.relevant_counts(rel) / np.arange(1, relevant.shape[1] + 1), 0.0)
    best_after = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    return precision, np.hstack([best_after, np.zeros((relevant.shape[0], 1))])


def recall_levels(n_relevant: Iterable[int]) -> np.ndarray:
    """Every recall level k/R (k = 0..R) of queries with R relevant documents each, sorted, for the full
    curve: at its own levels a query's curve is exact.

    >>> recall_levels([2, 4]).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    counts = [int(r) for r in n_relevant if r > 0]
    points = np.concatenate([np.arange(r + 1) / r for r in counts]) if counts else np.zeros(1)
    return np.unique(np.concatenate([points, [0.0]]))
