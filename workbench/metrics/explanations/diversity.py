"""Diversity measures explained per document and subtopic: each retrieved document's term for each subtopic it is
judged for, read from the same :class:`~workbench.metrics.ranking.diversity.SubtopicTable` the kernels score.

Every diversity measure of :mod:`workbench.metrics.ranking.diversity` is a sum over ranks r and subtopics s of a
term J(r, s) · novelty · discount · normaliser (J(r, s) = 1 when the document at rank r reaches grade ``rel`` for
s), so a row is one (document, subtopic) pair:

* ``alpha_nDCG@k``: (1 − α)^{c_s(r)} · 1/log2(r + 1) / ideal α-DCG@k (columns ``seen_above`` = c_s(r), the
  documents above r relevant to s, ``novelty``, ``discount``, ``ideal_dcg``);
* ``ERR_IA@k``: (1 − α)^{c_s(r)} · 1/r / (m Σ_{i≤k} (1 − α)^{i−1}/i) (``novelty``, ``1/r``, ``ideal_err``);
* ``NRBP``: (1 − α)^{c_s(r)} · β^{r−1} · (1 − (1 − α)β)/m (``novelty``, ``weight``, ``scale``);
* ``P_IA@k``: 1/(k·m) per relevant pair in the top k (``1/(k·m)``);
* ``StRecall@k``: 1/m for the first document relevant to s in the top k (``first_for_subtopic``, ``1/m``).

A retrieved document judged for no subtopic has one row without a subtopic (contribution 0); a document judged
relevant to a subtopic the ranking misses has a row per subtopic with rank ``<NA>``; ranks past k contribute 0.
What a row ``lost`` is measured against the greedy ideal ranking of the judged documents (α of the measure;
P_IA: α = 0, the most subtopics first; StRecall: α = 1, new subtopics first), equal gains in the ranking's order
(the unretrieved after, by ndeval's rule): the pair's term there minus its term here.

    >>> from workbench.model import Organization
    >>> gold = Organization.parse("{a b} {c}")  # two subtopics: {a, b} and {c}
    >>> e = explain_diversity(gold, Organization.from_ranking(["a", "b", "c"]), "alpha_nDCG@3")
    >>> print(e.contributions[["rank", "document", "novelty", "discount"]].round(4).to_string(index=False))
     rank document  novelty  discount
        1        a      1.0    1.0000
        2        b      0.5    0.6309
        3        c      1.0    0.5000
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.ranking.declare import SubtopicMeasure
from workbench.metrics.ranking.diversity import (
    SubtopicTable,
    ideal_ranking,
)
from workbench.metrics.ranking.table import RankingInputError
from workbench.metrics.registry import Measure, declared_terms, explanation_of, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization

__all__ = ["PER_SUBTOPIC", "explain_subtopic_table", "explain_diversity"]

PER_SUBTOPIC = ("seen_above", "novelty", "first_for_subtopic")  # factors of a (document, subtopic) pair


def _ideal_relevance(table: SubtopicTable, alpha: float, rel: float,
                     run_rank: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The relevance array of each row's greedy ideal ranking of every judged document (equal gains: by
    ``run_rank``, the judged document's rank in the run, then ndeval's order), and the rank each judged document
    (index j) has there."""
    n_rows, n_docs, _ = table.judged.shape
    tiebreak = np.where(run_rank >= 0, run_rank, table.grades.shape[1] + table.tiebreak)
    by_run = SubtopicTable(table.grades, table.judged, tiebreak, table.num_ret, table.topics)
    _, order = ideal_ranking(by_run, alpha, rel, n_docs)
    every = np.arange(n_rows)[:, None]
    position = np.empty((n_rows, n_docs), dtype=np.int64)
    position[every, order] = np.arange(n_docs)[None, :]
    return table.judged[every, order] >= rel, position


