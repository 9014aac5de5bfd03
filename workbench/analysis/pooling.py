"""Pools of documents to judge, made from a set of runs, and the judging budget they imply (trectools'
``TrecPoolMaker.make_pool``):

* ``depth``: the union of every run's top ``depth`` documents per topic (the TREC pool; Voorhees and Harman,
  TREC, 2005, ch. 2);
* ``rrf``: the ``depth`` documents per topic of highest reciprocal-rank-fusion value Σ_runs 1 / (k + rank)
  (Cormack, Clarke and Büttcher, SIGIR 2009);
* ``rbp``: the ``depth`` documents per topic of highest rank-biased-precision weight (1 − p) p^(rank − 1), summed
  over the runs or their maximum (``merge``; Moffat, Webber and Zobel, SIGIR 2007: the weight a document carries
  in RBP with persistence p).

Ranks are the runs' own (trec_eval's order: score descending, ties by document id descending); documents of equal
RRF or RBP value at the pool's edge are taken by document id ascending. trectools ranks ``depth`` pools by score,
then id ascending, and takes RRF and RBP ranks from the file's rank column, leaving ties at the edge to its sort:
on tie-free runs whose rank column follows the scores, the pools are the same (``tests/test_pooling.py``).

    >>> runs = {"bm25": {"q1": {"d1": 3, "d2": 2, "d3": 1}}, "rm3": {"q1": {"d4": 3, "d1": 2, "d5": 1}}}
    >>> pool = make_pool(runs, depth=2)
    >>> pool.documents, pool.total
    ({'q1': ['d1', 'd2', 'd4']}, 3)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from workbench.data.trec.memory import RUN, RUNS, runs_from_dicts
from workbench.data.trec.ranked import RankedRun
from workbench.validation import AnyOf, Choices, Instance, Interval, MappingOf, validate

__all__ = ["POOL_STRATEGIES", "RBP_MERGES", "Pool", "make_pool"]

POOL_STRATEGIES = ("depth", "rrf", "rbp")
"""How :func:`make_pool` chooses the documents."""
RBP_MERGES = ("sum", "max")
"""How the ``rbp`` pool merges a document's weights over the runs."""
RANKED_RUNS = AnyOf(MappingOf(values=Instance((RankedRun,), "a RankedRun"), shortest=1,
                              what="runs {system: RankedRun} (read_runs, Campaign.runs)"), RUNS,
                    what="runs {system: RankedRun} or {system: {query: {doc: score}}}")
"""The domain of ``runs``: what :func:`~workbench.data.read.read_runs` returns or pytrec_eval's dicts."""


@dataclass(frozen=True)
class Pool:
    """The documents to judge per topic (``documents``: topic → ids, by priority for ``rrf`` and ``rbp``, by id
    for ``depth``) and the budget they imply: ``budget`` (one row per topic: ``topic, documents``), ``total``
    and ``mean`` documents per topic (trectools' ``get_total_pool_size``, ``get_mean_pool_size``); how much of a
    run's top documents it holds (:meth:`coverage`)."""

    strategy: str
    documents: dict[str, list[str]]

    @property
    def budget(self) -> pd.DataFrame:
        return pd.DataFrame({"topic": list(self.documents), "documents": [len(d) for d in self.documents.values()]})

    @property
    def total(self) -> int:
        return sum(len(d) for d in self.documents.values())

    @property
    def mean(self) -> float:
        return self.total / len(self.documents) if self.documents else 0.0

    @validate(run=AnyOf(Instance((RankedRun,), "a RankedRun"), RUN, what="a run: RankedRun or {query: {doc: score}}"),
              depth=Interval(1, 10**9, integer=True))
    def coverage(self, run: Mapping, depth: int = 10) -> float:
        """How many of ``run``'s top ``depth`` documents the pool holds, on average over the pool's topics (a topic
        the run lacks counts 0): trectools' ``TrecPool.check_coverage``."""
        ranked = run if isinstance(run, RankedRun) else runs_from_dicts({"run": run})["run"]
        held = [len(set(ranked.documents(topic)[:depth] if topic in ranked else []) & set(docs))
                for topic, docs in self.documents.items()]
        return sum(held) / len(held) if held else 0.0

    def __str__(self) -> str:
        return (f"{self.strategy} pool of {len(self.documents)} topics: {self.total} documents to judge "
                f"({self.mean:.1f} per topic)")


@validate(runs=RANKED_RUNS, strategy=Choices(POOL_STRATEGIES), depth=Interval(1, 10**9, integer=True),
          p=Interval(0, 1, low_open=True, high_open=True), merge=Choices(RBP_MERGES),
          k=Interval(0, 10**9))
def make_pool(runs: Mapping, strategy: str = "depth", depth: int = 10, *, p: float = 0.8, merge: str = "sum",
              k: float = 60) -> Pool:
    """The pool of ``runs`` by ``strategy`` (:data:`POOL_STRATEGIES`): ``depth`` documents per run and topic for
    ``depth``, per topic for ``rrf`` (denominator ``k``) and ``rbp`` (persistence ``p``, weights merged by
    ``merge``), over every topic some run holds (in the order first seen)."""
    ranked = runs if all(isinstance(run, RankedRun) for run in runs.values()) else runs_from_dicts(runs)
    topics = list(dict.fromkeys(topic for run in ranked.values() for topic in run))
    pooled: dict[str, list[str]] = {}
    for topic in topics:
        rankings = [run.documents(topic) for run in ranked.values() if topic in run]
        if strategy == "depth":
            pooled[topic] = sorted({doc for ranking in rankings for doc in ranking[:depth]})
            continue
        value: dict[str, float] = {}
        for ranking in rankings:
            for rank, doc in enumerate(ranking, start=1):
                weight = 1.0 / (k + rank) if strategy == "rrf" else (1.0 - p) * p ** (rank - 1)
                value[doc] = max(value.get(doc, 0.0), weight) if strategy == "rbp" and merge == "max" else (
                    value.get(doc, 0.0) + weight)
        pooled[topic] = sorted(value, key=lambda doc: (-value[doc], doc))[:depth]
    return Pool(strategy, pooled)
