"""Strictness (two published definitions, named apart) and robustness of measures over a campaign.

An *output* is one system's answer on one topic; all outputs of all topics are ranked together by each
measure, worst to best by its registered direction, ties sharing the average rank (rank ``|O|`` is the best).

- :func:`rank_gap_strictness` (Amigó et al., SIGIR 2013, §4.1):
  Strictness(m) = −max_{o, m′} (Rank_m(o) − Rank_m′(o)) / ``|O|``, the largest amount by which m ranks an output
  above another measure m′ does; 0 is the strictest possible, values near −1 mean m rates highly an output some
  m′ rates at the bottom. ``top=10`` averages the ten largest gaps (the paper's check against outliers).
- :func:`top_n_strictness` (Amigó et al., filtering metrics comparison, §6.3):
  Strictness_th(m, m′) = min_{o ∈ top(m, th)} rank(m′, o), with top(m, th) the best th % outputs by m and ranks
  normalised to (0, 1] (1 = best); Strictness_th(m) = min_m′ Strictness_th(m, m′). A curve over th.
- :func:`robustness` (Amigó et al., SIGIR 2013, §4.1, Amigó et al., filtering metrics comparison, §6.4): the mean
  Spearman correlation between the rankings of the systems on two topics, over all topic pairs or ``pairs`` random ones.

    >>> import pandas as pd
    >>> rows = [("A", 1, "m", .9), ("A", 1, "n", .1), ("B", 1, "m", .1), ("B", 1, "n", .2),
    ...         ("A", 2, "m", .5), ("A", 2, "n", .6), ("B", 2, "m", .3), ("B", 2, "n", .9)]
    >>> table = rank_gap_strictness(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]))
    >>> table["strictness"].tolist()
    [-0.75, -0.5]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.results import MEASURES, MISSING, RESULTS, SYSTEMS, ResultsError, score_cube
from workbench.validation import SEED, Interval, ListOf, check, validate

__all__ = ["rank_gap_strictness", "top_n_strictness", "robustness"]


def _outputs(results: pd.DataFrame, measures: Sequence[str] | None, systems, missing: str):
    """Every (system, topic) output as a row of scores, one column per measure (None: every measure)."""
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=1)
    labels = [(s, t) for s in cube.systems for t in cube.topics]
    scores = cube.oriented().reshape(-1, len(cube.measures))  # higher is better on every measure
    if len(labels) < 2:
        raise ResultsError("strictness needs at least 2 outputs (system, topic pairs)")
    return cube.measures, labels, scores


def _plan(measures: Sequence[str] | None, against: Sequence[str] | None) -> list[str] | None:
    """The measures to load: the targets and their references (None: every measure in the results)."""
    if measures is None or against is None:
        return None
    return list(measures) + [m for m in against if m not in measures]


def _references(names: list, targets: list, against: Sequence[str] | None) -> list[list]:
    """For each target measure, the measures it is compared with (default: every other measure)."""
    pool = names if against is None else list(against)
    references = [[m for m in pool if m != k] for k in targets]
    for target, others in zip(targets, references, strict=True):
        if not others:
            raise ResultsError(f"strictness compares {target!r} with other measures, but there are none",
                               measure=target)
    return references


@validate(results=RESULTS, measures=MEASURES, against=MEASURES, top=Interval(1, integer=True), systems=SYSTEMS,
          missing=MISSING)
def rank_gap_strictness(results: pd.DataFrame, measures: Sequence[str] | None = None, *,
                        against: Sequence[str] | None = None, top: int = 1, systems: Sequence | None = None,
                        missing: str = "error") -> pd.DataFrame:
    """Amigó et al., SIGIR 2013, §4.1 strictness of each measure against the others (or against ``against``).

    Columns: ``measure, strictness, against, output`` (the (system, topic) of the largest gap) and ``by``
    (the measure that ranks that output lowest). ``against=None`` compares with every other measure in the
    results. Strictness = −(mean of the ``top`` largest gaps) / ``|O|``.
    """
    top = int(top)
    names, labels, scores = _outputs(results, _plan(measures, against), systems, missing)
    ranks = stats.rankdata(scores, axis=0)  # ascending: |O| is the best output
    targets = names if measures is None else list(measures)
    references = _references(names, targets, against)
    rows = []
    for measure, others in zip(targets, references, strict=True):
        i = names.index(measure)
        cols = [names.index(m) for m in others]
        gaps = ranks[:, [i]] - ranks[:, cols]  # outputs × other measures
        flat = gaps.ravel()
        order = np.argsort(-flat, kind="stable")[: min(top, flat.size)]
        worst_output, worst_other = np.unravel_index(order[0], gaps.shape)
        rows.append({"measure": measure, "strictness": -float(flat[order].mean()) / len(labels),
                     "against": ", ".join(map(str, others)), "output": labels[worst_output],
                     "by": others[worst_other]})
    return pd.DataFrame(rows, columns=["measure", "strictness", "against", "output", "by"])


@validate(results=RESULTS, measures=MEASURES, percents=ListOf(Interval(0, 100, low_open=True), shortest=1,
          what="a list of percentages"), against=MEASURES, systems=SYSTEMS, missing=MISSING)
def top_n_strictness(results: pd.DataFrame, measures: Sequence[str] | None = None, *,
                     percents: Sequence[float] = (5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100),
                     against: Sequence[str] | None = None, systems: Sequence | None = None,
                     missing: str = "error") -> pd.DataFrame:
    """Amigó et al., filtering metrics comparison, §6.3 strictness curve: columns ``measure, top_percent, strictness,
    by``.

    top(m, th) holds the ⌈th·``|O|``/100⌉ best outputs by m, plus any output tied with the last of them;
    strictness is the lowest normalised rank (rank / ``|O|``, 1 = best) another measure gives them, and ``by`` names
    that measure.
    """
    percents = [float(p) for p in percents]
    names, labels, scores = _outputs(results, _plan(measures, against), systems, missing)
    n = len(labels)
    ranks = stats.rankdata(scores, axis=0) / n
    targets = names if measures is None else list(measures)
    references = _references(names, targets, against)
    rows = []
    for measure, others in zip(targets, references, strict=True):
        i = names.index(measure)
        descending = np.sort(scores[:, i])[::-1]
        cols = [names.index(m) for m in others]
        for percent in percents:
            k = max(1, int(np.ceil(percent * n / 100 - 1e-9)))
            chosen = scores[:, i] >= descending[k - 1]
            lowest = ranks[chosen][:, cols].min(axis=0)
            j = int(np.argmin(lowest))
            rows.append({"measure": measure, "top_percent": percent, "strictness": float(lowest[j]),
                         "by": others[j]})
    return pd.DataFrame(rows, columns=["measure", "top_percent", "strictness", "by"])


@validate(results=RESULTS, measures=MEASURES, pairs=Interval(1, integer=True, optional=True), seed=SEED,
          systems=SYSTEMS, missing=MISSING)
def robustness(results: pd.DataFrame, measures: Sequence[str] | None = None, *, pairs: int | None = None,
               seed: int | None = 0, systems: Sequence | None = None, missing: str = "error") -> pd.DataFrame:
    """Mean Spearman correlation of the system rankings of two topics, per measure (Amigó et al., filtering metrics
    comparison, §6.4).

    ``pairs=None`` uses every pair of topics; an integer (at most the number of topic pairs) draws that many
    distinct pairs with ``seed``. A topic on which every system scores the same has no ranking: its pairs are left
    out and counted in ``undefined``. Columns: ``measure, robustness, pairs, undefined``.
    """
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=2)
    n_systems, n_topics = len(cube.systems), len(cube.topics)
    if n_systems < 2:
        raise ResultsError(f"robustness ranks systems: 2 systems or more needed, got {n_systems}")
    every = list(itertools.combinations(range(n_topics), 2))
    if pairs is None:
        chosen = np.array(every)
    else:
        check(pairs, Interval(1, len(every), integer=True), "pairs", "robustness")  # at most every pair of topics
        pick = np.random.default_rng(seed).choice(len(every), size=int(pairs), replace=False)
        chosen = np.array(every)[np.sort(pick)]
    rows = []
    for k, measure in enumerate(cube.measures):
        ranks = stats.rankdata(cube.values[:, :, k], axis=0)  # systems × topics
        centred = ranks - ranks.mean(axis=0)
        norm = np.sqrt((centred**2).sum(axis=0))
        defined = norm > 0
        ok = defined[chosen[:, 0]] & defined[chosen[:, 1]]
        a, b = chosen[ok, 0], chosen[ok, 1]
        rho = (centred[:, a] * centred[:, b]).sum(axis=0) / (norm[a] * norm[b])
        rows.append({"measure": measure, "robustness": float(rho.mean()) if rho.size else float("nan"),
                     "pairs": int(ok.sum()), "undefined": int((~ok).sum())})
    return pd.DataFrame(rows, columns=["measure", "robustness", "pairs", "undefined"])