class _Found:
    """The retrieved documents of a subtopic table's rows flattened (``rows``, ``ranks``, ``ranked``), each one's
    judged index ``judged_at`` (−1: not judged), ``run_rank[q, j]`` (the rank of judged document j in row q's
    ranking, −1: not retrieved), and the judged documents and subtopics flattened with their row offsets."""

    def __init__(self, table: SubtopicTable, ranked: Sequence[Sequence[str]], documents: Sequence[Sequence[str]],
                 subtopic_names: Sequence[Sequence[str]]) -> None:
        import pandas as pd

        n_rows = table.grades.shape[0]
        lengths = table.num_ret
        self.rows = np.repeat(np.arange(n_rows), lengths)
        starts = np.concatenate(([0], np.cumsum(lengths)))
        self.ranks = np.arange(int(starts[-1])) - np.repeat(starts[:-1], lengths)
        self.ranked = _objects([doc for q in range(n_rows) for doc in list(ranked[q])[:int(lengths[q])]])
        counts = [len(row) for row in documents]
        self.judged = _objects([doc for row in documents for doc in row])
        self.judged_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        judged_rows = np.repeat(np.arange(n_rows), counts)
        index = pd.MultiIndex.from_arrays([judged_rows, self.judged])
        at = index.get_indexer(pd.MultiIndex.from_arrays([self.rows, self.ranked])) if len(index) else \
            np.full(len(self.rows), -1)
        self.judged_at = np.where(at >= 0, at - self.judged_offsets[self.rows], -1).astype(np.int64)
        self.run_rank = np.full(table.tiebreak.shape, -1, dtype=np.int64)
        hit = self.judged_at >= 0
        self.run_rank[self.rows[hit], self.judged_at[hit]] = self.ranks[hit]
        self.subtopics = _objects([name for names in subtopic_names for name in names])
        self.subtopic_offsets = np.cumsum([0] + [len(names) for names in subtopic_names])


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _gather(array: np.ndarray, q: np.ndarray, r: np.ndarray, s: np.ndarray, where: np.ndarray, fill=0.0):
    """``array[q, r, s]`` where ``where`` holds, ``fill`` elsewhere."""
    out = np.full(len(q), fill, dtype=array.dtype)
    out[where] = array[q[where], r[where], s[where]]
    return out


def _strings(values: np.ndarray):
    """A column of strings (None: missing) backed by Arrow, as the ranking explanations' documents are."""
    import pandas as pd
    import pyarrow as pa

    return pd.arrays.ArrowExtensionArray(pa.array(values, type=pa.string()))


