"""Paired significance tests over topics for every pair of systems, with multiple-comparison corrections.

Tests (all two-sided, on the per-topic differences d = score(a) − score(b)):

- ``"t"``: paired t-test, t = mean(d) / (sd(d)/√n), sd with ddof=1, Student's t with n − 1 degrees of freedom.
- ``"wilcoxon"``: Wilcoxon signed-rank; zero differences dropped (Wilcoxon's convention), statistic
  min(W+, W−), no continuity correction; the p-value as ``scipy.stats.wilcoxon`` gives it by default (scipy
  ≥ 1.13): the exact distribution for ≤ 50 differences without zeros or ties, every sign assignment for ≤ 13
  with them, else the normal approximation with the tie correction (``wilcoxon_method`` chooses otherwise:
  :func:`wilcoxon_signed_rank`).
- ``"randomization"``: Fisher's paired randomization test on mean(d): every sign assignment when
  2^n ≤ ``n_resamples`` (exact), else ``n_resamples`` random ones, p = (hits + 1)/(n_resamples + 1).
- ``"bootstrap"``: Sakai's paired bootstrap test (SIGIR 2006): the studentised mean of d is compared with
  ``n_resamples`` resamples of d − mean(d), p = share of |t*| ≥ |t|.
- ``"sign"``: the sign test (:mod:`~workbench.analysis.signs`): the k positive among the n non-zero
  differences against Binomial(n, ½), as ``scipy.stats.binomtest``; statistic k.

Corrections over the family of pairs of each measure: ``"holm"`` (step-down), ``"bonferroni"``, ``"none"``.
Degenerate inputs have defined results: all differences 0 gives statistic 0 and p = 1; a constant non-zero
difference gives an infinite t and p = 0 for the t-test.

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4, .6], "B": [.2, .3, .35, .4]}.items()
    ...         for t, v in enumerate(vs)]
    >>> table = significance(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), ["AP"])
    >>> round(float(table.loc[0, "p_value"]), 4), table.loc[0, "test"]  # scipy.stats.ttest_rel agrees
    (0.0351, 'paired t-test (two-sided)')
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.results import ALPHA, MEASURES, MISSING, RESULTS, SYSTEMS, score_cube
from workbench.analysis.signs import sign_test
from workbench.errors import ParameterError
from workbench.metrics.registry import direction
from workbench.validation import SEED, Choices, Interval, Numbers, validate

__all__ = ["TESTS", "TEST", "CORRECTIONS", "CORRECTION", "RESAMPLES", "paired_t", "WILCOXON_METHODS",
           "WILCOXON_METHOD", "PERMUTATION_LIMIT", "wilcoxon_signed_rank", "randomization_test", "bootstrap_test",
           "adjust", "paired_test", "significance"]

TESTS = {
    "t": "paired t-test (two-sided)",
    "wilcoxon": "Wilcoxon signed-rank test (two-sided)",
    "randomization": "Fisher randomization test on the mean difference (two-sided)",
    "bootstrap": "paired bootstrap test on the studentised mean difference (two-sided, Sakai 2006)",
    "sign": "sign test (two-sided, zero differences dropped)",
}
CORRECTIONS = ("holm", "bonferroni", "none")
TEST = Choices(tuple(TESTS))
"""The domain of ``test``."""
CORRECTION = Choices(CORRECTIONS)
"""The domain of ``correction``."""
RESAMPLES = Interval(1, 10**7, integer=True)
"""The domain of ``n_resamples``: the resampled tests hold resamples × topics numbers at once."""


def paired_t(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Paired t statistic and two-sided p-value for each row of differences ``d`` (pairs × topics)."""
    d = np.atleast_2d(np.asarray(d, dtype=float))
    n = d.shape[1]
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    spread = sd > 1e-13 * np.abs(d).max(axis=1)  # below: a constant difference up to rounding
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(spread, mean / (sd / np.sqrt(n)), np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
    return t, 2 * stats.t.sf(np.abs(t), n - 1)


def _signed_rank_null(n: int) -> np.ndarray:
    """Number of sign assignments giving each W+ = 0 … n(n+1)/2 (the exact null distribution × 2^n)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1
    for k in range(1, n + 1):
        counts[k:] = counts[k:] + counts[:-k].copy()
    return counts


WILCOXON_METHODS = ("auto", "exact", "permutation", "asymptotic")
WILCOXON_METHOD = Choices(WILCOXON_METHODS)
"""The domain of ``wilcoxon_method``."""
PERMUTATION_LIMIT = 13  # scipy's: at most 2**13 sign assignments, all of them enumerated


def wilcoxon_signed_rank(d: np.ndarray, method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon signed-rank statistic min(W+, W−) and two-sided p-value for each row of ``d`` (zero differences
    dropped from the ranks, Wilcoxon's convention; no continuity correction).

    ``method`` (:data:`WILCOXON_METHODS`):

    - ``"auto"``, scipy's default (``scipy.stats.wilcoxon(d)``, scipy ≥ 1.13): the exact distribution when there
      are at most 50 differences, none zero and no tied ``|d|``; else, for at most 13 differences, every sign
      assignment of the differences (a permutation test: exact for the ranks as they are, ties and zeros
      included); else the normal approximation with the tie correction.
    - ``"exact"``: Wilcoxon's exact distribution of the non-zero differences (refused with tied ``|d|``, where
      it is not the distribution): what ``"auto"`` chose before for up to 50 non-zero differences, zeros or not.
    - ``"permutation"``: every sign assignment (at most 13 non-zero differences).
    - ``"asymptotic"``: the normal approximation with the tie correction.

    No non-zero difference gives statistic 0 and p = 1 (scipy's normal approximation: NaN). A kernel: ``d``
    finite and ``method`` one of them, as :func:`significance` declares.
    """
    d = np.atleast_2d(np.asarray(d, dtype=float))
    statistic, p = np.zeros(len(d)), np.ones(len(d))
    for row, all_diffs in enumerate(d):
        diffs = all_diffs[all_diffs != 0]
        n = diffs.size
        if n == 0:
            continue
        ranks = stats.rankdata(np.abs(diffs))
        w_plus = ranks[diffs > 0].sum()
        w = min(w_plus, n * (n + 1) / 2 - w_plus)
        statistic[row] = w
        _, tie_sizes = np.unique(np.abs(diffs), return_counts=True)
        ties = bool(np.any(tie_sizes > 1))
        chosen = method
        if method == "auto":
            zeros = n < all_diffs.size
            chosen = ("asymptotic" if all_diffs.size > 50 else "exact" if not (ties or zeros) else
                      "permutation" if all_diffs.size <= PERMUTATION_LIMIT else "asymptotic")
        if chosen == "exact":
            if ties:
                raise ParameterError("the exact Wilcoxon distribution assumes no tied |differences|; "
                                     "use method='permutation' or 'asymptotic'", parameter="method")
            counts = _signed_rank_null(n)
            p[row] = min(1.0, 2 * counts[: int(w) + 1].sum() / 2.0**n)
        elif chosen == "permutation":
            p[row] = _signed_rank_permutation(ranks, w_plus)
        else:
            variance = n * (n + 1) * (2 * n + 1) / 24 - np.sum(tie_sizes**3 - tie_sizes) / 48
            z = (w - n * (n + 1) / 4) / np.sqrt(variance)
            p[row] = min(1.0, 2 * stats.norm.cdf(-abs(z)))
    return statistic, p


def _signed_rank_permutation(ranks: np.ndarray, w_plus: float) -> float:
    """The two-sided p-value of W+ over every assignment of signs to the ranked differences, as
    ``scipy.stats.permutation_test`` computes it (equal within 100 ulps counts as equal)."""
    n = ranks.size
    if n > PERMUTATION_LIMIT:
        raise ParameterError(f"every sign assignment of {n} differences is 2^{n}: the permutation test takes "
                             f"{PERMUTATION_LIMIT} at most; use method='asymptotic'", parameter="method")
    signs = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    null = signs @ ranks
    gamma = abs(np.finfo(float).eps * 100 * w_plus)
    less, greater = np.mean(null <= w_plus + gamma), np.mean(null >= w_plus - gamma)
    return float(min(1.0, 2 * min(less, greater)))


def randomization_test(d: np.ndarray, n_resamples: int = 10_000,
                       rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Fisher's paired randomization test: mean difference and two-sided p-value for each row of ``d``.

    Exact (all 2^n sign flips) when 2^n ≤ ``n_resamples``; otherwise ``n_resamples`` random flips and
    p = (hits + 1)/(n_resamples + 1), so that p is never 0.
    """
    d = np.atleast_2d(np.asarray(d, dtype=float))
    n = d.shape[1]
    observed = d.mean(axis=1)
    exact = n < 63 and 2**n <= n_resamples
    if exact:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1)
    else:
        rng = np.random.default_rng(rng)
        signs = rng.choice(np.array([-1, 1]), size=(n_resamples, n))
    means = signs @ d.T / n  # resamples × pairs
    eps = 1e-12 * np.maximum(1.0, np.abs(observed))
    hits = np.sum(np.abs(means) >= np.abs(observed) - eps, axis=0)
    p = hits / len(signs) if exact else (hits + 1) / (n_resamples + 1)
    return observed, np.minimum(p, 1.0)


def bootstrap_test(d: np.ndarray, n_resamples: int = 10_000,
                   rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sakai's paired bootstrap test: studentised mean t of each row of ``d`` and its two-sided p-value.

    Resamples (topics drawn with replacement, ``rng.integers(0, n, (n_resamples, n))``) of the shifted
    differences d − mean(d) give t*; p = share of |t*| ≥ |t|. A resample with zero spread counts t* = 0 when
    its mean is 0 and ±∞ otherwise.
    """
    d = np.atleast_2d(np.asarray(d, dtype=float))
    n = d.shape[1]
    observed, _ = paired_t(d)
    rng = np.random.default_rng(rng)
    index = rng.integers(0, n, size=(n_resamples, n))
    shifted = d - d.mean(axis=1, keepdims=True)
    eps = 1e-12 * np.maximum(1.0, np.abs(observed))
    p = np.empty(len(d))
    for row in range(len(d)):  # one pair at a time keeps memory at resamples × topics
        sample = shifted[row][index]
        mean, sd = sample.mean(axis=1), sample.std(axis=1, ddof=1)
        tiny = 1e-13 * max(np.abs(d[row]).max(), 1e-300)
        with np.errstate(divide="ignore", invalid="ignore"):
            flat = np.where(np.abs(mean) <= tiny, 0.0, np.inf)
            t_star = np.where(sd > tiny, mean / (sd / np.sqrt(n)), flat)
        p[row] = np.mean(np.abs(t_star) >= np.abs(observed[row]) - eps[row])
    return observed, p


@validate(p_values=Numbers(low=0, high=1), correction=CORRECTION)
def adjust(p_values: Sequence[float] | np.ndarray, correction: str) -> np.ndarray:
    """Adjusted p-values: ``"bonferroni"`` min(1, m·p); ``"holm"`` step-down
    max_{j ≤ i} min(1, (m − j + 1)·p_(j)) over the sorted p-values; ``"none"`` unchanged.

        >>> adjust([0.01, 0.04, 0.03], "holm").tolist()
        [0.03, 0.06, 0.06]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if correction == "none" or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return adjusted


def paired_test(d: np.ndarray, test: str = "t", *, n_resamples: int = 10_000,
                rng: np.random.Generator | None = None, wilcoxon_method: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """Statistic and two-sided p-value of :data:`TESTS` ``test`` for each row of differences ``d``: the kernel of
    :func:`significance` and :func:`~workbench.analysis.report.compare_report`, which declare its arguments (``d``
    from :func:`~workbench.analysis.results.score_cube`: finite)."""
    if test == "wilcoxon":
        return wilcoxon_signed_rank(d, wilcoxon_method)
    if test == "randomization":
        return randomization_test(d, n_resamples, rng)
    if test == "bootstrap":
        return bootstrap_test(d, n_resamples, rng)
    return sign_test(d) if test == "sign" else paired_t(d)


def _better(measure, system_a: list, system_b: list, difference: np.ndarray) -> list:
    """The system of each pair with the better mean by the measure's registered direction ("" if equal)."""
    sign = -1.0 if direction(str(measure)) == "lower" else 1.0
    return [a if sign * x > 0 else b if sign * x < 0 else ""
            for a, b, x in zip(system_a, system_b, difference, strict=True)]


@validate(results=RESULTS, measures=MEASURES, test=TEST, correction=CORRECTION, alpha=ALPHA, n_resamples=RESAMPLES,
          seed=SEED, wilcoxon_method=WILCOXON_METHOD, systems=SYSTEMS, missing=MISSING)
def significance(results: pd.DataFrame, measures: Sequence[str], *, test: str = "t", correction: str = "holm",
                 alpha: float = 0.05, n_resamples: int = 10_000, seed: int | None = 0,
                 wilcoxon_method: str = "auto", systems: Sequence | None = None,
                 missing: str = "error") -> pd.DataFrame:
    """Test every pair of systems on every measure over the topics.

    Returns one row per (measure, pair): ``measure, system_a, system_b, mean_a, mean_b, difference,
    statistic, p_value, p_adjusted, significant, better, test, parameters, correction`` — ``better`` names the
    system with the better mean by the measure's registered direction; the last three spell out
    the test, its parameters and the correction (family: the pairs of one measure). ``attrs["report"]`` holds
    the same as one sentence. ``missing`` is the policy for absent or NaN scores (see
    :func:`~workbench.analysis.results.score_cube`); at least 2 topics are needed.
    """
    alpha, n_resamples = float(alpha), int(n_resamples)
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=2)
    pairs = list(itertools.combinations(range(len(cube.systems)), 2))
    parameters = {"t": f"df={len(cube.topics) - 1}", "wilcoxon": f"method={wilcoxon_method}, zeros dropped",
                  "randomization": f"n_resamples={n_resamples}, seed={seed}",
                  "bootstrap": f"n_resamples={n_resamples}, seed={seed}",
                  "sign": "statistic: positive differences, zeros dropped"}[test]
    rng = np.random.default_rng(seed)
    frames = []
    for k, measure in enumerate(cube.measures):
        values = cube.values[:, :, k]
        a = np.array([i for i, _ in pairs], dtype=int)
        b = np.array([j for _, j in pairs], dtype=int)
        d = values[a] - values[b]
        statistic, p = paired_test(d, test, n_resamples=n_resamples, rng=rng, wilcoxon_method=wilcoxon_method)
        adjusted = adjust(p, correction)
        frames.append(pd.DataFrame({
            "measure": measure,
            "system_a": [cube.systems[i] for i in a],
            "system_b": [cube.systems[j] for j in b],
            "mean_a": values[a].mean(axis=1),
            "mean_b": values[b].mean(axis=1),
            "difference": d.mean(axis=1),
            "statistic": statistic,
            "p_value": p,
            "p_adjusted": adjusted,
            "significant": adjusted < alpha,
            "better": _better(measure, [cube.systems[i] for i in a], [cube.systems[j] for j in b],
                              d.mean(axis=1)),
        }))
    table = pd.concat(frames, ignore_index=True)
    family = f"over the {len(pairs)} pairs of each measure" if correction != "none" else "no correction"
    table["test"] = TESTS[test]
    table["parameters"] = parameters
    table["correction"] = f"{correction} ({family})" if correction != "none" else "none"
    table.attrs["report"] = (f"{TESTS[test]} ({parameters}) over {len(cube.topics)} topics, "
                             f"{correction} correction {family}, alpha={alpha}")
    return table
