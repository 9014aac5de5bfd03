"""The sort of integer keys the rankings lean on: :func:`stable_order` is ``np.argsort(keys, kind="stable")``,
exactly, and :func:`sorted_keys` is ``np.sort(keys)``, both fast under every x86 SIMD dispatch of numpy.

numpy sorts 64-bit keys with x86-simd-sort, whose AVX-512 partitioning is slow on AMD Zen 4 (its compress-store is
microcoded: 2M uint64 keys sorted in 0.11 s, against 0.02 s on the AVX2 path) and whose argsort is slower still
(0.19 s, AVX2 0.09 s); a stable argsort of 64-bit keys is a timsort (0.2 s). Three facts make one order fast on
both paths: a sort of values beats an argsort, so each key carries its position in its low bits and the keys are
sorted as values (ties: by position, as a stable sort leaves them); short rows sort in registers (a row of at most
256 keys: 1.5 ns a key with AVX-512), so keys that come in runs already in order (a group in the leading bits, the
groups ascending: ``runs``) are sorted a run per row of a 2-D array; and keys of 16 bits or fewer are sorted by
radix (linear time).

    >>> stable_order(np.array([3, 1, 3, 2], dtype=np.uint64)).tolist()
    [1, 3, 0, 2]
    >>> stable_order(np.array([5, 4, 9, 7], dtype=np.uint64), runs=np.array([2, 2])).tolist()
    [1, 0, 3, 2]
"""

from __future__ import annotations

import numpy as np

__all__ = ["run_lengths", "stable_order", "sorted_keys"]

_ALL_ONES = np.uint64(2**64 - 1)  # a row's padding: after every key of a row (a key carries a position below it)
_BLOCK = 1 << 16


def run_lengths(groups: np.ndarray) -> np.ndarray | None:
    """The lengths of the runs of equal ``groups`` when they never decrease (the ``runs`` of keys led by them),
    else None.

    >>> run_lengths(np.array([0, 0, 2, 2, 2])).tolist(), run_lengths(np.array([1, 0]))
    ([2, 3], None)
    """
    groups = np.asarray(groups)
    if (groups[1:] < groups[:-1]).any():
        return None
    heads = np.flatnonzero(np.concatenate(([True], groups[1:] != groups[:-1]))) if groups.size else groups
    return np.diff(np.append(heads, groups.size))


