"""trec_eval 10.0's ranking measures beyond those of :mod:`~workbench.metrics.ranking.kernels`, over its gain
table.

Each kernel is a pure function ``kernel(table, ...) → one value per row`` of a
:class:`~workbench.metrics.ranking.table.GainTable`, following the C source of trec_eval 10.0
(usnistgov/trec_eval, ``m_<name>.c``) operation for operation, so that per-topic values agree with trec_eval
to the last bits. A relevant document is one whose grade reaches ``rel_level`` (trec_eval's ``-l``);
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

import numpy as np

from workbench.metrics.ranking import curves
from workbench.metrics.ranking.gains import gain_tables, level_counts
from workbench.metrics.ranking.kernels import (
    JUDGED_ONLY,
    JUDGED_ONLY_DOMAIN,
    TREC_EVAL,
    TableMeasure,
    average_precision,
    rbp,
)
from workbench.metrics.ranking.table import (
    GainTable,
    RankingInputError,
    check_cutoff,
    persistence,
    ranks,
    row_sums,
    safe_divide,
)
from workbench.metrics.registry import Interval, register

INFAP_EPSILON = 0.00001  # trec_eval.h


# --------------------------------------------------------------------------------------------- helpers
def _relevant(table: GainTable, rel_level: float) -> np.ndarray:
    return table.relevant(rel_level)


def _in_top(counts: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``counts[q, k[q] − 1]`` (cumulative counts at rank k), the last column beyond the width, 0 for k ≤ 0."""
    rows, width = counts.shape
    k = np.asarray(k)
    if width == 0:
        return np.zeros(rows)
    index = np.clip(k, 1, width) - 1
    return np.where(k >= 1, counts[np.arange(rows), index], 0)


def _cutoffs(k: int, name: str) -> int:
    check_cutoff(k, name)
    if k is None:
        raise RankingInputError(f"{name}@k needs a cutoff k")
    return int(k)


# -------------------------------------------------------------------------------------------- counts
def _cleaned(table: GainTable, values: np.ndarray) -> np.ndarray:
    """``values`` with 0 on the placeholder rows of topics the run lacks: trec_eval.c's clean-up after ``-c``
    scores its one-document placeholder ranking (``num_ret``, ``utility``, ``unj``, ``rbp_resid``)."""
    return np.where(table.placeholder, 0.0, values) if table.placeholder.any() else values


def num_ret(table: GainTable) -> np.ndarray:
    """Number of retrieved documents (trec_eval ``num_ret``; summed, not averaged, over topics)."""
    return _cleaned(table, table.num_ret.astype(float))


