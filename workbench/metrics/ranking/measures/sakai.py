"""Sakai's graded measures: Q-measure, O-measure, P-measure and P+-measure (Sakai, SIGIR 2006), at a cutoff as
NTCIREVAL computes them.

Each measure is declared once here with the per-rank terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.kernels` and :mod:`~workbench.metrics.ranking.cutoffs`.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import cutoffs, kernels
from workbench.metrics.ranking.declare import BETA, SAKAI, cutoff, ranking_measure
from workbench.metrics.ranking.table import GainTable, at_cutoff, first_true
from workbench.metrics.ranking.terms import Terms, placed, reciprocal

__all__: list[str] = []


def _q(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    ratio, rel = kernels.blended_ratio(table.top(k), beta)
    n_rel = (table.ideal > 0).sum(axis=1)
    inverse = reciprocal(n_rel if k is None else np.minimum(n_rel, k))
    return Terms(ratio * rel * inverse[:, None],
                 "Q@k = Σ_{relevant r ≤ k} BR(r) · 1/min(k, R), BR the blended ratio (Q: k = ∞)",
                 {"blended_ratio": ratio, "1/min(k,R)" if k is not None else "1/R": inverse})


# Sakai's blended ratio BR(r) written out, at the rank O and P read it.
_BLENDED = ("(C(r) + β·cg(r)) / (r + β·cg*(r)) at r = {rank}, {what} (in the top k), 0 without one; C(r) the "
            "relevant documents, cg(r) and cg*(r) the cumulative gains of the ranking and of the ideal one down to r")


def _o(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    ratio, rel = kernels.blended_ratio(table.top(k), beta)
    first, found = first_true(rel)
    values = ratio[np.arange(len(first)), first] if ratio.shape[1] else np.zeros(len(first))
    return Terms(placed(first, found, values, ratio.shape[1]),
                 "O = BR(r1) = " + _BLENDED.format(rank="r1", what="the first relevant rank"),
                 {"blended_ratio": ratio})


def _p(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    cut = table.top(k)
    ratio, _ = kernels.blended_ratio(cut, beta)
    preferred, found = kernels.preferred_rank(cut)
    values = ratio[np.arange(len(preferred)), preferred] if ratio.shape[1] else np.zeros(len(preferred))
    return Terms(placed(preferred, found, values, ratio.shape[1]),
                 "P = BR(rp) = " + _BLENDED.format(rank="rp", what="the first rank of the highest grade retrieved"),
                 {"blended_ratio": ratio})


def _p_plus(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    ratio, upto = kernels.p_plus_terms(table.top(k), beta)
    inverse = reciprocal(upto.sum(axis=1))
    return Terms(ratio * upto * inverse[:, None],
                 "P+ = Σ_{relevant r ≤ rp} BR(r) · 1/C(rp), C(rp) relevant down to rp (the top k only)",
                 {"blended_ratio": ratio, "1/C(rp)": inverse})


_SAKAI = {**BETA, **cutoff()}
ranking_measure("Q-measure", cutoffs.q_measure_at, _q, params=_SAKAI, cutoff="k", source=SAKAI,
                description="Q-measure: the blended ratio at every relevant rank, over R (Q@k divides by min(k, R), "
                            "NTCIREVAL's)")
ranking_measure("O-measure", at_cutoff(kernels.o_measure), _o, params=_SAKAI, cutoff="k", source=SAKAI,
                description="O-measure: the blended ratio at the first relevant rank")
ranking_measure("P-measure", at_cutoff(kernels.p_measure), _p, params=_SAKAI, cutoff="k", source=SAKAI,
                description="P-measure: the blended ratio at the preferred rank, the first holding the highest grade "
                            "retrieved (Sakai, SIGIR 2006, Figure 1: P(X) = 6/7, P(Y) = 4/7)")
ranking_measure("P+-measure", at_cutoff(kernels.p_plus_measure), _p_plus, params=_SAKAI, cutoff="k", source=SAKAI,
                description="P+-measure: the blended ratio averaged over the relevant ranks down to the preferred rank")
