"""Judgements and runs from Python structures: pytrec_eval's dicts (``{query: {doc: value}}``) and ir_datasets'
records (``query_id, doc_id, relevance`` / ``score``), through the same arrays and the same trec_eval ranking as
TREC files (:mod:`workbench.data.trec.ranked`), without pandas::

    >>> evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.9}}, ["RR", "P@1"])
    {'RR': {'q': 0.5}, 'P@1': {'q': 0.0}}

Values are kept as given (a grade 2.5 stays 2.5: only files are read as trec_eval reads text); numbers may be
ints, floats, numpy numbers or numeric text, never booleans, NaN, nor an infinite grade; ids are strings, or
integers read as their text (``301`` is the topic ``"301"``); anything else is refused. Bad input raises
:class:`~workbench.data.trec.errors.FrameError` naming the query and document.

Dicts become arrays without a Python step per document where C can take it: a run's document ids are joined into
one string and encoded once (:meth:`~workbench.ids.DocumentIds.from_texts`), its values checked by their types
and converted by Arrow in one pass, and a topic's documents, the keys of one dict, are known to be distinct (no
search for repeats). Judgements are prepared once per qrels: :func:`judgements_from_dicts` gives a
:class:`~workbench.data.trec.ranked.Judgements` to hold and pass again (to :func:`evaluate_run`,
``Campaign.from_dicts``), and the same qrels dict given again, unchanged (equal content, values of the same
types), is not read again::

    >>> qrels = {"q": {"a": 1}}
    >>> judgements_from_dicts(qrels) is judgements_from_dicts(qrels)
    True
    >>> qrels["q"]["a"] = 0
    >>> judgements_from_dicts(qrels)["q"].format()  # changed: read again (grade 0, no relevant document)
    ''
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter, methodcaller, ne
from typing import Any, cast

import numpy as np

from workbench.data.scoring import MEASURES
from workbench.data.trec.errors import DuplicateEntryError, FrameError
from workbench.data.trec.join import gain_table
from workbench.data.trec.lines import Labels
from workbench.data.trec.ranked import (
    ID,
    MAX_DOCS,
    SCORE_PRECISION,
    TIES,
    Identifier,
    Judgements,
    RankedRun,
    check_given_ids,
    id_texts,
    judgements,
    rank_runs,
)
from workbench.errors import quoted
from workbench.ids import DocumentIds
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.registry import Measure
from workbench.threads import in_threads
from workbench.validation import DATAFRAME, AnyOf, Instance, MappingOf, validate

__all__ = ["QRELS", "RUN", "RUNS", "RECORDS", "RUNS_OF_RECORDS", "COLUMN", "SYSTEM_COLUMN", "FRAMES",
           "judgements_from_dicts", "judgements_from_records",
           "runs_from_dicts", "runs_from_records", "table_from_dicts", "evaluate_run", "RUN_BLOCK",
           "topic_blocks"]

QRELS = AnyOf(Instance((Judgements,), "Judgements"),
              MappingOf(values=Instance((Mapping,), "a mapping {doc: relevance}"), what="a mapping {query: {doc: "
                        "relevance}}"), what="qrels {query: {doc: relevance}} or Judgements")
"""pytrec_eval's qrels, or the :class:`Judgements` :func:`judgements_from_dicts` made of them."""


def _run(documents: str) -> MappingOf:
    """The domain of a run ``{query: {doc: score}}``, its queries' values described as ``documents``."""
    return MappingOf(values=Instance((Mapping,), documents), what="a run {query: {doc: score}}")


RUN = _run("a mapping {doc: score}")
"""One run as pytrec_eval takes it."""
RUNS = MappingOf(keys=ID, values=_run("a mapping {doc: score} (give the runs as {system: run}, e.g. {'bm25': run})"),
                 shortest=1, what="runs {system: {query: {doc: score}}}")
