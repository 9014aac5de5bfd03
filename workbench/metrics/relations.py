"""The fast exact kernels of Reliability over priority (≺) and relatedness (∼) relations (seed 000 §3.1–3.3).

Both score one *view*: the relations of a side ``x`` checked against the ``other`` side (Reliability is the
view of the output against the gold; Sensitivity the view of the gold against the output). Every score is
a weighted average over x's occurrences of the share of their related mass whose relation also holds on the
other side (``../shared/design/RS-SEMANTICS.md``), so nothing needs the n² occurrence pairs:

* ∼ through the (x cluster, other cluster) weight contingency, Σ M²/W(C) as in BCubed, corrected for the
  document pairs that share two or more clusters on either side: O(n + nnz + overlap pairs);
* ≺ through weighted dominance sums over (x level, other level) for documents with one occurrence, and one
  vectorised pass per document with several occurrences: O(n log n + m·cells).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from workbench.metrics.dominance import dominance_sums


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


def _expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenate the ranges ``starts[i] : starts[i] + counts[i]``."""
    offsets = np.cumsum(counts) - counts
    return np.arange(int(counts.sum())) - np.repeat(offsets, counts) + np.repeat(starts, counts)


def _members_by(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every ``wanted`` key, the indices i with ``keys[i] == wanted`` (as pairs of (wanted index, i))."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.searchsorted(sorted_keys, wanted, "left")
    counts = np.searchsorted(sorted_keys, wanted, "right") - starts
    return np.repeat(np.arange(len(wanted)), counts), order[_expand(starts, counts)]


# ---------------------------------------------------------------------------------------------- relatedness
def _co_cluster_counts(side: Side, docs: np.ndarray) -> dict[tuple[int, int], int]:
    """|r(d, d′)| on ``side`` for the document pairs among ``docs`` that share two or more clusters."""
    mask = np.isin(side.doc, docs)
    doc, cluster = side.doc[mask], side.cluster[mask]
    left, right = _members_by(cluster, cluster)
    pairs = doc[left] * side.n_docs + doc[right]
    keys, counts = np.unique(pairs, return_counts=True)
    return {divmod(int(k), side.n_docs): int(c) for k, c in zip(keys, counts, strict=True) if c >= 2}


def relatedness(x: Side, other: Side) -> float:
    """Reliability of x's relatedness relations with respect to ``other`` (seed 000 eq. 4, R∼)."""
    total = x.total
    if total == 0:
        return 0.0
    cluster_mass = np.bincount(x.cluster, x.weight)
    # Contingency M[C, K]: weight of x's occurrences in cluster C whose document is in other's cluster K.
    xi, oj = _members_by(other.doc, x.doc)
    key = x.cluster[xi] * (int(other.cluster.max(initial=0)) + 1) + other.cluster[oj]
    cells, inverse = np.unique(key, return_inverse=True)
    m = np.bincount(inverse, x.weight[xi])
    n_other_clusters = int(other.cluster.max(initial=0)) + 1
    score = float(np.sum(m * m / cluster_mass[cells // n_other_clusters]))

    # Σ M²/W counts |r_other(d, d′)| per related occurrence pair; P is min(|r_other|, |r_x|)/|r_x| (point 4):
    # correct the document pairs sharing two or more clusters on either side (multi-occurrence documents).
    multi = [np.flatnonzero(np.bincount(s.doc, minlength=x.n_docs) >= 2) for s in (x, other)]
    special = _co_cluster_counts(x, multi[0]) | _co_cluster_counts(other, multi[1])
    if special:
        docs = np.unique(np.array(list(special)).ravel())
        x_clusters = _clusters_of(x, docs)
        other_clusters = _clusters_of(other, docs)
        for d, e in special:
            common = x_clusters.get(d, {}).keys() & x_clusters.get(e, {}).keys()
            if not common:
                continue
            r_x, r_other = len(common), len(other_clusters.get(d, {}).keys() & other_clusters.get(e, {}).keys())
            pair_mass = sum(x_clusters[d][c] * x_clusters[e][c] / cluster_mass[c] for c in common)
            score += pair_mass * (min(r_other, r_x) / r_x - r_other)
    return (score + x.tail) / total


def _clusters_of(side: Side, docs: np.ndarray) -> dict[int, dict[int, float]]:
    """{document: {cluster: occurrence weight}} for the given documents."""
    out: dict[int, dict[int, float]] = {}
    mask = np.isin(side.doc, docs)
    for d, c, w in zip(side.doc[mask].tolist(), side.cluster[mask].tolist(), side.weight[mask].tolist(),
                       strict=True):
        out.setdefault(d, {})[c] = w
    return out


# ------------------------------------------------------------------------------------------------- priority
def _ratio(agree: np.ndarray, related: np.ndarray) -> np.ndarray:
    """P = min(|r_other|, |r_x|) / |r_x| elementwise, 0 where x has no such relation."""
    safe = np.maximum(related, 1)
    return np.where(related > 0, np.minimum(agree, related) / safe, 0.0)


def priority(x: Side, other: Side) -> float:
    """Reliability of x's priority relations with respect to ``other`` (seed 000 eq. 3, R≺)."""
    total = x.total
    if total == 0 or len(x.doc) == 0:
        return 0.0
    n_levels = int(x.level.max()) + 1
    level_mass = np.bincount(x.level, x.weight, minlength=n_levels)
    level_size = np.bincount(x.level, minlength=n_levels)
    # Each occurrence's priority-related mass: every other level and the tail (RS-SEMANTICS point 3).
    related_mass = level_mass.sum() - level_mass[x.level] + x.tail
    has_related = (len(x.doc) - level_size[x.level] > 0) | (x.tail > 0)
    u = np.where(has_related, x.weight / np.where(has_related, related_mass, 1.0), 0.0)

    x_count = np.bincount(x.doc, minlength=x.n_docs)
    other_count = np.bincount(other.doc, minlength=x.n_docs)
    other_level = np.full(x.n_docs, other.bottom, dtype=np.int64)  # absent: the other side's rest or tail
    single = other_count == 1
    other_level[other.doc[single[other.doc]]] = other.level[single[other.doc]]
    multi_doc = (x_count >= 2) | (other_count >= 2)
    simple = ~multi_doc[x.doc]

    # Pairs of single-occurrence documents: o above o′ in x counts P = [other agrees], weight w·u′ + u·w′.
    sx, sy, sw, su = x.level[simple], other_level[x.doc[simple]], x.weight[simple], u[simple]
    collected_u, collected_w = dominance_sums(sx, sy, np.vstack([su, sw]))
    score = float(np.dot(sw, collected_u) + np.dot(su, collected_w))
    score += _multi_occurrence_pairs(x, other, u, multi_doc, (sx, sy, sw, su))

    if x.tail > 0:  # the tail terms of eq. 3: x_r → tail and tail → x_r (point 5)
        in_levels = other.level < other.bottom
        other_prioritised = np.bincount(other.doc[in_levels], minlength=x.n_docs)
        p_tail = _ratio(other_prioritised, x_count)[x.doc]
        score += x.tail * float(np.dot(u, p_tail))
        x_mass = float(x.weight.sum())
        if x_mass > 0:
            score += x.tail / x_mass * float(np.dot(x.weight, p_tail))
    return score / total


def _x_terms(levels, cum_w, cum_u, partner_level):
    """A document's occurrences (at sorted ``levels``) above / below each partner, and their summed w and u."""
    k = len(levels)
    above = np.searchsorted(levels, partner_level, "left")
    below = k - np.searchsorted(levels, partner_level, "right")
    return above, below, cum_w[above], cum_u[above], cum_w[k] - cum_w[k - below], cum_u[k] - cum_u[k - below]


def _other_counts(theirs, partner_other_level):
    """A document's entries on the other side (sorted levels ``theirs``) above / below each partner's entry."""
    return (np.searchsorted(theirs, partner_other_level, "left"),
            len(theirs) - np.searchsorted(theirs, partner_other_level, "right"))


def _multi_occurrence_pairs(x: Side, other: Side, u: np.ndarray, multi_doc: np.ndarray, simple) -> float:
    """Priority pairs that involve a document with several occurrences on either side (overlap).

    For such a document d, P(d ≻ d′) = min(|r_other|, |r_x|)/|r_x| counts occurrence pairs of the document
    pair (point 4). Single-occurrence partners are grouped into (x level, other level) cells; partners with
    several occurrences are summed per document; d's own occurrences at different levels are a pair too.
    """
    docs = np.flatnonzero(multi_doc & (np.bincount(x.doc, minlength=x.n_docs) > 0))
    if len(docs) == 0:
        return 0.0
    sx, sy, sw, su = simple
    cells, inverse = np.unique(np.vstack([sx, sy]), axis=1, return_inverse=True)
    cell_x, cell_y = cells
    cell_w, cell_u = np.bincount(inverse, sw, len(cell_x)), np.bincount(inverse, su, len(cell_x))

    in_multi = multi_doc[x.doc]
    mx_doc, mx_level, mx_w, mx_u = x.doc[in_multi], x.level[in_multi], x.weight[in_multi], u[in_multi]
    # The other side's entries of multi documents: their levels there, or one entry at the bottom if absent.
    on_other = multi_doc[other.doc]
    absent = docs[np.bincount(other.doc, minlength=x.n_docs)[docs] == 0]
    mo_doc = np.r_[other.doc[on_other], absent]
    mo_level = np.r_[other.level[on_other], np.full(len(absent), other.bottom)]

    by_doc = {int(d): np.flatnonzero(mx_doc == d) for d in docs}
    score = 0.0
    for d in docs.tolist():
        mine = by_doc[d]
        order = mine[np.argsort(mx_level[mine], kind="stable")]
        levels = mx_level[order]
        cum_w, cum_u = np.r_[0.0, np.cumsum(mx_w[order])], np.r_[0.0, np.cumsum(mx_u[order])]
        theirs = np.sort(mo_level[mo_doc == d])

        # Single-occurrence partners, one cell at a time: |r_x| and |r_other| are direct counts.
        above, below, wa, ua, wb, ub = _x_terms(levels, cum_w, cum_u, cell_x)
        o_above, o_below = _other_counts(theirs, cell_y)
        down, up = _ratio(o_above, above), _ratio(o_below, below)
        score += float(np.sum(down * (wa * cell_u + ua * cell_w) + up * (wb * cell_u + ub * cell_w)))

        # Multi-occurrence partners with a larger index (each unordered document pair once): sum the
        # occurrence-pair counts per partner document first.
        later, later_other = mx_doc > d, mo_doc > d
        if later.any():
            p_doc, n = mx_doc[later], x.n_docs
            above, below, wa, ua, wb, ub = _x_terms(levels, cum_w, cum_u, mx_level[later])
            o_above, o_below = _other_counts(theirs, mo_level[later_other])
            gx_down, gx_up = np.bincount(p_doc, above, n), np.bincount(p_doc, below, n)
            gg_down = np.bincount(mo_doc[later_other], o_above, n)
            gg_up = np.bincount(mo_doc[later_other], o_below, n)
            down, up = _ratio(gg_down, gx_down)[p_doc], _ratio(gg_up, gx_up)[p_doc]
            pw, pu = mx_w[later], mx_u[later]
            score += float(np.sum(down * (wa * pu + ua * pw) + up * (wb * pu + ub * pw)))

        # d's own occurrences at different levels (d4 at level 1 ≻ d4 at level 2).
        upper = levels[:, None] < levels[None, :]
        gx_self = int(upper.sum())
        if gx_self:
            gg_self = int((theirs[:, None] < theirs[None, :]).sum())
            w, uu = mx_w[order], mx_u[order]
            mass = float(np.sum(upper * (w[:, None] * uu[None, :] + uu[:, None] * w[None, :])))
            score += min(gg_self, gx_self) / gx_self * mass
    return score
