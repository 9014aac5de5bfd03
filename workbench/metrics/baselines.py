"""Random baselines for retrieval and optimal cluster search (Mehlitz et al.: Mehlitz, Bauckhage, Kunegis,
Albayrak).

A collection of ``n`` documents holds ``g`` relevant ones. Drawing ``d`` at random retrieves on average
μ(d) = g·d / n relevant documents (eq. 5); keeping the best of ``c`` random clusters of ``d`` documents (the
"optimal cluster search") retrieves μ_all(d, c) (eqs. 6–11). Absolute precision and recall subtract that
expectation (eqs. 12–13), and E_abs = E(P_abs, R_abs) (eq. 14), with van Rijsbergen's
E = 1 − (β² + 1)·P·R / (β²·P + R) (eq. 3). Everything is exact (integers and fractions)::

    >>> round(float(expected_best_of(100, 10, d=10, c=5)), 4)  # Fig. 2: best of 5 random clusters
    2.0866
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, floor, lgamma, log

from workbench.errors import InputError
from workbench.metrics.registry import ORGANIZATION, Choices, Explainer, Interval, Param, register
from workbench.model import Organization
from workbench.validation import validate

__all__ = ["SOURCE", "COUNT", "BEST_OF_COUNT", "MAX_BITS", "MAX_WORK", "AT_LEAST_ONE", "E_BETA", "SEARCH", "COLLECTION",
           "BaselineInputError", "expected_relevant", "expected_best_of", "effectiveness", "absolute_precision",
           "absolute_recall", "absolute_effectiveness", "absolute_setting"]

_EXPLAINED = Explainer("workbench.metrics.explanations.baselines:explain_baseline")

SOURCE = "Mehlitz et al.: Mehlitz et al., A New Evaluation Measure for IR Systems (eqs. 3-14)"


COUNT = Interval(0, integer=True)
"""The domain of a count of documents (n in the collection, g relevant, d drawn)."""
BEST_OF_COUNT = Interval(0, 2**53, integer=True)
"""The domain of the counts of :func:`expected_best_of`: up to 2^53, the largest count a double holds exactly (its
work is estimated with ``lgamma`` before any exact integer is built)."""
MAX_BITS = 2**20
"""The largest exact integer :func:`expected_best_of` computes with: C(n, d)^c of at most 2^20 bits (its powers and
the fraction's gcd at that size take about 3 CPU-s over 100 steps)."""
MAX_WORK = 10**8
"""The most bits × steps :func:`expected_best_of` takes on: c·log₂C(n, d) bits over the steps of the
hypergeometric support (n = 1000, g = 100, d = 500, c = 1000, the largest such accepted, takes about 2.3 CPU-s)."""
AT_LEAST_ONE = Interval(1, integer=True)
"""The domain of a count of at least one: c, the random clusters the best is kept of; r and g, the retrieved and
the relevant documents the absolute measures divide by."""
E_BETA = Interval(0, low_open=True)
"""The domain of β of van Rijsbergen's E: the weight of recall against precision."""
SEARCH = Choices(("single", "optimal"))
"""The domain of ``search``: what is retrieved, the output's prioritised documents or its best cluster."""
COLLECTION = Interval(1, integer=True, optional=True)
"""The domain of the collection's size ``n`` of the measures (None: read from the gold and the output)."""


class BaselineInputError(InputError):
    """Counts that no random draw can have together (more relevant documents, or more drawn, than the collection
    holds), or organizations the absolute measures cannot read."""


def _counts(n: int, g: int, d: int, c: int = 1) -> tuple[int, int, int, int]:
    """The counts (each declared a :data:`COUNT`) as Python ints, checked against each other."""
    n, g, d, c = int(n), int(g), int(d), int(c)
    if g > n:
        raise BaselineInputError(f"g = {g} relevant documents in a collection of n = {n}")
    if d > n:
        raise BaselineInputError(f"cannot draw d = {d} documents from n = {n}")
    return n, g, d, c


@validate(n=COUNT, g=COUNT, d=COUNT)
def expected_relevant(n: int, g: int, d: int) -> Fraction:
    """μ(d) = Σ_i i·C(g,i)·C(n−g,d−i) / C(n,d) = g·d / n: the hypergeometric mean (Mehlitz et al., eq. 5).

    >>> expected_relevant(100, 10, 10)
    Fraction(1, 1)
    """
    n, g, d, _ = _counts(n, g, d)
    return Fraction(g * d, n) if n else Fraction(0)


@validate(n=BEST_OF_COUNT, g=BEST_OF_COUNT, d=BEST_OF_COUNT, c=AT_LEAST_ONE)
def expected_best_of(n: int, g: int, d: int, c: int) -> Fraction:
    """μ_all(d, c): expected number of relevant documents in the best of ``c`` random clusters of ``d``
    documents (Mehlitz et al., eqs. 6–11), exactly.

    Eq. 8 sums to B(i) = (C(i) + D(i))^c − D(i)^c with C(i) = C(g,i)·C(b,d−i) (eq. 9) and
    D(i) = Σ_{k<i} C(g,k)·C(b,d−k) (eq. 10), so with A = C(n,d)^c (eq. 7),
    μ_all = Σ_i i·B(i)/A = Σ_{i=1..d} (1 − D(i)^c / A): big integers, no overflow. Only the hypergeometric
    support max(0, d−b) < i ≤ min(d, g) takes a step (below it D(i) = 0, above it D(i)^c = A). The exact integers
    are bounded so that an accepted input answers within seconds: C(n, d)^c of at most :data:`MAX_BITS` bits, and
    bits × steps at most :data:`MAX_WORK`; beyond, a :class:`BaselineInputError` says so.

    >>> expected_best_of(10**6, 10, 5, 2**30)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.metrics.baselines.BaselineInputError: the best of c = 1073741824 clusters of d = 5 ...
    """
    n, g, d, c = _counts(n, g, d, c)
    b = n - g
    first, last = max(1, d - b + 1), min(d, g)  # the steps: where D(i) grows
    _bound_work(n, d, c, max(0, last - first + 1))
    total = comb(n, d) ** c
    below = 0  # D(i): ways to draw fewer than i relevant documents in one cluster
    numerator = (first - 1) * total  # D(i) = 0 below the support
    for i in range(first, last + 1):
        below += comb(g, i - 1) * comb(b, d - i + 1)
        numerator += total - below ** c
    return Fraction(numerator, total)


def _bound_work(n: int, d: int, c: int, steps: int) -> None:
    """Refuse a :func:`expected_best_of` whose exact integers (C(n, d)^c) pass :data:`MAX_BITS` bits, or whose
    bits × steps pass :data:`MAX_WORK` (estimated with ``lgamma`` first, so that C(n, d) is never computed
    beyond the bound; then exactly)."""
    estimate = (lgamma(n + 1) - lgamma(d + 1) - lgamma(n - d + 1)) / log(2)
    bits = c * (comb(n, d) - 1).bit_length() if estimate <= MAX_BITS + 64 else MAX_BITS + 1
    if bits > MAX_BITS or bits * steps > MAX_WORK:
        raise BaselineInputError(
            f"the best of c = {c} clusters of d = {d} documents from n = {n} takes exact integers of about "
            f"{max(bits, round(c * estimate)):,} bits over {steps:,} steps; expected_best_of computes with at most "
            f"{MAX_BITS:,} bits and {MAX_WORK:,} bits × steps (a few seconds): give fewer clusters or documents")


@validate(beta=E_BETA)
def effectiveness(precision: float, recall: float, beta: float = 1.0) -> float:
    """E = 1 − (β² + 1)·P·R / (β²·P + R) (Mehlitz et al., eq. 3; van Rijsbergen); 1 when P = R = 0.

    >>> effectiveness(0.5, 0.5)
    0.5
    """
    if beta <= 1:
        numerator, denominator = (beta * beta + 1.0) * precision * recall, beta * beta * precision + recall
    else:  # divided by β², which would overflow for a huge β (the limit β → ∞ is 1 − R)
        q = 1.0 / beta / beta
        numerator, denominator = (1.0 + q) * precision * recall, precision + q * recall
    return 1.0 if denominator == 0 else 1.0 - numerator / denominator


@validate(r=AT_LEAST_ONE)
def absolute_precision(g_ret: float, g_exp: float | Fraction, r: int) -> float:
    """P_abs = (g_ret − g_exp) / r (Mehlitz et al., eq. 12), r ≥ 1 retrieved documents; negative when random
    retrieval does better."""
    return (g_ret - float(g_exp)) / r


@validate(g=AT_LEAST_ONE)
def absolute_recall(g_ret: float, g_exp: float | Fraction, g: int) -> float:
    """R_abs = (g_ret − g_exp) / g (Mehlitz et al., eq. 13), g ≥ 1 relevant documents."""
    return (g_ret - float(g_exp)) / g


@validate(r=AT_LEAST_ONE, g=AT_LEAST_ONE, beta=E_BETA)
def absolute_effectiveness(g_ret: float, g_exp: float | Fraction, r: int, g: int, beta: float = 1.0) -> float:
    """E_abs = E(P_abs, R_abs) (Mehlitz et al., eq. 14); above 1 when random retrieval does better.

    Table II, scenario 1 (n = 100, g = 16, d = 12, reported E = 0.692 at β = 1 so g_ret = 0.308·28/2):
    >>> round(absolute_effectiveness(0.308 * 28 / 2, 4.85, 12, 16), 3)
    1.038
    """
    return effectiveness(absolute_precision(g_ret, g_exp, r), absolute_recall(g_ret, g_exp, g), beta)


# ------------------------------------------------------------------------------ measures on organizations
@validate(gold=ORGANIZATION, output=ORGANIZATION, beta=E_BETA, search=SEARCH, n=COLLECTION)
def absolute_setting(gold: Organization, output: Organization, *, beta: float = 1.0, search: str = "single",
                     n: int | None = None) -> tuple[frozenset[str], frozenset[str], Fraction]:
    """What the absolute measures read from an output against a gold whose positive documents are the relevant
    ones: ``(retrieved, relevant, g_exp)``.

    ``search="single"``: the output's prioritised documents are the retrieved set, g_exp = μ(r).
    ``search="optimal"``: the output's cluster with the smallest E is kept (optimal cluster search) and
    g_exp = μ_all(d, c) with c the number of clusters and d their mean size rounded down (as Table I does).
    The collection size is ``n``, else the documents of a gold with a finite rest and of the output.
    """
    relevant = frozenset(gold.grade_of())
    if n is None:
        if not gold.finite:
            raise BaselineInputError("the gold has an unlimited tail: give the collection size n=...")
        n = len(gold.documents | output.documents)
    g = len(relevant)
    if g == 0:
        raise BaselineInputError("the gold has no relevant document: absolute recall is undefined")
    clusters = [cluster for level in output.levels for cluster in level]
    if not clusters:
        raise BaselineInputError("the output retrieves no document")
    if search == "single":
        retrieved = frozenset().union(*clusters)
        g_exp = expected_relevant(n, g, len(retrieved))
    else:  # optimal
        retrieved = min(clusters, key=lambda cl: (effectiveness(len(cl & relevant) / len(cl),
                                                                len(cl & relevant) / g, beta), len(cl)))
        size = floor(Fraction(sum(map(len, clusters)), len(clusters)))
        g_exp = expected_best_of(n, g, size, len(clusters))
    return frozenset(retrieved), relevant, g_exp


def _absolute_scores(gold: Organization, output: Organization, *, beta: float, search: str,
                     n: int | None) -> dict[str, float]:
    """P_abs, R_abs and E_abs of an output against a gold whose positive documents are the relevant ones
    (:func:`absolute_setting` says which documents are retrieved and how many relevant ones chance brings)."""
    retrieved, relevant, g_exp = absolute_setting(gold, output, beta=beta, search=search, n=n)
    g_ret, r, g = len(retrieved & relevant), len(retrieved), len(relevant)
    return {"P_abs": absolute_precision(g_ret, g_exp, r), "R_abs": absolute_recall(g_ret, g_exp, g),
            "E_abs": absolute_effectiveness(g_ret, g_exp, r, g, beta), "g_exp": float(g_exp)}


_PARAMS = {
    "beta": Param(1.0, E_BETA, "β of E: the weight of recall against precision"),
    "search": Param("single", SEARCH, "what is retrieved: the output's prioritised "
                                                               "documents, or its cluster with the smallest E "
                                                               "(optimal cluster search)"),
    "n": Param(None, COLLECTION, "the collection's size (None: the documents of a "
                                                                 "gold with a finite rest and of the output)"),
}
for _field, _range, _what in (("P_abs", (-1.0, 1.0), "absolute precision (g_ret − g_exp) / r"),
                              ("R_abs", (-1.0, 1.0), "absolute recall (g_ret − g_exp) / g"),
                              ("E_abs", (0.0, float("inf")), "absolute effectiveness E(P_abs, R_abs)")):
    register(_field, _absolute_scores, task="baselines", source=SOURCE, params=_PARAMS,
             range=_range, field=_field, description=_what + "; search=single|optimal (best cluster)",
             direction="lower" if _field == "E_abs" else "higher",
             explained=_EXPLAINED)
