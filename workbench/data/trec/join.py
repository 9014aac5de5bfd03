"""Rankings joined to judgements: the one gain table every ranking measure reads, built as trec_eval builds its
``RES_RELS`` (``form_res_rels.c``).

Each ranked document gets its grade from the judgements of its topic: a document outside the qrels is *not
pooled*, one with a negative grade *pooled but unjudged* (both gain 0); a topic the run lacks gets trec_eval's
``-c`` placeholder ranking (one document, ``ceci_nest_pas_un_docno``) when asked for. Documents are matched by
64-bit hashes of (topic, document) by the one matcher (:mod:`workbench.metrics.ranking.matching`), every match
checked on the ids themselves; should two pairs share a hash, by exact codes; Organizations given by hand (on both
sides), by their names coded exactly::

    >>> import numpy as np
    >>> from workbench.data.trec.ranked import judgements, rank_runs
    >>> gold = judgements(["q", "q"], ["a", "b"], np.array([1, 0]))
    >>> run = rank_runs(None, ["q", "q", "q"], ["a", "b", "c"], np.array([0.5, 0.9, 0.1]))[""]
    >>> table = gain_table(gold, run, ["q"])
    >>> table.gains.tolist(), table.judged.tolist(), table.pooled.tolist()
    ([[0.0, 1.0, 0.0]], [[True, True, False]], [[True, True, False]])
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, overload

import numpy as np

from workbench.data.trec.ranked import Judgements, RankedRun, SubtopicJudgements
from workbench.errors import WorkbenchError
from workbench.heap import release_freed
from workbench.ids import DocumentIds
from workbench.metrics.ranking.diversity import SubtopicTable
from workbench.metrics.ranking.matching import Judged, RankingRows, entries, match, match_names, seated
from workbench.metrics.ranking.table import GainTable, judgements_of, ranked_entries
from workbench.model import Organization
from workbench.validation import Flag, ListOf, MappingOf, validate

__all__ = ["PLACEHOLDER", "ONE_SUBTOPIC", "JudgedSides", "SIDES_KEPT", "JUDGED_SIDES", "spans", "ndeval_order",
           "gain_table", "subtopic_table"]

PLACEHOLDER = "ceci_nest_pas_un_docno"  # trec_eval.c's one-document ranking of a topic the run lacks (-c)
ONE_SUBTOPIC = "the topic"  # the one subtopic of plain qrels, as ndeval reads them
JUDGED = MappingOf(what="judgements: a mapping topic → Organization (Judgements, as read)")
RANKED = MappingOf(what="a run: a mapping topic → Organization (a RankedRun, as read)")
TOPICS = ListOf(what="a list of topics")


def spans(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the entries of the groups ``index`` (group ``g`` holds ``offsets[g]:offsets[g + 1]``), in
    the order of ``index``, and for each entry the rank of its group in ``index``."""
    lengths = offsets[index + 1] - offsets[index]
    row = np.repeat(np.arange(len(index)), lengths)
    starts = np.cumsum(lengths) - lengths
    return offsets[index][row] + np.arange(len(row)) - starts[row], row


class JudgedSides:
    """The join's cache, an explicit object rather than an attribute slipped into the caller's judgements: per
    judgements object (by identity, let go when it is), the judged sides of the last sets of topics joined, none
    two sharing a topic (a side built lets go of those that share one with it: together they hold at most what one
    side of all the topics holds), at most :data:`SIDES_KEPT` — each judgement's row, document, grade and key, and
    the keys' slots — so that the runs of a campaign, or the same qrels scored again, share them, a run joined a
    block of topics at a time included.

    >>> sides, built = JudgedSides(), []
    >>> gold = type("Gold", (), {})()
    >>> sides.side(gold, ["q1"], lambda: built.append(1) or "side"), sides.side(gold, ["q1"], list), len(built)
    ('side', 'side', 1)
    >>> sides.side(gold, ["q2"], lambda: "q2's"), sides.side(gold, ["q1"], list)  # two blocks of topics
    ("q2's", 'side')
    >>> sides.side(gold, ["q1", "q2"], lambda: "both"), sides.side(gold, ["q1"], lambda: "q1's again")
    ('both', "q1's again")
    """

    def __init__(self) -> None:
        self._kept: dict[int, OrderedDict[tuple[str, ...], Any]] = {}
        self._lock = threading.Lock()  # threads scoring chunks of one campaign share the judgements' sides

    def side(self, gold: Any, topics: Sequence[str], build: Callable[[], Any]) -> Any:
        """The side kept for ``gold`` and ``topics``, or ``build()``'s (built outside the lock), kept in place of
        those sharing a topic with it (and of the least recently used one past :data:`SIDES_KEPT`)."""
        key, wanted = id(gold), tuple(topics)
        with self._lock:
            kept = self._kept.get(key)
            if kept is None:
                kept = self._kept[key] = OrderedDict()
                weakref.finalize(gold, self._kept.pop, key, None)
            if wanted in kept:
                kept.move_to_end(wanted)
                return kept[wanted]
        side = build()
        new = set(wanted)
        with self._lock:
            for other in [other for other in kept if not new.isdisjoint(other)]:
                del kept[other]
            kept[wanted] = side
            while len(kept) > SIDES_KEPT:
                kept.popitem(last=False)
        return side


