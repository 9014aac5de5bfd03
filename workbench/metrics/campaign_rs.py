"""R≺ S≺ R∼ S∼ of many (gold, output) pairs in one pass: the campaign-level kernel (issue 24).

The per-pair engine (:func:`workbench.metrics.reliability.reliability_sensitivity`) pays numpy's call overhead
on tiny arrays once per pair; a campaign of runs × topics has tens of thousands of small pairs. Here every
pair's occurrences are concatenated into segmented arrays (one table per side with a ``pair`` column, rows
grouped by pair) and every step of the per-pair engine is one vectorised operation over all of them:

* the documents of every organization get one global code (one factorisation), a (pair, document) key finds
  a document on the other side, and the ``missing`` policies of :func:`~workbench.metrics.reliability.
  aligned_views` add or drop rows of every pair at once;
* the 1/x² weights of eq. 2 per (pair, level) from integer level sizes, exactly as the per-pair engine writes
  them; a level's related mass is the levels above plus the levels below (cumulative sums restarted per pair,
  never a total less a part) and every share is clipped to [0, 1] (:func:`relations._share`);
* ≺: per pair a grid of (x level, other level) ranks holding occurrence counts, prefix sums over padded
  blocks of pairs give the two-way dominance sums (pairs whose grid would be large go through
  :func:`~workbench.metrics.dominance.dominance_sums` one by one);
* ∼: the (x cluster, other cluster) contingency of every pair at once.

Documents that occur once on each side are the common case (rankings, graded golds, clusterings, filterings).
A pair where a document occurs several times on either side (overlap) is scored by the per-pair engine,
which handles overlap; this kernel does not. Several (n, W_n) settings in one call share every count, rank
and lookup: only the weights, the grids' prefix sums and the sums of shares are per setting.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 2, "d2": 1, "d3": 1})
    >>> runs = [Organization.from_ranking(["d2", "d1", "d4"]), Organization.from_ranking(["d1", "d3"])]
    >>> scores = campaign_scores([(gold, run) for run in runs], [(10, 0.8)])
    >>> scores.shape, [round(float(v), 4) for v in scores[0, 1]]
    ((1, 2, 4), [1.0, 0.5172, 1.0, 1.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ParameterError
from workbench.metrics import relations
from workbench.metrics.dominance import dominance_sums
from workbench.metrics.reliability import MISSING_POLICIES, discount_constant, reliability_sensitivity
from workbench.model import Organization

_CELLS = 1 << 22  # entries of the largest padded block (grids or cumulative sums) built at once
Setting = tuple[float | None, float | None]  # (n, W_n); (None, None) weighs every occurrence the same


@dataclass(frozen=True)
class _Rows:
    """One side of every pair: occurrences grouped by pair, with global document codes and cluster ids that
    are unique across pairs; per pair its number of levels above the rest or tail and whether it is finite."""

    pair: np.ndarray
    doc: np.ndarray
    level: np.ndarray
    cluster: np.ndarray
    n_levels: np.ndarray  # per pair
    finite: np.ndarray  # per pair

    def take(self, index: np.ndarray, level: np.ndarray | None = None, n_levels: np.ndarray | None = None) -> _Rows:
        return _Rows(self.pair[index], self.doc[index], self.level[index] if level is None else level,
                     self.cluster[index], self.n_levels if n_levels is None else n_levels, self.finite)

    def add(self, pair: np.ndarray, doc: np.ndarray, level_of_pair: np.ndarray, first_cluster: int) -> _Rows:
        """The documents as new singleton clusters of their pairs at ``level_of_pair[pair]``, rows kept grouped
        by pair (each pair's new rows after its own, as :meth:`reliability._Coded.add` appends them)."""
        if not len(pair):
            return self
        order = np.argsort(np.r_[self.pair, pair], kind="stable")
        return _Rows(np.r_[self.pair, pair][order], np.r_[self.doc, doc][order],
                     np.r_[self.level, level_of_pair[pair]][order],
                     np.r_[self.cluster, first_cluster + np.arange(len(pair))][order], self.n_levels, self.finite)


def campaign_scores(pairs: Sequence[tuple[Organization, Organization]], settings: Sequence[Setting],
                    missing: str = "tail") -> np.ndarray:
    """R≺ S≺ R∼ S∼ (last axis) of every (gold, output) pair under every (n, W_n) setting: shape
    (settings, pairs, 4), equal to :func:`reliability_sensitivity` on each pair up to rounding (1e-12).

    A setting (None, None) weighs occurrences equally and needs finite sides; errors (a bad ``missing``, a
    setting with one of n and W_n, an unlimited side without n) are the per-pair engine's, raised on the first
    pair that has them.
    """
    if missing not in MISSING_POLICIES:
        raise ParameterError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}",
                             parameter="missing")
    constants = []
    for n, wn in settings:
        if (n is None) != (wn is None):
            raise ParameterError(f"give both n and wn (the first n positions weigh wn), or neither; got n={n!r}, "
                                 f"wn={wn!r}", parameter="wn" if n is not None else "n")
        constants.append(None if n is None else discount_constant(n, wn))
    out = np.zeros((len(settings), len(pairs), 4))
    if not pairs or not settings:
        return out
    overlapping = {id(org): len(org.documents) < len(org.occurrences.document) for pair in pairs for org in pair}
    unweighted_needs = any(c is None for c in constants)
    alone = np.array([overlapping[id(g)] or overlapping[id(o)]
                      or (unweighted_needs and not (g.finite and o.finite)) for g, o in pairs], dtype=bool)
    for p in np.flatnonzero(alone).tolist():  # overlap (and the per-pair engine's own refusals)
        gold, output = pairs[p]
        for s, (n, wn) in enumerate(settings):
            out[s, p] = _tuple(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing))
    batched = np.flatnonzero(~alone)
    if len(batched):
        out[:, batched] = _batched([pairs[p] for p in batched.tolist()], constants, missing)
    return out


