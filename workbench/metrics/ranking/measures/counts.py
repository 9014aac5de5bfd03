"""Counts and judgement coverage: NumQ, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet, Judged@k, Unjudged@k, the RBP
residual, and trec_eval's relstring.

Each measure is declared once here with the terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.trec`.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.ranking import trec
from workbench.metrics.ranking.declare import (
    BINARY,
    JUDGED_ONLY,
    TREC_ALL,
    TREC_EVAL_GROUPS,
    TREC_OFFICIAL,
    TableMeasure,
    TrecEvalName,
    cutoff,
    ranking_measure,
)
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.ranking.terms import Terms, cleaned, grades_reach, reciprocal
from workbench.metrics.registry import Interval, Param, register

__all__: list[str] = []

_COUNT = (0.0, math.inf)


def _num_q(table: GainTable) -> Terms:
    return Terms(np.zeros(table.gains.shape), "NumQ = Σ_topics 1", rest=np.ones(table.gains.shape[0]),
                 rest_label="the topic")


def _num_ret(table: GainTable) -> Terms:
    return Terms(cleaned(table, table.retrieved().astype(float)), "NumRet = Σ 1 per retrieved document")


def _num_rel(table: GainTable, rel: float = 1.0) -> Terms:
    return Terms(table.relevant(rel).astype(float), "NumRel = Σ_{judged d} relevant(d), retrieved or not",
                 missing=grades_reach(rel))


def _num_rel_ret(table: GainTable, rel: float = 1.0) -> Terms:
    return Terms(table.relevant(rel).astype(float), "NumRelRet = Σ_{retrieved r} relevant(r)")


def _num_nonrel(table: GainTable, rel: float = 1.0) -> Terms:
    return Terms((table.judged & ~table.relevant(rel)).astype(float),
                 "NumNonRelJudgedRet = Σ 1 per judged non-relevant document retrieved")


def _unjudged(table: GainTable, k: int = 10) -> Terms:
    unjudged = (table.retrieved() & ~table.judged)[:, :k]
    return Terms(cleaned(table, unjudged / k), "Unjudged@k = Σ_{r ≤ k} unjudged(r) · 1/k", {"unjudged": unjudged})


def _judged(table: GainTable, k: int | None = None) -> Terms:
    pooled = table.pooled[:, :k]
    shown = table.num_ret if k is None else np.minimum(table.num_ret, k)
    inverse = reciprocal(shown)
    return Terms(pooled * inverse[:, None], "Judged@k = Σ_{r ≤ k} judged(r) · 1/min(k, |retrieved|)",
                 {"in_qrels": pooled, "share": inverse})


def _rbp_residual(table: GainTable, p: float = 0.9) -> Terms:
    unjudged = table.retrieved() & ~table.judged
    weights = (1 - p) * p ** np.arange(table.gains.shape[1], dtype=float)
    some = unjudged.any(axis=1)
    return Terms(cleaned(table, np.where(some[:, None], unjudged * weights, 0.0)),
                 "RBPResid = Σ_{unjudged r} (1 − p)·p^(r−1) + p^|retrieved|, 0 when every document is judged",
                 {"unjudged": unjudged, "weight": np.broadcast_to(weights, unjudged.shape)},
                 rest=np.where(table.placeholder | ~some, 0.0, p ** table.num_ret.astype(float)),
                 rest_label="the ranks beyond the ranking: p^|retrieved|")


ranking_measure("NumQ", trec.num_q, _num_q, params=JUDGED_ONLY, aliases=("num_q",), range=_COUNT, aggregate="sum",
                trec_eval=TrecEvalName("num_q", "long", groups=TREC_EVAL_GROUPS, summary="count", per_topic=False),
                spellings={"ir_measures": "NumQ"},
                description="the number of topics: 1 per topic, summed (trec_eval num_q); a gold topic the run lacks "
                            "counts 1 when scored as trec_eval -c scores it (missing_topics='zero', the default), "
                            "0 in ir_measures, which counts the topics the run has (missing_topics='skip')")
ranking_measure("NumRet", trec.num_ret, _num_ret, params=JUDGED_ONLY, aliases=("num_ret",), range=_COUNT,
                aggregate="sum",
                trec_eval=TrecEvalName("num_ret", "long", groups=(*TREC_OFFICIAL, "set")),
                spellings={"ir_measures": "NumRet"},
                description="number of retrieved documents (trec_eval num_ret; summed over topics)")
ranking_measure("NumRel", trec.num_rel, _num_rel, params=BINARY, aliases=("num_rel",), range=_COUNT,
                aggregate="sum",
                trec_eval=TrecEvalName("num_rel", "long", groups=(*TREC_OFFICIAL, "set")),
                spellings={"ir_measures": "NumRel"},
                description="number of judged relevant documents (trec_eval num_rel; summed over topics)")
ranking_measure("NumRelRet", trec.num_rel_ret, _num_rel_ret, params=BINARY, aliases=("num_rel_ret",),
                range=_COUNT, aggregate="sum",
                trec_eval=TrecEvalName("num_rel_ret", "long", groups=(*TREC_OFFICIAL, "set")),
                spellings={"ir_measures": "NumRelRet"},
                description="number of relevant documents retrieved (trec_eval num_rel_ret; summed over topics)")
ranking_measure("NumNonRelJudgedRet", trec.num_nonrel_judged_ret, _num_nonrel, params=BINARY,
                aliases=("num_nonrel_judged_ret",), range=_COUNT, aggregate="sum",
                trec_eval=TrecEvalName("num_nonrel_judged_ret", "long", groups=TREC_ALL),
                description="number of judged non-relevant documents retrieved (trec_eval num_nonrel_judged_ret; "
                            "summed over topics)")
ranking_measure("Unjudged", trec.unjudged_at, _unjudged, params={**cutoff(10), **JUDGED_ONLY}, cutoff="k",
                aliases=("unj",), direction="lower",
                trec_eval=TrecEvalName("unj", "cut_long", (5, 10, 20), groups=TREC_ALL),
                description="fraction of the top k outside the judgements (trec_eval unj_k; a red flag)")
ranking_measure("Judged", trec.judged_at, _judged, params=cutoff(), cutoff="k",
                source="ir_measures (Judged@k, its cwl_eval provider: equal to it on runs without tied scores, which "
                       "cwl_eval keeps in the run's order, the workbench in trec_eval's)",
                spellings={"ir_measures": "Judged"},
                description="fraction of the top k that has a judgement (ir_measures Judged@k)")
ranking_measure("RBPResid", trec.rbp_residual, _rbp_residual, aliases=("rbp_resid",), direction="lower",
                params={"p": Param(0.9, Interval(0, 1, low_open=True, high_open=True), "the persistence of RBP"),
                        **JUDGED_ONLY}, trec_eval=TrecEvalName("rbp_resid", "pairs", groups=TREC_ALL),
                description="RBP residual: the weight unjudged and unretrieved ranks could still add (trec_eval "
                            "rbp_resid)")
register("RelString", TableMeasure(trec.relevance_strings), task="ranking", source="trec_eval 10.0 (usnistgov/"
         "trec_eval)", params={"length": Param(10, Interval(0, integer=True), "how many ranks it shows")},
         aliases=("relstring",),
         trec_eval=TrecEvalName("relstring", "params", (10.0,), groups=TREC_ALL, summary="none", takes=("length",),
                                cast="long"),
         returns="text", missing="empty",
         engine="gain table", formula="RelString = g(1) g(2) … g(min(length, |retrieved|)), one character per rank: "
                                      "g(r) the grade (> above 9), - not pooled, . pooled but unjudged",
         description="the grades of the first ranks as text, one character each: the grade, '>' above 9, '-' not "
                     "pooled, '.' pooled but unjudged (trec_eval relstring; printed by the trec_eval drop-in)")
