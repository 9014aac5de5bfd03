"""Ranking measures at a cutoff beyond trec_eval's: ``Hits@k`` (a count, ranx's ``hits@k``), and Sakai's
Q/O/P/P+-measure at a cutoff (Sakai, SIGIR 2006; NTCIREVAL), over a
:class:`~workbench.metrics.ranking.table.GainTable`.

``Q-measure@k`` = (1 / min(k, R)) Σ_{relevant ranks r ≤ k} BR(r), NTCIREVAL's ``Q@k`` (pyNTCIREVAL's
``QMeasure(cutoff=k)``: the uniform stop probability over min(R, k) relevant documents); O, P and P+ at k are the
measures of the ranking cut to its top k (a preferred rank below k scores 0)::

    >>> t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    >>> float(hits_at(t, k=2)[0]), round(float(q_measure_at(t, k=2)[0]), 6)
    (1.0, 0.3)
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking.kernels import q_measure
from workbench.metrics.ranking.table import GainTable, safe_divide

__all__ = ["hits_at", "q_measure_at"]


def hits_at(table: GainTable, k: int | None = None, rel: int = 1) -> np.ndarray:
    """Hits@k = |relevant in the top k| (all retrieved when k is None): a count, averaged over topics as ranx's
    ``hits@k`` is."""
    return table.relevant(rel)[:, :k].sum(axis=1).astype(float)


def q_measure_at(table: GainTable, beta: float = 1.0, k: int | None = None) -> np.ndarray:
    """Q@k = (1 / min(k, R)) Σ_{relevant r ≤ k} BR(r), R the number of judged relevant documents (Q-measure
    itself when k is None)."""
    n_rel = (table.ideal > 0).sum(axis=1)
    if k is None:
        return q_measure(table, beta)
    return safe_divide(q_measure(table.top(k), beta) * n_rel, np.minimum(n_rel, k))
