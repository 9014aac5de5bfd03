"""trec_eval 10.0's ranking measures beyond those of :mod:`~workbench.metrics.ranking.kernels`, over its gain
table.

Each kernel is a pure function ``kernel(table, ...) → one value per row`` of a
:class:`~workbench.metrics.ranking.table.GainTable`, following the C source of trec_eval 10.0
(usnistgov/trec_eval, ``m_<name>.c``) operation for operation, so that per-topic values agree with trec_eval
to the last bits. A relevant document is one whose grade reaches ``rel`` (trec_eval's ``-l``);
documents outside the qrels are *not pooled*, documents with a negative grade are *pooled but unjudged*
(trec_eval's ``-1``), as the qrels join records (:mod:`workbench.data.trec`)::

    >>> from workbench.metrics.ranking.table import GainTable
    >>> t = GainTable.from_gains([[0, 1, 1]], [[1, 1, 0, 0]])
    >>> float(bpref(t)[0]), float(recall_at(t, k=2)[0]), float(set_f(t)[0])
    (0.5, 0.5, 0.8)

The graded measures (``ndcg``, ``ndcg_rel``, ``Rndcg``, ``G``, ``rbp``) take trec_eval's ``gains``: a mapping
``{grade: gain}`` overriding the default gain (the grade itself), e.g. ``{1: 3, 2: 9, 4: 4.5}`` for
``-m ndcg.1=3,2=9,4=4.5``. Aggregation over topics is the caller's (trec_eval: the mean, except sums for the
``num_*`` counts and the geometric mean for ``gm_map`` and ``gm_bpref``: :mod:`workbench.metrics.summary`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import cast

import numpy as np

from workbench.metrics.ranking import curves
from workbench.metrics.ranking.gains import gain_tables
from workbench.metrics.ranking.table import (
    GainTable,
    RelevantRanks,
    discounted,
    gain_ranks,
    persistence,
    ranks,
    relevant_ranks,
    row_sums,
    safe_divide,
)

__all__ = ["INFAP_EPSILON", "num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_precision",
           "set_relative_precision", "set_recall", "set_map", "set_f", "f_of_set", "utility", "recall_at",
           "relative_precision_at", "r_precision_multiple", "interpolated_precisions", "interpolated_precision",
           "eleven_point_average", "bpref_terms", "bpref", "infap_terms", "inferred_ap", "precision_sums", "yaap",
           "binary_g", "bing_terms", "unjudged_at", "judged_at", "rbp_residual", "relevance_strings", "dcg",
           "dcg_gains", "ideal_dcg", "ndcg_rel_terms", "ndcg_rel", "r_ndcg", "g_measure", "g_terms"]

INFAP_EPSILON = 0.00001  # trec_eval.h


# --------------------------------------------------------------------------------------------- helpers
def _relevant(table: GainTable, rel: float) -> np.ndarray:
    return table.relevant(rel)


# -------------------------------------------------------------------------------------------- counts
def _cleaned(table: GainTable, values: np.ndarray) -> np.ndarray:
    """``values`` with 0 on the placeholder rows of topics the run lacks: trec_eval.c's clean-up after ``-c``
    scores its one-document placeholder ranking (``num_ret``, ``utility``, ``unj``, ``rbp_resid``)."""
    return np.where(table.placeholder, 0.0, values) if table.placeholder.any() else values


def num_q(table: GainTable) -> np.ndarray:
    """1 per topic: summed over topics, the number of topics (trec_eval ``num_q``)."""
    return np.ones(table.gains.shape[0])


def num_ret(table: GainTable) -> np.ndarray:
    """Number of retrieved documents (trec_eval ``num_ret``; summed, not averaged, over topics)."""
    return _cleaned(table, table.num_ret.astype(float))


def num_rel(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """Number of judged documents reaching ``rel`` (trec_eval ``num_rel``)."""
    return table.n_relevant(rel).astype(float)


def num_rel_ret(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """Number of relevant documents retrieved (trec_eval ``num_rel_ret``)."""
    return _relevant(table, rel).sum(axis=1).astype(float)


def num_nonrel_judged_ret(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """Number of judged non-relevant documents retrieved (trec_eval ``num_nonrel_judged_ret``)."""
    return (table.judged & ~_relevant(table, rel)).sum(axis=1).astype(float)


# ------------------------------------------------------------------------------------ set measures
def _set_counts(table: GainTable, rel: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|retrieved| (the placeholder's 1 included, as trec_eval computes before its clean-up), R, |rel ret|."""
    return table.num_ret.astype(float), num_rel(table, rel), num_rel_ret(table, rel)


