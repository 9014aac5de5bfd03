"""Measures of how a ranking orders the judged documents, over a
:class:`~workbench.metrics.ranking.table.GainTable`: Clarke et al.'s compatibility with an ideal ranking (rank-biased
overlap, RBO) and the pairwise accuracy of ir_measures (the share of relevant/non-relevant pairs in order).

    >>> t = GainTable.from_gains([[0, 1, 0]], [[1]])
    >>> float(pairwise_accuracy(t)[0]), round(float(compatibility(t, p=0.5)[0]), 6)
    (0.5, 0.25)
"""

from __future__ import annotations

import math

import numpy as np

from workbench.metrics.ranking.table import GainTable, row_sums, safe_divide

__all__ = ["ideal_positions", "compatibility_terms", "compatibility", "pairwise_accuracy_terms", "pairwise_accuracy"]


# ---------------------------------------------------------------------------------------------- compatibility
def ideal_positions(table: GainTable) -> np.ndarray:
    """Each retrieved relevant document's 1-based position in the ideal ranking most compatible with the run (0 for
    the others): the judged relevant documents by grade, those of one grade in the run's order, the unretrieved
    after them (Clarke, Vtyurina & Smucker, TOIS 2021; compatibility.py's ``idealize``).

    >>> ideal_positions(GainTable.from_gains([[1, 0, 2, 1]], [[2, 1, 1, 1]])).tolist()
    [[2, 0, 1, 3]]
    """
    gains = table.gains
    relevant = (gains > 0) & table.retrieved()
    rows, columns = np.nonzero(relevant)
    out = np.zeros(gains.shape, dtype=np.int64)
    if rows.size == 0:
        return out
    grades = gains[rows, columns]
    width = table.ideal.shape[1]
    values, codes = np.unique(np.concatenate([table.ideal.ravel(), grades]), return_inverse=True)
    ideal_codes, grade_codes = codes[:table.ideal.size], codes[table.ideal.size:]
    top = len(values)
    # each row's ideal grades, descending, as one ascending key; a grade's key counts the row's higher grades
    keys = (np.repeat(np.arange(gains.shape[0]), width) * (top + 1) + (top - ideal_codes)).astype(np.int64)
    above = np.searchsorted(keys, rows * (top + 1) + (top - grade_codes), "left") - rows * width
    order = np.lexsort((columns, grade_codes, rows))
    group = np.concatenate(([True], (rows[order][1:] != rows[order][:-1]) |
                            (grade_codes[order][1:] != grade_codes[order][:-1])))
    starts = np.flatnonzero(group)
    before = np.empty(rows.size, dtype=np.int64)
    before[order] = np.arange(rows.size) - np.repeat(starts, np.diff(np.append(starts, rows.size)))
    out[rows, columns] = above + before + 1
    return out


def _discount_sums(p: float, length: int) -> np.ndarray:
    """Q(m) = Σ_{i ≤ m} p^(i−1)/i for m = 0..length."""
    i = np.arange(1, length + 1, dtype=float)
    return np.concatenate(([0.0], np.cumsum(p ** (i - 1) / i)))


