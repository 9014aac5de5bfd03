"""Judgements and runs held as arrays, rankings in trec_eval's order: the one path by which TREC files,
DataFrames, dicts and ir_datasets namedtuples become a :class:`~workbench.data.campaign.Campaign`.

:class:`Judgements` (topic → graded gold) and :class:`RankedRun` (topic → ranking) are read-only mappings
topic → :class:`~workbench.model.Organization` whose Organizations are built only when one is asked for;
ranking measures read the arrays (:func:`gain_table`), so that a run of 2,000 topics × 1,000 documents is
never turned into Python objects per document: ids are :class:`~workbench.ids.DocumentIds` (bytes in numpy
words; ranked, deduplicated and joined by their words and stable hashes), whose strings are built when asked
for (``documents(topic)``)::

    >>> import numpy as np
    >>> runs = rank_runs(np.array(["s", "s", "s"]), np.array(["q", "q", "q"]), np.array(["a", "b", "c"]),
    ...                  np.array([1.0, 2.0, 1.0]))
    >>> runs["s"].documents("q")
    ['b', 'c', 'a']
    >>> runs["s"]["q"] == Organization.from_ranking(["b", "c", "a"])
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat

import numpy as np
import pandas as pd

from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.ids import DocumentIds
from workbench.metrics.ranking import SCORE_PRECISIONS, GainTable, judgements_of, ranked_documents, trec_eval_order
from workbench.model import Organization

TIES = ("trec_eval", "levels")


class DuplicateEntryError(WorkbenchError):
    """A document given twice for one topic (of one system): ``first`` and ``again`` are the positions of
    the two entries in the input, which the readers turn into lines or rows."""

    def __init__(self, document: str, topic: str, system: str | None, first: int, again: int) -> None:
        self.document, self.topic, self.system, self.first, self.again = document, topic, system, first, again
        owner = f" of system {system!r}" if system is not None else ""
        super().__init__(f"document {document!r} of topic {topic!r}{owner} is given twice (entries {first} "
                         f"and {again}); trec_eval stops on duplicate documents")


def labels(values) -> tuple[np.ndarray, list[str]]:
    """Integer codes (int64) numbered in order of first appearance, and the distinct values as strings
    (``values``: an array, a list, or a Categorical whose few categories are factorised instead of its rows,
    as the TREC reader gives topics and systems).

    >>> codes, names = labels(["q2", "q1", "q2"])
    >>> codes.tolist(), names
    ([0, 1, 0], ['q2', 'q1'])
    """
    if isinstance(values, pd.Categorical):
        codes, used = pd.factorize(values.codes)
        return codes.astype(np.int64), [str(name) for name in values.categories[used]]
    codes, names = pd.factorize(np.asarray(values, dtype=object) if isinstance(values, list) else values)
    return codes.astype(np.int64), [str(name) for name in names]


def document_ids(documents) -> DocumentIds:
    """``documents`` as :class:`~workbench.ids.DocumentIds`: strings (or bytes) kept as given, other values
    read as their text (``str()``, as the frame readers read ids).

    >>> document_ids([7, "d1"]).strings().tolist()
    ['7', 'd1']
    """
    if isinstance(documents, DocumentIds):
        return documents
    values = np.asarray(documents, dtype=object)
    if pd.api.types.infer_dtype(values, skipna=False) not in ("string", "bytes", "empty"):
        values = values.astype(str).astype(object)
    return DocumentIds.from_strings(values)


def _keyed(groups: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """One uint64 key per (group, document hash): equal pairs give equal keys."""
    return hashes ^ (np.asarray(groups).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15))


def _distinct(keys: np.ndarray) -> bool:
    """Whether no key repeats: sorted neighbours differ (numpy's vectorised sort beats a hash table here).

    >>> _distinct(np.array([3, 1, 2])), _distinct(np.array([3, 1, 3]))
    (True, False)
    """
    keys = np.sort(keys)
    return not (keys[1:] == keys[:-1]).any()


def _slices(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the entries of the groups ``index`` (each group ``offsets[g]:offsets[g + 1]``), and for
    each the rank of its group in ``index``."""
    lengths = offsets[index + 1] - offsets[index]
    row = np.repeat(np.arange(len(index)), lengths)
    starts = np.cumsum(lengths) - lengths
    return offsets[index][row] + np.arange(len(row)) - starts[row], row


# ------------------------------------------------------------------------------------------ topic arrays
class _TopicArrays(Mapping[str, Organization]):
    """Entries grouped by topic (topic ``i`` holds entries ``offsets[i]:offsets[i + 1]`` of ``ids``, a
    :class:`~workbench.ids.DocumentIds`), read as a mapping topic → Organization built on first access by
    ``_build``; the ids' Python strings are built only when asked for."""

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds) -> None:
        self.topics, self.offsets, self.ids = tuple(topics), offsets, ids
        self._index = {topic: i for i, topic in enumerate(self.topics)}
        self._built: dict[str, Organization] = {}

    def _span(self, topic: str) -> slice:
        i = self._index[topic]
        return slice(self.offsets[i], self.offsets[i + 1])

    def _build(self, topic: str) -> Organization:
        raise NotImplementedError

    def __getitem__(self, topic: str) -> Organization:
        if topic not in self._built:
            self._built[topic] = self._build(topic)
        return self._built[topic]

    def __contains__(self, topic: object) -> bool:
        return topic in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)