def set_precision(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / |retrieved| over the whole retrieved set (trec_eval ``set_P``)."""
    ret, _, rel_ret = _set_counts(table, rel)
    return safe_divide(rel_ret, ret)


def set_relative_precision(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / min(|retrieved|, R) (trec_eval ``set_relative_P``)."""
    ret, n_rel, rel_ret = _set_counts(table, rel)
    return np.where((ret > 0) & (n_rel > 0), safe_divide(rel_ret, np.minimum(ret, n_rel)), 0.0)


def set_recall(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / R (trec_eval ``set_recall``)."""
    _, n_rel, rel_ret = _set_counts(table, rel)
    return safe_divide(rel_ret, n_rel)


def set_map(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """set_P · set_recall = |relevant retrieved|² / (|retrieved| · R) (trec_eval ``set_map``)."""
    ret, n_rel, rel_ret = _set_counts(table, rel)
    return safe_divide(rel_ret * rel_ret, ret * n_rel)


def set_f(table: GainTable, beta: float = 1.0, rel: float = 1.0) -> np.ndarray:
    """(β + 1) P R / (β P + R) with the set precision P and recall R (trec_eval ``set_F``, van Rijsbergen;
    β weighs recall, default 1); 0 when nothing relevant is retrieved."""
    ret, n_rel, rel_ret = _set_counts(table, rel)
    return f_of_set(safe_divide(rel_ret, ret), safe_divide(rel_ret, n_rel), beta)


def f_of_set(p: np.ndarray | np.floating, r: np.ndarray | np.floating, beta: float = 1.0) -> np.ndarray:
    """(β + 1) P R / (β P + R) of a set precision P and recall R; 0 when nothing relevant is retrieved."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (beta + 1.0) * p * r / (beta * p + r)
    return np.where((p > 0) & (r > 0), value, 0.0)


def utility(table: GainTable, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0,
            num_docs: int = 0, rel: float = 1.0) -> np.ndarray:
    """a·|rel ret| + b·|nonrel ret| + c·|rel not ret| + d·|nonrel not ret| (trec_eval ``utility``; the
    collection size ``num_docs`` is trec_eval's ``-N``, needed only when d ≠ 0)."""
    ret, n_rel, rel_ret = _set_counts(table, rel)
    return _cleaned(table, a * rel_ret + b * (ret - rel_ret) + c * (n_rel - rel_ret)
                    + d * (num_docs + rel_ret - ret - n_rel))


# ----------------------------------------------------------------------------------- ranked measures
def recall_at(table: GainTable, k: int = 10, rel: float = 1.0) -> np.ndarray:
    """R@k = |relevant in the top k| / R (trec_eval ``recall_k``)."""
    k = int(k)
    found = _relevant(table, rel)[:, :k].sum(axis=1)
    return safe_divide(found, table.n_relevant(rel))


def relative_precision_at(table: GainTable, k: int = 10, rel: float = 1.0) -> np.ndarray:
    """|relevant in the top k| / min(k, R): precision up to R, recall after (trec_eval ``relative_P_k``)."""
    k = int(k)
    found = _relevant(table, rel)[:, :k].sum(axis=1)
    return safe_divide(found, np.minimum(k, table.n_relevant(rel)))


def r_precision_multiple(table: GainTable, multiple: float = 1.0, rel: float = 1.0) -> np.ndarray:
    """P@c with c = ⌊multiple · R + 0.9⌋, precision at a multiple of R (trec_eval ``Rprec_mult``)."""
    cutoff = np.trunc(multiple * table.n_relevant(rel) + 0.9)  # a float: a huge multiple stays exact
    found = relevant_ranks(table, rel).in_top(np.minimum(cutoff, table.gains.shape[1] + 1).astype(np.int64))
    return np.where(cutoff > 0, safe_divide(found, cutoff), 0.0)


def interpolated_precisions(table: GainTable, recalls: Iterable[float], rel: float = 1.0) -> np.ndarray:
    """IPrec at each recall level, one column per level: trec_eval 10's rule
    (:func:`workbench.metrics.ranking.curves.interpolated_precision`, ``rule="round"``), with trec_eval's edges: a
    level below 0 reads as 0, one above 1 is never reached, and an empty ranking is NaN (C's 0/0)."""
    levels = np.asarray(tuple(recalls), dtype=float)
    values = curves.interpolated_precision(table, np.clip(levels, 0.0, 1.0), rel, rule="round")
    n_rel = table.n_relevant(rel)[:, None]
    values = np.where((levels[None, :] > 1) & (n_rel > 0), 0.0, values)
    empty = (table.num_ret == 0)[:, None] & (np.floor(np.clip(levels, 0, None) * n_rel + 0.5) <= 0)
    return np.where(empty, np.nan, values)


def interpolated_precision(table: GainTable, recall: float = 0.0, rel: float = 1.0) -> np.ndarray:
    """IPrec@r: the highest precision at any rank at or below the one where the first ⌊r·R⌉ relevant
    documents are retrieved (trec_eval ``iprec_at_recall``, ⌊·⌉ = lround as in version 10); 0 when the run
    never reaches that recall. NaN, as trec_eval, for an empty ranking."""
    return interpolated_precisions(table, (recall,), rel)[:, 0]


def eleven_point_average(table: GainTable, recalls: Iterable[float] = curves.ELEVEN_POINTS,
                         rel: float = 1.0) -> np.ndarray:
    """Mean of :func:`interpolated_precision` over the recall levels (trec_eval ``11pt_avg``); NaN, as
    trec_eval, for an empty ranking."""
    recalls = tuple(recalls)
    values = table.shared(interpolated_precisions, recalls, rel)  # iprec_at_recall's, when asked
    total = np.zeros(values.shape[0])
    for column in reversed(range(values.shape[1])):  # trec_eval adds from the highest recall down
        total = total + values[:, column]
    return total / len(recalls)


def bpref_terms(table: GainTable, rel: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """bpref's terms: 1 − min(n_r, R) / min(N, R) at each relevant rank (0 elsewhere), and n_r, the judged
    non-relevant documents at or above each rank."""
    hit = _relevant(table, rel)
    above = np.cumsum(table.judged & ~hit, axis=1)
    n_rel = table.n_relevant(rel)
    return np.where(hit, _bpref_term(above, n_rel[:, None], np.minimum(table.n_judged - n_rel, n_rel)[:, None]),
                    0.0), above


def _bpref_term(above: np.ndarray, n_rel: np.ndarray, floor: np.ndarray) -> np.ndarray:
    """bpref's term of a relevant rank with ``above`` judged non-relevant documents above it, of a topic of
    ``n_rel`` relevant and min(N, R) = ``floor``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        share = 1.0 - np.minimum(above, n_rel) / floor
    return np.where(above > 0, share, 1.0)


def bpref(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r the judged non-relevant
    documents above r, N all judged non-relevant ones (Buckley & Voorhees, SIGIR 2004; trec_eval ``bpref``:
    unjudged documents are skipped). Computed at the relevant ranks only (:class:`RelevantRanks`): the terms of
    :func:`bpref_terms`, added as :func:`~workbench.metrics.ranking.table.row_sums` adds them."""
    at = relevant_ranks(table, rel)
    n_rel = table.n_relevant(rel)
    floor = np.minimum(table.n_judged - n_rel, n_rel)
    terms = _bpref_term(table.shared(_judged_nonrelevant_above, rel), n_rel[at.rows], floor[at.rows])
    return safe_divide(at.sums(terms), n_rel)


def infap_terms(table: GainTable, rel: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """infAP's terms: the relevant ranks and the estimate of precision above each rank (1 at rank 1)."""
    hit = _relevant(table, rel)
    return hit, _infap_estimate(np.arange(hit.shape[1], dtype=float)[None, :], table.relevant_counts(rel) - 1,
                                np.cumsum(table.judged & ~hit, axis=1),
                                np.cumsum(table.pooled & ~table.judged, axis=1))


def _infap_estimate(j: np.ndarray, prior: np.ndarray, nonrel: np.ndarray, unjudged: np.ndarray) -> np.ndarray:
    """infAP's estimate of precision above the rank of index ``j`` (from 0; 1 at rank 1) with ``prior`` relevant,
    ``nonrel`` judged non-relevant and ``unjudged`` pooled but unjudged documents above it (m_infAP.c)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((prior + nonrel + unjudged) / j)
                * ((prior + INFAP_EPSILON) / (prior + nonrel + 2 * INFAP_EPSILON)))
    return np.where(j == 0, 1.0, term)


def inferred_ap(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """infAP (Yilmaz & Aslam, CIKM 2006): at the relevant document of rank k > 1,
    1/k + ((k−1)/k) · (|pooled above| / (k−1)) · ((|rel above| + ε) / (|judged above| + 2ε)), 1 at rank 1,
    summed and divided by R (trec_eval ``infAP``; pooled = judged or pooled-but-unjudged; ε = 0.00001). Computed
    at the relevant ranks only (:class:`RelevantRanks`): the terms of :func:`infap_terms`, added as
    :func:`~workbench.metrics.ranking.table.row_sums` adds them."""
    at = relevant_ranks(table, rel)
    terms = _infap_estimate(at.columns.astype(float), table.shared(_relevant_above, rel) - 1,
                            table.shared(_judged_nonrelevant_above, rel), at.counted(table.pooled & ~table.judged))
    return safe_divide(at.sums(terms), table.n_relevant(rel))


def _relevant_above(table: GainTable, rel: float) -> np.ndarray:
    """At each relevant retrieved rank, the relevant documents at or above it (infAP's and binG's count)."""
    at = relevant_ranks(table, rel)
    return at.counted(at.hit)


def _judged_nonrelevant_above(table: GainTable, rel: float) -> np.ndarray:
    """At each relevant retrieved rank, the judged non-relevant documents above it (infAP's and bpref's count)."""
    at = relevant_ranks(table, rel)
    return at.counted(table.judged & ~at.hit)


def precision_sums(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """Σ P@r over the ranks r of the relevant retrieved documents, added rank by rank as trec_eval adds them
    (``sum += rel_so_far / (i + 1)`` in ``m_map.c``, ``m_yaap.c``): average precision's numerator."""
    hit = _relevant(table, rel)
    return row_sums(table.relevant_counts(rel) / ranks(hit.shape[1]) * hit)


def yaap(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """Yet Another Average Precision (Robertson, On Smoothing Average Precision, ECIR 2012):
    log((1 + S) / (1 + R − S)), S = :func:`precision_sums` (trec_eval ``yaap``, ``m_yaap.c``; C's ``log``)."""
    sums, n_rel = precision_sums(table, rel), table.n_relevant(rel)
    return np.array([math.log((1.0 + s) / (1.0 + float(r) - s)) for s, r in zip(sums.tolist(), n_rel.tolist(),
                                                                                  strict=True)])


def binary_g(table: GainTable, rel: float = 1.0) -> np.ndarray:
    """binG = (1/R) Σ_{relevant retrieved} 1 / log2(2 + |non-relevant above|) (trec_eval ``binG``), computed at
    the relevant ranks only (:class:`RelevantRanks`): the terms of :func:`bing_terms`, added as
    :func:`~workbench.metrics.ranking.table.row_sums` adds them."""
    at = relevant_ranks(table, rel)
    total = at.sums(_bing_discount(at.columns + 1 - table.shared(_relevant_above, rel)))
    return np.where(at.hit.any(axis=1), safe_divide(total, table.n_relevant(rel)), 0.0)


def bing_terms(table: GainTable, rel: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """binG's terms: the relevant ranks, the non-relevant documents at or above each rank and the discount
    1 / log2(2 + that number)."""
    hit = _relevant(table, rel)
    above = np.arange(1, hit.shape[1] + 1)[None, :] - table.relevant_counts(rel)
    return hit, above, _bing_discount(above)


def _bing_discount(above: np.ndarray) -> np.ndarray:
    """binG's discount of a rank with ``above`` non-relevant documents at or above it (m_binG.c)."""
    return 1.0 / np.log2(2.0 + above)


def unjudged_at(table: GainTable, k: int = 10) -> np.ndarray:
    """|unjudged in the top k| / k, unjudged = outside the qrels or with a negative grade; ranks past the
    end count as judged (trec_eval ``unj_k``)."""
    k = int(k)
    unjudged = table.retrieved() & ~table.judged
    return _cleaned(table, unjudged[:, :k].sum(axis=1) / k)


def judged_at(table: GainTable, k: int | None = None) -> np.ndarray:
    """|in the qrels among the top k| / min(k, |retrieved|) (ir_measures ``Judged@k``; any grade, even
    negative, counts as judged); 0 for an empty ranking."""
    top = table.pooled[:, :k].sum(axis=1)
    shown = table.num_ret if k is None else np.minimum(table.num_ret, k)
    return safe_divide(top, shown)


def rbp_residual(table: GainTable, p: float = 0.9) -> np.ndarray:
    """The RBP residual: p^|retrieved| + (1 − p) Σ_{unjudged r} p^(r−1), the weight RBP could still gain
    (trec_eval ``rbp_resid``); 0 when every retrieved document is judged."""
    unjudged = table.retrieved() & ~table.judged
    weights = persistence(p, table.gains.shape[1] + 1)  # p^|retrieved| too, as trec_eval reaches it
    value = weights[table.num_ret] + (1 - p) * row_sums(unjudged * weights[:-1])
    return _cleaned(table, np.where(unjudged.any(axis=1), value, 0.0))


def relevance_strings(table: GainTable, length: float = 10) -> list[str]:
    """trec_eval's ``relstring``: the grades of the first ``length`` retrieved documents (a length written with a
    fraction cut as C's ``(long)`` cuts it), one character each (the digit, ``>`` above 9, ``-`` not pooled,
    ``.`` pooled but unjudged); empty for a topic the run lacks (trec_eval.c's clean-up after ``-c``). The
    characters of every row are made at once (a judged grade below 0 or not a number: row by row, as
    :func:`_relevance_string` writes it).

    >>> relevance_strings(GainTable.from_entries(np.array([0, 0, 0, 1]), np.array([2.0, np.nan, 12.0, 0.0]),
    ...                                          np.array([0, 0, 1]), np.array([2.0, 12.0, 0.0]), ("q1", "q2")))
    ['2->', '0']
    """
    top = max(0, min(int(length), table.gains.shape[1]))
    judged = table.judged[:, :top]
    grades = np.trunc(table.gains[:, :top])  # C's (long) and Python's int cut toward 0
    if (judged & ~(grades >= 0)).any():
        return [_relevance_string(table, row, int(length)) for row in range(table.gains.shape[0])]
    codes = np.where(judged, np.where(grades > 9, ord(">"), ord("0") + np.where(judged, grades, 0)),
                     np.where(table.pooled[:, :top], ord("."), ord("-"))).astype(np.uint8)
    text = codes.tobytes().decode("ascii")
    ends = np.where(table.placeholder, 0, np.minimum(table.num_ret, top)).tolist()
    return [text[row * top:row * top + end] for row, end in enumerate(ends)]


def _relevance_string(table: GainTable, row: int, length: int) -> str:
    """One row's ``relstring``, written character by character."""
    if table.placeholder[row]:
        return ""
    chars = []
    for r in range(max(0, min(length, int(table.num_ret[row])))):
        if table.judged[row, r]:
            grade = int(table.gains[row, r])
            chars.append(">" if grade > 9 else str(grade))
        else:
            chars.append("." if table.pooled[row, r] else "-")
    return "".join(chars)


# --------------------------------------------------------------------------------- graded (gains=)
def _discounts(width: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(width, dtype=float) + 2.0)


def dcg(table: GainTable, k: int | None = None, gain: str = "linear",
        gains: Mapping[float, float] | None = None) -> np.ndarray:
    """DCG@k = Σ_{r ≤ k} g(r) / log2(r + 1) over the top k ranks (the whole ranking when k is None: trec_eval
    ``dcg``, Järvelin & Kekäläinen, TOIS 2002), g the grade (``gain="linear"``; ranx ``dcg``), 2^grade − 1
    (``gain="exp"``, Burges et al.; ranx ``dcg_burges``, PyEvALL ``DCG``: inf for a grade past 1023, whose gain a
    double cannot hold) or its gain in ``gains``.

    >>> table = GainTable.from_gains([[2, 0, 1]], [[2, 1]])
    >>> [round(float(dcg(table, *args)[0]), 4) for args in ((), (2,), (None, "exp"))]
    [2.5, 2.0, 3.5]
    """
    values = dcg_gains(table, gain, gains)
    return row_sums(discounted(values[:, :k]))


def dcg_gains(table: GainTable, gain: str = "linear", gains: Mapping[float, float] | None = None) -> np.ndarray:
    """The gain DCG adds at each rank: ``gains``' mapping of the grades when given, else the grade (linear) or
    2^grade − 1 (exp)."""
    if gains or gain == "linear":
        return gain_tables(table, gains)[0]
    with np.errstate(over="ignore"):
        return np.exp2(table.gains) - 1.0


def ideal_dcg(table: GainTable, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """The DCG of the judgements ranked by gain (trec_eval ``ideal_dcg``, nDCG's denominator)."""
    _, best = gain_tables(table, gains)
    return row_sums(discounted(best))


def _running_dcg(table: GainTable, gains: Mapping[float, float] | None = None) -> tuple[np.ndarray, ...]:
    """Each rank's DCG and ideal DCG so far: the gains times 1/log2(r + 1), added rank by rank as trec_eval's
    ``ndcg_rel`` and ``Rndcg`` loops add them; made once per table (:meth:`~workbench.metrics.ranking.table.
    GainTable.shared`), which the two measures share (``-m all_trec`` on 2,000 topics × 1,000 ranks: two running
    sums of 2M terms fewer).

    >>> [running.tolist() for running in _running_dcg(GainTable.from_gains([[2, 0, 1]], [[2, 1]]))]
    [[[2.0, 2.0, 2.5]], [[2.0, 2.6309297535714578]]]
    """
    return cast(tuple[np.ndarray, ...], table.shared(_running_sums, gains))  # shared's value: what it computed


def _running_sums(table: GainTable, gains: Mapping[float, float] | None) -> tuple[np.ndarray, ...]:
    values, ideal = gain_tables(table, gains)
    sums = tuple(np.cumsum(gains_at * _discounts(gains_at.shape[1]), axis=1) for gains_at in (values, ideal))
    for running in sums:
        running.flags.writeable = False  # shared: read only
    return sums


def ndcg_rel_terms(table: GainTable, gains: Mapping[float, float] | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """nDCG_rel's parts: the gains, the discounts, the relevant retrieved ranks, each rank's ideal DCG at
    min(r, L), L (the number of positive ideal gains) and the whole ideal DCG."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    length = (ideal > 0).sum(axis=1)
    idcg = _running_dcg(table, gains)[1]
    idcg_total = idcg[:, -1] if ideal.shape[1] else np.zeros(rows)
    relevant = (values > 0) & table.retrieved()
    at = np.minimum(np.arange(width)[None, :], np.maximum(length - 1, 0)[:, None])
    denominator = idcg[np.arange(rows)[:, None], np.minimum(at, max(ideal.shape[1] - 1, 0))] \
        if ideal.shape[1] else np.zeros((rows, width))
    return values, _discounts(width), relevant, denominator, length, idcg_total


def ndcg_rel(table: GainTable, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """nDCG averaged at the relevant documents: (1/L) (Σ_{relevant retrieved r} DCG(r)/IDCG(min(r, L))
    + (L − |rel ret|) · DCG/IDCG), L the number of positive ideal gains (trec_eval ``ndcg_rel``)."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    dcg, idcg = _running_dcg(table, gains)
    length = (ideal > 0).sum(axis=1)
    row, rank = np.nonzero((values > 0) & table.retrieved())  # the relevant retrieved ranks, row by row in order
    depth = ideal.shape[1]
    denominator = idcg[row, np.minimum(np.minimum(rank, np.maximum(length - 1, 0)[row]), depth - 1)] if depth \
        else np.zeros(row.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        # each row's ratios added in rank order (bincount adds its weights in the order given), as
        # ndcg_rel_terms' matrices add them with zeros between (adding 0 changes no sum)
        total = np.bincount(row, weights=dcg[row, rank] / denominator, minlength=rows)
        dcg_total = dcg[:, -1] if width else np.zeros(rows)
        idcg_total = idcg[:, -1] if depth else np.zeros(rows)
        total = total + (length - np.bincount(row, minlength=rows)) * dcg_total / idcg_total
        return np.where(total > 0, total / length, 0.0)


def r_ndcg(table: GainTable, gains: Mapping[float, float] | None = None, rel: float = 1.0) -> np.ndarray:
    """nDCG averaged at the R-levels, the ranks where the ideal gain changes (and at the end of the
    ranking when the ideal runs out first) (trec_eval ``Rndcg``); 0 without relevant documents."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    depth = ideal.shape[1]
    dcg, idcg = (np.concatenate([np.zeros((rows, 1)), running], axis=1) for running in _running_dcg(table, gains))
    length = (ideal > 0).sum(axis=1)[:, None]  # the positive ideal gains lead each row
    retrieved = table.num_ret[:, None]
    t = np.arange(1, depth + 1)[None, :]
    following = np.concatenate([ideal[:, 1:], np.zeros((rows, 1))], axis=1)
    level = (t <= length) & ((t == length) | (following != ideal)) & (idcg[:, 1:] > 0)  # an R-level at rank t
    every = np.arange(rows)[:, None]
    after = (length + 1 < retrieved) & (idcg[every, length] > 0)  # the ranking goes on past the ideal
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.concatenate([np.where(level, dcg[every, np.minimum(t, retrieved)] / idcg[:, 1:], 0.0),
                                np.where(after, dcg[every, retrieved] / idcg[every, length], 0.0)], axis=1)
        total = np.cumsum(terms, axis=1)[:, -1]  # added rank by rank, as trec_eval adds
        count = level.sum(axis=1) + after[:, 0]
        out = np.where(count > 0, total / count, np.nan)
    return np.where(table.n_relevant(rel) == 0, 0.0, out)


def g_measure(table: GainTable, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """G = (Σ_r g(r) / log2(2 + Σ_{i≤r} max(ideal(i), 1) − Σ_{i≤r} g(i))) / Σ ideal, the gain of each
    document discounted by how far the run lags the ideal so far (trec_eval ``G``, experimental); computed at the
    ranks of a gain other than 0 only (:class:`RelevantRanks`), the terms of :func:`g_terms` added as
    :func:`~workbench.metrics.ranking.table.row_sums` adds them.

    >>> round(float(g_measure(GainTable.from_gains([[0, 2, 1]], [[2, 1]]))[0]), 4)  # (2 + 1)/log2(3) / 3
    0.6309
    """
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    take = min(width, ideal.shape[1])
    cost = np.cumsum(np.maximum(ideal[:, :take], 1.0), axis=1)  # Σ max(ideal, 1) over the ideal's ranks
    last = cost[:, -1] if take else np.zeros(rows)
    if take < width and not np.all((last == np.rint(last)) & (np.abs(last) < 2.0 ** 52)):
        terms, ideal_total = g_terms(table, gains)  # past the ideal, 1 added rank by rank: exact on whole sums only
        return safe_divide(row_sums(terms), ideal_total)
    at = RelevantRanks(values != 0) if gains else gain_ranks(table)  # the grades themselves: RBP's, nDCG's too
    gain = values[at.rows, at.columns]
    inside = at.columns < take
    lag = np.where(inside, cost[at.rows, np.minimum(at.columns, max(take - 1, 0))] if take else 0.0,
                   last[at.rows] + (at.columns - take + 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = gain / np.log2(2.0 + lag - at.running(gain))
    total = at.sums(share)
    # a rank of gain 0 adds +0.0 among g_terms' terms, which turns a sum of -0.0 (a lag of -inf) into +0.0
    total = np.where(np.bincount(at.rows, minlength=rows) < width, total + 0.0, total)
    return safe_divide(total, row_sums(np.where(ideal > 0, ideal, 0.0)))


def g_terms(table: GainTable, gains: Mapping[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """G's terms: each rank's gain over log2(2 + the lag behind the ideal so far), and the ideal's total gain."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    padded = np.zeros((rows, width))
    take = min(width, ideal.shape[1])
    padded[:, :take] = ideal[:, :take]
    cost = np.cumsum(np.maximum(padded, 1.0), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = values / np.log2(2.0 + cost - np.cumsum(values, axis=1))
    return np.where(values != 0, share, 0.0), row_sums(np.where(ideal > 0, ideal, 0.0))