def num_rel(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """Number of judged documents reaching ``rel_level`` (trec_eval ``num_rel``)."""
    return table.n_relevant(rel_level).astype(float)


def num_rel_ret(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """Number of relevant documents retrieved (trec_eval ``num_rel_ret``)."""
    return _relevant(table, rel_level).sum(axis=1).astype(float)


def num_nonrel_judged_ret(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """Number of judged non-relevant documents retrieved (trec_eval ``num_nonrel_judged_ret``)."""
    return (table.judged & ~_relevant(table, rel_level)).sum(axis=1).astype(float)


# ------------------------------------------------------------------------------------ set measures
def _set_counts(table: GainTable, rel_level: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|retrieved| (the placeholder's 1 included, as trec_eval computes before its clean-up), R, |rel ret|."""
    return table.num_ret.astype(float), num_rel(table, rel_level), num_rel_ret(table, rel_level)


def set_precision(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / |retrieved| over the whole retrieved set (trec_eval ``set_P``)."""
    ret, _, rel_ret = _set_counts(table, rel_level)
    return safe_divide(rel_ret, ret)


def set_relative_precision(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / min(|retrieved|, R) (trec_eval ``set_relative_P``)."""
    ret, rel, rel_ret = _set_counts(table, rel_level)
    return np.where((ret > 0) & (rel > 0), safe_divide(rel_ret, np.minimum(ret, rel)), 0.0)


def set_recall(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """|relevant retrieved| / R (trec_eval ``set_recall``)."""
    _, rel, rel_ret = _set_counts(table, rel_level)
    return safe_divide(rel_ret, rel)


def set_map(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """set_P · set_recall = |relevant retrieved|² / (|retrieved| · R) (trec_eval ``set_map``)."""
    ret, rel, rel_ret = _set_counts(table, rel_level)
    return safe_divide(rel_ret * rel_ret, ret * rel)


def set_f(table: GainTable, beta: float = 1.0, rel_level: float = 1.0) -> np.ndarray:
    """(β + 1) P R / (β P + R) with the set precision P and recall R (trec_eval ``set_F``, van Rijsbergen;
    β weighs recall, default 1); 0 when nothing relevant is retrieved."""
    ret, rel, rel_ret = _set_counts(table, rel_level)
    return f_of_set(safe_divide(rel_ret, ret), safe_divide(rel_ret, rel), beta)


def f_of_set(p: np.ndarray, r: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """(β + 1) P R / (β P + R) of a set precision P and recall R; 0 when nothing relevant is retrieved."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (beta + 1.0) * p * r / (beta * p + r)
    return np.where((p > 0) & (r > 0), value, 0.0)


def utility(table: GainTable, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0,
            num_docs: int = 0, rel_level: float = 1.0) -> np.ndarray:
    """a·|rel ret| + b·|nonrel ret| + c·|rel not ret| + d·|nonrel not ret| (trec_eval ``utility``; the
    collection size ``num_docs`` is trec_eval's ``-N``, needed only when d ≠ 0)."""
    ret, rel, rel_ret = _set_counts(table, rel_level)
    return _cleaned(table, a * rel_ret + b * (ret - rel_ret) + c * (rel - rel_ret)
                    + d * (num_docs + rel_ret - ret - rel))


# ----------------------------------------------------------------------------------- ranked measures
def recall_at(table: GainTable, k: int = 10, rel_level: float = 1.0) -> np.ndarray:
    """R@k = |relevant in the top k| / R (trec_eval ``recall_k``)."""
    k = _cutoffs(k, "R")
    found = _relevant(table, rel_level)[:, :k].sum(axis=1)
    return safe_divide(found, table.n_relevant(rel_level))


def relative_precision_at(table: GainTable, k: int = 10, rel_level: float = 1.0) -> np.ndarray:
    """|relevant in the top k| / min(k, R): precision up to R, recall after (trec_eval ``relative_P_k``)."""
    k = _cutoffs(k, "relative_P")
    found = _relevant(table, rel_level)[:, :k].sum(axis=1)
    return safe_divide(found, np.minimum(k, table.n_relevant(rel_level)))


def r_precision_multiple(table: GainTable, multiple: float = 1.0, rel_level: float = 1.0) -> np.ndarray:
    """P@c with c = ⌊multiple · R + 0.9⌋, precision at a multiple of R (trec_eval ``Rprec_mult``)."""
    cutoff = np.trunc(multiple * table.n_relevant(rel_level) + 0.9)  # a float: a huge multiple stays exact
    found = _in_top(table.relevant_counts(rel_level), np.minimum(cutoff, table.gains.shape[1] + 1).astype(np.int64))
    return np.where(cutoff > 0, safe_divide(found, cutoff), 0.0)


def interpolated_precisions(table: GainTable, recalls: Iterable[float], rel_level: float = 1.0) -> np.ndarray:
    """IPrec at each recall level, one column per level: trec_eval 10's rule
    (:func:`workbench.metrics.ranking.curves.interpolated_precision`, ``rule="round"``), with trec_eval's edges: a
    level below 0 reads as 0, one above 1 is never reached, and an empty ranking is NaN (C's 0/0)."""
    levels = np.asarray(tuple(recalls), dtype=float)
    if levels.ndim != 1 or np.isnan(levels).any():
        raise RankingInputError(f"recall levels must be numbers, got {levels.tolist()}")
    values = curves.interpolated_precision(table, np.clip(levels, 0.0, 1.0), rel_level, rule="round")
    n_rel = table.n_relevant(rel_level)[:, None]
    values = np.where((levels[None, :] > 1) & (n_rel > 0), 0.0, values)
    empty = (table.num_ret == 0)[:, None] & (np.floor(np.clip(levels, 0, None) * n_rel + 0.5) <= 0)
    return np.where(empty, np.nan, values)


def interpolated_precision(table: GainTable, recall: float = 0.0, rel_level: float = 1.0) -> np.ndarray:
    """IPrec@r: the highest precision at any rank at or below the one where the first ⌊r·R⌉ relevant
    documents are retrieved (trec_eval ``iprec_at_recall``, ⌊·⌉ = lround as in version 10); 0 when the run
    never reaches that recall. NaN, as trec_eval, for an empty ranking."""
    return interpolated_precisions(table, (recall,), rel_level)[:, 0]


def eleven_point_average(table: GainTable, recalls: Iterable[float] = tuple(i / 10 for i in range(11)),
                         rel_level: float = 1.0) -> np.ndarray:
    """Mean of :func:`interpolated_precision` over the recall levels (trec_eval ``11pt_avg``); NaN, as
    trec_eval, for an empty ranking."""
    recalls = tuple(recalls)
    if not recalls:
        raise RankingInputError("11pt_avg needs at least one recall level")
    values = table.shared(interpolated_precisions, recalls, rel_level)  # iprec_at_recall's, when asked
    total = np.zeros(values.shape[0])
    for column in reversed(range(values.shape[1])):  # trec_eval adds from the highest recall down
        total = total + values[:, column]
    return total / len(recalls)


def bpref_terms(table: GainTable, rel_level: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """bpref's terms: 1 − min(n_r, R) / min(N, R) at each relevant rank (0 elsewhere), and n_r, the judged
    non-relevant documents at or above each rank."""
    rel = _relevant(table, rel_level)
    above = np.cumsum(table.judged & ~rel, axis=1)
    n_rel = table.n_relevant(rel_level)
    floor = np.minimum(table.n_judged - n_rel, n_rel)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        share = 1.0 - np.minimum(above, n_rel[:, None]) / floor
    return np.where(rel, np.where(above > 0, share, 1.0), 0.0), above


def bpref(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(N, R)), n_r the judged non-relevant
    documents above r, N all judged non-relevant ones (Buckley & Voorhees, SIGIR 2004; trec_eval ``bpref``:
    unjudged documents are skipped)."""
    terms, _ = bpref_terms(table, rel_level)
    return safe_divide(row_sums(terms), table.n_relevant(rel_level))


def infap_terms(table: GainTable, rel_level: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """infAP's terms: the relevant ranks and the estimate of precision above each rank (1 at rank 1)."""
    rel = _relevant(table, rel_level)
    rel_so_far = table.relevant_counts(rel_level)
    nonrel_so_far = np.cumsum(table.judged & ~rel, axis=1)
    unjudged_so_far = np.cumsum(table.pooled & ~table.judged, axis=1)
    j = np.arange(rel.shape[1], dtype=float)[None, :]
    prior = rel_so_far - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((prior + nonrel_so_far + unjudged_so_far) / j)
                * ((prior + INFAP_EPSILON) / (prior + nonrel_so_far + 2 * INFAP_EPSILON)))
    return rel, np.where(j == 0, 1.0, term)


def inferred_ap(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """infAP (Yilmaz & Aslam, CIKM 2006): at the relevant document of rank k > 1,
    1/k + ((k−1)/k) · (|pooled above| / (k−1)) · ((|rel above| + ε) / (|judged above| + 2ε)), 1 at rank 1,
    summed and divided by R (trec_eval ``infAP``; pooled = judged or pooled-but-unjudged; ε = 0.00001)."""
    rel, term = infap_terms(table, rel_level)
    return safe_divide(row_sums(np.where(rel, term, 0.0)), table.n_relevant(rel_level))


def precision_sums(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """Σ P@r over the ranks r of the relevant retrieved documents, added rank by rank as trec_eval adds them
    (``sum += rel_so_far / (i + 1)`` in ``m_map.c``, ``m_yaap.c``): average precision's numerator."""
    rel = _relevant(table, rel_level)
    return row_sums(table.relevant_counts(rel_level) / ranks(rel.shape[1]) * rel)


def yaap(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """Yet Another Average Precision (Robertson, On Smoothing Average Precision, ECIR 2012):
    log((1 + S) / (1 + R − S)), S = :func:`precision_sums` (trec_eval ``yaap``, ``m_yaap.c``; C's ``log``)."""
    sums, n_rel = precision_sums(table, rel_level), table.n_relevant(rel_level)
    return np.array([math.log((1.0 + s) / (1.0 + float(r) - s)) for s, r in zip(sums.tolist(), n_rel.tolist(),
                                                                                  strict=True)])


def binary_g(table: GainTable, rel_level: float = 1.0) -> np.ndarray:
    """binG = (1/R) Σ_{relevant retrieved} 1 / log2(2 + |non-relevant above|) (trec_eval ``binG``)."""
    rel, _, discount = bing_terms(table, rel_level)
    total = row_sums(np.where(rel, discount, 0.0))
    return np.where(rel.any(axis=1), safe_divide(total, table.n_relevant(rel_level)), 0.0)


def bing_terms(table: GainTable, rel_level: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """binG's terms: the relevant ranks, the non-relevant documents at or above each rank and the discount
    1 / log2(2 + that number)."""
    rel = _relevant(table, rel_level)
    above = np.arange(1, rel.shape[1] + 1)[None, :] - table.relevant_counts(rel_level)
    return rel, above, 1.0 / np.log2(2.0 + above)


def unjudged_at(table: GainTable, k: int = 10) -> np.ndarray:
    """|unjudged in the top k| / k, unjudged = outside the qrels or with a negative grade; ranks past the
    end count as judged (trec_eval ``unj_k``)."""
    k = _cutoffs(k, "unj")
    unjudged = table.retrieved() & ~table.judged
    return _cleaned(table, unjudged[:, :k].sum(axis=1) / k)


def judged_at(table: GainTable, k: int | None = None) -> np.ndarray:
    """|in the qrels among the top k| / min(k, |retrieved|) (ir_measures ``Judged@k``; any grade, even
    negative, counts as judged); 0 for an empty ranking."""
    check_cutoff(k, "Judged")
    top = table.pooled[:, :k].sum(axis=1)
    shown = table.num_ret if k is None else np.minimum(table.num_ret, k)
    return safe_divide(top, shown)


def rbp_residual(table: GainTable, p: float = 0.9) -> np.ndarray:
    """The RBP residual: p^|retrieved| + (1 − p) Σ_{unjudged r} p^(r−1), the weight RBP could still gain
    (trec_eval ``rbp_resid``); 0 when every retrieved document is judged."""
    if not 0 < p < 1:
        raise RankingInputError(f"rbp_resid needs 0 < p < 1, got {p}")
    unjudged = table.retrieved() & ~table.judged
    weights = persistence(p, table.gains.shape[1] + 1)  # p^|retrieved| too, as trec_eval reaches it
    value = weights[table.num_ret] + (1 - p) * row_sums(unjudged * weights[:-1])
    return _cleaned(table, np.where(unjudged.any(axis=1), value, 0.0))


def relevance_strings(table: GainTable, length: int = 10) -> list[str]:
    """trec_eval's ``relstring``: the grades of the first ``length`` retrieved documents, one character each
    (the digit, ``>`` above 9, ``-`` not pooled, ``.`` pooled but unjudged); empty for a topic the run lacks
    (trec_eval.c's clean-up after ``-c``)."""
    out = []
    for row in range(table.gains.shape[0]):
        if table.placeholder[row]:
            out.append("")
            continue
        chars = []
        for r in range(max(0, min(length, int(table.num_ret[row])))):
            if table.judged[row, r]:
                grade = int(table.gains[row, r])
                chars.append(">" if grade > 9 else str(grade))
            else:
                chars.append("." if table.pooled[row, r] else "-")
        out.append("".join(chars))
    return out


# --------------------------------------------------------------------------------- graded (gains=)
def rbp_with_gains(table: GainTable, p: float = 0.9, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """trec_eval's ``rbp`` with a ``rel_level=gain`` mapping: gains outside [0, 1] are rescaled to
    (g − min) / (max − min) over the grades' gains, then (1 − p) Σ_r g(r) p^(r−1) (Moffat & Zobel 2008).
    Without a mapping this is :func:`~workbench.metrics.ranking.kernels.rbp` (gains divided by the top grade)."""
    if not gains:
        return rbp(table, p=p)
    if not 0 < p < 1:
        raise RankingInputError(f"RBP needs 0 < p < 1, got {p}")
    values, _ = gain_tables(table, gains)
    out = np.zeros(values.shape[0])
    weights = persistence(p, values.shape[1])
    for row in range(values.shape[0]):
        counts = level_counts(table, row)
        top = max((lv for lv, n in counts.items() if n > 0), default=0.0)
        levels = {float(lv): float(lv) for lv in range(int(top) + 1)}
        levels.update({float(lv): float(g) for lv, g in gains.items()})
        low, high = min(levels.values()), max(levels.values())
        scaled = values[row]
        if low < 0 or high > 1:
            scaled = np.where(scaled != 0, (scaled - low) / (high - low), 0.0)
        out[row] = (1.0 - p) * row_sums((scaled * weights)[None, :])[0]
    return out


def _discounts(width: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(width, dtype=float) + 2.0)


def ndcg_rel(table: GainTable, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """nDCG averaged at the relevant documents: (1/L) (Σ_{relevant retrieved r} DCG(r)/IDCG(min(r, L))
    + (L − |rel ret|) · DCG/IDCG), L the number of positive ideal gains (trec_eval ``ndcg_rel``)."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    length = (ideal > 0).sum(axis=1)
    dcg = np.cumsum(values * _discounts(width), axis=1)
    idcg = np.cumsum(ideal * _discounts(ideal.shape[1]), axis=1)
    idcg_total = idcg[:, -1] if ideal.shape[1] else np.zeros(rows)
    rel = (values > 0) & table.retrieved()
    at = np.minimum(np.arange(width)[None, :], np.maximum(length - 1, 0)[:, None])
    denominator = idcg[np.arange(rows)[:, None], np.minimum(at, max(ideal.shape[1] - 1, 0))] \
        if ideal.shape[1] else np.zeros((rows, width))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(rel, dcg / denominator, 0.0).sum(axis=1)
        dcg_total = dcg[:, -1] if width else np.zeros(rows)
        total = total + (length - rel.sum(axis=1)) * dcg_total / idcg_total
        return np.where(total > 0, total / length, 0.0)


def r_ndcg(table: GainTable, gains: Mapping[float, float] | None = None, rel_level: float = 1.0) -> np.ndarray:
    """nDCG averaged at the R-levels, the ranks where the ideal gain changes (and at the end of the
    ranking when the ideal runs out first) (trec_eval ``Rndcg``); 0 without relevant documents."""
    values, ideal = gain_tables(table, gains)
    rows, width = values.shape
    depth = ideal.shape[1]
    dcg = np.concatenate([np.zeros((rows, 1)), np.cumsum(values * _discounts(width), axis=1)], axis=1)
    idcg = np.concatenate([np.zeros((rows, 1)), np.cumsum(ideal * _discounts(depth), axis=1)], axis=1)
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
    return np.where(table.n_relevant(rel_level) == 0, 0.0, out)


def g_measure(table: GainTable, gains: Mapping[float, float] | None = None) -> np.ndarray:
    """G = (Σ_r g(r) / log2(2 + Σ_{i≤r} max(ideal(i), 1) − Σ_{i≤r} g(i))) / Σ ideal, the gain of each
    document discounted by how far the run lags the ideal so far (trec_eval ``G``, experimental)."""
    terms, ideal_total = g_terms(table, gains)
    return safe_divide(row_sums(terms), ideal_total)


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


# ----------------------------------------------------------------------------------------- registry
# Every trec_eval measure takes judged_only (its -J; ir_measures' parameter, which ir_measures gives to
# SetP, SetRelP, SetAP, SetF, R and IPrec among these).
_BINARY = {"rel": 1, **JUDGED_ONLY}  # every measure's name for the relevance level; trec_eval's kernels say rel_level
_LEVEL = {"rel": Interval(0, low_open=True), **JUDGED_ONLY_DOMAIN}


def _binary(kernel) -> TableMeasure:
    """A trec_eval kernel that takes ``rel_level`` as a measure whose parameter is ``rel``."""
    return TableMeasure(kernel, arguments={"rel": "rel_level"})

_CUT = {"k": Interval(1, integer=True)}
_COUNT = (0.0, float("inf"))
for _name, _kernel, _aliases, _what in (
        ("NumRet", num_ret, ("num_ret",), "number of retrieved documents"),
        ("NumRel", num_rel, ("num_rel",), "number of judged relevant documents"),
        ("NumRelRet", num_rel_ret, ("num_rel_ret",), "number of relevant documents retrieved"),
        ("NumNonRelJudgedRet", num_nonrel_judged_ret, ("num_nonrel_judged_ret",),
         "number of judged non-relevant documents retrieved")):
    _params = JUDGED_ONLY if _kernel is num_ret else _BINARY
    register(_name, TableMeasure(_kernel) if _kernel is num_ret else _binary(_kernel), task="ranking",
             source=TREC_EVAL, params=_params, aliases=_aliases,
             range=_COUNT, description=f"{_what} (trec_eval {_aliases[0]}; summed over topics)",
             domains=JUDGED_ONLY_DOMAIN if _kernel is num_ret else _LEVEL, aggregate="sum")
for _name, _kernel, _aliases, _what in (
        ("SetP", set_precision, ("set_P",), "precision of the retrieved set"),
        ("SetRelP", set_relative_precision, ("set_relative_P",), "relevant retrieved / min(retrieved, R)"),
        ("SetR", set_recall, ("set_recall",), "recall of the retrieved set"),
        ("SetAP", set_map, ("set_map",), "set precision × set recall"),
        ("Bpref", bpref, ("bpref",), "binary preference on judged documents (Buckley & Voorhees 2004)"),
        ("infAP", inferred_ap, (), "inferred AP on a sampled pool (Yilmaz & Aslam 2006)"),
        ("BinG", binary_g, ("binG",), "binary G: relevant documents discounted by non-relevant ones above")):
    register(_name, _binary(_kernel), task="ranking", source=TREC_EVAL, params=_BINARY, aliases=_aliases,
             description=f"{_what} (trec_eval {(_aliases or (_name,))[0]})", domains=_LEVEL)
register("GMAP", TableMeasure(average_precision), task="ranking", source=TREC_EVAL, params={"rel": 1, **JUDGED_ONLY},
         aliases=("gm_map",), domains={"rel": Interval(0, low_open=True), **JUDGED_ONLY_DOMAIN}, aggregate="gmean",
         description="AP per topic, its geometric mean over topics (trec_eval gm_map; each AP floored at 0.00001)")
register("GMBpref", _binary(bpref), task="ranking", source=TREC_EVAL, params=_BINARY, aliases=("gm_bpref",),
         domains=_LEVEL, aggregate="gmean",
         description="bpref per topic, its geometric mean over topics (trec_eval gm_bpref; floored at 0.00001)")
register("SetF", _binary(set_f), task="ranking", source=TREC_EVAL, params={"beta": 1.0, **_BINARY},
         aliases=("set_F",), domains={"beta": Interval(0), **_LEVEL},
         description="set F-measure (β+1)PR/(βP+R), β weighs recall (trec_eval set_F)")
register("SetUtility", _binary(utility), task="ranking", source=TREC_EVAL,
         params={"a": 1.0, "b": -1.0, "c": 0.0, "d": 0.0, "num_docs": 0, **_BINARY}, aliases=("utility",),
         range=(float("-inf"), float("inf")),
         domains={"num_docs": Interval(0, integer=True), **dict.fromkeys("abcd", Interval()), **_LEVEL},
         description="set utility a·relret + b·nonrelret + c·relnotret + d·nonrelnotret (trec_eval utility)")
register("R", _binary(recall_at), task="ranking", source=TREC_EVAL, params={"k": 10, **_BINARY},
         cutoff="k", aliases=("recall",), domains={**_CUT, **_LEVEL},
         description="recall at k: relevant in the top k / R (trec_eval recall_k)")
register("RelP", _binary(relative_precision_at), task="ranking", source=TREC_EVAL,
         params={"k": 10, **_BINARY}, cutoff="k", aliases=("relative_P", "R_cap"), domains={**_CUT, **_LEVEL},
         description="relevant in the top k / min(k, R) (trec_eval relative_P_k; BEIR's capped recall R_cap@k)")
register("RPrecMult", _binary(r_precision_multiple), task="ranking", source=TREC_EVAL,
         params={"multiple": 1.0, **_BINARY}, cutoff="multiple", aliases=("Rprec_mult",),
         domains={"multiple": Interval(0), **_LEVEL},
         description="precision at ⌊multiple·R + 0.9⌋ (trec_eval Rprec_mult)")
register("IPrec", _binary(interpolated_precision), task="ranking", source=TREC_EVAL,
         params={"recall": None, **_BINARY}, cutoff="recall", aliases=("iprec_at_recall",),
         domains={"recall": Interval(0, 1), **_LEVEL},
         description="interpolated precision at a recall level (trec_eval iprec_at_recall)")
register("11ptAvg", _binary(eleven_point_average), task="ranking", source=TREC_EVAL, params=_BINARY,
         aliases=("11pt_avg",), domains=_LEVEL,
         description="interpolated precision averaged at recall 0, 0.1, …, 1 (trec_eval 11pt_avg)")
register("Unjudged", TableMeasure(unjudged_at), task="ranking", source=TREC_EVAL, params={"k": 10, **JUDGED_ONLY},
         cutoff="k", aliases=("unj",), direction="lower", domains={**_CUT, **JUDGED_ONLY_DOMAIN},
         description="fraction of the top k outside the judgements (trec_eval unj_k; a red flag)")
register("Judged", TableMeasure(judged_at), task="ranking", source="ir_measures (Judged@k)", params={"k": None},
         cutoff="k", domains={"k": Interval(1, integer=True, optional=True)},
         description="fraction of the top k that has a judgement (ir_measures Judged@k)")
register("RBPResid", TableMeasure(rbp_residual), task="ranking", source=TREC_EVAL, params={"p": 0.9, **JUDGED_ONLY},
         aliases=("rbp_resid",), direction="lower",
         domains={"p": Interval(0, 1, low_open=True, high_open=True), **JUDGED_ONLY_DOMAIN},
         description="RBP residual: the weight unjudged and unretrieved ranks could still add (trec_eval)")
for _name, _kernel, _aliases, _what in (
        ("nDCGRel", ndcg_rel, ("ndcg_rel",), "nDCG averaged at the relevant documents (trec_eval ndcg_rel)"),
        ("G", g_measure, (), "gain discounted by the lag behind the ideal (trec_eval G, experimental)")):
    register(_name, TableMeasure(_kernel), task="ranking", source=TREC_EVAL, params=JUDGED_ONLY, aliases=_aliases,
             domains=JUDGED_ONLY_DOMAIN, description=_what)
register("RnDCG", _binary(r_ndcg), task="ranking", source=TREC_EVAL, params=_BINARY, aliases=("Rndcg",),
         domains=_LEVEL, description="nDCG averaged at the R-levels of the ideal ranking (trec_eval Rndcg)")
del _name, _kernel, _aliases, _what, _params
