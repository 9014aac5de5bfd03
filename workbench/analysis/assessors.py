"""How far assessors agree: two sets of judgements (qrels) compared on the documents both judged — the share of
equal labels, Cohen's κ, the overlap of the relevant sets (Jaccard), the confusion matrix, per topic — and Fleiss'
κ between many (trectools' ``TrecQrel.check_agreement``, ``check_kappa``, ``check_overlap``,
``check_confusion_matrix`` and ``misc.check_fleish_kappa``). Whether two assessors' qrels rank the systems alike
is :func:`~workbench.analysis.agreement.ranking_agreement` with ``results_b`` (τ, τ_ap, Pearson, Spearman).

* Cohen's κ (1960) = (p_o − p_e) / (1 − p_e), p_o the share of documents labelled alike, p_e = Σ_c p_a(c) p_b(c)
  (any number of grades; trectools' ``check_kappa`` takes two grades, 0 and 1, where the two agree);
* Jaccard = |R_a ∩ R_b| / |R_a ∪ R_b|, R the documents graded ``relevant`` or above among those both judged
  (Voorhees, IP&M 2000, "overlap");
* Fleiss' κ (1971) = (P̄ − P̄_e) / (1 − P̄_e) over the documents every assessor judged, P_i = (Σ_c n_ic² − m) /
  (m (m − 1)) for m assessors, P̄_e = Σ_c p_c².

A κ whose p_e is 1 (every label the same category) is NaN, as ``sklearn.metrics.cohen_kappa_score``.

    >>> a = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 0}}
    >>> b = {"q1": {"d1": 1, "d2": 1, "d3": 1, "d4": 0, "d5": 1}}
    >>> found = qrels_agreement(a, b)
    >>> found.judged, found.agreement, round(found.kappa, 4), round(found.jaccard, 4)
    (4, 0.75, 0.5, 0.6667)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.data.trec.memory import QRELS, judgements_from_dicts
from workbench.errors import CampaignError
from workbench.validation import Interval, ListOf, validate

__all__ = ["AssessorAgreement", "qrels_agreement", "fleiss_kappa", "common_judgements"]


@dataclass(frozen=True)
class AssessorAgreement:
    """Two assessors compared on the ``judged`` documents both judged: ``agreement`` (the share labelled alike),
    Cohen's ``kappa``, ``jaccard`` (of the relevant sets), ``confusion`` (grades of a × grades of b, counts),
    ``topics`` (one row per topic: ``topic, judged, agreement, kappa, jaccard``)."""

    judged: int
    agreement: float
    kappa: float
    jaccard: float
    confusion: pd.DataFrame
    topics: pd.DataFrame

    def __str__(self) -> str:
        return (f"{self.judged} documents judged by both: {self.agreement:.1%} labelled alike, Cohen's κ = "
                f"{self.kappa:.4f}, Jaccard of the relevant sets = {self.jaccard:.4f}")


def common_judgements(*qrels: Mapping) -> pd.DataFrame:
    """One row per (topic, document) every one of ``qrels`` judged: ``topic, document`` and one column of
    grades per qrels (0, 1, ...), in the first qrels' order."""
    judged = [judgements_from_dicts(q) for q in qrels]
    rows = []
    for topic in judged[0]:
        grades = [j.grades_of(topic) if topic in j else {} for j in judged]
        for doc, grade in grades[0].items():
            if all(doc in g for g in grades[1:]):
                rows.append((topic, doc, grade, *(g[doc] for g in grades[1:])))
    return pd.DataFrame(rows, columns=["topic", "document", *range(len(judged))])


def _kappa(a: np.ndarray, b: np.ndarray) -> float:
    if a.size == 0:
        return float("nan")
    observed = float(np.mean(a == b))
    categories = np.union1d(a, b)
    expected = float(sum(np.mean(a == c) * np.mean(b == c) for c in categories))
    return float("nan") if expected == 1.0 else (observed - expected) / (1.0 - expected)


def _jaccard(a: np.ndarray, b: np.ndarray, relevant: float) -> float:
    either = np.count_nonzero((a >= relevant) | (b >= relevant))
    return float(np.count_nonzero((a >= relevant) & (b >= relevant)) / either) if either else float("nan")


@validate(qrels_a=QRELS, qrels_b=QRELS, relevant=Interval(-1e9, 1e9))
def qrels_agreement(qrels_a: Mapping, qrels_b: Mapping, *, relevant: float = 1) -> AssessorAgreement:
    """Two assessors' judgements (pytrec_eval's ``{query: {doc: grade}}`` or
    :class:`~workbench.data.trec.ranked.Judgements`) compared on the documents both judged; ``relevant``: the
    lowest relevant grade (Jaccard's sets). No document judged by both: :class:`CampaignError`."""
    common = common_judgements(qrels_a, qrels_b)
    if common.empty:
        raise CampaignError("qrels_agreement: no document is judged in both qrels (same topic and document id)")
    a, b = common[0].to_numpy(dtype=float), common[1].to_numpy(dtype=float)
    grades = np.union1d(a, b)
    confusion = pd.crosstab(pd.Categorical(a, grades), pd.Categorical(b, grades), dropna=False,
                            rownames=["a"], colnames=["b"])
    per_topic = [(topic, len(g), float(np.mean(g[0].to_numpy() == g[1].to_numpy())),
                  _kappa(g[0].to_numpy(dtype=float), g[1].to_numpy(dtype=float)),
                  _jaccard(g[0].to_numpy(dtype=float), g[1].to_numpy(dtype=float), relevant))
                 for topic, g in common.groupby("topic", sort=False)]
    topics = pd.DataFrame(per_topic, columns=["topic", "judged", "agreement", "kappa", "jaccard"])
    return AssessorAgreement(len(common), float(np.mean(a == b)), _kappa(a, b), _jaccard(a, b, relevant),
                             confusion, topics)


@validate(qrels=ListOf(QRELS, shortest=2, what="a list of two qrels at least"))
def fleiss_kappa(qrels: list) -> float:
    """Fleiss' κ between the assessors of ``qrels`` (each as :func:`qrels_agreement` takes it) on the documents
    every one judged; NaN where every label is one category. No document judged by all: :class:`CampaignError`.

        >>> round(fleiss_kappa([{"q": {"a": 1, "b": 0, "c": 1}}, {"q": {"a": 1, "b": 0, "c": 0}},
        ...                     {"q": {"a": 1, "b": 1, "c": 0}}]), 12)  # P̄ = 5/9, P̄_e = 41/81: κ = 4/40
        0.1
    """
    common = common_judgements(*qrels)
    if common.empty:
        raise CampaignError("fleiss_kappa: no document is judged in every qrels (same topic and document id)")
    labels = common[list(range(len(qrels)))].to_numpy(dtype=float)
    m = labels.shape[1]
    categories = np.unique(labels)
    counts = np.stack([(labels == c).sum(axis=1) for c in categories], axis=1)
    agreement = ((counts ** 2).sum(axis=1) - m) / (m * (m - 1.0))
    shares = counts.sum(axis=0) / counts.sum()
    expected = float((shares ** 2).sum())
    return float("nan") if expected == 1.0 else float((agreement.mean() - expected) / (1.0 - expected))
