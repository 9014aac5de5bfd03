"""Sakai's bootstrap discriminative power (*Evaluating Evaluation Metrics based on the Bootstrap*, SIGIR 2006), the
method the P-measure paper names as its next step: a paired bootstrap test for every pair of systems, the curve of
their achieved significance levels (ASL), the share of pairs significant at α, and the difference a measure needs.

For a pair (X, Y) over the n topics: ``z_t = x_t − y_t`` (a lower-is-better measure negated), ``z̄`` their mean,
``σ̄`` their standard deviation (n − 1 in the denominator) and ``t(z) = z̄ / (σ̄ / √n)``. The null hypothesis is
imposed by shifting: ``w_t = z_t − z̄``. Each of B bootstrap samples of topics (the same B samples,
``rng.integers(0, n, (B, n))``, for every pair and measure: :mod:`~workbench.analysis.meta.samples`) gives a
resample ``w*b`` and its ``t(w*b)``, and

- ``ASL(X, Y) = #{b : |t(w*b)| ≥ |t(z)|} / B`` (two-sided, Sakai's Figure 2); the pair is significant at α when
  ASL < α;
- discriminative power = the share of pairs significant at α; the **ASL curve** plots every pair's ASL, sorted,
  against its rank (Sakai's Figures);
- the difference required (Sakai's Figure 4): for each pair, the mean ``|w̄*b|`` of the sample whose ``|t(w*b)|``
  is the (B·α)-th largest (50th of 1,000 at α = 0.05; the ``|t*|`` ranked to 9 decimals, ties in sample order),
  and the **estimated difference** of the measure is the largest of them over the pairs (Sakai rounds it to two
  decimals).

A standard deviation below 10⁻⁶ of the pair's largest ``|z_t|`` is none, for z and for every resample — a resample
of one topic repeated has none, whatever the rounding of a one-pass variance —: t is then 0 when the mean is also
below it, ±∞ otherwise (a constant non-zero difference is as significant as can be); ``|t*| ≥ |t|`` is compared
within ``10⁻¹² · max(1, |t|)``, as :func:`workbench.analysis.paired_tests.bootstrap_test` compares.

    >>> import pandas as pd
    >>> scores = {"A": [.9, .8, .7, .6, .5, .9, .8, .7], "B": [.1, .2, .3, .3, .6, .2, .4, .3],
    ...           "C": [.2, .1, .3, .4, .5, .3, .3, .2]}
    >>> rows = [(s, t, "m", v) for s, vs in scores.items() for t, v in enumerate(vs)]
    >>> asl = achieved_significance(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), samples=200)
    >>> asl[["system_a", "system_b", "asl", "significant", "rank"]].to_dict("records")  # doctest: +NORMALIZE_WHITESPACE
    [{'system_a': 'A', 'system_b': 'B', 'asl': 0.005, 'significant': True, 'rank': 1},
     {'system_a': 'A', 'system_b': 'C', 'asl': 0.005, 'significant': True, 'rank': 2},
     {'system_a': 'B', 'system_b': 'C', 'asl': 0.655, 'significant': False, 'rank': 3}]
    >>> discriminative_power(asl)[["pairs", "significant", "discriminative_power"]].round(3).to_dict("records")
    [{'pairs': 3, 'significant': 2, 'discriminative_power': 0.667}]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.analysis.meta.samples import (
    LARGEST_SAMPLES,
    campaign_cube,
    multiplicities,
    pair_chunks,
    require_frame,
    system_pairs,
    topic_samples,
)
from workbench.analysis.meta.stability import MEASURES, RESULTS, SYSTEMS
from workbench.analysis.results import MISSING, ResultsError
from workbench.progress import progress as progress_bar
from workbench.validation import DATAFRAME, SEED, Flag, Interval, validate

__all__ = ["SPREAD", "RANKED_DECIMALS", "ASL_COLUMNS", "critical_rank", "studentised", "achieved_significance",
           "discriminative_power"]

SPREAD = 1e-6
"""A standard deviation below ``SPREAD`` × the pair's largest ``|z_t|`` (of z, or of a resample of w) is none."""
RANKED_DECIMALS = 9
"""``|t*|`` is rounded to this many decimals when the samples are ranked for the difference required."""
ASL_COLUMNS = ["measure", "system_a", "system_b", "mean_a", "mean_b", "difference", "t", "asl", "significant",
               "required_difference", "rank", "alpha", "samples", "topics"]


def critical_rank(samples: int, alpha: float) -> int:
    """B·α rounded down (within 10⁻⁹, so that 1,000 × 0.05 is 50), 1 at least: the rank, from the largest, of the
    ``|t*|`` whose sample gives a pair's difference required."""
    return max(1, math.floor(samples * alpha + 1e-9))


def studentised(mean: np.ndarray, sd: np.ndarray, n: int, tiny: np.ndarray) -> np.ndarray:
    """``t = mean / (sd / √n)``; 0 where sd and the mean's size are at most ``tiny``, ±∞ where only sd is."""
    with np.errstate(divide="ignore", invalid="ignore"):
        flat = np.where(np.abs(mean) <= tiny, 0.0, np.sign(mean) * np.inf)
        return np.where(sd > tiny, mean / (sd / math.sqrt(n)), flat)


