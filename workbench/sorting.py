"""The sort of integer keys the rankings lean on: :func:`stable_order` is ``np.argsort(keys, kind="stable")``,
exactly, and :func:`sorted_keys` is ``np.sort(keys)``, both fast under every x86 SIMD dispatch of numpy.

numpy sorts 64-bit keys with x86-simd-sort, whose AVX-512 partitioning is slow on AMD Zen 4 (its compress-store is
microcoded: 2M uint64 keys sorted in 0.11 s, against 0.02 s on the AVX2 path) and whose argsort is slower still
(0.19 s, AVX2 0.09 s); a stable argsort of 64-bit keys is a timsort (0.2 s). What is fast on both paths:

- a sort of values rather than an argsort: each key carries its position in its low bits (ties: by position, as
  a stable sort leaves them);
- short rows: rows of 1,000 keys sort 3x faster than one sort of all with AVX-512, as fast with AVX2; keys led by
  a group (``groups``, ascending: a run's topics one after the other) are sorted a group per row of a 2-D array;
- radix for narrow keys: keys of 32 bits or fewer are sorted 16 bits at a time (numpy sorts 16-bit integers by
  radix: linear time; as fast as numpy's argsort with AVX2, 3x faster with AVX-512);
- keys sorted up to short runs are merged (timsort), and keys already in order (a run ranked by its file) only
  checked.

    >>> stable_order(np.array([3, 1, 3, 2], dtype=np.uint64)).tolist()
    [1, 3, 0, 2]
    >>> stable_order(np.array([5, 4, 9, 7], dtype=np.uint64), groups=np.array([0, 0, 1, 1])).tolist()
    [1, 0, 3, 2]
"""

from __future__ import annotations

import numpy as np

__all__ = ["stable_order", "sorted_keys"]

_ALL_ONES = np.uint64(2**64 - 1)  # a row's padding: after every key of a row (a key carries a position below it)
_BLOCK = 1 << 16


def stable_order(keys: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of integer ``keys`` (int64 positions). ``groups``: each key's group
    where the groups lead the keys (every key of a group below every key of a greater one, as
    :func:`~workbench.metrics.ranking.matching.with_groups` makes them): where they never decrease, each group's
    keys are sorted alone.

    Each key, less the smallest, is shifted left to make room for its position (in its group) in its low bits and
    the keys sorted as values; keys too wide for that keep their leading bits only, and the keys whose leading
    bits tie are put in order afterwards by their whole value where it differs (rare: 64-bit hashes, or scores
    equal but for their last bits). The keys are shifted, sorted and read back in one array, the result's (a new
    array's first touch costs about 0.4 ms a MB)."""
    wide, smallest = _wide(keys)
    n = wide.size
    if _in_order(wide):  # a run ranked by its file: its keys come sorted
        return np.arange(n, dtype=np.int64)
    packed = wide.view(np.uint64) - smallest
    width = int(packed.max()).bit_length()
    rows = _rows(groups, n) if width > 16 else None
    if rows is None and _in_runs(wide):
        return np.argsort(wide, kind="stable")
    if rows is None and width <= 32:
        return _by_digits(packed, width)
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
        _ties_in_order(order, same, wide.view(np.uint64), smallest)
    return order


def sorted_keys(keys: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """``np.sort(keys)`` of uint64 ``keys``, an array the caller gives up: sorted in place unless the groups differ
    in size (``groups``: as :func:`stable_order`'s, each group's keys sorted alone).

    >>> sorted_keys(np.array([5, 4, 9, 7], dtype=np.uint64), groups=np.array([0, 0, 1, 1])).tolist()
    [4, 5, 7, 9]
    """
    return keys if _in_order(keys) else _sort(keys, _rows(groups, keys.size), positions=False)


def _by_digits(keys: np.ndarray, width: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` of uint64 ``keys`` below 2^``width``, by 16-bit digits from the lowest
    (numpy sorts 16-bit integers by radix: linear time; 2M keys of 32 bits, two digits: 91 ms, against 118 ms
    for their sort with positions under AVX-512; 85 and 31 ms under AVX2, as fast as numpy's argsort).

    >>> _by_digits(np.array([70000, 5, 65541], dtype=np.uint64), 17).tolist()
    [1, 2, 0]
    """
    order = np.argsort(keys.astype(np.uint16), kind="stable")
    for shift in range(16, width, 16):
        digit = (keys[order] >> np.uint64(shift)).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
    return order


def _in_runs(keys: np.ndarray) -> bool:
    """Whether ``keys`` are sorted up to short runs (keys 64 places apart mostly in order, as keys led by an
    Organization's clusters are): numpy's stable argsort (timsort) merges the runs."""
    return bool(np.count_nonzero(keys[64:] < keys[:-64]) * 16 < keys.size)


def _in_order(keys: np.ndarray) -> bool:
    """Whether ``keys`` never decrease (numpy's sort of sorted keys takes as long as of shuffled ones under AVX-512:
    262k keys 12 ms, against 0.1 ms for this check)."""
    return not (keys[1:] < keys[:-1]).any()


def _wide(keys: np.ndarray) -> tuple[np.ndarray, np.uint64]:
    """Integer ``keys`` as int64 or uint64 (themselves where they are), and their smallest as uint64:
    ``wide.view(np.uint64) - smallest`` (modulo 2^64) orders them as the keys are ordered, from 0."""
    keys = np.asarray(keys)  # integers: the package's own keys, never a user's (no check at this depth)
    wide = keys.astype(np.int64 if keys.dtype.kind == "i" else np.uint64, copy=False)
    return wide, np.uint64(np.array(wide.min(initial=np.iinfo(wide.dtype).max)).view(np.uint64)[()])


def _rows(groups: np.ndarray | None, n: int) -> np.ndarray | None:
    """The sizes of the groups of ``n`` keys, one row each of a 2-D sort, when that pays: the groups never
    decrease, there are more than one, and padding each to the longest adds at most 1/8 to the keys (else None:
    one sort of all).

    >>> _rows(np.array([0, 0, 2, 2]), 4).tolist(), _rows(np.array([1, 0]), 2), _rows(np.array([0, 1, 1, 1]), 4)
    ([2, 2], None, None)
    """
    if groups is None or n < 2:
        return None
    groups = np.asarray(groups)
    if (groups[1:] < groups[:-1]).any():
        return None
    heads = np.flatnonzero(np.concatenate(([True], groups[1:] != groups[:-1])))
    sizes = np.diff(np.append(heads, n))
    return sizes if sizes.size > 1 and sizes.size * int(sizes.max()) * 8 <= n * 9 else None


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
    next): by whole key (``values - smallest``), then position. Neighbours whose whole keys are equal too (the
    judged pairs of the matcher's keys) are in order already: the stretches are rebuilt only when some differ."""
    pairs = np.flatnonzero(same)
    if not (values[order[pairs]] != values[order[pairs + 1]]).any():
        return
    tied = np.zeros(order.size, dtype=bool)
    tied[pairs] = True
    tied[pairs + 1] = True
    at = np.flatnonzero(tied)
    stretch = np.cumsum(np.concatenate(([True], ~same[at[1:] - 1])))
    entries = order[at]
    order[at] = entries[np.lexsort((entries, values[entries] - smallest, stretch))]
