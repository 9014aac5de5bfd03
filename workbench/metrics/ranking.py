"""Ranking measures over per-query gain vectors (trec_eval semantics; Sakai's graded measures, seed 002).

Every kernel works on a :class:`GainTable`: for each query (a row) the gains of the retrieved documents in
rank order (0 for a non-relevant or unjudged document, 0-padded to the longest ranking) and the gains of all
judged relevant documents sorted descending (the ideal ranking). One query is a one-row table, so the same
vectorised code scores one topic or a whole run::

    >>> t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    >>> float(average_precision(t)[0]), float(precision_at(t, k=2)[0])
    (0.38888888888888884, 0.5)

Binary measures (P@k, Rprec, RR, AP) call a document relevant when its gain reaches ``rel``
(ir_measures' name for trec_eval's ``-l``, default 1); graded measures (nDCG, ERR, RBP, Q, O, P, P+) use
every positive gain, as trec_eval's ndcg does. A topic without relevant documents scores 0 on every measure
(as trec_eval does). ``judged_only=True`` (ir_measures' name for trec_eval's ``-J``, declared by every trec_eval
measure) scores the ranking without its unjudged documents (:meth:`GainTable.judged_only`).

Tie policy (:func:`trec_eval_order`): score descending compared as 32-bit floats, then document id
descending (trec_eval's ``comp_sim_docno``); a run's rank column is ignored. When an output
:class:`Organization` has a level holding several documents (a tie), they are taken in the same order (id
descending); a document already met in a higher level is skipped.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from workbench.errors import WorkbenchError
from workbench.ids import DocumentIds
from workbench.metrics.registry import Choices, Interval, Measure, Pairs, parse, register
from workbench.model import Organization

TREC_EVAL = "trec_eval 9.0 (usnistgov/trec_eval)"
SAKAI = "seed 002: Sakai, P-measure, SIGIR 2006 (and NTCIREVAL)"


class RankingInputError(WorkbenchError):
    """Gains, scores or a run that a ranking measure cannot score (NaN, negative, duplicate documents...)."""


# ----------------------------------------------------------------------------------------- tie policy
SCORE_PRECISIONS = ("float32", "float64")


def trec_eval_order(scores: Sequence[float] | np.ndarray, documents: Sequence[str] | np.ndarray | DocumentIds,
                    groups: np.ndarray | None = None, score_precision: str = "float32") -> np.ndarray:
    """Positions of the entries in trec_eval's ranking order: by ``groups`` (integer codes, ascending: a
    run's topics) when given, then score descending, then document id descending.

    This is trec_eval's ``comp_sim_docno`` (form_res_rels.c): trec_eval keeps a score as a 32-bit ``float``
    (``TEXT_RESULTS.sim``, trec_format.h), so scores equal in 32 bits tie and the document id decides
    (compared as strings, i.e. by code point, as ``strcmp`` on UTF-8 bytes does). ``score_precision="float64"``
    compares the full-precision values instead. ``documents`` may be :class:`~workbench.ids.DocumentIds`, whose
    words are compared for the tied entries only. Every reader and every ranking of the workbench orders by
    this one function.

    >>> trec_eval_order([1.0, 2.0, 1.0], ["a", "b", "c"]).tolist()
    [1, 2, 0]
    >>> trec_eval_order([0.30000001, 0.3], ["a", "b"]).tolist(), trec_eval_order(
    ...     [0.30000001, 0.3], ["a", "b"], score_precision="float64").tolist()
    ([1, 0], [0, 1])
    """
    values = np.asarray(scores, dtype=float)
    if values.ndim != 1 or values.shape[0] != len(documents):
        raise RankingInputError(f"{len(documents)} documents but {values.size} scores")
    if score_precision not in SCORE_PRECISIONS:
        raise RankingInputError(f"score_precision must be one of {', '.join(SCORE_PRECISIONS)}, "
                                f"got {score_precision!r}")
    missing = np.isnan(values)
    if missing.any():
        raise RankingInputError(f"document {documents[int(np.flatnonzero(missing)[0])]!r} has score NaN")
    if score_precision == "float32":
        with np.errstate(over="ignore"):  # beyond 3.4e38 a float is inf, in trec_eval too
            values = values.astype(np.float32)
    descending = _descending_key(values)
    if groups is None:
        order = np.argsort(descending, kind="stable")
        same = np.diff(descending[order]) == 0
    elif score_precision == "float32":  # one int64 key: the group in the high 32 bits
        combined = (np.asarray(groups, dtype=np.int64) << 32) + descending
        order = np.argsort(combined, kind="stable")
        same = np.diff(combined[order]) == 0
    else:
        order = np.lexsort((descending, groups))
        same = (np.diff(descending[order]) == 0) & (np.diff(np.asarray(groups)[order]) == 0)
    if same.any():  # re-sort each run of tied positions by document id descending
        tied = np.zeros(len(order), dtype=bool)
        tied[:-1] |= same
        tied[1:] |= same
        run = np.cumsum(np.concatenate(([True], ~same)))
        positions = np.flatnonzero(tied)
        if isinstance(documents, DocumentIds):
            codes = documents.take(order[positions]).codes()
        else:
            docs = np.asarray(documents)[order[positions]]
            if docs.dtype.kind not in "iuS":  # str ids by code point (strcmp on UTF-8); bytes or byte_order_codes
                docs = docs.astype(str)
            codes = np.unique(docs, return_inverse=True)[1].ravel()
        order[positions] = order[positions][np.lexsort((-codes, run[positions]))]
    return order


def _descending_key(values: np.ndarray) -> np.ndarray:
    """Integers (int64) that sort as ``values`` (float32 or float64) sort descending, equal where they are
    equal (``-0.0 == 0.0``): the IEEE bits, negatives' magnitude bits flipped, negated."""
    values = values + values.dtype.type(0)  # -0.0 becomes 0.0
    if values.dtype == np.float32:
        bits = values.view(np.int32).astype(np.int64)
        return np.int64(2**31 - 1) - np.where(bits < 0, bits ^ np.int64(0x7FFFFFFF), bits)
    bits = values.view(np.int64)
    return ~np.where(bits < 0, bits ^ np.int64(0x7FFFFFFFFFFFFFFF), bits)


