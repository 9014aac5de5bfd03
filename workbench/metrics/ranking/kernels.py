"""The ranking measures of ir_measures' vocabulary over a :class:`~workbench.metrics.ranking.table.GainTable`:
P@k, Rprec, RR, AP, Success@k (binary), nDCG, ERR, RBP and Sakai's Q/O/P/P+ (graded; Sakai, SIGIR 2006).

Each kernel is a pure function ``kernel(table, ...) → one value per row``, so the same vectorised code scores
one topic or a whole run::

    >>> t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    >>> float(average_precision(t)[0]), float(precision_at(t, k=2)[0])
    (0.38888888888888884, 0.5)

Binary measures call a document relevant when its gain reaches ``rel`` (ir_measures' name for trec_eval's
``-l``, default 1); graded measures use every positive gain, as trec_eval's ndcg does. A topic without relevant
documents scores 0 on every measure (as trec_eval does). ``judged_only=True`` (ir_measures' name for
trec_eval's ``-J``) scores the ranking without its unjudged documents (:meth:`GainTable.judged_only`). Each is
declared once, with its parameters and explanation, in :mod:`workbench.metrics.ranking.measures`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import cast

import numpy as np

from workbench.errors import WorkbenchWarning, warn
from workbench.metrics.ranking.cwl import cwl_gains
from workbench.metrics.ranking.gains import gain_tables, rescaled_gains
from workbench.metrics.ranking.table import (
    GainTable,
    at_rank,
    discounted,
    first_true,
    gain_ranks,
    persistence,
    ranks,
    relevant_ranks,
    row_sums,
    safe_divide,
)
from workbench.metrics.ranking.ties import tie_averaged

__all__ = ["success_at", "precision_at", "r_precision", "reciprocal_rank", "precision_terms", "average_precision",
           "EXP_UNIT_ABOVE", "exp_gains", "dcg_terms", "ndcg", "err_terms", "err", "rbp_terms", "rbp", "sdcg_terms",
           "discount_sum", "scaled_dcg", "blended_ratio", "q_measure", "o_measure", "preferred_rank", "p_measure",
           "p_plus_terms", "p_plus_measure"]


# -------------------------------------------------------------------------------------- binary kernels
def success_at(table: GainTable, k: int = 10, rel: float = 1) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k, else 0 (trec_eval ``success_k``)."""
    return table.relevant(rel)[:, :k].any(axis=1).astype(float)


def precision_at(table: GainTable, k: int = 10, rel: float = 1) -> np.ndarray:
    """P@k = |relevant in the top k| / k (trec_eval ``P_k``: divides by k even when fewer are retrieved)."""
    return table.relevant(rel)[:, :k].sum(axis=1) / k


def r_precision(table: GainTable, rel: float = 1) -> np.ndarray:
    """RPrec = |relevant in the top R| / R, R = number of judged relevant documents (trec_eval ``Rprec``)."""
    n_rel = table.n_relevant(rel)
    return safe_divide(relevant_ranks(table, rel).in_top(n_rel), n_rel)


def reciprocal_rank(table: GainTable, k: int | None = None, rel: float = 1) -> np.ndarray:
    """RR = 1 / rank of the first relevant document, 0 if none in the top k (trec_eval ``recip_rank``;
    RR@10 is MS MARCO's MRR@10)."""
    first, found = first_true(table.relevant(rel)[:, :k])
    return np.where(found, 1.0 / (first + 1), 0.0)


def precision_terms(table: GainTable, k: int | None = None, rel: float = 1) -> tuple[np.ndarray, np.ndarray]:
    """AP's terms over the top k: the precision at every rank and whether the rank holds a relevant document."""
    hit = table.relevant(rel)[:, :k]
    return table.relevant_counts(rel)[:, :k] / ranks(hit.shape[1]), hit


