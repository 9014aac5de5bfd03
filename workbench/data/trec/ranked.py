"""Judgements and runs held as arrays, rankings in trec_eval's order: what every TREC file, DataFrame, dict and
record becomes before a :class:`~workbench.data.campaign.Campaign` scores it.

:class:`Judgements` (topic → graded gold) and :class:`RankedRun` (topic → ranking) are read-only mappings topic →
:class:`~workbench.model.Organization` whose Organizations are built only when one is asked for; ranking
measures read the arrays (:mod:`workbench.data.trec.join`), so that a run of 2,000 topics × 1,000 documents is
never turned into Python objects per document: ids are :class:`~workbench.ids.DocumentIds` (slices of one byte
buffer; ranked, deduplicated and joined by their bytes and stable hashes), whose strings are built when asked
for (``documents(topic)``)::

    >>> import numpy as np
    >>> runs = rank_runs(["s", "s", "s"], ["q", "q", "q"], ["a", "b", "c"], np.array([1.0, 2.0, 1.0]))
    >>> runs["s"].documents("q")
    ['b', 'c', 'a']
    >>> runs["s"]["q"] == Organization.from_ranking(["b", "c", "a"])
    True

A document given twice for one topic (of one system) is refused as trec_eval refuses it, when the topic is
used (trec_eval checks the topics it evaluates only): reading keeps the error and raises it, located, when the
topic's ranking or judgements are read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.data.trec.errors import DuplicateEntryError
from workbench.data.trec.lines import Labels
from workbench.errors import CampaignError, WorkbenchError, WorkbenchWarning, quoted, warn
from workbench.heap import release_freed
from workbench.ids import DocumentIds
from workbench.metrics.ranking.matching import BLOCK, keys
from workbench.metrics.ranking.table import SCORE_PRECISION, trec_eval_order
from workbench.model import Organization
from workbench.sorting import sorted_keys
from workbench.threads import in_threads, threads
from workbench.validation import (
    AnyOf,
    Choices,
    Domain,
    Flag,
    Function,
    Instance,
    Interval,
    ListOf,
    MappingOf,
    Numbers,
    Text,
    validate,
)

__all__ = ["RANKED_BLOCK", "TIES", "SCORE_PRECISION", "MAX_DOCS", "COSTS", "Identifier", "ID", "TOPIC", "Ids",
           "id_texts", "check_alike", "check_given_ids", "labels", "document_ids", "keys", "first_duplicate",
           "Judgements", "judgements", "SubtopicJudgements", "subtopic_judgements", "RankedRun", "rank_runs"]

RANKED_BLOCK = 1 << 18
"""Entries ranked at once when a run's topics come one after the other (:func:`_order_by_blocks`)."""
TIES = Choices(("trec_eval", "levels"))
"""How a run's equal scores rank (``ties=``): one document per level, in trec_eval's order, or documents of equal
scores (at ``score_precision``) on one level."""
MAX_DOCS = Interval(0, 2**63 - 1, integer=True, optional=True)
"""How many documents of each topic are ranked (``max_docs=``, trec_eval's ``-M``, a C ``long``); None: all."""
COSTS = MappingOf(Text(), Interval(0, low_open=True), optional=True,
                  what="a mapping element type → its cost (read_cwl_costs)")
"""The domain of a run's ``costs=``: cwl_eval's cost of each element type, above 0; None: every document costs 1."""


# ------------------------------------------------------------------------------------------------ ids
@dataclass(frozen=True)
class Identifier(Domain):
    """A topic or system id: a string, or an integer (read as its text where ids are read as text); never a float
    or a boolean, which equal an integer as a dict key (``1.0 == 1 == True``). None when ``optional``.

    >>> Identifier().reason(1.0)
    'must be an id (a string or an integer)'
    """

    optional: bool = False
    what: str = "an id"

    def __str__(self) -> str:
        return f"{self.what} (a string or an integer)" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional or isinstance(value, str):
            return None
        whole = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
        return None if whole else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return True

    def outside(self) -> tuple:
        return (1.5, True) + (() if self.optional else (None,))


ID = Identifier()
"""The domain of a topic or system id a campaign is asked about."""
TOPIC = Text(empty=True)
"""The domain of a topic of read judgements or runs (their topics are strings)."""


@dataclass(frozen=True)
class Ids:
    """Ids by their text (``texts``: any container of the texts) and the texts of those given as integers."""

    texts: Container[str]
    integers: frozenset[str] = frozenset()

    def __contains__(self, text: object) -> bool:
        return text in self.texts


