"""Score normalisation of runs before fusion, per run and topic, as ranx defines it (Bassani & Romelli, ranx.fuse,
CIKM 2022): ``min-max`` (s − min) / (max − min); ``min-max-inverted`` (max − s) / (max − min), for runs whose lower
scores are better (distances), the run then ranked by it (lowest score first, as ranx sorts it); ``max`` s / max;
``sum`` (s − min) / (Σs − n·min); ``zmuv`` (s − mean) / std (zero mean, unit variance; population std); ``rank``
1 − rank / n; ``borda`` over the runs together, 1 − rank / |candidates| for a retrieved document and
0.5 − (n − 1) / (2 |candidates|) for a candidate (retrieved by another run) the run lacks, which then counts as
retrieved. A denominator below 1e-9 is 1e-9, as in ranx (a one-document topic scores 0 under min-max and
min-max-inverted).

    >>> run = {"q": {"a": 3.0, "b": 1.0, "c": 2.0}}
    >>> [normalize(run, m).scores("q").tolist() for m in ("min-max", "rank")]
    [[1.0, 0.5, 0.0], [1.0, 0.6666666666666667, 0.33333333333333337]]
    >>> inverted = normalize(run, "min-max-inverted")
    >>> inverted.documents("q"), inverted.scores("q").tolist()
    (['b', 'c', 'a'], [1.0, 0.5, 0.0])
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from workbench.data.trec.ranked import RankedRun, rank_runs
from workbench.fusion.entries import Entries, FusionError, groups, lay_out
from workbench.metrics.ranking.table import trec_eval_order

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
_FLOOR = 1e-9  # ranx's smallest denominator


def _segment(values: np.ndarray, starts: np.ndarray, segment_of: np.ndarray, ufunc) -> np.ndarray:
    """``ufunc.reduceat`` over each (run, topic) segment, spread back to the entries."""
    return ufunc.reduceat(values, starts)[segment_of] if values.size else values


def normalized(entries: Entries, norm: str | None) -> tuple[Entries, np.ndarray]:
    """The entries (with, for ``borda``, a new entry for every candidate a run lacks: rank −1) and each entry's
    normalised score."""
    if norm is None:
        return entries, entries.score.astype(float)
    if norm not in NORMS:
        raise FusionError(f"norm must be one of {', '.join(NORMS)} or None, got {norm!r}")
    if norm == "borda":
        return _borda(entries)
    segment, starts = entries.segments()
    segment_of = np.cumsum(np.concatenate(([False], segment[1:] != segment[:-1]))) if segment.size else segment
    s = entries.score.astype(float)
    n = entries.size.ravel()[segment].astype(float)
    if norm == "rank":
        return entries, 1.0 - entries.rank / n
    low = _segment(s, starts, segment_of, np.minimum)
    if norm == "min-max":
        return entries, (s - low) / np.maximum(_segment(s, starts, segment_of, np.maximum) - low, _FLOOR)
    if norm == "min-max-inverted":
        high = _segment(s, starts, segment_of, np.maximum)
        return _ranked_again(entries, (high - s) / np.maximum(high - low, _FLOOR), segment_of)
    if norm == "max":
        return entries, s / np.maximum(_segment(s, starts, segment_of, np.maximum), _FLOOR)
    if norm == "sum":
        return entries, (s - low) / np.maximum(_segment(s, starts, segment_of, np.add) - low * n, _FLOOR)
    mean = _segment(s, starts, segment_of, np.add) / n
    std = np.sqrt(_segment((s - mean) ** 2, starts, segment_of, np.add) / n)
    return entries, (s - mean) / np.maximum(std, _FLOOR)


def _ranked_again(entries: Entries, values: np.ndarray, segment_of: np.ndarray) -> tuple[Entries, np.ndarray]:
    """The entries of each (run, topic) ranked by ``values`` (trec_eval's order: descending, then document id
    descending), their ranks renumbered: the ranking a rank-based method reads after ``min-max-inverted``."""
    order = trec_eval_order(values, entries.ids, groups=segment_of)
    starts = np.flatnonzero(np.concatenate(([True], segment_of[1:] != segment_of[:-1]))) if order.size else order
    rank = np.arange(order.size) - starts[segment_of]
    return replace(entries, run=entries.run[order], topic=entries.topic[order], ids=entries.ids.take(order),
                   score=entries.score[order], rank=rank), values[order]


def _borda(entries: Entries) -> tuple[Entries, np.ndarray]:
    order, starts = groups(entries)
    n_runs = len(entries.names)
    group_of = np.empty(order.size, dtype=np.int64)
    group_of[order] = np.repeat(np.arange(starts.size), np.diff(np.concatenate((starts, [order.size]))))
    present = np.zeros((starts.size, n_runs), dtype=bool)
    present[group_of, entries.run] = True
    group_topic = entries.topic[order[starts]]
    candidates = np.bincount(group_topic, minlength=len(entries.topics)).astype(float)
    missing_group, missing_run = np.nonzero(~present)
    topic = group_topic[missing_group]
    absent = 0.5 - (entries.size[missing_run, topic] - 1) / (2 * candidates[topic])
    kept = 1.0 - entries.rank / candidates[entries.topic]
    extended = Entries(entries.names, entries.topics, np.concatenate((entries.run, missing_run)),
                       np.concatenate((entries.topic, topic)),
                       _concat_ids(entries, order[starts][missing_group]),
                       np.concatenate((entries.score, np.full(topic.size, np.nan))),
                       np.concatenate((entries.rank, np.full(topic.size, -1))), entries.size)
    by_run = np.lexsort((extended.topic, extended.run))  # grouped by run then topic again
    values = np.concatenate((kept, absent))[by_run]
    return replace(extended, run=extended.run[by_run], topic=extended.topic[by_run],
                   ids=extended.ids.take(by_run), score=extended.score[by_run], rank=extended.rank[by_run]), values


def _concat_ids(entries: Entries, more: np.ndarray):
    from workbench.ids import DocumentIds

    return DocumentIds.concatenate([entries.ids, entries.ids.take(more)])


def normalize(runs, method: str = "min-max"):
    """Each run's scores normalised per topic (:data:`NORMS`), as runs of the same shape: one run (a read run or
    ``{topic: {document: score}}``) gives one :class:`~workbench.data.trec.ranked.RankedRun`, ``{system: run}`` or a
    list gives ``{system: RankedRun}``; ``borda`` normalises several runs together (each then ranks every
    candidate)."""
    single = isinstance(runs, RankedRun) or (isinstance(runs, dict) and runs and
                                             all(isinstance(v, dict) and all(not isinstance(x, dict)
                                                                            for x in v.values())
                                                 for v in runs.values()))
    if method is None or method not in NORMS:
        raise FusionError(f"method must be one of {', '.join(NORMS)}, got {method!r}")
    if single and method == "borda":
        raise FusionError("borda normalises several runs together (its candidates are every run's documents): "
                          "give {system: run}, or use rank for one run")
    entries, values = normalized(lay_out({"run": runs} if single else runs, topics="union", at_least=1), method)
    out = {}
    for r, name in enumerate(entries.names):
        mine = entries.run == r
        topics = np.asarray(entries.topics, dtype=object)[entries.topic[mine]]
        out[name] = rank_runs(None, topics, entries.ids.take(mine), values[mine])[""]
    return out["run"] if single else out

