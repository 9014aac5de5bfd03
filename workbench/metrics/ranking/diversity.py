"""Novelty and diversity measures over subtopic judgements (TREC Web track diversity qrels, ``topic subtopic
document grade``), as ndeval 4.5 (the TREC Web track's evaluation tool, Clarke et al.) computes them, spelled as
ir_measures spells them: ``alpha_nDCG@k``, ``ERR_IA@k``, ``NRBP``, ``P_IA@k``, ``StRecall@k``.

A run is ranked as pyndeval ranks it for ndeval: by score, equal scores by document id ascending (the other ranking
measures follow trec_eval, which puts the greatest id first; ndeval.c itself reads a run file's rank column, or with
``-traditional`` ranks as trec_eval: :func:`workbench.data.trec.join.ndeval_order`). A document is relevant to a
subtopic when its grade for it reaches ``rel`` (ndeval reads every positive judgement as 1); m is the number of
subtopics with a relevant document (ndeval's ``actualSubtopics``); every measure is 0 when m = 0. The gain of the
document at rank r is g(r) = Σ_s J(r, s) (1 − α)^{c_s(r)}, c_s(r) the number of documents above r relevant to s
(Clarke et al., SIGIR 2008):

* ``alpha_nDCG@k`` = Σ_{r≤k} g(r) / log2(r + 1) over the same sum for the ideal ranking, built greedily from every
  judged document as ndeval builds it (the best gain next; equal gains: the greatest document id);
* ``ERR_IA@k`` = Σ_{r≤k} g(r) / r over Σ_{r≤k} m (1 − α)^{r−1} / r (ndeval's "collection-independent"
  normalisation; ndeval leaves ERR-IA@1 unnormalised, a slip this module does not copy: at k = 1 the value here
  is ndeval's divided by m);
* ``NRBP`` = (1 − (1 − α) β) / m · Σ_r g(r) β^{r−1} over the whole ranking (Clarke et al., ICTIR 2009);
* ``P_IA@k`` = Σ_{r≤k} Σ_s J(r, s) / (k · m) (Agrawal et al., WSDM 2009; divided by k even when fewer are
  retrieved);
* ``StRecall@k`` = |subtopics relevant in the top k| / m (Zhai et al., SIGIR 2003).

    >>> t = SubtopicTable.from_rows([({"1": {"a": 1, "b": 1}, "2": {"b": 1}}, ["a", "b"])])
    >>> float(strecall(t, k=1)[0]), float(p_ia(t, k=2)[0])
    (0.5, 0.75)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from workbench.metrics.ranking.matching import match_names
from workbench.metrics.ranking.table import CUTOFF, RELEVANCE_LEVEL, RankingInputError, ranked_documents, ranks
from workbench.model import Organization, natural_key
from workbench.validation import Interval, validate

__all__ = ["DEPTH", "NOVELTY", "PERSISTENCE", "SubtopicTable", "novelty_gains", "ideal_ranking", "discounted_sum",
           "alpha_ndcg", "err_ia", "reciprocal_decay", "nrbp", "p_ia", "strecall"]

DEPTH = dataclasses.replace(CUTOFF, optional=True)
"""The domain of the diversity measures' cutoff k: the top k ranks, or None for the whole ranking."""
NOVELTY = Interval(0, 1)
"""The domain of α: how much a document relevant to a subtopic already covered loses, (1 − α) per earlier one."""
PERSISTENCE = Interval(0, 1)
"""The domain of NRBP's β: the persistence, as RBP's p."""


