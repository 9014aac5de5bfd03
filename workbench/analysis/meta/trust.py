"""Which measure to trust: the stability, swap and bootstrap methods and the topic set size design run at once on
one campaign, summed up in the form of the P-measure paper's Table 1 (Sakai, SIGIR 2006: difference required and
sensitivity at 95% confidence, most sensitive first), with the discriminative power, the stability at 5% fuzziness
and the topics each measure needs beside them. :func:`workbench.charts.trust_charts` draws the report.

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> quality = np.linspace(0.2, 0.8, 6)
    >>> rows = [(f"S{s}", t, m, float(np.clip(quality[s] + rng.normal(0, noise), 0, 1)))
    ...         for m, noise in (("steady", 0.1), ("noisy", 0.4)) for s in range(6) for t in range(30)]
    >>> report = measure_trust(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), samples=200,
    ...                        progress=False)
    >>> report.table["measure"].tolist()  # most sensitive first
    ['steady', 'noisy']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from workbench.analysis.meta.bootstrap import achieved_significance, discriminative_power
from workbench.analysis.meta.samples import LARGEST_SAMPLES
from workbench.analysis.meta.stability import FIGURE2_FUZZINESS, MEASURES, SYSTEMS, stability_method
from workbench.analysis.meta.swap import SENSITIVITY_RULES, SWAP_DRAWS, swap_rates, swap_sensitivity
from workbench.analysis.meta.topic_sets import topic_set_size
from workbench.analysis.results import MISSING, RESULTS
from workbench.data.campaign import Campaign
from workbench.validation import SEED, AnyOf, Choices, Flag, Instance, Interval, ListOf, Text, check, validate

__all__ = ["TrustReport", "TRUST_DIFFERENCES", "TABLE_COLUMNS", "measure_trust"]

TRUST_DIFFERENCES = (0.02, 0.05, 0.1)
"""The differences (minD, CI width) the report's topic set sizes are designed for, beside the chosen one."""
TABLE_COLUMNS = ["measure", "difference_required", "sensitivity", "discriminative_power", "estimated_difference",
                 "minority_rate", "ties", "topics_needed"]


@dataclass(frozen=True)
class TrustReport:
    """What :func:`measure_trust` found. ``table``: one row per measure, most sensitive first (:data:`TABLE_COLUMNS`:
    the swap method's difference required and sensitivity, the bootstrap's discriminative power and estimated
    difference, the minority rate and proportion of ties at the chosen fuzziness, the topics the power design
    needs for the chosen minimum difference); the others are the methods' own frames (:func:`stability_method` over
    :data:`FIGURE2_FUZZINESS` and the chosen value, :func:`swap_rates`, :func:`swap_sensitivity`,
    :func:`achieved_significance`, :func:`discriminative_power`, :func:`topic_set_size` for both designs over
    :data:`TRUST_DIFFERENCES` and the chosen difference); ``summary`` says it in one sentence."""

    table: pd.DataFrame
    stability: pd.DataFrame
    swap: pd.DataFrame
    sensitivity: pd.DataFrame
    asl: pd.DataFrame
    power: pd.DataFrame
    topic_sets: pd.DataFrame
    summary: str


@validate(results=AnyOf(RESULTS, Instance((Campaign,), "a Campaign (scored with measures)")),
          measures=MEASURES, samples=Interval(1, LARGEST_SAMPLES, integer=True),
          alpha=Interval(0, 1, low_open=True, high_open=True), fuzziness=Interval(0, 1, high_open=True),
          difference=Interval(0, 1e6, low_open=True), draw=Choices(SWAP_DRAWS),
          bin_width=Interval(0, 1e6, low_open=True), bins=Interval(1, 10_000, integer=True),
          rule=Choices(SENSITIVITY_RULES), seed=SEED, systems=SYSTEMS, missing=MISSING,
          progress=Flag())
def measure_trust(results: pd.DataFrame | Campaign, measures: str | Sequence[str] | None = None, *,
                  samples: int = 1000, alpha: float = 0.05, fuzziness: float = 0.05, difference: float = 0.05,
                  draw: str = "bootstrap", bin_width: float = 0.01, bins: int = 20, rule: str = "first", seed=0,
                  systems: Sequence | None = None, missing: str = "error", progress: bool = True) -> TrustReport:
    """Every method of :mod:`workbench.analysis.meta` on ``results`` (a tidy frame, or a
    :class:`~workbench.data.campaign.Campaign`, then scored with ``measures``), with one ``seed`` and ``samples``
    topic sets each; ``alpha`` is the significance and swap level (95% confidence), ``fuzziness`` the stability
    method's, ``difference`` the minimum difference the topic set size is designed for, ``draw``, ``bin_width``,
    ``bins`` and ``rule`` the swap method's. Returns a :class:`TrustReport`."""
    if isinstance(results, Campaign):
        check(measures, AnyOf(Text(), ListOf(Text(), shortest=1), what="the measures to score the campaign with"),
              "measures", "measure_trust")
        names = [measures] if isinstance(measures, str) else list(measures or ())
        results = results.evaluate(names, progress=progress)
        measures = list(dict.fromkeys(results["measure"]))
    common = {"measures": measures, "seed": seed, "systems": systems, "missing": missing}
    values = sorted({*FIGURE2_FUZZINESS, float(fuzziness)})
    stability = stability_method(results, fuzziness=values, samples=samples, progress=progress, **common)
    rates = swap_rates(results, samples=samples, draw=draw, bin_width=bin_width, bins=bins, progress=progress,
                       **common)
    sensitivity = swap_sensitivity(rates, alpha, rule)
    asl = achieved_significance(results, samples=samples, alpha=alpha, progress=progress, **common)
    power = discriminative_power(asl)
    sizes = topic_set_size(results, measures, differences=sorted({*TRUST_DIFFERENCES, float(difference)}),
                           alpha=alpha, design=("power", "ci"), systems=systems, missing=missing)
    needed = sizes[(sizes["design"] == "power") & (sizes["difference"] == float(difference))]
    at = stability[stability["fuzziness"] == float(fuzziness)].set_index("measure")
    table = sensitivity.set_index("measure")[["difference_required", "sensitivity"]].join(
        power.set_index("measure")[["discriminative_power", "estimated_difference"]]).join(
        at[["minority_rate", "ties"]]).join(needed.set_index("measure")["topics"].rename("topics_needed"))
    table = table.reset_index().sort_values(["sensitivity", "discriminative_power"], ascending=False,
                                            kind="stable").reset_index(drop=True)[TABLE_COLUMNS]
    first = sensitivity.iloc[0]
    best = table.iloc[0]
    setting = (f"{int(first['systems'])} systems, {int(power['topics'].iloc[0])} topics, {int(samples):,} samples "
               f"(seed {seed})")
    if best["sensitivity"] > 0:
        summary = (f"{setting}: {best['measure']} is the most sensitive ({best['sensitivity']:.1%} of "
                   f"{int(first['observations']):,} comparisons discriminated at {1 - alpha:.0%} confidence, "
                   f"discriminative power {best['discriminative_power']:.1%})")
    else:
        summary = (f"{setting}: no measure discriminates any of the {int(first['observations']):,} comparisons at "
                   f"{1 - alpha:.0%} confidence (no difference keeps the swap rate at {alpha:.0%} or below)")
    return TrustReport(table, stability, rates, sensitivity, asl, power, sizes, summary)
