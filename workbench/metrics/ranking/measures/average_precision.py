"""Average precision and its relatives: AP (and AP@k), GMAP, bpref, GMBpref, infAP and trec_eval's yaap.

Each measure is declared once here with the per-rank terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.kernels` and :mod:`~workbench.metrics.ranking.trec`.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.ranking import kernels, trec
from workbench.metrics.ranking.declare import (
    BINARY,
    TREC_ALL,
    TREC_CUTOFFS,
    TREC_OFFICIAL,
    TrecEvalName,
    cutoff,
    ranking_measure,
)
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.ranking.terms import Terms, reciprocal

__all__: list[str] = []


def _average_precision(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    precision, hit = kernels.precision_terms(table, k, rel)
    inverse = reciprocal(table.n_relevant(rel))
    return Terms(precision * hit * inverse[:, None], "AP = Σ_{relevant r ≤ k} P@r · 1/R (R: judged relevant documents)",
                 {"precision": precision, "1/R": inverse})


def _bpref(table: GainTable, rel: float = 1.0) -> Terms:
    terms, above = trec.bpref_terms(table, rel)
    inverse = reciprocal(table.n_relevant(rel))
    return Terms(terms * inverse[:, None], "bpref = Σ_{relevant r} (1 − min(n_r, R)/min(N, R)) · 1/R, n_r the judged "
                 "non-relevant documents above", {"nonrelevant_above": above, "1/R": inverse})


def _infap(table: GainTable, rel: float = 1.0) -> Terms:
    hit, term = trec.infap_terms(table, rel)
    inverse = reciprocal(table.n_relevant(rel))
    return Terms(np.where(hit, term, 0.0) * inverse[:, None],
                 "infAP = Σ_{relevant r} E[P@r] · 1/R, E[P@r] = 1/r + ((r − 1)/r)·(pooled(r)/(r − 1))·((rel(r) + ε)"
                 "/(judged(r) + 2ε)) for r > 1 and 1 at r = 1, pooled(r), rel(r), judged(r) the pooled, relevant and "
                 "judged documents above r, ε = 0.00001 (Yilmaz & Aslam, CIKM 2006)",
                 {"estimate": term, "1/R": inverse})


def _yaap(table: GainTable, rel: float = 1.0) -> Terms:
    """yaap = log((1 + S) / (1 + (R − S))) of S, the sum of P@r at the relevant ranks, and R − S, what each
    relevant document lacks of precision 1 (1 for one the ranking misses)."""
    precision, hit = kernels.precision_terms(table, None, rel)
    found = precision * hit
    return Terms(np.zeros_like(found), "yaap = log((1 + S) / (1 + (R − S))), S = Σ_{relevant r} P@r (Robertson, "
                 "ECIR 2012)", {"precision": precision}, missing={"R−S": lambda _rows, grades: (grades >= rel) * 1.0},
                 parts={"S": found, "R−S": np.where(hit, 1.0 - precision, 0.0)},
                 combine=lambda parts: math.log((1.0 + parts["S"]) / (1.0 + parts["R−S"])))


ranking_measure("AP", kernels.average_precision, _average_precision, params={**cutoff(), **BINARY}, cutoff="k",
                aliases=("map", "map_cut"),
                trec_eval=(TrecEvalName("map", groups=TREC_OFFICIAL),
                           TrecEvalName("map_cut", "cut_long", TREC_CUTOFFS, groups=TREC_ALL)),
                spellings={"ir_measures": ("AP", "MAP"), "ranx": "map", "pyevall": "MAP (k=1000)"},
                description="average precision: P@r averaged over the judged relevant documents, 0 for those not "
                            "retrieved (trec_eval map; AP@k is map_cut_k)")
ranking_measure("GMAP", kernels.average_precision, _average_precision, params=BINARY, aliases=("gm_map",),
                aggregate="gmean", trec_eval=TrecEvalName("gm_map", groups=TREC_OFFICIAL, per_topic=False),
                description="AP per topic, its geometric mean over topics (trec_eval gm_map; each AP floored at "
                            "0.00001)")
ranking_measure("Bpref", trec.bpref, _bpref, params=BINARY, aliases=("bpref",),
                trec_eval=TrecEvalName("bpref", groups=TREC_OFFICIAL),
                spellings={"ir_measures": ("Bpref", "BPref"), "ranx": "bpref"},
                description="binary preference on judged documents (Buckley & Voorhees, SIGIR 2004; trec_eval bpref)")
ranking_measure("GMBpref", trec.bpref, _bpref, params=BINARY, aliases=("gm_bpref",), aggregate="gmean",
                trec_eval=TrecEvalName("gm_bpref", groups=TREC_ALL, per_topic=False),
                description="bpref per topic, its geometric mean over topics (trec_eval gm_bpref; floored at "
                            "0.00001)")
ranking_measure("infAP", trec.inferred_ap, _infap, params=BINARY,
                trec_eval=TrecEvalName("infAP", groups=TREC_ALL), spellings={"ir_measures": "infAP"},
                description="inferred AP on a sampled pool (Yilmaz & Aslam, CIKM 2006; trec_eval infAP)")
ranking_measure("YAAP", trec.yaap, _yaap, params=BINARY, aliases=("yaap",), range=(-math.inf, math.inf),
                trec_eval=TrecEvalName("yaap"), how="through its parts: S, R−S",
                description="yet another average precision, log((1 + S) / (1 + R − S)) (Robertson, On Smoothing "
                            "Average Precision, ECIR 2012; trec_eval yaap)")
