"""Tidy results (``system, topic, measure, value``) checked and turned into a dense array for the analyses, and the
domains of the arguments every analysis shares (:data:`RESULTS`, :data:`MEASURES`, :data:`SYSTEMS`, :data:`MISSING`,
:data:`ALPHA`, :data:`SCORES`...), each rule written once.

Every analysis in :mod:`workbench.analysis` starts here: :func:`score_cube` validates a campaign's tidy
DataFrame and returns a :class:`ScoreCube` (a ``systems × topics × measures`` array). Problems are raised as
:class:`ResultsError`, which names the system, topic and measure at fault. A NaN score is a missing one (the
``missing`` policy); an infinite score, or one past ±1e150 (:data:`LARGEST`, where the sums of squares of the
tests overflow), is refused: an analysis would average it into an infinite mean or a NaN interval.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["A", "A", "B", "B"], "topic": [1, 2, 1, 2],
    ...                    "measure": "P", "value": [0.5, 0.7, 0.4, 0.7]})
    >>> cube = score_cube(df, ["P"])
    >>> cube.values.shape, cube.systems, cube.topics
    ((2, 2, 1), ['A', 'B'], [1, 2])
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from workbench.data.campaign import COLUMNS
from workbench.errors import CampaignError, WorkbenchWarning, warn
from workbench.validation import Choices, Domain, Instance, Interval, ListOf, Numbers, is_number, validate

__all__ = ["LARGEST", "MISSING_RESULT_POLICIES", "Label", "RESULTS", "MEASURE", "MEASURES", "SYSTEM", "BASELINE",
           "SYSTEMS", "MISSING", "ALPHA", "TOLERANCES", "SCORES", "ResultsError", "ResultsWarning", "ScoreCube",
           "score_cube", "compared_systems"]

LARGEST = 1e150
"""The largest score magnitude the analyses take: squares and sums of squares of larger ones overflow."""
MISSING_RESULT_POLICIES = ("error", "intersection")
"""What an analysis does with a system that lacks a topic another has (``missing=``): stop or keep the topics
all share."""

RESULTS = Instance((pd.DataFrame,), "a tidy results DataFrame (system, topic, measure, value)")
"""The domain of ``results``: a DataFrame, whose columns and scores :func:`score_cube` checks, naming the cell."""


@dataclass(frozen=True)
class Label(Domain):
    """A name in a column of the results (``what`` says which): a non-empty string or an integer; None too when
    ``optional``.

    >>> Label("a system's name").reason(None)
    "must be a system's name (a string or an integer)"
    """

    what: str
    optional: bool = False

    def __str__(self) -> str:
        return f"{self.what} (a string or an integer)" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if (value is None and self.optional) or (isinstance(value, str) and value) or (
                isinstance(value, numbers.Integral) and is_number(value)):
            return None
        return f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not (isinstance(value, str) or (isinstance(value, numbers.Integral) and is_number(value))
                    or (value is None and self.optional))

    def outside(self) -> tuple:
        return ("", 2.5, object()) + (() if self.optional else (None,))


MEASURE = Label("a measure's name")
"""The domain of a measure's name (a value of the results' measure column)."""
MEASURES = ListOf(MEASURE, shortest=1, optional=True, what="a list of measure names")
"""The domain of ``measures``: the measures an analysis reads (None: every measure in the results)."""
SYSTEM = Label("a system's name")
"""The domain of a system's name (a value of the results' system column)."""
BASELINE = Label("a system's name", optional=True)
"""The domain of ``baseline``: a system's name, or None for the first system."""
SYSTEMS = ListOf(SYSTEM, shortest=1, optional=True, what="a list of system names")
"""The domain of ``systems``: the systems an analysis compares, in this order (None: every system, in the
order the results first show them)."""
MISSING = Choices(MISSING_RESULT_POLICIES)
"""The domain of ``missing``."""
ALPHA = Interval(0, 1, low_open=True, high_open=True)
"""The domain of a significance level ``alpha``."""
TOLERANCES = Interval(0)
"""The domain of a tolerance below which two scores are equal: a finite number ≥ 0."""
SCORES = Numbers(low=-LARGEST, high=LARGEST)
"""The domain of the array-level functions' scores: finite numbers within ±:data:`LARGEST`, as in
:func:`score_cube`."""