SIDES_KEPT = 32
"""Judged sides kept per judgements object (:class:`JudgedSides`): room for the blocks of topics of a large run
(:func:`~workbench.data.trec.memory.topic_blocks`: 2,000 topics × 1,000 documents, 16 blocks; runs of up to 4M
entries)."""


JUDGED_SIDES = JudgedSides()
"""The one cache of the join (:func:`gain_table`, :func:`subtopic_table`)."""


def _judged_side(gold: Judgements, topics: Sequence[str], row_of: dict[str, int]) -> Judged:
    """The judgements of ``topics`` as the matcher reads them (:class:`JudgedSides` keeps them)."""

    def build() -> Judged:
        judged, q_rows = _native(gold, row_of)
        return Judged.of(q_rows, gold.ids if judged is None else gold.ids.take(judged),
                         gold.grades if judged is None else gold.grades[judged], len(topics))

    side = JUDGED_SIDES.side(gold, topics, build)
    for topic in topics:  # a topic whose judgements repeat a document is refused each time it is used
        if topic in gold.refused:
            raise gold.refused[topic]
    return side


def _native(mapping: Judgements | RankedRun, row_of: dict[str, int]
            ) -> tuple[np.ndarray | slice | None, np.ndarray]:
    """The entries of the mapping's topics that have a row, in the mapping's own order (None: all of them, in
    order, when every topic has a row: nothing to gather; a slice when those topics come one after the other in
    the mapping, as a block of a run's topics does: views, nothing gathered), and each entry's row (int32). A topic
    whose entries repeat a document is refused here, when it is used."""
    used = [i for i, topic in enumerate(mapping.topics) if topic in row_of]
    for i in used:
        mapping.span(mapping.topics[i])
    row_numbers = np.array([row_of[mapping.topics[i]] for i in used], dtype=np.int32)
    if len(used) == len(mapping.topics):  # every entry, in order: no positions to gather
        return None, np.repeat(row_numbers, np.diff(mapping.offsets))
    if used and used[-1] - used[0] + 1 == len(used):  # one stretch of the mapping's topics
        low, high = used[0], used[-1] + 1
        return (slice(int(mapping.offsets[low]), int(mapping.offsets[high])),
                np.repeat(row_numbers, np.diff(mapping.offsets[low:high + 1])))
    entries, rank = spans(mapping.offsets, np.array(used, dtype=np.int64))
    return entries, row_numbers[rank]


def _ranked_side(run: Mapping[str, Organization], topics: Sequence[str], row_of: dict[str, int]
                 ) -> tuple[np.ndarray, DocumentIds, np.ndarray, np.ndarray | None]:
    """The run's entries of ``topics`` as the matcher reads them: each one's row and document, grouped by row in
    rank order, whether it ties with the entry above it (a read run's equal scores, a hand-made Organization's
    tied level), and its cost (a run read with costs; None: every document costs 1)."""
    if isinstance(run, RankedRun):
        entries_at, rows = _native(run, row_of)
        costs = run.costs_array
        if costs is not None and entries_at is not None:
            costs = costs[entries_at]
        return (rows, run.ids if entries_at is None else run.ids.take(entries_at), _ties(run, entries_at, rows),
                costs)
    rankings, ties = _organization_rankings(run, topics, [])
    rows, documents = entries(rankings)
    return rows, documents, ties, None


