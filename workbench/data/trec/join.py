"""Rankings joined to judgements: the one gain table every ranking measure reads, built as trec_eval builds its
``RES_RELS`` (``form_res_rels.c``).

Each ranked document gets its grade from the judgements of its topic: a document outside the qrels is *not
pooled*, one with a negative grade *pooled but unjudged* (both gain 0); a topic the run lacks gets trec_eval's
``-c`` placeholder ranking (one document, ``ceci_nest_pas_un_docno``) when asked for. Documents are matched by
64-bit hashes of (topic, document) (:func:`~workbench.data.trec.ranked.keys`), every match checked on the ids
themselves; should two pairs share a hash, by exact codes::

    >>> import numpy as np
    >>> from workbench.data.trec.ranked import judgements, rank_runs
    >>> gold = judgements(["q", "q"], ["a", "b"], np.array([1, 0]))
    >>> run = rank_runs(None, ["q", "q", "q"], ["a", "b", "c"], np.array([0.5, 0.9, 0.1]))[""]
    >>> table = gain_table(gold, run, ["q"])
    >>> table.gains.tolist(), table.judged.tolist(), table.pooled.tolist()
    ([[0.0, 1.0, 0.0]], [[True, True, False]], [[True, True, False]])
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from workbench.data.trec.ranked import Judgements, RankedRun, SubtopicJudgements, keys
from workbench.errors import WorkbenchError
from workbench.heap import release_freed
from workbench.ids import DocumentIds
from workbench.metrics.ranking.diversity import SubtopicTable
from workbench.metrics.ranking.table import GainTable, judgements_of, ranked_documents, ranked_ties
from workbench.model import Organization, natural_key
from workbench.validation import Flag, ListOf, MappingOf, validate

if TYPE_CHECKING:  # the explanations import pandas, which the trec_eval drop-in never loads
    from workbench.metrics.explanations.ranking import RankingRows

__all__ = ["PLACEHOLDER", "ONE_SUBTOPIC", "JudgedSides", "JUDGED_SIDES", "spans", "ndeval_order", "gain_table",
           "subtopic_table"]

PLACEHOLDER = "ceci_nest_pas_un_docno"  # trec_eval.c's one-document ranking of a topic the run lacks (-c)
ONE_SUBTOPIC = "the topic"  # the one subtopic of plain qrels, as ndeval reads them
_FILTER_BITS = 24  # the judged keys' last bits mark up to 2^24 slots (16 MB): _slots
JUDGED = MappingOf(what="judgements: a mapping topic → Organization (Judgements, as read)")
RANKED = MappingOf(what="a run: a mapping topic → Organization (a RankedRun, as read)")
TOPICS = ListOf(what="a list of topics")


class _KeyCollision(Exception):
    """Two different (topic, document) pairs share a 64-bit key: the keys are rebuilt exactly."""


def spans(offsets: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the entries of the groups ``index`` (group ``g`` holds ``offsets[g]:offsets[g + 1]``), in
    the order of ``index``, and for each entry the rank of its group in ``index``."""
    lengths = offsets[index + 1] - offsets[index]
    row = np.repeat(np.arange(len(index)), lengths)
    starts = np.cumsum(lengths) - lengths
    return offsets[index][row] + np.arange(len(row)) - starts[row], row


def _exact_keys(parts: Sequence[tuple[np.ndarray, DocumentIds]]) -> list[np.ndarray]:
    """One int64 per (row, document) of each part, equal exactly for equal pairs (the document's byte-order code
    among all the parts' documents)."""
    codes = DocumentIds.concatenate([docs for _, docs in parts]).codes()
    bounds = np.cumsum([len(docs) for _, docs in parts])[:-1]
    return [rows * (codes.max(initial=0) + 1) + part
            for (rows, _), part in zip(parts, np.split(codes, bounds), strict=True)]


