"""The fast exact kernels of Reliability over priority (≺) and relatedness (∼) relations (seed 000 §3.1–3.3).

Both score one *view*: the relations of a side ``x`` checked against the ``other`` side (Reliability is the
view of the output against the gold; Sensitivity the view of the gold against the output). Every score is
a weighted average over x's occurrences of the share of their related mass whose relation also holds on the
other side (``../shared/design/RS-SEMANTICS.md``), so the kernels return that share per occurrence
(:class:`Shares`, what ``workbench.explain`` shows) and nothing needs the n² occurrence pairs:

* ∼ through the (x cluster, other cluster) weight contingency, Σ M/W(C) per occurrence as in BCubed,
  corrected for the document pairs that share two or more clusters on either side: O(n + nnz + overlap
  pairs);
* ≺ through two-way weighted dominance sums over (x level, other level) for documents with one occurrence
  (O(n log² n), a few passes when one side has few levels). Documents with several occurrences (overlap) are
  grouped by their sorted x levels ℓ and other-side levels γ (signatures): P = min(gg, gx)/gx is
  Σ_{t ≤ gx} [gg ≥ t]/gx, which splits into an x-signature factor and an other-signature factor, so the
  pairs of overlapping documents are a few matrix products over (ℓ, γ) counts, and their pairs with
  single-occurrence documents are rectangle sums and rectangle updates on the (x level, other level) grid,
  compressed to the levels the overlapping documents use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.dominance import dominance_sums

_BLOCK = 1 << 22  # entries of the largest temporary matrix the overlap kernel builds at once


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
    counts = np.zeros((int(x_sig.max()) + 1, int(o_sig.max()) + 1))
    np.add.at(counts, (x_sig, o_sig), 1.0)

    level_w = np.zeros(int(x.level.max()) + 1)
    level_w[x.level] = x.weight  # the weight of an occurrence depends on its level only
    x_entry_w = level_w[x_entry_level]
    sx, sy, sw = simple
    down_entry, down_simple = _agreement_below(x_entry_sig, x_entry_level, x_entry_w, o_entry_sig, o_entry_level,
                                               counts, sx, sy, sw)
    up_entry, up_simple = _agreement_below(x_entry_sig, -x_entry_level, x_entry_w, o_entry_sig, -o_entry_level,
                                           counts, -sx, -sy, sw)
    agree[~in_multi] += down_simple + up_simple

    # Each overlapping occurrence reads its signature entry (equal levels in one signature read the same).
    doc_index = np.full(x.n_docs, -1, dtype=np.int64)
    doc_index[docs] = np.arange(len(docs))
    span = int(x.level.max()) + 1
    entry_key = x_entry_sig * span + x_entry_level
    occurrence_doc = doc_index[x.doc[in_multi]]
    entry = np.searchsorted(entry_key, x_sig[occurrence_doc] * span + x.level[in_multi])
    agree[in_multi] += (down_entry + up_entry)[entry, o_sig[occurrence_doc]]


def _segments(signature: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For entries sorted by signature: each signature's first entry (n + 1 bounds), size, and each entry's
    1-based position in its signature."""
    start = np.searchsorted(signature, np.arange(n + 1))
    return start, np.diff(start), np.arange(len(signature)) - start[signature] + 1