"""Runs by system, each a :data:`RUN`."""
RECORDS = Instance((Iterable,), "an iterable of records (ir_datasets' namedtuples)")
"""Records with ``query_id, doc_id`` and ``relevance`` or ``score`` (each record is checked as it is read)."""
RUNS_OF_RECORDS = MappingOf(keys=ID, values=RECORDS, shortest=1, what="runs {system: records}")
COLUMN = Identifier(what="a column name")
"""The column names the DataFrame readers take as keywords (:mod:`workbench.data.trec.frames`)."""
SYSTEM_COLUMN = Identifier(optional=True, what="a column name")
FRAMES = AnyOf(DATAFRAME, MappingOf(keys=ID, values=DATAFRAME, shortest=1, what="a mapping {system: DataFrame}"),
               what="a DataFrame with a system column or a mapping {system: DataFrame}")
"""The runs :func:`~workbench.data.trec.frames.runs_from_frames` reads (declared here, where pandas is not loaded)."""

_QRELS_FIELDS = ("query_id", "doc_id", "relevance")
_RUN_FIELDS = ("query_id", "doc_id", "score")
# immutable values: an equal copy of a qrels dict holding only these says that it has not changed
_NUMBER_TYPES = frozenset({int, float, np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
                           np.uint64, np.uint32, np.uint16, np.uint8})
_KEPT_QRELS = 2  # qrels objects whose judgements are kept for reuse (the most recent ones): a dev and a test set
_ONE_RUN = "run 'run'"  # how errors name the one run of evaluate_run and table_from_dicts
RUN_BLOCK = 1 << 17
"""Entries of a run :func:`evaluate_run` flattens, ranks, joins and scores at a time (blocks of whole topics): only
a block's arrays are held at once (2,000 topics × 1,000 documents: peak 427 → 330 MB at 2^18, as fast; 2^17: 323
→ 315 MB, 0.33 → 0.31 CPU-s on one thread, the block's strings and arrays nearer the cache)."""


def _number(value: Any, what: str, where: str, finite: bool) -> float:
    if isinstance(value, bool | np.bool_):
        raise FrameError(f"{what}: {where} is a boolean, not a number (say which grade True is)")
    try:
        number = float(value)
    except OverflowError:
        raise FrameError(f"{what}: {where} is too large for a double: {quoted(value)}") from None
    except (TypeError, ValueError):
        raise FrameError(f"{what}: {where} is not a number: {quoted(value)}") from None
    if math.isnan(number) or (finite and math.isinf(number)):
        raise FrameError(f"{what}: {where} is {'NaN' if math.isnan(number) else 'infinite'}: {quoted(value)}")
    return number


