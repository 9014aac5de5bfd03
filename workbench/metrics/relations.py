"""The fast exact kernels of Reliability over priority (≺) and relatedness (∼) relations (seed 000 §3.1–3.3).

Both score one *view*: the relations of a side ``x`` checked against the ``other`` side (Reliability is the
view of the output against the gold; Sensitivity the view of the gold against the output). Every score is
a weighted average over x's occurrences of the share of their related mass whose relation also holds on the
other side (``../shared/design/RS-SEMANTICS.md``), so the kernels return that share per occurrence
(:class:`Shares`, what ``workbench.explain`` shows) and nothing needs the n² occurrence pairs:

* ∼ through the (x cluster, other cluster) weight contingency, Σ M/W(C) per occurrence as in BCubed,
  corrected for a document with itself (its numbers of clusters) and for the pairs of documents sharing two
  or more clusters on either side (found through their pairs of clusters): O(n + nnz + overlap pairs);
* ≺ through two-way weighted dominance sums over (x level, other level) for documents with one occurrence
  (O(n log² n), a few passes when one side has few levels). Documents with several occurrences (overlap) form
  classes by their sorted x levels ℓ and other-side levels γ (signatures). Their pairs with single-occurrence
  documents are rectangle sums and rectangle updates on the (x level, other level) grid in bands around the
  levels the classes use (prefix sums; dominance sums when the grid is large). Their pairs with each other:
  P = min(gg, gx)/gx = Σ_{t ≤ gx} [gg ≥ t]/gx splits into an x-signature and an other-signature factor, so a
  few matrix products over the (ℓ, γ) counts do it when signatures are few (a graded gold, tens of
  levels), and comparisons of every class entry's signatures with every class's, counted in small
  integers, when they are many (rankings with overlap): O(E·Λ·Γ) or O(E·K) for E class entries, Λ and Γ
  signatures, K classes — independent of the number of overlapping documents in the first case.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.dominance import dominance_sums

_BLOCK = 1 << 22  # entries of the largest temporary matrix the overlap kernel builds at once
_MATRIX_ADVANTAGE = 20  # a multiply-add in a matrix product against a step of the class-by-class path
_SCAN_STEP = 20  # a step of the matrix path's scans of levels against entries, in multiply-adds
_DENSE_GRID_CELLS = 1 << 22  # the largest band grid summed densely


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


@dataclass(frozen=True)
class Shares:
    """One view's score, occurrence by occurrence: ``holds[i]`` is the weighted share of occurrence i's
    related mass whose relation holds on the other side (P of RS-SEMANTICS point 4), ``tail_holds`` the
    tail's share; the score is (Σ w·holds + tail·tail_holds) / total."""

    holds: np.ndarray
    tail_holds: float

    def score(self, x: Side) -> float:
        total = x.total  # summed as the weights are, so that shares of 1 give exactly 1
        return 0.0 if total == 0 else (float((x.weight * self.holds).sum()) + x.tail * self.tail_holds) / total


def _expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenate the ranges ``starts[i] : starts[i] + counts[i]``."""
    offsets = np.cumsum(counts) - counts
    return np.arange(int(counts.sum())) - np.repeat(offsets, counts) + np.repeat(starts, counts)


def _members_by(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (j, i) with ``keys[i] == wanted[j]``, for small non-negative integer keys (a CSR lookup)."""
    size = int(max(keys.max(initial=-1), wanted.max(initial=-1))) + 1
    counts_by_key = np.bincount(keys, minlength=size)
    first_by_key = np.cumsum(counts_by_key) - counts_by_key
    order = np.argsort(keys, kind="stable")
    counts = counts_by_key[wanted]
    return np.repeat(np.arange(len(wanted)), counts), order[_expand(first_by_key[wanted], counts)]