class SubtopicTable:
    """Subtopic grades of a run, one row per topic: ``grades[q, r, s]`` the grade of the document at rank r + 1 for
    subtopic s (0 when it has none or is not judged, 0-padded past the last retrieved one, ``num_ret`` giving
    how many); ``judged[q, j, s]`` the grades of every judged document (the ideal ranking's material) and
    ``tiebreak[q, j]`` their order by document id, descending (0 first: ndeval's choice between equal gains).
    ``documents[q]`` and ``subtopic_names[q]``, when known, name the judged documents (axis j) and the subtopics
    (axis s) of each row, and ``ranked[q]`` the documents at its ranks (who sits where), for the explanations
    (:mod:`workbench.metrics.explanations.diversity`)."""

    def __init__(self, grades, judged, tiebreak, num_ret, topics: Sequence[str] = (), *,
                 documents: Sequence[Sequence[str]] | None = None,
                 subtopic_names: Sequence[Sequence[str]] | None = None,
                 ranked: Sequence[Sequence[str]] | None = None) -> None:
        self.grades, self.judged = np.asarray(grades, dtype=float), np.asarray(judged, dtype=float)
        self.tiebreak, self.num_ret = np.asarray(tiebreak, dtype=np.int64), np.asarray(num_ret, dtype=np.int64)
        self.topics = tuple(topics)
        self.documents = None if documents is None else [tuple(row) for row in documents]
        self.subtopic_names = None if subtopic_names is None else [tuple(row) for row in subtopic_names]
        self.ranked = None if ranked is None else [list(row) for row in ranked]
        if self.grades.ndim != 3 or self.judged.ndim != 3 or self.grades.shape[0] != self.judged.shape[0] or \
                self.grades.shape[2] != self.judged.shape[2] or self.tiebreak.shape != self.judged.shape[:2]:
            raise RankingInputError("a subtopic table needs grades (topics × ranks × subtopics), judged grades "
                                    "(topics × documents × subtopics) and a tie-break per judged document")

    def __repr__(self) -> str:
        q, width, s = self.grades.shape
        return f"<SubtopicTable: {q} topics, up to {width} ranks, up to {s} subtopics>"

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[Mapping[str, Mapping[str, float]], Sequence[str]]],
                  topics: Sequence[str] = ()) -> SubtopicTable:
        """One row per ``({subtopic: {document: grade}}, ranked documents)``, each ranked document found among the
        judged ones by the one matcher (:func:`~workbench.metrics.ranking.matching.match_names`)."""
        rows = list(rows)
        n_sub = max((len(judged) for judged, _ in rows), default=0)
        n_docs = max((len(set().union(*map(set, judged.values()))) if judged else 0 for judged, _ in rows),
                     default=0)
        width = max((len(ranked) for _, ranked in rows), default=0)
        grades = np.zeros((len(rows), width, max(n_sub, 1)))
        judged_grades = np.zeros((len(rows), n_docs, max(n_sub, 1)))
        tiebreak = np.zeros((len(rows), n_docs), dtype=np.int64)
        documents, names, places = [], [], []
        for q, (judged, _) in enumerate(rows):
            docs = sorted(set().union(*map(set, judged.values())) if judged else set(), reverse=True,
                          key=lambda d: d.encode("utf-8", errors="surrogatepass"))
            where = {doc: j for j, doc in enumerate(docs)}
            tiebreak[q, :len(docs)] = np.arange(len(docs))
            subtopics = sorted(judged, key=natural_key)
            for s, subtopic in enumerate(subtopics):
                for doc, grade in judged[subtopic].items():
                    judged_grades[q, where[doc], s] = grade
            documents.append(docs)
            names.append(subtopics)
            places.append(where)
        lengths = [len(ranked) for _, ranked in rows]
        index, ranked_rows, positions = match_names(places, [ranked for _, ranked in rows])  # "grade": the place j
        rank = np.arange(ranked_rows.size) - np.repeat(np.cumsum([0, *lengths])[:-1], lengths)
        hit = positions >= 0
        place = index.grades[positions[hit]].astype(np.int64)
        grades[ranked_rows[hit], rank[hit]] = judged_grades[ranked_rows[hit], place]
        return cls(grades, judged_grades, tiebreak, lengths, topics, documents=documents, subtopic_names=names,
                   ranked=[ranked for _, ranked in rows])

    @classmethod
    def from_organizations(cls, gold: Organization, output: Organization) -> SubtopicTable:
        """One row: each cluster of the gold's levels is a subtopic whose documents have the level's grade
        (:meth:`Organization.grade_of`'s grades), the output ranked as every ranking measure reads it."""
        grades = gold.grades or tuple(float(len(gold.levels) - i) for i in range(len(gold.levels)))
        judged = {f"{i}.{j}": dict.fromkeys(cluster, grade)
                  for i, (grade, level) in enumerate(zip(grades, gold.levels, strict=True))
                  for j, cluster in enumerate(level)}
        return cls.from_rows([(judged, ranked_documents(output))])

    def relevant(self, rel: float) -> np.ndarray:
        """Boolean topics × ranks × subtopics: the retrieved document is relevant to the subtopic."""
        return self.grades >= rel

    def subtopics(self, rel: float) -> np.ndarray:
        """m per topic: the subtopics with a relevant judged document."""
        return (self.judged >= rel).any(axis=1).sum(axis=1)


