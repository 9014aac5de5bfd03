"""Tied scores averaged (McSherry & Najork, Computing Information Retrieval Performance Measures Efficiently in
the Presence of Tied Scores, ECIR 2008): documents with equal scores share their positions, so each gets the mean
gain of its tie group, and a measure summing gain × discount over ranks becomes the expectation over every
order of the ties (scikit-learn's ``ndcg_score`` with ``ignore_ties=False``).

    >>> t = GainTable(np.array([[3.0, 0.0, 1.0]]), np.array([[3.0, 1.0]]), tied=np.array([[False, True, False]]))
    >>> tie_averaged(t, t.gains).tolist()
    [[1.5, 1.5, 1.0]]
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking.table import GainTable

__all__ = ["TIE_POLICIES", "tie_averaged"]

TIE_POLICIES = ("trec_eval", "average")
"""``trec_eval``: ties broken by document id descending (the ranking as it is); ``average``: tied documents share
their positions (:func:`tie_averaged`)."""


def tie_averaged(table: GainTable, values: np.ndarray) -> np.ndarray:
    """``values`` (one per rank of ``table``, before any cutoff: a tie group cut by a cutoff is averaged over its
    whole length, as the expectation over orders of the tie asks) with each tie group of ``table.tied``
    replaced by its mean."""
    if not table.tied.any():
        return values
    rows, width = values.shape
    group = (np.cumsum(~table.tied, axis=1) + (np.arange(rows) * (width + 1))[:, None]).ravel()  # across rows
    totals = np.bincount(group, weights=values.ravel())
    sizes = np.bincount(group)
    return np.where(table.retrieved(), (totals[group] / sizes[group]).reshape(values.shape), 0.0)
