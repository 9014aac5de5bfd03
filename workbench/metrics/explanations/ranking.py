"""Ranking measures explained per document: each rank's term of the sum the kernel computes.

Every ranking measure of the registry is computed by a kernel over a
:class:`~workbench.metrics.ranking.table.GainTable`; here each kernel's per-rank terms (read from the functions
the kernels themselves sum: :func:`~workbench.metrics.ranking.kernels.precision_terms`,
:func:`~workbench.metrics.ranking.kernels.dcg_terms`, :func:`~workbench.metrics.ranking.kernels.err_terms`, ...)
become one row per retrieved document, plus one row per judged relevant document the ranking misses (rank
``<NA>``), and a row without a document for what no document carries (trec_eval's ``utility`` over the documents
never seen, the RBP residual beyond the ranking). A measure scored with ``judged_only`` reads the ranking without
its unjudged documents: their rows have rank ``<NA>`` and contribute 0.

The columns: ``rank``, ``document``, ``grade`` (NaN when unjudged), ``judged``, the factors of the term (AP:
``precision``, ``1/R``; nDCG: ``gain``, ``discount``, ``ideal_dcg``, and with ``ties=average`` the
``tie_averaged_gain`` the sum reads; ERR: ``reach``, ``stop``; RBP: ``weight`` =
(1−p)·p^(r−1), ``gain``; Q/O/P/P+: ``blended_ratio``; Hits: ``relevant``; Bpref: ``nonrelevant_above``...),
``contribution`` and ``lost``. A measure at a cutoff k (P@k, nDCG@k, RBP@k, Q-measure@k, O/P/P+@k, Hits@k...)
keeps a row for every retrieved document: the ranks past k contribute 0. What a row lost is measured against
the ideal ranking of the judged documents (by grade, ties in the ranking's order): the contribution the document
would have there, minus the one it has. Tables of many rows (a whole run) are explained at once, with a ``topic``
column.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 1, "d2": 1, "d3": 1})
    >>> e = explain_ranking(gold, Organization.from_ranking(["d1", "x", "d2"]), "AP")
    >>> print(e.contributions[["rank", "document", "precision", "contribution"]].round(4).to_string(index=False))
     rank document  precision  contribution
        1       d1     1.0000        0.3333
        2        x     0.5000        0.0000
        3       d2     0.6667        0.2222
     <NA>       d3        NaN        0.0000
    >>> round(e.score, 6), round(float(e.contributions.contribution.sum()), 6)
    (0.555556, 0.555556)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.ranking import curves, kernels, trec
from workbench.metrics.ranking.gains import gain_tables
from workbench.metrics.ranking.table import (
    GainTable,
    RankingInputError,
    check_cutoff,
    first_true,
    judgements_of,
    ranked_documents,
    ranks,
    safe_divide,
)
from workbench.metrics.registry import Measure, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization, natural_key

if TYPE_CHECKING:
    pass


@dataclass
class Terms:
    """A kernel's terms on a table: ``contribution[row, rank]`` (0-based ranks; as wide as the ranks the measure
    reads), the named ``factors`` of each term (matrices of the same shape, or one column per row), and what
    documents outside the ranking carry: ``missing(rows, grades)`` for the judged relevant documents a ranking
    misses, ``rest[row]`` (named ``rest_label``) for what no document carries. ``parts`` (SetF): the
    contribution matrices of the parts and the function combining them."""

    contribution: np.ndarray
    formula: str
    factors: dict[str, np.ndarray] = field(default_factory=dict)
    missing: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    rest: np.ndarray | None = None
    rest_label: str = ""
    parts: dict[str, np.ndarray] | None = None
    combine: Callable[[Mapping[str, float]], float] | None = None


TERMS: dict[str, Callable[..., Terms]] = {}
"""Registered measure name → its terms function ``terms(table, **params)`` (the measure's parameters but
``judged_only``)."""


def terms_of(*names: str):
    def register(function):
        for name in names:
            TERMS[name] = function
        return function
    return register


def _inverse(values) -> np.ndarray:
    """1/value per row (0 where the value is 0), a factor shared by every rank of the row."""
    values = np.asarray(values, dtype=float)
    return safe_divide(np.ones_like(values), values)


def _at(positions: np.ndarray, found: np.ndarray, values: np.ndarray, width: int) -> np.ndarray:
    """A rows × width matrix holding ``values[row]`` at ``positions[row]`` where ``found[row]``, 0 elsewhere."""
    out = np.zeros((len(positions), width))
    rows = np.flatnonzero(found)
    out[rows, positions[rows]] = np.asarray(values, dtype=float)[rows] if np.ndim(values) else values
    return out


def _cleaned(table: GainTable, matrix: np.ndarray) -> np.ndarray:
    """0 on the rows of topics the run lacks, for the kernels trec_eval cleans up there (``trec._cleaned``)."""
    return np.where(table.placeholder[:, None], 0.0, matrix)


def _grades_reach(level: float):
    return lambda _rows, grades: (grades >= level).astype(float)


# ------------------------------------------------------------------------------------- ir_measures names
@terms_of("P")
def _precision(table: GainTable, k: int = 10, rel: int = 1) -> Terms:
    check_cutoff(k, "P")
    if k is None:
        raise RankingInputError("P@k needs a cutoff k")
    relevant = table.relevant(rel)[:, :k]
    return Terms(relevant / k, "P@k = Σ_{r ≤ k} relevant(r) · 1/k",
                 {"relevant": relevant, "1/k": np.full(relevant.shape[0], 1 / k)})


@terms_of("Rprec")
def _r_precision(table: GainTable, rel: int = 1) -> Terms:
    relevant, n_rel = table.relevant(rel), table.n_relevant(rel)
    within = np.arange(relevant.shape[1])[None, :] < n_rel[:, None]
    return Terms(relevant * within * _inverse(n_rel)[:, None], "Rprec = Σ_{r ≤ R} relevant(r) · 1/R",
                 {"relevant": relevant, "1/R": _inverse(n_rel)})


def _first(table: GainTable, k: int | None, rel: float, name: str, value) -> Terms:
    check_cutoff(k, name)
    relevant = table.relevant(rel)[:, :k]
    first, found = first_true(relevant)
    reciprocal = 1.0 / (first + 1)
    contribution = _at(first, found, reciprocal if value is None else value, relevant.shape[1])
    return Terms(contribution, f"{name} = the term of the first relevant document only",
                 {"relevant": relevant, "first_relevant": _at(first, found, 1.0, relevant.shape[1]) > 0})


@terms_of("RR")
def _reciprocal_rank(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    terms = _first(table, k, rel, "RR", None)
    terms.formula = "RR = 1/r of the first relevant document (in the top k), 0 without one"
    return terms


@terms_of("Success")
def _success(table: GainTable, k: int = 10, rel: int = 1) -> Terms:
    if k is None:
        raise RankingInputError("Success@k needs a cutoff k")
    terms = _first(table, k, rel, "Success", 1.0)
    terms.formula = "Success@k = 1 for the first relevant document in the top k"
    return terms


@terms_of("AP", "GMAP")
def _average_precision(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    precision, hit = kernels.precision_terms(table, k, rel)
    inverse = _inverse(table.n_relevant(rel))
    return Terms(precision * hit * inverse[:, None], "AP = Σ_{relevant r ≤ k} P@r · 1/R (R: judged relevant documents)",
                 {"precision": precision, "1/R": inverse})


@terms_of("nDCG")
def _ndcg(table: GainTable, k: int | None = None, gain: str = "linear", gains=None, ties: str = "trec_eval") -> Terms:
    values, discount, best = kernels.dcg_terms(table, k, gain, gains, ties)
    factors = {"gain": values, "discount": np.broadcast_to(discount, values.shape), "ideal_dcg": best}
    formula = "nDCG = Σ_{r ≤ k} gain(r) · discount(r) / ideal DCG, discount(r) = 1/log2(r + 1)"
    if ties == "average":  # the document's own gain beside the mean gain of its tie, which the sum reads
        factors = {"gain": kernels.dcg_terms(table, k, gain, gains)[0], "tie_averaged_gain": values} | \
            {name: factors[name] for name in ("discount", "ideal_dcg")}
        formula = ("nDCG(ties=average) = Σ_{r ≤ k} tie_averaged_gain(r) · discount(r) / ideal DCG, the mean gain "
                   "of the documents tied with r (McSherry & Najork), discount(r) = 1/log2(r + 1)")
    return Terms(values * discount[None, :] * _inverse(best)[:, None], formula, factors)


@terms_of("ERR")
def _err(table: GainTable, k: int | None = None, gain: str = "exp", max_grade: float | None = 4) -> Terms:
    stop, reach = kernels.err_terms(table, k, gain, max_grade)
    return Terms(stop * reach / ranks(stop.shape[1]),
                 "ERR = Σ_r reach(r) · stop(r) / r: the chance the user gets to rank r and stops there, over r",
                 {"reach": reach, "stop": stop})


@terms_of("RBP")
def _rbp(table: GainTable, p: float = 0.8, max_grade: float | None = None, rel: int | None = None,
         k: int | None = None) -> Terms:
    scaled, weights = kernels.rbp_terms(table.top(k), p, max_grade, rel)  # RBP@k: the ranks past k add nothing
    weight = np.broadcast_to((1.0 - p) * weights, scaled.shape)
    return Terms(weight * scaled, "RBP = Σ_{r ≤ k} (1 − p)·p^(r−1) · gain(r)", {"weight": weight, "gain": scaled})


@terms_of("Hits")
def _hits(table: GainTable, k: int | None = None, rel: int = 1) -> Terms:
    check_cutoff(k, "Hits")
    relevant = table.relevant(rel)[:, :k]
    return Terms(relevant.astype(float), "Hits@k = Σ_{r ≤ k} relevant(r): 1 per relevant document in the top k",
                 {"relevant": relevant})


@terms_of("Q-measure")
def _q(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    check_cutoff(k, "Q-measure")
    ratio, rel = kernels.blended_ratio(table.top(k), beta)
    n_rel = (table.ideal > 0).sum(axis=1)
    inverse = _inverse(n_rel if k is None else np.minimum(n_rel, k))
    return Terms(ratio * rel * inverse[:, None],
                 "Q@k = Σ_{relevant r ≤ k} BR(r) · 1/min(k, R), BR the blended ratio (Q: k = ∞)",
                 {"blended_ratio": ratio, "1/min(k,R)" if k is not None else "1/R": inverse})


@terms_of("O-measure")
def _o(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    ratio, rel = kernels.blended_ratio(table.top(k), beta)
    first, found = first_true(rel)
    values = ratio[np.arange(len(first)), first] if ratio.shape[1] else np.zeros(len(first))
    return Terms(_at(first, found, values, ratio.shape[1]),
                 "O = BR(r1), the blended ratio at the first relevant document (in the top k)",
                 {"blended_ratio": ratio})


@terms_of("P-measure")
def _p(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    cut = table.top(k)
    ratio, _ = kernels.blended_ratio(cut, beta)
    preferred, found = kernels.preferred_rank(cut)
    values = ratio[np.arange(len(preferred)), preferred] if ratio.shape[1] else np.zeros(len(preferred))
    return Terms(_at(preferred, found, values, ratio.shape[1]),
                 "P = BR(rp), the blended ratio at the first document of the highest grade retrieved (in the top k)",
                 {"blended_ratio": ratio})


@terms_of("P+-measure")
def _p_plus(table: GainTable, beta: float = 1.0, k: int | None = None) -> Terms:
    ratio, upto = kernels.p_plus_terms(table.top(k), beta)
    inverse = _inverse(upto.sum(axis=1))
    return Terms(ratio * upto * inverse[:, None],
                 "P+ = Σ_{relevant r ≤ rp} BR(r) · 1/C(rp), C(rp) relevant down to rp (the top k only)",
                 {"blended_ratio": ratio, "1/C(rp)": inverse})


# ----------------------------------------------------------------------------------------- trec_eval's
@terms_of("NumRet")
def _num_ret(table: GainTable) -> Terms:
    return Terms(_cleaned(table, table.retrieved().astype(float)), "NumRet = Σ 1 per retrieved document")


@terms_of("NumRel")
def _num_rel(table: GainTable, rel_level: float = 1.0) -> Terms:
    return Terms(table.relevant(rel_level).astype(float), "NumRel = Σ 1 per judged relevant document, retrieved "
                 "or not", missing=_grades_reach(rel_level))


@terms_of("NumRelRet")
def _num_rel_ret(table: GainTable, rel_level: float = 1.0) -> Terms:
    return Terms(table.relevant(rel_level).astype(float), "NumRelRet = Σ 1 per relevant document retrieved")


@terms_of("NumNonRelJudgedRet")
def _num_nonrel(table: GainTable, rel_level: float = 1.0) -> Terms:
    return Terms((table.judged & ~table.relevant(rel_level)).astype(float),
                 "NumNonRelJudgedRet = Σ 1 per judged non-relevant document retrieved")


def _set(table: GainTable, rel_level: float, denominator, formula: str) -> Terms:
    inverse = _inverse(denominator)
    relevant = table.relevant(rel_level)
    return Terms(relevant * inverse[:, None], formula, {"relevant": relevant, "share": inverse})


@terms_of("SetP")
def _set_p(table: GainTable, rel_level: float = 1.0) -> Terms:
    return _set(table, rel_level, table.num_ret, "SetP = Σ_{retrieved} relevant · 1/|retrieved|")


@terms_of("SetRelP")
def _set_rel_p(table: GainTable, rel_level: float = 1.0) -> Terms:
    denominator = np.minimum(table.num_ret, table.n_relevant(rel_level))
    return _set(table, rel_level, denominator, "SetRelP = Σ_{retrieved} relevant · 1/min(|retrieved|, R)")


@terms_of("SetR")
def _set_r(table: GainTable, rel_level: float = 1.0) -> Terms:
    return _set(table, rel_level, table.n_relevant(rel_level), "SetR = Σ_{retrieved} relevant · 1/R")


@terms_of("SetAP")
def _set_ap(table: GainTable, rel_level: float = 1.0) -> Terms:
    found = table.relevant(rel_level).sum(axis=1)
    return _set(table, rel_level, safe_divide(table.num_ret * table.n_relevant(rel_level), found),
                "SetAP = SetP · SetR = Σ_{retrieved} relevant · |relevant retrieved| / (|retrieved| · R)")


@terms_of("SetF")
def _set_f(table: GainTable, beta: float = 1.0, rel_level: float = 1.0) -> Terms:
    p, r = _set_p(table, rel_level), _set_r(table, rel_level)
    return Terms(np.zeros_like(p.contribution), f"SetF = (β + 1)·SetP·SetR / (β·SetP + SetR), β = {beta:g}",
                 {"relevant": table.relevant(rel_level)}, parts={"SetP": p.contribution, "SetR": r.contribution},
                 combine=lambda parts: float(trec.f_of_set(np.float64(parts["SetP"]), np.float64(parts["SetR"]),
                                                           beta)))


@terms_of("SetUtility")
def _utility(table: GainTable, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0, num_docs: int = 0,
             rel_level: float = 1.0) -> Terms:
    relevant = table.relevant(rel_level)
    values = _cleaned(table, np.where(relevant, a, b) * table.retrieved())
    n_rel, found = table.n_relevant(rel_level), relevant.sum(axis=1)
    unseen = np.where(table.placeholder, 0.0, d * (num_docs + found - table.num_ret - n_rel))
    return Terms(values, "Utility = a·(relevant retrieved) + b·(non-relevant retrieved) + c·(relevant missed) + "
                 "d·(the rest)", missing=lambda rows, grades: np.where(table.placeholder[rows], 0.0,
                                                                      c * (grades >= rel_level)),
                 rest=unseen, rest_label="the documents neither retrieved nor relevant (d each)")


@terms_of("Bpref", "GMBpref")
def _bpref(table: GainTable, rel_level: float = 1.0) -> Terms:
    terms, above = trec.bpref_terms(table, rel_level)
    inverse = _inverse(table.n_relevant(rel_level))
    return Terms(terms * inverse[:, None], "bpref = Σ_{relevant r} (1 − min(n_r, R)/min(N, R)) · 1/R, n_r the judged "
                 "non-relevant documents above", {"nonrelevant_above": above, "1/R": inverse})


@terms_of("infAP")
def _infap(table: GainTable, rel_level: float = 1.0) -> Terms:
    rel, term = trec.infap_terms(table, rel_level)
    inverse = _inverse(table.n_relevant(rel_level))
    return Terms(np.where(rel, term, 0.0) * inverse[:, None],
                 "infAP = Σ_{relevant r} (estimated precision above r) · 1/R",
                 {"estimate": term, "1/R": inverse})


@terms_of("BinG")
def _bing(table: GainTable, rel_level: float = 1.0) -> Terms:
    rel, above, discount = trec.bing_terms(table, rel_level)
    inverse = _inverse(table.n_relevant(rel_level))
    return Terms(np.where(rel, discount, 0.0) * inverse[:, None], "binG = Σ_{relevant r} 1/log2(2 + n_r) · 1/R",
                 {"nonrelevant_above": above, "discount": discount, "1/R": inverse})


@terms_of("R")
def _recall(table: GainTable, k: int = 10, rel_level: float = 1.0) -> Terms:
    trec.recall_at(table, k, rel_level)  # the kernel's checks
    relevant = table.relevant(rel_level)[:, :k]
    inverse = _inverse(table.n_relevant(rel_level))
    return Terms(relevant * inverse[:, None], "R@k = Σ_{r ≤ k} relevant(r) · 1/R",
                 {"relevant": relevant, "1/R": inverse})


@terms_of("RelP")
def _relative_precision(table: GainTable, k: int = 10, rel_level: float = 1.0) -> Terms:
    trec.relative_precision_at(table, k, rel_level)
    relevant = table.relevant(rel_level)[:, :k]
    inverse = _inverse(np.minimum(k, table.n_relevant(rel_level)))
    return Terms(relevant * inverse[:, None], "RelP@k = Σ_{r ≤ k} relevant(r) · 1/min(k, R)",
                 {"relevant": relevant, "1/min(k,R)": inverse})


@terms_of("RPrecMult")
def _r_precision_multiple(table: GainTable, multiple: float = 1.0, rel_level: float = 1.0) -> Terms:
    cutoff = np.trunc(multiple * table.n_relevant(rel_level) + 0.9).astype(np.int64)
    relevant = table.relevant(rel_level)
    within = np.arange(relevant.shape[1])[None, :] < cutoff[:, None]
    inverse = _inverse(cutoff)
    return Terms(relevant * within * inverse[:, None],
                 "RPrecMult = Σ_{r ≤ c} relevant(r) · 1/c, c = ⌊multiple·R + 0.9⌋",
                 {"relevant": relevant, "1/c": inverse})


def _interpolated(table: GainTable, levels: np.ndarray, rel_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Σ over ``levels`` of each rank's share of the interpolated precision (the relevant documents down to the
    rank whose precision the level takes, 1/rank each), and the levels trec_eval leaves undefined (NaN)."""
    values = trec.interpolated_precisions(table, levels, rel_level)  # the kernel: its edges decide
    at, counts = curves.interpolation_ranks(table, np.clip(levels, 0.0, 1.0), rel_level, rule="round")
    relevant = table.relevant(rel_level)
    width = relevant.shape[1]
    counts &= ~np.isnan(values) & (values > 0)
    total = np.zeros(relevant.shape)
    for column in range(len(levels)):
        upto = np.arange(width)[None, :] <= at[:, column:column + 1]
        total += np.where(counts[:, column:column + 1] & upto & relevant,
                          safe_divide(np.ones((len(at), 1)), at[:, column:column + 1] + 1.0), 0.0)
    return total, np.isnan(values).any(axis=1)