def id_texts(what: str, ids: Iterable[object], owner: str = "") -> Ids:
    """The one rule for topic and system ids, wherever they are given: strings, or integers read as their text
    (``301`` is the topic ``"301"``); an id of any other type (a float or a boolean, equal to an integer as a dict
    key), an integer too long to write, and two ids written alike but of different types (``1`` and ``"1"``, which
    would print as one) are refused with a :class:`~workbench.errors.CampaignError` naming them (``what``: the kind
    of id, ``owner``: whose ids they are).

    >>> sorted(id_texts("topic", ["q1", 2, "q1"]).integers)
    ['2']
    >>> id_texts("topic", [1, "1"], "system 'bm25'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.errors.CampaignError: system 'bm25': topics 1 and '1' are both written 1: give ids of one type, ...
    """
    prefix = f"{owner}: " if owner else ""
    texts: dict[str, object] = {}
    for key in ids:
        if ID.reason(key) is not None:
            raise CampaignError(f"{prefix}{what} {quoted(key)} is a {type(key).__name__}: ids are strings or "
                                f"integers (write e.g. {quoted(str(key))})")
        try:
            text = key if type(key) is str else str(key)
        except ValueError:  # past Python's limit on writing an integer
            raise CampaignError(f"{prefix}{what} {quoted(key)} is too long to be written as an id") from None
        earlier = texts.setdefault(text, key)
        if earlier is not key and isinstance(earlier, str) != isinstance(key, str):
            raise CampaignError(f"{prefix}{what}s {earlier!r} and {key!r} are both written {text}: give ids of one "
                                "type, e.g. str(id)")
    return Ids(texts, frozenset(text for text, key in texts.items() if not isinstance(key, str)))


def check_alike(what: str, mine: Ids, theirs: Ids, owner: str, against: str = "the gold") -> None:
    """Refuse an id ``mine`` has of one type where ``theirs`` has it of the other (``1`` against ``"1"``), naming
    both, as :func:`id_texts` refuses them in one input."""
    for text in sorted(mine.integers ^ theirs.integers):
        if text in mine and text in theirs:
            given, other = (int(text), text) if text in mine.integers else (text, int(text))
            raise CampaignError(f"{owner} names {what} {given!r} ({type(given).__name__}) where {against} has "
                                f"{other!r} ({type(other).__name__}): give the {what}s of both as one type, e.g. "
                                f"str({what})")


def check_given_ids(gold: Judgements, runs: Mapping[str, RankedRun]) -> None:
    """Judgements and runs read from what users hold (dicts, records, DataFrames: ids given as strings or integers,
    both read as their text) that give one topic as an integer in one and as a string in another: refused
    (:func:`check_alike`) rather than matched silently."""
    judged = Ids(gold.index, gold.integers)
    for system, run in runs.items():
        check_alike("topic", Ids(run.index, run.integers), judged, f"system {system!r}")


Locate = Callable[[DuplicateEntryError], WorkbenchError]
"""Turns a duplicate's entry positions into the reader's own error (a file's lines, a frame's rows)."""
Documents = DocumentIds | np.ndarray | Sequence[object]
"""Document ids as :func:`document_ids` takes them: DocumentIds, or strings, bytes or values read as their text."""
IDS = AnyOf(Instance((Labels,), "Labels"), ListOf(), what="ids (Labels, or a list or array of strings or integers)")
"""The domain of the topics (systems, subtopics) of parallel arrays, one per entry."""
DOCUMENTS = AnyOf(Instance((DocumentIds,), "DocumentIds"), ListOf(),
                  what="document ids (DocumentIds, or a list or array of them)")
VALUES = Instance((np.ndarray, list, tuple), "an array of numbers (one per entry; checked where they are read)")


