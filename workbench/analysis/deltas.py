"""Where two systems differ, topic by topic: the per-topic differences of one measure, sorted, with the paired test
of the whole comparison beside them (the first rows are the topics where ``a`` beats ``b`` most, the last where
``b`` does).

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"A": [.3, .5, .4, .6], "B": [.2, .3, .45, .4]}.items()
    ...         for t, v in zip("wxyz", vs)]
    >>> d = topic_deltas(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "A", "B", "AP")
    >>> print(d[["topic", "difference", "winner"]].round(2).to_string(index=False))
    topic  difference winner
        x        0.20      A
        z        0.20      A
        w        0.10      A
        y       -0.05      B
    >>> round(d.attrs["test"]["p_value"], 4), d.attrs["test"]["test"]  # scipy.stats.ttest_rel agrees
    (0.153, 'paired t-test (two-sided)')
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.analysis.paired_tests import RESAMPLES, TEST, significance
from workbench.analysis.results import MEASURE, MISSING, RESULTS, SYSTEM, ResultsError, score_cube
from workbench.metrics.registry import direction
from workbench.validation import SEED, validate

__all__ = ["COLUMNS", "topic_deltas"]

COLUMNS = ["topic", "value_a", "value_b", "difference", "advantage", "winner"]


@validate(results=RESULTS, a=SYSTEM, b=SYSTEM, measure=MEASURE, test=TEST, n_resamples=RESAMPLES, seed=SEED,
          missing=MISSING)
def topic_deltas(results: pd.DataFrame, a, b, measure: str, *, test: str = "t", n_resamples: int = 10_000,
                 seed: int | None = 0, missing: str = "error") -> pd.DataFrame:
    """One row per topic: ``topic, value_a, value_b, difference`` (a − b), ``advantage`` (the difference turned
    so that positive favours ``a`` whatever the measure's direction) and ``winner`` (``a``, ``b`` or ``"tie"``),
    sorted by advantage, largest first (ties in topic order). ``attrs["test"]``: the paired test of the whole
    comparison (:func:`~workbench.analysis.paired_tests.significance`, no correction: one pair; none for a single
    topic, its values NaN), as a dict with ``test, parameters, statistic, p_value, mean_a, mean_b, difference,
    better, report``; ``attrs["measure"]``,
    ``attrs["systems"]``. Unknown systems or measures raise :class:`~workbench.analysis.results.ResultsError`."""
    if a == b:
        raise ResultsError(f"compare two different systems, got {a!r} twice", system=a)
    cube = score_cube(results, [measure], systems=[a, b], missing=missing, min_topics=1)
    values = cube.values[:, :, 0]
    sign = -1.0 if direction(str(measure)) == "lower" else 1.0
    difference = values[0] - values[1]
    advantage = sign * difference
    winner = np.where(advantage > 0, str(a), np.where(advantage < 0, str(b), "tie"))
    frame = pd.DataFrame({"topic": cube.topics, "value_a": values[0], "value_b": values[1],
                          "difference": difference, "advantage": advantage, "winner": winner}, columns=COLUMNS)
    frame = frame.sort_values("advantage", ascending=False, kind="stable").reset_index(drop=True)
    if len(cube.topics) < 2:  # one topic: the differences, and no test
        better = "" if advantage[0] == 0 else str(a) if advantage[0] > 0 else str(b)
        frame.attrs["test"] = {"test": "no test (one topic)", "parameters": "", "statistic": float("nan"),
                               "p_value": float("nan"), "mean_a": float(values[0, 0]), "mean_b": float(values[1, 0]),
                               "difference": float(difference[0]), "better": better,
                               "report": "one topic: a paired test needs two or more"}
    else:
        table = significance(results, [measure], systems=[a, b], test=test, correction="none",
                             n_resamples=n_resamples, seed=seed, missing=missing)
        row = table.iloc[0]
        frame.attrs["test"] = {"test": row["test"], "parameters": row["parameters"],
                               "statistic": float(row["statistic"]), "p_value": float(row["p_value"]),
                               "mean_a": float(row["mean_a"]), "mean_b": float(row["mean_b"]),
                               "difference": float(row["difference"]), "better": row["better"],
                               "report": table.attrs["report"]}
    frame.attrs["measure"], frame.attrs["systems"] = measure, (a, b)
    return frame