@validate(results=RESULTS, measures=MEASURES, samples=Interval(1, LARGEST_SAMPLES, integer=True),
          alpha=Interval(0, 1, low_open=True, high_open=True), seed=SEED, systems=SYSTEMS,
          missing=MISSING, progress=Flag())
def achieved_significance(results: pd.DataFrame, measures: str | Sequence[str] | None = None, *,
                          samples: int = 1000, alpha: float = 0.05, seed=0, systems: Sequence | None = None,
                          missing: str = "error", progress: bool = True) -> pd.DataFrame:
    """The paired bootstrap test of every pair of systems on every measure (see the module's text).

    ``samples`` bootstrap samples (B, 1,000 in Sakai's papers) drawn with ``seed``; ``alpha`` sets significance and
    the difference required. ``systems`` and ``missing`` as in :func:`~workbench.analysis.results.score_cube`.

    Returns one row per (measure, pair): ``measure, system_a, system_b, mean_a, mean_b, difference`` (mean_a −
    mean_b, in the measure's units), ``t`` (t(z), oriented so that positive favours system_a by the measure's
    direction), ``asl, significant`` (ASL < α), ``required_difference``, ``rank`` (1 for the smallest ASL of the
    measure; equal ASLs in pair order: the x of the ASL curve), ``alpha, samples, topics``.
    """
    cube = campaign_cube(results, measures, systems, missing, "achieved_significance")
    n, B = len(cube.topics), int(samples)
    counts = multiplicities(topic_samples(n, B, seed=seed)[:, 0], n)  # B × n
    a, b = system_pairs(len(cube.systems))
    k = critical_rank(B, float(alpha))
    values = cube.oriented()
    t_all = np.empty((len(cube.measures), len(a)))
    asl_all, required_all = np.empty_like(t_all), np.empty_like(t_all)
    work = [(m, chunk) for m in range(len(cube.measures)) for chunk in pair_chunks(len(a), B)]
    for m, chunk in progress_bar(work, desc="bootstrap tests", unit="chunk", shown=progress):
        x = values[:, :, m]
        z = x[a[chunk]] - x[b[chunk]]  # pairs × topics
        mean = z.mean(axis=1)
        tiny = SPREAD * np.abs(z).max(axis=1)
        t = studentised(mean, z.std(axis=1, ddof=1), n, tiny)
        w = z - mean[:, None]
        first = counts @ w.T / n  # B × pairs: w̄*
        second = counts @ (w * w).T
        sd = np.sqrt(np.maximum(second - n * first * first, 0.0) / (n - 1))
        t_star = np.abs(studentised(first, sd, n, tiny))
        limit = np.abs(t) - 1e-12 * np.maximum(1.0, np.abs(np.where(np.isinf(t), 0.0, t)))  # ∞ stays ∞
        t_all[m, chunk] = t
        asl_all[m, chunk] = (t_star >= limit).mean(axis=0)
        critical = np.argsort(-np.round(t_star, RANKED_DECIMALS), axis=0, kind="stable")[k - 1]
        required_all[m, chunk] = np.abs(first[critical, np.arange(first.shape[1])])
    frames = []
    raw = cube.values
    for m, measure in enumerate(cube.measures):
        mean_a, mean_b = raw[a, :, m].mean(axis=1), raw[b, :, m].mean(axis=1)
        order = np.argsort(asl_all[m], kind="stable")
        rank = np.empty(len(a), dtype=np.int64)
        rank[order] = np.arange(1, len(a) + 1)
        frames.append(pd.DataFrame({
            "measure": measure, "system_a": [cube.systems[i] for i in a], "system_b": [cube.systems[j] for j in b],
            "mean_a": mean_a, "mean_b": mean_b, "difference": mean_a - mean_b, "t": t_all[m], "asl": asl_all[m],
            "significant": asl_all[m] < alpha, "required_difference": required_all[m], "rank": rank,
            "alpha": float(alpha), "samples": B, "topics": n}))
    return pd.concat(frames, ignore_index=True)[ASL_COLUMNS]


@validate(asl=DATAFRAME)
def discriminative_power(asl: pd.DataFrame) -> pd.DataFrame:
    """Sakai's discriminative power and estimated difference of each measure, from :func:`achieved_significance`'s
    pairs: ``measure, pairs, significant, discriminative_power`` (significant / pairs), ``estimated_difference``
    (the largest difference required over the pairs), ``alpha, samples, topics``."""
    frame = require_frame(asl, ASL_COLUMNS, "discriminative_power")
    rows = []
    for measure, group in frame.groupby("measure", sort=False):
        if group["alpha"].nunique() != 1:
            raise ResultsError(f"discriminative_power: measure {measure!r} was tested at several alphas "
                               f"({sorted(group['alpha'].unique())})", measure=measure)
        significant = int(group["significant"].sum())
        rows.append({"measure": measure, "pairs": len(group), "significant": significant,
                     "discriminative_power": significant / len(group),
                     "estimated_difference": float(group["required_difference"].max()),
                     "alpha": float(group["alpha"].iloc[0]), "samples": int(group["samples"].iloc[0]),
                     "topics": int(group["topics"].iloc[0])})
    return pd.DataFrame(rows, columns=["measure", "pairs", "significant", "discriminative_power",
                                       "estimated_difference", "alpha", "samples", "topics"])
