"""The fast exact kernels of Reliability over priority (≺) and relatedness (∼) relations (Amigó et al., SIGIR 2013,
§3.1–3.3).

Both score one *view*: the relations of a side ``x`` checked against the ``other`` side (Reliability is the
view of the output against the gold; Sensitivity the view of the gold against the output). Every score is
a weighted average over x's occurrences of the share of their related mass whose relation also holds on the
other side (the reading of ``docs/rs-engine.md``), so the kernels return that share per occurrence
(:class:`Shares`, what ``workbench.explain`` shows) and nothing needs the n² occurrence pairs:

* ∼ through the (x cluster, other cluster) weight contingency, Σ M/W(C) per occurrence as in BCubed,
  corrected for a document with itself (its numbers of clusters) and for the pairs of documents sharing two
  or more clusters on either side (found through their pairs of clusters): O(n + nnz + overlap pairs);
* ≺ through two-way weighted dominance sums over (x level, other level) for documents with one occurrence
  (O(n log² n); O(n + levels²) when both sides have few levels). Documents with several occurrences
  (overlap) form classes by their sorted x levels ℓ and other-side levels γ (signatures). Their pairs with
  single-occurrence documents are rectangle sums and rectangle updates on the (x level, other level) grid
  in bands around the levels the classes use (prefix sums; dominance sums when the grid is large). Their
  pairs with each other: P = min(gg, gx)/gx depends on the interval of ℓ_u each level of v falls in and the
  interval of γ_u each other level of v falls in, so classes with p x levels and r other levels are points
  of a (p + r)-dimensional grid of levels whose prefix sums, read at a class's corners, give its agreeing
  mass in every combination of intervals: O(grid + classes) when levels are few (graded golds, tens of
  levels on both sides); when they are many (rankings with repeated documents) every pair of classes is
  compared, in small integers and cache-sized blocks: O(classes²) — neither is levels² × overlap.

Up to ``_PAIRWISE_OCCURRENCES`` occurrences (the papers' examples, a classroom's edits) both relations compare
every pair of occurrences directly (O(n² + documents²)): the same P in another order of summation (equal to a
few units in the last place), without the set-up that costs the fast kernels far more than the work there.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from workbench.metrics.dominance import dominance_sums
from workbench.sorting import stable_order

__all__ = ["Side", "Shares", "relatedness_shares", "relatedness", "priority_shares", "priority"]

_BLOCK = 1 << 22  # entries of the largest temporary matrix the overlap kernel builds at once
_PAIR_BLOCK = 1 << 17  # pairs of classes compared at once: the block's arrays stay in cache between passes
_GRID_CELLS = 1 << 23  # the largest grid of overlapping partners (cells per x level of theirs)
_GATHER_STEPS = 8  # reading a cell of a partner grid, in steps of comparing a pair of levels
_DENSE_GRID_CELLS = 1 << 22  # the largest band grid summed densely
_PAIRWISE_OCCURRENCES = 128  # up to this many occurrences ≺ and ∼ compare every pair (at 125: 1.1 ms vs 2.9 ms)
# Partner grids are read in x87's extended precision (a 64-bit mantissa) where the machine has it: a read adds
# prefix sums at a class's corners with signed weights, which cancel (in doubles, R≺ off by 1.3e-12 from the
# exact value on 9 documents); elsewhere (a software quad would be slow) in doubles.
_WIDE = np.longdouble if np.finfo(np.longdouble).nmant == 63 else np.float64


@dataclass(frozen=True)
class Side:
    """One organization as occurrence arrays over a document index shared with the other side.

    A finite rest is the bottom level (index ``len(levels)``) of singleton clusters; a document absent from
    the side sits at ``bottom`` (its rest or its tail) for priority and in no cluster for relatedness.
    """

    doc: np.ndarray  # int64, per occurrence
    level: np.ndarray  # int64, per occurrence
    cluster: np.ndarray  # int64, per occurrence
    weight: np.ndarray  # float, per occurrence
    tail: float  # weight of the unlimited tail (0 for a finite rest)
    bottom: int  # number of levels above the rest / tail
    n_docs: int  # size of the shared document index

    @property
    def total(self) -> float:
        return float(self.weight.sum()) + self.tail

    # Derived arrays, computed once per side: Reliability and Sensitivity read the same two sides.
    @functools.cached_property
    def doc_count(self) -> np.ndarray:
        """Occurrences per document of the shared index."""
        return np.bincount(self.doc, minlength=self.n_docs)

    @functools.cached_property
    def once(self) -> np.ndarray:
        """The occurrences of the documents that occur once on this side."""
        return np.flatnonzero(self.doc_count[self.doc] == 1)

    @functools.cached_property
    def sole_occurrence(self) -> np.ndarray:
        """Per document of the shared index, its occurrence if it occurs once, else −1."""
        sole = np.full(self.n_docs, -1, dtype=np.int64)
        sole[self.doc[self.once]] = self.once
        return sole

    @functools.cached_property
    def single_level(self) -> np.ndarray:
        """Per document of the shared index, its level if it occurs once, ``bottom`` if it is absent (the
        rest or the tail; meaningless for a document with several occurrences)."""
        level = np.full(self.n_docs, self.bottom, dtype=np.int64)
        level[self.doc[self.once]] = self.level[self.once]
        return level

    @functools.cached_property
    def several(self) -> np.ndarray:
        """The occurrences of the documents that occur several times, sorted by document, then level."""
        index = np.flatnonzero(self.doc_count[self.doc] > 1)
        level = self.level[index]
        if np.any(level[1:] < level[:-1]):  # an Organization lists them level by level: else sort by level first
            index = index[stable_order(level)]
        return index[stable_order(self.doc[index])]

    def share_counts(self) -> None:
        """Compute the derived arrays both relations read (:attr:`doc_count`, :attr:`once`, :attr:`several`), before
        the relations are scored on two threads: each then finds them."""
        _ = self.doc_count, self.once, self.several

    @functools.cached_property
    def pair_values(self) -> dict[tuple[Callable, int], tuple[Side, object]]:
        """What :func:`_of_pair` computed with other sides, by function and the other side's id (with the side,
        which keeps the id its own)."""
        return {}

    @functools.cached_property
    def signatures(self) -> _Signatures:
        """The sorted levels of the documents with several occurrences (:class:`_Signatures`)."""
        return _Signatures.of(self)

    @functools.cached_property
    def signatures_by_docs(self) -> list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]]:
        """What :meth:`signatures_of` returned, with its documents, until it is asked for them again: both views
        ask for the same documents when both sides hold every overlapping document."""
        return []

    def signatures_of(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The signatures of ``docs`` numbered from 0, a document occurring once (or absent, at ``bottom``)
        having the signature of its single level: (signature per document, and the signatures' entries
        (signature, level), sorted)."""
        for k, (known, value) in enumerate(self.signatures_by_docs):
            if np.array_equal(known, docs):
                del self.signatures_by_docs[k]  # read by both views: its memory is free for what comes next
                return value
        value = self._signatures_of(docs)
        self.signatures_by_docs.append((docs, value))
        return value

    def _signatures_of(self, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        several = self.signatures
        n_several = len(several.start) - 1
        code = np.where(self.doc_count[docs] >= 2, several.of_doc[docs], n_several + self.single_level[docs])
        used, signature, _ = _unique_ints(code)
        is_several = used < n_several
        sizes = np.concatenate((np.diff(several.start)[used[is_several]],
                                np.ones(int((~is_several).sum()), dtype=np.int64)))
        level = np.r_[several.level[_expand(several.start[used[is_several]], sizes[: is_several.sum()])],
                      used[~is_several] - n_several]
        return signature, np.repeat(np.arange(len(used)), sizes), level

    @functools.cached_property
    def sharing_two_clusters(self) -> np.ndarray:
        """Keys d·n + d′ of the pairs of different documents that share two or more clusters: the documents
        that have one pair of clusters in common, found through each document's pairs of clusters."""
        doc, cluster = self.doc[self.several], self.cluster[self.several]
        # Each document's pairs of clusters: every occurrence with the ones after it in the document's run.
        ends = np.append(np.flatnonzero(doc[1:] != doc[:-1]) + 1, len(doc))
        later = np.repeat(ends, np.diff(ends, prepend=0)) - np.arange(len(doc)) - 1
        left = np.repeat(np.arange(len(doc)), later)
        right = _expand(np.arange(1, len(doc) + 1), later)
        n_clusters = int(self.cluster.max(initial=0)) + 1
        low, high = np.minimum(cluster[left], cluster[right]), np.maximum(cluster[left], cluster[right])
        _, pair_code, count = _unique_ints(low * n_clusters + high)
        shared = np.flatnonzero(count[pair_code] >= 2)  # pairs of clusters that another document has too
        pair_code, owner = pair_code[shared], doc[left[shared]]
        first, second = _members_by(pair_code, pair_code)
        a, b = owner[first], owner[second]
        return _unique_ints(a[a != b] * self.n_docs + b[a != b])[0]


@dataclass(frozen=True)
class Shares:
    """One view's score, occurrence by occurrence: ``holds[i]`` is the weighted share of occurrence i's
    related mass whose relation holds on the other side (P of docs/rs-engine.md, point 4), ``tail_holds`` the
    tail's share; the score is (Σ w·holds + tail·tail_holds) / total."""

    holds: np.ndarray
    tail_holds: float

    def score(self, x: Side) -> float:
        total = x.total  # summed as the weights are, so that shares of 1 give exactly 1
        return 0.0 if total == 0 else (float((x.weight * self.holds).sum()) + x.tail * self.tail_holds) / total


def _share(agree: np.ndarray, related: np.ndarray) -> np.ndarray:
    """agree / related, a share in [0, 1]: the sums are differences of prefix sums, which round by up to the
    machine epsilon times the mass before them; where one level holds nearly all the mass (W_n near 1) that
    rounding can carry a share a hair past 1 or below 0, and a score past its range."""
    return np.clip(agree / related, 0.0, 1.0)


def _expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenate the ranges ``starts[i] : starts[i] + counts[i]``."""
    offsets = np.cumsum(counts) - counts
    return np.arange(int(counts.sum())) - np.repeat(offsets, counts) + np.repeat(starts, counts)


def _unique_ints(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True, return_counts=True)`` for non-negative integers: by counting
    when their range is small, else through :func:`~workbench.sorting.stable_order`."""
    top = int(keys.max(initial=-1)) + 1
    if top <= 4 * len(keys):
        counts = np.bincount(keys, minlength=top)
        present = counts > 0
        return np.flatnonzero(present), (np.cumsum(present) - 1)[keys], counts[present]
    order = stable_order(keys)
    ordered = keys[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse, np.diff(np.flatnonzero(new), append=len(keys))


def _members_by(keys: np.ndarray, wanted: np.ndarray, order: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Every (j, i) with ``keys[i] == wanted[j]``, for small non-negative integer keys (a CSR lookup);
    ``order`` sorts the keys when it is known."""
    size = int(max(keys.max(initial=-1), wanted.max(initial=-1))) + 1
    counts_by_key = np.bincount(keys, minlength=size)
    first_by_key = np.cumsum(counts_by_key) - counts_by_key
    order = stable_order(keys) if order is None else order
    counts = counts_by_key[wanted]
    return np.repeat(np.arange(len(wanted)), counts), order[_expand(first_by_key[wanted], counts)]


# ---------------------------------------------------------------------------------------------- relatedness
def _of_pair(x: Side, other: Side, compute, exchanged=lambda value: value):
    """``compute(x, other)`` once per pair of sides: Reliability and Sensitivity read the same pair with the sides
    exchanged, and the second reads the first's value through ``exchanged``."""
    known = x.pair_values.get((compute, id(other)))
    if known is not None and known[0] is other:
        return known[1]
    known = other.pair_values.get((compute, id(x)))
    if known is not None and known[0] is x:
        return exchanged(known[1])
    value = compute(x, other)
    x.pair_values[(compute, id(other))] = (other, value)
    return value


def _contingency(x: Side, other: Side) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair (i, j) of an occurrence of x and an occurrence of ``other`` of the same document, with the
    number of such pairs between i's cluster and j's (the contingency of the clusters of both sides)."""
    i, j = _same_document(x, other)
    keys = x.cluster[i] * (int(other.cluster.max(initial=0)) + 1) + other.cluster[j]
    order = stable_order(keys)  # runs: x's clusters come in order along its occurrences
    keys, i, j = keys[order], i[order], j[order]
    sizes = (np.diff(np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))), append=len(keys)) if len(keys)
             else keys)
    return i, j, np.repeat(sizes, sizes)


def _exchanged_contingency(value: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                                          np.ndarray]:
    i, j, count = value
    return j, i, count


def _sharing_two_clusters(x: Side, other: Side) -> np.ndarray:
    """Keys d·n + d′ of the pairs of different documents that share two or more clusters on either side."""
    return np.union1d(x.sharing_two_clusters, other.sharing_two_clusters)


def _same_document(x: Side, other: Side) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i, j) of an occurrence of x and an occurrence of ``other`` of the same document."""
    count = other.doc_count[x.doc]
    once, several = np.flatnonzero(count == 1), np.flatnonzero(count >= 2)
    j, i = _members_by(other.doc[other.several], x.doc[several], np.arange(len(other.several)))
    return (np.concatenate((once, several[j])),
            np.concatenate((other.sole_occurrence[x.doc[once]], other.several[i])))


def _co_clustered(side: Side, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Occurrence pairs (i, j) of two different documents among ``docs`` in one cluster of ``side``, with the
    document pair's key d·n + d′."""
    index = np.flatnonzero(np.isin(side.doc, docs))
    left, right = _members_by(side.cluster[index], side.cluster[index])
    i, j = index[left], index[right]
    keep = side.doc[i] != side.doc[j]
    i, j = i[keep], j[keep]
    return i, j, side.doc[i] * side.n_docs + side.doc[j]


def relatedness_shares(x: Side, other: Side) -> Shares:
    """Per x occurrence, the weighted share of its cluster whose relatedness holds on ``other`` (eq. 4, R∼);
    tail documents are self-related singletons whose relation always holds (docs/rs-engine.md, point 6)."""
    n = len(x.doc)
    if n == 0:
        return Shares(np.zeros(0), 1.0 if x.tail > 0 else 0.0)
    cluster_mass = np.bincount(x.cluster, x.weight)
    if n <= _PAIRWISE_OCCURRENCES and x.n_docs <= 2 * _PAIRWISE_OCCURRENCES:
        return Shares(_share(_pairwise_relatedness(x, other), cluster_mass[x.cluster]), 1.0 if x.tail > 0 else 0.0)
    # Contingency M[C, K]: weight of x's occurrences in cluster C whose document is in other's cluster K;
    # Σ_{K ∋ d} M[C, K] is the mass of d's cluster C related to d, each partner d′ counted |r_other(d, d′)|
    # times.
    # An occurrence's weight is its level's, so M[C, K] = w(C)·(the pairs of occurrences of one document in C
    # and in K), counted once for both views of a pair of sides.
    xi, _, count = _of_pair(x, other, _contingency, _exchanged_contingency)
    agree = x.weight * np.bincount(xi, count, minlength=n)

    # P is min(|r_other|, |r_x|)/|r_x| (point 4): correct the pairs where either count exceeds one. A
    # document with itself: |r_x| and |r_other| are its numbers of clusters on each side.
    x_count, other_count = x.doc_count[x.doc], other.doc_count[x.doc]
    agree += x.weight * (np.minimum(other_count, x_count) / x_count - other_count)
    # Two different documents sharing two or more clusters on either side (rare), each ordered pair on the
    # first document's occurrences.
    special = _of_pair(x, other, _sharing_two_clusters)
    if len(special):
        docs = np.unique(np.r_[special // x.n_docs, special % x.n_docs])
        i, j, key = _co_clustered(x, docs)
        keep = np.isin(key, special)
        i, j = i[keep], j[keep]
        keys, inverse, r_x = np.unique(key[keep], return_inverse=True, return_counts=True)
        other_keys, other_counts = np.unique(_co_clustered(other, docs)[2], return_counts=True)
        found = np.minimum(np.searchsorted(other_keys, keys), max(len(other_keys) - 1, 0))
        r_other = np.zeros(len(keys), dtype=np.int64)
        if len(other_keys):
            r_other = np.where(other_keys[found] == keys, other_counts[found], 0)
        change = np.minimum(r_other, r_x) / r_x - r_other
        agree += np.bincount(i, x.weight[j] * change[inverse], minlength=n)
    return Shares(_share(agree, cluster_mass[x.cluster]), 1.0 if x.tail > 0 else 0.0)


def _pairwise_relatedness(x: Side, other: Side) -> np.ndarray:
    """Per x occurrence, the agreeing mass of its cluster, comparing every pair of occurrences: Σ_j w_j·P over
    the occurrences j of its cluster (itself included), with P(u ∼ v) = min(kg, kx)/kx counting the clusters
    u and v share on each side (docs/rs-engine.md, points 4 and 6). O(n² + documents²), for a paper's example."""
    shared_x = _pairs_together(x.doc, x.cluster, x.n_docs)
    shared_other = _pairs_together(other.doc, other.cluster, x.n_docs)
    p = np.minimum(shared_other, shared_x) / np.maximum(shared_x, 1)  # shared_x = 0 is never read
    together = x.cluster[:, None] == x.cluster[None, :]
    return np.where(together, p[x.doc[:, None], x.doc[None, :]], 0.0) @ x.weight


def _pairs_together(doc: np.ndarray, cluster: np.ndarray, n_docs: int) -> np.ndarray:
    """[u, v]: the clusters that hold both u and v (u's clusters for u = v)."""
    keys = doc[:, None] * n_docs + doc[None, :]
    return np.bincount(keys.ravel(), (cluster[:, None] == cluster[None, :]).ravel(), n_docs * n_docs).reshape(
        n_docs, n_docs)


def relatedness(x: Side, other: Side) -> float:
    """Reliability of x's relatedness relations with respect to ``other`` (Amigó et al., SIGIR 2013, eq. 4, R∼)."""
    return relatedness_shares(x, other).score(x)


# ------------------------------------------------------------------------------------------------- priority
def _ratio(agree: np.ndarray, related: np.ndarray) -> np.ndarray:
    """P = min(|r_other|, |r_x|) / |r_x| elementwise for counts, 0 where x has no such relation (min(·, 0)/1)."""
    return np.minimum(agree, related) / np.maximum(related, 1)


def priority_shares(x: Side, other: Side) -> Shares:
    """Per x occurrence, the weighted share of its priority-related mass (the other levels and the tail) whose
    relation holds on ``other`` (eq. 3, R≺); the tail's share is its x_r ← tail term (docs/rs-engine.md, point 5).
    """
    n = len(x.doc)
    if n == 0:
        return Shares(np.zeros(0), 0.0)
    n_levels = int(x.level.max()) + 1
    level_mass = np.bincount(x.level, x.weight, minlength=n_levels)
    level_size = np.bincount(x.level, minlength=n_levels)
    # Per level, its occurrences' priority-related mass: every other level and the tail (docs/rs-engine.md, point
    # 3); infinite where there is none, so that the share is 0. The levels above plus the levels below, never
    # all of them less its own: under a steep discount one level holds nearly all the mass, and the difference
    # would keep only the rounding of the rest.
    above = np.concatenate(([0.0], np.cumsum(level_mass)[:-1]))
    below = np.append(np.cumsum(level_mass[::-1])[:-1][::-1], 0.0)
    related_mass = np.where((n - level_size > 0) | (x.tail > 0), above + below + x.tail, np.inf)

    x_count = x.doc_count
    if n <= _PAIRWISE_OCCURRENCES and x.n_docs <= 2 * _PAIRWISE_OCCURRENCES:
        agree = _pairwise_agreement(x, other)
    else:
        multi_doc = (x_count >= 2) | (other.doc_count >= 2)
        overlapping = multi_doc[x.doc]
        simple = np.flatnonzero(~overlapping)  # indices: read three times, faster than a mask (21 -> 7 ms on 10⁶)
        # Pairs of single-occurrence documents: P = [the other side agrees], the partner's weight counts.
        agree = np.empty(n)
        sx, sy, sw = x.level[simple], other.single_level[x.doc[simple]], x.weight[simple]
        lower, upper = dominance_sums(sx, sy, sw[None, :])
        simple_agree = lower[0] + upper[0]
        if len(sx) < n:
            multi = np.flatnonzero(overlapping)
            with_overlap, agree[multi] = _overlap_agreement(x, other, multi_doc, multi, (sx, sy, sw))
            simple_agree += with_overlap
        agree[simple] = simple_agree

    tail_holds = 0.0
    if x.tail > 0:  # the tail terms of eq. 3: x_r → tail and tail → x_r (point 5)
        in_levels = other.level < other.bottom
        other_prioritised = (other.doc_count if in_levels.all()  # no finite rest: every occurrence is in a level
                             else np.bincount(other.doc[in_levels], minlength=x.n_docs))
        p_tail = _ratio(other_prioritised, x_count)[x.doc]
        agree += x.tail * p_tail
        x_mass = float(x.weight.sum())
        tail_holds = float(np.dot(x.weight, p_tail)) / x_mass if x_mass > 0 else 0.0
    return Shares(_share(agree, related_mass[x.level]), tail_holds)


def _pairwise_agreement(x: Side, other: Side) -> np.ndarray:
    """Per x occurrence, the agreeing mass of its priority pairs (without the tail), comparing every pair of
    occurrences: Σ_j w_j·P over the occurrences j at another level, with P(u ≻ v) = min(gg, gx)/gx counting the
    occurrence pairs of the document pair above each other on each side (docs/rs-engine.md, point 4; a document
    ``other`` lacks sits at its bottom). O(n² + documents²): the cost of a paper's example, where the general
    kernel's set-up (signatures, classes, grids) costs a hundred times more than the work."""
    absent = np.flatnonzero(other.doc_count == 0)
    other_doc = np.r_[other.doc, absent]
    other_level = np.r_[other.level, np.full(len(absent), other.bottom, dtype=np.int64)]
    x_above, other_above = _pairs_above(x.doc, x.level, x.n_docs), _pairs_above(other_doc, other_level, x.n_docs)
    p = np.minimum(other_above, x_above) / np.maximum(x_above, 1)  # P(u ≻ v); x_above = 0 is never read
    upper, lower = x.doc[:, None], x.doc[None, :]
    above = x.level[:, None] < x.level[None, :]
    holds = np.where(above, p[upper, lower], 0.0) + np.where(above.T, p[lower, upper], 0.0)
    return holds @ x.weight


def _pairs_above(doc: np.ndarray, level: np.ndarray, n_docs: int) -> np.ndarray:
    """[u, v]: the pairs of an occurrence of document u and one of v with u's at a higher level (a smaller
    index)."""
    keys = doc[:, None] * n_docs + doc[None, :]
    return np.bincount(keys.ravel(), (level[:, None] < level[None, :]).ravel(), n_docs * n_docs).reshape(
        n_docs, n_docs)


def priority(x: Side, other: Side) -> float:
    """Reliability of x's priority relations with respect to ``other`` (Amigó et al., SIGIR 2013, eq. 3, R≺)."""
    return priority_shares(x, other).score(x)


# -------------------------------------------------------------------------------------- priority: overlap
@dataclass(frozen=True)
class _Signatures:
    """The documents of one side with several occurrences, grouped by their sorted levels (signatures):
    ``of_doc`` is each document's signature (−1 with fewer than two occurrences), signature s holds the
    levels ``level[start[s]:start[s + 1]]`` (sorted), and ``position`` is each occurrence's index among its
    document's sorted levels (0 for a document that occurs once)."""

    of_doc: np.ndarray
    start: np.ndarray
    level: np.ndarray
    position: np.ndarray

    @classmethod
    def of(cls, side: Side) -> _Signatures:
        order = side.several
        doc, level = side.doc[order], side.level[order]
        starts = (np.flatnonzero(np.concatenate(([True], doc[1:] != doc[:-1]))) if len(doc)
                  else np.zeros(0, dtype=np.int64))
        counts = np.diff(starts, append=len(doc))
        position = np.zeros(len(side.doc), dtype=np.int64)
        position[order] = np.arange(len(doc)) - np.repeat(starts, counts)
        span = int(side.level.max(initial=0)) + 1
        signature = np.empty(len(starts), dtype=np.int64)
        sizes, levels, n_signatures = [np.zeros(1, dtype=np.int64)], [np.zeros(0, dtype=np.int64)], 0  # start: 0
        for k in np.unique(counts).tolist():  # documents with k occurrences: unique rows of a (m, k) table
            which = np.flatnonzero(counts == k)
            rows = level[starts[which][:, None] + np.arange(k)]
            if k * np.log2(span) < 62:  # one integer per row: a fast 1-d unique, rows read back from digits
                codes, inverse, _ = _unique_ints(rows @ (span ** np.arange(k - 1, -1, -1, dtype=np.int64)))
                unique = codes[:, None] // span ** np.arange(k - 1, -1, -1, dtype=np.int64) % span
            else:
                unique, inverse = np.unique(rows, axis=0, return_inverse=True)
            signature[which] = n_signatures + inverse.ravel()
            sizes.append(np.full(len(unique), k))
            levels.append(unique.ravel())
            n_signatures += len(unique)
        of_doc = np.full(side.n_docs, -1, dtype=np.int64)
        of_doc[doc[starts]] = signature
        return cls(of_doc, np.cumsum(np.concatenate(sizes)), np.concatenate(levels), position)


def _overlap_agreement(x: Side, other: Side, multi_doc: np.ndarray, multi: np.ndarray, simple
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The agreeing mass of the priority pairs that involve a document with several occurrences on either side
    (``multi_doc``: overlap), where P(d ≻ d′) = min(gg, gx)/gx counts the occurrence pairs of the document pair
    on each side (docs/rs-engine.md, point 4), for both documents of every pair: per single-occurrence document
    of ``simple`` (its x level, other level and weight), its pairs with overlapping documents, and per
    occurrence of ``multi`` (the x occurrences of overlapping documents), all its pairs."""
    docs = np.flatnonzero(multi_doc & (x.doc_count > 0))
    x_sig, x_entry_sig, x_entry_level = x.signatures_of(docs)
    o_sig, o_entry_sig, o_entry_level = other.signatures_of(docs)
    # Classes: the documents with one (x signature, other signature); a class entry is one of its x levels.
    n_o_sig = int(o_sig.max()) + 1
    classes, class_of_doc, class_count = _unique_ints(x_sig * n_o_sig + o_sig)
    x_start, x_size, _ = _segments(x_entry_sig, int(x_sig.max()) + 1)
    class_x = classes // n_o_sig
    entry_class = np.repeat(np.arange(len(classes)), x_size[class_x])
    class_entry = _expand(x_start[class_x], x_size[class_x])  # the x entry each class entry reads

    level_w = np.zeros(int(x.level.max()) + 1)
    level_w[x.level] = x.weight  # the weight of an occurrence depends on its level only
    x_entry_w = level_w[x_entry_level]
    sx, sy, sw = simple
    # The single-occurrence documents' bands among the levels the overlapping ones use (:func:`_band`); with every
    # level negated they count from the other end, band(−v among −L) = 2·|L| − band(v).
    x_levels, g_levels = np.unique(x_entry_level), np.unique(o_entry_level)
    bx, by = _band(x_levels, sx), _band(g_levels, sy)
    classes_at = (class_x, classes % n_o_sig, class_count.astype(float), entry_class, class_entry)
    entry_agree = _overlapping_agreement(x_entry_level, x_entry_w, o_entry_level, classes_at, x_start,
                                         _segments(o_entry_sig, n_o_sig)[0])
    down_entry, down_simple = _agreement_below(x_entry_sig, x_entry_level, x_entry_w, o_entry_sig, o_entry_level,
                                               classes_at, bx, by, sw)
    up_entry, up_simple = _agreement_below(x_entry_sig, -x_entry_level, x_entry_w, o_entry_sig, -o_entry_level,
                                           classes_at, 2 * len(x_levels) - bx, 2 * len(g_levels) - by, sw)
    entry_agree += down_entry + up_entry

    # Each overlapping occurrence reads its class's entry at its position among its document's sorted levels.
    first_entry = np.cumsum(x_size[class_x]) - x_size[class_x]
    class_at = np.zeros(x.n_docs, dtype=np.int64)
    class_at[docs] = class_of_doc
    return down_simple + up_simple, entry_agree[first_entry[class_at[x.doc[multi]]] + x.signatures.position[multi]]


def _segments(signature: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For entries sorted by signature: each signature's first entry (n + 1 bounds), size, and each entry's
    1-based position in its signature."""
    start = np.searchsorted(signature, np.arange(n + 1))
    return start, np.diff(start), np.arange(len(signature)) - start[signature] + 1


def _agreement_below(xs, xl, xw, gs, gl, classes, bx, by, sw) -> tuple[np.ndarray, np.ndarray]:
    """The agreeing mass of the pairs of an overlapping document above a single-occurrence one.

    Entries (xs, xl, xw) are the x signatures' levels and weights, (gs, gl) the other-side signatures'
    levels; ``classes`` = (x signature, other signature, number of documents) per class of overlapping
    documents, and per class entry its class and x entry; (bx, by, sw) the single-occurrence documents' bands
    among the distinct levels of xl and of gl (:func:`_band`) and their weights. Returns, per class entry, the
    single-occurrence mass below it that agrees (partners at a lower x level, weighted by P(d ≻ d′)) and, per
    single-occurrence document, the agreeing mass of the overlapping occurrences above it. With every level
    negated (and the bands counted from the other end) it gives the pairs where the overlapping document is the
    lower one.
    """
    class_x, class_g, class_count, entry_class, class_entry = classes
    n_x, n_g = int(xs.max()) + 1, int(gs.max()) + 1
    x_order, g_order = np.lexsort((xl, xs)), np.lexsort((gl, gs))
    xs, xl, xw, gs, gl = xs[x_order], xl[x_order], xw[x_order], gs[g_order], gl[g_order]
    rank = np.empty_like(x_order)
    rank[x_order] = np.arange(len(x_order))
    row = rank[class_entry]  # each class entry's sorted x entry
    x_start, x_size, x_pos = _segments(xs, n_x)
    g_start, g_size, g_pos = _segments(gs, n_g)
    x_levels, xj = np.unique(xl, return_inverse=True)
    g_levels, gj = np.unique(gl, return_inverse=True)

    key = xs * len(x_levels) + xj
    q = np.searchsorted(key, key, "right") - x_start[xs]  # #{a′ ∈ ℓ : a′ ≤ a}
    below = np.zeros(len(row))

    # Single-occurrence partners on the (x level, other level) grid in bands: below, at and between the
    # levels overlapping documents use (band 2j + 1 is level j itself).
    n_bx, n_by = 2 * len(x_levels) + 1, 2 * len(g_levels) + 1
    grid = _BandGrid(bx, by, sw, n_bx, n_by)
    # Interval i of ℓ (its i-th entry ℓ_i, 1-based): partners with ℓ_i < b ≤ ℓ_{i+1}, so #{a ∈ ℓ : a < b} = i.
    low = 2 * xj + 2
    high = np.where(x_pos == x_size[xs], n_bx, np.append(low[1:], 0))
    # Threshold t of γ: partners with other level h > γ_t, so #{g ∈ γ : g < h} ≥ t.
    threshold = 2 * gj + 2
    # Every (class entry, threshold of the class's γ) pair.
    pair_entry = np.repeat(np.arange(len(row)), g_size[class_g[entry_class]])
    pair_g = _expand(g_start[class_g[entry_class]], g_size[class_g[entry_class]])
    pair_row = row[pair_entry]

    # P = min(#γ<h, i)/i = Σ_{t ≤ i} [h > γ_t]/i. An entry at level a meets the intervals i ≥ q = #{a′ ∈ ℓ :
    # a′ ≤ a}, threshold t the intervals i ≥ t: sum the intervals from max(q, t) to the end of ℓ.
    first_interval = np.maximum(q[pair_row], g_pos[pair_g])
    signature = xs[pair_row]
    span = np.maximum(x_size[signature] - first_interval + 1, 0)
    interval = _expand(x_start[signature] + first_interval - 1, span)
    threshold_of = np.repeat(threshold[pair_g], span)
    mass = (grid.sums(high[interval], threshold_of) - grid.sums(low[interval], threshold_of)) / x_pos[interval]
    below += np.bincount(np.repeat(pair_entry, span), mass, len(row))

    # Single-occurrence documents below an overlapping one: on interval i of ℓ, beyond threshold t ≤ i of γ,
    # each receives (class size)·(weight of ℓ's first i entries)/i (a rectangle update, then prefix sums).
    first_w = np.cumsum(xw) - np.repeat(np.concatenate(([0.0], np.cumsum(xw)))[x_start[:-1]], x_size)
    counted = g_pos[pair_g] <= x_pos[pair_row]
    value = np.where(counted, class_count[entry_class[pair_entry]] * first_w[pair_row] / x_pos[pair_row], 0.0)
    return below, grid.received(np.concatenate((low[pair_row], high[pair_row])), np.tile(threshold[pair_g], 2),
                                np.concatenate((value, -value)))


def _band(levels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per value, its band among sorted distinct ``levels``: 2j below level j (and above the one before it),
    2j + 1 at level j; through a table when the values span a small range (levels of an organization)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low < len(values):
        span = np.arange(low, high + 1)
        return (np.searchsorted(levels, span) + np.searchsorted(levels, span, "right"))[values - low]
    return np.searchsorted(levels, values) + np.searchsorted(levels, values, "right")


class _BandGrid:
    """Single-occurrence documents' weights on the (x band, other band) grid: sums over rectangles x < X,
    y ≥ Y, and corner updates read back by each document. Dense prefix sums for a small grid, dominance sums
    otherwise (many bands: rankings with overlap)."""

    def __init__(self, bx: np.ndarray, by: np.ndarray, weight: np.ndarray, n_bx: int, n_by: int):
        self.bx, self.by, self.weight, self.shape = bx, by, weight, (n_bx + 1, n_by + 1)
        self.dense = n_bx * n_by <= _DENSE_GRID_CELLS
        if self.dense:
            grid = np.bincount(bx * n_by + by, weight, n_bx * n_by).reshape(n_bx, n_by)
            self.prefix = np.zeros(self.shape)
            self.prefix[1:, :-1] = np.cumsum(np.cumsum(grid, axis=0)[:, ::-1], axis=1)[:, ::-1]

    def sums(self, x_bound: np.ndarray, y_bound: np.ndarray) -> np.ndarray:
        """Σ weight over bx < x_bound and by ≥ y_bound (by ≥ Y is −by < 1 − Y)."""
        if self.dense:
            return self.prefix[x_bound, y_bound]
        n = len(self.bx)
        lower, _ = dominance_sums(np.r_[self.bx, x_bound], np.r_[-self.by, 1 - y_bound],
                                  np.r_[self.weight, np.zeros(len(x_bound))][None, :])
        return lower[0, n:]

    def received(self, x_corner: np.ndarray, y_corner: np.ndarray, value: np.ndarray) -> np.ndarray:
        """Per document, Σ value over the corners with x_corner ≤ bx and y_corner ≤ by."""
        if self.dense:
            corners = np.bincount(x_corner * self.shape[1] + y_corner, value, self.shape[0] * self.shape[1])
            return np.cumsum(np.cumsum(corners.reshape(self.shape), axis=0), axis=1)[self.bx, self.by]
        lower, _ = dominance_sums(np.r_[x_corner, self.bx + 1], np.r_[y_corner, self.by + 1],
                                  np.r_[value, np.zeros(len(self.bx))][None, :])
        return lower[0, len(x_corner):]


def _overlapping_agreement(xl, xw, gl, classes, x_start, g_start) -> np.ndarray:
    """Per class entry (class u at level a): the agreeing mass of its priority pairs with the occurrences of
    overlapping documents, Σ over the classes v of N_v·P·(weight of v's x levels below a, or above it), with
    P = min(gg, gx)/gx for u ≻ v, or v ≻ u (docs/rs-engine.md, point 4).

    Relative to u, a partner's x level b lies in interval c = #{a′ ∈ ℓ_u : a′ < b} of ℓ_u (below a exactly
    when c ≥ q = #{a′ ∈ ℓ_u : a′ ≤ a}) and its other level h in interval d = #{g ∈ γ_u : g < h}; for u ≻ v,
    gx = Σ c and gg = Σ d over the partner's levels (with the order reversed, v ≻ u). Classes are grouped by
    their numbers of levels (p, r). Two groups meet either through grids, points in p + r dimensions whose
    prefix sums give each class of the other group the weight in every combination of intervals
    (:class:`_PartnerGrid`: few levels), or pair by pair (:func:`_pairs_agreement`: many levels, as in
    rankings), whichever costs less: O(grid + classes) or O(classes²).
    """
    class_x, class_g, class_count, entry_class, _ = classes
    width_x, width_g = np.diff(x_start)[class_x], np.diff(g_start)[class_g]
    first_entry = np.cumsum(width_x) - width_x  # each class's first class entry; its entries follow in order
    shapes, of_class = np.unique(np.c_[width_x, width_g], axis=0, return_inverse=True)
    groups = []  # per (p, r): the classes, their x levels, N·w per x level, other levels (rows sorted)
    for k, (p, r) in enumerate(shapes.tolist()):
        members = np.flatnonzero(of_class.ravel() == k)
        x_at = x_start[class_x[members]][:, None] + np.arange(p)
        groups.append(_ClassGroup(first_entry[members][:, None] + np.arange(p), xl[x_at],
                                  xw[x_at] * class_count[members][:, None],
                                  gl[g_start[class_g[members]][:, None] + np.arange(r)]))
    down, up = np.zeros(len(entry_class)), np.zeros(len(entry_class))
    for one, two, grids in _meetings(groups):
        if grids is None:  # u ≻ v for u in one and v in two, and the reverse
            for high, low in ((one, two), (two, one)) if one is not two else ((one, one),):
                to_high, to_low = _pairs_agreement(high, low)
                down[high.slots] += to_high
                up[low.slots] += to_low
        else:
            for queried, grid in ((one, grids[1]), (two, grids[0])) if one is not two else ((one, grids[0]),):
                down[queried.slots] += grid.agreement(queried.x, queried.g, upward=False)
                up[queried.slots] += grid.agreement(queried.x, queried.g, upward=True)[:, ::-1]
    return down + up


@dataclass(frozen=True)
class _ClassGroup:
    """Classes of overlapping documents with p x levels and r other levels: their class entries (slots),
    x levels, N·w per x level, other levels (n × p, n × p, n × p, n × r; rows sorted)."""

    slots: np.ndarray
    x: np.ndarray
    nw: np.ndarray
    g: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        return len(self.x), self.x.shape[1], self.g.shape[1]

    def cells(self) -> int:
        """Cells of this group's grid of partners."""
        return (len(np.unique(self.x)) + 1) ** self.x.shape[1] * (len(np.unique(self.g)) + 1) ** self.g.shape[1]


def _meetings(groups: list[_ClassGroup]):
    """Each pair of groups (a group with itself too) once, with the grids of both when reading them costs
    less than comparing every pair of classes (and building them pays), else None."""
    def by_pairs(one, two):  # steps of comparing classes pair by pair, in both orders
        (n, p, r), (m, q, s) = one.shape, two.shape
        return (1 if one is two else 2) * n * m * (4 * p * q + r * s + 3)

    def corners(queried, partners):  # a class's corners in the partners' grid, by the partners' x levels
        (_, p, r), (_, q, s) = queried.shape, partners.shape
        return (p + 1) ** q * (r + 1) ** s * q

    def by_grid(queried, partners):  # steps of reading the partners' grid at corners, both directions
        return 2 * len(queried.x) * corners(queried, partners) * (1 + queried.shape[1] / 8) * _GATHER_STEPS

    cells = [group.cells() for group in groups]
    fits = [cells[k] <= _GRID_CELLS for k in range(len(groups))]
    pairs = [(i, j) for i in range(len(groups)) for j in range(i, len(groups))]
    saving = {(i, j): by_pairs(groups[i], groups[j]) - by_grid(groups[i], groups[j])
              - (0 if i == j else by_grid(groups[j], groups[i]))
              for i, j in pairs if fits[i] and fits[j]
              and max(corners(groups[i], groups[j]) * groups[i].shape[1],
                      corners(groups[j], groups[i]) * groups[j].shape[1]) <= _BLOCK}  # the corner table
    # A grid is built when the pairs of groups it serves save more than its prefix sums cost.
    built = [sum(max(v, 0) for (i, j), v in saving.items() if k in (i, j))
             > cells[k] * groups[k].shape[1] * (sum(groups[k].shape[1:]) + 1) * _GATHER_STEPS / 4
             for k in range(len(groups))]
    grids = {}
    for i, j in pairs:
        if saving.get((i, j), 0) > 0 and built[i] and built[j]:
            for k in (i, j):
                if k not in grids:
                    grids[k] = _PartnerGrid(groups[k].x, groups[k].g, groups[k].nw)
            yield groups[i], groups[j], (grids[i], grids[j])
        else:
            yield groups[i], groups[j], None


@functools.lru_cache(maxsize=64)
def _corner_shares(n_x: int, n_g: int, p: int, r: int, upward: bool) -> np.ndarray:
    """For a query with n_x x levels and n_g other levels against partners with p and r: the table that takes
    the partners' prefix sums at the query's interval corners (corner-major, then the partner's x level j)
    to the agreeing mass per q (columns q − 1): Σ over the cells (c_1…c_p, d_1…d_r) of intervals of
    P(Σ c, Σ d)·[c_j ≥ q]·(the cell's N·w(b_j)), each cell being a finite difference of its corners. With
    ``upward`` cells count from the top (c = #{a′ > b}): the pairs where the partner is the higher one."""
    shape = (n_x + 1,) * p + (n_g + 1,) * r
    cell = np.indices(shape).reshape(p + r, -1)
    if upward:
        cell = np.r_[n_x - cell[:p], n_g - cell[p:]]
    gx, gg = cell[:p].sum(axis=0), cell[p:].sum(axis=0)
    share = np.minimum(gg, gx) / np.maximum(gx, 1)
    q = np.arange(1, n_x + 1)
    table = np.stack([share[:, None] * (cell[j][:, None] >= q[None, :]) for j in range(p)], axis=1)
    table = table.reshape(shape + (p, n_x))
    # Cells from the corners at cuts 1…n + 1 (the cut at 0 holds nothing): cell e is corner e minus corner
    # e − 1, so corner e weighs cell e minus cell e + 1, along every axis.
    for axis in range(p + r):
        table = -np.diff(table, axis=axis, append=0)
    return table.reshape(-1, n_x).astype(_WIDE)


class _PartnerGrid:
    """One group of classes (p x levels, r other levels each) as points of a (p + r)-dimensional grid over
    their distinct levels, holding per x level j of theirs the prefix sums of N·w(b_j): a class of any group
    reads them at the corners of its intervals (:func:`_corner_shares` turns corners into cells)."""

    def __init__(self, b: np.ndarray, h: np.ndarray, nw: np.ndarray):
        self.p, self.r = b.shape[1], h.shape[1]
        self.x_levels, self.g_levels = np.unique(b), np.unique(h)
        self.shape = (len(self.x_levels) + 1,) * self.p + (len(self.g_levels) + 1,) * self.r
        point = np.ravel_multi_index(tuple(np.searchsorted(self.x_levels, b.T) + 1)
                                     + tuple(np.searchsorted(self.g_levels, h.T) + 1), self.shape)
        grid = np.bincount((point[:, None] * self.p + np.arange(self.p)).ravel(), nw.ravel(),
                           math.prod(self.shape) * self.p).reshape(self.shape + (self.p,))
        for axis in range(self.p + self.r):
            np.cumsum(grid, axis=axis, out=grid)
        self.prefix = grid.reshape(-1, self.p)

    def agreement(self, a: np.ndarray, g: np.ndarray, upward: bool) -> np.ndarray:
        """Per class u queried (rows of sorted x levels a and other levels g) and q: Σ over the grid's classes
        v of N·P(u ≻ v)·w over v's x levels below u's q-th level; with ``upward``, N·P(v ≻ u)·w over those
        above u's q-th level from the top (columns in descending order of levels)."""
        (n, n_x), n_g, p, r = a.shape, g.shape[1], self.p, self.r
        # partners strictly below the cut (or at and below)
        side: Literal["left", "right"] = "left" if upward else "right"
        bounds = (np.c_[np.searchsorted(self.x_levels, a, side), np.full(n, len(self.x_levels))],
                  np.c_[np.searchsorted(self.g_levels, g, side), np.full(n, len(self.g_levels))])
        strides = np.cumprod((1,) + self.shape[:0:-1])[::-1]
        corners = (n_x + 1,) * p + (n_g + 1,) * r
        shares = _corner_shares(n_x, n_g, p, r, upward)
        out = np.empty((n, n_x))
        size = max(_BLOCK // (math.prod(corners) * p), 1)
        for first in range(0, n, size):
            rows = slice(first, first + size)
            corner = np.zeros((len(a[rows]),) + corners, dtype=np.int64)
            for axis, stride in enumerate(strides.tolist()):
                shape = [1] * (p + r + 1)
                shape[0], shape[axis + 1] = -1, corners[axis]
                corner += stride * bounds[axis >= p][rows].reshape(shape)
            out[rows] = self.prefix[corner.reshape(len(corner), -1)].reshape(len(corner), -1).astype(_WIDE) @ shares
        return out


def _pairs_agreement(high: _ClassGroup, low: _ClassGroup) -> tuple[np.ndarray, np.ndarray]:
    """The pairs u ≻ v for every class u of ``high`` and v of ``low``, compared pair by pair: per x level a_i
    of u, Σ_v P(u ≻ v)·(N·w of v's x levels below a_i), and per x level b_j of v, Σ_u P(u ≻ v)·(N·w of u's
    x levels above b_j); in cache-sized blocks of classes of ``high``, comparisons counted in small integers."""
    (n, p, r), (m, q, s) = high.shape, low.shape
    dtype = np.min_scalar_type(max(p * q, r * s))
    above, below = np.zeros((n, p)), np.zeros((m, q))
    size = max(_PAIR_BLOCK // max(m, 1), 1)
    lower = np.empty((p, q, min(size, n), m), dtype=bool)  # [a_i < b_j] per pair of classes
    gx, gg = np.empty((2, min(size, n), m), dtype=dtype)
    agree, share = np.empty((2, min(size, n), m))
    hit = np.empty((min(size, n), m), dtype=bool)
    for first in range(0, n, size):
        rows = slice(first, first + size)
        k = len(high.x[rows])
        gx[:k], gg[:k] = 0, 0
        for i in range(p):
            for j in range(q):
                np.less(high.x[rows, i, None], low.x[None, :, j], out=lower[i, j, :k])
                gx[:k] += lower[i, j, :k]
        _count_below(high.g[rows], low.g, gg[:k], hit[:k])
        np.minimum(gg[:k], gx[:k], out=gg[:k])
        np.maximum(gx[:k], 1, out=gx[:k])
        np.divide(gg[:k], gx[:k], out=agree[:k])  # P(u ≻ v) = min(gg, gx)/gx, 0 without a pair (gg = 0)
        for i in range(p):
            for j in range(q):
                np.multiply(agree[:k], lower[i, j, :k], out=share[:k])
                above[rows, i] += share[:k] @ low.nw[:, j]
                below[:, j] += high.nw[rows, i] @ share[:k]
    return above, below


def _count_below(own: np.ndarray, partner: np.ndarray, count: np.ndarray, hit: np.ndarray) -> None:
    """Add #{(a, b) ∈ own row × partner row : a < b} to ``count`` for every (own row, partner row);
    ``hit`` is scratch space of count's shape."""
    for a in own.T:
        for b in partner.T:
            np.less(a[:, None], b[None, :], out=hit)
            count += hit