def compatibility_terms(table: GainTable, p: float = 0.95, normalize: bool = True, depth: int | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Compat's terms: each retrieved document's share of the RBO (its weight: Σ_{i = max(r, s)}^{D} p^(i−1)/i over
    Σ_{i ≤ D} p^(i−1), r its rank and s its ideal position), the ideal positions, and each row's divisor (the
    ideal ranking's own RBO with ``normalize``, where positive, else 1)."""
    positions = ideal_positions(table)
    retrieved = table.num_ret
    n_ideal = (table.ideal > 0).sum(axis=1)
    deepest = max(int(retrieved.max(initial=0)), int(n_ideal.max(initial=0)))
    depths = np.maximum(retrieved, n_ideal) if depth is None else np.full(len(retrieved), depth, dtype=np.int64)
    # past the rankings every term is p^(i−1)/i times a constant: summed to where p^i is below 1e-20 of it
    longest = min(int(depths.max(initial=0)), deepest + math.ceil(math.log(1e-20) / math.log(p)))
    sums = _discount_sums(p, longest)
    at_depth = sums[np.minimum(depths, longest)]
    weight_sum = -np.expm1(depths * math.log(p)) / (1.0 - p)  # Σ_{i ≤ D} p^(i−1)
    meet = np.maximum(positions, np.arange(1, table.gains.shape[1] + 1)[None, :])  # the depth a document counts from
    counts = (positions > 0) & (meet <= depths[:, None])
    share = np.where(counts, at_depth[:, None] - sums[np.minimum(meet, longest + 1) - 1], 0.0)
    share = safe_divide(share, weight_sum[:, None])
    divisor = np.ones(len(retrieved))
    if normalize:  # the ideal's own RBO: position j counts from depth j, j = 1..min(L, D)
        shown = np.minimum(n_ideal, depths)
        best = shown * at_depth - np.cumsum(sums)[np.maximum(shown - 1, 0)] * (shown > 0)
        best = safe_divide(best, weight_sum)
        divisor = np.where(best > 0, best, 1.0)
    return share, positions, divisor


def compatibility(table: GainTable, p: float = 0.95, normalize: bool = True, depth: int | None = None) -> np.ndarray:
    """Compat = RBO(run, ideal) / RBO(ideal, ideal), RBO(A, B) = Σ_{i ≤ D} p^(i−1)·|A_{1:i} ∩ B_{1:i}|/i /
    Σ_{i ≤ D} p^(i−1) (Webber, Moffat & Zobel's rank-biased overlap), the ideal ranking the one most compatible
    with the run (:func:`ideal_positions`): Clarke, Vtyurina & Smucker, Assessing top-k preferences, TOIS 2021
    (normalised; ``normalize=False``, the RBO of their CIKM and ICTIR 2020 papers).

    The papers sum RBO without end; ``depth`` says where it stops: None, the longer of the run and the ideal ranking
    (ir_measures' compat provider), or a number of ranks (1,000 in Clarke's compatibility.py, where p^1000 makes the
    rest negligible for p ≤ 0.99). The two part: past the shorter depth every document still counts.

    >>> round(float(compatibility(GainTable.from_gains([[1, 2]], [[2, 1]]), p=0.5)[0]), 6)
    0.333333
    """
    share, _, divisor = compatibility_terms(table, p, normalize, depth)
    return row_sums(share) / divisor


# ------------------------------------------------------------------------------------------ pairwise accuracy
def pairwise_accuracy_terms(table: GainTable, k: int | None = None, rel: float = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each relevant rank's share of the ordered pairs (the non-relevant documents retrieved below it over R·N; 1/R
    when no non-relevant document is retrieved), and the non-relevant documents below each rank, over the top k."""
    top = table.top(k)
    relevant = top.relevant(rel)
    nonrelevant = top.retrieved() & ~relevant
    n_nonrelevant = nonrelevant.sum(axis=1)
    below = n_nonrelevant[:, None] - np.cumsum(nonrelevant, axis=1)
    n_relevant = relevant.sum(axis=1)
    pairs = n_relevant * n_nonrelevant
    per_pair = np.where(pairs > 0, safe_divide(np.ones(len(pairs)), pairs), safe_divide(np.ones(len(pairs)),
                                                                                          n_relevant))
    shares = np.where(relevant, np.where(pairs[:, None] > 0, below, 1.0) * per_pair[:, None], 0.0)
    return shares, below


def pairwise_accuracy(table: GainTable, k: int | None = None, rel: float = 1) -> np.ndarray:
    """The share of (relevant, non-relevant) pairs of retrieved documents in the top k that the ranking puts in
    order, relevant first: 1 − Σ_{relevant r} (non-relevant above r) / (R·N), R and N the relevant and non-relevant
    (or unjudged) documents retrieved (ir_measures' ``Accuracy``, "the probability that a relevant document is
    ranked before a non relevant one"; its accuracy provider).

    Where there is no pair: 0 when no relevant document is retrieved (ir_measures reports no value for the topic,
    and leaves it out of its mean), 1 when every retrieved document is relevant (ir_measures raises
    ZeroDivisionError).

    >>> float(pairwise_accuracy(GainTable.from_gains([[1, 0, 1, 0]], [[1, 1]]))[0])
    0.75
    """
    shares, _ = pairwise_accuracy_terms(table, k, rel)
    return row_sums(shares)