@terms_of("IPrec")
def _iprec(table: GainTable, recall: float | None = None, rel_level: float = 1.0) -> Terms:
    total, undefined = _interpolated(table, np.array([recall], dtype=float), rel_level)
    return Terms(total, "IPrec@r = the precision at the best rank at or below the one reaching recall r: "
                 "Σ_{relevant r' ≤ that rank} 1/rank", rest=np.where(undefined, np.nan, 0.0),
                 rest_label="an empty ranking: undefined, as trec_eval's 0/0")


@terms_of("11ptAvg")
def _eleven_point(table: GainTable, rel_level: float = 1.0) -> Terms:
    levels = np.array(curves.ELEVEN_POINTS)
    total, undefined = _interpolated(table, levels, rel_level)
    return Terms(total / len(levels), "11ptAvg = (1/11) Σ_levels IPrec@level, each a share of the relevant "
                 "documents down to the rank it takes", rest=np.where(undefined, np.nan, 0.0),
                 rest_label="an empty ranking: undefined, as trec_eval's 0/0")


@terms_of("Unjudged")
def _unjudged(table: GainTable, k: int = 10) -> Terms:
    trec.unjudged_at(table, k)
    unjudged = (table.retrieved() & ~table.judged)[:, :k]
    return Terms(_cleaned(table, unjudged / k), "Unjudged@k = Σ_{r ≤ k} unjudged(r) · 1/k", {"unjudged": unjudged})


