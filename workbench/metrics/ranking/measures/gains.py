"""Measures of graded gain: nDCG, DCG and the ideal DCG, SDCG, trec_eval's nDCGRel, RnDCG, G and binG, ERR and RBP.

Each measure is declared once here with the per-rank terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.kernels` and :mod:`~workbench.metrics.ranking.trec`.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.ranking import cwl, kernels, trec
from workbench.metrics.ranking.declare import (
    BINARY,
    GAIN,
    GAINS,
    JUDGED_ONLY,
    MIN_MAX_REL,
    TREC_ALL,
    TREC_CUTOFFS,
    TrecEvalName,
    cutoff,
    ranking_measure,
)
from workbench.metrics.ranking.gains import gain_tables
from workbench.metrics.ranking.measures.cwl import COLUMN, COLUMNS_SAID, RANGE, column_model, with_columns
from workbench.metrics.ranking.table import CUTOFF, GainTable, at_cutoff, ranks, safe_divide
from workbench.metrics.ranking.terms import Terms, discounts, reciprocal
from workbench.metrics.ranking.ties import TIE_POLICIES
from workbench.metrics.registry import Choices, Interval, Pairs, Param

__all__: list[str] = []


def _ndcg(table: GainTable, k: int | None = None, gain: str = "linear", gains=None, ties: str = "trec_eval") -> Terms:
    values, discount, best = kernels.dcg_terms(table, k, gain, gains, ties)
    factors = {"gain": values, "discount": np.broadcast_to(discount, values.shape), "ideal_dcg": best}
    formula = "nDCG = Σ_{r ≤ k} gain(r) · discount(r) / ideal DCG, discount(r) = 1/log2(r + 1)"
    if ties == "average":  # the document's own gain beside the mean gain of its tie, which the sum reads
        factors = {"gain": kernels.dcg_terms(table, k, gain, gains)[0], "tie_averaged_gain": values} | \
            {name: factors[name] for name in ("discount", "ideal_dcg")}
        formula = ("nDCG(ties=average) = Σ_{r ≤ k} tie_averaged_gain(r) · discount(r) / ideal DCG, the mean gain "
                   "of the documents tied with r (McSherry & Najork), discount(r) = 1/log2(r + 1)")
    return Terms(values * discount[None, :] * reciprocal(best)[:, None], formula, factors)


def _dcg(table: GainTable, k: int | None = None, gain: str = "linear", gains=None) -> Terms:
    values = trec.dcg_gains(table, gain, gains)[:, :k]
    discount = np.broadcast_to(discounts(values.shape[1]), values.shape)
    return Terms(values * discount, "DCG = Σ_{r ≤ k} gain(r) · discount(r), discount(r) = 1/log2(r + 1)",
                 {"gain": values, "discount": discount})


def _ideal_dcg(table: GainTable, gains=None) -> Terms:
    return Terms(np.zeros(table.gains.shape), "ideal DCG = Σ_{i ≤ |judged|} gain*(i) · discount(i), gain*(i) the "
                 "i-th largest judged gain, discount(i) = 1/log2(i + 1): no retrieved document changes it",
                 rest=trec.ideal_dcg(table, gains),
                 rest_label="the ideal ranking of the judgements")


def _scaled_dcg(table: GainTable, k: int | None = None, min_rel: float = 0, max_rel: float | None = None) -> Terms:
    scaled, discount, total = kernels.sdcg_terms(table, k, max_rel, min_rel)
    return Terms(scaled * discount / total, "SDCG@k = Σ_{r ≤ k} gain(r) · discount(r) / Σ_{r ≤ k} discount(r), "
                 "gain = (min(max(grade, min_rel), max_rel) − min_rel) / (max_rel − min_rel)",
                 {"gain": scaled, "discount": np.broadcast_to(discount, scaled.shape)})


def _err(table: GainTable, k: int | None = None, gain: str = "exp", max_grade: float | None = 4) -> Terms:
    stop, reach = kernels.err_terms(table, k, gain, max_grade)
    return Terms(stop * reach / ranks(stop.shape[1]),
                 "ERR = Σ_{r ≤ k} reach(r) · stop(r) / r, reach(r) = Π_{i<r} (1 − stop(i)), stop(r) = "
                 "(2^g(r) − 1)/2^g_max (gain=linear: g(r)/(g_max + 1)): the chance the user gets to rank r and "
                 "stops there, over r",
                 {"reach": reach, "stop": stop})


def _rbp(table: GainTable, p: float = 0.8, max_grade: float | None = None, rel: int | None = None,
         gain: str = "scaled", gains=None, k: int | None = None) -> Terms:
    scaled, weights = kernels.rbp_terms(table.top(k), p, max_grade, rel, gain, gains)  # RBP@k: past k adds 0
    weight = np.broadcast_to((1.0 - p) * weights, scaled.shape)
    return Terms(weight * scaled, "RBP = Σ_{r ≤ k} (1 − p)·p^(r−1) · gain(r)", {"weight": weight, "gain": scaled})


def _g(table: GainTable, gains=None) -> Terms:
    terms, total = trec.g_terms(table, gains)
    return Terms(terms * reciprocal(total)[:, None],
                 "G = Σ_r gain(r)/log2(2 + Σ_{i ≤ r} max(ideal(i), 1) − Σ_{i ≤ r} gain(i)) / Σ_i ideal(i), ideal(i) "
                 "the i-th gain of the ideal ranking (trec_eval G)",
                 {"gain": gain_tables(table, gains)[0]})


def _bing(table: GainTable, rel: float = 1.0) -> Terms:
    hit, above, discount = trec.bing_terms(table, rel)
    inverse = reciprocal(table.n_relevant(rel))
    return Terms(np.where(hit, discount, 0.0) * inverse[:, None], "binG = Σ_{relevant r} 1/log2(2 + n_r) · 1/R",
                 {"nonrelevant_above": above, "discount": discount, "1/R": inverse})


def _ndcg_rel(table: GainTable, gains=None) -> Terms:
    """trec_eval's ndcg_rel is linear in the DCG terms gain(i)·discount(i): each enters the DCG at every
    relevant rank at or below i (divided by the ideal DCG there) and the DCG of the whole ranking (weighted by
    the relevant documents not retrieved), all over L."""
    values, discount, relevant, denominator, length, idcg_total = trec.ndcg_rel_terms(table, gains)
    below = np.cumsum(np.where(relevant, safe_divide(np.ones_like(denominator), denominator), 0.0)[:, ::-1],
                      axis=1)[:, ::-1]
    weight = below + safe_divide(length - relevant.sum(axis=1), idcg_total)[:, None]
    terms = values * discount * weight * reciprocal(length)[:, None]
    return Terms(np.where((terms.sum(axis=1) > 0)[:, None], terms, 0.0),
                 "nDCGRel = (1/L) (Σ_{relevant r} DCG(r)/IDCG(min(r, L)) + (L − relevant retrieved)·DCG/IDCG): "
                 "each gain(i)·discount(i) times its weight", {"gain": values, "discount": np.broadcast_to(
                     discount, values.shape), "weight": weight})


def _r_ndcg(table: GainTable, gains=None, rel: float = 1.0) -> Terms:
    """trec_eval's Rndcg averages DCG(min(t, |retrieved|))/IDCG(t) over the R-levels t (and the end of the
    ranking when the ideal runs out first): gain(i)·discount(i) enters every average term whose DCG reaches i."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    depth = ideal.shape[1]
    idcg = np.concatenate([np.zeros((rows, 1)), np.cumsum(ideal * discounts(depth), axis=1)], axis=1)
    length = (ideal > 0).sum(axis=1)[:, None]
    retrieved = table.num_ret[:, None]
    t = np.arange(1, depth + 1)[None, :]
    following = np.concatenate([ideal[:, 1:], np.zeros((rows, 1))], axis=1)
    level = (t <= length) & ((t == length) | (following != ideal)) & (idcg[:, 1:] > 0)
    every = np.arange(rows)[:, None]
    after = (length + 1 < retrieved) & (idcg[every, length] > 0)
    reach = np.zeros((rows, width + 1))  # the weight of the terms whose DCG sums the first m documents, at m
    row_of, column = np.nonzero(level)
    np.add.at(reach, (row_of, np.minimum(t[0, column], table.num_ret[row_of])),
              safe_divide(np.ones(len(row_of)), idcg[row_of, column + 1]))
    ends = np.flatnonzero(after[:, 0])
    np.add.at(reach, (ends, table.num_ret[ends]), safe_divide(np.ones(len(ends)), idcg[ends, length[ends, 0]]))
    weight = np.cumsum(reach[:, ::-1], axis=1)[:, ::-1][:, 1:]  # Σ over m > i
    count = level.sum(axis=1) + after[:, 0]
    defined = (count > 0) | (table.n_relevant(rel) == 0)
    terms = values * discounts(width) * weight * reciprocal(count)[:, None]
    terms = np.where((table.n_relevant(rel) > 0)[:, None], terms, 0.0)
    return Terms(terms, "RnDCG = (1/|T|) Σ_{t ∈ T} DCG(min(t, |retrieved|)) / IDCG(t), T the R-levels: the ranks "
                 "t ≤ L after which the ideal gain changes (L the positive ideal gains), and |retrieved| (over "
                 "IDCG(L)) when |retrieved| > L + 1: each gain(i)·discount(i) times its weight",
                 {"gain": values, "weight": weight},
                 rest=np.where(defined, 0.0, np.nan), rest_label="no R-level: undefined, as trec_eval's 0/0")