def average_precision(table: GainTable, k: int | None = None, rel: float = 1) -> np.ndarray:
    """AP = Σ_{relevant ranks r ≤ k} P@r / R (trec_eval ``map`` per query, ``map_cut_k`` with k; unretrieved
    relevant documents add 0); the sums of every k read from one running sum of the precisions at the relevant
    ranks (:class:`~workbench.metrics.ranking.table.RelevantRanks`), as the whole ranking's terms add them with
    0 between (-m all_trec's map and 10 map_cut on 2,000 topics × 1,000 ranks, one thread, the masks shared:
    14 → 6 ms)."""
    running = table.shared(_precision_sums_so_far, rel)
    return safe_divide(relevant_ranks(table, rel).last(running, k), table.n_relevant(rel))


def _precision_sums_so_far(table: GainTable, rel: float) -> np.ndarray:
    """At each relevant retrieved rank, Σ P@r over its row's relevant ranks so far, added in rank order."""
    at = relevant_ranks(table, rel)
    return at.running(at.ordinals / ranks(table.gains.shape[1])[at.columns])


# -------------------------------------------------------------------------------------- graded kernels
EXP_UNIT_ABOVE = 1000.0
"""The top grade past which nDCG(gain=exp) counts a topic's gains 2^g − 1 in units of 2^(top grade): 2^1024
overflows a double, and a DCG of infinite gains over an infinite ideal would be NaN."""


def exp_gains(table: GainTable) -> tuple[np.ndarray, np.ndarray]:
    """The exponential gains 2^g − 1 of the retrieved and of the ideal grades (Burges et al.), each row in units of
    2^t where its top grade t passes :data:`EXP_UNIT_ABOVE` ((2^g − 1)/2^t = 2^(g − t) − 2^−t, which does not
    overflow), else as they are: a ratio of two sums of one row (nDCG) is the same in either unit.

    >>> gains, ideal = exp_gains(GainTable.from_gains([[2, 0], [2000, 1]], [[2], [2000, 1]]))
    >>> gains.tolist(), ideal[1].tolist()
    ([[3.0, 0.0], [1.0, 0.0]], [1.0, 0.0])
    """
    top = np.maximum(table.gains.max(axis=1, initial=0.0), table.ideal.max(axis=1, initial=0.0))
    unit = np.where(top > EXP_UNIT_ABOVE, top, 0.0)[:, None]
    return np.exp2(table.gains - unit) - np.exp2(-unit), np.exp2(table.ideal - unit) - np.exp2(-unit)