@terms_of("Judged")
def _judged(table: GainTable, k: int | None = None) -> Terms:
    check_cutoff(k, "Judged")
    pooled = table.pooled[:, :k]
    shown = table.num_ret if k is None else np.minimum(table.num_ret, k)
    inverse = _inverse(shown)
    return Terms(pooled * inverse[:, None], "Judged@k = Σ_{r ≤ k} judged(r) · 1/min(k, |retrieved|)",
                 {"in_qrels": pooled, "share": inverse})


@terms_of("RBPResid")
def _rbp_residual(table: GainTable, p: float = 0.9) -> Terms:
    trec.rbp_residual(table, p)
    unjudged = table.retrieved() & ~table.judged
    weights = (1 - p) * p ** np.arange(table.gains.shape[1], dtype=float)
    some = unjudged.any(axis=1)
    return Terms(_cleaned(table, np.where(some[:, None], unjudged * weights, 0.0)),
                 "RBPResid = Σ_{unjudged r} (1 − p)·p^(r−1) + p^|retrieved| (0 when every document is judged)",
                 {"unjudged": unjudged, "weight": np.broadcast_to(weights, unjudged.shape)},
                 rest=np.where(table.placeholder | ~some, 0.0, p ** table.num_ret.astype(float)),
                 rest_label="the ranks beyond the ranking: p^|retrieved|")