def labels(values: Labels | Sequence | np.ndarray, what: str = "id") -> Labels:
    """``values`` as :class:`~workbench.data.trec.lines.Labels`: integer codes numbered in order of first
    appearance, and the distinct values as strings (ids as :func:`id_texts` reads them: integers as their text).

    >>> labels(["q2", "q1", "q2"])
    Labels(codes=array([0, 1, 0]), names=('q2', 'q1'), integers=frozenset())
    """
    if isinstance(values, Labels):
        return values
    array = np.asarray(values, dtype=object).ravel()
    integers: frozenset[str] = frozenset()
    if array.size and not all(type(value) is str for value in array.tolist()):
        integers = id_texts(what, array.tolist()).integers
        array = np.array([value if type(value) is str else str(value) for value in array.tolist()], dtype=object)
    distinct_texts, first, inverse = np.unique(array.astype(str), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return Labels(rank[inverse.ravel()], tuple(str(name) for name in distinct_texts[order].tolist()), integers)


def document_ids(documents: Documents) -> DocumentIds:
    """``documents`` as :class:`~workbench.ids.DocumentIds`: strings (or bytes) kept as given, other values
    read as their text (``str()``, as the frame readers read ids).

    >>> document_ids([7, "d1"]).strings().tolist()
    ['7', 'd1']
    """
    if isinstance(documents, DocumentIds):
        return documents
    values = np.asarray(documents, dtype=object).ravel()
    if not all(isinstance(value, str | bytes) for value in values.tolist()):
        values = np.array([value if isinstance(value, str | bytes) else str(value) for value in values.tolist()],
                          dtype=object)
    return DocumentIds.from_strings(values)


def first_duplicate(groups: np.ndarray, ids: DocumentIds,
                    positions: np.ndarray | None = None) -> tuple[int, int] | None:
    """Among the entries at ``positions`` (ascending; None: every entry), the first whose (group, document)
    came before, and that earlier entry; None when there is none. The common case, no repeat, is one sort of
    integer keys (:meth:`~workbench.ids.DocumentIds.hashes`); keys that repeat are settled on the ids."""
    n_groups = int(np.max(groups, initial=0)) + 1
    kept = groups if positions is None else groups[positions]
    ordered = sorted_keys(keys(kept, ids if positions is None else ids.hashes()[positions], n_groups), kept)
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    del ordered
    positions = np.arange(len(ids)) if positions is None else positions
    codes = ids.take(positions).codes()
    exact = np.asarray(groups)[positions].astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    order = np.argsort(exact, kind="stable")
    same = np.flatnonzero(exact[order][1:] == exact[order][:-1])
    if not same.size:
        return None
    again = order[same + 1]  # each repeat, after an equal entry that comes earlier in the input
    later = int(again[np.argmin(again)])
    first = int(np.flatnonzero(exact == exact[later])[0])
    return int(positions[first]), int(positions[later])


# ------------------------------------------------------------------------------------------ topic arrays
_SOME_TOPICS = ListOf(what="a collection of topics")
"""The topics a mapping is cut to (:meth:`RankedRun.restricted`)."""


class _TopicArrays(Mapping[str, Organization]):
    """Entries grouped by topic (topic ``i`` holds entries ``offsets[i]:offsets[i + 1]`` of ``ids``), read as a
    mapping topic → Organization built on first access by ``_build``; a topic whose entries repeat a document
    raises its error (``refused``) when it is read. ``integers``: the topics given as integers (read as their
    text; :class:`~workbench.data.trec.lines.Labels`)."""

    kind = "topic arrays"

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds,
                 refused: Mapping[str, WorkbenchError] | None = None, integers: frozenset[str] = frozenset()) -> None:
        self.topics, self.offsets, self.ids = tuple(topics), offsets, ids
        self.refused, self.integers = dict(refused or {}), integers
        self.index = {topic: i for i, topic in enumerate(self.topics)}
        self._built: dict[str, Organization] = {}

    def span(self, topic: str) -> slice:
        """The topic's entries (raises the topic's duplicate error, if any, and a
        :class:`~workbench.errors.CampaignError` naming a topic it lacks)."""
        if topic in self.refused:
            raise self.refused[topic]
        i = self.index.get(topic)
        if i is None:
            more = f" and {len(self.topics) - 10} more" if len(self.topics) > 10 else ""
            raise CampaignError(f"no topic {quoted(topic)} in the {self.kind}; its topics: "
                                f"{', '.join(map(quoted, self.topics[:10])) or 'none'}{more}")
        return slice(self.offsets[i], self.offsets[i + 1])

    @validate(topics=_SOME_TOPICS)
    def restricted(self, topics: Collection[str]) -> Any:
        """The same, for those of ``topics`` this holds only (in this order), on arrays of their own: what a chunk
        of a distributed campaign carries (:mod:`workbench.data.distributed`), rather than every topic's. Topics
        that follow one another here (a chunk of topics in the order they were read) are cut as one slice."""
        kept = sorted({self.index[topic] for topic in topics if topic in self.index})
        names = [self.topics[i] for i in kept]
        entries: np.ndarray | slice
        if kept and kept[-1] - kept[0] + 1 == len(kept):
            entries = slice(int(self.offsets[kept[0]]), int(self.offsets[kept[-1] + 1]))
            offsets = self.offsets[kept[0]:kept[-1] + 2] - self.offsets[kept[0]]
        else:
            sizes = np.diff(self.offsets)[kept]
            entries = np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in kept]) if kept \
                else np.zeros(0, dtype=np.int64)
            offsets = np.concatenate(([0], np.cumsum(sizes))).astype(self.offsets.dtype)
        return self._taken(names, offsets, self.ids.take(entries).compacted(), entries,
                           {topic: self.refused[topic] for topic in names if topic in self.refused},
                           self.integers.intersection(names))

    def _taken(self, topics: list[str], offsets: np.ndarray, ids: DocumentIds, entries: np.ndarray | slice,
               refused: dict[str, WorkbenchError], integers: frozenset[str]) -> Any:
        """A mapping of this kind over ``topics`` holding this one's ``entries`` (:meth:`restricted`), each
        array's through :func:`_entries`."""
        raise NotImplementedError

    def _build(self, topic: str) -> Organization:
        raise NotImplementedError

    def __getitem__(self, topic: str) -> Organization:
        if topic not in self.index:  # a mapping's missing key: a KeyError, as ``get`` and ``in`` expect
            raise KeyError(topic)
        if topic not in self._built:
            self._built[topic] = self._build(topic)
        return self._built[topic]

    def __contains__(self, topic: object) -> bool:
        return topic in self.index

    def __iter__(self) -> Iterator[str]:
        return iter(self.topics)

    def __len__(self) -> int:
        return len(self.topics)