# ------------------------------------------------------------------------------------------ judgements
class Judgements(_TopicArrays):
    """Graded judgements per topic held as arrays (``topic, document, grade``; negative and zero grades
    kept, file order kept inside a topic): ``ids`` (:class:`~workbench.ids.DocumentIds`), ``grades``, and
    ``documents`` as strings, built when first read. ``judgements[topic]`` is
    :meth:`Organization.from_graded` of the topic's grades, built on first access. Build with
    :func:`judgements`."""

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds, grades: np.ndarray) -> None:
        super().__init__(topics, offsets, ids)
        self.grades = grades

    @property
    def documents(self) -> np.ndarray:
        """Every judged document id (``str``), grouped by topic."""
        return self.ids.strings()

    def grades_of(self, topic: str) -> dict[str, float]:
        """``{document: grade}`` of one topic, every judgement included."""
        span = self._span(topic)
        return dict(zip(self.documents[span].tolist(), self.grades[span].tolist(), strict=True))

    def _build(self, topic: str) -> Organization:
        return Organization.from_graded(self.grades_of(topic))

    def __repr__(self) -> str:
        return f"<Judgements: {len(self.topics)} topics, {len(self.ids)} judgements>"


def judgements(topics, documents, grades: np.ndarray) -> Judgements:
    """:class:`Judgements` from parallel arrays (``topics`` as :func:`labels` reads them, ``documents`` as
    :func:`document_ids`, grades already checked to be numbers); a document judged twice for one topic
    raises :class:`DuplicateEntryError` (positions in the input)."""
    ids = document_ids(documents)
    topic_codes, names = labels(topics)
    repeat = _first_duplicate(topic_codes, ids)
    if repeat is not None:
        first, again = repeat
        raise DuplicateEntryError(ids[again], names[topic_codes[again]], None, first, again)
    order = np.argsort(topic_codes, kind="stable")
    counts = np.bincount(topic_codes, minlength=len(names))
    return Judgements(names, np.concatenate(([0], np.cumsum(counts))), ids.take(order),
                      np.asarray(grades, dtype=float)[order])


def _first_duplicate(groups: np.ndarray, ids: DocumentIds,
                     positions: np.ndarray | None = None) -> tuple[int, int] | None:
    """Among the entries at ``positions`` (ascending; None: every entry), the first whose (group, document)
    came before, and that earlier entry; None when there is none. The common case, no repeat, is one sort of
    integer keys (:meth:`~workbench.ids.DocumentIds.hashes`); keys that repeat are settled on the ids."""
    hashes = ids.hashes()
    if _distinct(_keyed(groups, hashes) if positions is None else _keyed(groups[positions], hashes[positions])):
        return None
    positions = np.arange(len(ids)) if positions is None else positions
    codes = ids.take(positions).codes()
    keys = groups[positions].astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    repeated = pd.Index(keys).duplicated()
    if not repeated.any():
        return None
    again = int(np.argmax(repeated))
    first = int(np.argmax(keys == keys[again]))
    return int(positions[first]), int(positions[again])