@terms_of("G")
def _g(table: GainTable) -> Terms:
    terms, total = trec.g_terms(table)
    return Terms(terms * _inverse(total)[:, None],
                 "G = Σ_r gain(r)/log2(2 + lag behind the ideal so far) / Σ ideal gains",
                 {"gain": gain_tables(table, None)[0]})


def _discounts(width: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(width, dtype=float) + 2.0)


@terms_of("nDCGRel")
def _ndcg_rel(table: GainTable) -> Terms:
    """trec_eval's ndcg_rel is linear in the DCG terms gain(i)·discount(i): each enters the DCG at every
    relevant rank at or below i (divided by the ideal DCG there) and the DCG of the whole ranking (weighted by
    the relevant documents not retrieved), all over L."""
    values, ideal = gain_tables(table, None)
    rows, width = values.shape
    length = (ideal > 0).sum(axis=1)
    discount = _discounts(width)
    idcg = np.cumsum(ideal * _discounts(ideal.shape[1]), axis=1)
    idcg_total = idcg[:, -1] if ideal.shape[1] else np.zeros(rows)
    relevant = (values > 0) & table.retrieved()
    at = np.minimum(np.arange(width)[None, :], np.maximum(length - 1, 0)[:, None])
    denominator = idcg[np.arange(rows)[:, None], np.minimum(at, max(ideal.shape[1] - 1, 0))] \
        if ideal.shape[1] else np.zeros((rows, width))
    below = np.cumsum(np.where(relevant, safe_divide(np.ones_like(denominator), denominator), 0.0)[:, ::-1],
                      axis=1)[:, ::-1]
    weight = below + safe_divide(length - relevant.sum(axis=1), idcg_total)[:, None]
    terms = values * discount * weight * _inverse(length)[:, None]
    return Terms(np.where((terms.sum(axis=1) > 0)[:, None], terms, 0.0),
                 "nDCGRel = (1/L) (Σ_{relevant r} DCG(r)/IDCG(min(r, L)) + (L − relevant retrieved)·DCG/IDCG): "
                 "each gain(i)·discount(i) times its weight", {"gain": values, "discount": np.broadcast_to(
                     discount, values.shape), "weight": weight})