_GAIN_CURVE = {"gain": Param("linear", Choices(("linear", "exp")), "the gain of a grade g: g (linear, Järvelin & "
                              "Kekäläinen) or 2^g − 1 (exp, Burges et al.); ir_measures writes it dcg=log2 or "
                              "dcg=exp-log2", spelled={"dcg": {"log2": "linear", "exp-log2": "exp"}})}
ranking_measure("nDCG", kernels.ndcg, _ndcg, cutoff="k", aliases=("ndcg", "ndcg_cut"),
                params={**cutoff(), **_GAIN_CURVE, **GAINS,
                        "ties": Param("trec_eval", Choices(TIE_POLICIES), "documents with equal scores: ranked in "
                                      "trec_eval's order, or sharing the mean gain of their tie (average, McSherry & "
                                      "Najork; scikit-learn's ndcg_score)"), **JUDGED_ONLY},
                           trec_eval=(TrecEvalName("ndcg", "pairs", groups=TREC_ALL),
                                      TrecEvalName("ndcg_cut", "cut_long", TREC_CUTOFFS, groups=TREC_ALL)),
                           spellings={"ir_measures": ("nDCG", "NDCG"),
                           "ranx": ("ndcg", "ndcg_burges (gain=exp)"), "pyevall": "nDCG (gain=exp)"},
                description="normalised DCG: DCG over the ideal DCG of the judgements, log2(r+1) discount (trec_eval "
                            "ndcg, ndcg_cut_k)")
