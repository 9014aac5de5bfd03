"""Interpolated precision–recall curves of a campaign, per system and topic, and their spread over topics.

The numbers are :func:`workbench.metrics.ranking.curves.interpolated_precision` on each system's gain table; this
module only lays a campaign's rankings out as one table per system and shapes the results::

    >>> from workbench.data import Campaign
    >>> from workbench.model import Organization
    >>> gold = {"q1": Organization.from_graded({"d1": 1, "d2": 1})}
    >>> runs = {"A": {"q1": Organization.from_ranking(["d1", "d9", "d2"])}}
    >>> precision_recall(Campaign(gold, runs), points=[0.5, 1.0])["precision"].round(4).tolist()
    [1.0, 0.6667]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import numpy as np
import pandas as pd

from workbench.data.campaign import Campaign
from workbench.data.topic_policies import EXTRA_TOPICS, MISSING_TOPICS, TopicPolicy
from workbench.data.trec.join import gain_table
from workbench.errors import ParameterError
from workbench.metrics.ranking.curves import ELEVEN_POINTS, RULES, interpolated_precision, recall_levels
from workbench.metrics.ranking.declare import REL
from workbench.validation import AnyOf, Choices, Instance, Interval, ListOf, validate

__all__ = ["COLUMNS", "SUMMARY", "POINTS", "CurveError", "precision_recall", "curve_summary"]

POINTS = AnyOf(Choices((11, "full")), ListOf(Interval(0, 1), shortest=1),
               what="11, 'full' or a list of recall levels in [0, 1]")
"""The domain of ``points``."""

COLUMNS = ["system", "topic", "recall", "precision"]
SUMMARY = ["system", "recall", "mean", "q25", "median", "q75", "min", "max", "topics"]


class CurveError(ParameterError):
    """A precision–recall curve asked of data or with options it cannot be drawn from."""


@validate(campaign=Instance((Campaign,), "a Campaign"), points=POINTS, rel=cast(Interval, REL["rel"].domain),
          missing_topics=MISSING_TOPICS, extra_topics=EXTRA_TOPICS, rule=Choices(RULES))
def precision_recall(campaign: Campaign, points: int | str | Iterable[float] = 11, rel: float = 1,
                     missing_topics: str = "zero", rule: str = "round", extra_topics: str = "error"
                     ) -> pd.DataFrame:
    """Interpolated precision of every system on every gold topic at every recall level: a tidy DataFrame
    ``system, topic, recall, precision``.

    ``points``: ``11`` (recall 0, 0.1, …, 1, trec_eval's ``iprec_at_recall``), ``"full"`` (every level k/R
    of every gold topic, :func:`~workbench.metrics.ranking.curves.recall_levels`) or the levels themselves;
    ``rel`` (the relevance level, as the measures call it) and ``rule`` (trec_eval 10's ``"round"`` or 9's
    ``"v9"``) as in
    :func:`~workbench.metrics.ranking.curves.interpolated_precision`.
    ``missing_topics``: a gold topic a run lacks is a run that finds nothing (``"zero"``, the campaign
    default), left out (``"skip"``) or an error (``"error"``); ``extra_topics``: a run topic the gold lacks is an
    error (``"error"``) or dropped (``"ignore"``), with the warning :meth:`Campaign.evaluate` gives.
    """
    level = rel
    policy = TopicPolicy(missing_topics, extra_topics, campaign.missing_topics(), campaign.extra_topics())
    policy.refuse()
    topics = list(campaign.gold)
    if isinstance(points, str):  # "full"
        levels = recall_levels(gain_table(campaign.gold, {}, topics, placeholders=True).n_relevant(level))
    elif isinstance(points, Iterable):
        levels = np.asarray(list(points), dtype=float)
    else:  # 11
        levels = np.asarray(ELEVEN_POINTS)
    frames = []
    for system, run in campaign.runs.items():
        kept = [t for t in topics if t in run or missing_topics == "zero"]
        values = interpolated_precision(gain_table(campaign.gold, run, kept, placeholders=True), levels, level, rule)
        frames.append(pd.DataFrame({"system": system, "topic": np.repeat(kept, len(levels)),
                                    "recall": np.tile(levels, len(kept)), "precision": values.ravel()}))
    policy.warn("counted as finding nothing")
    return pd.concat(frames, ignore_index=True)[COLUMNS] if frames else pd.DataFrame(columns=COLUMNS)


@validate(curves=Instance((pd.DataFrame,), "a precision_recall table (system, topic, recall, precision)"))
def curve_summary(curves: pd.DataFrame) -> pd.DataFrame:
    """Each system's curve over topics: at each recall level the mean interpolated precision (the averaged
    curve), its quartiles, extremes and the number of topics. Columns ``system, recall, mean, q25, median,
    q75, min, max, topics``; systems keep their order."""
    if set(COLUMNS) - set(curves.columns):
        raise CurveError(f"expected the columns {', '.join(COLUMNS)} (from precision_recall), "
                         f"got {list(curves.columns)}")
    precision = np.asarray(pd.to_numeric(curves["precision"], errors="coerce"), dtype=float)
    bad = ~np.isfinite(precision)
    if bad.any():
        system, topic, recall, value = (v.item() if isinstance(v, np.generic) else v
                                        for v in curves.iloc[int(np.argmax(bad))][COLUMNS])
        raise CurveError(f"system {system!r}, topic {topic!r}, recall {recall!r}: precision {value!r} is not a "
                         "finite number (the averaged curve would skip or spread it)")
    grouped = curves.groupby(["system", "recall"], sort=False)["precision"]
    summary = grouped.agg(["mean", "median", "min", "max", "count"]).rename(columns={"count": "topics"})
    summary["q25"], summary["q75"] = grouped.quantile(0.25), grouped.quantile(0.75)
    summary = summary.reset_index()
    order = {system: i for i, system in enumerate(dict.fromkeys(curves["system"]))}
    summary = summary.sort_values(["system", "recall"], key=lambda c: c.map(order) if c.name == "system" else c,
                                  kind="stable")
    return summary.reset_index(drop=True)[SUMMARY]