# ------------------------------------------------------------------------------------------------ runs
class RankedRun(_TopicArrays):
    """One system's ranking per topic held as arrays in trec_eval's order (:func:`rank_runs`):
    ``documents(topic)``, ``scores(topic)`` (and ``ids``, ``documents_array``, ``scores_array`` for every
    topic); ``run[topic]`` is the ranking as an Organization, built on first access (one document per level;
    with ``ties="levels"``, documents whose scores are equal at ``score_precision`` share a level)."""

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds, scores: np.ndarray,
                 ties: str = "trec_eval", score_precision: str = "float32") -> None:
        super().__init__(topics, offsets, ids)
        self.scores_array = scores
        self.ties, self.score_precision = ties, score_precision

    @property
    def documents_array(self) -> np.ndarray:
        """Every ranked document id (``str``), topic after topic in rank order."""
        return self.ids.strings()

    def documents(self, topic: str) -> list[str]:
        """The topic's documents in rank order."""
        return self.documents_array[self._span(topic)].tolist()

    def scores(self, topic: str) -> np.ndarray:
        """The topic's scores (as given, full precision) in rank order."""
        return self.scores_array[self._span(topic)]

    def _build(self, topic: str) -> Organization:
        docs = self.documents(topic)
        if self.ties == "trec_eval":
            return Organization.from_ranking(docs)
        with np.errstate(over="ignore"):  # beyond 3.4e38 a float32 is inf, as in trec_eval
            scores = self.scores(topic).astype(self.score_precision)
        bounds = np.flatnonzero(scores[1:] != scores[:-1]) + 1
        levels = np.split(np.arange(len(docs)), bounds) if docs else []
        return Organization(tuple(tuple(frozenset([docs[i]]) for i in level) for level in levels))

    def __repr__(self) -> str:
        return f"<RankedRun: {len(self.topics)} topics, {len(self.ids)} documents>"