ranking_measure("DCG", trec.dcg, _dcg, cutoff="k", params={**cutoff(), **_GAIN_CURVE, **GAINS, **JUDGED_ONLY},
                aliases=("dcg",), range=(0.0, math.inf),
                trec_eval=TrecEvalName("dcg", "pairs"),
                spellings={"ranx": ("dcg", "dcg_burges (gain=exp)"), "pyevall": "DCG (gain=exp)"},
                description="discounted cumulative gain Σ_{r ≤ k} gain(r)/log2(r + 1), over the whole ranking "
                            "without a cutoff (Järvelin & Kekäläinen, TOIS 2002; trec_eval dcg; ranx and PyEvALL "
                            "score it at a cutoff, DCG@k)")
ranking_measure("IdealDCG", trec.ideal_dcg, _ideal_dcg, params={**GAINS, **JUDGED_ONLY}, aliases=("ideal_dcg",),
                range=(0.0, math.inf), trec_eval=TrecEvalName("ideal_dcg", "pairs"),
                description="the DCG of the ideal ranking of the judgements: nDCG's denominator (trec_eval "
                            "ideal_dcg)")
ranking_measure("SDCG", *with_columns(kernels.scaled_dcg, _scaled_dcg, column_model(cwl.sdcg_continuation, cut=True),
                                      "C(i) = log2(i + 1)/log2(i + 2) for i < k, 0 from k on"),
                cutoff="k", source="Moffat, Seven Numeric Properties of Effectiveness "
                "Metrics, AIRS 2013; the C/W/L framework (cwl_eval's NDCG-k), ir_measures' SDCG (its "
                "cwl_eval provider: equal to it on runs without tied scores, which cwl_eval keeps in the run's order, "
                "the workbench in trec_eval's)",
                params={"k": Param(None, CUTOFF, "the cutoff: the top k ranks (required)"),
                        **MIN_MAX_REL, **COLUMN},
                spellings={"ir_measures": "SDCG"}, fixed={"dcg": "log2"}, range=RANGE,
                description="scaled DCG@k: DCG@k of gains scaled to [0, 1] over the DCG@k of k fully relevant "
                            "documents, as if more fully relevant documents exist than are judged" + COLUMNS_SAID)