def _grades(run_keys: np.ndarray, rows: np.ndarray, docs: DocumentIds, judged: tuple, exact: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    """Each (row, document)'s grade among the judgements (``judged``: their keys, rows, documents and grades),
    NaN where it has none, and the positions of the judgements matched. Keys whose last bits no judged key has are
    not judged; the others and the judged keys are sorted together, a judged pair being two equal neighbours, one
    from each set (the readers have refused repeats in either set, so equal keys within one set are a hash
    collision: exact keys are built instead)."""
    q_keys, q_rows, q_docs, grades = judged[:4]
    found = np.full(run_keys.size, np.nan)
    if not q_keys.size or not run_keys.size:
        return found, np.zeros(0, dtype=np.int64)
    if exact:
        candidates = np.flatnonzero(np.isin(run_keys, q_keys))
    else:  # the judged keys' slots (_slots)
        slots = judged[4]
        candidates = np.flatnonzero(slots[(run_keys & np.uint64(slots.size - 1)).view(np.int64)])
    both = np.concatenate((q_keys, run_keys[candidates]))
    order = np.argsort(both, kind="stable")
    ordered = both[order]
    pairs = np.flatnonzero(ordered[1:] == ordered[:-1])
    first, second = order[pairs], order[pairs + 1]
    if ((first < q_keys.size) == (second < q_keys.size)).any():  # equal keys within one set: a collision
        raise _KeyCollision
    at, mine = np.minimum(first, second), candidates[np.maximum(first, second) - q_keys.size]
    if not exact and not ((rows[mine] == q_rows[at]) & q_docs.equal(at, docs, mine)).all():
        raise _KeyCollision
    found[mine] = grades[at]
    return found, at


def _slots(q_keys: np.ndarray) -> np.ndarray:
    """A slot per value of the keys' last bits (the documents' hashes), 16 or more per judged key, marking the
    judged keys' slots: most unjudged keys fall on an empty one."""
    bits = min(max(int(16 * q_keys.size).bit_length(), 16), _FILTER_BITS)
    slots = np.zeros(1 << bits, dtype=bool)
    slots[(q_keys & np.uint64((1 << bits) - 1)).view(np.int64)] = True
    return slots


class JudgedSides:
    """The join's cache, an explicit object rather than an attribute slipped into the caller's judgements: per
    judgements object (by identity, let go when it is), the judged side of the last topics joined — each judgement's
    row, document, grade and key, and the keys' slots — so that the runs of a campaign, or the same qrels scored
    again, share it.

    >>> sides, built = JudgedSides(), []
    >>> gold = type("Gold", (), {})()
    >>> sides.side(gold, ["q1"], lambda: built.append(1) or "side"), sides.side(gold, ["q1"], list), len(built)
    ('side', 'side', 1)
    """

    def __init__(self) -> None:
        self._kept: dict[int, tuple[tuple[str, ...], Any]] = {}

    def side(self, gold: Any, topics: Sequence[str], build: Callable[[], Any]) -> Any:
        """The side kept for ``gold`` and ``topics``, or ``build()``'s, kept in its place."""
        key, wanted = id(gold), tuple(topics)
        kept = self._kept.get(key)
        if kept is None:
            weakref.finalize(gold, self._kept.pop, key, None)
        if kept is None or kept[0] != wanted:
            kept = self._kept[key] = (wanted, build())
        return kept[1]


JUDGED_SIDES = JudgedSides()
"""The one cache of the join (:func:`gain_table`, :func:`subtopic_table`)."""


def _judged_side(gold: Judgements, topics: Sequence[str], row_of: dict[str, int]) -> tuple:
    """The judgements of ``topics`` as the join reads them (:class:`JudgedSides` keeps them)."""

    def build() -> tuple:
        judged, q_rows = _native(gold, row_of)
        q_docs = gold.ids if judged is None else gold.ids.take(judged)
        q_keys = keys(q_rows, q_docs, len(topics))
        return (q_rows, q_docs, gold.grades if judged is None else gold.grades[judged], q_keys, _slots(q_keys))

    side = JUDGED_SIDES.side(gold, topics, build)
    for topic in topics:  # a topic whose judgements repeat a document is refused each time it is used
        if topic in gold.refused:
            raise gold.refused[topic]
    return side


def _native(mapping: Judgements | RankedRun, row_of: dict[str, int]) -> tuple[np.ndarray | None, np.ndarray]:
    """The entries of the mapping's topics that have a row, in the mapping's own order (None: all of them, in
    order, when every topic has a row: nothing to gather), and each entry's row (int32). A topic whose entries
    repeat a document is refused here, when it is used."""
    used = [i for i, topic in enumerate(mapping.topics) if topic in row_of]
    for i in used:
        mapping.span(mapping.topics[i])
    row_numbers = np.array([row_of[mapping.topics[i]] for i in used], dtype=np.int32)
    if len(used) == len(mapping.topics):  # every entry, in order: no positions to gather
        return None, np.repeat(row_numbers, np.diff(mapping.offsets))
    entries, rank = spans(mapping.offsets, np.array(used, dtype=np.int64))
    return entries, row_numbers[rank]


def _array_table(gold: Judgements, run: RankedRun, topics: Sequence[str], placeholders: bool,
                 documents: bool) -> tuple[GainTable, RankingRows | None]:
    row_of = {topic: row for row, topic in enumerate(topics)}
    entries, rows = _native(run, row_of)
    docs = run.ids if entries is None else run.ids.take(entries)
    q_rows, q_docs, grades, q_keys, slots = _judged_side(gold, topics, row_of)
    missing = np.array([row for row, topic in enumerate(topics) if topic not in run.index] if placeholders else [],
                       dtype=np.int32)
    parts = [(rows, docs), (q_rows, q_docs)]
    if missing.size:  # trec_eval's one-document ranking, each its own row, after the run's entries
        parts.append((missing, DocumentIds.from_strings([PLACEHOLDER] * missing.size)))

    def join(exact: bool) -> tuple[np.ndarray, np.ndarray]:
        built = _exact_keys(parts) if exact else [keys(r, d, len(topics)) if r is not q_rows else q_keys
                                                 for r, d in parts]
        judged_keys = (built[1], q_rows, q_docs, grades, slots)
        found = [_grades(built[0], rows, docs, judged_keys, exact)]
        if missing.size:
            found.append(_grades(built[2], missing, parts[2][1], judged_keys, exact))
        return np.concatenate([f for f, _ in found]), np.concatenate([at for _, at in found])

    try:
        found, matched = join(exact=False)
    except _KeyCollision:
        found, matched = join(exact=True)
    placeholder = np.zeros(len(topics), dtype=bool)
    placeholder[missing] = True
    tied = _ties(run, entries, rows)
    costs = None
    if run.costs_array is not None:  # the placeholder's one document costs 1 (cwl_eval's max_cost)
        given = run.costs_array if entries is None else run.costs_array[entries]
        costs = np.concatenate((given, np.ones(missing.size))) if missing.size else given
    table = GainTable.from_entries(np.concatenate((rows, missing)) if missing.size else rows, found, q_rows, grades,
                                   tuple(topics), placeholder=placeholder,
                                   tied=np.concatenate((tied, np.zeros(missing.size, bool))) if missing.size else tied,
                                   costs=costs)
    release_freed(rows.size)  # the join's temporaries
    if not documents:
        return table, None
    # who sits where: the entries row by row in rank order, and the judged relevant documents no entry matched
    all_rows = np.concatenate((rows, missing)) if missing.size else rows
    all_docs = DocumentIds.concatenate([docs, parts[2][1]]) if missing.size else docs
    if all_rows.size and (np.diff(all_rows) < 0).any():
        all_docs = all_docs.take(np.argsort(all_rows, kind="stable"))
    hit = np.zeros(grades.size, dtype=bool)
    hit[matched] = True
    lacking = np.flatnonzero(~hit & (grades > 0))
    lacking = lacking[np.argsort(q_rows[lacking], kind="stable")]
    return table, _rows(all_docs, q_rows[lacking], q_docs.take(lacking), grades[lacking])


def _rows(retrieved: object, missing_rows: np.ndarray, missing_documents: object, missing_grades: np.ndarray
          ) -> RankingRows:
    """The documents of a joined table as its explanation reads them
    (:class:`~workbench.metrics.explanations.ranking.RankingRows`; imported here, as the explanations import
    pandas, which the ``trec_eval`` drop-in never loads)."""
    from workbench.metrics.explanations.ranking import RankingRows

    return RankingRows(retrieved, np.asarray(missing_rows, dtype=np.int64), missing_documents,
                       np.asarray(missing_grades, dtype=float))


def _ties(run: RankedRun, entries: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
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
    :class:`~workbench.data.trec.ranked.RankedRun` are joined as arrays; Organizations given by hand are read as
    :meth:`GainTable.from_organizations` reads them (ranked documents scored by
    :func:`~workbench.metrics.ranking.table.judgements_of`), so that both give the same values.

    The one place a ranking meets its judgements: with ``documents``, the result is ``(table, rows)``, ``rows``
    saying who sits where (:class:`~workbench.metrics.explanations.ranking.RankingRows`: the retrieved documents row
    by row in rank order, trec_eval's placeholder included, and the judged relevant documents each row misses), as
    the explanations read them."""
    missing = [topic for topic in topics if topic not in run]
    if missing and not placeholders:
        raise WorkbenchError(f"the run lacks topic(s) {', '.join(map(repr, missing[:5]))}")
    if isinstance(gold, Judgements) and isinstance(run, RankedRun):
        table, rows = _array_table(gold, run, topics, placeholders, documents)
        return table if rows is None else (table, rows)

    def judged(topic: str) -> dict[str, float]:
        return gold.grades_of(topic) if isinstance(gold, Judgements) else judgements_of(gold[topic])

    def ranked(topic: str) -> list[str]:
        if topic not in run:
            return [PLACEHOLDER]
        return run.documents(topic) if isinstance(run, RankedRun) else ranked_documents(run[topic])

    pairs = [(judged(topic), ranked(topic)) for topic in topics]
    table = GainTable.from_judged_rankings(pairs, topics)
    flags = np.zeros(table.gains.shape, dtype=bool)
    tie: np.ndarray | list[bool]
    for row, topic in enumerate(topics):  # equal scores of a run, a hand-made Organization's tied level
        if topic in run:
            if isinstance(run, RankedRun):
                span = run.span(topic)
                tie = _ties(run, np.arange(span.start, span.stop), np.zeros(span.stop - span.start, int))
            else:
                tie = ranked_ties(run[topic])
            flags[row, :len(tie)] = tie
    if flags.any():
        table = table.with_ties(flags)
    if missing:
        placeholder = np.array([topic not in run for topic in topics], dtype=bool)
        table = GainTable(table.gains, table.ideal, table.topics, num_ret=table.num_ret, judged=table.judged,
                          pooled=table.pooled, n_judged=table.n_judged, placeholder=placeholder, tied=table.tied)
    if not documents:
        return table
    retrieved = np.array([doc for _, ranking in pairs for doc in ranking], dtype=object)
    lacking = [(row, doc, grade) for row, (grades, ranking) in enumerate(pairs)
               for seen in [set(ranking)]
               for doc, grade in sorted(((d, g) for d, g in grades.items() if g > 0 and d not in seen),
                                        key=lambda item: (-item[1], natural_key(item[0])))]
    documents_missed = np.empty(len(lacking), dtype=object)
    documents_missed[:] = [doc for _, doc, _ in lacking]
    return table, _rows(retrieved, np.array([row for row, _, _ in lacking]), documents_missed,
                        np.array([grade for _, _, grade in lacking]))


@validate(gold=JUDGED, run=RANKED, topics=TOPICS, placeholders=Flag())
def subtopic_table(gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: Sequence[str], *,
                   placeholders: bool = False) -> SubtopicTable:
    """The subtopic table the diversity measures read, a row per topic of ``topics`` (a topic ``run`` lacks: an
    empty ranking with ``placeholders``, else an error). Array-backed judgements and runs are joined as
    :func:`gain_table` joins them (each ranked document matched to its judged position); a
    :class:`~workbench.data.trec.ranked.SubtopicJudgements` gives its subtopics, plain judgements one subtopic per
    topic (as ndeval reads ordinary qrels), and Organizations given by hand a subtopic per cluster
    (:meth:`SubtopicTable.from_organizations`)."""
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
    documents = []
    for row, topic in enumerate(topics):  # ndeval's tie rule in its ideal ranking: the greatest id first
        span = gold.span(topic)
        tiebreak[row, :span.stop - span.start] = np.argsort(np.argsort(-codes[span], kind="stable"))
        documents.append(gold.ids.take(np.arange(span.start, span.stop)).strings().tolist())
    names = [gold.subtopics[t] if isinstance(gold, SubtopicJudgements) else (ONE_SUBTOPIC,) for t in topics]
    ranked = np.zeros((len(topics), table.gains.shape[1] if table else 0), dtype=np.int64)
    num_ret = np.zeros(len(topics), dtype=np.int64)
    if table is not None:
        at = np.array([topics.index(t) for t in present], dtype=np.int64) if len(present) < len(topics) else \
            np.arange(len(topics))
        ranked[at] = table.gains.astype(np.int64)  # judged position + 1, 0 when not judged
        num_ret[at] = table.num_ret
        for row, topic in zip(at.tolist(), present, strict=True):  # equal scores in ndeval's order
            order = ndeval_order(run, topic)
            ranked[row, :order.size] = ranked[row, order]
    grades = np.where((ranked > 0)[:, :, None], judged[np.arange(len(topics))[:, None], np.maximum(ranked - 1, 0)],
                      0.0)
    return SubtopicTable(grades, judged, tiebreak, num_ret, tuple(topics), documents=documents, subtopic_names=names)


def _stacked(tables: list[SubtopicTable], topics: Sequence[str]) -> SubtopicTable:
    """One table of the one-row tables, padded to the widest."""
    width = max((t.grades.shape[1] for t in tables), default=0)
    docs = max((t.judged.shape[1] for t in tables), default=0)
    subs = max((t.grades.shape[2] for t in tables), default=1)
    grades, judged = np.zeros((len(tables), width, subs)), np.zeros((len(tables), docs, subs))
    tiebreak = np.zeros((len(tables), docs), dtype=np.int64)
    documents, names = [], []
    for row, t in enumerate(tables):
        grades[row, :t.grades.shape[1], :t.grades.shape[2]] = t.grades[0]
        judged[row, :t.judged.shape[1], :t.judged.shape[2]] = t.judged[0]
        tiebreak[row, :t.judged.shape[1]] = t.tiebreak[0]
        assert t.documents is not None and t.subtopic_names is not None  # from_organizations names both
        documents.append(t.documents[0])
        names.append(t.subtopic_names[0])
    return SubtopicTable(grades, judged, tiebreak, [int(t.num_ret[0]) for t in tables], tuple(topics),
                         documents=documents, subtopic_names=names)