def _id_text(value: object, what: str, where: str) -> str:
    """An id as text: a ``str`` as it is, an integer as its decimal text; anything else is refused."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        try:
            return str(value)
        except ValueError:  # past Python's limit on writing an integer
            raise FrameError(f"{what}: {where} is an integer too long to be an id") from None
    if value is None:
        raise FrameError(f"{what}: {where} has no id (None)")
    raise FrameError(f"{what}: {where} is a {type(value).__name__}, not an id: ids are strings (or integers, read "
                     f"as their text); write the id as a string, e.g. {str(value)!r}")


@dataclass(frozen=True)
class _Flat:
    """Entries of one qrels or run as arrays: topics, documents, values, whether no topic can repeat a document,
    and how to name entry ``i`` in a message."""

    topics: Labels
    ids: DocumentIds
    values: np.ndarray
    unique: bool
    where: Callable[[int], str]
    first: int = 0  # the number of the first entry (a block of a larger run's topics: evaluate_run)

    def duplicate(self, what: str) -> Callable[[DuplicateEntryError], FrameError]:
        def located(error: DuplicateEntryError) -> FrameError:
            return FrameError(f"{what}: {self.where(error.again)} is given twice (entries {error.first + self.first} "
                              f"and {error.again + self.first}, the same once read as text); trec_eval stops on "
                              "duplicate documents")
        return located


def _topic_labels(topics: list, what: str, repeat: np.ndarray | None = None) -> Labels:
    """Labels of ``topics`` (codes by text, the distinct texts in order of first appearance, those given as
    integers), each code repeated ``repeat`` times; an id that is not one, or one written alike with another of
    another type (``1`` and ``"1"``), is refused (:func:`~workbench.data.trec.ranked.id_texts`)."""
    code_of: dict[str, int] = {}
    codes = [code_of.setdefault(topic if type(topic) is str else _id_text(topic, what, f"query {quoted(topic)}"),
                                len(code_of)) for topic in topics]
    integers = id_texts("topic", topics, what).integers if len(code_of) and any(
        type(topic) is not str for topic in topics) else frozenset()
    array = np.array(codes, dtype=np.int32 if len(code_of) < 2**31 else np.int64)  # half the memory of int64
    return Labels(array if repeat is None else np.repeat(array, repeat), tuple(code_of), integers)


def _document_ids(documents: list, what: str, where: Callable[[int], str]) -> tuple[DocumentIds, bool]:
    """The documents as ids, and whether they were all strings (then those of one dict are distinct)."""
    try:
        return DocumentIds.from_texts(documents), True
    except TypeError:  # not all strings: integers are read as their text, anything else is refused
        texts = [document if type(document) is str else _id_text(document, what, where(i))
                 for i, document in enumerate(documents)]
        return DocumentIds.from_strings(texts), False
    except ValueError:  # a NUL inside an id
        return DocumentIds.from_strings(documents), True


def _values(values: Callable[[], Iterable], count: int, at: Callable[[np.ndarray], list], what: str,
            finite: bool, where: Callable[[int], str]) -> np.ndarray:
    """The ``count`` values ``values()`` gives (afresh at each call; ``at(positions)``: those at ascending
    positions) as float64, each read as ``float()`` reads it, in one pass; refused, named by ``where``: the first
    value that is not a number (text that is no number, None), NaN, infinite where ``finite``, or a boolean (a pass
    reads True as 1.0: the values equal to 0 or 1 are looked at, or all of them when they are many)."""
    try:
        numbers = np.fromiter(values(), np.float64, count)
    except (TypeError, ValueError, OverflowError):  # name the first value that is not a number
        numbers = np.fromiter((_number(value, what, where(i), finite) for i, value in enumerate(values())),
                              np.float64, count)
    bad = np.isnan(numbers)  # None is read as NaN
    if finite:
        bad |= np.isinf(numbers)
    if bad.any():
        first = int(np.argmax(bad))
        _number(at(np.array([first]))[0], what, where(first), finite)  # raises, naming it
    either = np.flatnonzero((numbers == 0) | (numbers == 1))
    if either.size > count // 16:
        if not {bool, np.bool_} & set(map(type, values())):
            return numbers
        either = np.arange(count)
    for i, value in zip(either.tolist(), at(either), strict=True):
        if isinstance(value, bool | np.bool_):
            _number(value, what, where(i), finite)  # raises, naming it
    return numbers


def _nested(nested: Mapping[Any, Mapping[Any, Any]], what: str, finite: bool, first: int = 0) -> _Flat:
    """The entries of ``{query: {doc: value}}`` (a dict of dicts, as the doors declare), read without a list of
    every document or value: the documents joined dict by dict (:func:`_keys`), the values read from the dicts'
    views (2M entries: 0.14 → 0.10 CPU-s, and 32 MB of lists less)."""
    topics, inner = list(nested), list(nested.values())
    sizes = np.fromiter(map(len, inner), np.int64, len(inner))
    labels = _topic_labels(topics, what, sizes)
    ends = np.cumsum(sizes)
    count = int(ends[-1]) if ends.size else 0

    def where(i: int) -> str:
        t = int(np.searchsorted(ends, i, side="right"))
        document = list(inner[t])[i - int(ends[t] - sizes[t])]
        return f"query {labels.names[labels.codes[i]]!r}, document {quoted(document)}"

    def values() -> Iterator:
        return chain.from_iterable(map(methodcaller("values"), inner))

    def at(positions: np.ndarray) -> list:
        """The values at ``positions`` (ascending), each dict's values listed once."""
        found: list = []
        listed: list = []
        listed_topic = -1
        for position, topic in zip(positions.tolist(), np.searchsorted(ends, positions, side="right").tolist(),
                                   strict=True):
            if topic != listed_topic:
                listed, listed_topic = list(inner[topic].values()), topic
            found.append(listed[position - int(ends[topic] - sizes[topic])])
        return found

    ids, texts = _keys(inner, count, what, where)
    return _Flat(labels, ids, _values(values, count, at, what, finite, where), texts and
                 len(labels.names) == len(topics), where, first)