class ResultsError(CampaignError):
    """Tidy results the analysis cannot use; ``system``, ``topic``, ``measure`` name the culprit (or None)."""

    def __init__(self, message: str, *, system: Any = None, topic: Any = None, measure: Any = None) -> None:
        super().__init__(message)
        self.system, self.topic, self.measure = system, topic, measure


class ResultsWarning(WorkbenchWarning):
    """Topics were dropped from an analysis (``missing="intersection"``); the message lists them."""


@dataclass(frozen=True)
class ScoreCube:
    """Scores as ``values[system, topic, measure]``; ``dropped`` lists the (system, topic, measure) cells that
    were missing or NaN and made their topic leave the analysis."""

    systems: list
    topics: list
    measures: list
    values: np.ndarray
    dropped: list = field(default_factory=list)

    def signs(self) -> np.ndarray:
        """+1 for each measure where higher is better, −1 where lower is (the registry's ``direction``)."""
        from workbench.metrics.registry import direction

        return np.array([-1.0 if direction(str(m)) == "lower" else 1.0 for m in self.measures])

    def oriented(self) -> np.ndarray:
        """``values`` with every lower-is-better measure negated, so that higher is better everywhere."""
        return self.values * self.signs()


def _listing(items: Iterable, limit: int = 12) -> str:
    items = list(items)
    shown = ", ".join(map(repr, items[:limit]))
    return shown + (f", … ({len(items)} in all)" if len(items) > limit else "")


