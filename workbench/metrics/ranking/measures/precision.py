"""Precision and recall in the ranking: P@k, Rprec, RR, Success@k, Hits@k, R@k, RelP@k and Rprec_mult.

Each measure is declared once here (kernel, parameters, spellings, source) with the per-rank terms that explain
it (:mod:`workbench.metrics.ranking.terms`); the kernels live in :mod:`workbench.metrics.ranking.kernels`,
:mod:`~workbench.metrics.ranking.trec` and :mod:`~workbench.metrics.ranking.cutoffs`.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import cutoffs, kernels, trec
from workbench.metrics.ranking.declare import (
    BINARY,
    RANX,
    TREC_ALL,
    TREC_CUTOFFS,
    TREC_MULTIPLES,
    TREC_OFFICIAL,
    TrecEvalName,
    cutoff,
    ranking_measure,
)
from workbench.metrics.ranking.table import GainTable, first_true
from workbench.metrics.ranking.terms import Terms, placed, reciprocal
from workbench.metrics.registry import Interval, Param

__all__: list[str] = []


def _precision(table: GainTable, k: int = 10, rel: int = 1) -> Terms:
    relevant = table.relevant(rel)[:, :k]
    return Terms(relevant / k, "P@k = Σ_{r ≤ k} relevant(r) · 1/k",
                 {"relevant": relevant, "1/k": np.full(relevant.shape[0], 1 / k)})


def _r_precision(table: GainTable, rel: int = 1) -> Terms:
    relevant, n_rel = table.relevant(rel), table.n_relevant(rel)
    within = np.arange(relevant.shape[1])[None, :] < n_rel[:, None]
    return Terms(relevant * within * reciprocal(n_rel)[:, None], "Rprec = Σ_{r ≤ R} relevant(r) · 1/R",
                 {"relevant": relevant, "1/R": reciprocal(n_rel)})


def _first(table: GainTable, k: int | None, rel: float, name: str, value) -> Terms:
    relevant = table.relevant(rel)[:, :k]
    first, found = first_true(relevant)
    reciprocal = 1.0 / (first + 1)
    contribution = placed(first, found, reciprocal if value is None else value, relevant.shape[1])
    return Terms(contribution, f"{name} = the term of the first relevant document only",
                 {"relevant": relevant, "first_relevant": placed(first, found, 1.0, relevant.shape[1]) > 0})


def _reciprocal_rank(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    terms = _first(table, k, rel, "RR", None)
    terms.formula = "RR = 1/r₁, r₁ the rank of the first relevant document (in the top k), 0 without one"
    return terms


def _success(table: GainTable, k: int = 10, rel: int = 1) -> Terms:
    terms = _first(table, k, rel, "Success", 1.0)
    terms.formula = "Success@k = max_{r ≤ k} relevant(r): 1 for the first relevant document in the top k, 0 without one"
    return terms


def _hits(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    relevant = table.relevant(rel)[:, :k]
    return Terms(relevant.astype(float), "Hits@k = Σ_{r ≤ k} relevant(r): 1 per relevant document in the top k",
                 {"relevant": relevant})


def _recall(table: GainTable, k: int = 10, rel: float = 1.0) -> Terms:
    relevant = table.relevant(rel)[:, :k]
    inverse = reciprocal(table.n_relevant(rel))
    return Terms(relevant * inverse[:, None], "R@k = Σ_{r ≤ k} relevant(r) · 1/R",
                 {"relevant": relevant, "1/R": inverse})


def _relative_precision(table: GainTable, k: int = 10, rel: float = 1.0) -> Terms:
    relevant = table.relevant(rel)[:, :k]
    inverse = reciprocal(np.minimum(k, table.n_relevant(rel)))
    return Terms(relevant * inverse[:, None], "RelP@k = Σ_{r ≤ k} relevant(r) · 1/min(k, R)",
                 {"relevant": relevant, "1/min(k,R)": inverse})


def _r_precision_multiple(table: GainTable, multiple: float = 1.0, rel: float = 1.0) -> Terms:
    cutoff = np.trunc(multiple * table.n_relevant(rel) + 0.9).astype(np.int64)
    relevant = table.relevant(rel)
    within = np.arange(relevant.shape[1])[None, :] < cutoff[:, None]
    inverse = reciprocal(cutoff)
    return Terms(relevant * within * inverse[:, None],
                 "RPrecMult = Σ_{r ≤ c} relevant(r) · 1/c, c = ⌊multiple·R + 0.9⌋",
                 {"relevant": relevant, "1/c": inverse})


ranking_measure("P", kernels.precision_at, _precision, params={**cutoff(10), **BINARY}, cutoff="k",
                trec_eval=TrecEvalName("P", "cut_long", TREC_CUTOFFS, groups=TREC_OFFICIAL),
                spellings={"ir_measures": "P", "ranx": "precision", "pyevall": "PrecisionAtK (k=10)"},
                description="precision at k: the relevant documents in the top k, divided by k even when fewer are "
                            "retrieved (trec_eval P_k)")
ranking_measure("Rprec", kernels.r_precision, _r_precision, params=BINARY, aliases=("RPrec",),
                           trec_eval=TrecEvalName("Rprec", groups=TREC_OFFICIAL),
                           spellings={"ir_measures": ("Rprec", "RPrec"), "ranx": "r-precision",
                           "pyevall": "RPrecision"},
                description="precision at rank R, the number of judged relevant documents (trec_eval Rprec)")
ranking_measure("RR", kernels.reciprocal_rank, _reciprocal_rank, params={**cutoff(), **BINARY}, cutoff="k",
                aliases=("recip_rank",), trec_eval=TrecEvalName("recip_rank", groups=TREC_OFFICIAL),
                spellings={"ir_measures": ("RR", "MRR"), "ranx": "mrr", "pyevall": "MRR"},
                description="reciprocal rank of the first relevant document (in the top k for RR@k; RR@10 is MS "
                            "MARCO's MRR@10)")
ranking_measure("Success", kernels.success_at, _success, params={**cutoff(10), **BINARY}, cutoff="k",
                aliases=("success",), trec_eval=TrecEvalName("success", "cut_long", (1, 5, 10), groups=TREC_ALL),
                spellings={"ir_measures": "Success", "ranx": "hit_rate"},
                description="1 if a relevant document is in the top k (trec_eval success_k)")
ranking_measure("Hits", cutoffs.hits_at, _hits, params={**cutoff(), **BINARY}, cutoff="k", aliases=("hits",),
                source=RANX, range=(0.0, float("inf")), spellings={"ranx": "hits"},
                description="the number of relevant documents in the top k (ranx hits@k), averaged over topics")
ranking_measure("R", trec.recall_at, _recall, params={**cutoff(10), **BINARY}, cutoff="k", aliases=("recall",),
                trec_eval=TrecEvalName("recall", "cut_long", TREC_CUTOFFS, groups=TREC_ALL),
                spellings={"ir_measures": "R", "ranx": "recall"},
                description="recall at k: relevant in the top k / R (trec_eval recall_k)")
ranking_measure("RelP", trec.relative_precision_at, _relative_precision, params={**cutoff(10), **BINARY},
                cutoff="k", aliases=("relative_P", "R_cap"),
                trec_eval=TrecEvalName("relative_P", "cut_long", TREC_CUTOFFS, groups=TREC_ALL),
                description="relevant in the top k / min(k, R) (trec_eval relative_P_k; BEIR's capped recall R_cap@k)")
ranking_measure("RPrecMult", trec.r_precision_multiple, _r_precision_multiple,
                params={"multiple": Param(1.0, Interval(0), "the multiple m of R: precision at ⌊m·R + 0.9⌋"),
                        **BINARY}, cutoff="multiple", aliases=("Rprec_mult",),
                trec_eval=TrecEvalName("Rprec_mult", "cut_double", TREC_MULTIPLES, groups=TREC_ALL),
                description="precision at ⌊multiple·R + 0.9⌋ (trec_eval Rprec_mult)")