def _agreement_below(xs, xl, xw, gs, gl, counts, sx, sy, sw) -> tuple[np.ndarray, np.ndarray]:
    """The agreeing mass of the pairs where the higher occurrence belongs to an overlapping document.

    Entries (xs, xl, xw) are the x signatures' levels and weights, (gs, gl) the other-side signatures'
    levels, ``counts[ℓ, γ]`` the overlapping documents per signature pair; (sx, sy, sw) the single-occurrence
    documents' x level, other level and weight. Returns, per x entry (input order) and other signature, the
    mass below it that agrees — partners with a lower x level, weighted by P(d ≻ d′) — and, per
    single-occurrence document, the agreeing mass of the overlapping occurrences above it. With every level
    negated it gives the pairs where the overlapping document is the lower one.
    """
    n_x, n_g = counts.shape
    x_order, g_order = np.lexsort((xl, xs)), np.lexsort((gl, gs))
    xs, xl, xw, gs, gl = xs[x_order], xl[x_order], xw[x_order], gs[g_order], gl[g_order]
    x_start, x_size, x_pos = _segments(xs, n_x)
    g_start, g_size, g_pos = _segments(gs, n_g)
    x_levels, xj = np.unique(xl, return_inverse=True)
    g_levels, gj = np.unique(gl, return_inverse=True)

    def at_or_below(signature, j, values, n_sig, n_lev):
        """table[σ, v] = Σ values of σ's entries at compressed level ≤ v."""
        table = np.zeros((n_sig, n_lev))
        np.add.at(table, (signature, j), values)
        return np.cumsum(table, axis=1)

    x_count_le = at_or_below(xs, xj, 1.0, n_x, len(x_levels))
    x_weight_le = at_or_below(xs, xj, xw, n_x, len(x_levels))
    g_count_le = at_or_below(gs, gj, 1.0, n_g, len(g_levels))
    # gx[ℓ, ℓ′] = #{(a, b) ∈ ℓ × ℓ′ : a < b}; gg likewise over the other side's levels.
    gx = np.add.reduceat(x_size[None, :] - x_count_le[:, xj].T, x_start[:-1], axis=0)
    gg = np.add.reduceat(g_size[None, :] - g_count_le[:, gj].T, g_start[:-1], axis=0)

    # Overlapping partners: Σ_ℓ′ W_above[e, ℓ′] Σ_t [gx ≥ t]/gx · Σ_γ′ counts[ℓ′, γ′] [gg(γ, γ′) ≥ t].
    down_entry = np.zeros((len(xs), n_g))
    rounds = int(min(gx.max(initial=0), gg.max(initial=0)))
    partners = [counts @ (gg >= t).T for t in range(1, rounds + 1)]
    block = max(_BLOCK // max(n_x, 1), 1)
    for first in range(0, len(xs), block):
        rows = slice(first, first + block)
        w_above = x_weight_le[:, -1][None, :] - x_weight_le[:, xj[rows]].T
        gx_rows = gx[xs[rows]]
        inverse_gx = np.where(gx_rows > 0, 1.0 / np.maximum(gx_rows, 1), 0.0)
        for t, partner in enumerate(partners, start=1):
            down_entry[rows] += (w_above * np.where(gx_rows >= t, inverse_gx, 0.0)) @ partner

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
    grid = np.bincount(bx * n_by + by, sw, n_bx * n_by).reshape(n_bx, n_by)
    # prefix[X, Y] = Σ weight over bands x < X and y ≥ Y.
    prefix = np.zeros((n_bx + 1, n_by + 1))
    prefix[1:, :-1] = np.cumsum(np.cumsum(grid, axis=0)[:, ::-1], axis=1)[:, ::-1]
    # Interval i of ℓ (its i-th entry ℓ_i, 1-based): partners with ℓ_i < b ≤ ℓ_{i+1}, so #{a ∈ ℓ : a < b} = i.
    last = x_pos == x_size[xs]
    low = 2 * xj + 2
    high = np.where(last, n_bx, np.r_[low[1:], 0])
    # Threshold t of γ: partners with other level h > γ_t, so #{g ∈ γ : g < h} ≥ t.
    threshold = 2 * gj + 2
    # P = min(#γ<h, i)/i = Σ_{t ≤ i} [h > γ_t]/i: V[e, c] = Σ weight over interval e beyond threshold c, / i.
    mass = (prefix[high][:, threshold] - prefix[low][:, threshold]) / x_pos[:, None]
    suffix = np.cumsum(mass[::-1], axis=0)[::-1]  # Σ over the entries from e to the end of its signature
    end = x_start[xs + 1]
    within = suffix - np.where(end[:, None] < len(xs), suffix[np.minimum(end, len(xs) - 1)], 0.0)
    # An entry at level a meets the intervals i ≥ q = #{a′ ∈ ℓ : a′ ≤ a}, and threshold t the intervals i ≥ t.
    key = xs * len(x_levels) + xj
    q = np.searchsorted(key, key, "right") - x_start[xs]
    first_interval = np.maximum(q[:, None], g_pos[None, :])
    valid = first_interval <= x_size[xs][:, None]
    picked = within[x_start[xs][:, None] + np.minimum(first_interval, x_size[xs][:, None]) - 1,
                    np.arange(len(gs))[None, :]]
    down_entry += np.add.reduceat(np.where(valid, picked, 0.0), g_start[:-1], axis=1)

    # Single-occurrence documents below an overlapping one: on interval i of ℓ, beyond threshold t ≤ i of γ,
    # each receives counts[ℓ, γ]·(weight of ℓ's first i entries)/i (a rectangle update, then prefix sums).
    first_w = np.cumsum(xw) - np.repeat(np.r_[0.0, np.cumsum(xw)][x_start[:-1]], x_size)
    value = counts[xs][:, gs] * (first_w / x_pos)[:, None] * (g_pos[None, :] <= x_pos[:, None])
    corners = np.bincount((low[:, None] * (n_by + 1) + threshold[None, :]).ravel(), value.ravel(),
                          (n_bx + 1) * (n_by + 1))
    corners -= np.bincount((high[:, None] * (n_by + 1) + threshold[None, :]).ravel(), value.ravel(),
                           (n_bx + 1) * (n_by + 1))
    received = np.cumsum(np.cumsum(corners.reshape(n_bx + 1, n_by + 1), axis=0), axis=1)
    down_simple = received[bx, by]

    unsorted = np.empty_like(down_entry)
    unsorted[x_order] = down_entry
    return unsorted, down_simple
