"""Buckley and Voorhees's stability method (*Evaluating Evaluation Measure Stability*, SIGIR 2000), as Sakai applies
it to judge the P-measure (*Give Me Just One Highly Relevant Document: P-measure*, SIGIR 2006, §3 and Figure 2):
how often the comparison of two systems flips when the topic set changes.

For ``c`` trial topic sets Q_1 … Q_c (:mod:`~workbench.analysis.meta.samples`: bootstrap samples of the n topics by
default, as the P-measure paper draws them; or subsets of ``size`` topics drawn without replacement, as Buckley and
Voorhees draw theirs), every pair of systems (X, Y) and a fuzziness value f, with M(X, Q) the mean score of X over Q
(a lower-is-better measure negated):

- X and Y tie on Q when ``|M(X, Q) − M(Y, Q)| ≤ f · max(|M(X, Q)|, |M(Y, Q)|)`` (Buckley and Voorhees: "the
  difference is less than f of the larger score"; a difference of exactly 0 is a tie at every f), else GT(X, Y) or
  GT(Y, X) counts one more set where X, resp. Y, is better;
- minority rate (Buckley and Voorhees's *error rate*) = ``Σ_pairs min(GT(X, Y), GT(Y, X)) / (c · pairs)``: the
  share of comparisons that disagree with the majority of the topic sets;
- proportion of ties = ``Σ_pairs EQ(X, Y) / (c · pairs)``.

A good measure has a low minority rate at a low proportion of ties; raising f trades one for the other, and the
curve traced over several values of f is the paper's Figure 2 (minority rate against proportion of ties, one line
per measure). Buckley and Voorhees's fuzziness value is 5%; the P-measure paper does not print its values of f.

    >>> import pandas as pd
    >>> rows = [(s, t, "m", v) for s, vs in {"A": [.9, .8, .7], "B": [.1, .2, .3]}.items() for t, v in enumerate(vs)]
    >>> table = stability_method(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), samples=20)
    >>> table[["measure", "fuzziness", "minority_rate", "ties", "comparisons"]].to_dict("records")
    [{'measure': 'm', 'fuzziness': 0.05, 'minority_rate': 0.0, 'ties': 0.0, 'comparisons': 20}]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.analysis.meta.samples import (
    LARGEST_SAMPLES,
    TOLERANCE,
    campaign_cube,
    multiplicities,
    pair_chunks,
    scale_of,
    system_pairs,
    topic_samples,
)
from workbench.analysis.results import MEASURE, MISSING, RESULTS, SYSTEM
from workbench.analysis.results import MEASURES as MEASURE_LIST
from workbench.progress import progress as progress_bar
from workbench.validation import (
    SEED,
    AnyOf,
    Choices,
    Flag,
    Interval,
    ListOf,
    check,
    validate,
)

__all__ = ["FIGURE2_FUZZINESS", "STABILITY_DRAWS", "RESULTS", "MEASURES", "SYSTEMS", "stability_method",
           "fuzziness_values"]

FIGURE2_FUZZINESS = tuple(round(0.01 * i, 2) for i in range(11))
"""The fuzziness values 0, 1%, …, 10% whose points trace a curve of Figure 2's form (the paper does not print its
own)."""
STABILITY_DRAWS = ("bootstrap", "subsets")
"""How the trial topic sets are drawn: bootstrap samples of all n topics (Sakai), or subsets of ``size`` topics
without replacement (Buckley and Voorhees)."""

MEASURES = AnyOf(MEASURE, MEASURE_LIST, what="a measure name, a list of measure names, or None (every measure of "
                 "the results)")
SYSTEMS = ListOf(SYSTEM, shortest=2, optional=True, what="a list of system names")
FUZZINESS = AnyOf(Interval(0, 1, high_open=True), ListOf(Interval(0, 1, high_open=True), shortest=1),
                  what="a fuzziness value in [0, 1) or a list of them")


def fuzziness_values(fuzziness: float | Sequence[float]) -> list[float]:
    """One fuzziness value or several, as a list of floats in the order given, repeats dropped."""
    values: list[float] = np.atleast_1d(np.asarray(fuzziness, dtype=float)).tolist()
    return list(dict.fromkeys(values))


@validate(results=RESULTS, measures=MEASURES, fuzziness=FUZZINESS,
          samples=Interval(1, LARGEST_SAMPLES, integer=True), draw=Choices(STABILITY_DRAWS),
          size=Interval(1, 10**7, integer=True, optional=True), seed=SEED, systems=SYSTEMS,
          missing=MISSING, progress=Flag())
def stability_method(results: pd.DataFrame, measures: str | Sequence[str] | None = None, *,
                     fuzziness: float | Sequence[float] = 0.05, samples: int = 1000, draw: str = "bootstrap",
                     size: int | None = None, seed=0, systems: Sequence | None = None, missing: str = "error",
                     progress: bool = True) -> pd.DataFrame:
    """Buckley and Voorhees's minority rate and proportion of ties of each measure, at each fuzziness value.

    ``samples`` trial topic sets (c; 1,000 in the P-measure paper) drawn with ``seed``: ``draw="bootstrap"``,
    bootstrap samples of the n topics (``size`` defaults to n), or ``draw="subsets"``, subsets of ``size`` topics
    (default n // 2) without replacement. Every measure sees the same topic sets. ``systems`` and ``missing`` select
    the systems and the policy for absent scores (:func:`~workbench.analysis.results.score_cube`).

    Returns one row per (measure, fuzziness): ``measure, fuzziness, minority_rate, ties, comparisons`` (c × pairs),
    ``systems, topics`` (the topics per set), ``samples, draw``.
    """
    cube = campaign_cube(results, measures, systems, missing, "stability_method")
    n = len(cube.topics)
    if draw == "subsets":
        size = check(n // 2 if size is None else size, Interval(1, n, integer=True), "size", "stability_method")
    index = topic_samples(n, int(samples), size=size, replace=draw == "bootstrap", seed=seed)[:, 0]
    counts, k = multiplicities(index, n), index.shape[1]
    values = cube.oriented()
    a, b = system_pairs(len(cube.systems))
    fuzz = np.array(fuzziness_values(fuzziness))
    minority = np.zeros((len(cube.measures), fuzz.size))
    ties = np.zeros((len(cube.measures), fuzz.size))
    chunks = pair_chunks(len(a), int(samples) * fuzz.size)
    work = [(m, chunk) for m in range(len(cube.measures)) for chunk in chunks]
    means, tolerance, current = np.empty(0), 0.0, -1
    for m, chunk in progress_bar(work, desc="stability method", unit="chunk", shown=progress):
        if m != current:
            x = values[:, :, m]
            means = counts @ x.T / k  # samples × systems: M(X, Q)
            tolerance, current = TOLERANCE * scale_of(x), m
        first, second = means[:, a[chunk]], means[:, b[chunk]]
        difference = first - second
        margin = fuzz[:, None, None] * np.maximum(np.abs(first), np.abs(second)) + tolerance  # f × samples × pairs
        better = (difference > margin).sum(axis=1)  # f × pairs: sets where a is better
        worse = (difference < -margin).sum(axis=1)
        minority[m] += np.minimum(better, worse).sum(axis=1)
        ties[m] += (len(index) - better - worse).sum(axis=1)
    comparisons = len(index) * len(a)
    rows = [{"measure": measure, "fuzziness": float(f), "minority_rate": minority[m, j] / comparisons,
             "ties": ties[m, j] / comparisons, "comparisons": comparisons, "systems": len(cube.systems),
             "topics": k, "samples": int(samples), "draw": draw}
            for m, measure in enumerate(cube.measures) for j, f in enumerate(fuzz)]
    return pd.DataFrame(rows, columns=["measure", "fuzziness", "minority_rate", "ties", "comparisons", "systems",
                                       "topics", "samples", "draw"])