def _keys(inner: list[Mapping], count: int, what: str, where: Callable[[int], str]) -> tuple[DocumentIds, bool]:
    """The keys of the mappings ``inner`` (``count`` in all) as ids, and whether they were all strings: each
    mapping's keys joined, then the joined, encoded once (:meth:`~workbench.ids.DocumentIds.from_joined`, the
    string handed over: freed once encoded; 2M keys: 68 → 36 ms, no list of them); keys that are not all ASCII
    strings (whose strings are kept: the given ones), or that hold a NUL, read as :func:`_document_ids` reads
    them."""
    try:
        handed = ["\0".join(map("\0".join, filter(None, inner)))]
    except TypeError:  # a key that is not a string
        handed = []
    if handed and handed[0].isascii():
        try:
            return DocumentIds.from_joined(handed.pop(), count), True
        except ValueError:  # a NUL inside a key
            pass
    del handed
    return _document_ids(list(chain.from_iterable(inner)), what, where)


def _records(records: Iterable, fields: tuple[str, ...], what: str, finite: bool) -> _Flat:
    """The entries of records with the attributes ``fields`` (query, document, value)."""
    getter = attrgetter(*fields)
    rows: list[tuple] = []
    try:
        rows.extend(map(getter, records))
    except AttributeError:
        raise FrameError(f"{what}: records need the fields {', '.join(fields)} (as ir_datasets' namedtuples); "
                         f"record {len(rows)} is {_nth(records, len(rows))!r}") from None
    topics, documents, values = (list(column) for column in zip(*rows, strict=True)) if rows else ([], [], [])
    del rows
    labels = _entry_topics(topics, what)

    def where(i: int) -> str:
        return f"query {labels.names[labels.codes[i]]!r}, document {quoted(documents[i])}"

    ids, _ = _document_ids(documents, what, where)
    return _Flat(labels, ids, _values(lambda: values, len(values), lambda positions: [values[i] for i in
                                                                                      positions.tolist()],
                                      what, finite, where), False, where)


def _nth(records: Iterable, n: int) -> object:
    """Record ``n`` of a sequence (for messages; an exhausted iterator says so)."""
    try:
        return records[n]  # type: ignore[index]  # an Iterable may index; if not, the except says so
    except (TypeError, IndexError, KeyError):
        return "(read from an iterator)"


def _entry_topics(topics: list, what: str) -> Labels:
    """Labels of one topic per entry: entries of one topic mostly come together, so each stretch of equal
    topics is coded once."""
    if not topics:
        return Labels(np.zeros(0, dtype=np.int64), ())
    change = np.fromiter(map(ne, topics[1:], topics[:-1]), bool, len(topics) - 1)
    heads = np.concatenate(([0], np.flatnonzero(change) + 1))
    return _topic_labels([topics[i] for i in heads.tolist()], what, np.diff(np.concatenate((heads, [len(topics)]))))


# ------------------------------------------------------------------------------------------ judgements
_prepared: OrderedDict[int, tuple[dict, frozenset, Judgements]] = OrderedDict()
_prepared_lock = threading.Lock()


def _value_types(qrels: Mapping) -> frozenset:
    return frozenset(map(type, chain.from_iterable(map(methodcaller("values"), qrels.values()))))


