"""How far two evaluations agree on the order of the systems: Kendall's τ (τ-b, which counts ties), Yilmaz et
al.'s τ_ap (A New Rank Correlation Coefficient for Information Retrieval, SIGIR 2008), which weighs a swap near the
top more, Pearson's r of the systems' summaries and Spearman's ρ of their ranks (ties averaged), between the system
rankings of two measures (or of one measure under two sets of judgements: two assessors' qrels), and the pairs of
systems the two order differently.

τ_ap of a ranking b against a reference ranking a (systems ordered best first, N of them):
τ_ap = 2 / (N − 1) · Σ_{i=2..N} C(i) / (i − 1) − 1, C(i) the number of systems above rank i in b that a also puts
above b's i-th system. It is not symmetric; ``tau_ap`` takes ``measure_a`` as the reference, ``tau_ap_ba`` the
other way round. Systems are ranked by their summary over topics (the mean; trec_eval's ``all``) summed exactly
(``math.fsum``: two systems whose topics hold the same values in another order tie, where adding them one by one
in trec_eval's order leaves the last bits to the order, 0.424 against 0.42400000000000004, and ranked them), ties
kept by τ-b and broken by the systems' order for τ_ap (:func:`ranking_agreement`).

    >>> import pandas as pd
    >>> means = {"A": (0.5, 0.4), "B": (0.4, 0.5), "C": (0.3, 0.1)}
    >>> rows = [(s, t, m, v) for s, vs in means.items() for t in (1, 2) for m, v in zip(("AP", "P@10"), vs)]
    >>> found = ranking_agreement(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP", "P@10")
    >>> round(found.tau, 4), found.tau_ap, found.swaps[["a", "b"]].values.tolist()
    (0.3333, 0.0, [['A', 'B']])
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.results import MEASURE, MISSING, RESULTS, SCORES, SYSTEMS, ResultsError, score_cube
from workbench.errors import quoted
from workbench.validation import Domain, validate

__all__ = ["Agreement", "Ordering", "kendall_tau_b", "pearson_r", "tau_ap", "exact_summary", "ranking_agreement"]


@dataclass(frozen=True)
class Ordering(Domain):
    """Two or more distinct items, best first (a list, tuple, array or Series of hashable items; not a set, which
    has no order); with ``like``, the same items as the argument it names, in any order.

    >>> Ordering().reason(["A", "B", "A"])
    "must be an ordering of two or more distinct items ('A' twice)"
    >>> Ordering(like="reference").relate(["A", "C"], {"reference": ["A", "B"]})
    "must order the items of reference ('C' is not one of them)"
    """

    like: str | None = None

    def __str__(self) -> str:
        return "an ordering of two or more distinct items"

    def reason(self, value: Any) -> str | None:
        if self.wrong_type(value):
            return f"must be {self}"
        try:
            counts = Counter(value)
        except TypeError:  # an unhashable item
            return f"must be {self} (of hashable items)"
        if len(value) < 2:
            return f"must be {self}"
        twice = next((item for item, count in counts.items() if count > 1), None)
        return None if len(counts) == len(value) else f"must be {self} ({quoted(twice)} twice)"

    def relate(self, value: Any, arguments: Mapping[str, Any]) -> str | None:
        """Why ``value`` does not order the items of the argument it is declared ``like``, or None."""
        if self.like is None or self.like not in arguments:
            return None
        mine, theirs = set(value), set(arguments[self.like])
        if mine == theirs:
            return None
        stray = next(iter(mine - theirs), None)
        if stray is not None:
            return f"must order the items of {self.like} ({quoted(stray)} is not one of them)"
        return f"must order the items of {self.like} ({quoted(next(iter(theirs - mine)))} is missing)"

    def wrong_type(self, value: Any) -> bool:
        return isinstance(value, str | bytes | Mapping | AbstractSet) or not all(
            hasattr(value, method) for method in ("__len__", "__iter__", "__getitem__"))

    def outside(self) -> tuple:
        return ("AB", {"A", "B"}, ["A"], ["A", "B", "A"], [["A"], ["B"]])


@dataclass(frozen=True)
class Agreement:
    """Kendall's τ-b, τ_ap, Pearson's r (of the summaries) and Spearman's ρ (of the ranks, ties averaged) between
    the system rankings of ``measure_a`` and ``measure_b``; ``rankings`` holds
    each system's summary and rank (1 best) under both; ``swaps`` one row per pair ordered differently (``a``
    above ``b`` by ``measure_a``, below by ``measure_b``)."""

    measure_a: str
    measure_b: str
    tau: float
    tau_ap: float
    tau_ap_ba: float
    pearson: float
    spearman: float
    rankings: pd.DataFrame
    swaps: pd.DataFrame

    def __str__(self) -> str:
        return (f"Kendall's τ = {self.tau:.4f}, τ_ap = {self.tau_ap:.4f} ({self.measure_a} as reference; "
                f"{self.tau_ap_ba:.4f} the other way), Pearson's r = {self.pearson:.4f}, Spearman's ρ = "
                f"{self.spearman:.4f} over {len(self.rankings)} systems; {len(self.swaps)} of "
                f"{len(self.rankings) * (len(self.rankings) - 1) // 2} pairs swapped")


@validate(x=SCORES, y=replace(SCORES, like="x"))
def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b of two score vectors of one length (ties in either count as neither concordant nor
    discordant): (C − D) / √((n0 − n1)(n0 − n2)); NaN when either vector is constant (as scipy.stats.kendalltau).

        >>> kendall_tau_b([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])
        -1.0
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(x.size, 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    n0 = i.size
    untied_x, untied_y = np.count_nonzero(sx), np.count_nonzero(sy)
    if not untied_x or not untied_y:
        return float("nan")
    return float((sx * sy).sum() / np.sqrt(untied_x * untied_y)) if n0 else float("nan")


@validate(x=SCORES, y=replace(SCORES, like="x"))
def pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r of two score vectors of one length: cov(x, y) / (σ_x σ_y); NaN when either is constant (as
    ``scipy.stats.pearsonr``). Spearman's ρ is the r of their ranks (``scipy.stats.rankdata``, ties averaged).

        >>> round(pearson_r([0.1, 0.2, 0.3], [0.2, 0.4, 0.7]), 6)
        0.993399
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    dx, dy = x - x.mean(), y - y.mean()
    spread = float(np.sqrt((dx * dx).sum() * (dy * dy).sum()))
    return float((dx * dy).sum() / spread) if spread > 0 else float("nan")


@validate(reference=Ordering(), other=Ordering(like="reference"))
def tau_ap(reference: Sequence, other: Sequence) -> float:
    """τ_ap of the ordering ``other`` against ``reference``: two orderings of the same distinct items, best first
    (Yilmaz et al. define τ_ap on rankings without ties; :func:`ranking_agreement` says how it breaks them).

        >>> tau_ap(["A", "B", "C", "D"], ["B", "A", "C", "D"]), tau_ap(["A", "B", "C", "D"], ["A", "B", "D", "C"])
        (0.33333333333333326, 0.7777777777777777)
    """
    reference, other = list(reference), list(other)
    position = {item: i for i, item in enumerate(reference)}
    total = 0.0
    for i in range(1, len(other)):
        above = sum(position[other[j]] < position[other[i]] for j in range(i))
        total += above / i
    return 2.0 * total / (len(other) - 1) - 1.0


def exact_summary(values: np.ndarray, how: str) -> np.ndarray:
    """Each row's summary over its columns (``how``: mean, sum or gmean, as
    :func:`~workbench.metrics.summary.summarize`) summed exactly with ``math.fsum``: the correctly rounded sum,
    whatever the order of the values, then divided once.

        >>> values = np.array([[0.229, 0.945, 0.901, 0.031], [0.031, 0.901, 0.945, 0.229]])
        >>> exact_summary(values, "mean").tolist(), (0.229 + 0.945 + 0.901 + 0.031) / 4
        ([0.5265, 0.5265], 0.5265000000000001)
    """
    from workbench.metrics.summary import MIN_GEO_MEAN

    rows = np.log(np.maximum(values, MIN_GEO_MEAN)) if how == "gmean" else np.asarray(values, dtype=float)
    totals = np.array([math.fsum(row) for row in rows.tolist()])
    if how == "sum":
        return totals
    means = totals / rows.shape[1]
    return np.exp(means) if how == "gmean" else means


@validate(results=RESULTS, measure_a=MEASURE, measure_b=MEASURE, results_b=replace(RESULTS, optional=True),
          systems=SYSTEMS, missing=MISSING)
def ranking_agreement(results: pd.DataFrame, measure_a: str, measure_b: str, *, results_b: pd.DataFrame | None = None,
                      systems: Sequence | None = None, missing: str = "error") -> Agreement:
    """τ, τ_ap and the swapped pairs between the system rankings ``measure_a`` and ``measure_b`` give over the same
    topics (``measure_b`` read from ``results_b`` when given: the same measure under other judgements). Each
    measure's registered direction orders it (lower is better for Lam%); summaries are summed exactly
    (:func:`exact_summary`).

    Ties: τ-b counts a pair tied by either measure as neither concordant nor discordant. τ_ap is defined on
    rankings without ties (Yilmaz et al., SIGIR 2008), so each ranking breaks its ties by the systems' order
    (``systems``, else the order the results first show them): a pair tied by one measure counts as ordered as
    the systems are. With A and B tied first by ``measure_a`` and C last, and ``measure_b`` ranking B, A, C,
    τ_ap = 0 both ways (B above A by ``measure_b`` counts as a swap of the tie broken as A, B), where τ-b =
    2/√6 ≈ 0.816 (the tied pair left out).
    """
    from workbench.metrics.registry import aggregate

    other = results if results_b is None else results_b
    if results_b is None and measure_a == measure_b:
        raise ResultsError(f"measure_a and measure_b are both {measure_a!r}: name two measures, or give results_b")
    a = score_cube(results, [measure_a], systems=systems, missing=missing, min_topics=1)
    b = score_cube(other, [measure_b], systems=a.systems, missing=missing, min_topics=1)
    if len(a.systems) < 2:
        raise ResultsError(f"ranking agreement needs two systems at least; the results hold {len(a.systems)}")
    summaries = []
    for cube, name in ((a, measure_a), (b, measure_b)):
        summaries.append(exact_summary(cube.values[:, :, 0], aggregate(str(name))) * cube.signs()[0])
    oriented_a, oriented_b = summaries
    order_a = [a.systems[i] for i in np.argsort(-oriented_a, kind="stable")]
    order_b = [a.systems[i] for i in np.argsort(-oriented_b, kind="stable")]
    rank_a = {s: r for r, s in enumerate(order_a, start=1)}
    rank_b = {s: r for r, s in enumerate(order_b, start=1)}
    sign_a, sign_b = a.signs()[0], b.signs()[0]
    label_b = measure_b if measure_b != measure_a else f"{measure_b} (results_b)"
    rankings = pd.DataFrame({"system": a.systems, measure_a: oriented_a * sign_a, f"rank {measure_a}":
                             [rank_a[s] for s in a.systems], label_b: oriented_b * sign_b,
                             f"rank {label_b}": [rank_b[s] for s in a.systems]}).sort_values(f"rank {measure_a}")
    swaps = []
    for i, j in itertools.combinations(range(len(a.systems)), 2):
        da, db = oriented_a[i] - oriented_a[j], oriented_b[i] - oriented_b[j]
        if da * db < 0:
            first, second = (i, j) if da > 0 else (j, i)
            swaps.append({"a": a.systems[first], "b": a.systems[second],
                          f"{measure_a} difference": abs(da) * sign_a, f"{label_b} difference": -abs(db) * sign_b})
    swap_frame = pd.DataFrame(swaps, columns=["a", "b", f"{measure_a} difference", f"{label_b} difference"])
    return Agreement(measure_a, measure_b, kendall_tau_b(oriented_a, oriented_b), tau_ap(order_a, order_b),
                     tau_ap(order_b, order_a), pearson_r(oriented_a, oriented_b),
                     pearson_r(stats.rankdata(oriented_a), stats.rankdata(oriented_b)),
                     rankings.reset_index(drop=True), swap_frame)
