"""workbench.sorting: the stable order and the sort of integer keys, against numpy's own on keys of every width
(near 2^64, equal, equal but for their last bits, negative, empty, one), sorted at once or a run at a time."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.sorting import _rows, sorted_keys, stable_order

TOP = 2**64 - 1


@st.composite
def uint64_keys(draw, size: int | None = None) -> np.ndarray:
    """uint64 keys of one width (1 to 64 bits), some of them equal, some near 2^64, some equal but for their last
    bits (leading bits that tie: put in order by the whole key); ``size`` of them, or up to 200."""
    width = draw(st.integers(1, 64))
    pool = draw(st.lists(st.integers(0, 2**width - 1) | st.integers(TOP - 8, TOP), min_size=1, max_size=6))
    keys = draw(st.lists(st.sampled_from(pool) | st.integers(0, 2**width - 1),
                         min_size=size or 0, max_size=200 if size is None else size))
    last = draw(st.lists(st.integers(0, 3), min_size=len(keys), max_size=len(keys)))
    return np.array([key ^ bits for key, bits in zip(keys, last, strict=True)], dtype=np.uint64)


@settings(max_examples=400, deadline=None)
@given(uint64_keys())
def test_stable_order_is_numpys_stable_argsort(keys):
    assert stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()
    assert sorted_keys(keys.copy()).tolist() == np.sort(keys).tolist()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32]),
       st.lists(st.integers(-2**63, 2**63 - 1), max_size=100))
def test_signed_and_narrow_keys_in_their_order(dtype, values):
    keys = np.array(values, dtype=np.int64).astype(dtype)  # wrapped into the dtype's range
    assert stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()


@st.composite
def keys_in_runs(draw) -> tuple[np.ndarray, np.ndarray]:
    """Keys led by a group (the groups ascending, in the leading bits; below them, keys of any width) and the
    groups: in runs of one length, or mostly (sorted as rows of a 2-D array, padded or not), or of any lengths."""
    count = draw(st.integers(1, 12))
    span = draw(st.integers(1, 40))
    lengths = draw(st.lists(st.sampled_from([span] * 8 + [max(span - 1, 1)]) | st.integers(1, 2 * span),
                            min_size=count, max_size=count))
    distinct = draw(st.lists(st.integers(0, 2**20), min_size=count, max_size=count, unique=True))
    groups = np.repeat(np.sort(distinct), lengths)
    bits = max(int(groups.max()).bit_length(), 1)
    below = draw(uint64_keys(size=groups.size)) >> np.uint64(bits)
    return groups, below | (groups.astype(np.uint64) << np.uint64(64 - bits))


@settings(max_examples=400, deadline=None)
@given(keys_in_runs())
def test_groups_sorted_alone_give_the_order_of_all(drawn):
    groups, keys = drawn
    assert stable_order(keys, groups).tolist() == np.argsort(keys, kind="stable").tolist()
    assert sorted_keys(keys.copy(), groups).tolist() == np.sort(keys).tolist()


def test_rows_of_one_length_padded_rows_and_one_sort():
    """The three ways of sorting by groups, each against numpy: rows of one length (in place), rows padded to the
    longest (at most 1/8 more keys), one sort of all (more padding than that, or groups that decrease); and keys
    already in order."""
    rng = np.random.default_rng(5)
    for lengths, as_rows in (([50] * 8, True), ([50] * 7 + [45], True), ([50] * 7 + [5], False)):
        groups = np.repeat(np.arange(len(lengths)), lengths).astype(np.uint64)
        assert (_rows(groups, groups.size) is not None) == as_rows
        for width in (8, 30, 61, 64):  # below the group's 3 bits: narrow, wide, too wide for a position
            below = rng.integers(0, 2**width - 1, groups.size, dtype=np.uint64, endpoint=True) >> np.uint64(3)
            keys = (groups << np.uint64(61)) | (below & ~np.uint64(0xFF))  # equal but for bits the position takes
            keys[::7] |= np.uint64(1)
            for ordered in (keys, np.sort(keys)):
                assert stable_order(ordered, groups).tolist() == np.argsort(ordered, kind="stable").tolist()
                assert sorted_keys(ordered.copy(), groups).tolist() == np.sort(ordered).tolist()
    assert _rows(np.array([0, 0, 1, 1, 0, 0]), 6) is None


def test_empty_and_one_key():
    assert stable_order(np.array([], dtype=np.uint64)).tolist() == []
    assert stable_order(np.array([TOP], dtype=np.uint64)).tolist() == [0]
    assert sorted_keys(np.array([], dtype=np.uint64), np.array([], dtype=np.int64)).tolist() == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), max_size=400), st.integers(1, 80), st.booleans())
def test_keys_sorted_up_to_short_runs(values, run, descending):
    """Keys sorted but for runs of up to ``run`` keys (merged by timsort), or sorted in runs descending."""
    keys = np.sort(np.array(values, dtype=np.int64))
    for start in range(0, keys.size, run):
        piece = keys[start:start + run]
        piece[:] = piece[::-1] if descending else np.roll(piece, 1)
    assert stable_order(keys).tolist() == np.argsort(keys, kind="stable").tolist()
