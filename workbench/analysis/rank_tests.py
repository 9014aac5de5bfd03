"""Friedman's test of many systems over topics, with Nemenyi's or Conover's post-hoc comparison of every pair (the
usual choice beside Tukey's HSD for many systems over many topics: Demšar, JMLR 2006; Conover, Practical
Nonparametric Statistics, 1999, §5.8).

* Friedman (JASA 1937): each topic ranks the k systems (1 the worst, ties averaged); R_j the rank sum of system
  j over n topics, χ² = (12 / (n k (k + 1)) Σ R_j² − 3 n (k + 1)) / C, C = 1 − Σ (t³ − t) / (n k (k² − 1)) over
  the tied groups, p = P(χ²_{k−1} ≥ χ²) — ``scipy.stats.friedmanchisquare``, which takes 3 systems at least
  (here 2 do). Every topic tying every system leaves C = 0: χ² = 0, p = 1.
* Nemenyi: q = |R̄_a − R̄_b| / √(k (k + 1) / (12 n)) on the mean ranks, p = P(Q_{k,∞} ≥ q) for the studentized
  range, the simultaneous interval R̄_a − R̄_b ± q_{1−α} √(k (k + 1) / (12 n)) (Demšar's critical difference) —
  ``scikit_posthocs.posthoc_nemenyi_friedman``.
* Conover: A₁ = Σ ranks², S² = (A₁ − n k (k + 1)² / 4) / (k − 1), T₂ = Σ (R_j − n (k + 1) / 2)² / S²,
  A = S² · 2 n (k − 1) / ((n − 1)(k − 1)), B = 1 − T₂ / (n (k − 1)), t = |R_a − R_b| / √A / √B,
  p = 2 P(T_{(n−1)(k−1)} ≥ t) corrected over the k (k − 1) / 2 pairs (``holm``, ``bonferroni``, ``none``), or
  ``single-step`` (the studentized range of √2 t) — ``scikit_posthocs.posthoc_conover_friedman``. Where every
  topic ranks the systems alike (B = 0) a pair of different rank sums has p = 0 and a pair of equal ones p = 1
  (scikit-posthocs gives NaN for the latter); where every topic ties every system, p = 1.

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4, .6], "B": [.2, .3, .35, .4],
    ...         "C": [.6, .7, .65, .8]}.items() for t, v in enumerate(vs)]
    >>> table = friedman(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP")
    >>> table.attrs["friedman"]["statistic"], table.attrs["groups"]
    (8.0, [['C', 'A'], ['A', 'B']])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.posthoc_family import POSTHOC_TESTS, friedman_ranks, pair_indices
from workbench.analysis.results import ALPHA, MEASURE, MISSING, RESULTS, SYSTEMS, compared_systems
from workbench.analysis.tukey import homogeneous_groups
from workbench.validation import Choices, validate

__all__ = ["POSTHOCS", "POSTHOC", "CONOVER_CORRECTIONS", "CONOVER_CORRECTION", "friedman_ranks", "friedman_test",
           "posthoc_pairs", "friedman"]

POSTHOCS = {name: POSTHOC_TESTS[name].title for name in ("nemenyi", "conover")}
"""The post-hoc comparisons after Friedman's test, by name."""
POSTHOC = Choices(tuple(POSTHOCS))
"""The domain of ``posthoc``."""
CONOVER_CORRECTIONS = ("holm", "bonferroni", "none", "single-step")
CONOVER_CORRECTION = Choices(CONOVER_CORRECTIONS)
"""The domain of Conover's ``correction``."""


def friedman_test(scores: np.ndarray) -> tuple[float, float, int]:
    """Friedman's χ², its p-value and degrees of freedom (k − 1) for ``scores`` (systems × topics)."""
    ranks = friedman_ranks(scores)
    k, n = ranks.shape
    ties = _ties(scores)
    c = 1 - ties / (k * (k * k - 1) * n)
    if c <= 0:  # every topic ties every system
        return 0.0, 1.0, k - 1
    statistic = (12.0 / (k * n * (k + 1)) * float((ranks.sum(axis=1) ** 2).sum()) - 3 * n * (k + 1)) / c
    return float(statistic), float(stats.chi2.sf(statistic, k - 1)), k - 1