@validate(qrels=QRELS)
def judgements_from_dicts(qrels: Mapping[str, Mapping[str, float]] | Judgements) -> Judgements:
    """Judgements from pytrec_eval's ``{query: {doc: relevance}}`` (a :class:`Judgements` is returned as it is:
    hold one to pass the same qrels again). The judgements of the last two qrels dicts are kept, with a copy of
    each dict to compare (its memory is a dict's, not the judgements' values): given again and unchanged (equal
    content, values of the same types, all of them numbers or text), the same object comes back without reading
    them again; any change is read afresh."""
    if isinstance(qrels, Judgements):
        return qrels
    with _prepared_lock:
        kept = _prepared.get(id(qrels))
    if kept is not None and _value_types(qrels) == kept[1] and qrels == kept[0]:
        with _prepared_lock:
            if id(qrels) in _prepared:
                _prepared.move_to_end(id(qrels))
        return kept[2]
    flat = _nested(qrels, "qrels", finite=True)
    gold = judgements(flat.topics, flat.ids, flat.values, locate=flat.duplicate("qrels"), unique=flat.unique)
    types = _value_types(qrels)
    if types <= _NUMBER_TYPES | {str}:  # immutable values: an equal copy says the content has not changed
        with _prepared_lock:
            nested = cast(Mapping[str, Mapping[str, float]], qrels)
            _prepared[id(qrels)] = ({topic: dict(docs) for topic, docs in nested.items()}, types, gold)
            while len(_prepared) > _KEPT_QRELS:
                _prepared.popitem(last=False)
    return gold


@validate(qrels=RECORDS)
def judgements_from_records(qrels: Iterable) -> Judgements:
    """Judgements from any iterable of records with ``query_id, doc_id, relevance`` (ir_datasets' TrecQrel)."""
    flat = _records(qrels, _QRELS_FIELDS, "qrels", finite=True)
    return judgements(flat.topics, flat.ids, flat.values, locate=flat.duplicate("qrels"))


# ------------------------------------------------------------------------------------------------ runs
def _ranked(flat: _Flat, what: str, ties: str, score_precision: str, max_docs: int | None) -> RankedRun:
    """The entries of ``flat`` ranked, its arrays put in rank order themselves (they are this reading's own)."""
    return rank_runs(None, flat.topics, flat.ids, flat.values, locate=flat.duplicate(what), unique=flat.unique,
                     ties=ties, score_precision=score_precision, max_docs=max_docs, in_place=True)[""]


