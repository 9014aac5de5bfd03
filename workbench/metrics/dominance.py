"""Weighted 2-D dominance sums in O(n log² n) numpy: for each point, the sums of values strictly below-left
and strictly above-right.

This is what makes priority Reliability fast (``docs/rs-engine.md``): a pair of occurrences
counts when the output ranks one above the other (x) and the gold agrees (y); each occurrence collects the
agreeing mass above it (below-left) and below it (above-right).

    >>> import numpy as np
    >>> lower, upper = dominance_sums(np.array([0, 1, 2]), np.array([0, 2, 1]), np.array([[1.0, 10.0, 100.0]]))
    >>> lower[0], upper[0]
    (array([0., 1., 1.]), array([110.,   0.,   0.]))
"""

from __future__ import annotations

import numpy as np

__all__ = ["dominance_sums"]


def _ranks(values: np.ndarray) -> np.ndarray:
    """Order-preserving non-negative integer codes (the values themselves when they are small integers)."""
    values = np.asarray(values)
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low < 4 * len(values):
            return values.astype(np.int64) - low
    return np.unique(values, return_inverse=True)[1].astype(np.int64)


def dominance_sums(x: np.ndarray, y: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` with ``lower[:, i] = Σ_{j : x[j] < x[i] and y[j] < y[i]} values[:, j]`` and
    ``upper[:, i] = Σ_{j : x[j] > x[i] and y[j] > y[i]} values[:, j]`` (``values`` of shape (k, n)).

    When the (x rank, y rank) grid has no more cells than there are points (few levels on both sides), prefix
    sums over the grid. Otherwise offline divide and conquer over the dyadic blocks of x's ranks (CDQ): at
    level b every point of a right child block collects the values of the left child block with smaller y,
    and every point of a left child block those of the right child block with larger y, found by one stable
    sort and two cumulative sums per level, along whichever coordinate has fewer distinct values (a graded
    gold has few levels: then only a few passes). Exact for ties: equal x or equal y never count.
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    n = len(x)
    lower, upper = np.zeros_like(values), np.zeros_like(values)
    if n < 2:
        return lower, upper
    rx, ry = _ranks(x), _ranks(y)
    shape = (int(rx.max()) + 2, int(ry.max()) + 2)  # a zero row and column beyond each end
    if shape[0] * shape[1] <= n:
        cell = rx * shape[1] + ry
        for low_row, up_row, column in zip(lower, upper, values, strict=True):
            grid = np.bincount(cell, column, shape[0] * shape[1]).reshape(shape)
            below_left = np.zeros(shape)  # [i, j]: Σ over x rank < i and y rank < j
            below_left[1:, 1:] = grid[:-1, :-1].cumsum(axis=0).cumsum(axis=1)
            above_right = grid[::-1, ::-1].cumsum(axis=0).cumsum(axis=1)[::-1, ::-1]  # x rank ≥ i, y rank ≥ j
            low_row[:] = below_left[rx, ry]
            up_row[:] = above_right[rx + 1, ry + 1]
        return lower, upper
    if ry.max() < rx.max():  # the condition is symmetric: divide along the coordinate with fewer values
        rx, ry = ry, rx
    n_y = int(ry.max()) + 1
    order = np.lexsort((ry, rx))
    for b in range(int(rx.max()).bit_length()):
        right = (rx >> b) & 1  # 1: the point lies in the right child block at this level
        parent = rx >> (b + 1)
        # Within a parent block: by y, and at equal y the right child first, so only strictly smaller y counts
        # for a right point, and only strictly larger y for a left point (the right points at its y precede it).
        key = (parent * n_y + ry) * 2 + (1 - right)
        order = order[np.argsort(key[order], kind="stable")]
        is_left = right[order] == 0
        block = parent[order]
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        lengths = np.diff(np.r_[starts, n])
        ends = np.repeat(starts + lengths - 1, lengths)
        receivers, senders = order[~is_left], order[is_left]
        for low_row, up_row, column in zip(lower, upper, values, strict=True):
            ordered = column[order]
            cum = np.cumsum(np.where(is_left, ordered, 0.0))
            offset = np.repeat(np.r_[0.0, cum[starts[1:] - 1]], lengths)
            low_row[receivers] += (cum - offset)[~is_left]
            cum = np.cumsum(np.where(is_left, 0.0, ordered))
            up_row[senders] += (cum[ends] - cum)[is_left]
    return lower, upper