def novelty_gains(relevant: np.ndarray, alpha: float) -> np.ndarray:
    """g(r) = Σ_s J(r, s) (1 − α)^{c_s(r)} for each rank of a topics × ranks × subtopics relevance array, the
    subtopics added in order (as ndeval's loop adds them)."""
    seen = np.cumsum(relevant, axis=1) - relevant  # relevant documents above, per subtopic
    terms = np.where(relevant, (1.0 - alpha) ** seen, 0.0)
    return np.cumsum(terms, axis=2)[:, :, -1] if terms.shape[2] else np.zeros(terms.shape[:2])


def ideal_ranking(table: SubtopicTable, alpha: float, rel: float, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking down to ``depth`` (at most the judged documents): at each rank the judged
    document of best gain given those above (equal gains: the greatest id), topics at once. Its gains, and the
    judged document (index j of ``table.judged``) at each rank."""
    relevant = table.judged >= rel
    rows, n_docs, n_sub = relevant.shape
    depth = min(depth, n_docs)
    weights = np.ones((rows, n_sub))
    used = np.zeros((rows, n_docs), dtype=bool)
    gains = np.zeros((rows, depth))
    order = np.zeros((rows, depth), dtype=np.int64)
    every = np.arange(rows)
    for rank in range(depth):
        score = np.cumsum(np.where(relevant, weights[:, None, :], 0.0), axis=2)[:, :, -1]
        score = np.where(used, -1.0, score)
        best = score.max(axis=1)
        chosen = np.where(score == best[:, None], table.tiebreak, np.iinfo(np.int64).max).argmin(axis=1)
        gains[:, rank] = np.maximum(best, 0.0)
        order[:, rank] = chosen
        used[every, chosen] = True
        weights = np.where(relevant[every, chosen], weights * (1.0 - alpha), weights)
    return gains, order


def discounted_sum(gains: np.ndarray) -> np.ndarray:
    """Σ_r g(r) / log2(r + 1), added in rank order."""
    if not gains.shape[1]:
        return np.zeros(gains.shape[0])
    return np.cumsum(gains / np.log2(ranks(gains.shape[1]) + 1.0), axis=1)[:, -1]


@validate(k=DEPTH, alpha=NOVELTY, rel=RELEVANCE_LEVEL)
def alpha_ndcg(table: SubtopicTable, k: int = 20, alpha: float = 0.5, rel: float = 1.0) -> np.ndarray:
    """α-nDCG@k: the run's α-DCG over the greedy ideal's (Clarke et al. 2008; ndeval's ``alpha-nDCG@k``)."""
    depth = table.grades.shape[1] if k is None else k
    dcg = discounted_sum(novelty_gains(table.relevant(rel)[:, :depth], alpha))
    ideal = discounted_sum(ideal_ranking(table, alpha, rel, depth)[0])
    return np.divide(dcg, ideal, out=np.zeros_like(dcg), where=(ideal > 0) & (dcg > 0))


@validate(k=DEPTH, alpha=NOVELTY, rel=RELEVANCE_LEVEL)
def err_ia(table: SubtopicTable, k: int = 20, alpha: float = 0.5, rel: float = 1.0) -> np.ndarray:
    """ERR-IA@k = Σ_{r≤k} g(r) / r over Σ_{r≤k} m (1 − α)^{r−1} / r (ndeval's ``ERR-IA@k``)."""
    depth = table.grades.shape[1] if k is None else k
    gains = novelty_gains(table.relevant(rel)[:, :depth], alpha)
    found = np.cumsum(gains / ranks(gains.shape[1]), axis=1)[:, -1] if gains.shape[1] else np.zeros(gains.shape[0])
    ideal = table.subtopics(rel).astype(float) * reciprocal_decay(1.0 - alpha, depth)
    return np.divide(found, ideal, out=np.zeros_like(found), where=ideal > 0)


_EXACT_TERMS = 1_000_000


def reciprocal_decay(x: float, k: int) -> float:
    """Σ_{r=1..k} x^{r−1} / r, added term by term up to a million terms; beyond (a cutoff no ranking reaches) the
    rest by the midpoint integral of x^{t−1} / t, which the slowly varying terms there make exact to ~1e-13."""
    if k < 1:
        return 0.0
    steps = np.arange(min(k, _EXACT_TERMS), dtype=float)
    total = float(np.cumsum(x ** steps / (steps + 1.0))[-1])
    if k <= _EXACT_TERMS or x == 0.0:
        return total
    low, high = _EXACT_TERMS + 0.5, k + 0.5
    if x == 1.0:
        return total + math.log(high / low)
    from scipy.special import exp1

    return total + float(exp1(-low * math.log(x)) - exp1(-high * math.log(x))) / x


@validate(alpha=NOVELTY, beta=PERSISTENCE, rel=RELEVANCE_LEVEL)
def nrbp(table: SubtopicTable, alpha: float = 0.5, beta: float = 0.5, rel: float = 1.0) -> np.ndarray:
    """NRBP = (1 − (1 − α) β) / m · Σ_r g(r) β^{r−1} over every rank (Clarke et al. 2009; ndeval's ``NRBP``)."""
    gains = novelty_gains(table.relevant(rel), alpha)
    decay = np.cumprod(np.concatenate(([1.0], np.full(max(gains.shape[1] - 1, 0), beta))))[:gains.shape[1]]
    total = np.cumsum(gains * decay, axis=1)[:, -1] if gains.shape[1] else np.zeros(gains.shape[0])
    m = table.subtopics(rel).astype(float)
    return np.divide(total * (1.0 - (1.0 - alpha) * beta), m, out=np.zeros_like(total), where=m > 0)


@validate(k=DEPTH, rel=RELEVANCE_LEVEL)
def p_ia(table: SubtopicTable, k: int = 20, rel: float = 1.0) -> np.ndarray:
    """P-IA@k = Σ_{r≤k} Σ_s J(r, s) / (k · m) (ndeval's ``P-IA@k``)."""
    found = table.relevant(rel)[:, :k].sum(axis=(1, 2)).astype(float)
    depth = table.grades.shape[1] if k is None else k
    m = table.subtopics(rel).astype(float)
    return np.divide(found, depth * m, out=np.zeros_like(found), where=(m > 0) & (depth > 0))


@validate(k=DEPTH, rel=RELEVANCE_LEVEL)
def strecall(table: SubtopicTable, k: int = 20, rel: float = 1.0) -> np.ndarray:
    """Subtopic recall@k = |subtopics relevant in the top k| / m (ndeval's ``strec@k``)."""
    covered = table.relevant(rel)[:, :k].any(axis=1).sum(axis=1).astype(float)
    m = table.subtopics(rel).astype(float)
    return np.divide(covered, m, out=np.zeros_like(covered), where=m > 0)