def order_by_score(docs: Sequence[str], scores: Sequence[float], score_precision: str = "float32") -> list[int]:
    """Indices of ``docs`` in trec_eval's order (:func:`trec_eval_order`).

    >>> order_by_score(["a", "b", "c"], [1.0, 2.0, 1.0])
    [1, 2, 0]
    """
    return trec_eval_order(scores, docs, score_precision=score_precision).tolist()


def byte_order_codes(docnos: Sequence[str] | np.ndarray) -> np.ndarray:
    """Integer codes that sort as the ids sort byte by byte (C's strcmp, trec_eval's order of document ids):
    equal ids get equal codes (:meth:`~workbench.ids.DocumentIds.codes`).

    >>> byte_order_codes([b"b", b"ab", b"a", b"b"]).tolist()
    [2, 1, 0, 2]
    """
    docs = np.asarray(docnos)
    ids = DocumentIds.from_bytes(docs) if docs.dtype.kind == "S" else DocumentIds.from_strings(docs.ravel())
    return ids.codes()


def judgements_of(gold: Organization) -> dict[str, float]:
    """``{doc: grade}`` of what a gold judges: its prioritised documents with their grades, and a finite
    rest's documents with grade 0 (judged non-relevant).

    >>> judgements_of(Organization.parse("[2] a\\n[1] b\\nrest: c"))
    {'c': 0.0, 'a': 2.0, 'b': 1.0}
    """
    return dict.fromkeys(gold.rest or (), 0.0) | gold.grade_of()


def ranked_documents(output: Organization) -> list[str]:
    """The output's documents in rank order: levels top down, a tied level by id descending, no repeats."""
    seen: set[str] = set()
    ranked: list[str] = []
    for level in output.levels:
        for doc in sorted(set().union(*level), reverse=True):
            if doc not in seen:
                seen.add(doc)
                ranked.append(doc)
    return ranked


