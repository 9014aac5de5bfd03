"""The R&S engine's building blocks against plain numpy and brute force: dominance sums (dense grid and divide
and conquer), the radix orderings, the grids of overlapping classes against comparing them pair by pair, the
documents' codes against pandas, an organization's occurrence arrays against their definition."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import constructed_organizations, document_ids, organizations
from workbench.metrics import relations
from workbench.metrics.document_codes import document_codes, document_index
from workbench.metrics.dominance import dominance_sums
from workbench.sorting import stable_order


def _brute_dominance(x, y, values):
    lower = np.array([[row[(x < x[i]) & (y < y[i])].sum() for i in range(len(x))] for row in values])
    upper = np.array([[row[(x > x[i]) & (y > y[i])].sum() for i in range(len(x))] for row in values])
    return lower.reshape(values.shape), upper.reshape(values.shape)


# Few distinct values on both coordinates: the dense grid; on one or none: divide and conquer.
@pytest.mark.parametrize(("x_spread", "y_spread"), [(3, 3), (10**6, 3), (3, 10**6), (10**6, 10**6)])
@settings(max_examples=100, deadline=None)
@given(st.integers(0, 150), st.integers(0, 2**32 - 1))
def test_dominance_sums_equal_brute_force(x_spread, y_spread, n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(-x_spread, x_spread, n), rng.integers(0, y_spread, n)
    values = rng.random((2, n))
    lower, upper = dominance_sums(x, y, values)
    expected_lower, expected_upper = _brute_dominance(x, y, values)
    np.testing.assert_allclose(lower, expected_lower, rtol=0, atol=1e-12)
    np.testing.assert_allclose(upper, expected_upper, rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 2**40), max_size=300), st.booleans())
def test_stable_order_and_unique_ints_are_numpys(keys, sorted_runs):
    keys = np.array(sorted(keys) if sorted_runs else keys, dtype=np.int64)  # the timsort branch, or radix
    np.testing.assert_array_equal(stable_order(keys), np.argsort(keys, kind="stable"))
    small = keys % 50  # the counting branch
    for ints in (keys, small):
        for got, expected in zip(relations._unique_ints(ints), np.unique(ints, return_inverse=True,
                                                                          return_counts=True), strict=True):
            np.testing.assert_array_equal(got, expected)


def _group(rng, n, p, r, levels, slot):
    x = np.sort(rng.integers(0, levels, (n, p)), axis=1)
    g = np.sort(rng.integers(0, levels + 1, (n, r)), axis=1)
    return relations._ClassGroup(slot + np.arange(n * p).reshape(n, p), x, rng.random((n, p)), g)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3),
       st.integers(1, 6))
def test_a_grid_reads_what_comparing_every_pair_finds(seed, p, r, q, s, levels):
    # Classes u (p x levels, r other levels) against classes v (q, s), ties included: per x level of u, the
    # agreeing mass of v's levels below it (P(u ≻ v)) and above it (P(v ≻ u)), both ways.
    rng = np.random.default_rng(seed)
    high, low = _group(rng, 7, p, r, levels, 0), _group(rng, 5, q, s, levels, 100)
    grid = relations._PartnerGrid(low.x, low.g, low.nw)
    below, _ = relations._pairs_agreement(high, low)
    _, above = relations._pairs_agreement(low, high)
    np.testing.assert_allclose(grid.agreement(high.x, high.g, upward=False), below, rtol=0, atol=1e-12)
    np.testing.assert_allclose(grid.agreement(high.x, high.g, upward=True)[:, ::-1], above, rtol=0, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(document_ids, st.sampled_from(["d1", "d2", "d3"])), max_size=30),
       st.lists(st.integers(0, 30), max_size=3), st.lists(st.booleans(), min_size=4, max_size=4))
def test_document_codes_are_pandas_factorize(ids, cuts, in_arrow):
    """Arrow's codes, and a dict's where an id has a lone surrogate (no UTF-8 bytes): pandas' codes and uniques
    (first appearance) of the parts one after the other, the uniques being the given objects where a part is an
    object array; a part given as an Arrow string array (a read run's ids, coded from their bytes) alike."""
    import pandas as pd
    import pyarrow as pa

    documents = np.empty(len(ids), dtype=object)
    documents[:] = ids
    split = np.split(documents, sorted(min(cut, len(ids)) for cut in cuts))
    parts = [pa.array(part.tolist(), type=pa.string()) if arrow and _utf8(part) else part
             for part, arrow in zip(split, in_arrow, strict=False)]
    codes, names = document_codes(*parts)
    expected_codes, expected_names = pd.factorize(documents)
    assert codes.dtype == np.int64
    assert codes.tolist() == expected_codes.tolist()
    assert names.dtype == object and names.tolist() == list(expected_names)
    given = np.concatenate([np.ones(len(part), dtype=bool) * isinstance(part, np.ndarray) for part in parts]
                           + [np.zeros(0, dtype=bool)])
    assert all(name is documents[list(codes).index(k)] for k, name in enumerate(names)
               if given[list(codes).index(k)])
    index, n_ids = document_index(*parts)
    assert index.dtype == np.int64 and index.tolist() == codes.tolist() and n_ids == len(names)


def _utf8(part: np.ndarray) -> bool:
    try:
        [doc.encode() for doc in part.tolist()]
    except UnicodeEncodeError:
        return False
    return True


def test_document_codes_of_ids_without_utf8_bytes_and_of_none():
    import pyarrow as pa

    documents = np.array(["\ud800", "a", "\ud800", "a\x00", "a"], dtype=object)
    assert document_codes(documents[:2], documents[2:])[0].tolist() == [0, 1, 0, 2, 1]
    codes, names = document_codes(documents[:3], pa.array(["a\x00", "a", "é"]))  # a read run's ids beside them
    assert codes.tolist() == [0, 1, 0, 2, 1, 3] and names.tolist() == ["\ud800", "a", "a\x00", "é"]
    for parts in ((), (np.zeros(0, dtype=object),), (np.zeros(0, dtype=object), np.zeros(0, dtype=object))):
        codes, names = document_codes(*parts)
        assert codes.tolist() == [] and names.tolist() == [] and codes.dtype == np.int64 and names.dtype == object
        assert document_index(*parts)[1] == 0


@settings(max_examples=100, deadline=None)
@given(st.one_of(constructed_organizations(), organizations()))
def test_occurrences_list_each_cluster_sorted_then_the_sorted_rest(org):
    """An organization's arrays by their definition: clusters in order, each one's members sorted (the same arrays,
    and sums, in every process whatever its hash seed), then a finite rest as singletons at the bottom level."""
    clusters = [(level_no, sorted(cluster)) for level_no, level in enumerate(org.levels) for cluster in level]
    rest = sorted(org.rest or ())
    occurrences = org.occurrences
    assert occurrences.document.dtype == object
    assert occurrences.document.tolist() == [doc for _, members in clusters for doc in members] + rest
    assert occurrences.level.tolist() == [level for level, members in clusters for _ in members] + (
        [len(org.levels)] * len(rest))
    assert occurrences.cluster.tolist() == [c for c, (_, members) in enumerate(clusters) for _ in members] + list(
        range(len(clusters), len(clusters) + len(rest)))
    assert occurrences.level.dtype == occurrences.cluster.dtype == np.int64
