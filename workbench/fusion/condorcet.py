"""Condorcet fusion (Montague & Aslam, Condorcet fusion for improved retrieval, CIKM 2002): a document ranks above
another when more runs rank it above the other (``condorcet``), or runs of more weight (``w_condorcet``). A run
that retrieves one of the two ranks it above the other; a run that retrieves neither abstains.

Each document scores 1 + the documents it beats + ½ the documents it ties with (Copeland's rule, 1951): where the
majority relation is a strict total order of a topic's c candidates, the i-th of them (0 first) scores c − i, which
is what ranx gives, and the fused run is that order. ranx sorts the candidates with the pairwise comparison
(Python's sort, the candidates in the order of a Python set); where the relation has a cycle (Condorcet's paradox:
a beats b beats c beats a) or a tie, its order depends on which pairs the sort compares and on the hash seed, and
its comparison is not antisymmetric (a tie, or a run retrieving neither document, votes for the second of the two
compared). Copeland's rule scores those topics the same on every run: the documents of a cycle tie, ranked by
document id descending as every ranking of the workbench. Weighted margins within 1e-12 of the total weight are
ties (weights 0.1 and 0.2 against 0.3).

    >>> runs = {"a": {"q": {"x": 3.0, "y": 2.0, "z": 1.0}}, "b": {"q": {"y": 3.0, "x": 2.0}},
    ...         "c": {"q": {"x": 2.0, "z": 1.0}}}
    >>> from workbench.fusion import fuse
    >>> fused = fuse(runs, "condorcet")
    >>> fused.documents("q"), fused.scores("q").tolist()
    (['x', 'y', 'z'], [3.0, 2.0, 1.0])
"""

from __future__ import annotations

import numpy as np

from workbench.fusion.entries import Entries

__all__ = ["copeland_scores"]

_BLOCK = 1 << 22  # margins computed for this many (run, document, document) triples at a time
_TIES = 1e-12  # margins within this share of the total weight are ties


def copeland_scores(entries: Entries, order: np.ndarray, starts: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """1 + wins + ½ ties of each (topic, document) group (``order``, ``starts``:
    :func:`~workbench.fusion.entries.groups`) in the pairwise weighted majority of the runs (``weight``: one per
    run)."""
    sizes = np.diff(np.concatenate((starts, [order.size])))
    group_of = np.empty(order.size, dtype=np.int64)
    group_of[order] = np.repeat(np.arange(starts.size), sizes)
    group_topic = entries.topic[order[starts]] if starts.size else np.zeros(0, dtype=np.int64)
    scores = np.empty(starts.size)
    by_topic = np.argsort(group_topic, kind="stable")
    bounds = np.searchsorted(group_topic[by_topic], np.arange(len(entries.topics) + 1))
    local = np.empty(starts.size, dtype=np.int64)
    tolerance = _TIES * float(np.abs(weight).sum())
    for t in range(len(entries.topics)):
        candidates = by_topic[bounds[t]:bounds[t + 1]]
        if not candidates.size:
            continue
        local[candidates] = np.arange(candidates.size)
        mine = np.flatnonzero(entries.topic == t)
        absent = int(entries.rank[mine].max()) + 1  # below every retrieved document, level with each other
        position = np.full((len(entries.names), candidates.size), absent, dtype=np.int64)
        position[entries.run[mine], local[group_of[mine]]] = entries.rank[mine]
        scores[candidates] = _copeland(position, weight, tolerance)
    return scores


def _copeland(position: np.ndarray, weight: np.ndarray, tolerance: float) -> np.ndarray:
    """1 + wins + ½ ties of each column of ``position`` (runs × candidates, lower ranks first), in blocks of
    candidates so that the margins held stay near :data:`_BLOCK` numbers."""
    runs, c = position.shape
    out = np.empty(c)
    step = max(1, _BLOCK // max(1, runs * c))
    for first in range(0, c, step):
        block = position[:, first:first + step]
        # margin[x, y] = Σ_r w_r · sign(pos_r(y) − pos_r(x)): the weight ranking x above y minus the weight
        # ranking y above x (a run retrieving neither gives 0)
        margin = np.tensordot(weight, np.sign(position[:, None, :] - block[:, :, None]), axes=1)
        wins = (margin > tolerance).sum(axis=1)
        ties = (np.abs(margin) <= tolerance).sum(axis=1) - 1  # not itself
        out[first:first + step] = 1.0 + wins + 0.5 * ties
    return out