def _entries(array: np.ndarray, entries: np.ndarray | slice) -> np.ndarray:
    """``array``'s ``entries`` (positions, or one slice) in an array of their own."""
    return array[entries].copy() if isinstance(entries, slice) else array[entries]


def _grouped(codes: np.ndarray, n: int, order: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, offsets)``: the entries grouped by code (stably), and where each code's entries start."""
    order = np.argsort(codes, kind="stable") if order is None else order
    counts = np.bincount(codes, minlength=n)
    return order, np.concatenate(([0], np.cumsum(counts)))


# ------------------------------------------------------------------------------------------ judgements
class Judgements(_TopicArrays):
    """Graded judgements per topic held as arrays (``topic, document, grade``; negative and zero grades kept,
    input order kept inside a topic): ``ids`` (:class:`~workbench.ids.DocumentIds`), ``grades``.
    ``judgements[topic]`` is :meth:`Organization.from_graded` of the topic's grades, built on first access. Build
    with :func:`judgements`."""

    kind = "judgements"

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds, grades: np.ndarray,
                 refused: Mapping[str, WorkbenchError] | None = None, integers: frozenset[str] = frozenset()) -> None:
        super().__init__(topics, offsets, ids, refused, integers)
        self.grades = grades

    @validate(topic=TOPIC)
    def grades_of(self, topic: str) -> dict[str, float]:
        """``{document: grade}`` of one topic, every judgement included."""
        span = self.span(topic)
        return dict(zip(self.ids.take(np.arange(span.start, span.stop)).strings().tolist(),
                        self.grades[span].tolist(), strict=True))

    def _taken(self, topics: list[str], offsets: np.ndarray, ids: DocumentIds, entries: np.ndarray | slice,
               refused: dict[str, WorkbenchError], integers: frozenset[str]) -> Judgements:
        return Judgements(topics, offsets, ids, _entries(self.grades, entries), refused, integers)

    def _build(self, topic: str) -> Organization:
        return Organization.from_graded(self.grades_of(topic))

    def __repr__(self) -> str:
        return f"<Judgements: {len(self.topics)} topics, {len(self.ids)} judgements>"


@validate(topics=IDS, documents=DOCUMENTS, grades=VALUES, locate=Function(optional=True), unique=Flag())
def judgements(topics: Labels | Sequence, documents: Documents, grades: np.ndarray, locate: Locate | None = None, *,
               unique: bool = False) -> Judgements:
    """:class:`Judgements` from parallel arrays (``topics`` as :func:`labels` reads them, ``documents`` as
    :func:`document_ids`, grades already checked to be numbers). A topic that judges a document twice is
    refused when read: :class:`DuplicateEntryError` (positions in the input), or what ``locate`` makes of it;
    ``unique``: the caller knows no topic repeats a document (each topic's documents are one dict's keys), so
    none is searched for."""
    ids, topic_labels = document_ids(documents), labels(topics, "topic")
    codes, names = topic_labels.codes, topic_labels.names
    refused: dict[str, WorkbenchError] = {}
    positions = None
    while not unique:  # one error per topic whose judgements repeat a document (rare: a loop over such topics)
        repeat = first_duplicate(codes, ids, positions)
        if repeat is None:
            break
        first, again = repeat
        topic = names[codes[again]]
        error = DuplicateEntryError(ids[again], topic, None, first, again)
        refused[topic] = locate(error) if locate else error
        positions = np.flatnonzero(~np.isin(codes, [names.index(t) for t in refused]))
    order, offsets = _grouped(codes, len(names))
    return Judgements(names, offsets, ids.take(order), np.asarray(grades, dtype=float)[order], refused,
                      topic_labels.integers)


