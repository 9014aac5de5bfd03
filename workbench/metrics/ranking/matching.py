"""The one matcher: ranked (row, document) entries meet their judgements, and who sits where.

Every table a ranking measure reads is built on it: the gain table of read runs (:mod:`workbench.data.trec.join`),
of Organizations and dicts (:meth:`~workbench.metrics.ranking.table.GainTable.from_judged_rankings`) and the
subtopic table (:meth:`~workbench.metrics.ranking.diversity.SubtopicTable.from_rows`). Entries are matched by
64-bit keys of (row, document) (:func:`keys`), every match checked on the ids themselves; should two pairs share a
key, by exact codes, as documents named by ``str`` on both sides are (:func:`match_names`). :func:`match` gives
each ranked entry the position of its judgement (-1: none), :func:`seated` who sits where (:class:`RankingRows`),
as the explanations read it::

    >>> judged = Judged.of(np.array([0, 0]), DocumentIds.from_strings(["a", "b"]), np.array([1.0, 2.0]), 1)
    >>> ranked = (np.array([0, 0, 0]), DocumentIds.from_strings(["c", "b", "x"]))
    >>> positions = match([ranked], judged, 1)[0]
    >>> positions.tolist()
    [-1, 1, -1]
    >>> rows = seated(*ranked, judged, positions)
    >>> rows.retrieved.strings().tolist(), rows.missing_documents.strings().tolist(), rows.missing_grades.tolist()
    (['c', 'b', 'x'], ['a'], [1.0])
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.ids import DocumentIds
from workbench.model import natural_key
from workbench.sorting import stable_order
from workbench.threads import in_threads

__all__ = ["BLOCK", "with_groups", "keys", "entries", "Judged", "match", "match_names", "RankingRows", "seated"]

_FILTER_BITS = 24  # the judged keys' last bits mark up to 2^24 slots (16 MB): Judged.of


BLOCK = 1 << 16
"""Entries an array-wide step works on at once where a temporary of every entry is avoided (512 KiB of 64-bit
values rather than 16 MB for 2M entries)."""


def with_groups(key: np.ndarray, groups: np.ndarray, shift: int) -> np.ndarray:
    """``key |= groups << shift`` in place on a uint64 ``key`` (one per entry), a block of :data:`BLOCK` entries at
    a time: no second array of the entries.

    >>> with_groups(np.array([1, 2], dtype=np.uint64), np.array([0, 3]), 4).tolist()
    [1, 50]
    """
    for low in range(0, key.size, BLOCK):
        high = np.asarray(groups[low:low + BLOCK]).astype(np.uint64)
        high <<= np.uint64(shift)
        key[low:low + BLOCK] |= high
    return key


def keys(groups: np.ndarray, ids: DocumentIds | np.ndarray, n_groups: int) -> np.ndarray:
    """One uint64 key per (group, document) (``groups`` below ``n_groups``; ``ids``: the documents, or their
    :meth:`~workbench.ids.DocumentIds.hashes`): the group in the leading bits, the document's hash in the rest.
    Equal pairs give equal keys, different pairs almost never do (callers check a match on the ids:
    :meth:`~workbench.ids.DocumentIds.equal`), and entries grouped by group give keys a stable sort orders fast
    (it merges the groups' sorted stretches)."""
    bits = np.uint64(max(int(n_groups - 1).bit_length(), 1))
    hashes = ids.hashes() if isinstance(ids, DocumentIds) else ids
    return with_groups(hashes >> bits, np.asarray(groups), 64 - int(bits))  # one array of the entries


def entries(rankings: Sequence[Sequence[str]]) -> tuple[np.ndarray, DocumentIds]:
    """Lists of documents (one per row) as the matcher's entries: each document's row (int64) and the documents.

    >>> rows, documents = entries([["a", "b"], [], ["c"]])
    >>> rows.tolist(), documents.strings().tolist()
    ([0, 0, 2], ['a', 'b', 'c'])
    """
    rows = np.repeat(np.arange(len(rankings), dtype=np.int64), [len(ranking) for ranking in rankings])
    return rows, DocumentIds.from_strings([doc for ranking in rankings for doc in ranking])


@dataclass(frozen=True)
class Judged:
    """The judged side of a match: each judgement's row, document and grade, and their keys: hashed
    (:func:`keys`, with the keys' slots, a slot per value of their last bits marking theirs: most unjudged keys
    fall on an empty one), or exact (``slots`` None: names given as ``str``, each coded by its position,
    :func:`match_names`)."""

    rows: np.ndarray
    documents: DocumentIds | np.ndarray
    grades: np.ndarray
    keys: np.ndarray
    slots: np.ndarray | None

    @classmethod
    def of(cls, rows: np.ndarray, documents: DocumentIds, grades: np.ndarray, n_rows: int) -> Judged:
        """The judgements ``(rows[j], documents[j], grades[j])`` of a table of ``n_rows`` rows (no (row,
        document) twice)."""
        built = keys(rows, documents, n_rows)
        bits = min(max(int(16 * built.size).bit_length(), 16), _FILTER_BITS)
        slots = np.zeros(1 << bits, dtype=bool)
        slots[(built & np.uint64((1 << bits) - 1)).view(np.int64)] = True
        return cls(rows, documents, grades, built, slots)


def match_names(judgements: Sequence[Mapping[str, float]], rankings: Sequence[Sequence[str]]
                ) -> tuple[Judged, np.ndarray, np.ndarray]:
    """:func:`match` for documents named by ``str`` (a few, by hand): ``{document: grade}`` and the ranked
    documents of each row, each judged (row, name) coded exactly by its position, in place of a hash (so no
    collision to check), and each ranked one looked up by its name. The judged side, each ranked entry's row, and
    its judgement's position (-1: none; a name ranked twice in a row finds it twice).

    >>> judged, rows, positions = match_names([{"a": 1.0, "b": 2.0}], [["c", "b"]])
    >>> rows.tolist(), positions.tolist(), judged.documents.tolist()
    ([0, 0], [-1, 1], ['a', 'b'])
    """
    chain = itertools.chain.from_iterable
    names = list(chain(judgements))
    starts = [0, *itertools.accumulate(map(len, judgements))]
    code = [dict(zip(judged, range(start, start + len(judged)), strict=True))
            for judged, start in zip(judgements, starts, strict=False)]
    lengths = list(map(len, rankings))
    found = np.fromiter(chain(map(code[row].get, ranking, itertools.repeat(-1)) if row < len(code)
                              else itertools.repeat(-1, len(ranking)) for row, ranking in enumerate(rankings)),
                        dtype=np.int64, count=sum(lengths))
    judged_rows = np.repeat(np.arange(len(judgements), dtype=np.int64), list(map(len, judgements)))
    grades = np.fromiter(chain(judged.values() for judged in judgements), dtype=float, count=len(names))
    judged = Judged(judged_rows, _names(names), grades, np.arange(len(names), dtype=np.int64), None)
    rows = np.repeat(np.arange(len(rankings), dtype=np.int64), lengths)
    return judged, rows, found


def _names(names: list[str]) -> np.ndarray:
    """An object array of ``str``."""
    array = np.empty(len(names), dtype=object)
    array[:] = names
    return array


class _KeyCollision(Exception):
    """Two different (row, document) pairs share a 64-bit key: the keys are rebuilt exactly."""


def match(ranked: Sequence[tuple[np.ndarray, DocumentIds]], judged: Judged, n_rows: int) -> list[np.ndarray]:
    """For each part of ranked entries (``(rows, documents)``, rows below ``n_rows``; no (row, document) twice in
    a part), each entry's judgement: its position in ``judged`` (int32, or int64 past 2^31 judgements; -1 when it
    has none)."""
    try:
        return [_hashed_positions(rows, docs, judged, n_rows) for rows, docs in ranked]
    except _KeyCollision:  # only hashed keys collide: the judged ids are DocumentIds
        assert isinstance(judged.documents, DocumentIds)
        exact = _exact_keys([*ranked, (judged.rows, judged.documents)])
        return [_exact_positions(built, exact[-1]) for built in exact[:-1]]


def _exact_keys(parts: Sequence[tuple[np.ndarray, DocumentIds]]) -> list[np.ndarray]:
    """One int64 per (row, document) of each part, equal exactly for equal pairs (the document's byte-order code
    among all the parts' documents)."""
    codes = DocumentIds.concatenate([docs for _, docs in parts]).codes()
    bounds = np.cumsum([len(docs) for _, docs in parts])[:-1]
    return [rows * (codes.max(initial=0) + 1) + part
            for (rows, _), part in zip(parts, np.split(codes, bounds), strict=True)]


def _no_positions(size: int, judgements: int) -> np.ndarray:
    """``size`` positions among ``judgements``, all -1 (none yet), int32 where the judgements allow."""
    return np.full(size, -1, dtype=np.int32 if judgements < 2**31 else np.int64)


def _exact_positions(run_keys: np.ndarray, q_keys: np.ndarray) -> np.ndarray:
    """Each exact (row, document) key's position among the judged keys ``q_keys``, -1 where it has none."""
    found = _no_positions(run_keys.size, q_keys.size)
    if not q_keys.size or not run_keys.size:
        return found
    order = np.argsort(q_keys, kind="stable")
    ordered = q_keys[order]
    at = np.minimum(np.searchsorted(ordered, run_keys), ordered.size - 1)
    return np.where(ordered[at] == run_keys, order[at], found)


def _hashed_positions(rows: np.ndarray, docs: DocumentIds, judged: Judged, n_rows: int) -> np.ndarray:
    """Each (row, document)'s position among the judgements, -1 where it has none, by hashed keys (:func:`keys`).
    Keys whose last bits no judged key has are not judged; the others and the judged keys are sorted together, a
    judged pair being two equal neighbours, one from each set (equal keys within one set are a hash collision:
    exact keys are built instead). The entries' keys are made a block of :data:`BLOCK` at a time, from the ids'
    hashes of the block (kept ones, or made for the block alone: :meth:`~workbench.ids.DocumentIds.hashes`), and
    only the keys that may be judged kept (no array of every entry's key or hash: 2M entries, 16 MB less at the
    join's peak); the blocks, and the check of the matched pairs on the ids a block at a time, are shared among
    :func:`~workbench.threads.threads` threads (numpy lets go of the interpreter in its loops) and joined in order:
    the same positions as one pass (2M entries: 55 → 39–42 ms)."""
    q_keys = judged.keys
    found = _no_positions(len(rows), q_keys.size)
    if not q_keys.size or not len(rows):
        return found
    slots = judged.slots
    assert slots is not None  # hashed keys: Judged.of marks their slots
    last = np.uint64(slots.size - 1)

    def maybe_judged(low: int) -> tuple[np.ndarray, np.ndarray]:
        block = keys(rows[low:low + BLOCK], docs.hashes(slice(low, low + BLOCK)), n_rows)
        maybe = np.flatnonzero(slots[(block & last).view(np.int64)])
        return maybe + low, block[maybe]

    blocks = in_threads(maybe_judged, range(0, len(rows), BLOCK))
    candidates = np.concatenate([maybe for maybe, _ in blocks])
    both = np.concatenate([q_keys, *(block for _, block in blocks)])
    del blocks
    order = stable_order(both)
    both = both[order]  # sorted; each array let go once read (2M entries: 42 → 25 MB at the match's peak)
    pairs = np.flatnonzero(both[1:] == both[:-1])
    del both
    first, second = order[pairs], order[pairs + 1]
    del order
    if ((first < q_keys.size) == (second < q_keys.size)).any() or (np.diff(pairs) == 1).any():
        raise _KeyCollision  # two equal keys of one set, or three equal keys (two of them of one set): a collision
    at, mine = np.minimum(first, second), candidates[np.maximum(first, second) - q_keys.size]
    del pairs, first, second, candidates

    def same(low: int) -> bool:
        """Whether the matched pairs of the block from ``low`` (of ``at``, ``mine``) are of one row and one id."""
        here, there = at[low:low + BLOCK], mine[low:low + BLOCK]
        return bool(((rows[there] == judged.rows[here]) & _equal(judged.documents, here, docs, there)).all())

    if not all(in_threads(same, range(0, at.size, BLOCK))):
        raise _KeyCollision
    found[mine] = at
    return found


def _equal(judged: DocumentIds | np.ndarray, at: np.ndarray, docs: DocumentIds | None, mine: np.ndarray
           ) -> np.ndarray | bool:
    """Whether the hashed keys matched equal ids (a hashed match is only of ids held as DocumentIds)."""
    assert isinstance(judged, DocumentIds) and docs is not None
    return judged.equal(at, docs, mine)


@dataclass(frozen=True)
class RankingRows:
    """Who sits where in a table: the retrieved documents, row by row in rank order (as
    ``np.nonzero(table.retrieved())`` lists them), and the judged relevant documents each row misses
    (``missing_rows``, ``missing_documents``, ``missing_grades``). Documents may be
    :class:`~workbench.ids.DocumentIds`, an object array of ``str`` or anything pandas takes as a column."""

    retrieved: Any
    missing_rows: np.ndarray
    missing_documents: Any
    missing_grades: np.ndarray


def seated(rows: np.ndarray, documents: DocumentIds | np.ndarray, judged: Judged, positions: np.ndarray, *,
           by_grade: bool = False) -> RankingRows:
    """Who sits where, from a match (``positions``, :func:`match`, of the ranked entries ``rows``, ``documents``,
    grouped by row): the documents row by row, and the judged relevant documents no entry matched, row by row in
    the judgements' order (``by_grade``: by grade, then by id, as an Organization lists them)."""
    if rows.size and (np.diff(rows) < 0).any():
        documents = _take(documents, np.argsort(rows, kind="stable"))
    hit = np.zeros(judged.grades.size + 1, dtype=bool)  # the last: the "no judgement" of position -1
    hit[positions] = True
    lacking = np.flatnonzero(~hit[:-1] & (judged.grades > 0))
    if by_grade and lacking.size:
        taken = _take(judged.documents, lacking)
        names = [str(name) for name in (taken.strings() if isinstance(taken, DocumentIds) else taken)]
        ordered = sorted(range(lacking.size), key=lambda i: (int(judged.rows[lacking[i]]),
                                                              -float(judged.grades[lacking[i]]), natural_key(names[i])))
        lacking = lacking[np.array(ordered, dtype=np.int64)]
    else:
        lacking = lacking[np.argsort(judged.rows[lacking], kind="stable")]
    return RankingRows(documents, judged.rows[lacking].astype(np.int64), _take(judged.documents, lacking),
                       judged.grades[lacking].astype(float))


def _take(documents: DocumentIds | np.ndarray, positions: np.ndarray) -> DocumentIds | np.ndarray:
    return documents.take(positions) if isinstance(documents, DocumentIds) else documents[positions]
