"""Weighted 2-D dominance sums in O(n log² n) numpy: for each point, the sum of values strictly below-left.

This is what makes priority Reliability fast (``../shared/design/ARCHITECTURE.md``): a pair of occurrences
counts when the output ranks one above the other (x) and the gold agrees (y).

    >>> import numpy as np
    >>> dominance_sums(np.array([0, 1, 2]), np.array([0, 2, 1]), np.array([[1.0, 10.0, 100.0]]))[0]
    array([0., 1., 1.])
"""

from __future__ import annotations

import numpy as np


def _ranks(values: np.ndarray) -> np.ndarray:
    """Order-preserving non-negative integer codes (the values themselves when they are small integers)."""
    values = np.asarray(values)
    if values.dtype.kind in "iu" and len(values):
        low, high = int(values.min()), int(values.max())
        if high - low < 4 * len(values):
            return values.astype(np.int64) - low
    return np.unique(values, return_inverse=True)[1].astype(np.int64)


def dominance_sums(x: np.ndarray, y: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``out[:, i] = Σ_{j : x[j] < x[i] and y[j] < y[i]} values[:, j]`` (``values`` of shape (k, n)).

    Offline divide and conquer over the dyadic blocks of x's ranks (CDQ): at level b every point of a right
    child block collects the values of the left child block with smaller y, found by one stable sort and one
    cumulative sum per level, along whichever coordinate has fewer distinct values (a graded gold has few
    levels: then only a few passes). Exact for ties: equal x or equal y never count.
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    n = len(x)
    out = np.zeros_like(values)
    if n < 2:
        return out
    rx, ry = _ranks(x), _ranks(y)
    if ry.max() < rx.max():  # the condition is symmetric: divide along the coordinate with fewer values
        rx, ry = ry, rx
    n_y = int(ry.max()) + 1
    order = np.lexsort((ry, rx))
    for b in range(int(rx.max()).bit_length()):
        right = (rx >> b) & 1  # 1: the point lies in the right child block at this level
        parent = rx >> (b + 1)
        # Within a parent block: by y, and at equal y the right child first, so only strictly smaller y counts.
        key = (parent * n_y + ry) * 2 + (1 - right)
        order = order[np.argsort(key[order], kind="stable")]
        is_left = right[order] == 0
        block = parent[order]
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        lengths = np.diff(np.r_[starts, n])
        receivers = order[~is_left]
        for row, column in zip(out, values, strict=True):
            cum = np.cumsum(np.where(is_left, column[order], 0.0))
            offset = np.repeat(np.r_[0.0, cum[starts[1:] - 1]], lengths)
            row[receivers] += (cum - offset)[~is_left]
    return out