class SubtopicJudgements(Judgements):
    """Judgements per subtopic (diversity qrels, ``topic subtopic document grade``): as :class:`Judgements`, each
    document with its highest grade over the subtopics (what the ranking measures read), and every judgement
    kept: ``entry_topic`` (index into ``topics``), ``entry_document`` (the document's position in ``ids``),
    ``entry_subtopic`` (index into the topic's ``subtopics[topic]``, in natural order) and ``entry_grade``.
    ``judgements[topic]`` is one level per grade, a cluster per subtopic holding the documents it gives that grade
    (so that the diversity measures of an Organization read the same subtopics)."""

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds, grades: np.ndarray,
                 subtopics: Mapping[str, tuple[str, ...]], entry_topic: np.ndarray, entry_document: np.ndarray,
                 entry_subtopic: np.ndarray, entry_grade: np.ndarray,
                 refused: Mapping[str, WorkbenchError] | None = None, integers: frozenset[str] = frozenset()) -> None:
        super().__init__(topics, offsets, ids, grades, refused, integers)
        self.subtopics = dict(subtopics)
        self.entry_topic, self.entry_document = entry_topic, entry_document
        self.entry_subtopic, self.entry_grade = entry_subtopic, entry_grade

    @validate(topic=TOPIC)
    def subtopic_grades(self, topic: str) -> dict[str, dict[str, float]]:
        """``{subtopic: {document: grade}}`` of one topic."""
        self.span(topic)
        mine = np.flatnonzero(self.entry_topic == self.index[topic])
        names = self.subtopics[topic]
        documents = self.ids.take(self.entry_document[mine]).strings().tolist()
        out: dict[str, dict[str, float]] = {name: {} for name in names}
        for doc, sub, grade in zip(documents, self.entry_subtopic[mine].tolist(), self.entry_grade[mine].tolist(),
                                   strict=True):
            out[names[sub]][doc] = grade
        return out

    @validate(topics=_SOME_TOPICS)
    def restricted(self, topics: Collection[str]) -> SubtopicJudgements:
        """These very judgements (every subtopic's entries point into one column of documents): a distributed
        campaign's chunks carry them whole."""
        return self

    def _build(self, topic: str) -> Organization:
        by_grade: dict[float, list[frozenset]] = {}
        for docs in self.subtopic_grades(topic).values():
            for grade in sorted({g for g in docs.values() if g > 0}, reverse=True):
                by_grade.setdefault(grade, []).append(frozenset(d for d, g in docs.items() if g == grade))
        order = sorted(by_grade, reverse=True)
        return Organization(tuple(tuple(by_grade[g]) for g in order), grades=tuple(order))

    def __repr__(self) -> str:
        return (f"<SubtopicJudgements: {len(self.topics)} topics, {len(self.ids)} documents, "
                f"{len(self.entry_grade)} judgements>")


@validate(topics=IDS, subtopics=IDS, documents=DOCUMENTS, grades=VALUES, locate=Function(optional=True))
def subtopic_judgements(topics: Labels | Sequence, subtopics: Labels | Sequence | np.ndarray, documents: Documents,
                        grades: np.ndarray, locate: Locate | None = None) -> SubtopicJudgements:
    """:class:`SubtopicJudgements` from parallel arrays (one entry per judgement line). A topic that judges a
    document twice for one subtopic is refused when read, as :func:`judgements` refuses a repeat."""
    from workbench.model import natural_key

    ids, topic_labels, sub_labels = document_ids(documents), labels(topics, "topic"), labels(subtopics, "subtopic")
    grades = np.asarray(grades, dtype=float)
    codes = ids.codes()
    pair = topic_labels.codes.astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    unique_pairs, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    triple = inverse * len(sub_labels.names) + sub_labels.codes
    refused: dict[str, WorkbenchError] = {}
    order = np.argsort(triple, kind="stable")
    again = order[1:][triple[order][1:] == triple[order][:-1]]
    for position in np.sort(again).tolist():  # each repeat, after an equal entry earlier in the input
        topic = topic_labels.names[topic_labels.codes[position]]
        if topic not in refused:
            earlier = int(np.flatnonzero(triple == triple[position])[0])
            error = DuplicateEntryError(ids[position], topic, None, earlier, position)
            refused[topic] = locate(error) if locate else error
    best = np.full(unique_pairs.size, -np.inf)
    np.maximum.at(best, inverse.ravel(), grades)
    pair_topic = topic_labels.codes[first]
    grouped, offsets = _grouped(pair_topic, len(topic_labels.names))
    position_of_pair = np.empty(unique_pairs.size, dtype=np.int64)
    position_of_pair[grouped] = np.arange(unique_pairs.size)
    local: dict[str, tuple[str, ...]] = {}
    entry_subtopic = np.zeros(len(ids), dtype=np.int64)
    for t, topic in enumerate(topic_labels.names):
        mine = topic_labels.codes == t
        names = sorted({sub_labels.names[c] for c in np.unique(sub_labels.codes[mine]).tolist()}, key=natural_key)
        local[topic] = tuple(names)
        lookup = np.full(len(sub_labels.names), -1, dtype=np.int64)
        lookup[[sub_labels.names.index(n) for n in names]] = np.arange(len(names))
        entry_subtopic[mine] = lookup[sub_labels.codes[mine]]
    return SubtopicJudgements(topic_labels.names, offsets, ids.take(first[grouped]), best[grouped], local,
                              topic_labels.codes, position_of_pair[inverse.ravel()], entry_subtopic, grades, refused,
                              topic_labels.integers)