def _organization_rankings(run: Mapping[str, Organization], topics: Sequence[str],
                           lacking: list[str]) -> tuple[list[list[str]], np.ndarray]:
    """Each topic's ranked documents (``lacking`` for a topic the run lacks) and the ties of the topics the run has,
    in turn (:func:`~workbench.metrics.ranking.table.ranked_entries`, one pass per output)."""
    rankings: list[list[str]] = []
    ties: list[bool] = []
    for topic in topics:
        if topic in run:
            documents, tied = ranked_entries(run[topic])
            rankings.append(documents)
            ties.extend(tied)
        else:
            rankings.append(lacking)
    return rankings, np.array(ties, dtype=bool)


def _judged_of(gold: Mapping[str, Organization], topics: Sequence[str], row_of: dict[str, int]) -> Judged:
    """The judged side of ``topics``: read judgements' arrays (:func:`_judged_side`), or each Organization's
    :func:`~workbench.metrics.ranking.table.judgements_of`."""
    if isinstance(gold, Judgements):
        return _judged_side(gold, topics, row_of)
    judged = [judgements_of(gold[topic]) for topic in topics]
    rows, documents = entries([list(grades) for grades in judged])
    return Judged.of(rows, documents, np.array([g for grades in judged for g in grades.values()], dtype=float),
                     len(topics))


def _joined(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str],
            missing: np.ndarray, documents: bool) -> tuple[GainTable, RankingRows | None]:
    """The join (:func:`gain_table`): the ranked entries and trec_eval's placeholder rows (``missing``) matched to
    the judgements by the one matcher (:func:`~workbench.metrics.ranking.matching.match`), read ids by their
    hashes, names given by hand (Organizations on both sides) by exact codes
    (:func:`~workbench.metrics.ranking.matching.match_names`)."""
    row_of = {topic: row for row, topic in enumerate(topics)}
    placeholder = np.zeros(len(topics), dtype=bool)
    placeholder[missing] = True
    if not isinstance(gold, Judgements) and not isinstance(run, RankedRun):  # names on both sides
        rankings, ties = _organization_rankings(run, topics, [PLACEHOLDER])
        judged, rows, positions = match_names([judgements_of(gold[topic]) for topic in topics], rankings)
        tied = np.zeros(rows.size, dtype=bool)
        tied[~placeholder[rows]] = ties
        table = GainTable.from_matched(rows, positions, judged, tuple(topics), placeholder=placeholder, tied=tied)
        if not documents:
            return table, None
        retrieved = np.empty(rows.size, dtype=object)
        retrieved[:] = [doc for ranking in rankings for doc in ranking]
        return table, seated(rows, retrieved, judged, positions, by_grade=True)
    judged = _judged_of(gold, topics, row_of)
    rows, docs, tied, costs = _ranked_side(run, topics, row_of)
    parts = [(rows, docs)]
    if missing.size:  # trec_eval's one-document ranking, each its own row, after the run's entries
        parts.append((missing, DocumentIds.from_strings([PLACEHOLDER] * missing.size)))
    found = match(parts, judged, len(topics))
    if missing.size:
        rows, docs = np.concatenate((rows, missing)), DocumentIds.concatenate([docs, parts[1][1]])
        tied = np.concatenate((tied, np.zeros(missing.size, dtype=bool)))
        if costs is not None:  # the placeholder's one document costs 1 (cwl_eval's max_cost)
            costs = np.concatenate((costs, np.ones(missing.size)))
    if missing.size:
        found = [np.concatenate(found)]
    # the positions handed over unless the seats read them: let go once read (2M entries: 8 MB less at the peak)
    kept = found[0] if documents else None
    table = GainTable.from_matched(rows, found.pop(), judged, tuple(topics), placeholder=placeholder, tied=tied,
                                   costs=costs)
    release_freed(rows.size)  # the join's temporaries
    if kept is None:
        return table, None
    return table, seated(rows, docs, judged, kept,
                         by_grade=not (isinstance(gold, Judgements) and isinstance(run, RankedRun)))


def _ties(run: RankedRun, entries: np.ndarray | slice | None, rows: np.ndarray) -> np.ndarray:
    """Whether each entry (rank order, grouped by row; None: every entry of the run) has the score of the entry
    above it in its row, the scores compared at the run's ``score_precision`` (as its ranking compared them)."""
    with np.errstate(over="ignore"):  # beyond 3.4e38 a float32 is inf, as in trec_eval 9.x
        scores = (run.scores_array if entries is None else
                  run.scores_array[entries]).astype(run.score_precision, copy=False)
    same = np.zeros(scores.size, dtype=bool)
    same[1:] = (scores[1:] == scores[:-1]) & (rows[1:] == rows[:-1])
    return same