# ------------------------------------------------------------------------------------------ gain table
@dataclass(frozen=True, eq=False)
class GainTable:
    """Gains of a run, one row per query: ``gains[q, r]`` is the gain of the document at rank ``r + 1``
    (0-padded after the last retrieved one), ``ideal[q]`` the judged positive gains sorted descending
    (0-padded), ``topics`` the row labels.

    What trec_eval's judgement-aware measures (bpref, infAP, unj, rbp_resid, relstring) also need, each
    derived when not given: ``num_ret`` the number of retrieved documents per query (default: every
    column), ``judged`` whether the retrieved document has a judgement ≥ 0 (default: every retrieved one),
    ``pooled`` whether it is in the qrels at all, a negative grade meaning "pooled but unjudged" as in
    trec_eval (default: ``judged``), and ``n_judged`` the number of judged documents (grade ≥ 0) per query
    (default: the positive ones).
    """

    gains: np.ndarray
    ideal: np.ndarray
    topics: tuple[str, ...] = ()
    num_ret: np.ndarray | None = None
    judged: np.ndarray | None = None
    pooled: np.ndarray | None = None
    n_judged: np.ndarray | None = None

    def __post_init__(self) -> None:
        for name in ("gains", "ideal"):
            array = np.asarray(getattr(self, name), dtype=float)
            if array.ndim != 2:
                raise RankingInputError(f"{name} must be a matrix (queries × ranks), got shape {array.shape}")
            if not np.isfinite(array).all() or (array < 0).any():
                raise RankingInputError(f"{name} must hold finite gains ≥ 0")
            object.__setattr__(self, name, array)
        rows, width = self.gains.shape
        if rows != self.ideal.shape[0]:
            raise RankingInputError(f"{rows} gain rows but {self.ideal.shape[0]} ideal rows")
        if self.topics and len(self.topics) != rows:
            raise RankingInputError(f"{len(self.topics)} topics for {rows} rows")
        num_ret = np.full(rows, width) if self.num_ret is None else np.asarray(self.num_ret, dtype=np.int64)
        if num_ret.shape != (rows,) or (num_ret < 0).any() or (num_ret > width).any():
            raise RankingInputError(f"num_ret must give 0..{width} documents for each of the {rows} rows")
        object.__setattr__(self, "num_ret", num_ret)
        retrieved = np.arange(width)[None, :] < num_ret[:, None]
        for name, default in (("judged", retrieved), ("pooled", None)):
            value = getattr(self, name)
            mask = (self.judged if default is None else default) if value is None else \
                np.asarray(value, dtype=bool) & retrieved
            if mask.shape != (rows, width):
                raise RankingInputError(f"{name} must be a boolean matrix of shape {(rows, width)}")
            object.__setattr__(self, name, mask)
        n_judged = (self.ideal > 0).sum(axis=1) if self.n_judged is None else \
            np.asarray(self.n_judged, dtype=np.int64)
        if n_judged.shape != (rows,):
            raise RankingInputError(f"n_judged must give one count for each of the {rows} rows")
        object.__setattr__(self, "n_judged", n_judged)

    @classmethod
    def from_gains(cls, gains: Iterable[Iterable[float]], judged: Iterable[Iterable[float]],
                   topics: Sequence[str] = ()) -> GainTable:
        """Rows of retrieved gains (rank order) and of judged gains (any order, zeros allowed); every
        retrieved document counts as judged."""
        gains, judged = [list(map(float, g)) for g in gains], [list(map(float, j)) for j in judged]
        if len(gains) != len(judged):
            raise RankingInputError(f"{len(gains)} gain rows but {len(judged)} judged rows")
        ideal = [sorted((g for g in row if g > 0), reverse=True) for row in judged]
        return cls(_pad(gains), _pad(ideal), tuple(topics), num_ret=np.array([len(g) for g in gains], int),
                   n_judged=np.array([len(j) for j in judged], int))

    @classmethod
    def from_organizations(cls, gold: Organization, output: Organization) -> GainTable:
        """One row: the output's ranked documents (:func:`ranked_documents`) scored by the gold
        (:func:`judgements_of`). A retrieved document is judged when the gold prioritises it or holds it in a
        finite rest (judged non-relevant); an Organization keeps no other grade-0 judgement, so bpref, infAP,
        the judged fractions and ``judged_only`` need the qrels themselves (:meth:`from_run`) when those
        matter."""
        return cls.from_judged_rankings([(judgements_of(gold), ranked_documents(output))])

    @classmethod
    def from_judged_rankings(cls, rows: Sequence[tuple[Mapping[str, float], Sequence[str]]],
                             topics: Sequence[str] = ()) -> GainTable:
        """One row per ``(judgements {doc: grade}, ranked documents)`` pair: a document is judged when it has
        a grade (:meth:`from_entries` reads the flat arrays)."""
        ranked_rows, found, judged_rows, grades = [], [], [], []
        for row, (judged, ranked) in enumerate(rows):
            ranked_rows.extend([row] * len(ranked))
            found.extend(judged.get(doc, math.nan) for doc in ranked)
            judged_rows.extend([row] * len(judged))
            grades.extend(judged.values())
        table = cls.from_entries(np.array(ranked_rows, dtype=np.int64), np.array(found, dtype=float),
                                 np.array(judged_rows, dtype=np.int64), np.array(grades, dtype=float),
                                 tuple(topics) or ("",) * len(rows))
        return table if topics else dataclasses.replace(table, topics=())

    @classmethod
    def from_entries(cls, rows: np.ndarray, gains: np.ndarray, judged_rows: np.ndarray,
                     judged_grades: np.ndarray, topics: Sequence[str]) -> GainTable:
        """A table from flat arrays, one row per topic of ``topics``: ``rows[i]`` and ``gains[i]`` for every
        retrieved document, grouped by row (ascending) and in rank order inside a row (NaN: not in the qrels;
        a negative grade: pooled but unjudged, as in trec_eval; both gain 0); ``judged_rows[j]``,
        ``judged_grades[j]`` for every judgement, in any order (its positive grades make the ideal ranking).

        >>> t = GainTable.from_entries(np.array([0, 0, 1]), np.array([np.nan, 2, 1]), np.array([0, 0, 1]),
        ...                            np.array([2, 1, 3]), ("a", "b"))
        >>> t.gains.tolist(), t.ideal.tolist()
        ([[0.0, 2.0], [1.0, 0.0]], [[2.0, 1.0], [3.0, 0.0]])
        """
        n, rows = len(topics), np.asarray(rows)
        found = np.asarray(gains, dtype=float)
        grades = np.asarray(judged_grades, dtype=float)
        positive = grades > 0
        ideal_rows, ideal_grades = np.asarray(judged_rows)[positive], grades[positive]
        by_grade = np.lexsort((-ideal_grades, ideal_rows))
        ranked, judged, pooled = _scatter(rows, n, np.where(found > 0, found, 0.0), found >= 0, ~np.isnan(found))
        (ideal,) = _scatter(ideal_rows[by_grade], n, ideal_grades[by_grade])
        return cls(ranked, ideal, tuple(topics), num_ret=np.bincount(rows, minlength=n), judged=judged,
                   pooled=pooled, n_judged=np.bincount(np.asarray(judged_rows)[grades >= 0], minlength=n))

    @classmethod
    def from_run(cls, qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]],
                 score_precision: str = "float32", max_docs: int | None = None) -> GainTable:
        """A whole run, ``{topic: {doc: score}}``, against qrels ``{topic: {doc: grade}}``.

        Documents are ordered by :func:`trec_eval_order` (``score_precision``), the first ``max_docs`` of a
        topic kept (trec_eval's ``-M``); a negative grade marks a pooled but unjudged document (gain 0, as
        trec_eval reads ``-1`` in qrels); topics absent from the qrels are skipped, as trec_eval does.
        """
        topics = [t for t in run if t in qrels]
        width = max((len(run[t]) for t in topics), default=0)
        if max_docs is not None:
            width = min(width, max_docs)
        gains = np.zeros((len(topics), width))
        judged = np.zeros((len(topics), width), dtype=bool)
        pooled = np.zeros((len(topics), width), dtype=bool)
        num_ret = np.zeros(len(topics), dtype=np.int64)
        n_judged = np.zeros(len(topics), dtype=np.int64)
        ideal_rows = []
        for row, topic in enumerate(topics):
            judgements, ranked = qrels[topic], run[topic]
            try:
                found = np.fromiter(map(judgements.get, ranked, repeat(np.nan)), float, len(ranked))
                scores = np.fromiter(ranked.values(), float, len(ranked))
                grades = np.fromiter(judgements.values(), float, len(judgements))
            except (TypeError, ValueError) as error:
                raise RankingInputError(f"topic {topic!r}: a score or grade is not a number ({error})") \
                    from None
            if np.isnan(grades).any() or np.isinf(grades).any():
                raise RankingInputError(f"topic {topic!r}: a relevance grade is NaN or infinite")
            try:
                order = trec_eval_order(scores, list(ranked), score_precision=score_precision)[:width]
            except RankingInputError as error:
                raise RankingInputError(f"topic {topic!r}: {error}") from None
            found = found[order]
            num_ret[row] = len(found)
            pooled[row, :len(found)] = ~np.isnan(found)
            judged[row, :len(found)] = found >= 0
            gains[row, :len(found)] = np.where(found > 0, found, 0.0)
            n_judged[row] = (grades >= 0).sum()
            ideal_rows.append(np.sort(grades[grades > 0])[::-1].tolist())
        return cls(gains, _pad(ideal_rows), tuple(topics), num_ret=num_ret, judged=judged, pooled=pooled,
                   n_judged=n_judged)

    def shared(self, kernel: Callable, *args) -> np.ndarray:
        """``kernel(self, *args)``, computed once for this table and read-only: measures that need the same
        values (the relevant mask and its running count, AP for ``map`` and ``gm_map``) share them."""
        cache = self.__dict__.setdefault("_shared", {})
        key = (kernel, args)
        if key not in cache:
            value = kernel(self, *args)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            cache[key] = value
        return cache[key]

    def relevant(self, rel: float) -> np.ndarray:
        """Boolean matrix: the retrieved document reaches the relevance level ``rel`` (read-only)."""
        _check_level(rel)
        return self.shared(_reaching, rel)

    def relevant_counts(self, rel: float) -> np.ndarray:
        """The number of relevant documents (:meth:`relevant`) at or above each rank (read-only)."""
        return self.shared(_running_count, rel)

    def n_relevant(self, rel: float) -> np.ndarray:
        """Number of judged documents reaching the relevance level ``rel``, per query."""
        _check_level(rel)
        return (self.ideal >= rel).sum(axis=1)

    def retrieved(self) -> np.ndarray:
        """Boolean matrix: the column holds a retrieved document (not padding)."""
        return np.arange(self.gains.shape[1])[None, :] < self.num_ret[:, None]

    def judged_only(self) -> GainTable:
        """The table with each row compacted to its judged documents, in rank order: unjudged ones (outside
        the qrels, or with a negative grade) are removed and the documents below move up (trec_eval's ``-J``,
        ``form_res_rels.c``; ir_measures' ``judged_only=True``). The judgements (ideal, ``n_judged``) stay.

        What counts as judged is the table's ``judged`` mask: from qrels (:meth:`from_run`,
        :meth:`from_entries`) every judgement, grade 0 included; from an :class:`Organization`
        (:meth:`from_organizations`) only its prioritised documents and those of a finite rest.

        >>> t = GainTable(np.array([[0., 2, 0, 1]]), np.array([[2., 1]]), judged=np.array([[0, 1, 1, 1]]))
        >>> t.judged_only().gains.tolist(), t.judged_only().num_ret.tolist()
        ([[2.0, 0.0, 1.0]], [3])
        """
        return self._judged_table

    @functools.cached_property
    def _judged_table(self) -> GainTable:
        """:meth:`judged_only`, computed once per table (the measures of one run share it)."""
        if np.array_equal(self.judged, self.retrieved()):
            return self
        rows, columns = np.nonzero(self.judged)  # row-major: grouped by row, rank order inside a row
        num_ret = np.bincount(rows, minlength=self.gains.shape[0])
        width = int(num_ret.max(initial=0))
        position = np.arange(rows.size) - np.repeat(np.cumsum(num_ret) - num_ret, num_ret)
        gains = np.zeros((self.gains.shape[0], width))
        gains[rows, position] = self.gains[rows, columns]
        judged = np.zeros(gains.shape, dtype=bool)
        judged[rows, position] = True
        return GainTable(gains, self.ideal, self.topics, num_ret=num_ret, judged=judged, pooled=judged,
                         n_judged=self.n_judged)


