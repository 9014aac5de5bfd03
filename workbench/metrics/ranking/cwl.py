"""The C/W/L measures of cwl_eval (Azzopardi, Thomas & Moffat, SIGIR 2019) that ir_measures reads: INSQ, INST, the
NERR family and the static BPM, over a :class:`~workbench.metrics.ranking.table.GainTable`.

In the C/W/L framework (Moffat et al., TOIS 2017) a user who has looked at rank i goes on to rank i + 1 with
probability C(i); the measure is the expected rate of gain Σ_r W(r)·gain(r), where W(r) = Π_{i<r} C(i) / Σ_j Π_{i<j}
C(i) over the ranks the user may reach. Gains are grades put on [0, 1] as cwl_eval reads them through ir_measures:
(min(max(grade, min_rel), max_rel) − min_rel) / (max_rel − min_rel), unjudged documents 0 (:func:`cwl_gains`).

The ranking is conceptually endless, its ranks past the last retrieved document non-relevant. cwl_eval looks at
1,000 ranks exactly (its ``-n``: the ranking cut or padded to 1,000), hence ir_measures' values; the measures whose
continuation never reaches 0 (INSQ, INST, NERR10, NERR11) take that ``depth``, 1,000 by default, or None for the
unbounded ranking of their papers. Past the ranking the continuation depends on the rank alone, so the weight of the
ranks after it is a closed form (:func:`weighted_precision`'s ``rest``): nothing is padded. The measures with a
cutoff k (NERR8, NERR9, BPM, like SDCG) stop at k, however deep; cwl_eval at 1,000 when k is larger.

    >>> t = GainTable.from_gains([[3, 0, 1]], [[3, 1]])
    >>> round(float(nerr8(t, k=3, max_rel=3)[0]), 6), round(float(bpm(t, k=2, max_rel=3, T=2)[0]), 6)
    (1.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from workbench.errors import ParameterError
from workbench.metrics.ranking.cwl_columns import DEPTH_LIMIT, Model, costs_to_depth, reach_of, to_depth
from workbench.metrics.ranking.table import GainTable, ranks, row_sums

__all__ = ["CWL_DEPTH", "cwl_gains", "weighted_precision", "insq_continuation", "inst_continuation",
           "nerr_continuation", "bpm_continuation", "sdcg_continuation", "cwl_model", "insq_terms", "insq",
           "inst_terms", "inst", "nerr_terms", "nerr8", "nerr9", "nerr10", "nerr11", "bpm_terms", "bpm"]

CWL_DEPTH = 1000
"""cwl_eval's ``-n``: the ranks its user model runs over (the ranking cut or padded with non-relevant documents)."""


def cwl_gains(table: GainTable, min_rel: float = 0, max_rel: float | None = None) -> np.ndarray:
    """Each retrieved document's gain on [0, 1] as ir_measures gives cwl_eval its qrels: the grade clipped to
    [min_rel, max_rel], less min_rel, over max_rel − min_rel; an unjudged document gains 0 (cwl_eval's worst case).

    >>> cwl_gains(GainTable.from_gains([[0, 1, 2, 5]], [[5]]), min_rel=1, max_rel=3).tolist()
    [[0.0, 0.0, 0.5, 1.0]]
    """
    top = cast(float, max_rel)  # None only as the declarations' default: they require it (MIN_MAX_REL)
    if not min_rel < top:  # each declared alone, the two parameters are bound together here
        raise ParameterError(f"min_rel must be below max_rel, got min_rel={min_rel:g}, max_rel={top:g}",
                             parameter="min_rel")
    return (np.clip(table.gains, min_rel, top) - min_rel) / (top - min_rel)


