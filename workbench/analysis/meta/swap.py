"""Voorhees and Buckley's swap method (*The Effect of Topic Set Size on Retrieval Experiment Error*, SIGIR 2002), as
Sakai applies it to judge the P-measure (SIGIR 2006, §3 and Table 1): the absolute difference a measure needs
before a comparison of two systems holds at 95% confidence, and the share of comparisons that clear it.

Each of ``samples`` trials draws two topic sets Q and Q′ (:mod:`~workbench.analysis.meta.samples`):

- ``draw="bootstrap"`` (Sakai's bootstrap version, the P-measure paper's "1000 bootstrap samples of topics"): Q and
  Q′ are two independent bootstrap samples of the n topics, so the rates hold for the campaign's own topic set size;
- ``draw="halves"`` (Voorhees and Buckley's own): Q and Q′ are disjoint subsets of ``size`` ≤ n/2 topics drawn
  without replacement. The rates are those of ``size`` topics (Voorhees and Buckley extrapolate them to larger
  sets with a fitted exponential, which is not done here).

For every pair of systems (X, Y): d = M(X, Q) − M(Y, Q), d′ = M(X, Q′) − M(Y, Q′) (means over the sets, a
lower-is-better measure negated). The observation falls in the bin of ``|d|``: bin i = [i·w, (i + 1)·w) for i <
``bins``, the last bin [``bins``·w, ∞) (w = ``bin_width``, 0.01 as in both papers: 21 bins); it is a **swap** when
d and d′ have opposite signs (d · d′ < 0). The **swap rate** of a bin is its swaps over its observations. A tie,
d = 0, says neither system is better and cannot swap: it is counted apart (``ties``), out of every bin — else a
bin 0 of ties alone would have a swap rate of 0 and pass for a difference that holds.

:func:`swap_sensitivity` reads those bins: the **difference required** at confidence 1 − α is the lower edge of
the lowest non-empty bin whose swap rate is ≤ α (5%) (``rule="first"``, as Sakai and Dunaiski et al. read Voorhees
and Buckley, whose rates fall with the difference), or of the lowest non-empty bin past the last one whose rate is
above α (``rule="stays"``: the same where the rates fall steadily, more demanding where the sparse bins of large
differences are noisy); the **sensitivity** is the share of all comparisons (trials × pairs, ties included: the
paper's 1,225,000 = 50·49/2 pairs × 1,000 sets) whose ``|d|`` reaches it. No such bin: the difference required is NaN
and the sensitivity 0.

    >>> import pandas as pd
    >>> rows = [(s, t, "m", v) for s, vs in {"A": [.9, .8, .7], "B": [.1, .2, .3]}.items() for t, v in enumerate(vs)]
    >>> rates = swap_rates(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), samples=10)
    >>> rates.loc[rates["observations"] > 0, ["bin", "low", "observations", "swaps"]].to_dict("records")
    [{'bin': 20, 'low': 0.2, 'observations': 10, 'swaps': 0}]
    >>> swap_sensitivity(rates)[["measure", "difference_required", "sensitivity"]].to_dict("records")
    [{'measure': 'm', 'difference_required': 0.2, 'sensitivity': 1.0}]
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
    require_frame,
    scale_of,
    system_pairs,
    topic_samples,
)
from workbench.analysis.meta.stability import MEASURES, RESULTS, SYSTEMS
from workbench.analysis.results import MISSING
from workbench.progress import progress as progress_bar
from workbench.validation import DATAFRAME, SEED, Choices, Flag, Interval, check, validate

__all__ = ["SWAP_DRAWS", "SENSITIVITY_RULES", "EDGE_SLACK", "swap_rates", "swap_sensitivity", "RATE_COLUMNS"]

SWAP_DRAWS = ("bootstrap", "halves")
"""Two bootstrap samples of the n topics per trial (Sakai), or two disjoint subsets of ``size`` ≤ n/2 topics
(Voorhees and Buckley)."""
SENSITIVITY_RULES = ("first", "stays")
"""Which bin gives the difference required: the first whose swap rate is ≤ α, or the first from which all are."""
EDGE_SLACK = 1e-9
"""``|d| / w`` is rounded up by this much before its bin is taken, so that a difference that lies on an edge in exact
arithmetic (P@10 over 50 topics moves in steps of 0.002) falls in the bin above whatever the rounding."""
RATE_COLUMNS = ["measure", "bin", "low", "high", "observations", "swaps", "ties", "swap_rate", "systems", "topics",
                "samples", "draw"]


@validate(results=RESULTS, measures=MEASURES, samples=Interval(1, LARGEST_SAMPLES, integer=True),
          draw=Choices(SWAP_DRAWS), size=Interval(1, 10**7, integer=True, optional=True),
          bin_width=Interval(0, 1e6, low_open=True), bins=Interval(1, 10_000, integer=True), seed=SEED,
          systems=SYSTEMS, missing=MISSING, progress=Flag())
def swap_rates(results: pd.DataFrame, measures: str | Sequence[str] | None = None, *, samples: int = 1000,
               draw: str = "bootstrap", size: int | None = None, bin_width: float = 0.01, bins: int = 20, seed=0,
               systems: Sequence | None = None, missing: str = "error", progress: bool = True) -> pd.DataFrame:
    """The swap rate of each measure in each bin of the absolute difference (see the module's text).

    ``samples`` trials (1,000 in the P-measure paper), drawn with ``seed`` as ``draw`` says (``size``: the topics
    per set, n for bootstrap samples, n // 2 for halves); ``bin_width`` and ``bins`` set the bins, in the measure's
    units (a measure whose scores are not in [0, 1] needs a width of its own). ``systems`` and ``missing`` as in
    :func:`~workbench.analysis.results.score_cube`.

    Returns one row per (measure, bin): ``measure, bin, low, high`` (the bin's edges; the last is open), ``
    observations, swaps`` (ties aside), ``ties`` (comparisons with d = 0, on bin 0's row), ``swap_rate`` (NaN for
    an empty bin),
    ``systems, topics, samples, draw``.
    """
    cube = campaign_cube(results, measures, systems, missing, "swap_rates")
    n = len(cube.topics)
    if draw == "halves":
        size = check(n // 2 if size is None else size, Interval(1, max(1, n // 2), integer=True), "size",
                     "swap_rates")
    index = topic_samples(n, int(samples), size=size, sets=2, replace=draw == "bootstrap", seed=seed)
    counts, k = multiplicities(index, n), index.shape[2]
    values = cube.oriented()
    a, b = system_pairs(len(cube.systems))
    width, last = float(bin_width), int(bins)
    observed = np.zeros((len(cube.measures), last + 1), dtype=np.int64)
    swapped = np.zeros_like(observed)
    tied = np.zeros(len(cube.measures), dtype=np.int64)
    work = [(m, chunk) for m in range(len(cube.measures)) for chunk in pair_chunks(len(a), int(samples))]
    first = second = np.empty(0)
    tolerance, current = 0.0, -1
    for m, chunk in progress_bar(work, desc="swap method", unit="chunk", shown=progress):
        if m != current:
            x = values[:, :, m]
            first, second = counts[:, 0] @ x.T / k, counts[:, 1] @ x.T / k  # samples × systems: M(X, Q), M(X, Q′)
            tolerance, current = TOLERANCE * scale_of(x), m
        d = first[:, a[chunk]] - first[:, b[chunk]]
        d2 = second[:, a[chunk]] - second[:, b[chunk]]
        sign = np.where(d > tolerance, 1, np.where(d < -tolerance, -1, 0))
        sign2 = np.where(d2 > tolerance, 1, np.where(d2 < -tolerance, -1, 0))
        untied = (sign != 0).ravel()
        where = np.minimum(np.floor(np.abs(d) / width + EDGE_SLACK), last).astype(np.intp).ravel()[untied]
        observed[m] += np.bincount(where, minlength=last + 1)
        swapped[m] += np.bincount(where, weights=(sign * sign2 < 0).ravel()[untied],
                                  minlength=last + 1).astype(np.int64)
        tied[m] += int(untied.size - untied.sum())
    rows = []
    for m, measure in enumerate(cube.measures):
        for i in range(last + 1):
            total = int(observed[m, i])
            rows.append({"measure": measure, "bin": i, "low": round(i * width, 12),
                         "high": round((i + 1) * width, 12) if i < last else float("inf"), "observations": total,
                         "swaps": int(swapped[m, i]), "ties": int(tied[m]) if i == 0 else 0,
                         "swap_rate": swapped[m, i] / total if total else float("nan"),
                         "systems": len(cube.systems), "topics": k, "samples": int(samples), "draw": draw})
    return pd.DataFrame(rows, columns=RATE_COLUMNS)


@validate(rates=DATAFRAME,
          alpha=Interval(0, 1, low_open=True, high_open=True), rule=Choices(SENSITIVITY_RULES))
def swap_sensitivity(rates: pd.DataFrame, alpha: float = 0.05, rule: str = "first") -> pd.DataFrame:
    """The difference required and the sensitivity of each measure at confidence 1 − ``alpha`` (the P-measure
    paper's Table 1), from :func:`swap_rates`' bins (see the module's text).

    Returns one row per measure: ``measure, difference_required, sensitivity, discriminated`` (comparisons with
    ``|d|`` at or past the difference required), ``observations`` (every comparison, ties included), ``alpha, rule,
    systems, topics, samples, draw``.
    """
    frame = require_frame(rates, RATE_COLUMNS, "swap_sensitivity")
    rows = []
    for measure, group in frame.groupby("measure", sort=False):
        group = group.sort_values("bin")
        total = int(group["observations"].sum() + group["ties"].sum())
        rate = group["swap_rate"].to_numpy(dtype=float)
        filled = group["observations"].to_numpy() > 0
        if rule == "first":
            passing = np.flatnonzero(filled & (rate <= alpha))
            start = int(passing[0]) if passing.size else len(group)
        else:
            failing = np.flatnonzero(filled & (rate > alpha))
            after = np.flatnonzero(filled & (np.arange(len(group)) > (failing[-1] if failing.size else -1)))
            start = int(after[0]) if after.size else len(group)
        if start >= len(group) or not filled[start:].any():
            required, discriminated = float("nan"), 0
        else:
            required = float(group["low"].iloc[start])
            discriminated = int(group["observations"].iloc[start:].sum())
        first = group.iloc[0]
        rows.append({"measure": measure, "difference_required": required,
                     "sensitivity": discriminated / total if total else 0.0, "discriminated": discriminated,
                     "observations": total, "alpha": float(alpha), "rule": rule, "systems": int(first["systems"]),
                     "topics": int(first["topics"]), "samples": int(first["samples"]), "draw": first["draw"]})
    return pd.DataFrame(rows, columns=["measure", "difference_required", "sensitivity", "discriminated",
                                       "observations", "alpha", "rule", "systems", "topics", "samples", "draw"])