def stable_order(keys: np.ndarray, runs: np.ndarray | None = None) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of integer ``keys`` (int64 positions). ``runs``: the lengths of
    consecutive runs of the keys, each run's keys all below the next run's (:func:`run_lengths` of a group in the
    keys' leading bits), so that each run may be sorted alone.

    Each key, less the smallest, is shifted left to make room for its position (in its run) in its low bits and
    the keys sorted as values; keys too wide for that keep their leading bits only, and the keys whose leading
    bits tie are put in order afterwards by their whole value (rare: 64-bit hashes, or scores equal but for their
    last bits). Every array of the keys but the result is made in place (a new array of 2M keys: 16 MB of fresh
    pages, about 5 ms)."""
    values, smallest = _unsigned(keys)
    n = values.size
    if n < 2:
        return np.arange(n, dtype=np.int64)
    packed = values - smallest
    width = int(packed.max()).bit_length()
    if width <= 16:  # numpy sorts 16-bit integers by radix
        return np.argsort(packed.astype(np.uint16), kind="stable").astype(np.int64, copy=False)
    rows = _rows(runs, n)
    span = n if rows is None else int(rows.max())
    bits = span.bit_length()  # a position below 2^bits - 1: no key with its position is all ones (the padding)
    low = np.uint64((1 << bits) - 1)
    if width + bits <= 64:
        packed <<= np.uint64(bits)
    else:
        packed &= ~low
    packed = _sort(packed, rows, positions=True)
    same = _equal_leading(packed, bits) if width + bits > 64 else None
    packed &= low
    order = packed.view(np.int64)
    if rows is not None:
        order += np.repeat(np.cumsum(rows) - rows, rows)
    if same is not None:
        _ties_in_order(order, same, values, smallest)
    return order


def sorted_keys(keys: np.ndarray, runs: np.ndarray | None = None) -> np.ndarray:
    """``np.sort(keys)`` of uint64 ``keys``, an array the caller gives up: sorted in place unless its runs differ
    in length (``runs``: as :func:`stable_order`'s, each run sorted alone).

    >>> sorted_keys(np.array([5, 4, 9, 7], dtype=np.uint64), runs=np.array([2, 2])).tolist()
    [4, 5, 7, 9]
    """
    return _sort(keys, _rows(runs, keys.size), positions=False)


def _unsigned(keys: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """Integer ``keys`` as uint64 values and their smallest: ``values - smallest`` (modulo 2^64) orders them as
    the keys are ordered, from 0."""
    keys = np.asarray(keys)
    if keys.dtype.kind not in "iu":
        raise TypeError(f"integer keys expected, not {keys.dtype}")
    wide = keys.astype(np.int64 if keys.dtype.kind == "i" else np.uint64, copy=False)
    smallest = wide.min(initial=np.iinfo(wide.dtype).max)
    return wide.view(np.uint64), np.array(smallest).view(np.uint64)[()]


def _rows(runs: np.ndarray | None, n: int) -> np.ndarray | None:
    """``runs`` as rows of a 2-D sort when that pays: more than one, and padding each to the longest adds at most
    1/8 to the keys (else None: one sort of all)."""
    if runs is None or len(runs) < 2 or not n:
        return None
    runs = np.asarray(runs, dtype=np.int64)
    return runs if len(runs) * int(runs.max()) * 8 <= n * 9 else None


def _sort(keys: np.ndarray, rows: np.ndarray | None, positions: bool) -> np.ndarray:
    """``keys`` sorted (in place when they are one row, or rows of one length), each row alone: the rows padded
    with all-ones keys to the longest, sorted along the rows, the padding dropped. ``positions``: each key's
    position in its row written in its low bits (left 0 for it) first."""
    span = keys.size if rows is None else int(rows.max())
    if rows is None or rows.min() == span:
        grid, kept = keys.reshape(1 if rows is None else rows.size, span), None
    else:
        kept = np.arange(span) < rows[:, None]
        grid = np.full((rows.size, span), _ALL_ONES)
        grid[kept] = keys
    if positions:
        grid |= np.arange(span, dtype=np.uint64)
    grid.sort(axis=1)
    return keys if kept is None else grid[kept]


def _equal_leading(packed: np.ndarray, bits: int) -> np.ndarray:
    """Whether each sorted key's leading bits (all but the last ``bits``) equal the next one's, a block of 2^16
    keys at a time (no temporary of every key)."""
    same = np.empty(packed.size - 1, dtype=bool)
    below = np.uint64((1 << bits) - 1)
    for start in range(0, same.size, _BLOCK):
        block = packed[start:start + _BLOCK + 1]
        np.less_equal(block[1:] ^ block[:-1], below, out=same[start:start + _BLOCK])
    return same


def _ties_in_order(order: np.ndarray, same: np.ndarray, values: np.ndarray, smallest: np.uint64) -> None:
    """Put in order, in place, the stretches of ``order`` whose keys' leading bits tie (``same``: each with the
    next): by whole key (``values - smallest``), then position."""
    if not same.any():
        return
    tied = np.zeros(order.size, dtype=bool)
    tied[:-1] |= same
    tied[1:] |= same
    at = np.flatnonzero(tied)
    stretch = np.cumsum(np.concatenate(([True], ~same[at[1:] - 1])))
    entries = order[at]
    whole = values[entries] - smallest
    if ((whole[1:] != whole[:-1]) & (stretch[1:] == stretch[:-1])).any():  # else already in order (by position)
        order[at] = entries[np.lexsort((entries, whole, stretch))]