@terms_of("RnDCG")
def _r_ndcg(table: GainTable, rel_level: float = 1.0) -> Terms:
    """trec_eval's Rndcg averages DCG(min(t, |retrieved|))/IDCG(t) over the R-levels t (and the end of the
    ranking when the ideal runs out first): gain(i)·discount(i) enters every average term whose DCG reaches i."""
    values, ideal = gain_tables(table, None)
    rows, width = values.shape
    depth = ideal.shape[1]
    idcg = np.concatenate([np.zeros((rows, 1)), np.cumsum(ideal * _discounts(depth), axis=1)], axis=1)
    length = (ideal > 0).sum(axis=1)[:, None]
    retrieved = table.num_ret[:, None]
    t = np.arange(1, depth + 1)[None, :]
    following = np.concatenate([ideal[:, 1:], np.zeros((rows, 1))], axis=1)
    level = (t <= length) & ((t == length) | (following != ideal)) & (idcg[:, 1:] > 0)
    every = np.arange(rows)[:, None]
    after = (length + 1 < retrieved) & (idcg[every, length] > 0)
    reach = np.zeros((rows, width + 1))  # the weight of the terms whose DCG sums the first m documents, at m
    row_of, column = np.nonzero(level)
    np.add.at(reach, (row_of, np.minimum(t[0, column], table.num_ret[row_of])),
              safe_divide(np.ones(len(row_of)), idcg[row_of, column + 1]))
    ends = np.flatnonzero(after[:, 0])
    np.add.at(reach, (ends, table.num_ret[ends]), safe_divide(np.ones(len(ends)), idcg[ends, length[ends, 0]]))
    weight = np.cumsum(reach[:, ::-1], axis=1)[:, ::-1][:, 1:]  # Σ over m > i
    count = level.sum(axis=1) + after[:, 0]
    defined = (count > 0) | (table.n_relevant(rel_level) == 0)
    terms = values * _discounts(width) * weight * _inverse(count)[:, None]
    terms = np.where((table.n_relevant(rel_level) > 0)[:, None], terms, 0.0)
    return Terms(terms, "RnDCG = the mean of DCG/IDCG at the R-levels of the ideal ranking: each gain(i)·discount(i) "
                 "times its weight", {"gain": values, "weight": weight},
                 rest=np.where(defined, 0.0, np.nan), rest_label="no R-level: undefined, as trec_eval's 0/0")