def _batched(pairs: Sequence[tuple[Organization, Organization]], constants: list[float | None],
             missing: str) -> np.ndarray:
    """R≺ S≺ R∼ S∼ of pairs without overlap, per discount constant: (settings, pairs, 4)."""
    gold, output, n_docs = _encode(pairs)
    (r_x, r_other), (s_x, s_other) = _aligned(gold, output, n_docs, missing)
    n_pairs = len(pairs)
    weighted: dict[int, tuple[_Levels, np.ndarray, np.ndarray]] = {}  # the views share their sides
    out = np.empty((len(constants), n_pairs, 4))
    for column, (x, other) in enumerate(((r_x, r_other), (s_x, s_other))):
        if id(x) not in weighted:
            levels = _Levels.of(x, n_pairs)
            weighted[id(x)] = (levels, *_weights(x, levels, constants))
        levels, weight, tail = weighted[id(x)]
        found = _lookup(x, other, n_docs)
        out[:, :, column] = _priority(x, other, found, levels, weight, tail)
        out[:, :, column + 2] = _relatedness(x, other, found, weight, tail)
    return out


def _tuple(scores) -> tuple[float, float, float, float]:
    return scores.r_priority, scores.s_priority, scores.r_relatedness, scores.s_relatedness


# ------------------------------------------------------------------------------------------------ encoding
def _encode(pairs: Sequence[tuple[Organization, Organization]]) -> tuple[_Rows, _Rows, int]:
    """Both sides of every pair as :class:`_Rows` over one document code, and the number of codes."""
    import pandas as pd  # here, not at import: the registry loads the measure modules for every measure name

    index: dict[int, int] = {}
    orgs: list[Organization] = []
    for pair in pairs:
        for org in pair:
            if id(org) not in index:
                index[id(org)] = len(orgs)
                orgs.append(org)
    occurrences = [org.occurrences for org in orgs]
    lengths = np.array([len(o.document) for o in occurrences], dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    codes, names = pd.factorize(np.concatenate([o.document for o in occurrences]))
    codes = codes.astype(np.int64)
    level = np.concatenate([o.level for o in occurrences]).astype(np.int64)
    cluster = np.concatenate([o.cluster for o in occurrences]).astype(np.int64)
    n_levels = np.array([len(org.levels) for org in orgs], dtype=np.int64)
    finite = np.array([org.finite for org in orgs], dtype=bool)
    span = int(cluster.max(initial=0)) + 1

    def side(k: int) -> _Rows:
        which = np.array([index[id(pair[k])] for pair in pairs], dtype=np.int64)
        counts = lengths[which]
        rows = relations._expand(starts[which], counts)
        pair = np.repeat(np.arange(len(pairs), dtype=np.int64), counts)
        return _Rows(pair, codes[rows], level[rows], pair * span + cluster[rows], n_levels[which], finite[which])

    return side(0), side(1), len(names)


def _lookup(rows: _Rows, other: _Rows, n_docs: int) -> np.ndarray:
    """Per row, the row of ``other`` holding the same document in the same pair, or −1 (one occurrence each)."""
    keys = other.pair * n_docs + other.doc
    order = np.argsort(keys)
    wanted = rows.pair * n_docs + rows.doc
    at = np.minimum(np.searchsorted(keys[order], wanted), max(len(keys) - 1, 0))
    if not len(keys):
        return np.full(len(wanted), -1, dtype=np.int64)
    return np.where(keys[order][at] == wanted, order[at], -1)


def _aligned(gold: _Rows, output: _Rows, n_docs: int, missing: str) -> tuple[tuple[_Rows, _Rows],
                                                                              tuple[_Rows, _Rows]]:
    """:func:`workbench.metrics.reliability.aligned_views` for every pair: (output, gold) for Reliability and
    (gold, output) for Sensitivity."""
    fresh = int(max(gold.cluster.max(initial=0), output.cluster.max(initial=0))) + 1
    # Gold documents a finite output lacks (keeping only output documents the gold has changes none of them).
    lacking = np.flatnonzero((_lookup(gold, output, n_docs) < 0) & output.finite[gold.pair])
    lacking_pair, lacking_doc = gold.pair[lacking], gold.doc[lacking]
    output_in_gold = _lookup(output, gold, n_docs) >= 0
    if missing == "replab":
        output = _kept(output, np.flatnonzero(output_in_gold))
    else:  # output documents a finite gold lacks join its rest
        extra = np.flatnonzero(~output_in_gold & gold.finite[output.pair])
        gold = gold.add(output.pair[extra], output.doc[extra], gold.n_levels, fresh)
        fresh += len(extra)
    if missing == "tail":
        completed = output.add(lacking_pair, lacking_doc, output.n_levels, fresh)
        return (completed, gold), (gold, completed)
    completed = output.add(lacking_pair, lacking_doc, np.maximum(output.n_levels - 1, 0), fresh)
    return (completed, gold), (gold, completed if missing == "singleton" else output)


def _kept(rows: _Rows, index: np.ndarray) -> _Rows:
    """Only the rows at ``index``; each pair's levels left empty disappear, the rest stays the bottom level
    (:meth:`workbench.metrics.reliability._Coded.keep`)."""
    pair, level = rows.pair[index], rows.level[index]
    span = int(rows.level.max(initial=0)) + 2
    above_rest = level < rows.n_levels[pair]
    present = np.unique(pair[above_rest] * span + level[above_rest])
    first = np.searchsorted(present, np.arange(len(rows.n_levels) + 1, dtype=np.int64) * span)
    n_levels = np.diff(first)
    renumbered = np.where(above_rest, np.searchsorted(present, pair * span + level) - first[pair], n_levels[pair])
    return rows.take(index, renumbered, n_levels)


# ------------------------------------------------------------------------------------------------- weights
@dataclass(frozen=True)
class _Levels:
    """The (pair, level) groups of one side, sorted by pair then level: per row its group (``inverse``) and
    its level's rank in its pair (``rank``); per group its ``size`` and ``pair``; ``first``: each pair's first
    group (n_pairs + 1 bounds)."""

    inverse: np.ndarray
    rank: np.ndarray
    size: np.ndarray
    pair: np.ndarray
    first: np.ndarray

    @classmethod
    def of(cls, rows: _Rows, n_pairs: int) -> _Levels:
        span = int(rows.level.max(initial=0)) + 1
        keys, inverse, size = np.unique(rows.pair * span + rows.level, return_inverse=True, return_counts=True)
        pair = keys // span
        first = np.searchsorted(pair, np.arange(n_pairs + 1))
        inverse = inverse.ravel()
        return cls(inverse, inverse - first[rows.pair], size, pair, first)


def _weights(rows: _Rows, levels: _Levels, constants: list[float | None]) -> tuple[np.ndarray, np.ndarray]:
    """Per setting, each row's weight and each pair's tail weight (:func:`reliability.position_weights`: the
    n_= occurrences of a level with n_> above share c/((c + n_>)(c + n_> + n_=)); the tail c/(c + |X_r|), 0
    when finite; equal weights 1/|X| for c = None)."""
    n_pairs = len(levels.first) - 1
    n_rows = np.bincount(rows.pair, minlength=n_pairs)
    before = np.cumsum(levels.size) - levels.size  # integers: exact
    above = (before - before[levels.first[levels.pair]])[levels.inverse].astype(float)
    size = levels.size[levels.inverse].astype(float)
    weight, tail = np.empty((len(constants), len(rows.pair))), np.zeros((len(constants), n_pairs))
    for s, c in enumerate(constants):
        if c is None:
            weight[s] = 1.0 / np.maximum(n_rows, 1)[rows.pair]
        else:
            weight[s] = c / ((c + above) * (c + above + size))
            tail[s] = np.where(rows.finite, 0.0, c / (c + n_rows))
    return weight, tail


def _segment_cumsum(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sums along the last axis of ``values`` (settings × n), restarted at each of the
    contiguous segments of ``lengths``: summed as one segment's own np.cumsum would, in padded blocks."""
    out = np.empty_like(values)
    starts = np.r_[0, np.cumsum(lengths)]
    segment = np.repeat(np.arange(len(lengths)), lengths)
    position = np.arange(len(segment)) - starts[segment]
    per_block = max(_CELLS // (max(int(lengths.max(initial=1)), 1) * len(values)), 1)
    for first in range(0, len(lengths), per_block):
        last = min(first + per_block, len(lengths))
        rows = slice(starts[first], starts[last])
        padded = np.zeros((len(values), last - first, int(lengths[first:last].max(initial=0))))
        padded[:, segment[rows] - first, position[rows]] = values[:, rows]
        np.cumsum(padded, axis=2, out=padded)
        out[:, rows] = padded[:, segment[rows] - first, position[rows]]
    return out


def _sums(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Σ values per group (float, also when there is nothing to add)."""
    return np.bincount(group, values, minlength=n).astype(float, copy=False)


def _scores(rows: _Rows, weight: np.ndarray, holds: np.ndarray, tail: np.ndarray,
            tail_holds: np.ndarray) -> np.ndarray:
    """Per setting and pair (Σ w·holds + tail·tail_holds) / (Σ w + tail), 0 for a pair without mass
    (:meth:`relations.Shares.score`)."""
    n_pairs = tail.shape[1]
    out = np.zeros(tail.shape)
    for s in range(len(weight)):
        total = _sums(rows.pair, weight[s], n_pairs) + tail[s]
        held = _sums(rows.pair, weight[s] * holds[s], n_pairs) + tail[s] * tail_holds[s]
        np.divide(held, total, out=out[s], where=total != 0)
    return out


# ------------------------------------------------------------------------------------------------ priority
def _priority(x: _Rows, other: _Rows, found: np.ndarray, levels: _Levels, weight: np.ndarray,
              tail: np.ndarray) -> np.ndarray:
    """R≺ of x against ``other`` for every pair and setting (:func:`relations.priority_shares`, documents
    occurring once)."""
    n_pairs = tail.shape[1]
    level_weight = np.zeros((len(weight), len(levels.size)))
    level_weight[:, levels.inverse] = weight
    level_mass = np.stack([_sums(levels.inverse, w, len(levels.size)) for w in weight])
    # Per level its related mass: the levels above plus the levels below (never all less its own) and the tail.
    lengths = np.diff(levels.first)
    inclusive = _segment_cumsum(level_mass, lengths)
    above = np.where(levels.first[levels.pair] == np.arange(len(levels.pair)), 0.0, np.roll(inclusive, 1, axis=1))
    reverse = _segment_cumsum(level_mass[:, ::-1], lengths[::-1])[:, ::-1]
    last = levels.first[levels.pair + 1] - 1 == np.arange(len(levels.pair))
    below = np.where(last, 0.0, np.roll(reverse, -1, axis=1))
    n_rows = np.bincount(x.pair, minlength=n_pairs)
    related = np.where(((n_rows[levels.pair] - levels.size) > 0) | (tail[:, levels.pair] > 0),
                       above + below + tail[:, levels.pair], np.inf)

    present = found >= 0
    other_level = other.n_levels[x.pair]  # a document the other side lacks is at its bottom (rest or tail)
    other_level[present] = other.level[found[present]]
    agree = _dominance(x, levels, other_level, level_weight)
    p_tail = (present & (other_level < other.n_levels[x.pair])).astype(float)  # x_r → tail and tail → x_r
    agree += tail[:, x.pair] * p_tail
    x_mass = np.stack([_sums(x.pair, w, n_pairs) for w in weight])
    held = np.stack([_sums(x.pair, w * p_tail, n_pairs) for w in weight])
    tail_holds = np.divide(held, x_mass, out=np.zeros_like(held), where=x_mass > 0)
    holds = relations._share(agree, related[:, levels.inverse])
    return _scores(x, weight, holds, tail, tail_holds)


def _dominance(x: _Rows, levels: _Levels, other_level: np.ndarray, level_weight: np.ndarray) -> np.ndarray:
    """Per setting and row, the weight of the rows of its pair below-left plus above-right of it on the
    (x level, other level) plane: prefix sums of each pair's grid of ranks (counts times level weights), in
    padded blocks of pairs of one grid shape; pairs whose grid would be large through dominance_sums."""
    n_pairs = len(levels.first) - 1
    span = int(other_level.max(initial=0)) + 1
    y_keys, y_inverse = np.unique(x.pair * span + other_level, return_inverse=True)
    y_first = np.searchsorted(y_keys // span, np.arange(n_pairs + 1))
    rx, ry = levels.rank, y_inverse.ravel() - y_first[x.pair]
    nx, ny = np.diff(levels.first), np.diff(y_first)
    n_rows = np.bincount(x.pair, minlength=n_pairs)
    row_first = np.r_[0, np.cumsum(n_rows)]
    shape_x, shape_y = _power_of_two(nx), _power_of_two(ny)
    large = (shape_x * shape_y > np.maximum(16 * n_rows, 4096)) & (n_rows > 0)
    agree = np.zeros((len(level_weight), len(x.pair)))
    weight = level_weight[:, levels.inverse]
    for p in np.flatnonzero(large).tolist():
        rows = slice(row_first[p], row_first[p + 1])
        lower, upper = dominance_sums(rx[rows], ry[rows], weight[:, rows])
        agree[:, rows] = lower + upper
    small = ~large & (n_rows > 0)
    shapes = shape_x * (1 << 32) + shape_y
    for shape in np.unique(shapes[small]).tolist():
        X, Y = shape >> 32, shape & 0xFFFFFFFF
        members = np.flatnonzero(small & (shapes == shape))
        per_block = max(_CELLS // (len(level_weight) * (X + 1) * (Y + 1)), 1)
        for start in range(0, len(members), per_block):
            block = members[start:start + per_block]
            rows = relations._expand(row_first[block], n_rows[block])
            local = np.repeat(np.arange(len(block)), n_rows[block])
            groups = relations._expand(levels.first[block], nx[block])
            grid = np.zeros((len(level_weight), len(block), X + 1, Y + 1))
            counts = np.bincount((local * (X + 1) + rx[rows]) * (Y + 1) + ry[rows],
                                 minlength=len(block) * (X + 1) * (Y + 1)).reshape(len(block), X + 1, Y + 1)
            grid[:, np.repeat(np.arange(len(block)), nx[block]), groups - levels.first[levels.pair[groups]]] = \
                level_weight[:, groups, None]
            grid *= counts
            lower = np.zeros_like(grid)
            lower[:, :, 1:, 1:] = grid[:, :, :-1, :-1].cumsum(axis=2).cumsum(axis=3)
            upper = grid[:, :, ::-1, ::-1].cumsum(axis=2).cumsum(axis=3)[:, :, ::-1, ::-1]
            agree[:, rows] = (lower[:, local, rx[rows], ry[rows]]
                              + upper[:, local, np.minimum(rx[rows] + 1, X), np.minimum(ry[rows] + 1, Y)])
    return agree


def _power_of_two(values: np.ndarray) -> np.ndarray:
    """The smallest power of two ≥ each value (≥ 1)."""
    return 1 << np.ceil(np.log2(np.maximum(values, 1))).astype(np.int64)


# --------------------------------------------------------------------------------------------- relatedness
def _relatedness(x: _Rows, other: _Rows, found: np.ndarray, weight: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """R∼ of x against ``other`` for every pair and setting (:func:`relations.relatedness_shares`, documents
    occurring once): per row the weight of its cluster that shares the other side's cluster of its document,
    over its cluster's weight; tail documents are self-related singletons whose relation holds."""
    present = np.flatnonzero(found >= 0)
    _, x_cluster = np.unique(x.cluster, return_inverse=True)
    x_cluster = x_cluster.ravel()
    _, other_cluster = np.unique(other.cluster[found[present]], return_inverse=True)
    _, cell, size = np.unique(x_cluster[present] * (int(other_cluster.max(initial=0)) + 1) + other_cluster.ravel(),
                              return_inverse=True, return_counts=True)
    common = np.zeros(len(x.pair))
    common[present] = size[cell.ravel()]
    holds = np.empty_like(weight)
    for s, w in enumerate(weight):
        holds[s] = relations._share(w * common, _sums(x_cluster, w, len(x_cluster))[x_cluster])
    return _scores(x, weight, holds, tail, (tail > 0).astype(float))