def _graded_gains(table: GainTable, k: int | None, gain: str, gains, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """nDCG's gains over the top k (mapped by ``gains``, tie-averaged with ``ties="average"``) and the ideal DCG
    (trec_eval's arithmetic: gains divided by log2(r + 1), added rank by rank)."""
    mapped, best = _mapped_gains(table, gain, gains, ties)
    return mapped[:, :k], row_sums(discounted(best[:, :k]))


def _mapped_gains(table: GainTable, gain: str, gains, ties: str) -> tuple[np.ndarray, np.ndarray]:
    """nDCG's gains at every rank (mapped by ``gains``, tie-averaged with ``ties="average"``) and the ideal's, made
    once per table where the arguments can be a key (:meth:`~workbench.metrics.ranking.table.GainTable.shared`):
    every cutoff's running sum reads them."""
    return cast(tuple[np.ndarray, np.ndarray], table.shared(_gains_and_ideal, gain, gains, ties))


def _gains_and_ideal(table: GainTable, gain: str, gains, ties: str) -> tuple[np.ndarray, np.ndarray]:
    if gains:
        mapped, best = gain_tables(table, dict(gains))
    elif gain == "exp":
        mapped, best = exp_gains(table)
    else:
        mapped, best = table.gains, table.ideal
    return (tie_averaged(table, mapped) if ties == "average" else mapped), best


def dcg_terms(table: GainTable, k: int | None = None, gain: str = "linear", gains=None,
              ties: str = "trec_eval") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """nDCG's terms over the top k: the gain at every rank (tie-averaged with ``ties="average"``), the discounts
    1/log2(r + 1) and the ideal DCG (the gains and the ideal DCG of a topic graded past :data:`EXP_UNIT_ABOVE` in
    units of 2^(top grade) with ``gain="exp"``: :func:`exp_gains`)."""
    mapped, ideal_dcg = _graded_gains(table, k, gain, gains, ties)
    return mapped, 1.0 / np.log2(ranks(mapped.shape[1]) + 1.0), ideal_dcg


def ndcg(table: GainTable, k: int | None = None, gain: str = "linear", gains=None,
         ties: str = "trec_eval") -> np.ndarray:
    """nDCG = DCG / ideal DCG, DCG = Σ_r g(r) / log2(r + 1) over the top k (all retrieved when k is None).

    ``gain="linear"``: g = the grade (trec_eval ``ndcg`` / ``ndcg_cut_k``, Järvelin & Kekäläinen);
    ``gain="exp"``: g = 2^grade − 1 (Burges et al. 2005; a topic graded past 1000 counted in units of 2^(top
    grade), :func:`exp_gains`, so that its nDCG stays a number). The ideal ranks every judged document.
    ``gains`` maps grades to gains as trec_eval's ``-m ndcg.1=3,2=9`` and ir_measures' ``nDCG(gains={1:3,2:9})``
    do (a mapping or ``(grade, gain)`` pairs; :func:`~workbench.metrics.ranking.gains.gain_tables`).
    ``ties="average"``: documents with equal scores share the mean gain of their tie (McSherry & Najork 2008,
    scikit-learn's ``ndcg_score``; :func:`~workbench.metrics.ranking.ties.tie_averaged`).
    """
    args = (gain, gains if gains is None or isinstance(gains, Mapping) else tuple(gains), ties)
    depth = _mapped_gains(table, *args)[1].shape[1] if gains else table.ideal.shape[1]  # mapped: its own length
    dcg = _grades_dcg(table, k) if _mapped_gains(table, *args)[0] is table.gains else \
        table.running_sum(_discounted_gains, k, *args)
    return safe_divide(dcg, table.running_sum(_discounted_ideal, k, *args, width=depth))


def _grades_dcg(table: GainTable, k: int | None) -> np.ndarray:
    """DCG@k of the grades themselves (trec_eval's ``ndcg``, ``ndcg_cut``), its terms added at the ranks of a grade
    other than 0 only (:func:`~workbench.metrics.ranking.table.gain_ranks`), as the whole ranking's terms add them
    with zeros between (-m all_trec's ndcg and 9 ndcg_cut on 2,000 topics × 1,000 ranks, one thread: 12 → 5 ms)."""
    k = table.gains.shape[1] if k is None else min(k, table.gains.shape[1])
    return gain_ranks(table).last_or_whole(table.shared(_grades_dcg_so_far), k,
                                           lambda rows: row_sums(discounted(table.gains[rows, :k])))


def _grades_dcg_so_far(table: GainTable) -> np.ndarray:
    """At each rank of a grade other than 0, its row's DCG so far, added in rank order."""
    at = gain_ranks(table)
    return at.running(table.gains[at.rows, at.columns] / np.log2(ranks(table.gains.shape[1]) + 1.0)[at.columns])


def _discounted_gains(table: GainTable, columns: slice, gain: str, gains, ties: str) -> np.ndarray:
    """nDCG's terms at the ranks ``columns``: each gain over log2(r + 1) (the sums of every k read from one running
    sum, :meth:`~workbench.metrics.ranking.table.GainTable.running_sum`)."""
    mapped = _mapped_gains(table, gain, gains, ties)[0]
    return mapped[:, columns] / np.log2(ranks(mapped.shape[1])[columns] + 1.0)


def _discounted_ideal(table: GainTable, columns: slice, gain: str, gains, ties: str) -> np.ndarray:
    """The ideal ranking's terms at the ranks ``columns``, as :func:`_discounted_gains`."""
    best = _mapped_gains(table, gain, gains, ties)[1]
    return best[:, columns] / np.log2(ranks(best.shape[1])[columns] + 1.0)


def _graded(table: GainTable, gains: np.ndarray, max_grade: float | None, measure: str
            ) -> tuple[np.ndarray, np.ndarray]:
    """The grades a graded measure reads and g_max per topic: ``max_grade``, or the highest judged grade of the
    topic when it is None. The rule for every measure with a ``max_grade``: a grade above it counts as
    ``max_grade`` (a :class:`~workbench.errors.WorkbenchWarning` says so, with how many and the highest)."""
    if max_grade is None:
        top = table.ideal[:, 0] if table.ideal.shape[1] else np.zeros(table.ideal.shape[0])
        return gains, top[:, None]
    above = gains > max_grade
    if above.any():
        warn(f"{measure}: {int(above.sum())} retrieved grade{'s' if above.sum() > 1 else ''} above "
             f"max_grade={max_grade:g} (up to {float(gains[above].max()):g}) count as {max_grade:g}",
             WorkbenchWarning)
    return _capped(gains, max_grade), np.full((table.gains.shape[0], 1), float(max_grade))


def _capped(gains: np.ndarray, max_grade: float | None) -> np.ndarray:
    """The grades a graded measure reads: ``max_grade`` for a grade above it (:func:`_graded`)."""
    return gains if max_grade is None else np.minimum(gains, max_grade)


def err_terms(table: GainTable, k: int | None = None, gain: str = "exp",
              max_grade: float | None = 4) -> tuple[np.ndarray, np.ndarray]:
    """ERR's terms over the top k: the probability R_r of stopping at each rank and Π_{i<r} (1 − R_i) of
    reaching it."""
    gains, top = _graded(table, table.gains[:, :k], max_grade, "ERR")
    if gain == "exp":  # (2^g − 1) / 2^g_max without 2^g_max, which overflows for a huge max_grade
        stop = np.where(top > 0, np.exp2(gains - top) - np.exp2(-top), 0.0)
    else:  # linear
        stop = safe_divide(gains, (top + 1.0) * (top > 0))
    return stop, np.cumprod(np.hstack([np.ones((stop.shape[0], 1)), 1.0 - stop[:, :-1]]), axis=1)


def err(table: GainTable, k: int | None = None, gain: str = "exp",
        max_grade: float | None = 4) -> np.ndarray:
    """ERR = Σ_r R_r / r · Π_{i<r} (1 − R_i) (Chapelle et al. 2009) over the top k.

    ``gain="exp"``: R = (2^g − 1) / 2^g_max (Chapelle); ``gain="linear"``: R = g / (g_max + 1) (NTCIREVAL).
    g_max is ``max_grade``: by default 4, the top of the TREC Web track's 0–4 scale (as gdeval, hence
    ir_measures' ``ERR@20``); None takes the highest judged grade of the query. A grade above ``max_grade``
    counts as ``max_grade``, with a warning (as in :func:`rbp`).
    """
    stop, reach = err_terms(table, k, gain, max_grade)
    return row_sums(stop * reach / ranks(stop.shape[1]))


def rbp_terms(table: GainTable, p: float = 0.8, max_grade: float | None = None, rel: float | None = None,
              gain: str = "scaled", gains: Mapping[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """RBP's terms: each rank's gain (:func:`rbp` says which) and the persistence weights p^(r−1)."""
    if rel is not None:
        scaled = table.relevant(rel).astype(float)
    elif gains:
        scaled = rescaled_gains(table, dict(gains))
    else:
        grades, top = _graded(table, table.gains, max_grade, "RBP")
        scaled = _rbp_scaled(grades, top, gain)
    return scaled, persistence(p, table.gains.shape[1])


def _rbp_scaled(grades: np.ndarray, top: np.ndarray, gain: str) -> np.ndarray:
    """RBP's gain of each grade (``top``: g_max, broadcast against the grades): itself, 0 below 0 (``raw``), or over
    g_max (``scaled``); 0 for a grade 0 either way."""
    return np.maximum(grades, 0.0) if gain == "raw" else safe_divide(grades, top)


def rbp(table: GainTable, p: float = 0.8, max_grade: float | None = None, rel: float | None = None,
        gain: str = "scaled", gains: Mapping[float, float] | None = None) -> np.ndarray:
    """RBP = (1 − p) Σ_r g(r) p^(r−1) (Moffat & Zobel 2008), the gain g of a grade being, by the parameters:

    * by default (``gain="scaled"``), the grade over g_max, the highest judged grade of the topic or
      ``max_grade`` (NTCIREVAL's, and trec_eval's ``rbp`` for integer grades; a grade above ``max_grade`` counts
      as ``max_grade``, with a warning, as in :func:`err`);
    * ``gain="raw"``: the grade itself, 0 below 1 (ranx's ``rbp``);
    * with ``rel``: binary, 1 from grade ``rel`` up (ir_measures' ``RBP(rel=1)``);
    * with ``gains``: trec_eval's ``rel=gain`` pairs, rescaled to [0, 1] when some gain lies outside
      (:func:`~workbench.metrics.ranking.gains.rescaled_gains`, trec_eval's ``rbp.1=3``).

    trec_eval's default p is 0.9, the registry's 0.8 (ir_measures').

    Graded from the grades themselves (no ``rel``, no ``gains``), the terms are added at the ranks of a grade other
    than 0 only (:func:`~workbench.metrics.ranking.table.gain_ranks`; a grade 0 gains 0), as the whole ranking's
    terms add them (``-m all_trec`` on 2,000 topics × 1,000 ranks, one thread: 12 → 4 ms)."""
    if rel is not None or gains or (max_grade is not None and max_grade <= 0):
        scaled, weights = rbp_terms(table, p, max_grade, rel, gain, gains)
        return (1.0 - p) * row_sums(scaled * weights)
    at = gain_ranks(table)
    grades, top = _graded(table, table.gains[at.rows, at.columns], max_grade, "RBP")
    weights = persistence(p, table.gains.shape[1])

    def whole(rows: np.ndarray) -> np.ndarray:
        return row_sums(_rbp_scaled(_capped(table.gains[rows], max_grade), top[rows], gain) * weights)

    return (1.0 - p) * at.sums_or_whole(_rbp_scaled(grades, top[at.rows, 0], gain) * weights[at.columns], whole)


def sdcg_terms(table: GainTable, k: int | None, max_rel: float | None, min_rel: float = 0
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """SDCG@k's terms: each of the top k ranks' gain on [0, 1] (:func:`~workbench.metrics.ranking.cwl.cwl_gains`),
    the discounts 1/log2(r + 1), and the DCG@k of k fully relevant documents."""
    scaled = cwl_gains(table.top(k), min_rel, max_rel)
    discount = 1.0 / np.log2(ranks(scaled.shape[1]) + 1.0)
    return scaled, discount, discount_sum(cast(int, k))  # SDCG declares its cutoff required


_EXACT_TERMS = 1_000_000


def discount_sum(k: int) -> float:
    """Σ_{r=1..k} 1/log2(r + 1): added term by term up to a million terms, beyond by the midpoint integral
    ln 2 · (li(k + 1.5) − li(10⁶ + 1.5)) of the slowly varying rest (li the logarithmic integral), exact there to
    ~1e-15 relative.

    >>> round(discount_sum(2), 12)
    1.630929753571
    >>> exact = float(np.sum(1.0 / np.log2(np.arange(1, 1_500_001) + 1.0)))  # the rest integrated past 10⁶
    >>> bool(abs(discount_sum(1_500_000) - exact) < 1e-13 * exact)
    True
    """
    total = float(np.sum(1.0 / np.log2(ranks(min(k, _EXACT_TERMS)) + 1.0)))
    if k <= _EXACT_TERMS:
        return total
    from scipy.special import expi

    return total + math.log(2.0) * float(expi(math.log(k + 1.5)) - expi(math.log(_EXACT_TERMS + 1.5)))


def scaled_dcg(table: GainTable, k: int | None, max_rel: float | None, min_rel: float = 0) -> np.ndarray:
    """SDCG@k = Σ_{r ≤ k} g(r)/log2(r + 1) / Σ_{r ≤ k} 1/log2(r + 1), g = (min(max(grade, min_rel), max_rel) −
    min_rel) / (max_rel − min_rel): DCG@k over the DCG@k of k fully relevant documents, as if more were relevant
    than judged (Moffat, AIRS 2013; the C/W/L framework's NDCG-k, ir_measures' ``SDCG(max_rel=…)@k`` through
    cwl_eval, which looks no deeper than 1,000 ranks).

    >>> round(float(scaled_dcg(GainTable.from_gains([[2, 0, 1]], [[2, 1]]), k=2, max_rel=2)[0]), 6)
    0.613147
    """
    scaled, discount, total = sdcg_terms(table, k, max_rel, min_rel)
    return row_sums(scaled * discount) / total


def blended_ratio(table: GainTable, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's BR(r) = (C(r) + β cg(r)) / (r + β cg*(r)) at every rank, and the relevance mask; where β cg
    overflows (a huge β and huge grades), the same ratio divided through by β, (C(r)/β + cg(r)) / (r/β + cg*(r)).

    >>> float(blended_ratio(GainTable.from_gains([[1e300]], [[1e300]]), 1e300)[0][0, 0])
    1.0
    """
    gains = table.gains
    width = gains.shape[1]
    rel = gains > 0
    ideal = np.zeros((gains.shape[0], width))
    take = min(width, table.ideal.shape[1])
    ideal[:, :take] = table.ideal[:, :take]
    ideal_cum = np.cumsum(ideal, axis=1)
    found, gained, place = np.cumsum(rel, axis=1), np.cumsum(gains, axis=1), ranks(width)
    with np.errstate(over="ignore", invalid="ignore"):
        ratio = (found + beta * gained) / (place + beta * ideal_cum)
    overflowed = ~np.isfinite(ratio)
    if overflowed.any():
        ratio = np.where(overflowed, (found / beta + gained) / (place / beta + ideal_cum), ratio)
    return ratio, rel


def q_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """Q = (1/R) Σ_{relevant ranks r} BR(r), R = number of judged relevant documents (Sakai, SIGIR 2006, eq. of Q)."""
    ratio, rel = blended_ratio(table, beta)
    return safe_divide(row_sums(ratio * rel), (table.ideal > 0).sum(axis=1))


def o_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """O = BR(r1), r1 the rank of the first relevant document (Sakai, SIGIR 2006)."""
    ratio, rel = blended_ratio(table, beta)
    return at_rank(ratio, *first_true(rel))


def preferred_rank(table: GainTable) -> tuple[np.ndarray, np.ndarray]:
    """rp: the first rank holding the highest gain retrieved (Sakai, SIGIR 2006), and whether any is relevant."""
    gains = table.gains
    if gains.shape[1] == 0:
        return np.zeros(gains.shape[0], dtype=int), np.zeros(gains.shape[0], dtype=bool)
    return gains.argmax(axis=1), gains.max(axis=1) > 0


def p_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """P = BR(rp), rp the first rank holding the highest relevance level retrieved (Sakai, SIGIR 2006, Figure 1:
    P(X) = 6/7, P(Y) = 4/7)."""
    ratio, _ = blended_ratio(table, beta)
    preferred, found = preferred_rank(table)
    return at_rank(ratio, preferred, found)


def p_plus_terms(table: GainTable, beta: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """P+'s terms: the blended ratio at every rank, and the relevant ranks down to the preferred rank rp."""
    ratio, rel = blended_ratio(table, beta)
    preferred, found = preferred_rank(table)
    return ratio, (ranks(rel.shape[1])[None, :] <= preferred[:, None] + 1) & rel & found[:, None]


def p_plus_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """P+ = (1 / C(rp)) Σ_{relevant r ≤ rp} BR(r): BR averaged over the relevant ranks down to rp
    (Sakai, SIGIR 2006)."""
    ratio, upto = p_plus_terms(table, beta)
    return safe_divide(row_sums(ratio * upto), upto.sum(axis=1))