# --------------------------------------------------------------------------------------------- assembly
@dataclass(frozen=True)
class RankingRows:
    """Who sits where in a :class:`GainTable`: the retrieved documents, row by row in rank order (as
    ``np.nonzero(table.retrieved())`` lists them), and the judged relevant documents each row misses
    (``missing_rows``, ``missing_documents``, ``missing_grades``). Documents may be an object array of ``str``
    or anything pandas takes as a column (an Arrow string array)."""

    retrieved: Any
    missing_rows: np.ndarray
    missing_documents: Any
    missing_grades: np.ndarray


def _ideal(table: GainTable) -> GainTable:
    """The ideal ranking of each row: its judged relevant documents by grade, every one judged."""
    shown = (table.ideal > 0).sum(axis=1)
    retrieved = np.arange(table.ideal.shape[1])[None, :] < shown[:, None]
    return GainTable(table.ideal, table.ideal, table.topics, num_ret=shown, judged=retrieved, pooled=retrieved,
                     n_judged=table.n_judged)


def _scored_positions(table: GainTable, rows: np.ndarray, columns: np.ndarray, judged_only: bool) -> np.ndarray:
    """Each retrieved entry's position in the ranking the measure scores (-1: left out as unjudged)."""
    if not judged_only:
        return columns
    judged = table.judged[rows, columns]
    counts = np.cumsum(judged)  # judged entries up to each one, over the rows in turn
    before = np.concatenate(([0], counts))[np.searchsorted(rows, rows, "left")]  # those of the rows above
    return np.where(judged, counts - 1 - before, -1)