@dataclass(frozen=True)
class _Pairs:
    """The explanation's rows as arrays: the table's row ``q``, the rank ``r`` (−1: missed), the subtopic ``s``
    (−1: none), the judged document's index ``j`` (−1: not judged) and the document's name; each topic's
    retrieved rows (in rank order, a row per subtopic judged positive, one without a subtopic when there is
    none), then its missed ones (a row per subtopic judged positive, in the ideal's order).

    >>> gold = Organization.parse("{a b} {c}")
    >>> table = SubtopicTable.from_organizations(gold, Organization.from_ranking(["a", "c"]))
    >>> found = _Found(table, [["a", "c"]], table.documents, table.subtopic_names)
    >>> pairs = _Pairs.of(table, found, _ideal_relevance(table, 0.5, 1.0, found.run_rank)[1])
    >>> pairs.names.tolist(), pairs.r.tolist(), pairs.s.tolist(), pairs.grade(table).tolist()
    (['a', 'c', 'b'], [0, 1, -1], [0, 1, 0], [1.0, 1.0, 1.0])
    """

    q: np.ndarray
    r: np.ndarray
    s: np.ndarray
    j: np.ndarray
    names: np.ndarray

    @classmethod
    def of(cls, table: SubtopicTable, found: _Found, ideal_position: np.ndarray) -> _Pairs:
        positive = table.grades[found.rows, found.ranks] > 0
        with_subtopic, subtopic = np.nonzero(positive)
        without = np.flatnonzero(~positive.any(axis=1))
        entry = np.concatenate((with_subtopic, without))
        s_here = np.concatenate((subtopic, np.full(len(without), -1, dtype=np.int64)))
        order = np.lexsort((s_here, entry))
        entry, s_here = entry[order], s_here[order]
        m_q, m_j, m_s = np.nonzero((table.judged > 0) & (found.run_rank < 0)[:, :, None])
        order = np.lexsort((m_s, ideal_position[m_q, m_j], m_q))
        m_q, m_j, m_s = m_q[order], m_j[order], m_s[order]
        q = np.concatenate((found.rows[entry], m_q))
        r = np.concatenate((found.ranks[entry], np.full(len(m_q), -1, dtype=np.int64)))
        s = np.concatenate((s_here, m_s))
        j = np.concatenate((found.judged_at[entry], m_j))
        names = np.concatenate((found.ranked[entry], found.judged[found.judged_offsets[m_q] + m_j]))
        order = np.argsort(2 * q + (r < 0), kind="stable")
        return cls(q[order], r[order], s[order], j[order], names[order])

    @property
    def here(self) -> np.ndarray:
        """The rows of retrieved documents."""
        return self.r >= 0

    @property
    def pair(self) -> np.ndarray:
        """The rows of a retrieved document and a subtopic."""
        return self.here & (self.s >= 0)

    def grade(self, table: SubtopicTable) -> np.ndarray:
        """Each row's grade for its subtopic: 0 for a judged document without one, NaN for an unjudged one."""
        q, r, s, j = self.q, self.r, self.s, self.j
        grade = np.where(s < 0, np.where(j >= 0, 0.0, np.nan), 0.0)
        retrieved_pair, missed_pair = self.pair, ~self.here
        grade[retrieved_pair] = table.grades[q[retrieved_pair], r[retrieved_pair], s[retrieved_pair]]
        grade[missed_pair] = table.judged[q[missed_pair], j[missed_pair], s[missed_pair]]
        return grade

    def subtopic(self, found: _Found) -> np.ndarray:
        """Each row's subtopic name (None: no subtopic)."""
        subtopic_names = _objects([*found.subtopics, None])
        return subtopic_names[np.where(self.s >= 0, found.subtopic_offsets[self.q] + self.s, len(found.subtopics))]

    def contribution_lost(self, contribution: np.ndarray, ideal: np.ndarray,
                          ideal_position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's term J(r, s) · novelty · discount · normaliser (``contribution``, the measure's terms per
        row, rank and subtopic), and what it lost: its term in the ideal ranking (``ideal``, where the judged
        document j of row q sits at ``ideal_position[q, j]``) minus the one it has.

        >>> pairs = _Pairs(np.zeros(2, dtype=np.int64), np.array([0, -1]), np.array([0, 0]), np.array([1, 0]),
        ...                _objects(["x", "y"]))
        >>> terms, ideal = np.array([[[0.5]]]), np.array([[[1.0], [0.25]]])
        >>> [a.tolist() for a in pairs.contribution_lost(terms, ideal, np.array([[1, 0]]))]  # x: 1 − 0.5
        [[0.5, 0.0], [0.5, 0.25]]
        """
        q, r, s, j = self.q, self.r, self.s, self.j
        mine = _gather(contribution, q, r, s, self.pair)
        judged_pair = (s >= 0) & (j >= 0)
        ideal_rank = np.full(len(q), -1, dtype=np.int64)
        ideal_rank[judged_pair] = ideal_position[q[judged_pair], j[judged_pair]]
        return mine, _gather(ideal, q, ideal_rank, s, judged_pair) - mine + 0.0


def _columns(table: SubtopicTable, pairs: _Pairs, found: _Found, factors: dict[str, np.ndarray], rel: float,
             with_topics: bool) -> dict[str, object]:
    """The frame's columns before ``contribution`` and ``lost``: ``topic`` (``with_topics``), ``rank``,
    ``document``, ``subtopic``, ``grade``, ``relevant``, ``judged``, then each factor, defined on a (document,
    subtopic) pair (:data:`PER_SUBTOPIC`) or on a retrieved document.

    >>> gold = Organization.parse("{a b} {c}")
    >>> table = SubtopicTable.from_organizations(gold, Organization.from_ranking(["a", "c"]))
    >>> found = _Found(table, [["a", "c"]], table.documents, table.subtopic_names)
    >>> pairs = _Pairs.of(table, found, _ideal_relevance(table, 0.5, 1.0, found.run_rank)[1])
    >>> import pandas as pd
    >>> print(pd.DataFrame(_columns(table, pairs, found, {}, 1.0, False)).to_string(index=False))
     rank document subtopic  grade  relevant  judged
        1        a      0.0    1.0      True    True
        2        c      0.1    1.0      True    True
     <NA>        b      0.0    1.0      True    True
    """
    import pandas as pd

    q, r, s, j = pairs.q, pairs.r, pairs.s, pairs.j
    here, pair, grade = pairs.here, pairs.pair, pairs.grade(table)
    columns: dict[str, object] = {}
    if with_topics:
        columns["topic"] = pd.Categorical.from_codes(q, dtype=pd.CategoricalDtype(list(table.topics)),
                                                     validate=False)
    columns |= {"rank": pd.arrays.IntegerArray(r + 1, ~here), "document": _strings(pairs.names),
                "subtopic": _strings(pairs.subtopic(found)), "grade": grade,
                "relevant": pd.arrays.BooleanArray(grade >= rel, s < 0), "judged": j >= 0}
    for name, factor in factors.items():
        defined = pair if name in PER_SUBTOPIC else here
        if factor.dtype == bool:
            columns[name] = pd.arrays.BooleanArray(_gather(factor, q, r, s, defined, False), ~defined)
        else:
            columns[name] = _gather(factor.astype(float), q, r, np.maximum(s, 0), defined, np.nan)
    return columns


def explain_subtopic_table(table: SubtopicTable, measure: str | Measure, ranked: Sequence[Sequence[str]],
                           with_topics: bool = False) -> MeasureExplanation:
    """A diversity measure on every row of ``table`` explained per (document, subtopic) pair (the module
    docstring); ``ranked[q]`` names the documents of row q in rank order, ``table.documents`` and
    ``table.subtopic_names`` the judged documents and the subtopics. One row: the score is the kernel's; several
    (``with_topics``), their summary, ``scores`` holding each row's. The steps: :class:`_Found` (who sits
    where), :func:`_ideal_relevance` (the ideal ranking), :class:`_Pairs` (the rows, their contribution and
    lost), :func:`_columns`.

    >>> gold = Organization.parse("{a b} {c}")
    >>> table = SubtopicTable.from_organizations(gold, Organization.from_ranking(["a", "c"]))
    >>> e = explain_subtopic_table(table, "alpha_nDCG@3", [["a", "c"]])
    >>> round(e.score, 4)  # (1 + 1/log₂ 3) / ideal a, c, b: (1 + 1/log₂ 3 + 0.5/2)
    0.8671
    >>> e.contributions.contribution.round(4).tolist(), e.contributions.lost.round(4).tolist()  # b lost 0.25/1.8809
    ([0.5317, 0.3354, 0.0], [0.0, 0.0, 0.1329])
    """
    import pandas as pd

    measure = parse(measure)
    spec, params = measure.spec, measure.params
    kernel = spec.compute
    if not isinstance(kernel, SubtopicMeasure):
        raise RankingInputError(f"{measure} is not a diversity measure: a subtopic table cannot explain it")
    if table.documents is None or table.subtopic_names is None:
        raise RankingInputError("a subtopic table explained needs the names of its documents and subtopics "
                                "(SubtopicTable.from_rows or workbench.data.trec.subtopic_table give them)")
    values = kernel.score(table, **params)  # the kernel, as evaluate scores
    rel = params.get("rel", 1.0)
    terms_of = declared_terms(spec)  # the declaration's (workbench.metrics.ranking.measures.diversity)
    terms = terms_of(table, table.relevant(rel), **params)
    found = _Found(table, ranked, table.documents, table.subtopic_names)
    ideal_relevant, ideal_position = _ideal_relevance(table, terms.ideal_alpha, rel, found.run_rank)
    pairs = _Pairs.of(table, found, ideal_position)
    contribution, lost = pairs.contribution_lost(terms.contribution,
                                                 terms_of(table, ideal_relevant, **params).contribution,
                                                 ideal_position)
    factors = {name: np.broadcast_to(factor, table.grades.shape) for name, factor in terms.factors.items()}
    columns = _columns(table, pairs, found, factors, rel, with_topics) | {"contribution": contribution,
                                                                          "lost": lost}
    name = str(measure)
    topics = list(table.topics) if table.topics else [str(i) for i in range(len(values))]
    score = float(values[0]) if len(values) == 1 else float(
        summarize(np.asarray(values, dtype=float)[trec_order(topics)], spec.aggregate))
    scores = pd.Series(values, index=pd.Index(topics, name="topic"), name=name) if with_topics else None
    how = explanation_of(spec.name)[1]
    return MeasureExplanation(name, score, pd.DataFrame(columns), {name: score}, terms.formula, how, scores=scores)


def explain_diversity(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A diversity measure of ``output`` against ``gold`` (a subtopic per cluster of its levels, as
    :meth:`SubtopicTable.from_organizations` reads it) explained per document and subtopic."""
    table = SubtopicTable.from_organizations(gold, output)
    assert table.ranked is not None  # from_rows keeps who sits where
    return explain_subtopic_table(table, measure, table.ranked)