@validate(runs=RUNS, ties=TIES, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def runs_from_dicts(runs: Mapping[str, Mapping[str, Mapping[str, float]]], *, ties: str = "trec_eval",
                    score_precision: str = "float64", max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: {query: {doc: score}}}`` (each run as pytrec_eval takes it; systems named as
    :func:`~workbench.data.trec.ranked.id_texts` reads ids).

    Each run is read in one pass, then ranked (its sorts shared between threads), not read and ranked a block of
    topics at a time on two threads as :func:`evaluate_run` does: there the blocks' scoring was serial numpy work,
    here the ranking is shared already and the reading, which holds the interpreter, gains nothing beside it.
    Measured (2,000 topics × 1,000 documents, ``Campaign.from_dicts(...).evaluate``, load average about 1): the
    documents read whole, the scores read and ranked in place by blocks, 0.29 → 0.31 s wall, 0.42 → 0.46 CPU-s;
    every array read by blocks and joined, the same wall time, 0.03 CPU-s more, and a peak 39 MB higher."""
    id_texts("system", runs, "runs")
    return {str(name): _ranked(_nested(run, f"run {name!r}", finite=False), f"run {name!r}", ties=ties,
                               score_precision=score_precision, max_docs=max_docs) for name, run in runs.items()}


@validate(runs=RUNS_OF_RECORDS, ties=TIES, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def runs_from_records(runs: Mapping[str, Iterable], *, ties: str = "trec_eval", score_precision: str = "float64",
                      max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: records}``, each record with ``query_id, doc_id, score`` (ir_datasets' ScoredDoc)."""
    id_texts("system", runs, "runs")
    return {str(name): _ranked(_records(records, _RUN_FIELDS, f"run {name!r}", finite=False), f"run {name!r}",
                               ties=ties, score_precision=score_precision, max_docs=max_docs)
            for name, records in runs.items()}


@validate(qrels=QRELS, run=RUN, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def table_from_dicts(qrels: Mapping[str, Mapping[str, float]] | Judgements, run: Mapping[str, Mapping[str, float]],
                     *, score_precision: str = "float64", max_docs: int | None = None) -> GainTable:
    """The gain table of one run given as pytrec_eval takes it (qrels ``{topic: {doc: grade}}`` or prepared
    :class:`Judgements`, run ``{topic: {doc: score}}``): a row per run topic that has judgements (as pytrec_eval
    scores them), ranked as trec_eval ranks them (``max_docs`` is trec_eval's ``-M``). A topic given as an integer
    on one side and as a string on the other is refused
    (:func:`~workbench.data.trec.ranked.check_given_ids`)."""
    return _table(judgements_from_dicts(qrels), run, score_precision, max_docs)


def _table(gold: Judgements, run: Mapping[str, Mapping[str, float]], score_precision: str, max_docs: int | None,
           first: int = 0) -> GainTable:
    """:func:`table_from_dicts` of prepared judgements; ``first``: the number of the run's first entry (a block of a
    larger run's topics)."""
    ranked = _ranked(_nested(run, _ONE_RUN, finite=False, first=first), _ONE_RUN, "trec_eval", score_precision,
                     max_docs)
    check_given_ids(gold, {"run": ranked})
    return gain_table(gold, ranked, [topic for topic in ranked if topic in gold])


def topic_blocks(sizes: np.ndarray, block: int | None = None) -> list[tuple[int, int]]:
    """Topics of ``sizes`` entries each cut into blocks of whole topics of about ``block`` entries
    (:data:`RUN_BLOCK` when None), in order: each block's first topic and the one after its last (what
    :func:`evaluate_run` and a campaign's gain tables hold at once).

    >>> topic_blocks(np.array([RUN_BLOCK - 1, 1, 5, RUN_BLOCK]))
    [(0, 1), (1, 3), (3, 4)]
    """
    ends = np.cumsum(sizes)
    bounds = [0, *(np.flatnonzero(np.diff(ends // (block or RUN_BLOCK))) + 1).tolist(), len(sizes)]
    return list(itertools.pairwise(bounds)) if len(sizes) else []


def _blocks(run: Mapping[str, Mapping[str, float]]) -> list[tuple[int, dict[str, Mapping[str, float]]]]:
    """``run`` cut into blocks of whole topics of about :data:`RUN_BLOCK` entries (:func:`topic_blocks`), in its
    order, each with the number of its first entry."""
    sizes = np.fromiter(map(len, run.values()), np.int64, len(run))
    firsts = np.cumsum(sizes) - sizes
    topics = list(run)
    return [(int(firsts[low]), {topic: run[topic] for topic in topics[low:high]})
            for low, high in topic_blocks(sizes)]


@validate(qrels=QRELS, run=RUN, measures=MEASURES, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def evaluate_run(qrels: Mapping[str, Mapping[str, float]] | Judgements, run: Mapping[str, Mapping[str, float]],
                 measures: str | Iterable[str], score_precision: str = "float64",
                 max_docs: int | None = None) -> dict[str, dict[str, float]]:
    """Score one run given as pytrec_eval takes it, vectorised (:func:`table_from_dicts`) a block of whole topics
    at a time (:data:`RUN_BLOCK` entries: each topic's values are its own whatever is scored beside it), the blocks
    shared between two threads (:func:`~workbench.threads.in_threads`: one block's reading of the dicts, which holds
    the interpreter, beside the other's numpy work; 2,000 topics × 1,000 documents: 0.45 → 0.28 s, the same CPU):
    ``{measure: {topic: value}}`` for ranking measures (a name, or a list of them). ``qrels`` may be prepared
    judgements (:func:`judgements_from_dicts`), as pytrec_eval's ``RelevanceEvaluator`` holds them."""
    from workbench.metrics.ranking import evaluate_table

    names = [measures] if isinstance(measures, str | Measure) else list(measures)
    gold = judgements_from_dicts(qrels)
    if sum(map(len, run.values())) <= RUN_BLOCK:
        return evaluate_table(_table(gold, run, score_precision, max_docs), names)
    _topic_labels(list(run), _ONE_RUN)  # one topic given as 1 and "1" is refused, whichever blocks hold them
    scores: dict[str, dict[str, float]] = {name: {} for name in names}

    def scored(block: tuple[int, dict[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
        first, topics = block
        return evaluate_table(_table(gold, topics, score_precision, max_docs, first), names)

    for values in in_threads(scored, _blocks(run)):
        for name, topic_values in values.items():
            scores[name].update(topic_values)
    return scores