def _scatter(rows: np.ndarray, n_rows: int, *values: np.ndarray) -> list[np.ndarray]:
    """0-padded matrices of ``n_rows`` rows, one per array of ``values`` grouped by row (``rows`` ascending),
    kept in order (each matrix of its values' dtype); the positions are computed once for all."""
    lengths = np.bincount(rows, minlength=n_rows) if len(rows) else np.zeros(n_rows, dtype=int)
    width = int(lengths.max(initial=0))
    starts = np.cumsum(lengths) - lengths
    flat = np.asarray(rows) * width + (np.arange(len(rows)) - np.repeat(starts, lengths))
    matrices = []
    for given in values:
        matrix = np.zeros((n_rows, width), dtype=given.dtype)
        matrix.reshape(-1)[flat] = given
        matrices.append(matrix)
    return matrices


def _pad(rows: list[list[float]]) -> np.ndarray:
    width = max((len(r) for r in rows), default=0)
    out = np.zeros((len(rows), width))
    for i, row in enumerate(rows):
        out[i, :len(row)] = row
    return out


def _check_level(rel: float) -> None:
    if not rel > 0:
        raise RankingInputError(f"rel (the relevance level) must be > 0, got {rel!r}")


def _at_rank(values: np.ndarray, rank_index: np.ndarray, found: np.ndarray) -> np.ndarray:
    """``values[q, rank_index[q]]`` where ``found[q]``, else 0."""
    if values.shape[1] == 0:
        return np.zeros(values.shape[0])
    index = np.clip(rank_index, 0, values.shape[1] - 1)
    return np.where(found, values[np.arange(values.shape[0]), index], 0.0)


