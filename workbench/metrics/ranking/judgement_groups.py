"""trec_eval's measures over judgement groups (``-R qrels_jg``): each topic judged by several users (judgement
groups, JGs), a measure computed against each JG's judgements and averaged over the topic's JGs
(``form_res_rels_jg.c``, ``m_map_avgjg.c``, ``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c``).

The kernels read a :class:`~workbench.metrics.ranking.table.GainTable` with one row per (topic, JG), the run's
ranking of the topic joined to that JG's judgements, and ``groups``, each row's topic (0 … ``n_topics`` − 1,
rows of a topic together, JGs in trec_eval's order). Each JG's values are added in row order and divided by
the topic's number of JGs when it has more than one, as trec_eval does::

    >>> t = GainTable.from_gains([[1, 0, 1], [0, 1, 0]], [[1, 1], [1, 1]])  # one topic, two JGs
    >>> map_avgjg(t, np.array([0, 0]), 1).tolist()  # (AP 5/6 + AP 1/4) / 2
    [0.5416666666666666]
    >>> precision_avgjg(t, np.array([0, 0]), 1, k=2).tolist()  # (1/2 + 1/2) / 2
    [0.5]
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking.kernels import average_precision, precision_at
from workbench.metrics.ranking.table import GainTable

__all__ = ["average_over_groups", "map_avgjg", "precision_avgjg", "r_precision_multiple_avgjg"]


def average_over_groups(values: np.ndarray, groups: np.ndarray, n_topics: int) -> np.ndarray:
    """Per topic, its rows' values added one by one in row order, divided by the number of rows where it is
    above 1 (each ``m_*_avgjg.c``'s ``value += …`` per JG, then ``/= num_jgs``)."""
    groups = np.asarray(groups, dtype=np.int64)
    sizes = np.bincount(groups, minlength=n_topics)
    place = np.arange(groups.size) - (np.cumsum(sizes) - sizes)[groups]
    laid = np.zeros((n_topics, int(sizes.max(initial=0))))
    laid[groups, place] = values
    totals = np.cumsum(laid, axis=1)[:, -1] if laid.shape[1] else np.zeros(n_topics)
    return np.where(sizes > 1, totals / np.maximum(sizes, 1), totals)


def map_avgjg(table: GainTable, groups: np.ndarray, n_topics: int, rel: float = 1) -> np.ndarray:
    """Average precision against each JG (the precisions at its relevant retrieved documents added rank by
    rank, over its relevant documents), averaged over the topic's JGs (``m_map_avgjg.c``)."""
    return average_over_groups(average_precision(table, None, rel), groups, n_topics)


def precision_avgjg(table: GainTable, groups: np.ndarray, n_topics: int, k: int = 10,
                    rel: float = 1) -> np.ndarray:
    """Precision at ``k`` against each JG (over ``k`` even when fewer are retrieved), averaged over the topic's
    JGs (``m_P_avgjg.c``)."""
    return average_over_groups(precision_at(table, k, rel), groups, n_topics)


def r_precision_multiple_avgjg(table: GainTable, groups: np.ndarray, n_topics: int, multiple: float = 1.0,
                               rel: float = 1) -> np.ndarray:
    """Precision at ``(long)(multiple · R + 0.9)`` documents against each JG, R its relevant documents (0 where
    that cutoff is not positive), averaged over the topic's JGs (``m_Rprec_mult_avgjg.c``; trec_eval 10.0's
    ``Rprec_mult`` rounds, this one still adds 0.9 and truncates)."""
    cutoffs = np.trunc(multiple * table.n_relevant(rel) + 0.9).astype(np.int64)
    counts = table.relevant_counts(rel)
    rows, width = counts.shape
    found = counts[np.arange(rows), np.clip(cutoffs, 1, width) - 1] if width else np.zeros(rows, dtype=np.int64)
    per_group = np.divide(found, cutoffs, out=np.zeros(rows), where=cutoffs > 0)
    return average_over_groups(per_group, groups, n_topics)