# ------------------------------------------------------------------------------------------------ runs
class RankedRun(_TopicArrays):
    """One system's ranking per topic held as arrays in trec_eval's order (:func:`rank_runs`):
    ``documents(topic)``, ``scores(topic)`` (and ``ids``, ``scores_array`` for every topic); ``run[topic]`` is
    the ranking as an Organization, built on first access (one document per level; with ``ties="levels"``,
    documents whose scores are equal at ``score_precision`` share a level). ``costs_array``: each entry's cost of
    reading (cwl_eval's cost of its element type; NaN: a type without one), or None: every document costs 1."""

    kind = "run"

    def __init__(self, topics: Sequence[str], offsets: np.ndarray, ids: DocumentIds, scores: np.ndarray,
                 ties: str = "trec_eval", score_precision: str = "float64",
                 refused: Mapping[str, WorkbenchError] | None = None, integers: frozenset[str] = frozenset(),
                 costs: np.ndarray | None = None) -> None:
        super().__init__(topics, offsets, ids, refused, integers)
        self.scores_array = scores
        self.costs_array = costs
        self.ties, self.score_precision = ties, score_precision

    @validate(topic=TOPIC)
    def documents(self, topic: str) -> list[str]:
        """The topic's documents in rank order."""
        span = self.span(topic)
        return self.ids.take(np.arange(span.start, span.stop)).strings().tolist()

    @validate(topic=TOPIC)
    def scores(self, topic: str) -> np.ndarray:
        """The topic's scores (as read, full precision) in rank order."""
        return self.scores_array[self.span(topic)]

    def _taken(self, topics: list[str], offsets: np.ndarray, ids: DocumentIds, entries: np.ndarray | slice,
               refused: dict[str, WorkbenchError], integers: frozenset[str]) -> RankedRun:
        return RankedRun(topics, offsets, ids, _entries(self.scores_array, entries), self.ties, self.score_precision,
                         refused, integers,
                         None if self.costs_array is None else _entries(self.costs_array, entries))

    def _build(self, topic: str) -> Organization:
        docs = self.documents(topic)
        if self.ties == "trec_eval":
            return Organization.from_ranking(docs)
        with np.errstate(over="ignore"):  # beyond 3.4e38 a float32 is inf, as in trec_eval 9.x
            scores = self.scores(topic).astype(self.score_precision)
        bounds = np.flatnonzero(scores[1:] != scores[:-1]) + 1
        levels = np.split(np.arange(len(docs)), bounds) if docs else []
        return Organization(tuple(tuple(frozenset([docs[i]]) for i in level) for level in levels))

    def __repr__(self) -> str:
        return f"<RankedRun: {len(self.topics)} topics, {len(self.ids)} documents>"


@validate(systems=AnyOf(Instance((Labels,), "Labels", optional=True), ListOf(), what="systems (Labels, or a list or "
                        "array of strings or integers) or None"),
          topics=IDS, documents=DOCUMENTS, scores=VALUES, ties=TIES, score_precision=SCORE_PRECISION,
          max_docs=MAX_DOCS, locate=Function(optional=True), unique=Flag(),
          costs=Numbers(finite=False, like="scores", optional=True), in_place=Flag())