def _first(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of the first True per row, and whether there is one."""
    if mask.shape[1] == 0:
        return np.zeros(mask.shape[0], dtype=int), np.zeros(mask.shape[0], dtype=bool)
    return mask.argmax(axis=1), mask.any(axis=1)


def _check_cutoff(k: object, name: str) -> None:
    if k is not None and (not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1):
        raise RankingInputError(f"{name}@k needs an integer k ≥ 1, got {k!r}")


def _reaching(table: GainTable, rel: float) -> np.ndarray:
    return table.gains >= rel


def _running_count(table: GainTable, rel: float) -> np.ndarray:
    return np.cumsum(table.relevant(rel), axis=1)


def _ranks(width: int) -> np.ndarray:
    return np.arange(1, width + 1, dtype=float)


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    den = np.asarray(den, dtype=float)
    return np.divide(num, den, out=np.zeros(np.broadcast_shapes(np.shape(num), den.shape)), where=den > 0)


# -------------------------------------------------------------------------------------- binary kernels
def success_at(table: GainTable, k: int = 10, rel: int = 1) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k, else 0 (trec_eval ``success_k``)."""
    _check_cutoff(k, "Success")
    if k is None:
        raise RankingInputError("Success@k needs a cutoff k")
    return table.relevant(rel)[:, :k].any(axis=1).astype(float)


def precision_at(table: GainTable, k: int = 10, rel: int = 1) -> np.ndarray:
    """P@k = |relevant in the top k| / k (trec_eval ``P_k``: divides by k even when fewer are retrieved)."""
    _check_cutoff(k, "P")
    if k is None:
        raise RankingInputError("P@k needs a cutoff k")
    return table.relevant(rel)[:, :k].sum(axis=1) / k


def r_precision(table: GainTable, rel: int = 1) -> np.ndarray:
    """RPrec = |relevant in the top R| / R, R = number of judged relevant documents (trec_eval ``Rprec``)."""
    hit, n_rel = table.relevant(rel), table.n_relevant(rel)
    looked = np.minimum(n_rel, hit.shape[1])
    found = _at_rank(table.relevant_counts(rel), looked - 1, looked > 0)
    return _safe_divide(found, n_rel)


def reciprocal_rank(table: GainTable, k: int | None = None, rel: int = 1) -> np.ndarray:
    """RR = 1 / rank of the first relevant document, 0 if none in the top k (trec_eval ``recip_rank``;
    RR@10 is MS MARCO's MRR@10)."""
    _check_cutoff(k, "RR")
    first, found = _first(table.relevant(rel)[:, :k])
    return np.where(found, 1.0 / (first + 1), 0.0)


def average_precision(table: GainTable, k: int | None = None, rel: int = 1) -> np.ndarray:
    """AP = Σ_{relevant ranks r ≤ k} P@r / R (trec_eval ``map`` per query, ``map_cut_k`` with k; unretrieved
    relevant documents add 0)."""
    _check_cutoff(k, "AP")
    hit = table.relevant(rel)[:, :k]
    precision = table.relevant_counts(rel)[:, :k] / _ranks(hit.shape[1])
    return _safe_divide((precision * hit).sum(axis=1), table.n_relevant(rel))


# -------------------------------------------------------------------------------------- graded kernels
def _gain_values(gains: np.ndarray, gain: str) -> np.ndarray:
    if gain == "linear":
        return gains
    if gain == "exp":
        return np.exp2(gains) - 1.0
    raise RankingInputError(f"gain must be 'linear' or 'exp', got {gain!r}")


def ndcg(table: GainTable, k: int | None = None, gain: str = "linear", gains=None) -> np.ndarray:
    """nDCG = DCG / ideal DCG, DCG = Σ_r g(r) / log2(r + 1) over the top k (all retrieved when k is None).

    ``gain="linear"``: g = the grade (trec_eval ``ndcg`` / ``ndcg_cut_k``, Järvelin & Kekäläinen);
    ``gain="exp"``: g = 2^grade − 1 (Burges et al. 2005). The ideal ranks every judged document.
    ``gains`` maps grades to gains as trec_eval's ``-m ndcg.1=3,2=9`` and ir_measures' ``nDCG(gains={1:3,2:9})``
    do (a mapping or ``(grade, gain)`` pairs; :func:`workbench.metrics.trec_measures.gain_tables`).
    """
    _check_cutoff(k, "nDCG")
    if gains:
        from workbench.metrics.trec_measures import gain_tables

        mapped, best = gain_tables(table, dict(gains))
        mapped, best = mapped[:, :k], best[:, :k]
        discount = 1.0 / np.log2(_ranks(max(mapped.shape[1], best.shape[1])) + 1.0)
        return _safe_divide(mapped @ discount[:mapped.shape[1]], best @ discount[:best.shape[1]])
    gains, ideal = table.gains[:, :k], table.ideal[:, :k]
    width = max(gains.shape[1], ideal.shape[1])
    discount = 1.0 / np.log2(_ranks(width) + 1.0)
    dcg = _gain_values(gains, gain) @ discount[:gains.shape[1]]
    best = _gain_values(ideal, gain) @ discount[:ideal.shape[1]]
    return _safe_divide(dcg, best)


def _max_gain(table: GainTable, max_grade: float | None) -> np.ndarray:
    top = table.ideal[:, 0] if table.ideal.shape[1] else np.zeros(table.ideal.shape[0])
    return np.full(top.shape, float(max_grade)) if max_grade is not None else top


def err(table: GainTable, k: int | None = None, gain: str = "exp",
        max_grade: float | None = 4) -> np.ndarray:
    """ERR = Σ_r R_r / r · Π_{i<r} (1 − R_i) (Chapelle et al. 2009) over the top k.

    ``gain="exp"``: R = (2^g − 1) / 2^g_max (Chapelle); ``gain="linear"``: R = g / (g_max + 1) (NTCIREVAL).
    g_max is ``max_grade``: by default 4, the top of the TREC Web track's 0–4 scale (as gdeval, hence
    ir_measures' ``ERR@20``); None takes the highest judged grade of the query. R is capped at 1.
    """
    _check_cutoff(k, "ERR")
    gains = table.gains[:, :k]
    top = _max_gain(table, max_grade)[:, None]
    if gain == "exp":
        stop = _safe_divide(np.exp2(gains) - 1.0, np.exp2(top) * (top > 0))
    elif gain == "linear":
        stop = _safe_divide(gains, (top + 1.0) * (top > 0))
    else:
        raise RankingInputError(f"gain must be 'linear' or 'exp', got {gain!r}")
    stop = np.minimum(stop, 1.0)
    reach = np.cumprod(np.hstack([np.ones((stop.shape[0], 1)), 1.0 - stop[:, :-1]]), axis=1)
    return (stop * reach / _ranks(stop.shape[1])).sum(axis=1)


def rbp(table: GainTable, p: float = 0.8, max_grade: float | None = None,
        rel: int | None = None) -> np.ndarray:
    """RBP = (1 − p) Σ_r (g(r) / g_max) p^(r−1) (Moffat & Zobel 2008; graded gains scaled to [0, 1] by the
    highest judged grade as NTCIREVAL does, and trec_eval's ``rbp`` for integer grades — trec_eval leaves
    gains already within [0, 1] unscaled; a grade above ``max_grade`` counts as ``max_grade``). With ``rel``,
    binary: g = 1 from grade ``rel`` up, else 0 (ir_measures' ``RBP(rel=1)``). trec_eval's default p is 0.9,
    the registry's 0.8 (ir_measures')."""
    if not 0 < p < 1:
        raise RankingInputError(f"RBP needs 0 < p < 1, got {p}")
    if rel is not None:
        scaled = table.relevant(rel).astype(float)
    else:
        scaled = np.minimum(_safe_divide(table.gains, _max_gain(table, max_grade)[:, None]), 1.0)
    return (1.0 - p) * (scaled @ p ** np.arange(table.gains.shape[1]))


def _blended_ratio(table: GainTable, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's BR(r) = (C(r) + β cg(r)) / (r + β cg*(r)) at every rank, and the relevance mask."""
    if beta < 0:
        raise RankingInputError(f"beta must be ≥ 0, got {beta}")
    gains = table.gains
    width = gains.shape[1]
    rel = gains > 0
    ideal = np.zeros((gains.shape[0], width))
    take = min(width, table.ideal.shape[1])
    ideal[:, :take] = table.ideal[:, :take]
    ideal_cum = np.cumsum(ideal, axis=1)
    ratio = (np.cumsum(rel, axis=1) + beta * np.cumsum(gains, axis=1)) / (_ranks(width) + beta * ideal_cum)
    return ratio, rel


def q_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """Q = (1/R) Σ_{relevant ranks r} BR(r), R = number of judged relevant documents (seed 002, eq. of Q)."""
    ratio, rel = _blended_ratio(table, beta)
    return _safe_divide((ratio * rel).sum(axis=1), (table.ideal > 0).sum(axis=1))




def o_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """O = BR(r1), r1 the rank of the first relevant document (seed 002)."""
    ratio, rel = _blended_ratio(table, beta)
    return _at_rank(ratio, *_first(rel))


def _preferred_rank(table: GainTable) -> tuple[np.ndarray, np.ndarray]:
    """rp: the first rank holding the highest gain retrieved (seed 002), and whether any is relevant."""
    gains = table.gains
    if gains.shape[1] == 0:
        return np.zeros(gains.shape[0], dtype=int), np.zeros(gains.shape[0], dtype=bool)
    return gains.argmax(axis=1), gains.max(axis=1) > 0


def p_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """P = BR(rp), rp the first rank holding the highest relevance level retrieved (seed 002, Figure 1:
    P(X) = 6/7, P(Y) = 4/7)."""
    ratio, _ = _blended_ratio(table, beta)
    preferred, found = _preferred_rank(table)
    return _at_rank(ratio, preferred, found)


def p_plus_measure(table: GainTable, beta: float = 1.0) -> np.ndarray:
    """P+ = (1 / C(rp)) Σ_{relevant r ≤ rp} BR(r): BR averaged over the relevant ranks down to rp
    (seed 002)."""
    ratio, rel = _blended_ratio(table, beta)
    preferred, found = _preferred_rank(table)
    upto = (_ranks(rel.shape[1])[None, :] <= preferred[:, None] + 1) & rel & found[:, None]
    return _safe_divide((ratio * upto).sum(axis=1), upto.sum(axis=1))


# ---------------------------------------------------------------------------------- registry adapters
class _Adapter:
    """``compute(gold, output, **params)`` for the registry, keeping the vectorised kernel as ``.kernel``;
    :meth:`score` applies a measure's ``judged_only`` (:meth:`GainTable.judged_only`) before the kernel."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.__doc__ = kernel.__doc__

    def score(self, table: GainTable, judged_only: bool = False, **params) -> np.ndarray:
        """The kernel's values on ``table``, or on its judged documents only."""
        return self.kernel(table.judged_only() if judged_only else table, **params)

    def __call__(self, gold: Organization, output: Organization, **params) -> float:
        return float(self.score(GainTable.from_organizations(gold, output), **params)[0])


def evaluate_run(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]],
                 measures: Iterable[str], score_precision: str = "float32",
                 max_docs: int | None = None) -> dict[str, dict[str, float]]:
    """Score a whole run in one vectorised pass: ``{measure: {topic: value}}`` for ranking measures.

    ``qrels`` is ``{topic: {doc: grade}}``, ``run`` is ``{topic: {doc: score}}`` (trec_eval's order,
    :func:`trec_eval_order`; ``max_docs`` is trec_eval's ``-M``).

    >>> evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.9}}, ["RR", "P@1"])
    {'RR': {'q': 0.5}, 'P@1': {'q': 0.0}}
    """
    table = GainTable.from_run(qrels, run, score_precision=score_precision, max_docs=max_docs)
    return evaluate_table(table, measures)