def weighted_precision(continuation: np.ndarray, rest: np.ndarray | float,
                       lengths: np.ndarray | None = None) -> np.ndarray:
    """The C/W/L weights W(r) of the ranks 1..n given C(1..n), one row per topic: W(r) = reach(r) / (Σ_{r ≤ m}
    reach(r) + reach(m + 1)·rest), reach(r) = Π_{i<r} C(i), where ``rest`` is Σ_{r > m} reach(r) / reach(m + 1), the
    weight of the ranks past m (0 when the user model stops at m), m each row's ``lengths`` (its ranking's length;
    n without them). Summed in rank order to the row's own length, a row weighs the same however wide its table:
    the ranks between its length and the table's width are past its ranking either way.

    >>> weighted_precision(np.array([[0.5, 0.5]]), 0.0).round(4).tolist()
    [[0.6667, 0.3333]]
    """
    rows, n = continuation.shape
    reach = np.cumprod(np.hstack([np.ones((rows, 1)), continuation]), axis=1)
    if lengths is None:
        total = row_sums(reach[:, :n]) + reach[:, n] * rest
    else:
        within = np.where(ranks(n)[None, :] <= lengths[:, None], reach[:, :n], 0.0)
        total = row_sums(within) + reach[np.arange(rows), lengths] * rest
    return reach[:, :n] / total[:, None]


def _inverse_square_rest(n: np.ndarray | int, a: np.ndarray | float, depth: int | None) -> np.ndarray | float:
    """Σ_{l=0}^{d−1} (x/(x + l))², x = n + a, d = depth − n (d = ∞ without a depth): the weight of the ranks past n
    when C(i) = ((i + a − 1)/(i + a))² there (INSQ, INST, NERR11). It is x²(ψ₁(x) − ψ₁(x + d)), ψ₁ the trigamma
    function; from x = 100 on, ψ₁'s asymptotic series (to x⁻⁷) written in d/(x + d) and x/(x + d), whose terms keep
    their digits where the two trigammas would cancel (a huge T).

    >>> round(float(_inverse_square_rest(0, 2.0, None)), 12) == round(4 * (np.pi ** 2 / 6 - 1), 12)
    True
    >>> round(float(_inverse_square_rest(0, 1e300, 1000)), 9)  # C = 1: each of the 1,000 ranks weighs 1
    1000.0
    """
    from scipy.special import polygamma

    x = np.atleast_1d(np.asarray(n, dtype=float) + np.asarray(a, dtype=float))
    d = np.broadcast_to(np.inf if depth is None else depth - np.asarray(n, dtype=float), x.shape)
    out = np.zeros_like(x)  # d = 0: no rank past n
    small, large = (x < 100) & (d > 0), (x >= 100) & (d > 0)
    near = x[small]  # ψ₁(x) = 1/x² + ψ₁(x + 1): the first term 1 exactly, however small x is
    out[small] = 1.0 + near * near * (polygamma(1, near + 1)
                                      - (0.0 if depth is None else polygamma(1, near + d[small])))
    far, d = x[large], d[large]
    gone = np.ones_like(far) if depth is None else d / (far + d)  # d/y and x/y, y = x + d
    ratio = np.zeros_like(far) if depth is None else far / (far + d)
    powers = np.cumsum([np.ones_like(ratio), *(ratio ** j for j in range(1, 7))], axis=0)  # Σ_{j<m} r^j, m = 1..7
    inverse = 1.0 / far
    out[large] = gone * (far + powers[1] / 2 + powers[2] * inverse / 6 - powers[4] * inverse ** 3 / 30
                         + powers[6] * inverse ** 5 / 42)
    return out if np.ndim(a) or np.ndim(n) else float(out[0])


def _depth(table: GainTable, gains: np.ndarray, depth: int | None) -> np.ndarray:
    return gains if depth is None else gains[:, :depth]


def _lengths(table: GainTable, gains: np.ndarray) -> np.ndarray:
    """Each row's ranking length within the ranks ``gains`` holds (its table's width past it: padding)."""
    return np.minimum(table.num_ret, gains.shape[1])


# --------------------------------------------------- each measure's continuation C(i) over the ranks of ``gains``
def insq_continuation(gains: np.ndarray, T: float = 1.0) -> np.ndarray:
    """INSQ's C(i) = ((i + 2T − 1)/(i + 2T))² at the ranks of ``gains`` (topics × ranks)."""
    i = ranks(gains.shape[1])
    return np.broadcast_to(((i + 2 * T - 1) / (i + 2 * T)) ** 2, gains.shape)


