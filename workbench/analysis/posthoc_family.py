"""The post-hoc family: every pair of systems compared after an omnibus test, one declaration per test
(:data:`POSTHOC_TESTS`), each equal to scikit-posthocs' function of the same name on the same scores.

Scores are ``systems × topics`` (oriented: higher is better). Three designs:

* **topics as blocks** (after Friedman's or Quade's test; each topic ranks the k systems, 1 the worst, ties
  averaged; R̄ the mean ranks over n topics):
  Nemenyi q = |ΔR̄| / √(k(k+1)/(12n)), p from the studentized range (Demšar, JMLR 2006, §3.2.2);
  Conover t = |ΔR| / √A / √B (Conover 1999, §5.8; see :mod:`workbench.analysis.rank_tests`);
  Durbin–Conover, the same t for a balanced incomplete block design, which on the complete blocks a campaign
  gives is Conover's (Conover and Iman 1979);
  Siegel–Friedman z = |ΔR̄| / √(k(k+1)/(6n)), p = 2 P(Z ≥ z) (Siegel and Castellan 1988, §7.2.2);
  Miller–Friedman, the same z with p = P(χ²_{k−1} ≥ z²) (Miller 1966);
  Quade: each topic weighted by the rank Q_i of its range, S_j = Σ_i Q_i (r_ij − (k+1)/2),
  t = |S_a − S_b| / √(2n(A − B)/((n−1)(k−1))), A = Σ S_ij², B = Σ_j S_j² / n, df = (n−1)(k−1) (Quade 1979;
  Conover 1999, §5.8).
* **paired** (the topics' scores of two systems): Wilcoxon's signed-rank test
  (:func:`~workbench.analysis.paired_tests.wilcoxon_signed_rank`, scipy's ``wilcoxon``).
* **independent samples** (each system's topic scores a sample): Dunn's z on the mean ranks of all k·n scores
  ranked together, with Glantz's tie correction (Dunn 1964); Student's t = |Δ| / √((s_a² + s_b²)/n), df = 2n − 2
  (``scipy.stats.ttest_ind`` on samples of n);
  Mann–Whitney's U with the continuity correction (``scipy.stats.mannwhitneyu``); Scheffé's
  F = Δ² / (MSE (1/n_a + 1/n_b)(k − 1)), p = P(F_{k−1, N−k} ≥ F) (Scheffé 1953); Tamhane's T2, Welch's t with
  Šidák's adjustment 1 − (1 − p)^m over the m pairs (Tamhane 1979).

A test whose p-values control the family themselves (Nemenyi, Miller, Scheffé, Tamhane) takes no correction;
the others take Holm's, Bonferroni's or none (:func:`~workbench.analysis.paired_tests.adjust`), Conover's also the
single-step studentized range.

    >>> import numpy as np
    >>> scores = np.array([[.3, .5, .4, .6], [.2, .3, .35, .4], [.6, .7, .65, .8]])
    >>> pairs = POSTHOC_TESTS["siegel-friedman"].pairs(scores, "none", 0.05)
    >>> [round(float(p), 4) for p in pairs.pvalue]
    [0.1573, 0.1573, 0.0047]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.paired_tests import adjust, wilcoxon_signed_rank
from workbench.analysis.results import ALPHA, MEASURE, MISSING, RESULTS, SYSTEMS, compared_systems
from workbench.analysis.tukey import homogeneous_groups
from workbench.validation import Choices, check, validate

__all__ = ["Pairs", "PostHoc", "POSTHOC_TESTS", "POSTHOC_TEST", "CORRECTIONS", "CORRECTION", "friedman_ranks",
           "pair_indices", "posthoc"]

CORRECTIONS = ("holm", "bonferroni", "none", "single-step")
"""Every correction a post-hoc test of the family takes (each declaration says which of them)."""
CORRECTION = Choices((*CORRECTIONS, None))
"""The domain of ``correction`` (None: the test's first)."""


class Pairs(NamedTuple):
    """What a post-hoc kernel returns for the k (k − 1) / 2 pairs ``(a, b)``, a < b: each system's ``location``
    (what the test compares: a mean rank, a mean, a weighted rank sum), the pairs' ``statistic`` and ``pvalue``,
    and the half-width of the simultaneous 1 − α interval of the difference of locations (NaN where the test
    has none)."""

    location: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    half: np.ndarray


@dataclass(frozen=True)
class PostHoc:
    """One post-hoc test: its ``title``, its kernel ``pairs(scores, correction, alpha)`` (scores ``systems ×
    topics``, oriented, finite), the ``corrections`` it takes (the first its default; ``("none",)`` for a test
    that controls the family itself), what its ``location`` is, its ``design`` and its ``source``."""

    title: str
    pairs: Callable[[np.ndarray, str, float], Pairs]
    corrections: tuple[str, ...]
    location: str
    design: str
    source: str


def friedman_ranks(scores: np.ndarray) -> np.ndarray:
    """Each topic's ranks of the systems (``scores``: systems × topics, higher better; 1 the worst, ties
    averaged), as systems × topics."""
    return stats.rankdata(np.asarray(scores, dtype=float), axis=0, method="average")


def pair_indices(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The first and second systems of the k (k − 1) / 2 pairs, in ``itertools.combinations`` order.

    >>> [a.tolist() for a in pair_indices(3)]
    [[0, 0, 1], [1, 2, 2]]
    """
    pairs = list(itertools.combinations(range(k), 2))
    return np.array([i for i, _ in pairs], dtype=int), np.array([j for _, j in pairs], dtype=int)


def _no_interval(k: int) -> np.ndarray:
    return np.full(k * (k - 1) // 2, np.nan)


def _nemenyi(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    ranks = friedman_ranks(scores)
    k, n = ranks.shape
    a, b = pair_indices(k)
    means = ranks.mean(axis=1)
    scale = np.sqrt(k * (k + 1.0) / (12.0 * n))
    q = np.abs(means[a] - means[b]) / scale
    half = np.full(a.size, stats.studentized_range.ppf(1 - alpha, k, np.inf) * scale)
    return Pairs(means, q, stats.studentized_range.sf(q, k, np.inf), half)


def _conover(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    ranks = friedman_ranks(scores)
    k, n = ranks.shape
    a, b = pair_indices(k)
    sums = ranks.sum(axis=1)
    s2 = ((ranks ** 2).sum() - k * n * (k + 1.0) ** 2 / 4.0) / (k - 1.0)
    if s2 <= 0:  # every topic ties every system
        return Pairs(sums / n, np.zeros(a.size), np.ones(a.size), _no_interval(k))
    t2 = ((sums - n * (k + 1.0) / 2.0) ** 2).sum() / s2
    df = n * k - k - n + 1.0
    big_a, big_b = s2 * (2.0 * n * (k - 1.0)) / df, max(1.0 - t2 / (n * (k - 1.0)), 0.0)
    spread = np.abs(sums[a] - sums[b])
    with np.errstate(divide="ignore", invalid="ignore"):  # B = 0: every topic ranks the systems alike
        t = np.where(spread == 0, 0.0, spread / np.sqrt(big_a) / np.sqrt(big_b))
    scale = np.sqrt(big_a) * np.sqrt(big_b)
    if correction == "single-step":
        p = stats.studentized_range.sf(np.sqrt(2.0) * t, k, np.inf)
        critical = stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2.0)
    else:
        p = adjust(2.0 * stats.t.sf(t, df), correction)
        level = {"none": alpha / 2, "bonferroni": alpha / (2 * a.size)}.get(correction)
        critical = np.nan if level is None else stats.t.isf(level, df)
    return Pairs(sums / n, t, p, np.full(a.size, critical * scale / n))


def _friedman_z(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The mean ranks, Siegel and Castellan's z of every pair, and k."""
    ranks = friedman_ranks(scores)
    k, n = ranks.shape
    a, b = pair_indices(k)
    means = ranks.mean(axis=1)
    return means, np.abs(means[a] - means[b]) / np.sqrt(k * (k + 1.0) / (6.0 * n)), k


def _siegel_friedman(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    means, z, k = _friedman_z(scores)
    return Pairs(means, z, adjust(np.minimum(2.0 * stats.norm.sf(z), 1.0), correction), _no_interval(k))


def _miller_friedman(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    means, z, k = _friedman_z(scores)
    return Pairs(means, z, stats.chi2.sf(z ** 2, k - 1), _no_interval(k))


def _quade(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    ranks = friedman_ranks(scores)
    k, n = ranks.shape
    a, b = pair_indices(k)
    weights = stats.rankdata(np.ptp(scores, axis=0), method="average")
    centered = (ranks - (k + 1.0) / 2.0) * weights
    sums = centered.sum(axis=1)
    residual = (centered ** 2).sum() - (sums ** 2).sum() / n
    spread = np.abs(sums[a] - sums[b])
    if residual <= 0:  # the weighted ranks explained entirely by the systems (or all tied)
        t = np.where(spread == 0, 0.0, np.inf)
    else:
        t = spread / np.sqrt(2.0 * n * residual / ((n - 1.0) * (k - 1.0)))
    return Pairs(sums / n, t, adjust(2.0 * stats.t.sf(t, (n - 1) * (k - 1)), correction), _no_interval(k))


def _wilcoxon(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    a, b = pair_indices(len(scores))
    statistic, p = wilcoxon_signed_rank(scores[a] - scores[b])
    return Pairs(scores.mean(axis=1), statistic, adjust(p, correction), _no_interval(len(scores)))


def _dunn(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    k, n = scores.shape
    a, b = pair_indices(k)
    ranks = stats.rankdata(scores, method="average").reshape(k, n)
    _, sizes = np.unique(ranks, return_counts=True)
    total = k * n
    ties = float((sizes ** 3 - sizes).sum()) / (12.0 * (total - 1))
    means = ranks.mean(axis=1)
    variance = (total * (total + 1.0) / 12.0 - ties) * 2.0 / n
    spread = np.abs(means[a] - means[b])
    z = np.where(spread == 0, 0.0, spread / np.sqrt(variance)) if variance > 0 else np.zeros(a.size)
    return Pairs(means, z, adjust(2.0 * stats.norm.sf(z), correction), _no_interval(k))


def _student(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    k, n = scores.shape
    a, b = pair_indices(k)
    means, variances = scores.mean(axis=1), scores.var(axis=1, ddof=1)
    difference = means[a] - means[b]
    error = np.sqrt((variances[a] + variances[b]) / n)  # the pooled standard error of equal-sized samples
    with np.errstate(divide="ignore", invalid="ignore"):  # two constant samples: t = 0 alike, else infinite
        t = np.where(difference == 0, 0.0, np.abs(difference) / error)
    return Pairs(means, t, adjust(2.0 * stats.t.sf(t, 2.0 * n - 2.0), correction), _no_interval(k))


def _mann_whitney(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    a, b = pair_indices(len(scores))
    # one call per pair: scipy's "auto" picks the exact distribution per call (no ties, 8 scores or fewer)
    found = [stats.mannwhitneyu(scores[i], scores[j], use_continuity=True, alternative="two-sided")
             for i, j in zip(a, b, strict=True)]
    u, p = np.array([f.statistic for f in found]), np.array([f.pvalue for f in found])
    return Pairs(scores.mean(axis=1), u, adjust(p, correction), _no_interval(len(scores)))


def _scheffe(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    k, n = scores.shape
    a, b = pair_indices(k)
    means = scores.mean(axis=1)
    mse = scores.var(axis=1, ddof=1).sum() * (n - 1.0) / (k * n - k)
    difference = means[a] - means[b]
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.where(difference == 0, 0.0, difference ** 2 / (mse * 2.0 / n * (k - 1.0)))
    return Pairs(means, f, stats.f.sf(f, k - 1.0, k * n - k), _no_interval(k))


def _tamhane(scores: np.ndarray, correction: str, alpha: float) -> Pairs:
    k, n = scores.shape
    a, b = pair_indices(k)
    means, variances = scores.mean(axis=1), scores.var(axis=1, ddof=1)
    spread = variances[a] / n + variances[b] / n
    difference = means[a] - means[b]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(difference == 0, 0.0, np.abs(difference) / np.sqrt(spread))
        df = spread ** 2 / ((variances[a] ** 2 + variances[b] ** 2) / (n * n * (n - 1.0)))
    p = np.where(t == 0, 1.0, 2.0 * stats.t.sf(t, np.where(spread > 0, df, 1.0)))
    return Pairs(means, t, np.minimum(1.0 - (1.0 - p) ** a.size, 1.0), _no_interval(k))


_ADJUSTED = ("holm", "bonferroni", "none")
_FAMILY = ("none",)
_BLOCKS, _PAIRED, _SAMPLES = "topics as blocks", "paired", "independent samples"
POSTHOC_TESTS = {
    "nemenyi": PostHoc("Nemenyi", _nemenyi, _FAMILY, "mean rank", _BLOCKS,
                       "Demšar, JMLR 2006, §3.2.2; scikit_posthocs.posthoc_nemenyi_friedman"),
    "conover": PostHoc("Conover", _conover, CORRECTIONS, "mean rank", _BLOCKS,
                       "Conover 1999, §5.8; scikit_posthocs.posthoc_conover_friedman"),
    "durbin": PostHoc("Durbin–Conover", _conover, _ADJUSTED, "mean rank", _BLOCKS,
                      "Conover and Iman 1979; scikit_posthocs.posthoc_durbin"),
    "siegel-friedman": PostHoc("Siegel–Friedman", _siegel_friedman, _ADJUSTED, "mean rank", _BLOCKS,
                               "Siegel and Castellan 1988; scikit_posthocs.posthoc_siegel_friedman"),
    "miller-friedman": PostHoc("Miller–Friedman", _miller_friedman, _FAMILY, "mean rank", _BLOCKS,
                               "Miller 1966; scikit_posthocs.posthoc_miller_friedman"),
    "quade": PostHoc("Quade", _quade, _ADJUSTED, "mean weighted centred rank", _BLOCKS,
                     "Quade 1979; Conover 1999, §5.8; scikit_posthocs.posthoc_quade"),
    "wilcoxon": PostHoc("Wilcoxon signed-rank", _wilcoxon, _ADJUSTED, "mean", _PAIRED,
                        "Wilcoxon 1945; scikit_posthocs.posthoc_wilcoxon"),
    "dunn": PostHoc("Dunn", _dunn, _ADJUSTED, "mean rank of all scores", _SAMPLES,
                    "Dunn 1964; scikit_posthocs.posthoc_dunn"),
    "t": PostHoc("Student's t", _student, _ADJUSTED, "mean", _SAMPLES, "scikit_posthocs.posthoc_ttest"),
    "mann-whitney": PostHoc("Mann–Whitney", _mann_whitney, _ADJUSTED, "mean", _SAMPLES,
                            "Mann and Whitney 1947; scikit_posthocs.posthoc_mannwhitney"),
    "scheffe": PostHoc("Scheffé", _scheffe, _FAMILY, "mean", _SAMPLES,
                       "Scheffé 1953; scikit_posthocs.posthoc_scheffe"),
    "tamhane": PostHoc("Tamhane T2", _tamhane, _FAMILY, "mean", _SAMPLES,
                       "Tamhane 1979; scikit_posthocs.posthoc_tamhane"),
}
"""The post-hoc tests by name: one declaration each."""
POSTHOC_TEST = Choices(tuple(POSTHOC_TESTS))
"""The domain of ``test``."""


@validate(results=RESULTS, measure=MEASURE, test=POSTHOC_TEST, correction=CORRECTION, systems=SYSTEMS, alpha=ALPHA,
          missing=MISSING)
def posthoc(results: pd.DataFrame, measure: str, test: str = "nemenyi", *, correction: str | None = None,
            systems: Sequence | None = None, alpha: float = 0.05, missing: str = "error") -> pd.DataFrame:
    """Every pair of systems compared on ``measure`` by the post-hoc ``test`` (:data:`POSTHOC_TESTS`): one row per
    pair (in the order given or first seen) ``a, b, difference`` (a's location − b's, higher better by the
    measure's direction: mean ranks, means, as the test compares), ``statistic``, ``pvalue`` (adjusted by
    ``correction``, one of the test's ``corrections``; None: its first), ``low``, ``high`` (the simultaneous
    1 − ``alpha`` interval of the difference where the test has one, else NaN), ``significant``; ``.attrs``:
    ``test``, ``locations`` (per system), ``groups`` (homogeneous groups, best first) and ``report``.
    ``missing`` as in :func:`~workbench.analysis.results.score_cube`.

        >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4, .6], "B": [.2, .3, .35, .4],
        ...         "C": [.6, .7, .65, .8]}.items() for t, v in enumerate(vs)]
        >>> table = posthoc(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP", "dunn")
        >>> table[["a", "b", "significant"]].values.tolist()
        [['A', 'B', False], ['A', 'C', False], ['B', 'C', True]]
    """
    declared = POSTHOC_TESTS[test]
    correction = declared.corrections[0] if correction is None else correction
    check(correction, Choices(declared.corrections), "correction", "posthoc")
    cube = compared_systems(results, measure, f"the {declared.title} post-hoc test", systems=systems,
                            missing=missing)
    scores = cube.oriented()[:, :, 0]
    found = declared.pairs(scores, correction, alpha)
    a, b = pair_indices(len(cube.systems))
    difference = found.location[a] - found.location[b]
    frame = pd.DataFrame({"a": [cube.systems[i] for i in a], "b": [cube.systems[j] for j in b],
                          "difference": difference, "statistic": found.statistic, "pvalue": found.pvalue,
                          "low": difference - found.half, "high": difference + found.half,
                          "significant": found.pvalue < alpha})
    frame.attrs["test"] = test
    frame.attrs["locations"] = dict(zip(cube.systems, found.location.tolist(), strict=True))
    frame.attrs["groups"] = homogeneous_groups(cube.systems, found.location, frame)
    how = ("controlling the family itself" if declared.corrections == _FAMILY
           else f"{correction} over the {a.size} pairs")
    frame.attrs["report"] = (f"{declared.title} post-hoc test ({declared.design}; {how}; α = {alpha:g}) on "
                             f"{measure}: {len(cube.systems)} systems, {len(cube.topics)} topics")
    return frame