def _take(factor: np.ndarray, rows: np.ndarray, positions: np.ndarray,
          full: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A factor's value at each entry (a 1-D factor: the row's value at every scored position; a matrix: the
    value at the entry's position) and where it is defined. ``full``: the (rows, width) of a table whose every
    row is retrieved to the end, the entries then being the matrix read row by row (no gather)."""
    factor = np.asarray(factor)
    if full is not None:
        n_rows, width = full
        if factor.ndim == 1:
            return np.repeat(factor, width), np.ones(n_rows * width, dtype=bool)
        if factor.shape == full:
            return factor.ravel(), np.ones(n_rows * width, dtype=bool)
        if factor.shape[0] == n_rows and factor.shape[1] <= width:  # the first ranks only (a cutoff): padded
            padded, inside = np.zeros(full, dtype=factor.dtype), np.zeros(full, dtype=bool)
            padded[:, :factor.shape[1]], inside[:, :factor.shape[1]] = factor, True
            return padded.ravel(), inside.ravel()
    inside = positions >= 0
    if factor.ndim == 2:
        inside &= positions < factor.shape[1]
    values = np.zeros(len(rows), dtype=factor.dtype)
    where = np.flatnonzero(inside)
    values[where] = factor[rows[where]] if factor.ndim == 1 else factor[rows[where], positions[where]]
    return values, inside


def _documents(rows: RankingRows, rest: int, copies: int):
    """The document column: the retrieved, the missed and ``rest`` rows without one, ``copies`` times (one per
    part); Arrow strings when the retrieved documents come as Arrow, else Python strings."""
    import pandas as pd
    import pyarrow as pa

    retrieved, missing = rows.retrieved, rows.missing_documents
    if isinstance(retrieved, pd.arrays.ArrowExtensionArray):
        missing = missing.__arrow_array__() if isinstance(missing, pd.arrays.ArrowExtensionArray) else \
            pa.array(list(missing), type=pa.string())
        chunks = [retrieved.__arrow_array__(), missing, pa.nulls(rest, type=pa.string())]
        pieces = [chunk for _ in range(copies) for piece in chunks
                  for chunk in (piece.chunks if isinstance(piece, pa.ChunkedArray) else [piece])]
        return pd.arrays.ArrowExtensionArray(pa.chunked_array(pieces, type=pa.string()))
    column = np.empty((len(retrieved) + len(rows.missing_documents) + rest) * copies, dtype=object)
    one = np.concatenate([np.asarray(retrieved, dtype=object), np.asarray(rows.missing_documents, dtype=object),
                          np.full(rest, None, dtype=object)])
    column[:] = np.tile(one, copies)
    return column


def explain_table(table: GainTable, measure: str | Measure, rows: RankingRows,
                  with_topics: bool = False) -> MeasureExplanation:
    """The explanation of a ranking measure on every row of ``table`` (see the module docstring). One row: the
    score is the kernel's; several (``with_topics``: a ``topic`` column), the score is their summary as trec_eval
    summarizes them and ``scores`` holds each row's. The rows come as the retrieved documents (topic by topic, in
    rank order), then the missed relevant ones, then those without a document; a part at a time."""
    import pandas as pd

    measure = parse(measure)
    spec, params = measure.spec, measure.params
    judged_only = bool(params.pop("judged_only", False))
    values = spec.compute.score(table, judged_only=judged_only, **params)  # the kernel, as evaluate scores
    scored = table.judged_only() if judged_only else table
    compute = spec.compute
    # as the kernel names them (trec_eval's kernels say rel_level)
    arguments = compute.kernel_arguments(params) if isinstance(compute, kernels.TableMeasure) else params
    terms = TERMS[spec.name](scored, **arguments)
    ideal = TERMS[spec.name](_ideal(table), **arguments)
    n_rows, width = table.gains.shape
    full = (n_rows, width) if (table.num_ret == width).all() and not (judged_only and scored is not table) else None
    if full:  # every ranking as long as the table: the entries are the matrices read row by row
        row, column = np.repeat(np.arange(n_rows, dtype=np.int32), width), np.tile(np.arange(width, dtype=np.int32),
                                                                                   n_rows)
        positions, judged, gains = column, table.judged.ravel(), table.gains.ravel()
    else:
        row, column = np.nonzero(table.retrieved())
        positions = _scored_positions(table, row, column, judged_only and scored is not table)
        judged, gains = table.judged[row, column], table.gains[row, column]
    m_rows = np.asarray(rows.missing_rows, dtype=np.int64)
    m_grades = np.asarray(rows.missing_grades, dtype=float)
    rest_rows = np.flatnonzero(terms.rest != 0) if terms.rest is not None else np.zeros(0, dtype=np.int64)
    n_ret, n_miss, n_rest = len(row), len(m_rows), len(rest_rows)
    size = n_ret + n_miss + n_rest

    # the ideal position of every judged relevant document: by grade (a binary measure: relevant or not), then
    # by rank (the missed ones last)
    positive = np.flatnonzero(judged & (gains > 0))
    key_rows = np.concatenate((row[positive], m_rows))
    key_grades = np.concatenate((gains[positive], m_grades))
    level = params.get("rel")
    if level is not None:
        key_grades = (key_grades >= level).astype(float)
    key_ranks = np.concatenate((column[positive], np.full(n_miss, np.iinfo(np.int64).max)))
    order = np.lexsort((key_ranks, -key_grades, key_rows))
    ideal_at = np.empty(len(order), dtype=np.int64)
    ideal_at[order] = np.arange(len(order)) - np.searchsorted(key_rows[order], key_rows[order], "left")
    sign = -1.0 if spec.direction == "lower" else 1.0
    name = str(measure)
    parts = terms.parts or {name: terms.contribution}
    ideal_parts = ideal.parts or {name: ideal.contribution}
    copies = len(parts)

    # the float columns are rows of one block, which the frame takes as they are (no copy)
    float_factors = [f for f, m in terms.factors.items() if np.asarray(m).dtype != bool]
    float_names = ["grade", *float_factors, "contribution", "lost"]
    block = np.empty((len(float_names), size * copies))
    view = dict(zip(float_names, block, strict=True))
    first = slice(0, size)
    np.copyto(view["grade"][:n_ret], gains)
    view["grade"][:n_ret][~judged] = np.nan
    view["grade"][n_ret:n_ret + n_miss] = m_grades
    view["grade"][n_ret + n_miss:size] = np.nan
    others: dict[str, object] = {}
    for factor, matrix_of in terms.factors.items():
        values_of, inside = _take(matrix_of, row, positions, full)
        if factor in view:
            view[factor][:n_ret] = values_of if full and len(values_of) == len(inside) and inside.all() else \
                np.where(inside, values_of, np.nan)
            view[factor][n_ret:size] = np.nan
        else:
            filled, mask = np.zeros(size, dtype=bool), np.ones(size, dtype=bool)
            filled[:n_ret], mask[:n_ret] = values_of, ~inside
            others[factor] = pd.arrays.BooleanArray(np.tile(filled, copies), np.tile(mask, copies))
    for name_of in ("grade", *float_factors):
        for i in range(1, copies):
            view[name_of][i * size:(i + 1) * size] = view[name_of][first]
    for i, (part, matrix) in enumerate(parts.items()):
        mine, lost = view["contribution"][i * size:(i + 1) * size], view["lost"][i * size:(i + 1) * size]
        mine[:n_ret] = _take(matrix, row, positions, full)[0]
        mine[n_ret:] = 0.0
        if terms.missing is not None and not terms.parts:
            mine[n_ret:n_ret + n_miss] = terms.missing(m_rows, m_grades)
        if n_rest:
            mine[n_ret + n_miss:] = terms.rest[rest_rows]
        np.negative(mine, out=lost)  # lost = best − contribution: best is 0 but for the ideal's documents
        lost[positive] += _take(ideal_parts[part], key_rows[:len(positive)], ideal_at[:len(positive)])[0]
        lost[n_ret:n_ret + n_miss] += _take(ideal_parts[part], m_rows, ideal_at[len(positive):])[0]
        if n_rest and ideal.rest is not None:
            lost[n_ret + n_miss:] += np.nan_to_num(ideal.rest[rest_rows])
        if sign < 0:
            np.negative(lost, out=lost)
        lost += 0.0  # no -0.0

    def tiled(array) -> np.ndarray:
        return np.tile(array, copies) if copies > 1 else array

    rank = np.zeros(size, dtype=np.int64)
    rank[:n_ret] = positions + 1
    rank_mask = np.ones(size, dtype=bool)
    rank_mask[:n_ret] = positions < 0
    judged_column = np.ones(size, dtype=bool)
    judged_column[:n_ret] = judged
    judged_mask = np.zeros(size, dtype=bool)
    judged_mask[n_ret + n_miss:] = True
    leading: dict[str, object] = {}
    if with_topics:
        codes = tiled(np.concatenate((row, m_rows, rest_rows)))
        leading["topic"] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(table.topics)),
                                                     validate=False)
    leading |= {"rank": pd.arrays.IntegerArray(tiled(rank), tiled(rank_mask)),
                "document": _documents(rows, n_rest, copies),
                "judged": pd.arrays.BooleanArray(tiled(judged_column), tiled(judged_mask))}
    order = [*(["topic"] if with_topics else []), "rank", "document", "grade", "judged", *terms.factors]
    others = leading | others
    if terms.rest is not None:  # the measure carries a value outside the documents (rows only where it is not 0)
        what = np.full(size, None, dtype=object)
        what[n_ret + n_miss:] = terms.rest_label
        others["what"] = pd.array(tiled(what), dtype=pd.StringDtype())
        order.append("what")
    if terms.parts:
        others["part"] = np.repeat(np.array(list(parts), dtype=object), size)
        order.append("part")
    order += ["contribution", "lost"]
    frame = pd.DataFrame({name_of: others[name_of] if name_of in others else view[name_of] for name_of in order},
                         copy=False)
    contribution = view["contribution"]
    topics = list(table.topics) if table.topics else [str(i) for i in range(len(values))]
    per_topic = pd.Series(values, index=pd.Index(topics, name="topic"), name=name)
    score = float(values[0]) if len(values) == 1 else float(
        summarize(np.asarray(values, dtype=float)[trec_order(topics)], spec.aggregate))
    scores = per_topic if with_topics else None
    if terms.parts:
        how = f"through its parts: {', '.join(parts)}"
        part_values = {part: float(contribution[i * size:(i + 1) * size].sum()) if len(values) == 1
                       else float("nan") for i, part in enumerate(parts)}
        return MeasureExplanation(name, score, frame, part_values, terms.formula, how, terms.combine, scores)
    formula = terms.formula + (f" (over topics: the {spec.aggregate})" if spec.aggregate != "mean" else "")
    return MeasureExplanation(name, score, frame, {name: score}, formula, "per document", scores=scores)


def organization_rows(gold: Organization, output: Organization) -> tuple[GainTable, RankingRows]:
    """The one-row table the registry scores ``output`` on (:meth:`GainTable.from_organizations`) and its
    documents: the ranking's, and the gold's relevant ones it misses (by grade, then by id)."""
    ranked = ranked_documents(output)
    judged = judgements_of(gold)
    seen = set(ranked)
    missing = sorted(((doc, grade) for doc, grade in judged.items() if grade > 0 and doc not in seen),
                     key=lambda item: (-item[1], natural_key(item[0])))
    table = GainTable.from_organizations(gold, output)
    documents = np.empty(len(ranked), dtype=object)
    documents[:] = ranked
    missing_documents = np.empty(len(missing), dtype=object)
    missing_documents[:] = [doc for doc, _ in missing]
    return table, RankingRows(documents, np.zeros(len(missing), dtype=np.int64), missing_documents,
                              np.array([grade for _, grade in missing], dtype=float))


def explain_ranking(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A ranking measure of ``output`` against ``gold`` explained per document (the module docstring)."""
    table, rows = organization_rows(gold, output)
    return explain_table(table, measure, rows)