def is_table_measure(measure: str | Measure) -> bool:
    """Whether a measure is computed from a :class:`GainTable` (so that a whole run is scored at once)."""
    return isinstance(parse(measure).spec.compute, _Adapter)


def evaluate_table(table: GainTable, measures: Iterable[str]) -> dict[str, dict[str, float]]:
    """Every measure (a ranking measure name) on every row of ``table``: ``{measure: {topic: value}}``."""
    topics = table.topics or tuple(str(i) for i in range(table.gains.shape[0]))
    out: dict[str, dict[str, float]] = {}
    for name in measures:
        measure = parse(name)
        if not isinstance(measure.spec.compute, _Adapter):
            raise RankingInputError(f"{name!r} is not a ranking measure")
        values = measure.spec.compute.score(table, **measure.params)
        out[name] = dict(zip(topics, values.tolist(), strict=True))
    return out


_BINARY = {"rel": 1}
_CUTOFF, _OPTIONAL_CUTOFF = Interval(1, integer=True), Interval(1, integer=True, optional=True)
JUDGED_ONLY = {"judged_only": False}
"""ir_measures' ``judged_only`` parameter, trec_eval's ``-J`` (:meth:`GainTable.judged_only`): declared by every
trec_eval measure and by those ir_measures gives it to."""
JUDGED_ONLY_DOMAIN = {"judged_only": Choices((False, True))}
_LEVEL = {"rel": Interval(0, low_open=True), **JUDGED_ONLY_DOMAIN}
_BINARY_JUDGED = {**_BINARY, **JUDGED_ONLY}
_GRADE = Interval(0, low_open=True, optional=True)
register("P", _Adapter(precision_at), task="ranking", source=TREC_EVAL, params={"k": 10, **_BINARY_JUDGED},
         cutoff="k", domains={"k": _CUTOFF, **_LEVEL}, description="precision at k, divided by k (trec_eval P_k)")
