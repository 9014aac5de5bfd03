"""Measures of how a ranking orders the judged documents: Clarke et al.'s compatibility with an ideal ranking and
the pairwise accuracy (the kernels of :mod:`workbench.metrics.ranking.orderings`).

Compat's RBO adds, at every depth i, the overlap of the two rankings' first i documents; a retrieved document in the
ideal ranking is in that overlap from depth max(its rank, its ideal position) on, so its term is the weight of those
depths. The pairwise accuracy's term at a relevant rank is the share of the pairs it heads.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from workbench.metrics.ranking import orderings
from workbench.metrics.ranking.declare import REL, cutoff, ranking_measure
from workbench.metrics.ranking.table import CUTOFF, GainTable
from workbench.metrics.ranking.terms import Terms, reciprocal
from workbench.metrics.registry import Choices, Interval, Param

__all__: list[str] = []


def _compatibility(table: GainTable, p: float = 0.95, normalize: bool = True, depth: int | None = None) -> Terms:
    share, positions, divisor = orderings.compatibility_terms(table, p, normalize, depth)
    inverse = reciprocal(divisor)
    return Terms(share * inverse[:, None], "Compat = Σ_{documents in both} share / the ideal's own RBO, share = "
                 "Σ_{i = max(rank, ideal position)}^{D} p^(i−1)/i / Σ_{i ≤ D} p^(i−1)",
                 {"ideal_position": np.where(positions > 0, positions, np.nan), "share": share,
                  "1/ideal_rbo": np.broadcast_to(inverse[:, None], share.shape)})


def _pairwise_accuracy(table: GainTable, k: int | None = None, rel: float = 1) -> Terms:
    shares, below = orderings.pairwise_accuracy_terms(table, k, rel)
    return Terms(shares, "PairwiseAccuracy = Σ_{relevant r} b_r / (R·N), b_r the non-relevant documents retrieved "
                 "below r",
                 {"nonrelevant_below": below.astype(float)})


ranking_measure("Compat", orderings.compatibility, _compatibility,
                source="Clarke, Vtyurina & Smucker, Assessing top-k preferences, TOIS 2021 (compatibility.py); "
                       "ir_measures' compat provider (equal to it on runs without tied scores: it ranks tied "
                       "documents by id ascending, the workbench as trec_eval does)",
                params={"p": Param(0.95, Interval(0.01, 0.99), "the persistence p of the rank-biased overlap "
                                   "(compatibility.py's default 0.95; it takes 0.01 to 0.99)"),
                        "normalize": Param(True, Choices((True, False)), "divide by the ideal ranking's own RBO, "
                                           "below 1 when the ideal ranking is short (TOIS 2021); False: the RBO of "
                                           "Clarke et al.'s CIKM and ICTIR 2020 papers"),
                        "depth": Param(None, dataclasses.replace(CUTOFF, optional=True), "the depth RBO is summed to: "
                                       "None, the longer of the ranking and the ideal ranking (ir_measures'); 1000 "
                                       "as compatibility.py, the papers' endless sum to within p^1000")},
                spellings={"ir_measures": "Compat"}, how="per document: its share of the overlap",
                description="compatibility: the rank-biased overlap of the ranking with the ideal ranking of the "
                            "judgements most compatible with it (by grade, ties in the ranking's order), normalised "
                            "by the ideal's own")
ranking_measure("PairwiseAccuracy", orderings.pairwise_accuracy, _pairwise_accuracy, cutoff="k",
                source="ir_measures' accuracy provider (Accuracy; equal to it on runs without tied scores, which "
                       "it orders its own way, the workbench as trec_eval does)",
                params={**cutoff(), **REL},
                spellings={"ir_measures": "Accuracy (the workbench's Accuracy is the filtering measure)"},
                how="per document: the pairs it heads",
                description="the share of (relevant, non-relevant) pairs of retrieved documents that the ranking puts "
                            "relevant first; ir_measures calls it Accuracy, the name of the filtering measure here")