def rank_runs(systems, topics, documents, scores: np.ndarray, *, ties: str = "trec_eval",
              score_precision: str = "float32", max_docs: int | None = None) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` from parallel arrays, one entry per retrieved document (``systems`` and
    ``topics`` as :func:`labels` reads them, ``documents`` as :func:`document_ids`), as trec_eval ranks
    them (form_res_rels.c): each topic ordered by :func:`~workbench.metrics.ranking.trec_eval_order`, cut
    to its first ``max_docs`` (``-M``), then a document given twice among those raises
    :class:`DuplicateEntryError`, as trec_eval stops on it; repeats beyond the cut are dropped with the
    rest, with a :class:`~workbench.errors.WorkbenchWarning`. Systems and topics keep their order of first
    appearance."""
    if ties not in TIES:
        raise WorkbenchError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")
    if score_precision not in SCORE_PRECISIONS:
        raise WorkbenchError(f"score_precision must be one of {', '.join(SCORE_PRECISIONS)}, "
                             f"got {score_precision!r}")
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, int | np.integer)
                                 or max_docs < 1):
        raise WorkbenchError(f"max_docs (trec_eval -M) must be an integer ≥ 1, got {max_docs!r}")
    ids = document_ids(documents)
    scores = np.asarray(scores, dtype=float)
    system_codes, system_names = labels(systems)
    topic_codes, topic_names = labels(topics)
    group, pairs = pd.factorize(system_codes * max(len(topic_names), 1) + topic_codes)
    group_system, group_topic = np.divmod(np.asarray(pairs, dtype=np.int64), max(len(topic_names), 1))
    order = trec_eval_order(scores, ids, groups=group, score_precision=score_precision)
    ranked_group = group[order]
    in_cut = None  # every entry, unless -M cuts some
    if max_docs is not None:
        sizes = np.bincount(group, minlength=len(pairs))
        kept = np.arange(len(order)) - (np.cumsum(sizes) - sizes)[ranked_group] < max_docs
        if not kept.all():
            in_cut = np.zeros(len(order), dtype=bool)
            in_cut[order[kept]] = True
    repeat = _first_duplicate(group, ids, None if in_cut is None else np.flatnonzero(in_cut))
    if repeat is not None:
        first, again = repeat
        raise DuplicateEntryError(ids[again], topic_names[topic_codes[again]], system_names[system_codes[again]],
                                  first, again)
    if in_cut is not None:
        _warn_dropped_repeats(group, ids, ~in_cut, max_docs, topic_names, group_topic)
        order, ranked_group = order[kept], ranked_group[kept]
    if len(system_names) > 1:
        by_system = np.argsort(group_system[ranked_group], kind="stable")
        order, ranked_group = order[by_system], ranked_group[by_system]
    kept_sizes = np.bincount(ranked_group, minlength=len(pairs))
    system_sizes = np.bincount(group_system, weights=kept_sizes, minlength=len(system_names)).astype(np.int64)
    begins = np.cumsum(system_sizes) - system_sizes
    runs: dict[str, RankedRun] = {}
    for code, system in enumerate(system_names):
        groups = np.flatnonzero(group_system == code)
        offsets = np.concatenate(([0], np.cumsum(kept_sizes[groups])))
        entries = order[begins[code]:begins[code] + offsets[-1]]
        runs[system] = RankedRun([topic_names[t] for t in group_topic[groups]], offsets, ids.take(entries),
                                 scores[entries], ties, score_precision)
    return runs


def _warn_dropped_repeats(group, ids: DocumentIds, beyond, max_docs, topic_names, group_topic) -> None:
    """A warning when documents given twice fall beyond the ``-M`` cut (trec_eval ignores them there)."""
    codes = ids.codes()
    keys = group.astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    repeated = pd.Index(keys).duplicated(keep=False) & beyond
    if repeated.any():
        first = int(np.argmax(repeated))
        warnings.warn(f"{int(repeated.sum())} entries repeat a document of their topic beyond the first "
                      f"{max_docs} (e.g. {ids[first]!r} of topic {topic_names[group_topic[group[first]]]!r}):"
                      " cut with the rest, as trec_eval -M does", WorkbenchWarning, stacklevel=4)


# ------------------------------------------------------------------------------------------ gain tables
def gain_table(gold: Mapping[str, Organization], run: Mapping[str, Organization],
               topics: Sequence[str]) -> GainTable:
    """One ranked gain table (a row per topic of ``topics``, each in both) shared by every ranking measure.

    Array-backed :class:`Judgements` and :class:`RankedRun` are joined as arrays; Organizations given by
    hand are read as :class:`~workbench.metrics.ranking.GainTable.from_organizations` reads them (ranked
    documents scored by :func:`~workbench.metrics.ranking.judgements_of`), so that both give the same values.
    """
    if isinstance(gold, Judgements) and isinstance(run, RankedRun):
        return _joined_table(gold, run, topics)
    return GainTable.from_judged_rankings(
        [(judgements_of(gold[topic]),
          run.documents(topic) if isinstance(run, RankedRun) else ranked_documents(run[topic])) for topic in topics],
        topics)


def _joined_table(gold: Judgements, run: RankedRun, topics: Sequence[str]) -> GainTable:
    """The gain table of ``topics``: each ranked document's grade found by its (row, id hash) key among the
    judgements' keys and checked on the ids (:meth:`~workbench.ids.DocumentIds.equal`); when keys collide,
    the ids' strings decide."""
    entries, rows = _slices(run.offsets, np.array([run._index[t] for t in topics], dtype=np.int64))
    judged, judged_rows = _slices(gold.offsets, np.array([gold._index[t] for t in topics], dtype=np.int64))
    grades = gold.grades[judged]
    index = pd.Index(_keyed(judged_rows, gold.ids.hashes()[judged]))
    if index.is_unique:
        at = index.get_indexer(_keyed(rows, run.ids.hashes()[entries]))
        hit = np.flatnonzero(at >= 0)
        if gold.ids.equal(judged[at[hit]], run.ids, entries[hit]).all():
            gains = np.full(len(entries), np.nan)
            gains[hit] = grades[at[hit]]
            return GainTable.from_entries(rows, gains, judged_rows, grades, topics)
    judged_docs = gold.documents[judged].tolist()
    known = {doc: code for code, doc in enumerate(dict.fromkeys(judged_docs))}
    judged_keys = judged_rows * len(known) + np.fromiter(map(known.__getitem__, judged_docs), np.int64,
                                                          len(judged_docs))
    run_docs = run.documents_array[entries].tolist()
    codes = np.fromiter(map(known.get, run_docs, repeat(-1)), np.int64, len(run_docs))
    keys = np.where(codes >= 0, rows * len(known) + codes, -1)
    sorter = np.argsort(judged_keys)
    at = np.minimum(np.searchsorted(judged_keys, keys, sorter=sorter), max(len(sorter) - 1, 0))
    if len(sorter):
        found = judged_keys[sorter[at]] == keys
        gains = np.where(found, grades[sorter[at]], np.nan)
    else:
        gains = np.full(len(keys), np.nan)
    return GainTable.from_entries(rows, gains, judged_rows, grades, topics)