register("Rprec", _Adapter(r_precision), task="ranking", source=TREC_EVAL, params=_BINARY_JUDGED,
         aliases=("RPrec",), domains=_LEVEL,
         description="precision at rank R, the number of judged relevant documents (trec_eval Rprec)")
register("RR", _Adapter(reciprocal_rank), task="ranking", source=TREC_EVAL,
         params={"k": None, **_BINARY_JUDGED}, cutoff="k", aliases=("recip_rank",),
         domains={"k": _OPTIONAL_CUTOFF, **_LEVEL},
         description="reciprocal rank of the first relevant document (in the top k for RR@k)")
register("AP", _Adapter(average_precision), task="ranking", source=TREC_EVAL,
         params={"k": None, **_BINARY_JUDGED}, cutoff="k", aliases=("map", "map_cut"),
         domains={"k": _OPTIONAL_CUTOFF, **_LEVEL},
         description="average precision (trec_eval map; AP@k is map_cut_k)")
register("Success", _Adapter(success_at), task="ranking", source=TREC_EVAL,
         params={"k": 10, **_BINARY_JUDGED}, cutoff="k", aliases=("success",), domains={"k": _CUTOFF, **_LEVEL},
         description="1 if a relevant document is in the top k (trec_eval success_k)")
register("nDCG", _Adapter(ndcg), task="ranking", source=TREC_EVAL,
         params={"k": None, "gain": "linear", "gains": None, **JUDGED_ONLY}, choices={"gain": ("linear", "exp")},
         cutoff="k", aliases=("ndcg", "ndcg_cut"),
         domains={"k": _OPTIONAL_CUTOFF, "gains": Pairs(Interval(0, low_open=True), Interval(0, high_open=True)),
                  **JUDGED_ONLY_DOMAIN},
         description="normalised DCG, log2(r+1) discount; gain=linear (trec_eval ndcg, ndcg_cut_k) "
                     "or gain=exp (2^g − 1, Burges)")
