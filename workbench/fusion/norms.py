"""Score normalisation of runs before fusion, per run and topic, as ranx defines it (Bassani & Romelli, ranx.fuse,
CIKM 2022): ``min-max`` (s − min) / (max − min) (Lee, SIGIR 1997); ``min-max-inverted`` (max − s) / (max − min),
for runs whose lower scores are better (distances), the run then ranked by it (lowest score first, as ranx sorts
it); ``max`` s / max; ``sum`` (s − min) / Σ(s − min)
and ``zmuv`` (s − mean) / std, the population std (Montague & Aslam, CIKM 2001); ``rank`` 1 − rank / n; ``borda``
over the runs together, 1 − rank / |candidates| for a retrieved document and 0.5 − (n − 1) / (2 |candidates|) for a
candidate (retrieved by another run) the run lacks, which then counts as retrieved. Ranks are trec_eval's order
(score descending, then document id descending), 0 for the first document.

Degenerate topics, one rule each:

* a topic whose scores are all equal (a single document, all zero) scores 0 under min-max, min-max-inverted, sum
  and zmuv (ranx's
  rule: every score is the minimum and the mean), 1 − rank / n under rank;
* ``max`` needs a positive highest score: a topic whose scores are all 0 scores 0, one whose highest score is
  negative (or 0 beside negative ones) is refused (:class:`~workbench.fusion.entries.FusionScoreError` naming the
  system and the topic: dividing by it reverses or blows up the scores), as is a quotient beyond a double's range;
* no floor on the denominators: ranx divides by at least 1e-9, which rescales a topic whose range, highest score,
  sum or std is below 1e-9 (and multiplies all-negative scores by 1e9 under max); here min-max, max, sum and zmuv
  are unchanged when every score of a topic is multiplied by a positive number, so scores of 1e-300 or 1e300
  normalise as the same scores near 1 do (for min-max, sum and zmuv each topic is divided by a power of two
  first, exactly, so that no difference, sum or square overflows). ranx's values are these wherever its
  denominators are at least 1e-9 or 0;
* infinite scores never get here: :func:`~workbench.fusion.entries.lay_out` refuses them.

    >>> run = {"q": {"a": 3.0, "b": 1.0, "c": 2.0}}
    >>> [normalize(run, m).scores("q").tolist() for m in ("min-max", "rank")]
    [[1.0, 0.5, 0.0], [1.0, 0.6666666666666667, 0.33333333333333337]]
    >>> normalize({"q": {"a": 1e-300, "b": 3e-300}}, "min-max").scores("q").tolist()
    [1.0, 0.0]
    >>> inverted = normalize(run, "min-max-inverted")
    >>> inverted.documents("q"), inverted.scores("q").tolist()
    (['b', 'c', 'a'], [1.0, 0.5, 0.0])
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from workbench.data.trec.ranked import RankedRun, rank_runs
from workbench.fusion.declare import NotedChoices
from workbench.fusion.entries import Entries, FusionScoreError, Runs, describe, groups, lay_out
from workbench.metrics.ranking.table import trec_eval_order
from workbench.validation import Choices, check, validate

__all__ = ["NORMS", "normalized", "normalize"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
ONE_RUN = NotedChoices(tuple(norm for norm in NORMS if norm != "borda"),
                       "borda normalises several runs together, its candidates every run's documents: give "
                       "{system: run}, or use rank for one run")
"""The normalisations of one run alone."""


def _segment(values: np.ndarray, starts: np.ndarray, segment_of: np.ndarray, ufunc) -> np.ndarray:
    """``ufunc.reduceat`` over each (run, topic) segment, spread back to the entries."""
    return ufunc.reduceat(values, starts)[segment_of] if values.size else values


def _scaled(score: np.ndarray, starts: np.ndarray, segment_of: np.ndarray) -> np.ndarray:
    """Each segment's scores divided by the power of two that brings its largest magnitude into [0.5, 1): exact
    (but for scores below 2**-1022 of that magnitude, which round as subnormals), and then no difference, sum or
    square of n of them overflows."""
    if not score.size:
        return score
    _, exponent = np.frexp(np.maximum.reduceat(np.abs(score), starts))
    return np.ldexp(score, -exponent[segment_of])


def _quotient(numerator: np.ndarray, denominator: np.ndarray, degenerate: np.ndarray) -> np.ndarray:
    """numerator / denominator, and 0 where ``degenerate`` (a constant topic)."""
    return np.where(degenerate, 0.0, numerator / np.where(degenerate, 1.0, denominator))


def normalized(entries: Entries, norm: str | None) -> tuple[Entries, np.ndarray]:
    """The entries (with, for ``borda``, a new entry for every candidate a run lacks: rank −1) and each entry's
    normalised score."""
    if norm is None:
        return entries, entries.score.astype(float)
    if norm == "borda":
        return _borda(entries)
    segment, starts = entries.segments()
    segment_of = np.cumsum(np.concatenate(([False], segment[1:] != segment[:-1]))) if segment.size else segment
    n = entries.size.ravel()[segment].astype(float)
    if norm == "rank":
        return entries, 1.0 - entries.rank / n
    if norm == "max":
        return entries, _max_normalized(entries, starts, segment_of)
    s = _scaled(entries.score.astype(float), starts, segment_of)
    low, high = _segment(s, starts, segment_of, np.minimum), _segment(s, starts, segment_of, np.maximum)
    constant = high == low
    if norm == "min-max":
        return entries, _quotient(s - low, high - low, constant)
    if norm == "min-max-inverted":
        return _ranked_again(entries, _quotient(high - s, high - low, constant), segment_of)
    if norm == "sum":
        return entries, _quotient(s - low, _segment(s - low, starts, segment_of, np.add), constant)
    # zmuv: deviations from the mean of s − min, exact where the scores differ in their last bits
    shifted = s - low
    deviation = shifted - _segment(shifted, starts, segment_of, np.add) / n
    std = np.sqrt(_segment(deviation * deviation, starts, segment_of, np.add) / n)
    return entries, _quotient(deviation, std, constant)


def _max_normalized(entries: Entries, starts: np.ndarray, segment_of: np.ndarray) -> np.ndarray:
    """s / max where the highest score is positive, 0 where all are 0; :class:`FusionScoreError` otherwise. The
    scores as given (a quotient cannot overflow but where the true one does)."""
    top = np.maximum.reduceat(entries.score, starts)
    zero = (top == 0) & (np.minimum.reduceat(entries.score, starts) == 0)
    refused = np.flatnonzero((top <= 0) & ~zero)
    if refused.size:
        raise FusionScoreError(f"max normalisation divides by the topic's highest score, which must be positive: "
                               f"{describe(entries, int(starts[refused[0]]), document=False)} has highest score "
                               f"{float(top[refused[0]])} (dividing by it reverses or inflates the scores); use "
                               "min-max, sum or zmuv, which shift the scores first")
    with np.errstate(over="ignore"):  # a quotient beyond a double's range: refused below, named
        values = _quotient(entries.score.astype(float), top[segment_of], zero[segment_of])
    overflow = np.flatnonzero(~np.isfinite(values))
    if overflow.size:
        i = int(overflow[0])
        raise FusionScoreError(f"max normalisation: {describe(entries, i)} has score {float(entries.score[i])}, "
                               "which divided by the topic's highest overflows a double; use min-max, sum or zmuv")
    return values


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


@validate(runs=Runs(fewest=1, alone=True), method=Choices(NORMS))
def normalize(runs, method: str = "min-max"):
    """Each run's scores normalised per topic (:data:`NORMS`), as runs of the same shape: one run (a read run or
    ``{topic: {document: score}}``) gives one :class:`~workbench.data.trec.ranked.RankedRun`, ``{system: run}`` or a
    list gives ``{system: RankedRun}``; ``borda`` normalises several runs together (each then ranks every
    candidate)."""
    single = isinstance(runs, RankedRun) or (isinstance(runs, dict) and runs and
                                             all(isinstance(v, dict) and all(not isinstance(x, dict)
                                                                            for x in v.values())
                                                 for v in runs.values()))
    if single:
        check(method, ONE_RUN, "method", "normalize")
    entries, values = normalized(lay_out({"run": runs} if single else runs, topics="union"), method)
    out = {}
    for r, name in enumerate(entries.names):
        mine = entries.run == r
        topics = np.asarray(entries.topics, dtype=object)[entries.topic[mine]]
        out[name] = rank_runs(None, topics, entries.ids.take(mine), values[mine])[""]
    return out["run"] if single else out

