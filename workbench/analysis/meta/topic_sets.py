"""Sakai's topic set size design (*Topic set size design*, Information Retrieval Journal 19(3), 2016; *Statistical
Reform in Information Retrieval?*, SIGIR Forum 2014): how many topics a test collection needs for a measure, from the
variance of its scores in a campaign.

Both designs read σ_t², the variance of the per-topic difference between two systems, estimated from the campaign
(``variance``):

- ``"residual"`` (Sakai's choice): σ̂² = V_E, the residual variance of a two-way ANOVA without replication over the
  m systems × n topics matrix, Σ (x_ij − x̄_i· − x̄_·j + x̄)² / ((m − 1)(n − 1)), and σ̂_t² = 2σ̂²;
- ``"within"``: σ̂² the pooled within-system variance of a one-way ANOVA, Σ (x_ij − x̄_i·)² / (m(n − 1)), and
  σ̂_t² = 2σ̂²;
- ``"pairs"``: σ̂_t² directly, the mean over the system pairs of the variance of their per-topic differences.

**Power-based design** (:func:`topics_for_power`, a paired t-test): the smallest n ≥ 2 whose power to detect a
difference of ``minD`` between two systems reaches 1 − β at level α (two-sided). With Δ = minD / σ_t, power(n) =
``P(|T′| > t_{α/2}(n − 1))`` for T′ a noncentral t of n − 1 degrees of freedom and noncentrality √n·Δ (computed exactly
with scipy's noncentral t, where Sakai's Excel tools use a normal approximation of it). Sakai's starting point is
n₀ = ((z_{α/2} + z_β) / Δ)² + z²_{α/2} / 2; n is then moved one topic at a time.

**CI-based design** (:func:`topics_for_ci`): the smallest n ≥ 2 whose 100(1 − α)% confidence interval of the mean
difference is expected to be no wider than δ: 2 · t_{α/2}(n − 1) · E[σ̂_t] / √n ≤ δ, with E[σ̂_t] = σ_t ·
√(2 / (n − 1)) · Γ(n / 2) / Γ((n − 1) / 2); the starting point is n₀ = 4 z²_{α/2} σ_t² / δ².

A zero variance needs the smallest test: n = 2.

    >>> topics_for_power(0.1, 0.1, alpha=0.05, beta=0.2)  # minD = 0.1, σ_t² = 0.1: Δ ≈ 0.316
    81
    >>> topics_for_ci(0.1, 0.1, alpha=0.05)
    156
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special, stats

from workbench.analysis.meta.samples import TOLERANCE, campaign_cube, scale_of
from workbench.analysis.meta.stability import MEASURES, RESULTS, SYSTEMS
from workbench.analysis.results import MISSING
from workbench.validation import AnyOf, Choices, Interval, ListOf, validate

__all__ = ["DESIGNS", "VARIANCES", "LARGEST_TOPICS", "topics_for_power", "topics_for_ci", "power_of",
           "expected_ci_width", "difference_variance", "topic_set_size"]

DESIGNS = ("power", "ci")
VARIANCES = ("residual", "within", "pairs")
LARGEST_TOPICS = 10**7
"""The largest topic set size the designs search up to; past it they give NaN."""

_LEVEL = Interval(0, 1, low_open=True, high_open=True)
_POSITIVE = Interval(0, 1e6, low_open=True)
_VARIANCE = Interval(0, 1e12)


def power_of(n: int, effect: float, alpha: float) -> float:
    """The power of a two-sided paired t-test over ``n`` topics to detect an effect size ``effect`` = minD / σ_t."""
    df = n - 1
    critical = stats.t.isf(alpha / 2, df)
    noncentrality = min(math.sqrt(n) * effect, 1e6)  # past 10⁶ the power is 1 to double precision
    return float(stats.nct.sf(critical, df, noncentrality) + stats.nct.cdf(-critical, df, noncentrality))


def expected_ci_width(n: int, sd: float, alpha: float) -> float:
    """The expected width of the 100(1 − α)% t interval of a mean difference over ``n`` topics, σ_t = ``sd``."""
    df = n - 1
    expected_sd = sd * math.sqrt(2 / df) * math.exp(special.gammaln(n / 2) - special.gammaln(df / 2))
    return 2 * float(stats.t.isf(alpha / 2, df)) * expected_sd / math.sqrt(n)


def _smallest(start: float, enough, largest: int = LARGEST_TOPICS) -> float:
    """The smallest n ≥ 2 for which ``enough(n)`` holds (monotone), searched one topic at a time from ``start``."""
    n = min(max(2, math.ceil(start)), largest)
    if enough(n):
        while n > 2 and enough(n - 1):
            n -= 1
        return n
    while n < largest:
        n += 1
        if enough(n):
            return n
    return float("nan")


@validate(difference=_POSITIVE, variance=_VARIANCE, alpha=_LEVEL, beta=_LEVEL)
def topics_for_power(difference: float, variance: float, alpha: float = 0.05, beta: float = 0.2) -> float:
    """Sakai's power-based topic set size for a paired t-test: the smallest n whose power to detect a mean
    difference of ``difference`` (minD) reaches 1 − ``beta`` at level ``alpha``, for σ_t² = ``variance`` (NaN past
    :data:`LARGEST_TOPICS`)."""
    if variance == 0:
        return 2
    effect = difference / math.sqrt(variance)
    z_alpha, z_beta = stats.norm.isf(alpha / 2), stats.norm.isf(beta)
    start = ((z_alpha + z_beta) / effect) ** 2 + z_alpha**2 / 2
    return _smallest(start, lambda n: power_of(n, effect, alpha) >= 1 - beta)


@validate(width=_POSITIVE, variance=_VARIANCE, alpha=_LEVEL)
def topics_for_ci(width: float, variance: float, alpha: float = 0.05) -> float:
    """Sakai's CI-based topic set size: the smallest n whose 100(1 − ``alpha``)% confidence interval of a mean
    difference is expected to be no wider than ``width`` (δ), for σ_t² = ``variance`` (NaN past
    :data:`LARGEST_TOPICS`)."""
    if variance == 0:
        return 2
    sd = math.sqrt(variance)
    start = 4 * stats.norm.isf(alpha / 2) ** 2 * variance / width**2
    return _smallest(start, lambda n: expected_ci_width(n, sd, alpha) <= width)


def difference_variance(scores: np.ndarray, variance: str) -> tuple[float, float]:
    """(σ̂², σ̂_t²) of a systems × topics matrix by the ``variance`` estimate (see the module's text; σ̂² is NaN
    for ``"pairs"``, which estimates σ̂_t² alone). A standard deviation below :data:`TOLERANCE` ×
    ``max(1, |largest score|)`` is rounding, and 0 (a measure that scores every system alike on a topic, as
    IdealDCG)."""
    m, n = scores.shape
    noise = (TOLERANCE * scale_of(scores)) ** 2
    if variance == "pairs":
        a, b = np.triu_indices(m, 1)
        sigma2_t = float((scores[a] - scores[b]).var(axis=1, ddof=1).mean())
        return float("nan"), sigma2_t if sigma2_t > noise else 0.0
    if variance == "within":
        sigma2 = float(((scores - scores.mean(axis=1, keepdims=True)) ** 2).sum() / (m * (n - 1)))
    else:
        residual = scores - scores.mean(axis=1, keepdims=True) - scores.mean(axis=0, keepdims=True) + scores.mean()
        sigma2 = float((residual**2).sum() / ((m - 1) * (n - 1)))
    sigma2 = sigma2 if sigma2 > noise else 0.0
    return sigma2, 2 * sigma2


_DIFFERENCES = AnyOf(_POSITIVE, ListOf(_POSITIVE, shortest=1),
                     what="a positive difference (minD, or the CI width δ) or a list of them")


@validate(results=RESULTS, measures=MEASURES, differences=_DIFFERENCES, alpha=_LEVEL, beta=_LEVEL,
          design=AnyOf(Choices(DESIGNS), ListOf(Choices(DESIGNS), shortest=1), what="power, ci, or a list of them"),
          variance=Choices(VARIANCES), systems=SYSTEMS, missing=MISSING)
def topic_set_size(results: pd.DataFrame, measures: str | Sequence[str] | None = None, *,
                   differences: float | Sequence[float] = (0.02, 0.05, 0.1), alpha: float = 0.05, beta: float = 0.2,
                   design: str | Sequence[str] = ("power", "ci"), variance: str = "residual",
                   systems: Sequence | None = None, missing: str = "error") -> pd.DataFrame:
    """How many topics each measure needs (see the module's text), for each of ``differences`` (minD for the power
    design, the CI width δ for the CI design) and each ``design``.

    Returns one row per (measure, design, difference): ``measure, design, difference, alpha, beta`` (NaN for the CI
    design), ``variance`` (σ̂²), ``difference_variance`` (σ̂_t²), ``estimate`` (``variance``), ``topics`` (the size
    required), ``systems, campaign_topics`` (what the variance was estimated from).
    """
    cube = campaign_cube(results, measures, systems, missing, "topic_set_size")
    values = cube.values
    designs = [design] if isinstance(design, str) else list(dict.fromkeys(design))
    wanted = [float(differences)] if np.ndim(differences) == 0 else [float(d) for d in differences]  # type: ignore
    rows = []
    for m, measure in enumerate(cube.measures):
        sigma2, sigma2_t = difference_variance(values[:, :, m], variance)
        for chosen in designs:
            for difference in wanted:
                topics = (topics_for_power(difference, sigma2_t, alpha, beta) if chosen == "power" else
                          topics_for_ci(difference, sigma2_t, alpha))
                rows.append({"measure": measure, "design": chosen, "difference": difference, "alpha": float(alpha),
                             "beta": float(beta) if chosen == "power" else float("nan"), "variance": sigma2,
                             "difference_variance": sigma2_t, "estimate": variance, "topics": topics,
                             "systems": len(cube.systems), "campaign_topics": len(cube.topics)})
    return pd.DataFrame(rows, columns=["measure", "design", "difference", "alpha", "beta", "variance",
                                       "difference_variance", "estimate", "topics", "systems", "campaign_topics"])