def ndeval_order(run: RankedRun, topic: str) -> np.ndarray:
    """The topic's rank positions in ndeval's order as pyndeval ranks a run (the diversity measures' reference):
    by score descending, equal scores by document id *ascending*; trec_eval's order with each run of equal
    scores (compared at the run's ``score_precision``) reversed, since trec_eval puts the greatest id first.
    (ndeval.c itself ranks a run file by its rank column, or with ``-traditional`` as trec_eval does.)

        >>> from workbench.data.trec.memory import runs_from_dicts
        >>> run = runs_from_dicts({"s": {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}})["s"]
        >>> run.documents("q"), ndeval_order(run, "q").tolist()
        (['c', 'b', 'a'], [0, 2, 1])
    """
    span = run.span(topic)
    positions = np.arange(span.stop - span.start)
    new = _ties(run, np.arange(span.start, span.stop), np.zeros(positions.size, dtype=np.int64))
    new[:1] = False
    starts = np.flatnonzero(~new)
    group = np.cumsum(~new) - 1
    ends = np.append(starts[1:], positions.size)
    return starts[group] + ends[group] - 1 - positions


@overload
def gain_table(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str], *,
               placeholders: bool = ..., documents: Literal[False] = ...) -> GainTable: ...


@overload
def gain_table(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str], *,
               placeholders: bool = ..., documents: Literal[True]) -> tuple[GainTable, RankingRows]: ...


@validate(gold=JUDGED, run=RANKED, topics=TOPICS, placeholders=Flag(), documents=Flag())
def gain_table(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str], *,
               placeholders: bool = False, documents: bool = False) -> GainTable | tuple[GainTable, RankingRows]:
    """One gain table, a row per topic of ``topics`` (each judged in ``gold``), shared by every ranking measure.
    A topic ``run`` lacks is an error, or, with ``placeholders``, trec_eval's ``-c`` placeholder row
    (:attr:`GainTable.placeholder`).

    Array-backed :class:`~workbench.data.trec.ranked.Judgements` and
    :class:`~workbench.data.trec.ranked.RankedRun` and Organizations given by hand are inputs of the one join
    (:func:`_joined`), an Organization read as :meth:`GainTable.from_organizations` reads it (ranked documents
    scored by :func:`~workbench.metrics.ranking.table.judgements_of`), so that all give the same values.

    The one place a ranking meets its judgements: with ``documents``, the result is ``(table, rows)``, ``rows``
    saying who sits where (:class:`~workbench.metrics.ranking.matching.RankingRows`: the retrieved documents row
    by row in rank order, trec_eval's placeholder included, and the judged relevant documents each row misses), as
    the explanations read them."""
    missing = [topic for topic in topics if topic not in run]
    if missing and not placeholders:
        raise WorkbenchError(f"the run lacks topic(s) {', '.join(map(repr, missing[:5]))}")
    lacking = np.array([row for row, topic in enumerate(topics) if topic not in run], dtype=np.int64)
    table, rows = _joined(gold, run, topics, lacking, documents)
    return table if rows is None else (table, rows)


