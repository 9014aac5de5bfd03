"""Tukey's honestly significant difference over every pair of systems of one measure, with the homogeneous groups
(Tukey 1949; the one-way design of ``scipy.stats.tukey_hsd``, Tukey–Kramer intervals), and its blocked form for
systems scored on the same topics (two-way ANOVA without interaction, topics as blocks: Carterette, TOIS 2012;
Sakai, Statistical Reform in IR, 2018).

For k systems of n topics each (N = kn values): MSE = the residual mean square (one-way: within systems, N − k
degrees of freedom; blocked: after systems and topics, (k − 1)(n − 1)); for a pair, SE = √(MSE/2 · (1/n + 1/n)),
q = |mean_a − mean_b| / SE, p = P(Q ≥ q) for the studentized range Q(k, df), and the interval
mean_a − mean_b ± Q_{1−α}(k, df) · SE.

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4], "B": [.2, .3, .35], "C": [.6, .7, .65]}.items()
    ...         for t, v in enumerate(vs)]
    >>> table = tukey_hsd(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP")
    >>> table[["a", "b"]].values.tolist(), table.attrs["groups"]
    ([['A', 'B'], ['A', 'C'], ['B', 'C']], [['C'], ['A', 'B']])
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.results import (
    ALPHA,
    MEASURE,
    MISSING,
    RESULTS,
    SCORES,
    SYSTEMS,
    compared_systems,
)
from workbench.validation import Choices, Instance, ListOf, Numbers, validate

__all__ = ["DESIGNS", "DESIGN", "PAIRS", "OnePerItem", "tukey_hsd", "tukey_pairs", "homogeneous_groups"]

DESIGNS = ("one-way", "blocked")
DESIGN = Choices(DESIGNS)
"""The domain of ``design``."""
PAIRS = Instance((pd.DataFrame,), "a table of pairs (columns a, b, significant)")
"""The domain of a table of pairs of systems, as :func:`tukey_hsd` and :func:`~workbench.analysis.friedman` return."""


@dataclass(frozen=True)
class OnePerItem(Numbers):
    """:class:`~workbench.validation.Numbers`, one per item of the argument ``like`` names, which need not hold
    numbers (the systems' names).

    >>> OnePerItem(like="systems").relate([0.5], {"systems": ["A", "B"]})
    'must hold as many entries as systems (2), not 1'
    """

    def relate(self, value: Any, arguments: Mapping[str, Any]) -> str | None:
        items = arguments.get(self.like or "")
        mine = self.array(value)
        if items is None or mine is None or not hasattr(items, "__len__") or mine.shape[0] == len(items):
            return None
        return f"must hold as many entries as {self.like} ({len(items)}), not {mine.shape[0]}"


@validate(results=RESULTS, measure=MEASURE, systems=SYSTEMS, alpha=ALPHA, design=DESIGN, missing=MISSING)
def tukey_hsd(results: pd.DataFrame, measure: str, *, systems: Sequence | None = None, alpha: float = 0.05,
              design: str = "one-way", missing: str = "error") -> pd.DataFrame:
    """One row per pair of systems (in the order given or first seen): ``a, b, mean_difference`` (mean of a − mean
    of b), ``statistic`` (q), ``pvalue``, ``low``, ``high`` (the simultaneous 1 − ``alpha`` interval),
    ``significant``; ``.attrs["groups"]`` lists the homogeneous groups (systems no pair of which differs
    significantly), best mean first, and ``.attrs["report"]`` says how.

    ``design="one-way"`` is ``scipy.stats.tukey_hsd`` of the systems' per-topic scores; ``"blocked"`` removes the
    topics' effect first (the systems are scored on the same topics). ``missing`` as in
    :func:`~workbench.analysis.results.score_cube` (2 topics at least).
    """
    cube = compared_systems(results, measure, "Tukey's HSD", systems=systems, missing=missing)
    scores = cube.values[:, :, 0]  # systems × topics
    k, n = scores.shape
    pairs, difference, q, pvalue, half, df = tukey_pairs(scores, design, alpha)
    means = scores.mean(axis=1)
    frame = pd.DataFrame({"a": [cube.systems[i] for i, _ in pairs], "b": [cube.systems[j] for _, j in pairs],
                          "mean_difference": difference, "statistic": q, "pvalue": pvalue,
                          "low": difference - half, "high": difference + half, "significant": pvalue < alpha})
    sign = float(cube.signs()[0])
    frame.attrs["groups"] = homogeneous_groups(cube.systems, means * sign, frame)
    frame.attrs["means"] = dict(zip(cube.systems, means.tolist(), strict=True))
    frame.attrs["report"] = (f"Tukey's HSD ({design}, {k} systems, {n} topics, {df} residual degrees of freedom, "
                             f"α = {alpha:g}) on {measure}")
    return frame


def tukey_pairs(scores: np.ndarray, design: str = "one-way", alpha: float = 0.05):
    """The kernel of :func:`tukey_hsd` on a systems × topics array (finite, as
    :func:`~workbench.analysis.results.score_cube` gives it): the pairs ``(i, j)``, mean differences, q, p-values,
    the half-width of the intervals, and the residual degrees of freedom."""
    k, n = scores.shape
    means = scores.mean(axis=1)
    if design == "one-way":
        residual = scores - means[:, None]
        df = k * n - k
    else:
        residual = scores - means[:, None] - scores.mean(axis=0)[None, :] + scores.mean()
        df = (k - 1) * (n - 1)
    mse = (residual ** 2).sum() / df
    se = np.sqrt(mse / 2 * (2 / n))
    pairs = list(itertools.combinations(range(k), 2))
    difference = np.array([means[i] - means[j] for i, j in pairs])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(se > 0, np.abs(difference) / se, np.where(difference == 0, 0.0, np.inf))
    pvalue = np.clip(np.where(np.isfinite(q), stats.studentized_range.sf(q, k, df), 0.0), 0.0, 1.0)
    return pairs, difference, q, pvalue, stats.studentized_range.ppf(1 - alpha, k, df) * se, df


@validate(systems=ListOf(what="a list of systems"), oriented_means=OnePerItem(low=SCORES.low, high=SCORES.high,
                                                                             like="systems"), pairs=PAIRS)
def homogeneous_groups(systems: Sequence, oriented_means: np.ndarray, pairs: pd.DataFrame) -> list[list]:
    """The maximal runs of systems, in order of their (oriented: higher is better) means, one per system, no two of
    which differ significantly in ``pairs`` (columns ``a, b, significant``): the letters of a compact letter
    display.

        >>> pairs = pd.DataFrame({"a": ["A", "A", "B"], "b": ["B", "C", "C"], "significant": [False, True, False]})
        >>> homogeneous_groups(["A", "B", "C"], [0.3, 0.2, 0.1], pairs)
        [['A', 'B'], ['B', 'C']]
    """
    systems = list(systems)
    order = [systems[i] for i in np.argsort(-np.asarray(oriented_means, dtype=float), kind="stable")]
    differs = {frozenset((a, b)) for a, b, s in pairs[["a", "b", "significant"]].itertuples(index=False) if s}
    groups: list[list] = []
    for start in range(len(order)):
        end = start + 1
        while end < len(order) and all(frozenset((order[end], other)) not in differs for other in order[start:end]):
            end += 1
        group = order[start:end]
        if not any(set(group) <= set(other) for other in groups):
            groups.append(group)
    return groups
