"""trec_eval's measures of the retrieved set: SetP, SetRelP, SetR, SetAP, SetF and the set utility.

Each measure is declared once here with the terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.trec`.
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.ranking import trec
from workbench.metrics.ranking.declare import BINARY, TREC_SET, TrecEvalName, ranking_measure
from workbench.metrics.ranking.table import GainTable, safe_divide
from workbench.metrics.ranking.terms import Terms, cleaned, reciprocal
from workbench.metrics.registry import Interval, Param

__all__: list[str] = []


def _set(table: GainTable, rel: float, denominator, formula: str) -> Terms:
    inverse = reciprocal(denominator)
    relevant = table.relevant(rel)
    return Terms(relevant * inverse[:, None], formula, {"relevant": relevant, "share": inverse})


def _set_p(table: GainTable, rel: float = 1.0) -> Terms:
    return _set(table, rel, table.num_ret, "SetP = Σ_{retrieved} relevant · 1/|retrieved|")


def _set_rel_p(table: GainTable, rel: float = 1.0) -> Terms:
    denominator = np.minimum(table.num_ret, table.n_relevant(rel))
    return _set(table, rel, denominator, "SetRelP = Σ_{retrieved} relevant · 1/min(|retrieved|, R)")


def _set_r(table: GainTable, rel: float = 1.0) -> Terms:
    return _set(table, rel, table.n_relevant(rel), "SetR = Σ_{retrieved} relevant · 1/R")


def _set_ap(table: GainTable, rel: float = 1.0) -> Terms:
    found = table.relevant(rel).sum(axis=1)
    return _set(table, rel, safe_divide(table.num_ret * table.n_relevant(rel), found),
                "SetAP = SetP · SetR = Σ_{retrieved} relevant · |relevant retrieved| / (|retrieved| · R)")


def _set_f(table: GainTable, beta: float = 1.0, rel: float = 1.0) -> Terms:
    p, r = _set_p(table, rel), _set_r(table, rel)
    return Terms(np.zeros_like(p.contribution), f"SetF = (β + 1)·SetP·SetR / (β·SetP + SetR), β = {beta:g}",
                 {"relevant": table.relevant(rel)}, parts={"SetP": p.contribution, "SetR": r.contribution},
                 combine=lambda parts: float(trec.f_of_set(np.float64(parts["SetP"]), np.float64(parts["SetR"]),
                                                           beta)))


def _utility(table: GainTable, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0, num_docs: int = 0,
             rel: float = 1.0) -> Terms:
    relevant = table.relevant(rel)
    values = cleaned(table, np.where(relevant, a, b) * table.retrieved())
    n_rel, found = table.n_relevant(rel), relevant.sum(axis=1)
    unseen = np.where(table.placeholder, 0.0, d * (num_docs + found - table.num_ret - n_rel))
    return Terms(values, "Utility = a·(relevant retrieved) + b·(non-relevant retrieved) + c·(relevant missed) + "
                 "d·(the rest)", missing=lambda rows, grades: np.where(table.placeholder[rows], 0.0,
                                                                      c * (grades >= rel)),
                 rest=unseen, rest_label="the documents neither retrieved nor relevant (d each)")


ranking_measure("SetP", trec.set_precision, _set_p, params=BINARY, aliases=("set_P",),
                trec_eval=TrecEvalName("set_P", groups=TREC_SET), spellings={"ir_measures": "SetP"},
                description="precision of the retrieved set (trec_eval set_P)")
ranking_measure("SetRelP", trec.set_relative_precision, _set_rel_p, params=BINARY, aliases=("set_relative_P",),
                trec_eval=TrecEvalName("set_relative_P", groups=TREC_SET), spellings={"ir_measures": "SetRelP"},
                description="relevant retrieved / min(retrieved, R) (trec_eval set_relative_P)")
ranking_measure("SetR", trec.set_recall, _set_r, params=BINARY, aliases=("set_recall",),
                trec_eval=TrecEvalName("set_recall", groups=TREC_SET), spellings={"ir_measures": "SetR"},
                description="recall of the retrieved set (trec_eval set_recall)")
ranking_measure("SetAP", trec.set_map, _set_ap, params=BINARY, aliases=("set_map",),
                trec_eval=TrecEvalName("set_map", groups=TREC_SET), spellings={"ir_measures": "SetAP"},
                description="set precision × set recall (trec_eval set_map)")
ranking_measure("SetF", trec.set_f, _set_f, aliases=("set_F",), how="through its parts: SetP, SetR",
                params={"beta": Param(1.0, Interval(0), "β: the weight of recall against precision"), **BINARY},
                trec_eval=TrecEvalName("set_F", "params", (1.0,), groups=TREC_SET, takes=("beta",)),
                spellings={"ir_measures": "SetF"},
                description="set F-measure (β+1)PR/(βP+R) of the set precision P and recall R, β weighs recall "
                            "(trec_eval set_F)")
ranking_measure("SetUtility", trec.utility, _utility, aliases=("utility",), range=(-math.inf, math.inf),
                params={"a": Param(1.0, Interval(), "the gain of each relevant document retrieved"),
                        "b": Param(-1.0, Interval(), "the gain of each non-relevant document retrieved"),
                        "c": Param(0.0, Interval(), "the gain of each relevant document not retrieved"),
                        "d": Param(0.0, Interval(), "the gain of each non-relevant document not retrieved"),
                        "num_docs": Param(0, Interval(0, integer=True), "the collection's size (trec_eval's -N), "
                                                                          "needed only when d ≠ 0"),
                        **BINARY},
                trec_eval=TrecEvalName("utility", "params", (1.0, -1.0, 0.0, 0.0), groups=TREC_SET,
                                       takes=("a", "b", "c", "d"), count=4),
                description="set utility a·relret + b·nonrelret + c·relnotret + d·nonrelnotret (trec_eval utility)")