@validate(gold=JUDGED, run=RANKED, topics=TOPICS, placeholders=Flag(), documents=Flag())
def subtopic_table(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str], *,
                   placeholders: bool = False, documents: bool = False) -> SubtopicTable:
    """The subtopic table the diversity measures read, a row per topic of ``topics`` (a topic ``run`` lacks: an
    empty ranking with ``placeholders``, else an error). Array-backed judgements and runs are joined as
    :func:`gain_table` joins them (each ranked document matched to its judged position); a
    :class:`~workbench.data.trec.ranked.SubtopicJudgements` gives its subtopics, plain judgements one subtopic per
    topic (as ndeval reads ordinary qrels), and Organizations given by hand a subtopic per cluster
    (:meth:`SubtopicTable.from_organizations`). Who sits where (:attr:`SubtopicTable.ranked`, the documents of each
    row in the order the measures rank them) is kept for Organizations, and for read runs with ``documents``."""
    missing = [topic for topic in topics if topic not in run]
    if missing and not placeholders:
        raise WorkbenchError(f"the run lacks topic(s) {', '.join(map(repr, missing[:5]))}")
    if not (isinstance(gold, Judgements) and isinstance(run, RankedRun)):
        tables = [SubtopicTable.from_organizations(gold[t], run[t] if t in run else Organization(()))
                  for t in topics]
        return _stacked(tables, topics)
    for topic in topics:
        gold.span(topic)
    sizes = np.diff(gold.offsets)
    position = np.arange(len(gold.ids)) - np.repeat(gold.offsets[:-1], sizes)
    index = Judgements(gold.topics, gold.offsets, gold.ids, position + 1.0, gold.refused)
    present = [t for t in topics if t in run]
    table = gain_table(index, run, present) if present else None
    if isinstance(gold, SubtopicJudgements):
        entry_row, entry_doc, entry_sub, entry_grade = (gold.entry_topic, position[gold.entry_document],
                                                        gold.entry_subtopic, gold.entry_grade)
        n_sub = max((len(gold.subtopics[t]) for t in topics), default=1)
    else:
        entry_row, entry_doc = np.repeat(np.arange(len(gold.topics)), sizes), position
        entry_sub, entry_grade, n_sub = np.zeros(len(gold.ids), dtype=np.int64), gold.grades, 1
    row_of_gold = np.full(len(gold.topics), -1, dtype=np.int64)
    row_of_gold[[gold.index[t] for t in topics]] = np.arange(len(topics))
    rows = row_of_gold[entry_row]
    kept = rows >= 0
    width = int(sizes[[gold.index[t] for t in topics]].max(initial=0))
    judged = np.zeros((len(topics), width, max(n_sub, 1)))
    judged[rows[kept], entry_doc[kept], entry_sub[kept]] = np.maximum(entry_grade[kept], 0.0)
    tiebreak = np.zeros((len(topics), width), dtype=np.int64)
    codes = gold.ids.codes()
    judged_documents = []
    for row, topic in enumerate(topics):  # ndeval's tie rule in its ideal ranking: the greatest id first
        span = gold.span(topic)
        tiebreak[row, :span.stop - span.start] = np.argsort(np.argsort(-codes[span], kind="stable"))
        judged_documents.append(gold.ids.take(np.arange(span.start, span.stop)).strings().tolist())
    names = [gold.subtopics[t] if isinstance(gold, SubtopicJudgements) else (ONE_SUBTOPIC,) for t in topics]
    ranked = np.zeros((len(topics), table.gains.shape[1] if table else 0), dtype=np.int64)
    num_ret = np.zeros(len(topics), dtype=np.int64)
    seats: list[list[str]] | None = [[] for _ in topics] if documents else None
    if table is not None:
        at = np.array([topics.index(t) for t in present], dtype=np.int64) if len(present) < len(topics) else \
            np.arange(len(topics))
        ranked[at] = table.gains.astype(np.int64)  # judged position + 1, 0 when not judged
        num_ret[at] = table.num_ret
        for row, topic in zip(at.tolist(), present, strict=True):  # equal scores in ndeval's order
            order = ndeval_order(run, topic)
            ranked[row, :order.size] = ranked[row, order]
            if seats is not None:
                in_trec_order = run.documents(topic)
                seats[row] = [in_trec_order[i] for i in order.tolist()]
    grades = np.where((ranked > 0)[:, :, None], judged[np.arange(len(topics))[:, None], np.maximum(ranked - 1, 0)],
                      0.0)
    return SubtopicTable(grades, judged, tiebreak, num_ret, tuple(topics), documents=judged_documents,
                         subtopic_names=names, ranked=seats)


def _stacked(tables: list[SubtopicTable], topics: Sequence[str]) -> SubtopicTable:
    """One table of the one-row tables, padded to the widest."""
    width = max((t.grades.shape[1] for t in tables), default=0)
    docs = max((t.judged.shape[1] for t in tables), default=0)
    subs = max((t.grades.shape[2] for t in tables), default=1)
    grades, judged = np.zeros((len(tables), width, subs)), np.zeros((len(tables), docs, subs))
    tiebreak = np.zeros((len(tables), docs), dtype=np.int64)
    documents, names, ranked = [], [], []
    for row, t in enumerate(tables):
        grades[row, :t.grades.shape[1], :t.grades.shape[2]] = t.grades[0]
        judged[row, :t.judged.shape[1], :t.judged.shape[2]] = t.judged[0]
        tiebreak[row, :t.judged.shape[1]] = t.tiebreak[0]
        assert t.documents is not None and t.subtopic_names is not None and t.ranked is not None  # from_rows's
        documents.append(t.documents[0])
        names.append(t.subtopic_names[0])
        ranked.append(t.ranked[0])
    return SubtopicTable(grades, judged, tiebreak, [int(t.num_ret[0]) for t in tables], tuple(topics),
                         documents=documents, subtopic_names=names, ranked=ranked)