def _ties(scores: np.ndarray) -> float:
    """Σ (t³ − t) over the groups of tied scores of every topic (``scores``: systems × topics)."""
    total = 0.0
    for column in np.asarray(scores, dtype=float).T:
        _, sizes = np.unique(column, return_counts=True)
        total += float((sizes ** 3 - sizes).sum())
    return total


def posthoc_pairs(scores: np.ndarray, posthoc: str = "nemenyi", correction: str = "holm", alpha: float = 0.05):
    """The kernel of :func:`friedman`'s pairs on ``scores`` (systems × topics, finite; the other arguments as
    :func:`friedman` declares them), from the ``posthoc`` test's declaration in
    :data:`~workbench.analysis.posthoc_family.POSTHOC_TESTS`: the pairs ``(i, j)``, mean-rank differences, statistics,
    p-values and the half-widths of the simultaneous 1 − ``alpha`` intervals (NaN where the correction has none:
    Holm's)."""
    found = POSTHOC_TESTS[posthoc].pairs(scores, correction, alpha)
    a, b = pair_indices(len(scores))
    pairs = list(zip(a.tolist(), b.tolist(), strict=True))
    return pairs, found.location[a] - found.location[b], found.statistic, found.pvalue, found.half


@validate(results=RESULTS, measure=MEASURE, posthoc=POSTHOC, correction=CONOVER_CORRECTION, systems=SYSTEMS,
          alpha=ALPHA, missing=MISSING)
def friedman(results: pd.DataFrame, measure: str, *, posthoc: str = "nemenyi", correction: str = "holm",
             systems: Sequence | None = None, alpha: float = 0.05, missing: str = "error") -> pd.DataFrame:
    """Friedman's test of the systems on ``measure`` over the topics, and ``posthoc`` (:data:`POSTHOCS`) over
    every pair: one row per pair (in the order given or first seen) ``a, b, rank_difference`` (mean rank of a −
    mean rank of b, higher ranks better by the measure's direction), ``statistic`` (Nemenyi's q or Conover's t),
    ``pvalue``, ``low``, ``high`` (the simultaneous 1 − ``alpha`` interval of the difference, NaN under Holm's
    correction), ``significant``; ``.attrs``: ``friedman`` (``statistic``, ``pvalue``, ``df``), ``mean_ranks``,
    ``groups`` (homogeneous groups, best mean rank first) and ``report``.

    ``correction`` applies to Conover's p-values (:data:`CONOVER_CORRECTIONS`); Nemenyi's control the family
    themselves. ``missing`` as in :func:`~workbench.analysis.results.score_cube` (2 topics at least).
    """
    cube = compared_systems(results, measure, "Friedman's test", systems=systems, missing=missing)
    scores = cube.oriented()[:, :, 0]
    statistic, pvalue, df = friedman_test(scores)
    pairs, difference, q, p, half = posthoc_pairs(scores, posthoc, correction, alpha)
    frame = pd.DataFrame({"a": [cube.systems[i] for i, _ in pairs], "b": [cube.systems[j] for _, j in pairs],
                          "rank_difference": difference, "statistic": q, "pvalue": p,
                          "low": difference - half, "high": difference + half, "significant": p < alpha})
    mean_ranks = friedman_ranks(scores).mean(axis=1)
    frame.attrs["friedman"] = {"statistic": statistic, "pvalue": pvalue, "df": df}
    frame.attrs["mean_ranks"] = dict(zip(cube.systems, mean_ranks.tolist(), strict=True))
    frame.attrs["groups"] = homogeneous_groups(cube.systems, mean_ranks, frame)
    how = POSTHOCS[posthoc] + ("" if posthoc == "nemenyi" else f", {correction} over the {len(pairs)} pairs")
    frame.attrs["report"] = (f"Friedman's test (χ² = {statistic:.4g}, df = {df}, p = {pvalue:.3g}; {len(cube.systems)}"
                             f" systems, {len(cube.topics)} topics) and {how} post-hoc (α = {alpha:g}) on {measure}")
    return frame