ranking_measure("nDCGRel", trec.ndcg_rel, _ndcg_rel, params={**GAINS, **JUDGED_ONLY}, aliases=("ndcg_rel",),
                trec_eval=TrecEvalName("ndcg_rel", "pairs", groups=TREC_ALL),
                description="nDCG averaged at the relevant documents (trec_eval ndcg_rel)")
ranking_measure("RnDCG", trec.r_ndcg, _r_ndcg, params={**GAINS, **BINARY}, aliases=("Rndcg",),
                trec_eval=TrecEvalName("Rndcg", "pairs", groups=TREC_ALL),
                description="nDCG averaged at the R-levels of the ideal ranking (trec_eval Rndcg)")
ranking_measure("G", trec.g_measure, _g, params={**GAINS, **JUDGED_ONLY},
                trec_eval=TrecEvalName("G", "pairs", groups=TREC_ALL),
                description="gain discounted by the lag behind the ideal (trec_eval G, experimental)")
ranking_measure("BinG", trec.binary_g, _bing, params=BINARY, aliases=("binG",),
                trec_eval=TrecEvalName("binG", groups=TREC_ALL),
                description="binary G: relevant documents discounted by the non-relevant ones above (trec_eval binG)")
_MAX_GRADE = "the top grade g_max (None: the highest judged grade of the topic); a grade above counts as max_grade"
ranking_measure("ERR", kernels.err, _err, cutoff="k", source="Chapelle et al., CIKM 2009; gdeval",
                params={**cutoff(), "gain": Param("exp", Choices(("exp", "linear")), "the stop probability of a grade "
                                                  "g: (2^g − 1)/2^g_max (exp, Chapelle) or g/(g_max + 1) (linear, "
                                                  "NTCIREVAL)"),
                        "max_grade": Param(4, Interval(0, low_open=True, optional=True), _MAX_GRADE)},
                spellings={"ir_measures": "ERR", "pyevall": "ERR (max_grade=None)"},
                description="expected reciprocal rank Σ_r R_r/r Π_{i<r}(1 − R_i); by default g_max = 4, the TREC "
                            "Web track's scale (gdeval, hence ir_measures' ERR@20)")
_RBP_GAINS = {"gains": Param(None, Pairs(Interval(0, low_open=True), GAIN),
                             "trec_eval's rel=gain pairs, e.g. {1:3,2:9}, rescaled to [0, 1] when a gain lies outside "
                             "(rbp.1=3,2=9); grade 0 keeps gain 0: trec_eval 10.0 rescales from bounds it leaves "
                             "uninitialised (m_rbp.c), so its rbp with a mapped grade 0 has no one value")}
ranking_measure("RBP", at_cutoff(kernels.rbp), _rbp, cutoff="k", source="Moffat & Zobel, TOIS 2008",
                range=(0.0, math.inf),  # in [0, 1] but with gain=raw (ranx's: up to the top grade)
                params={"p": Param(0.8, Interval(0, 1, low_open=True, high_open=True), "the persistence: the chance "
                                   "the user goes on to the next rank"),
                        "max_grade": Param(None, Interval(0, low_open=True, optional=True), _MAX_GRADE),
                        "rel": Param(None, Interval(0, low_open=True, optional=True), "binary RBP: a gain of 1 from "
                                     "grade rel up, 0 below (ir_measures' RBP(rel=1))"),
                        "gain": Param("scaled", Choices(("scaled", "raw")), "the gain of a grade g: g/g_max (scaled: "
                                      "NTCIREVAL, trec_eval) or g itself (raw: ranx)"),
                        **_RBP_GAINS, **cutoff(meaning="the cutoff: RBP of the top k ranks"), **JUDGED_ONLY},
                           trec_eval=TrecEvalName("rbp", "pairs", groups=TREC_ALL, defaults=(("p", 0.9),)),
                           spellings={"ir_measures": "RBP", "ranx": "rbp (gain=raw)",
                           "pyevall": "RBP (gain=raw)"},
                description="rank-biased precision (1 − p) Σ_r gain(r) p^(r−1) with persistence p; gains scaled to "
                            "[0, 1] by default, binary from level rel, raw grades with gain=raw, trec_eval's rescaled "
                            "rel=gain pairs with gains")