def inst_continuation(gains: np.ndarray, T: float = 1.0) -> np.ndarray:
    """INST's C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{r ≤ i} gain(r)."""
    wanted = 2 * T - np.cumsum(gains, axis=1)  # T + T_i
    i = ranks(gains.shape[1])
    return ((i + wanted - 1) / (i + wanted)) ** 2


def nerr_continuation(gains: np.ndarray, equation: int, k: int | None = None, p: float = 0.9,
                      T: float = 1.0) -> np.ndarray:
    """NERR's C(i) of ``equation`` 8, 9 (cut at k), 10 or 11 (:func:`nerr8` ...)."""
    i = ranks(gains.shape[1])
    if equation in (8, 9):
        return (1.0 - gains) * (i < cast(int, k)) * (1.0 if equation == 8 else i / (i + 1))
    if equation == 10:
        return p * (1.0 - gains)
    return ((i + 2 * T - 1) / (i + 2 * T)) ** 2 * (1.0 - gains)


def bpm_continuation(gains: np.ndarray, k: int | None = None, T: float = 1.0) -> np.ndarray:
    """BPM's C(i): 1 while the gain up to i is below T and i < k, else 0."""
    return ((np.cumsum(gains, axis=1) < T) & (ranks(gains.shape[1]) < cast(int, k))).astype(float)


def sdcg_continuation(gains: np.ndarray, k: int | None = None) -> np.ndarray:
    """SDCG's C(i) = log2(i + 1)/log2(i + 2) for i < k, 0 from k on (cwl_eval's NDCG-k): the weights fall as DCG's
    discount 1/log2(i + 1)."""
    i = ranks(gains.shape[1])
    return np.broadcast_to(np.where(i < cast(int, k), np.log2(i + 1) / np.log2(i + 2), 0.0), gains.shape)


def cwl_model(table: GainTable, continuation: Callable[..., np.ndarray], min_rel: float = 0,
              max_rel: float | None = None, depth: int | None = CWL_DEPTH, **params: Any) -> Model:
    """The user model of a measure of ``continuation`` over ``depth`` ranks as cwl_eval pads them (gain 0, cost 1),
    whence its five output columns (:func:`~workbench.metrics.ranking.cwl_columns.column_terms`); they need a
    depth (they count the ranks the user reads), at most :data:`~workbench.metrics.ranking.cwl_columns.DEPTH_LIMIT`.

    >>> from workbench.metrics.ranking.cwl_columns import column_terms
    >>> model = cwl_model(GainTable.from_gains([[1, 0]], [[1]]), insq_continuation, max_rel=1, depth=2)
    >>> round(float(column_terms(model, "EU").sum()), 6), round(float(column_terms(model, "ED").sum()), 6)
    (0.692308, 1.444444)
    """
    if depth is None or depth > DEPTH_LIMIT:
        raise ParameterError(f"the columns ETU, EC, ETC and ED count the ranks the user reads: they need a depth "
                             f"(or cutoff) of 1 to {DEPTH_LIMIT:,}, got {depth}", parameter="depth")
    gains = to_depth(cwl_gains(table, min_rel, max_rel), depth, 0.0)
    stay = continuation(gains, **params)
    return gains, costs_to_depth(table, depth), reach_of(stay), stay