@validate(results=RESULTS, measures=MEASURES, systems=SYSTEMS, missing=MISSING, min_topics=Interval(1, integer=True))
def score_cube(results: pd.DataFrame, measures: Sequence[str] | None = None, *,
               systems: Sequence | None = None, missing: str = "error", min_topics: int = 2) -> ScoreCube:
    """Validate tidy results and return the ``systems × topics × measures`` scores.

    ``missing`` is the policy for a (system, topic, measure) score that is absent or NaN: ``"error"`` raises
    :class:`ResultsError` naming it; ``"intersection"`` keeps only the topics every selected system has for
    every selected measure, warns (:class:`ResultsWarning`) and lists the dropped cells in ``cube.dropped``.
    Fewer than ``min_topics`` usable topics is an error.
    """
    absent = [c for c in COLUMNS if c not in results.columns]
    if absent:
        raise ResultsError(f"results lack column(s) {', '.join(absent)}; expected {', '.join(COLUMNS)} "
                           f"(found {', '.join(map(str, results.columns))})")
    frame = results.loc[:, list(COLUMNS)]
    for column in ("system", "topic", "measure"):
        if frame[column].isna().any():
            row = frame.index[frame[column].isna()][0]
            raise ResultsError(f"row {row}: the {column} is missing", **_where(frame.loc[row]))
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = values.isna() & frame["value"].notna()
    if bad.any():
        row = frame.index[bad][0]
        raise ResultsError(f"row {row}: value {frame.loc[row, 'value']!r} is not a number "
                           f"(system {frame.loc[row, 'system']!r}, topic {frame.loc[row, 'topic']!r}, "
                           f"measure {frame.loc[row, 'measure']!r})", **_where(frame.loc[row]))
    frame = frame.assign(value=values.astype(float))
    dup = frame.duplicated(["system", "topic", "measure"], keep=False)
    if dup.any():
        first = frame[dup].iloc[0]
        raise ResultsError(f"system {first['system']!r}, topic {first['topic']!r}, measure "
                           f"{first['measure']!r} has {int(dup.sum())} duplicated rows; each score must "
                           "appear once", **_where(first))

    all_measures = frame["measure"].drop_duplicates().tolist()
    all_systems = frame["system"].drop_duplicates().tolist()
    measures = all_measures if measures is None else list(measures)
    systems = all_systems if systems is None else list(systems)
    for name in measures:
        if name not in all_measures:
            raise ResultsError(f"measure {name!r} is not in the results; measures: {_listing(all_measures)}",
                               measure=name)
    for name in systems:
        if name not in all_systems:
            raise ResultsError(f"system {name!r} is not in the results; systems: {_listing(all_systems)}",
                               system=name)
    if len(set(systems)) != len(systems) or len(set(measures)) != len(measures):
        raise ResultsError("a system or measure is selected twice")

    frame = frame[frame["system"].isin(systems) & frame["measure"].isin(measures)]
    huge = np.abs(frame["value"].to_numpy()) > LARGEST
    if huge.any():
        row = frame.index[huge][0]
        system, topic, measure, value = (_plain(frame.loc[row, c]) for c in COLUMNS)
        raise ResultsError(f"row {row}: the score of system {system!r} on topic {topic!r} for measure {measure!r} "
                           f"is {value!r}{_why_refused(value)}", system=system, topic=topic, measure=measure)
    topics = frame["topic"].drop_duplicates().tolist()
    cube = np.full((len(systems), len(topics), len(measures)), np.nan)
    s = pd.Index(systems).get_indexer(frame["system"])
    t = pd.Index(topics).get_indexer(frame["topic"])
    m = pd.Index(measures).get_indexer(frame["measure"])
    cube[s, t, m] = frame["value"].to_numpy()

    holes = np.argwhere(np.isnan(cube))
    dropped = [(systems[i], topics[j], measures[k]) for i, j, k in holes]
    if dropped:
        system, topic, measure = dropped[0]
        present = frame.set_index(["system", "topic", "measure"]).index
        what = "is NaN" if (system, topic, measure) in present else "is missing"
        summary = (f"the score of system {system!r} on topic {topic!r} for measure {measure!r} {what}"
                   + (f" ({len(dropped)} scores missing or NaN in all)" if len(dropped) > 1 else ""))
        if missing == "error":
            raise ResultsError(summary + "; pass missing='intersection' to keep only the topics every system "
                               "has", system=system, topic=topic, measure=measure)
        keep = ~np.isnan(cube).any(axis=(0, 2))
        gone = [topics[j] for j in np.flatnonzero(~keep)]
        warn(f"{summary}; dropped {len(gone)} topic(s) to keep the intersection: {_listing(gone)}",
             ResultsWarning)
        cube = cube[:, keep, :]
        topics = [topic for topic, k in zip(topics, keep, strict=True) if k]
    if len(topics) < min_topics:
        raise ResultsError(f"{len(topics)} usable topic(s) for systems {_listing(systems)} and measures "
                           f"{_listing(measures)}; this analysis needs at least {min_topics}")
    return ScoreCube(systems, topics, measures, cube, dropped)


def _plain(value):
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _why_refused(value: float) -> str:
    return ("; the analyses take finite scores (NaN marks a missing one)" if np.isinf(value) else
            f"; the analyses take scores within ±{LARGEST:g} (their sums of squares would overflow)")


def compared_systems(results: pd.DataFrame, measure: str, test: str, *, systems: Sequence[str] | None,
                     missing: str) -> ScoreCube:
    """The :func:`score_cube` of one ``measure`` that a multiple-comparison ``test`` reads: 2 topics and 2 systems
    at least, else :class:`ResultsError` naming the test."""
    cube = score_cube(results, [measure], systems=systems, missing=missing, min_topics=2)
    if len(cube.systems) < 2:
        raise ResultsError(f"{test} compares two systems at least; the results hold {len(cube.systems)}")
    return cube


def _where(row: pd.Series) -> dict:
    return {"system": row.get("system"), "topic": row.get("topic"), "measure": row.get("measure")}
