"""R≺ S≺ R∼ S∼ of many (gold, output) pairs in one pass: the campaign-level kernel (issue 24).

The per-pair engine (:func:`workbench.metrics.reliability.reliability_sensitivity`) pays numpy's call overhead
on tiny arrays once per pair; a campaign of runs × topics has tens of thousands of small pairs. Here every
pair's occurrences are concatenated into segmented arrays (one table per side with a ``pair`` column, rows
grouped by pair) and every step of the per-pair engine is one vectorised operation over all of them:

* the documents of every organization get one global code (one factorisation), a (pair, document) key finds
  a document on the other side, and the ``missing`` policies of :func:`~workbench.metrics.reliability.
  aligned_views` add or drop rows of every pair at once;
* the 1/x² weights of eq. 2 per (pair, level) from integer level sizes, exactly as the per-pair engine writes
  them; a level's related mass is the levels above plus the levels below, each in closed form (the masses
  telescope: no difference of rounded sums, never a total less a part), and every share is clipped to [0, 1]
  (:func:`relations._share`);
* ≺: per pair a grid of (x level, other level) ranks holding occurrence counts, prefix sums over padded
  blocks of pairs give the two-way dominance sums (pairs whose grid would be large go through
  :func:`~workbench.metrics.dominance.dominance_sums` one by one);
* ∼: the (x cluster, other cluster) contingency of every pair at once (a share is a ratio of counts).

Documents that occur once on each side are the common case (rankings, graded golds, clusterings, filterings).
A pair where a document occurs several times on either side (overlap) is scored by the per-pair engine,
which handles overlap; this kernel does not. Several (n, W_n) settings in one call share every count, rank
and lookup: only the weights, the grids' prefix sums and the sums of shares are per setting. The measures'
values (:func:`measure_values`) compute only the views they read: R≺ and S∼ build no S-view grid.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 2, "d2": 1, "d3": 1})
    >>> runs = [Organization.from_ranking(["d2", "d1", "d4"]), Organization.from_ranking(["d1", "d3"])]
    >>> scores = campaign_scores([(gold, run) for run in runs], [(10, 0.8)])
    >>> scores.shape, [round(float(v), 4) for v in scores[0, 1]]
    ((1, 2, 4), [1.0, 0.812, 1.0, 0.8701])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby
from typing import Any

import numpy as np

from workbench.errors import ParameterError
from workbench.heap import small_pages
from workbench.metrics import relations, reliability
from workbench.metrics.combine import f_alpha
from workbench.metrics.document_codes import document_codes
from workbench.metrics.dominance import dominance_sums
from workbench.metrics.registry import Measure
from workbench.metrics.reliability import MISSING, discount_constant, reliability_sensitivity
from workbench.model import Organization
from workbench.model.organization import Occurrences
from workbench.validation import validate

__all__ = ["Encoded", "campaign_scores", "encoded_scores", "is_rs_measure", "measure_values", "encode_pairs",
           "encoded_measure_values"]

_CELLS = 1 << 16  # entries of the largest padded block (grids or cumulative sums) built at once: half a MB of
# floats, a setting's sums stay in the core's cache and the allocator reuses a block's temporaries instead of
# mapping fresh pages (1 << 22: 2.9-3.0 against 2.2-2.4 CPU-s for bench_campaign.SWEEP, system time 0.7-0.8 s
# against 0.2-0.3)
_BLOCK_ROWS = 1 << 17  # occurrences (gold and output) of the pairs one segmented pass scores (_blocks). A pass over
# bench_campaign's whole arrays campaign (2,000 pairs, 2.1 million occurrences) peaked at 452 MB of temporaries
# (tracemalloc) that malloc maps afresh (1,265 page faults and 2 ms of system time a topic, none at 10 topics a pass)
# and that no cache holds: 10.9 ms a topic, 8.0-8.3 in blocks of 2^15-2^19 occurrences (30 MB peak), 9.4-10 at 2^20;
# the Organization campaign's 2.8-2.9 ms a topic, 2.1-2.3 at 2^15-2^18, 2.4-2.5 at 2^19 (sweeps at load 1.7-1.9)
Setting = tuple[float | None, float | None]  # (n, W_n); (None, None) weighs every occurrence the same
_FIELDS = ("r_priority", "s_priority", "r_relatedness", "s_relatedness")  # the last axis of the scores
_ALL = frozenset(range(4))


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


@dataclass(frozen=True)
class Encoded:
    """Organizations as compact arrays, what the kernel reads (and what a distributed campaign ships instead of
    pickled frozensets): their occurrences concatenated (``doc`` codes into ``names``, ``level``, ``cluster``),
    and per organization its first occurrence (``starts``, one bound more), number of levels, whether it is
    finite, whether a document occurs twice (``overlapping``) and its ``grades``."""

    names: np.ndarray
    doc: np.ndarray
    level: np.ndarray
    cluster: np.ndarray
    starts: np.ndarray
    n_levels: np.ndarray
    finite: np.ndarray
    overlapping: np.ndarray
    grades: tuple

    @classmethod
    @small_pages()  # arrays of millions of entries made once (heap.small_pages)
    def of(cls, organizations: Sequence[Any]) -> Encoded:
        """Each item an Organization, or a ranking given as its document ids in rank order, an Arrow string array
        or an object array (one document per level over an unlimited tail, as :meth:`Organization.from_ranking`
        reads it): what array-backed runs (:class:`~workbench.data.trec.ranked.RankedRun`) hold, encoded without
        building it (from the ids' bytes: no Python string per id)."""
        rankings = [not isinstance(org, Organization) for org in organizations]
        occurrences = [None if ranked else org.occurrences for org, ranked in zip(organizations, rankings,
                                                                                  strict=True)]
        parts = [org if one is None else one.document for org, one in zip(organizations, occurrences, strict=True)]
        lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        starts = np.r_[0, np.cumsum(lengths)]
        codes, names = document_codes(*_joined_arrays(parts))
        owner = np.repeat(np.arange(len(organizations)), lengths)
        keys = np.sort(owner * max(len(names), 1) + codes)
        overlapping = np.zeros(len(organizations), dtype=bool)
        overlapping[keys[1:][keys[1:] == keys[:-1]] // max(len(names), 1)] = True
        compact = np.int32 if max(len(names), len(codes)) < 2**31 else np.int64  # half the bytes to ship
        levels: list[np.ndarray] = [np.zeros(0, np.int64)]
        clusters: list[np.ndarray] = [np.zeros(0, np.int64)]
        for one, length in zip(occurrences, lengths.tolist(), strict=True):
            if one is None:  # a ranking: its levels and clusters are its ranks
                levels.append(np.arange(length))
                clusters.append(levels[-1])
            else:
                levels.append(one.level)
                clusters.append(one.cluster)
        return cls(names, codes.astype(compact), np.concatenate(levels).astype(compact),
                   np.concatenate(clusters).astype(compact),
                   starts, np.array([len(org) if ranked else len(org.levels) for org, ranked in
                                     zip(organizations, rankings, strict=True)], dtype=np.int64),
                   np.array([not ranked and org.finite for org, ranked in zip(organizations, rankings, strict=True)],
                            dtype=bool), overlapping,
                   tuple(None if ranked else org.grades for org, ranked in zip(organizations, rankings, strict=True)))

    def organization(self, i: int) -> Organization:
        """Organization ``i`` again (its occurrences arrays cached as they were read)."""
        span = slice(self.starts[i], self.starts[i + 1])
        docs, level, cluster = self.names[self.doc[span]], self.level[span], self.cluster[span]
        n_levels = int(self.n_levels[i])
        in_levels = level < n_levels
        bounds = np.flatnonzero(np.diff(cluster[in_levels])) + 1 if in_levels.any() else np.zeros(0, np.int64)
        members = np.split(docs[in_levels], bounds) if in_levels.any() else []
        levels: list[list[frozenset[str]]] = [[] for _ in range(n_levels)]
        for first, group in zip(np.r_[0, bounds].tolist(), members, strict=False):
            levels[int(level[in_levels][first])].append(frozenset(group.tolist()))
        rest = frozenset(docs[~in_levels].tolist()) if self.finite[i] else None
        org = Organization(tuple(tuple(one) for one in levels), rest, self.grades[i])
        # as computed where it was encoded
        org.__dict__["occurrences"] = Occurrences(docs, level.astype(np.int64), cluster.astype(np.int64))
        return org


def _joined_arrays(parts: list[Any]) -> list[Any]:
    """The parts with each stretch of consecutive object arrays joined into one (a read run's Arrow arrays as they
    are): Arrow converts one array of a campaign's 25,000 organizations' ids rather than 25,000 arrays."""
    joined: list[Any] = []
    for is_array, stretch in groupby(parts, key=lambda part: isinstance(part, np.ndarray)):
        stretch_list = list(stretch)
        joined.extend([np.concatenate(stretch_list)] if is_array else stretch_list)
    return joined


@validate(missing=MISSING)
def campaign_scores(pairs: Sequence[tuple[Organization, Organization]], settings: Sequence[Setting],
                    missing: str = "tail") -> np.ndarray:
    """R≺ S≺ R∼ S∼ (last axis) of every (gold, output) pair under every (n, W_n) setting: shape
    (settings, pairs, 4), equal to :func:`reliability_sensitivity` on each pair up to rounding (1e-12).

    A setting (None, None) weighs occurrences equally and needs finite sides; ``missing`` is declared as the per-pair
    engine's, and its other errors (a setting with one of n and W_n, an unlimited side without n) are raised on the
    first pair that has them.
    """
    encoded, which, organizations = encode_pairs(pairs)
    return encoded_scores(encoded, which, settings, missing, organizations.__getitem__)


@validate(missing=MISSING)
def encoded_scores(encoded: Encoded, pairs: np.ndarray, settings: Sequence[Setting], missing: str = "tail",
                   organization=None) -> np.ndarray:
    """:func:`campaign_scores` of the pairs (gold, output) of organizations ``encoded`` (indices, n × 2);
    ``organization(i)`` gives organization i for the pairs the per-pair engine scores (default: rebuilt from
    the arrays)."""
    return _encoded_scores(encoded, pairs, settings, missing, organization, _ALL)


@small_pages()
def _encoded_scores(encoded: Encoded, pairs: np.ndarray, settings: Sequence[Setting], missing: str,
                    organization, columns: frozenset[int]) -> np.ndarray:
    """:func:`encoded_scores`, the segmented pass computing only the ``columns`` (of :data:`_FIELDS`) wanted: the
    others are NaN for its pairs (a view none of whose columns is wanted is not computed at all)."""
    constants = []
    for n, wn in settings:
        if (n is None) != (wn is None):
            raise ParameterError(f"give both n and wn (the first n positions weigh wn), or neither; got n={n!r}, "
                                 f"wn={wn!r}", parameter="wn" if n is not None else "n")
        constants.append(None if n is None or wn is None else discount_constant(n, wn))
    out = np.zeros((len(settings), len(pairs), 4))
    if not len(pairs) or not settings:
        return out
    organization = organization or encoded.organization
    alone = encoded.overlapping[pairs].any(axis=1)
    if any(c is None for c in constants):  # the per-pair engine refuses an unlimited side without n
        alone |= ~encoded.finite[pairs].all(axis=1)
    for p in np.flatnonzero(alone).tolist():  # overlap (and the per-pair engine's own refusals)
        gold, output = organization(int(pairs[p, 0])), organization(int(pairs[p, 1]))
        for s, (n, wn) in enumerate(settings):
            out[s, p] = _tuple(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing))
    batched = np.flatnonzero(~alone)
    for block in _blocks(encoded, pairs[batched], batched):
        out[:, block] = _batched_encoded(encoded, pairs[block], constants, missing, columns)
    return out


def _blocks(encoded: Encoded, pairs: np.ndarray, index: np.ndarray) -> list[np.ndarray]:
    """``index`` (of ``pairs``, indices n × 2 into ``encoded``) cut into runs of consecutive pairs holding about
    :data:`_BLOCK_ROWS` occurrences on both sides each (a larger pair alone): the segmented pass over one block at a
    time, its arrays sized by the block and not by the whole pass (each pair's values are computed apart from the
    other pairs': the same bits in any block)."""
    if not len(index):
        return []
    sizes = np.diff(encoded.starts)[pairs].sum(axis=1)
    block = (np.cumsum(sizes) - sizes) // _BLOCK_ROWS  # the block in which each pair's occurrences start
    return np.split(index, np.flatnonzero(block[1:] != block[:-1]) + 1)


def is_rs_measure(measure: Measure) -> bool:
    """True for R≺ S≺ R∼ S∼ F≺ F∼ (whatever their parameters): the measures :func:`measure_values` scores."""
    return measure.spec.compute is reliability._compute


def measure_values(pairs: Sequence[tuple[Organization, Organization]],
                   measures: Mapping[str, Measure]) -> dict[str, np.ndarray]:
    """Per name, the R&S measure's value on every (gold, output) pair: one :func:`campaign_scores` call per
    ``missing`` policy, every (n, W_n) setting of the measures in it, F≺ and F∼ from the same scores.

    >>> from workbench.metrics.registry import parse
    >>> gold, output = Organization.from_graded({"d1": 1}), Organization.from_ranking(["d2", "d1"])
    >>> values = measure_values([(gold, output)], {"F≺": parse("F≺(n=10, wn=0.8)")})
    >>> [round(float(v), 4) for v in values["F≺"]]
    [0.4654]
    """
    encoded, which, organizations = encode_pairs(pairs)
    return encoded_measure_values(encoded, which, measures, organizations.__getitem__)


def encode_pairs(pairs: Sequence[tuple[Organization, Organization]]) -> tuple[Encoded, np.ndarray,
                                                                               list[Organization]]:
    """The distinct organizations of ``pairs`` encoded, each pair as their indices (n × 2), and the list."""
    index: dict[int, int] = {}
    organizations: list[Organization] = []
    for pair in pairs:
        for org in pair:
            if id(org) not in index:
                index[id(org)] = len(organizations)
                organizations.append(org)
    which = np.array([[index[id(org)] for org in pair] for pair in pairs], dtype=np.int64).reshape(-1, 2)
    return Encoded.of(organizations), which, organizations


def encoded_measure_values(encoded: Encoded, pairs: np.ndarray, measures: Mapping[str, Measure],
                           organization=None) -> dict[str, np.ndarray]:
    """:func:`measure_values` of the pairs (indices, n × 2) of organizations ``encoded``; ``organization`` as
    :func:`encoded_scores` takes it."""
    by_missing: dict[str, dict[Setting, list[str]]] = {}
    field_of: dict[str, str] = {}
    for name, measure in measures.items():
        field = measure.spec.field
        if not is_rs_measure(measure) or field is None:
            raise ParameterError(f"{name!r} is not one of R≺ S≺ R∼ S∼ F≺ F∼ (Amigó et al., SIGIR 2013)",
                                 parameter="measures")
        field_of[name] = field
        params = measure.params
        by_missing.setdefault(params["missing"], {}).setdefault((params["n"], params["wn"]), []).append(name)
    wanted = {field_of[name] for name in measures}
    columns = frozenset(i for i, field in enumerate(_FIELDS) if field in wanted or f"f_{field[2:]}" in wanted)
    values = {}
    for missing, settings in by_missing.items():
        scores = _encoded_scores(encoded, pairs, list(settings), missing, organization, columns)
        for columns_of_setting, names in zip(scores, settings.values(), strict=True):
            fields = dict(zip(_FIELDS, columns_of_setting.T, strict=True))
            for name in names:
                field = field_of[name]
                if field.startswith("f_"):
                    r, s = fields[f"r_{field[2:]}"], fields[f"s_{field[2:]}"]
                    values[name] = np.atleast_1d(f_alpha(r, s))
                else:
                    values[name] = fields[field]
    return values


def _batched_encoded(encoded: Encoded, pairs: np.ndarray, constants: list[float | None], missing: str,
                     columns: frozenset[int] = _ALL) -> np.ndarray:
    """R≺ S≺ R∼ S∼ of pairs without overlap (indices into ``encoded``), per discount constant: (settings, pairs,
    4), in one segmented pass; only the ``columns`` wanted (the others NaN: a sweep of R≺ and S∼ computes no
    S-view grid and no R-view contingency)."""
    gold, output = _side(encoded, pairs[:, 0]), _side(encoded, pairs[:, 1])
    n_docs = len(encoded.names)
    (r_x, r_other), (s_x, s_other) = _aligned(gold, output, n_docs, missing)
    out = np.full((len(constants), len(pairs), 4), np.nan)
    for column, (x, other) in enumerate(((r_x, r_other), (s_x, s_other))):
        priority, relatedness = column in columns, column + 2 in columns
        if priority or relatedness:
            out[:, :, column::2] = _views_scores(x, other, _lookup(x, other, n_docs), _Levels.of(x, len(pairs)),
                                                 constants, priority, relatedness)
    return out


def _tuple(scores) -> tuple[float, float, float, float]:
    return scores.r_priority, scores.s_priority, scores.r_relatedness, scores.s_relatedness


# ------------------------------------------------------------------------------------------------ encoding
def _side(encoded: Encoded, which: np.ndarray) -> _Rows:
    """One side of every pair: organization ``which[p]`` of ``encoded`` for pair p."""
    counts = np.diff(encoded.starts)[which]
    rows = relations._expand(encoded.starts[which], counts)
    pair = np.repeat(np.arange(len(which), dtype=np.int64), counts)
    span = int(encoded.cluster.max(initial=0)) + 1
    return _Rows(pair, encoded.doc[rows].astype(np.int64), encoded.level[rows].astype(np.int64),
                 pair * span + encoded.cluster[rows], encoded.n_levels[which], encoded.finite[which])


def _lookup(rows: _Rows, other: _Rows, n_docs: int) -> np.ndarray:
    """Per row, the row of ``other`` holding the same document in the same pair, or −1 (one occurrence each)."""
    keys = other.pair * n_docs + other.doc
    wanted = rows.pair * n_docs + rows.doc
    top = int(max(keys.max(initial=-1), wanted.max(initial=-1))) + 1
    if top <= 4 * (len(keys) + len(wanted)):  # a table of every key: linear time (each key is one row)
        table = np.full(top, -1, dtype=np.int64)
        table[keys] = np.arange(len(keys))
        return table[wanted]
    order = np.argsort(keys)
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
    its level's rank in its pair (``rank``); per group its ``size``, the occurrences ``above`` it in its pair
    and its ``pair``; ``first``: each pair's first group (n_pairs + 1 bounds); ``n_rows`` and ``finite`` per pair."""

    inverse: np.ndarray
    rank: np.ndarray
    size: np.ndarray
    above: np.ndarray
    pair: np.ndarray
    first: np.ndarray
    n_rows: np.ndarray
    finite: np.ndarray

    @classmethod
    def of(cls, rows: _Rows, n_pairs: int) -> _Levels:
        span = int(rows.level.max(initial=0)) + 1
        keys, inverse, size = relations._unique_ints(rows.pair * span + rows.level)
        pair = keys // span
        first = np.searchsorted(pair, np.arange(n_pairs + 1))
        inverse = inverse.ravel()
        before = np.cumsum(size) - size  # integers: exact
        return cls(inverse, inverse - first[rows.pair], size, before - before[first[pair]], pair, first,
                   np.bincount(rows.pair, minlength=n_pairs), rows.finite)

    @cached_property
    def row_first(self) -> np.ndarray:
        """Each pair's first row (n_pairs + 1 bounds: rows are grouped by pair)."""
        return np.r_[0, np.cumsum(self.n_rows)]

    def rank_of(self, groups: np.ndarray) -> np.ndarray:
        """Each group's level rank in its pair."""
        return groups - self.first[self.pair[groups]]

    @cached_property
    def kinds(self) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """What every setting's weights read, once per kind of group (its pair's occurrences n, those above it a,
        its size, its pair finite or not): each group's kind, and per kind as floats n, a, size, n − a − size,
        whether another level of its pair holds occurrences and whether the pair is finite. Rankings of one
        length have a few hundred kinds for a million groups; a setting's closed forms are computed per kind,
        each group's values are its kind's (the same numbers as computed group by group)."""
        n_rows = self.n_rows[self.pair]
        top = int(n_rows.max(initial=0)) + 1
        if top ** 3 < 1 << 61:
            _, kind, _ = relations._unique_ints(((n_rows * top + self.above) * top + self.size) * 2
                                                + self.finite[self.pair])
            kind = kind.ravel()
            one = np.zeros(int(kind.max(initial=-1)) + 1, dtype=np.int64)
            one[kind] = np.arange(len(kind))  # a group of each kind
        else:  # too many occurrences in a pair to key them: every group its own kind
            kind = one = np.arange(len(self.pair))
        n = n_rows[one].astype(float)
        a, size = self.above[one].astype(float), self.size[one].astype(float)
        return kind, (n, a, size, n - a - size, n - size > 0, self.finite[self.pair[one]])


def _weights(rows: _Rows, levels: _Levels, c: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Under one setting: per (pair, level) group the weight of an occurrence and its priority-related mass
    (the other levels and the tail), and per pair the tail's weight.

    Weights as :func:`reliability.position_weights` writes them: the s occurrences of a level with a above
    share c/((c + a)(c + a + s)), the tail of N occurrences weighs c/(c + N) (0 when finite), every occurrence
    1/N for c = None. The levels' masses telescope, so the related mass is the levels above, a/(c + a), plus
    the levels below, c(N − a − s)/((c + a + s)(c + N)), plus the tail: closed forms without a difference of
    rounded sums (never a total less a part); infinite for a level with no other level and no tail (share 0).
    """
    kind, (n, a, size, under, others, finite) = levels.kinds
    if c is None:
        weight, above, below = 1.0 / np.maximum(n, 1), a / n, under / n
        tail, level_tail = np.zeros(len(levels.n_rows)), np.zeros(len(n))
    else:
        c_a = c + a
        c_a_size = c_a + size
        weight = c / (c_a * c_a_size)
        above, below = a / c_a, c * under / (c_a_size * (c + n))
        tail = np.where(rows.finite, 0.0, c / (c + levels.n_rows))
        level_tail = np.where(finite, 0.0, c / (c + n))  # its pair's tail
    related = np.where(others | (level_tail > 0), above + below + level_tail, np.inf)
    return weight[kind], related[kind], tail


def _sums(first: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Σ values per pair, pair p's rows being ``first[p]:first[p + 1]`` (0 for a pair without rows): numpy's
    segmented reduction, 5× faster than ``bincount`` with weights on a million rows (0.64 against 3.4 ms)."""
    sums = np.zeros(len(first) - 1)
    filled = np.flatnonzero(first[1:] > first[:-1])
    if len(filled):
        sums[filled] = np.add.reduceat(np.asarray(values, dtype=float), first[filled])
    return sums


def _score(levels: _Levels, weight: np.ndarray, holds: np.ndarray, x_mass: np.ndarray, tail: np.ndarray,
           tail_holds: np.ndarray | float) -> np.ndarray:
    """Per pair (Σ w·holds + tail·tail_holds) / (Σ w + tail), Σ w being ``x_mass``; 0 for a pair without mass
    (:meth:`relations.Shares.score`: the total summed as the weights are, so that shares of 1 give 1)."""
    total = x_mass + tail
    held = _sums(levels.row_first, weight * holds) + tail * tail_holds
    return np.divide(held, total, out=np.zeros(len(tail)), where=total != 0)


def _views_scores(x: _Rows, other: _Rows, found: np.ndarray, levels: _Levels, constants: list[float | None],
                  priority: bool = True, relatedness: bool = True) -> np.ndarray:
    """R≺ and R∼ of x against ``other`` for every pair (documents occurring once), per setting: (settings,
    pairs, 2), a column not wanted (``priority``, ``relatedness``) NaN. Everything but the weights and the sums
    they enter is computed once for every setting."""
    n_pairs = len(levels.n_rows)
    out = np.full((len(constants), n_pairs, 2), np.nan)
    if priority:
        present = found >= 0
        other_level = other.n_levels[x.pair]  # a document the other side lacks is at its bottom (rest or tail)
        other_level[present] = other.level[found[present]]
        plane = _Plane(x, levels, other_level)
        prioritised = (present & (other_level < other.n_levels[x.pair])).astype(float)  # x_r → tail, tail → x_r
    if relatedness:
        related_holds = _relatedness_holds(x, other, found)
    for s, c in enumerate(constants):
        level_weight, related, tail = _weights(x, levels, c)
        weight = level_weight[levels.inverse]
        x_mass = _sums(levels.row_first, weight)
        if priority:
            agree = plane.agreement(level_weight) + tail[x.pair] * prioritised
            held = _sums(levels.row_first, weight * prioritised)
            tail_holds = np.divide(held, x_mass, out=np.zeros(n_pairs), where=x_mass > 0)
            holds = relations._share(agree, related[levels.inverse])
            out[s, :, 0] = _score(levels, weight, holds, x_mass, tail, tail_holds)
        if relatedness:
            out[s, :, 1] = _score(levels, weight, related_holds, x_mass, tail, (tail > 0).astype(float))
    return out


# ------------------------------------------------------------------------------------------------ priority
class _Plane:
    """Each pair's occurrences on the (x level, other level) plane, for two-way dominance sums (eq. 3 for
    documents occurring once). Per pair a grid of ranks (x level × other level) holds, per x level, how many
    of its occurrences lie strictly lower and strictly higher on the other side than each other level (counts
    summed along the other axis once, in integers, for every setting), in padded blocks of pairs of one grid
    shape; a setting's weights then need one cumulative sum along x levels each way. Pairs whose grid would
    be large go through :func:`dominance_sums` one by one."""

    def __init__(self, x: _Rows, levels: _Levels, other_level: np.ndarray):
        n_pairs = len(levels.n_rows)
        span = int(other_level.max(initial=0)) + 1
        y_keys, y_inverse, _ = relations._unique_ints(x.pair * span + other_level)
        y_first = np.searchsorted(y_keys // span, np.arange(n_pairs + 1))
        self.levels, self.rx, self.ry = levels, levels.rank, y_inverse.ravel() - y_first[x.pair]
        nx, ny, n_rows = np.diff(levels.first), np.diff(y_first), levels.n_rows
        self.row_first = levels.row_first
        shape_x, shape_y = _rounded(nx), _rounded(ny)
        fits = shape_x * shape_y <= np.maximum(16 * n_rows, 4096)
        self.large = np.flatnonzero(~fits & (n_rows > 0))
        shapes = shape_x * (1 << 32) + shape_y
        self.blocks = []  # (rows, each (x level, pair) cell's group, each row's cell, lower, higher counts)
        for shape in np.unique(shapes[fits & (n_rows > 0)]).tolist():
            # x level rank r at row r + 1 of the grid: a zero row before the first level and after the last
            size_x, size_y = (shape >> 32) + 2, shape & 0xFFFFFFFF
            members = np.flatnonzero(fits & (n_rows > 0) & (shapes == shape))
            per_block = max(_CELLS // (size_x * size_y), 1)
            for start in range(0, len(members), per_block):
                block = members[start:start + per_block]
                rows = relations._expand(self.row_first[block], n_rows[block])
                local = np.repeat(np.arange(len(block)), n_rows[block])
                counts = np.bincount((local * size_x + self.rx[rows] + 1) * size_y + self.ry[rows],
                                     minlength=len(block) * size_x * size_y).reshape(len(block), size_x, size_y)
                lower = np.zeros(counts.shape, dtype=np.int32)  # [., ., j]: occurrences at other ranks < j
                np.cumsum(counts[:, :, :-1], axis=2, out=lower[:, :, 1:])
                higher = np.zeros(counts.shape, dtype=np.int32)  # at other ranks > j
                np.cumsum(counts[:, :, :0:-1], axis=2, out=higher[:, :, -2::-1])
                # x levels major, the block's pairs innermost: a setting's sums along x levels add one (other rank,
                # pair) plane into the next, contiguous vectors (numpy's cumsum along an axis runs one short
                # sequence at a time: 3-10× slower), in the order a cumulative sum adds them (the same values); its
                # weights, one per (x level, pair), multiply runs of pairs (not runs of a few other ranks).
                lower, higher = (np.ascontiguousarray(a.transpose(1, 2, 0)) for a in (lower, higher))
                groups = relations._expand(levels.first[block], nx[block])
                slot = (levels.rank_of(groups) + 1) * len(block) + np.repeat(np.arange(len(block)), nx[block])
                weight_of = np.zeros(size_x * len(block), dtype=np.int64)  # a cell without a level counts 0: any group
                weight_of[slot] = groups
                at = (self.rx[rows] * size_y + self.ry[rows]) * len(block) + local  # the row's cell, read below it
                self.blocks.append((rows, weight_of.reshape(size_x, 1, len(block)), at, lower, higher))

    def agreement(self, level_weight: np.ndarray) -> np.ndarray:
        """Per row, the weight (``level_weight`` per (pair, level) group) of its pair's rows strictly below it
        on both levels plus those strictly above it on both."""
        levels, rx, ry = self.levels, self.rx, self.ry
        agree = np.zeros(len(rx))
        for p in self.large.tolist():
            span = slice(self.row_first[p], self.row_first[p + 1])
            lower, upper = dominance_sums(rx[span], ry[span], level_weight[levels.inverse[span]])
            agree[span] = lower[0] + upper[0]
        for rows, weight_of, at, lower, higher in self.blocks:
            size_x, size_y, n_block = lower.shape
            weight = level_weight[weight_of]
            below, above = self._scratch(lower.size)
            below, above = below.reshape(lower.shape), above.reshape(lower.shape)
            np.multiply(lower, weight, out=below)  # x levels above the row's: the grid planes before its own
            for k in range(1, size_x):
                np.add(below[k - 1], below[k], out=below[k])
            np.multiply(higher, weight, out=above)  # x levels below the row's: the planes after the next one
            for k in range(size_x - 2, -1, -1):
                np.add(above[k + 1], above[k], out=above[k])
            agree[rows] = below.ravel()[at] + above.ravel()[at + 2 * size_y * n_block]
        return agree


    def _scratch(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Two float arrays of at least ``size`` entries, kept for every block and setting (no fresh pages)."""
        if len(self.__dict__.get("_buffers", ((),))[0]) < size:
            self._buffers = np.empty(size), np.empty(size)
        return self._buffers[0][:size], self._buffers[1][:size]


def _rounded(values: np.ndarray) -> np.ndarray:
    """Grid sides: the value itself up to 8, else the next multiple of 8 (few shapes, little padding)."""
    values = np.maximum(values, 1)
    return np.where(values <= 8, values, (values + 7) // 8 * 8)


# --------------------------------------------------------------------------------------------- relatedness
def _relatedness_holds(x: _Rows, other: _Rows, found: np.ndarray) -> np.ndarray:
    """Per x row, the share of its cluster that the other side's cluster of its document also holds
    (:func:`relations.relatedness_shares` for documents occurring once: a cluster lies in one level, so its
    occurrences weigh the same and the share is a ratio of counts under every setting); tail documents are
    self-related singletons whose relation holds."""
    present = np.flatnonzero(found >= 0)
    _, x_cluster, cluster_size = relations._unique_ints(x.cluster)
    x_cluster = x_cluster.ravel()
    _, other_cluster, _ = relations._unique_ints(other.cluster[found[present]])
    _, cell, size = relations._unique_ints(x_cluster[present] * (int(other_cluster.max(initial=0)) + 1)
                                           + other_cluster)
    common = np.zeros(len(x.pair))
    common[present] = size[cell.ravel()]
    return relations._share(common, cluster_size[x_cluster].astype(float))