def rank_runs(systems: Labels | Sequence | None, topics: Labels | Sequence, documents: Documents,
              scores: np.ndarray, *, ties: str = "trec_eval", score_precision: str = "float64",
              max_docs: int | None = None, locate: Locate | None = None, unique: bool = False,
              costs: np.ndarray | None = None, in_place: bool = False) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` from parallel arrays, one entry per retrieved document (``systems`` and
    ``topics`` as :func:`labels` reads them; ``systems=None``: one system named ``""``, holding every topic of
    ``topics``, an empty ranking for a topic without entries; ``documents`` as
    :func:`document_ids`), as trec_eval ranks them (``form_res_rels.c``): each topic ordered by
    :func:`~workbench.metrics.ranking.table.trec_eval_order`, cut to its first ``max_docs`` (``-M``); a
    document given twice among those makes the topic refused when read (:class:`DuplicateEntryError`, or what
    ``locate`` makes of it), as trec_eval stops on it; repeats beyond the cut are dropped with the rest, with a
    :class:`~workbench.errors.WorkbenchWarning`; ``unique``: the caller knows no (system, topic) repeats a
    document (dict keys), so none is searched for; ``costs``: each entry's cost of reading, kept in rank order
    (:attr:`RankedRun.costs_array`). Systems and topics keep their order of first appearance. ``in_place``: the
    caller gives ``documents`` (:class:`~workbench.ids.DocumentIds`) and ``scores`` (float64) up, to be put in
    rank order themselves, a block of whole topics at a time, where ``unique`` and the groups come one after the
    other (dicts' entries: 2M of them, 40 MB less at the peak: no ranked copy, no positions of every entry)."""
    ids = document_ids(documents)
    given = scores
    scores = np.asarray(scores, dtype=float)
    topic_labels = labels(topics, "topic")
    system_labels = None if systems is None else labels(systems, "system")
    system_names = ("",) if system_labels is None else system_labels.names
    n_topics, n_systems = max(len(topic_labels.names), 1), len(system_names)
    group = topic_labels.codes if system_labels is None or n_systems == 1 else \
        system_labels.codes.astype(np.int64) * n_topics + topic_labels.codes  # (system, topic), system-major
    ascending = not (group[1:] < group[:-1]).any()  # each group's entries one after the other, in order
    in_place = in_place and unique and ascending and costs is None and scores is given and \
        scores.flags.writeable and ids is documents and ids.reorderable
    ordered = _order_by_blocks(scores, ids, group, score_precision, ascending, in_place)
    # held to the end: int32 positions, half the memory (8 MB for 2M entries); None: in rank order already
    order = None if ordered is None else ordered.astype(np.int32, copy=False) if ordered.size < 2**31 else ordered
    del ordered
    sizes = _group_sizes(group, n_systems * n_topics, ascending)
    kept_sizes = sizes
    if max_docs is not None:
        if order is None:  # in place: the groups are in rank order as given
            order = np.arange(len(ids), dtype=np.int32 if len(ids) < 2**31 else np.int64)
        ranked_group = group[order]
        kept = np.arange(len(order)) - (np.cumsum(sizes) - sizes)[ranked_group] < max_docs
        if not kept.all():
            if not unique:
                _warn_dropped_repeats(group, ids, order[~kept], max_docs, topic_labels.names, n_topics)
            order = order[kept]
            kept_sizes = np.bincount(ranked_group[kept], minlength=n_systems * n_topics)
        del ranked_group, kept
    release_freed(len(ids))  # the sort's keys: their pages go back before the ids are copied in rank order
    # hashed in rank order (faster, and no second array of hashes): the join reads them
    ranked_ids = ids if order is None else ids.take(order)
    refused: dict[tuple[str, str], WorkbenchError] = {}
    if not unique and order is not None and _repeats_in_rank_order(group, order, ranked_ids, kept_sizes):
        refused = _refused_pairs(group, ids, None if max_docs is None or len(order) == len(ids) else np.sort(order),
                                 topic_labels.names, system_names, n_topics, locate, systems is not None)
    kept_sizes = kept_sizes.reshape(n_systems, n_topics)
    present = sizes.reshape(n_systems, n_topics) > 0
    if systems is None:  # one run: every topic named, even one without documents (an empty ranking)
        present[:] = len(topic_labels.names) > 0
    begins = np.concatenate(([0], np.cumsum(kept_sizes.sum(axis=1))))
    runs: dict[str, RankedRun] = {}
    for code, system in enumerate(system_names):
        topics_here = np.flatnonzero(present[code])  # the system's topics, in order of first appearance
        positions = slice(begins[code], begins[code + 1]) if order is None else order[begins[code]:begins[code + 1]]
        offsets = np.concatenate(([0], np.cumsum(kept_sizes[code, topics_here])))
        mine = ranked_ids if n_systems == 1 else ranked_ids.take(np.arange(begins[code], begins[code + 1]))
        runs[system] = RankedRun([topic_labels.names[t] for t in topics_here], offsets, mine,
                                 scores[positions], ties, score_precision,
                                 {topic: error for (s, topic), error in refused.items() if s == system},
                                 topic_labels.integers, None if costs is None else np.asarray(costs)[positions])
    release_freed(len(ids))  # the ranking's temporaries
    return runs


def _order_by_blocks(scores: np.ndarray, ids: DocumentIds, group: np.ndarray, score_precision: str,
                     ascending: bool | None = None, in_place: bool = False) -> np.ndarray | None:
    """:func:`~workbench.metrics.ranking.table.trec_eval_order` of the entries by ``group``: where the groups come
    one after the other (``ascending``, found when None: codes ascending, as a dict's topics and most files' do),
    blocks of whole groups of about :data:`RANKED_BLOCK` entries each sorted alone, into int32 positions, the blocks
    shared among :func:`~workbench.threads.threads` threads (2M entries: the sort's key and int64 positions made for
    a block at a time, not for all, 40 → 12 MB of the sort's arrays; each sort nearer the cache, 81 → 68 CPU-ms);
    otherwise all at once. ``in_place`` (``ascending``): ``scores`` and ``ids`` themselves put in that order, block
    by block, and None returned."""
    if ascending is None:
        ascending = not (group[1:] < group[:-1]).any()
    if group.size <= RANKED_BLOCK or not ascending:
        whole = trec_eval_order(scores, ids, groups=group, score_precision=score_precision)
        if not in_place:
            return whole
        _put_in_order(scores, ids, 0, whole)
        return None
    starts = np.flatnonzero(group[1:] != group[:-1]) + 1  # where each group but the first begins
    cuts = _sorted_distinct(starts[np.minimum(np.searchsorted(starts, np.arange(RANKED_BLOCK, group.size,
                                                                                RANKED_BLOCK)), starts.size - 1)]
                            ) if starts.size else starts
    order = None if in_place else np.empty(group.size, dtype=np.int32 if group.size < 2**31 else np.int64)

    def sort(bounds: tuple[int, int]) -> None:
        low, high = bounds
        block = trec_eval_order(scores[low:high], ids.take(slice(low, high)), groups=group[low:high],
                                score_precision=score_precision)
        if order is None:
            _put_in_order(scores, ids, low, block)
        else:
            np.add(block, low, out=order[low:high], casting="unsafe")

    in_threads(sort, zip([0, *cuts.tolist()], [*cuts.tolist(), group.size], strict=True))
    return order


def _put_in_order(scores: np.ndarray, ids: DocumentIds, low: int, order: np.ndarray) -> None:
    """The entries from ``low`` on (``order.size`` of them) put in the order ``order`` (positions among them), in
    place."""
    part = slice(low, low + order.size)
    scores[part] = scores[part][order]
    ids.put_in_order(low, order)


def _repeats_in_rank_order(group: np.ndarray, order: np.ndarray, ranked: DocumentIds, sizes: np.ndarray) -> bool:
    """Whether a (group, document) repeats among the ranked entries (``ranked``, the ids at ``order``; ``sizes``:
    each group's entries, the groups in rank order one after the other): the keys of whole groups sorted about
    :data:`~workbench.metrics.ranking.matching.BLOCK` entries at a time (a repeat lies within its group), so that
    no key of every entry is held (2M entries: 16 MB). Keys that repeat may be a hash collision: the caller settles
    them on the ids (:func:`first_duplicate`). The blocks are shared among :func:`~workbench.threads.threads`
    threads, each taking a run of them in order (2M entries, hashed: 19 → 11 ms on two cores)."""
    n_groups = int(np.max(group, initial=0)) + 1
    hashes, ends = ranked.hashes(), np.cumsum(sizes.ravel())
    cuts = ends[np.minimum(np.searchsorted(ends, np.arange(BLOCK, len(order), BLOCK)), ends.size - 1)]
    cuts = _sorted_distinct(cuts)
    blocks = list(zip([0, *cuts.tolist()], [*cuts.tolist(), len(order)], strict=True))

    def repeats(bounds: list[tuple[int, int]]) -> bool:
        for low, high in bounds:
            groups = group[order[low:high]]
            block = sorted_keys(keys(groups, hashes[low:high], n_groups), groups)
            if (block[1:] == block[:-1]).any():
                return True
        return False

    count = threads()
    return any(in_threads(repeats, [blocks[len(blocks) * k // count:len(blocks) * (k + 1) // count]
                                    for k in range(count)]))


def _group_sizes(group: np.ndarray, n: int, ascending: bool | None = None) -> np.ndarray:
    """The entries of each of ``n`` group codes (int64), ``np.bincount``'s: from the stretches of equal codes where
    the codes never decrease (``ascending``, found when None: a file's topics one after the other; 2M entries of
    2,000 topics 8 -> 2 ms), else counted.

        >>> _group_sizes(np.array([0, 0, 2, 2, 2]), 4).tolist(), _group_sizes(np.array([1, 0, 1]), 2).tolist()
        ([2, 0, 3, 0], [1, 2])
    """
    if ascending is None:
        ascending = not (group[1:] < group[:-1]).any()
    if not group.size or not ascending:
        return np.bincount(group, minlength=n)
    heads = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    sizes = np.zeros(max(n, int(group[-1]) + 1), dtype=np.int64)
    sizes[group[heads]] = np.diff(np.append(heads, group.size))
    return sizes


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a sorted array: ``np.unique``'s without its sort, nor its first call's import of
    ``numpy.ma`` (7 ms of the command line's serial time).

        >>> _sorted_distinct(np.array([1, 1, 4, 9, 9])).tolist()
        [1, 4, 9]
    """
    return values[np.concatenate(([True], values[1:] != values[:-1]))] if values.size else values


def _refused_pairs(group: np.ndarray, ids: DocumentIds, positions: np.ndarray | None, topic_names: Sequence[str],
                   system_names: Sequence[str], n_topics: int, locate: Locate | None,
                   named_systems: bool) -> dict[tuple[str, str], WorkbenchError]:
    """The duplicate error of every (system, topic) whose kept entries (``positions``, ascending; None: all)
    repeat a document."""
    refused: dict[tuple[str, str], WorkbenchError] = {}
    while positions is None or positions.size:
        repeat = first_duplicate(group, ids, positions)
        if repeat is None:
            break
        first, again = repeat
        g = group[again]
        system, topic = system_names[g // n_topics], topic_names[g % n_topics]
        error = DuplicateEntryError(ids[again], topic, system if named_systems else None, first, again)
        refused[system, topic] = locate(error) if locate else error
        positions = np.flatnonzero(group != g) if positions is None else positions[group[positions] != g]
    return refused


def _warn_dropped_repeats(group: np.ndarray, ids: DocumentIds, beyond: np.ndarray, max_docs: int,
                          topic_names: Sequence[str], n_topics: int) -> None:
    """A warning when documents given twice fall beyond the ``-M`` cut (trec_eval ignores them there)."""
    if not beyond.size:
        return
    everything = keys(group, ids, int(group.max(initial=0)) + 1)
    repeated = np.isin(everything[beyond], everything[np.setdiff1d(np.arange(len(ids)), beyond)]) | \
        _repeats_within(everything[beyond])
    if repeated.any():
        first = int(beyond[np.argmax(repeated)])
        warn(f"{int(repeated.sum())} entries repeat a document of their topic beyond the first "
             f"{max_docs} (e.g. {ids[first]!r} of topic {topic_names[group[first] % n_topics]!r}):"
             " cut with the rest, as trec_eval -M does", WorkbenchWarning)


def _repeats_within(values: np.ndarray) -> np.ndarray:
    """Whether each value occurs more than once in ``values``."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return counts[inverse.ravel()] > 1
