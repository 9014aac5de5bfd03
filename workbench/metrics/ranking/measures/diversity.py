"""The diversity measures over subtopic judgements, as ndeval computes them: α-nDCG@k, ERR-IA@k, NRBP, P-IA@k and
subtopic recall@k.

Each measure is declared once here with the per-document-and-subtopic terms that explain it; the kernels live in
:mod:`workbench.metrics.ranking.diversity`. Every one is a sum over ranks r and subtopics s of a term
J(r, s) · novelty · discount · normaliser (J(r, s) = 1 when the document at rank r reaches grade ``rel`` for s).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.ranking.declare import REL, diversity_measure
from workbench.metrics.ranking.diversity import (
    DEPTH,
    NOVELTY,
    PERSISTENCE,
    SubtopicTable,
    alpha_ndcg,
    discounted_sum,
    err_ia,
    ideal_ranking,
    nrbp,
    p_ia,
    reciprocal_decay,
    strecall,
)
from workbench.metrics.ranking.table import ranks
from workbench.metrics.registry import Param

__all__ = ["SubtopicTerms"]


@dataclass
class SubtopicTerms:
    """A diversity kernel's terms on a topics × ranks × subtopics relevance array: ``contribution`` (same shape),
    the named ``factors`` (each broadcastable to it), the ``formula``, and the α of the greedy ideal that
    ``lost`` compares with."""

    contribution: np.ndarray
    factors: dict[str, np.ndarray]
    formula: str
    ideal_alpha: float


def _depth(table: SubtopicTable, k: int | None) -> int:
    return table.grades.shape[1] if k is None else k


def _within(relevant: np.ndarray, depth: int) -> np.ndarray:
    """True at the ranks r ≤ depth (1-based) of a topics × ranks × subtopics array."""
    return (np.arange(relevant.shape[1]) < depth)[None, :, None]


def _per_topic(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=float)[:, None, None]


def _inverse(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return np.divide(1.0, values, out=np.zeros_like(values), where=values > 0)


def _novelty(relevant: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """c_s(r), the documents above r relevant to s, and (1 − α)^{c_s(r)} where r is relevant to s (0 elsewhere),
    the terms :func:`~workbench.metrics.ranking.diversity.novelty_gains` adds over the subtopics."""
    seen = np.cumsum(relevant, axis=1) - relevant
    return seen, np.where(relevant, (1.0 - alpha) ** seen, 0.0)


def _alpha_ndcg(table: SubtopicTable, relevant: np.ndarray, k: int | None = 20, alpha: float = 0.5,
                rel: float = 1.0) -> SubtopicTerms:
    depth = _depth(table, k)
    seen, novelty = _novelty(relevant, alpha)
    discount = 1.0 / np.log2(ranks(relevant.shape[1]) + 1.0)
    ideal = discounted_sum(ideal_ranking(table, alpha, rel, depth)[0])
    return SubtopicTerms(novelty * discount[None, :, None] * _within(relevant, depth) * _per_topic(_inverse(ideal)),
                         {"seen_above": seen, "novelty": novelty, "discount": discount[None, :, None],
                          "ideal_dcg": _per_topic(ideal)},
                         "α-nDCG@k = Σ_{r ≤ k} Σ_s J(r, s)·(1 − α)^{c_s(r)} · discount(r) / ideal α-DCG@k, "
                         "discount(r) = 1/log2(r + 1), c_s(r) the documents above r relevant to s", alpha)


def _err_ia(table: SubtopicTable, relevant: np.ndarray, k: int | None = 20, alpha: float = 0.5,
            rel: float = 1.0) -> SubtopicTerms:
    depth = _depth(table, k)
    seen, novelty = _novelty(relevant, alpha)
    inverse_rank = 1.0 / ranks(relevant.shape[1])
    ideal = table.subtopics(rel).astype(float) * reciprocal_decay(1.0 - alpha, depth)
    return SubtopicTerms(novelty * inverse_rank[None, :, None] * _within(relevant, depth) *
                         _per_topic(_inverse(ideal)),
                         {"seen_above": seen, "novelty": novelty, "1/r": inverse_rank[None, :, None],
                          "ideal_err": _per_topic(ideal)},
                         "ERR-IA@k = Σ_{r ≤ k} Σ_s J(r, s)·(1 − α)^{c_s(r)} · 1/r / (m·Σ_{i ≤ k} (1 − α)^{i−1}/i), "
                         "m the subtopics with a relevant document", alpha)


def _nrbp(table: SubtopicTable, relevant: np.ndarray, alpha: float = 0.5, beta: float = 0.5,
          rel: float = 1.0) -> SubtopicTerms:
    seen, novelty = _novelty(relevant, alpha)
    width = relevant.shape[1]
    weight = np.cumprod(np.concatenate(([1.0], np.full(max(width - 1, 0), beta))))[:width]  # as the kernel
    scale = (1.0 - (1.0 - alpha) * beta) * _inverse(table.subtopics(rel))
    return SubtopicTerms(novelty * weight[None, :, None] * _per_topic(scale),
                         {"seen_above": seen, "novelty": novelty, "weight": weight[None, :, None],
                          "scale": _per_topic(scale)},
                         "NRBP = Σ_r Σ_s J(r, s)·(1 − α)^{c_s(r)} · β^{r−1} · (1 − (1 − α)β)/m", alpha)


def _p_ia(table: SubtopicTable, relevant: np.ndarray, k: int | None = 20, rel: float = 1.0) -> SubtopicTerms:
    depth = _depth(table, k)
    share = _inverse(depth * table.subtopics(rel).astype(float))
    return SubtopicTerms(relevant * _within(relevant, depth) * _per_topic(share), {"1/(k·m)": _per_topic(share)},
                         "P-IA@k = Σ_{r ≤ k} Σ_s J(r, s) · 1/(k·m)", 0.0)


def _strecall(table: SubtopicTable, relevant: np.ndarray, k: int | None = 20, rel: float = 1.0) -> SubtopicTerms:
    depth = _depth(table, k)
    seen = np.cumsum(relevant, axis=1) - relevant
    first = relevant & (seen == 0) & _within(relevant, depth)
    share = _inverse(table.subtopics(rel))
    return SubtopicTerms(first * _per_topic(share), {"first_for_subtopic": first, "1/m": _per_topic(share)},
                         "StRecall@k = Σ_s max_{r ≤ k} J(r, s) / m: 1/m for the first document relevant to s in the "
                         "top k", 1.0)


_K = {"k": Param(20, DEPTH, "the cutoff: the top k ranks")}
_ALPHA = {"alpha": Param(0.5, NOVELTY, "α: how much a document relevant to a subtopic already covered "
                                              "loses, (1 − α) per earlier one")}
diversity_measure("alpha_nDCG", alpha_ndcg, _alpha_ndcg, params={**_K, **_ALPHA, **REL}, cutoff="k",
                  aliases=("alpha-nDCG",), range=(0.0, float("inf")),
                  spellings={"ir_measures": ("alpha_nDCG", "α_nDCG")},
                  description="α-nDCG@k over subtopics (Clarke et al., SIGIR 2008; the ideal built greedily, as "
                              "ndeval: a run may beat it, > 1)")
diversity_measure("ERR_IA", err_ia, _err_ia, params={**_K, **_ALPHA, **REL}, cutoff="k", aliases=("ERR-IA",),
                  spellings={"ir_measures": "ERR_IA"},
                  description="intent-aware ERR@k over subtopics (Chapelle et al., CIKM 2009; ndeval's "
                              "normalisation)")
diversity_measure("NRBP", nrbp, _nrbp, spellings={"ir_measures": "NRBP"},
                  params={**_ALPHA, "beta": Param(0.5, PERSISTENCE, "β: the persistence, as RBP's p"), **REL},
                  description="novelty- and rank-biased precision over subtopics (Clarke et al., ICTIR 2009)")
diversity_measure("P_IA", p_ia, _p_ia, params={**_K, **REL}, cutoff="k", aliases=("P-IA",),
                  spellings={"ir_measures": "P_IA"},
                  description="intent-aware precision@k (Agrawal et al., WSDM 2009)")
diversity_measure("StRecall", strecall, _strecall, params={**_K, **REL}, cutoff="k", aliases=("strec",),
                  spellings={"ir_measures": "StRecall"},
                  description="subtopic recall@k: the subtopics with a relevant document in the top k (Zhai et al., "
                              "SIGIR 2003)")