register("ERR", _Adapter(err), task="ranking", source="Chapelle et al., CIKM 2009; gdeval",
         params={"k": None, "gain": "exp", "max_grade": 4}, choices={"gain": ("exp", "linear")},
         domains={"k": _OPTIONAL_CUTOFF, "max_grade": _GRADE}, cutoff="k",
         description="expected reciprocal rank; gain=exp (Chapelle, gdeval) or linear (NTCIREVAL)")
register("RBP", _Adapter(rbp), task="ranking", source="Moffat & Zobel, TOIS 2008",
         params={"p": 0.8, "max_grade": None, "rel": None, **JUDGED_ONLY},
         domains={"p": Interval(0, 1, low_open=True, high_open=True), "max_grade": _GRADE,
                  "rel": Interval(0, low_open=True, optional=True), **JUDGED_ONLY_DOMAIN},
         description="rank-biased precision with persistence p (binary from level rel when given)")
for _name, _kernel, _what in (("Q-measure", q_measure, "Q-measure: blended ratio at every relevant rank"),
                              ("O-measure", o_measure, "O-measure: blended ratio at the first relevant rank"),
                              ("P-measure", p_measure, "P-measure: blended ratio at the preferred rank"),
                              ("P+-measure", p_plus_measure, "P+-measure: blended ratio averaged down to "
                                                             "the preferred rank")):
    register(_name, _Adapter(_kernel), task="ranking", source=SAKAI, params={"beta": 1.0},
             domains={"beta": Interval(0)}, description=_what)
