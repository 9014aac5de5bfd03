"""The fast exact kernels of Reliability over priority (≺) and relatedness (∼) relations (seed 000 §3.1–3.3).

Both score one *view*: the relations of a side ``x`` checked against the ``other`` side (Reliability is the
view of the output against the gold; Sensitivity the view of the gold against the output). Every score is
a weighted average over x's occurrences of the share of their related mass whose relation also holds on the
other side (``../shared/design/RS-SEMANTICS.md``), so nothing needs the n² occurrence pairs:

* ∼ through the (x cluster, other cluster) weight contingency, Σ M²/W(C) as in BCubed, corrected for the
  document pairs that share two or more clusters on either side: O(n + nnz + overlap pairs);
* ≺ through weighted dominance sums over (x level, other level) for documents with one occurrence
  (O(n log² n), a few passes when one side has few levels), and for the documents with several
  occurrences one vectorised pass per signature class (their sorted levels on both sides) over the
  (x level, other level) cells and the later classes: O(K·(cells + E)) for K classes with E entries.
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
    """Every (j, i) with ``keys[i] == wanted[j]``, for small non-negative integer keys (a CSR lookup)."""
    size = int(max(keys.max(initial=-1), wanted.max(initial=-1))) + 1
    counts_by_key = np.bincount(keys, minlength=size)
    first_by_key = np.cumsum(counts_by_key) - counts_by_key
    order = np.argsort(keys, kind="stable")
    counts = counts_by_key[wanted]
    return np.repeat(np.arange(len(wanted)), counts), order[_expand(first_by_key[wanted], counts)]


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
    n_other_clusters = int(other.cluster.max(initial=0)) + 1
    cells, inverse = np.unique(x.cluster[xi] * n_other_clusters + other.cluster[oj], return_inverse=True)
    m = np.bincount(inverse, x.weight[xi])
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


def _pair_mass(levels, cum_w, cum_u, theirs, p_class, p_level, p_w, p_u, p_other_class, p_other_level, n):
    """Σ over a document's occurrence pairs with partner documents (grouped by ``p_class``) of P·(w·u′ + u·w′).

    P(d ≻ d′) and P(d′ ≻ d) are min(|r_other|, |r_x|)/|r_x| over the occurrence pairs of each partner
    (RS-SEMANTICS point 4): count them per partner first, then weigh every occurrence pair.
    """
    above, below, wa, ua, wb, ub = _x_terms(levels, cum_w, cum_u, p_level)
    o_above, o_below = _other_counts(theirs, p_other_level)
    down = _ratio(np.bincount(p_other_class, o_above, n), np.bincount(p_class, above, n))[p_class]
    up = _ratio(np.bincount(p_other_class, o_below, n), np.bincount(p_class, below, n))[p_class]
    return float(np.sum(down * (wa * p_u + ua * p_w) + up * (wb * p_u + ub * p_w)))


def _multi_occurrence_pairs(x: Side, other: Side, u: np.ndarray, multi_doc: np.ndarray, simple) -> float:
    """Priority pairs that involve a document with several occurrences on either side (overlap).

    For such a document d, P(d ≻ d′) = min(|r_other|, |r_x|)/|r_x| counts the occurrence pairs of the
    document pair (point 4). Documents are grouped by signature (their sorted levels on both sides: equal
    signatures contribute equally); single-occurrence partners by (x level, other level) cell. Each class
    meets the cells, the later classes, its own other members and, for a document at several levels,
    itself (d4 at level 1 ≻ d4 at level 2).
    """
    docs = np.flatnonzero(multi_doc & (np.bincount(x.doc, minlength=x.n_docs) > 0))
    if len(docs) == 0:
        return 0.0
    sx, sy, sw, su = simple
    span = int(sy.max(initial=0)) + 1
    cells, inverse = np.unique(sx * span + sy, return_inverse=True)
    cell_x, cell_y = cells // span, cells % span
    n_cells = len(cells)
    cell_w, cell_u = np.bincount(inverse, sw, n_cells), np.bincount(inverse, su, n_cells)
    cell_ids = np.arange(n_cells)

    # Signature classes: sorted x levels and sorted other-side levels (one bottom entry when absent there).
    in_multi = multi_doc[x.doc]
    x_by_doc: dict[int, list[int]] = {}
    for d, level in zip(x.doc[in_multi].tolist(), x.level[in_multi].tolist(), strict=True):
        x_by_doc.setdefault(d, []).append(level)
    on_other = multi_doc[other.doc]
    other_by_doc: dict[int, list[int]] = {}
    for d, level in zip(other.doc[on_other].tolist(), other.level[on_other].tolist(), strict=True):
        other_by_doc.setdefault(d, []).append(level)
    classes: dict[tuple, int] = {}
    for d in docs.tolist():
        key = (tuple(sorted(x_by_doc[d])), tuple(sorted(other_by_doc.get(d, [other.bottom]))))
        classes[key] = classes.get(key, 0) + 1
    signatures, counts = list(classes), np.array(list(classes.values()), dtype=float)
    n_classes = len(signatures)

    level_w = np.zeros(int(x.level.max()) + 1)
    level_w[x.level] = x.weight
    level_u = np.zeros_like(level_w)
    level_u[x.level] = u
    # Every class's entries, in class order, so that "the later classes" is a suffix.
    e_class = np.repeat(np.arange(n_classes), [len(sig[0]) for sig in signatures])
    e_level = np.array([lv for sig in signatures for lv in sig[0]], dtype=np.int64)
    e_w, e_u = level_w[e_level] * counts[e_class], level_u[e_level] * counts[e_class]
    o_class = np.repeat(np.arange(n_classes), [len(sig[1]) for sig in signatures])
    o_level = np.array([lv for sig in signatures for lv in sig[1]], dtype=np.int64)
    e_start = np.searchsorted(e_class, np.arange(n_classes + 1))
    o_start = np.searchsorted(o_class, np.arange(n_classes + 1))

    score = 0.0
    for k, (x_levels, theirs) in enumerate(signatures):
        levels, theirs = np.array(x_levels), np.array(theirs)
        w, uu = level_w[levels], level_u[levels]
        cum_w, cum_u = np.r_[0.0, np.cumsum(w)], np.r_[0.0, np.cumsum(uu)]
        count = counts[k]
        mass = _pair_mass(levels, cum_w, cum_u, theirs, cell_ids, cell_x, cell_w, cell_u, cell_ids, cell_y,
                          n_cells)
        later, later_other = slice(e_start[k + 1], None), slice(o_start[k + 1], None)
        if e_start[k + 1] < len(e_class):
            mass += _pair_mass(levels, cum_w, cum_u, theirs, e_class[later], e_level[later], e_w[later],
                               e_u[later], o_class[later_other], o_level[later_other], n_classes)
        if count > 1:  # pairs of distinct members of the class: each meets a copy of the signature
            same = np.zeros(len(levels), dtype=np.int64)
            pairs = _pair_mass(levels, cum_w, cum_u, theirs, same, levels, w, uu,
                               np.zeros(len(theirs), dtype=np.int64), theirs, 1)
            mass += (count - 1) / 2 * pairs
        upper = levels[:, None] < levels[None, :]
        gx_self = int(upper.sum())
        if gx_self:
            gg_self = int((theirs[:, None] < theirs[None, :]).sum())
            own = float(np.sum(upper * (w[:, None] * uu[None, :] + uu[:, None] * w[None, :])))
            mass += min(gg_self, gx_self) / gx_self * own
        score += count * mass
    return score