def insq_terms(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
               depth: int | None = CWL_DEPTH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """INSQ's gains, continuations C(i) = ((i + 2T − 1)/(i + 2T))² and weights W(i) over the ranks it reads."""
    gains = _depth(table, cwl_gains(table, min_rel, max_rel), depth)
    continuation, lengths = insq_continuation(gains, T), _lengths(table, gains)
    return gains, continuation, weighted_precision(continuation, _inverse_square_rest(lengths, 2 * T, depth), lengths)


def insq(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
         depth: int | None = CWL_DEPTH) -> np.ndarray:
    """INSQ = Σ_r W(r)·gain(r), C(i) = ((i + 2T − 1)/(i + 2T))²: a user who expects to need T units of gain (Moffat,
    Scholer & Thomas, ADCS 2012; cwl_eval's INSQ).

    >>> round(float(insq(GainTable.from_gains([[1, 0]], [[1]]), max_rel=1, depth=2)[0]), 6)
    0.692308
    """
    gains, _, weights = insq_terms(table, T, min_rel, max_rel, depth)
    return row_sums(weights * gains)


def inst_terms(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
               depth: int | None = CWL_DEPTH) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """INST's gains, continuations C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{r ≤ i} gain(r), and
    weights W(i) over the ranks it reads."""
    gains = _depth(table, cwl_gains(table, min_rel, max_rel), depth)
    continuation, lengths = inst_continuation(gains, T), _lengths(table, gains)
    after = 2 * T - row_sums(gains)  # T + T_m, the same at every rank past the ranking's length m
    return gains, continuation, weighted_precision(continuation, _inverse_square_rest(lengths, after, depth), lengths)


def inst(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
         depth: int | None = CWL_DEPTH) -> np.ndarray:
    """INST = Σ_r W(r)·gain(r), C(i) = ((i + T + T_i − 1)/(i + T + T_i))² with T_i = T − Σ_{r ≤ i} gain(r) the gain
    still wanted: INSQ made adaptive, the user leaving sooner once T is met (Moffat, Bailey, Scholer & Thomas,
    ADCS 2015; Bailey et al., SIGIR 2015; cwl_eval's INST).

    >>> round(float(inst(GainTable.from_gains([[1, 0]], [[1]]), max_rel=1, depth=2)[0]), 6)
    0.8
    """
    gains, _, weights = inst_terms(table, T, min_rel, max_rel, depth)
    return row_sums(weights * gains)


def nerr_terms(table: GainTable, equation: int, k: int | None = None, p: float = 0.9, T: float = 1.0,
               min_rel: float = 0, max_rel: float | None = None, depth: int | None = CWL_DEPTH
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The gains, continuations and weights of NERR of ``equation`` 8, 9, 10 or 11 (:func:`nerr8` ...)."""
    gains = cwl_gains(table, min_rel, max_rel)
    if equation in (8, 9):
        k = cast(int, k)  # NERR8 and NERR9 declare their cutoff required
        gains = gains[:, :k]
        n = _lengths(table, gains)
        continuation = nerr_continuation(gains, equation, k=k)
        rest: np.ndarray
        if equation == 8:  # past the ranking C = 1 up to k: the reach stays put for k − n ranks
            rest = (k - n).astype(float)
        else:  # C(i) = i/(i + 1) up to k: Σ_{m=1}^{k−n} (n + 1)/(n + m)
            from scipy.special import digamma

            rest = np.where(n < k, (n + 1) * (digamma(k + 1) - digamma(n + 1.0)), 0.0)
        return gains, continuation, weighted_precision(continuation, rest, n)
    gains = _depth(table, gains, depth)
    n = _lengths(table, gains)
    continuation = nerr_continuation(gains, equation, p=p, T=T)
    after: np.ndarray | float
    if equation == 10:
        after = (1.0 - p ** (np.inf if depth is None else depth - n)) / (1.0 - p)
    else:  # 11
        after = _inverse_square_rest(n, 2 * T, depth)
    return gains, continuation, weighted_precision(continuation, after, n)


def nerr8(table: GainTable, k: int | None = None, min_rel: float = 0, max_rel: float | None = None) -> np.ndarray:
    """NERR8@k = Σ_{r ≤ k} W(r)·gain(r), C(i) = 1 − gain(i) for i < k and 0 at k: ERR's stopping by gain, cut at k
    (Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. 8; cwl_eval's NERReq8).

    >>> round(float(nerr8(GainTable.from_gains([[1, 2]], [[2, 1]]), k=2, max_rel=2)[0]), 6)
    0.666667
    """
    gains, _, weights = nerr_terms(table, 8, k=k, min_rel=min_rel, max_rel=max_rel)
    return row_sums(weights * gains)


def nerr9(table: GainTable, k: int | None = None, min_rel: float = 0, max_rel: float | None = None) -> np.ndarray:
    """NERR9@k = Σ_{r ≤ k} W(r)·gain(r), C(i) = i/(i + 1)·(1 − gain(i)) for i < k and 0 at k: stopping by gain and
    the reciprocal-rank discount, cut at k (Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. 9; cwl_eval's NERReq9).

    >>> round(float(nerr9(GainTable.from_gains([[1, 2]], [[2, 1]]), k=2, max_rel=2)[0]), 6)
    0.6
    """
    gains, _, weights = nerr_terms(table, 9, k=k, min_rel=min_rel, max_rel=max_rel)
    return row_sums(weights * gains)


def nerr10(table: GainTable, p: float = 0.9, min_rel: float = 0, max_rel: float | None = None,
           depth: int | None = CWL_DEPTH) -> np.ndarray:
    """NERR10 = Σ_r W(r)·gain(r), C(i) = p·(1 − gain(i)): stopping by gain with RBP's persistence p (Azzopardi,
    Mackenzie & Moffat, ICTIR 2021, eq. 10; cwl_eval's NERReq10).

    >>> round(float(nerr10(GainTable.from_gains([[1, 2]], [[2, 1]]), p=0.5, max_rel=2, depth=2)[0]), 6)
    0.6
    """
    gains, _, weights = nerr_terms(table, 10, p=p, min_rel=min_rel, max_rel=max_rel, depth=depth)
    return row_sums(weights * gains)


def nerr11(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
           depth: int | None = CWL_DEPTH) -> np.ndarray:
    """NERR11 = Σ_r W(r)·gain(r), C(i) = ((i + 2T − 1)/(i + 2T))²·(1 − gain(i)): stopping by gain with INSQ's
    patience for a goal T (Azzopardi, Mackenzie & Moffat, ICTIR 2021, eq. 11 as cwl_eval's NERReq11 names it;
    ir_measures' docstring says eq. 12).

    >>> round(float(nerr11(GainTable.from_gains([[1, 0]], [[1]]), max_rel=1, depth=2)[0]), 6)
    1.0
    """
    gains, _, weights = nerr_terms(table, 11, T=T, min_rel=min_rel, max_rel=max_rel, depth=depth)
    return row_sums(weights * gains)


def bpm_terms(table: GainTable, k: int | None = None, T: float = 1.0, min_rel: float = 0,
              max_rel: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """BPM's gains, continuations (1 while the gain so far is below T and the rank below k, else 0) and weights."""
    gains = cwl_gains(table, min_rel, max_rel)[:, :k]
    n = _lengths(table, gains)
    continuation = bpm_continuation(gains, k, T)
    return gains, continuation, weighted_precision(continuation, (cast(int, k) - n).astype(float), n)


def bpm(table: GainTable, k: int | None = None, T: float = 1.0, min_rel: float = 0,
        max_rel: float | None = None) -> np.ndarray:
    """BPM@k = Σ_{r ≤ s} gain(r) / s, s the first rank where the gain so far reaches T, or k: the static Bejeweled
    Player Model, a user who stops once satisfied (benefit T) or out of patience (cost k) (Zhang et al., SIGIR 2017),
    as cwl_eval's BPM-Static states it in C/W/L (C(i) = 1 while both budgets last, 0 after) with gains linear in the
    grade on [0, 1]; Zhang et al. square the grade (cwl_eval's notes), so ir_measures' BPM is cwl_eval's.

    >>> round(float(bpm(GainTable.from_gains([[1, 0, 2]], [[2, 1]]), k=3, max_rel=2)[0]), 6)
    0.5
    """
    gains, _, weights = bpm_terms(table, k, T, min_rel, max_rel)
    return row_sums(weights * gains)
