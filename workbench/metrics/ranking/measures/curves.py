"""Points of the precision–recall curve: interpolated precision at a recall level (IPrec) and its 11-point average,
as trec_eval 10.0 interpolates.

Each measure is declared once here with the terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.trec` and :mod:`~workbench.metrics.ranking.curves`.
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking import curves, trec
from workbench.metrics.ranking.declare import (
    BINARY,
    TREC_ALL,
    TREC_OFFICIAL,
    TREC_RECALLS,
    TrecEvalName,
    ranking_measure,
)
from workbench.metrics.ranking.table import GainTable, safe_divide
from workbench.metrics.ranking.terms import Terms
from workbench.metrics.registry import Levels, Param

__all__: list[str] = []


def _interpolated(table: GainTable, levels: np.ndarray, rel: float) -> tuple[np.ndarray, np.ndarray]:
    """Σ over ``levels`` of each rank's share of the interpolated precision (the relevant documents down to the
    rank whose precision the level takes, 1/rank each), and the levels trec_eval leaves undefined (NaN)."""
    values = trec.interpolated_precisions(table, levels, rel)  # the kernel: its edges decide
    at, counts = curves.interpolation_ranks(table, np.clip(levels, 0.0, 1.0), rel, rule="round")
    relevant = table.relevant(rel)
    width = relevant.shape[1]
    counts &= ~np.isnan(values) & (values > 0)
    total = np.zeros(relevant.shape)
    for column in range(len(levels)):
        upto = np.arange(width)[None, :] <= at[:, column:column + 1]
        total += np.where(counts[:, column:column + 1] & upto & relevant,
                          safe_divide(np.ones((len(at), 1)), at[:, column:column + 1] + 1.0), 0.0)
    return total, np.isnan(values).any(axis=1)


def _iprec(table: GainTable, recall: float | None = None, rel: float = 1.0) -> Terms:
    total, undefined = _interpolated(table, np.array([recall], dtype=float), rel)
    return Terms(total, "IPrec@r = max_{i ≥ i_r} P@i = Σ_{relevant j ≤ i*} 1/i*, i_r the rank of the ⌊r·R⌉-th "
                 "relevant document, i* the first rank i ≥ i_r of the highest P@i (0 when recall r is not reached)",
                 rest=np.where(undefined, np.nan, 0.0),
                 rest_label="an empty ranking: undefined, as trec_eval's 0/0")


def _eleven_point(table: GainTable, recalls=curves.ELEVEN_POINTS, rel: float = 1.0) -> Terms:
    levels = np.array(recalls, dtype=float)
    total, undefined = _interpolated(table, levels, rel)
    return Terms(total / len(levels), "11ptAvg = (1/L) Σ_levels IPrec@level over the L recall levels, each a share "
                 "of the relevant documents down to the rank it takes", rest=np.where(undefined, np.nan, 0.0),
                 rest_label="an empty ranking: undefined, as trec_eval's 0/0")


ranking_measure("IPrec", trec.interpolated_precision, _iprec, cutoff="recall", aliases=("iprec_at_recall",),
                params={"recall": Param(None, curves.RECALL_LEVEL, "the recall level (required, written @r)"),
                        **BINARY},
                trec_eval=TrecEvalName("iprec_at_recall", "cut_double", TREC_RECALLS, groups=TREC_OFFICIAL),
                spellings={"ir_measures": "IPrec"},
                description="interpolated precision at a recall level: the best precision at that recall or beyond "
                            "(trec_eval iprec_at_recall)")
ranking_measure("11ptAvg", trec.eleven_point_average, _eleven_point, aliases=("11pt_avg",),
                params={"recalls": Param(curves.ELEVEN_POINTS, Levels(), "the recall levels averaged over, "
                                         "written [0.25,0.5]"), **BINARY},
                trec_eval=TrecEvalName("11pt_avg", "params", TREC_RECALLS, groups=TREC_ALL, takes=("recalls",)),
                description="interpolated precision averaged at recall 0, 0.1, …, 1 (trec_eval 11pt_avg)")