# ---------------------------------------------------------------------------------------------- relatedness
def _co_clustered(side: Side, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Occurrence pairs (i, j) of two different documents among ``docs`` in one cluster of ``side``, with the
    document pair's key d·n + d′."""
    index = np.flatnonzero(np.isin(side.doc, docs))
    left, right = _members_by(side.cluster[index], side.cluster[index])
    i, j = index[left], index[right]
    keep = side.doc[i] != side.doc[j]
    i, j = i[keep], j[keep]
    return i, j, side.doc[i] * side.n_docs + side.doc[j]


def _sharing_two_clusters(side: Side) -> np.ndarray:
    """Keys d·n + d′ of the pairs of different documents that share two or more clusters on ``side``: the
    documents that have one pair of clusters in common, found through each document's pairs of clusters."""
    several = np.bincount(side.doc, minlength=side.n_docs)[side.doc] >= 2
    doc, cluster = side.doc[several], side.cluster[several]
    left, right = _members_by(doc, doc)
    keep = cluster[left] < cluster[right]
    n_clusters = int(side.cluster.max(initial=0)) + 1
    pair_code = np.unique(cluster[left[keep]] * n_clusters + cluster[right[keep]], return_inverse=True)[1]
    first, second = _members_by(pair_code, pair_code)
    a, b = doc[left[keep]][first], doc[left[keep]][second]
    return np.unique(a[a != b] * side.n_docs + b[a != b])


def relatedness_shares(x: Side, other: Side) -> Shares:
    """Per x occurrence, the weighted share of its cluster whose relatedness holds on ``other`` (eq. 4, R∼);
    tail documents are self-related singletons whose relation always holds (RS-SEMANTICS point 6)."""
    n = len(x.doc)
    if n == 0:
        return Shares(np.zeros(0), 1.0 if x.tail > 0 else 0.0)
    cluster_mass = np.bincount(x.cluster, x.weight)
    # Contingency M[C, K]: weight of x's occurrences in cluster C whose document is in other's cluster K;
    # Σ_{K ∋ d} M[C, K] is the mass of d's cluster C related to d, each partner d′ counted |r_other(d, d′)|
    # times.
    xi, oj = _members_by(other.doc, x.doc)
    n_other_clusters = int(other.cluster.max(initial=0)) + 1
    _, inverse = np.unique(x.cluster[xi] * n_other_clusters + other.cluster[oj], return_inverse=True)
    m = np.bincount(inverse, x.weight[xi])
    agree = np.bincount(xi, m[inverse], minlength=n).astype(float)

    # P is min(|r_other|, |r_x|)/|r_x| (point 4): correct the pairs where either count exceeds one. A
    # document with itself: |r_x| and |r_other| are its numbers of clusters on each side.
    x_count = np.bincount(x.doc, minlength=x.n_docs)[x.doc]
    other_count = np.bincount(other.doc, minlength=x.n_docs)[x.doc]
    agree += x.weight * (np.minimum(other_count, x_count) / x_count - other_count)
    # Two different documents sharing two or more clusters on either side (rare), each ordered pair on the
    # first document's occurrences.
    special = np.union1d(_sharing_two_clusters(x), _sharing_two_clusters(other))
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
    return Shares(agree / cluster_mass[x.cluster], 1.0 if x.tail > 0 else 0.0)


def relatedness(x: Side, other: Side) -> float:
    """Reliability of x's relatedness relations with respect to ``other`` (seed 000 eq. 4, R∼)."""
    return relatedness_shares(x, other).score(x)


# ------------------------------------------------------------------------------------------------- priority
def _ratio(agree: np.ndarray, related: np.ndarray) -> np.ndarray:
    """P = min(|r_other|, |r_x|) / |r_x| elementwise, 0 where x has no such relation."""
    safe = np.maximum(related, 1)
    return np.where(related > 0, np.minimum(agree, related) / safe, 0.0)


def priority_shares(x: Side, other: Side) -> Shares:
    """Per x occurrence, the weighted share of its priority-related mass (the other levels and the tail) whose
    relation holds on ``other`` (eq. 3, R≺); the tail's share is its x_r ← tail term (RS-SEMANTICS point 5).
    """
    n = len(x.doc)
    if n == 0:
        return Shares(np.zeros(0), 0.0)
    n_levels = int(x.level.max()) + 1
    level_mass = np.bincount(x.level, x.weight, minlength=n_levels)
    level_size = np.bincount(x.level, minlength=n_levels)
    # Each occurrence's priority-related mass: every other level and the tail (RS-SEMANTICS point 3).
    related_mass = level_mass.sum() - level_mass[x.level] + x.tail
    has_related = (n - level_size[x.level] > 0) | (x.tail > 0)

    x_count = np.bincount(x.doc, minlength=x.n_docs)
    other_count = np.bincount(other.doc, minlength=x.n_docs)
    other_level = np.full(x.n_docs, other.bottom, dtype=np.int64)  # absent: the other side's rest or tail
    single = other_count == 1
    other_level[other.doc[single[other.doc]]] = other.level[single[other.doc]]
    multi_doc = (x_count >= 2) | (other_count >= 2)
    simple = ~multi_doc[x.doc]

    # Pairs of single-occurrence documents: P = [the other side agrees], the partner's weight counts.
    agree = np.zeros(n)
    sx, sy, sw = x.level[simple], other_level[x.doc[simple]], x.weight[simple]
    lower, upper = dominance_sums(sx, sy, sw[None, :])
    agree[simple] = lower[0] + upper[0]
    if not simple.all():
        _add_overlap_agreement(x, other, ~simple, (sx, sy, sw), agree)

    tail_holds = 0.0
    if x.tail > 0:  # the tail terms of eq. 3: x_r → tail and tail → x_r (point 5)
        in_levels = other.level < other.bottom
        other_prioritised = np.bincount(other.doc[in_levels], minlength=x.n_docs)
        p_tail = _ratio(other_prioritised, x_count)[x.doc]
        agree += x.tail * p_tail
        x_mass = float(x.weight.sum())
        tail_holds = float(np.dot(x.weight, p_tail)) / x_mass if x_mass > 0 else 0.0
    holds = np.where(has_related, agree / np.where(has_related, related_mass, 1.0), 0.0)
    return Shares(holds, tail_holds)


def priority(x: Side, other: Side) -> float:
    """Reliability of x's priority relations with respect to ``other`` (seed 000 eq. 3, R≺)."""
    return priority_shares(x, other).score(x)


# -------------------------------------------------------------------------------------- priority: overlap
def _signatures(doc: np.ndarray, level: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group documents by their sorted levels: (documents, signature per document, and every signature's
    entries as (signature, level), sorted)."""
    span = int(level.max(initial=0)) + 1
    order = np.argsort(doc * span + level, kind="stable")
    doc, level = doc[order], level[order]
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
    counts = np.diff(np.r_[starts, len(doc)])
    signature = np.empty(len(starts), dtype=np.int64)
    entry_signature, entry_level, n_signatures = [], [], 0
    for k in np.unique(counts).tolist():  # documents with k occurrences: unique rows of a (m, k) table
        which = np.flatnonzero(counts == k)
        rows = level[starts[which][:, None] + np.arange(k)]
        if k * np.log2(span) < 62:  # one integer per row: a fast 1-d unique
            codes = rows @ (span ** np.arange(k - 1, -1, -1, dtype=np.int64))
            _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
            unique = rows[first]
        else:
            unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        signature[which] = n_signatures + inverse.ravel()
        entry_signature.append(np.repeat(np.arange(n_signatures, n_signatures + len(unique)), k))
        entry_level.append(unique.ravel())
        n_signatures += len(unique)
    return doc[starts], signature, np.concatenate(entry_signature), np.concatenate(entry_level)


def _add_overlap_agreement(x: Side, other: Side, in_multi: np.ndarray, simple, agree: np.ndarray) -> None:
    """Add to ``agree`` the agreeing mass of the priority pairs that involve a document with several
    occurrences on either side (overlap), where P(d ≻ d′) = min(gg, gx)/gx counts the occurrence pairs of
    the document pair on each side (RS-SEMANTICS point 4), for both documents of every pair."""
    docs, x_sig, x_entry_sig, x_entry_level = _signatures(x.doc[in_multi], x.level[in_multi])
    is_multi = np.zeros(x.n_docs, dtype=bool)
    is_multi[docs] = True
    on_other = is_multi[other.doc]
    absent = docs[np.bincount(other.doc, minlength=x.n_docs)[docs] == 0]  # one entry at the other's bottom
    _, o_sig, o_entry_sig, o_entry_level = _signatures(
        np.r_[other.doc[on_other], absent], np.r_[other.level[on_other], np.full(len(absent), other.bottom)])
    # Classes: the documents with one (x signature, other signature); a class entry is one of its x levels.
    n_o_sig = int(o_sig.max()) + 1
    classes, class_of_doc, class_count = np.unique(x_sig * n_o_sig + o_sig, return_inverse=True,
                                                   return_counts=True)
    x_start, x_size, _ = _segments(x_entry_sig, int(x_sig.max()) + 1)
    class_x = classes // n_o_sig
    entry_class = np.repeat(np.arange(len(classes)), x_size[class_x])
    class_entry = _expand(x_start[class_x], x_size[class_x])  # the x entry each class entry reads

    level_w = np.zeros(int(x.level.max()) + 1)
    level_w[x.level] = x.weight  # the weight of an occurrence depends on its level only
    x_entry_w = level_w[x_entry_level]
    sx, sy, sw = simple
    classes_at = (classes // n_o_sig, classes % n_o_sig, class_count.astype(float), entry_class, class_entry)
    down_entry, down_simple = _agreement_below(x_entry_sig, x_entry_level, x_entry_w, o_entry_sig, o_entry_level,
                                               classes_at, sx, sy, sw)
    up_entry, up_simple = _agreement_below(x_entry_sig, -x_entry_level, x_entry_w, o_entry_sig, -o_entry_level,
                                           classes_at, -sx, -sy, sw)
    agree[~in_multi] += down_simple + up_simple

    # Each overlapping occurrence reads its class entry (equal levels in one signature read the same).
    doc_index = np.full(x.n_docs, -1, dtype=np.int64)
    doc_index[docs] = np.arange(len(docs))
    span = int(x.level.max()) + 1
    key = entry_class * span + x_entry_level[class_entry]  # sorted: classes in order, levels sorted within
    occurrence_class = class_of_doc.ravel()[doc_index[x.doc[in_multi]]]
    agree[in_multi] += (down_entry + up_entry)[np.searchsorted(key, occurrence_class * span + x.level[in_multi])]


def _segments(signature: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For entries sorted by signature: each signature's first entry (n + 1 bounds), size, and each entry's
    1-based position in its signature."""
    start = np.searchsorted(signature, np.arange(n + 1))
    return start, np.diff(start), np.arange(len(signature)) - start[signature] + 1


def _signature_blocks(start: np.ndarray, n_entries: int):
    """Ranges [first, last) of entries holding whole signatures, about ``_BLOCK / n_entries`` entries each
    (so that a block × entries temporary stays bounded), at least one signature."""
    size = max(_BLOCK // max(n_entries, 1), 1)
    first = 0
    while first < n_entries:
        last = start[np.searchsorted(start, first + size, "right") - 1]
        if last <= first:
            last = start[np.searchsorted(start, first, "right")]
        yield first, int(last)
        first = int(last)


def _pairs_above(levels: np.ndarray, start: np.ndarray, row_signature: np.ndarray, row_levels: np.ndarray,
                 weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """For rows holding whole signatures (``row_signature`` numbered from 0): per row signature σ and
    signature σ′ of (``levels``, ``start``), #{(a, b) ∈ σ × σ′ : a < b}; and, per row and σ′, the weight of
    σ′'s entries above the row's level."""
    above = levels[None, :] > row_levels[:, None]
    per_row = np.add.reduceat(above.astype(float), start[:-1], axis=1)
    counts = np.add.reduceat(per_row, np.flatnonzero(np.r_[True, row_signature[1:] != row_signature[:-1]]), axis=0)
    if weights is None:
        return counts, None
    return counts, np.add.reduceat(np.where(above, weights[None, :], 0.0), start[:-1], axis=1)


def _agreement_below(xs, xl, xw, gs, gl, classes, sx, sy, sw) -> tuple[np.ndarray, np.ndarray]:
    """The agreeing mass of the pairs where the higher occurrence belongs to an overlapping document.

    Entries (xs, xl, xw) are the x signatures' levels and weights, (gs, gl) the other-side signatures'
    levels; ``classes`` = (x signature, other signature, number of documents) per class of overlapping
    documents, and per class entry its class and x entry; (sx, sy, sw) the single-occurrence documents' x
    level, other level and weight. Returns, per class entry, the mass below it that agrees (partners at a
    lower x level, weighted by P(d ≻ d′)) and, per single-occurrence document, the agreeing mass of the
    overlapping occurrences above it. With every level negated it gives the pairs where the overlapping
    document is the lower one.
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

    rounds = int(min(x_size.max(), g_size.max())) ** 2  # gx ≤ k_x², gg ≤ k_g²
    by_matrices = rounds * n_x * n_g * (len(xs) + n_g) + _SCAN_STEP * (len(xs) ** 2 + len(gs) ** 2)
    if by_matrices <= _MATRIX_ADVANTAGE * len(row) * len(class_x):
        below = _overlapping_by_matrices(xs, xl, xw, gs, gl, classes, x_start, g_start, rounds)[row, class_g[
            entry_class]]
    else:
        below = _overlapping_by_classes(xs, xl, xw, gs, gl, classes, row, x_start, g_start)

    # Single-occurrence partners on the (x level, other level) grid in bands: below, at and between the
    # levels overlapping documents use (band 2j + 1 is level j itself).
    def band(levels, values):
        j = np.searchsorted(levels, values)
        hit = np.zeros(len(values), dtype=bool)
        inside = j < len(levels)
        hit[inside] = levels[j[inside]] == values[inside]
        return 2 * j + hit

    n_bx, n_by = 2 * len(x_levels) + 1, 2 * len(g_levels) + 1
    bx, by = band(x_levels, sx), band(g_levels, sy)
    grid = _BandGrid(bx, by, sw, n_bx, n_by)
    # Interval i of ℓ (its i-th entry ℓ_i, 1-based): partners with ℓ_i < b ≤ ℓ_{i+1}, so #{a ∈ ℓ : a < b} = i.
    low = 2 * xj + 2
    high = np.where(x_pos == x_size[xs], n_bx, np.r_[low[1:], 0])
    # Threshold t of γ: partners with other level h > γ_t, so #{g ∈ γ : g < h} ≥ t.
    threshold = 2 * gj + 2
    # Every (class entry, threshold of the class's γ) pair.
    pair_entry = np.repeat(np.arange(len(row)), g_size[class_g[entry_class]])
    pair_g = _expand(g_start[class_g[entry_class]], g_size[class_g[entry_class]])
    pair_row = row[pair_entry]

    # P = min(#γ<h, i)/i = Σ_{t ≤ i} [h > γ_t]/i. An entry at level a meets the intervals i ≥ q = #{a′ ∈ ℓ :
    # a′ ≤ a}, threshold t the intervals i ≥ t: sum the intervals from max(q, t) to the end of ℓ.
    key = xs * len(x_levels) + xj
    q = np.searchsorted(key, key, "right") - x_start[xs]
    first_interval = np.maximum(q[pair_row], g_pos[pair_g])
    signature = xs[pair_row]
    span = np.maximum(x_size[signature] - first_interval + 1, 0)
    interval = _expand(x_start[signature] + first_interval - 1, span)
    threshold_of = np.repeat(threshold[pair_g], span)
    mass = (grid.sums(high[interval], threshold_of) - grid.sums(low[interval], threshold_of)) / x_pos[interval]
    below += np.bincount(np.repeat(pair_entry, span), mass, len(row))

    # Single-occurrence documents below an overlapping one: on interval i of ℓ, beyond threshold t ≤ i of γ,
    # each receives (class size)·(weight of ℓ's first i entries)/i (a rectangle update, then prefix sums).
    first_w = np.cumsum(xw) - np.repeat(np.r_[0.0, np.cumsum(xw)][x_start[:-1]], x_size)
    counted = g_pos[pair_g] <= x_pos[pair_row]
    value = np.where(counted, class_count[entry_class[pair_entry]] * first_w[pair_row] / x_pos[pair_row], 0.0)
    return below, grid.received(np.r_[low[pair_row], high[pair_row]], np.r_[threshold[pair_g], threshold[pair_g]],
                                np.r_[value, -value])


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


def _overlapping_by_matrices(xs, xl, xw, gs, gl, classes, x_start, g_start, rounds) -> np.ndarray:
    """Per sorted x entry and other signature: Σ_ℓ′ W_above[e, ℓ′] Σ_t [gx ≥ t]/gx · Σ_γ′ N[ℓ′, γ′]
    [gg(γ, γ′) ≥ t] over the overlapping partners (min(gg, gx) = Σ_t [gg ≥ t][gx ≥ t]), with gx[ℓ, ℓ′] =
    #{(a, b) ∈ ℓ × ℓ′ : a < b}, gg likewise and N the documents per class: matrix products, for few
    signatures."""
    class_x, class_g, class_count, _, _ = classes
    n_x, n_g = len(x_start) - 1, len(g_start) - 1
    counts = np.zeros((n_x, n_g))
    counts[class_x, class_g] = class_count
    # Small products: einsum's single-threaded loops, no BLAS threads contending for a shared machine's cores.
    partners = np.zeros((rounds, n_x, n_g))
    for first, last in _signature_blocks(g_start, len(gs)):
        gg, _ = _pairs_above(gl, g_start, gs[first:last] - gs[first], gl[first:last])
        block = slice(gs[first], gs[last - 1] + 1)
        for t in range(1, rounds + 1):
            partners[t - 1][:, block] = np.einsum("ij,kj->ik", counts, (gg >= t).astype(float))
    below = np.zeros((len(xs), n_g))
    for first, last in _signature_blocks(x_start, len(xs)):
        local = xs[first:last] - xs[first]
        gx, w_above = _pairs_above(xl, x_start, local, xl[first:last], xw)
        gx = gx[local]
        inverse_gx = np.where(gx > 0, 1.0 / np.maximum(gx, 1), 0.0)
        for t in range(1, rounds + 1):
            below[first:last] += np.einsum("ij,jk->ik", w_above * np.where(gx >= t, inverse_gx, 0.0),
                                           partners[t - 1])
    return below


def _padded(values: np.ndarray, start: np.ndarray, signatures: np.ndarray, width: int, pad) -> np.ndarray:
    """The entries' ``values`` of ``signatures`` as rows of ``width`` columns, each row padded with ``pad``
    beyond its signature's length."""
    column = np.arange(width)
    inside = column[None, :] < np.diff(start)[signatures][:, None]
    return np.where(inside, values[np.where(inside, start[signatures][:, None] + column[None, :], 0)], pad)


def _by_width(sizes: np.ndarray) -> dict[int, np.ndarray]:
    """Indices grouped by their size rounded up to a power of two (few groups, at most 2× padding)."""
    width = 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
    return {int(w): np.flatnonzero(width == w) for w in np.unique(width)}


def _overlapping_by_classes(xs, xl, xw, gs, gl, classes, row, x_start, g_start) -> np.ndarray:
    """Per class entry: Σ over the classes (ℓ′, γ′) of N·W_above[e, ℓ′]·min(gg, gx)/gx, for many signatures
    (rankings with overlap), where the matrices would be large. Signatures are rows of levels padded to a
    power of two; gx = Σ_{a ∈ ℓ, b ∈ ℓ′} [a < b] and gg likewise count by direct comparison into one small
    integer code per (class entry, class), whose P = min(gg, gx)/gx is read from a table; in blocks of
    class entries."""
    class_x, class_g, class_count, entry_class, _ = classes
    low = min(int(xl.min()), int(gl.min())) - 1  # a partner's padding: below every level
    high = max(int(xl.max()), int(gl.max())) + 1  # an entry's padding: above every level
    x_size, g_size = np.diff(x_start), np.diff(g_start)
    partners = []  # classes grouped by padded widths: x levels, other levels, N·(weight of each x level)
    for x_width, by_x in _by_width(x_size[class_x]).items():
        for g_width, by_g in _by_width(g_size[class_g[by_x]]).items():
            members = by_x[by_g]
            weights = _padded(xw, x_start, class_x[members], x_width, 0.0) * class_count[members][:, None]
            partners.append((_padded(xl, x_start, class_x[members], x_width, low),
                             _padded(gl, g_start, class_g[members], g_width, low), weights))
    row_x, row_g = class_x[entry_class], class_g[entry_class]
    below = np.zeros(len(row))
    size = max(_BLOCK // max(len(class_x), 1), 1)
    for x_width, by_x in _by_width(x_size[row_x]).items():
        for g_width, by_g in _by_width(g_size[row_g[by_x]]).items():
            members = by_x[by_g]
            for first in range(0, len(members), size):
                rows = members[first:first + size]
                own_x = _padded(xl, x_start, row_x[rows], x_width, high)
                own_g = _padded(gl, g_start, row_g[rows], g_width, high)
                level = xl[row[rows]][:, None]
                for levels, other, weights in partners:
                    max_gg = own_g.shape[1] * other.shape[1]
                    agree = _agreement_table(own_x.shape[1] * levels.shape[1], max_gg)
                    # the smallest signed integer type holding every code
                    code = np.zeros((len(rows), len(levels)), dtype=np.min_scalar_type(-len(agree)))
                    hit = np.empty(code.shape, dtype=bool)
                    _count_below(own_x, levels, code, hit)
                    code *= max_gg + 1
                    _count_below(own_g, other, code, hit)
                    share = agree[code]  # P(d ≻ d′) per (entry, class)
                    below[rows] += sum(np.where(levels[None, :, j] > level, share, 0.0) @ weights[:, j]
                                       for j in range(levels.shape[1]))
    return below


def _agreement_table(max_gx: int, max_gg: int) -> np.ndarray:
    """min(gg, gx)/gx (0 where gx = 0) at code gx·(max_gg + 1) + gg."""
    gx, gg = np.divmod(np.arange((max_gx + 1) * (max_gg + 1)), max_gg + 1)
    return np.minimum(gg, gx) / np.maximum(gx, 1)


def _count_below(own: np.ndarray, partner: np.ndarray, count: np.ndarray, hit: np.ndarray) -> None:
    """Add #{(a, b) ∈ own row × partner row : a < b} to ``count`` for every (own row, partner row);
    ``hit`` is scratch space of count's shape."""
    for a in own.T:
        for b in partner.T:
            np.less(a[:, None], b[None, :], out=hit)
            count += hit
