"""Results of one model over several random seeds or cross-validation folds brought to one score per (system,
topic, measure) before testing: the folds of a cross-validation partition the topics (each topic scored in
exactly one fold: the folds' rows are joined), the seeds repeat them (each topic scored once per seed: the mean is
taken, so that a test sees the model's expected score and not one seed's luck).

    >>> import pandas as pd
    >>> rows = [("m", t, "AP", s, 0.25 * s + t) for s in (1, 2) for t in (1, 2)]
    >>> tidy = pd.DataFrame(rows, columns=["system", "topic", "measure", "seed", "value"])
    >>> aggregate_folds(tidy, by="seed")[["topic", "value"]].values.tolist()
    [[1.0, 1.375], [2.0, 2.375]]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.analysis.results import COLUMNS, LARGEST, RESULTS, ResultsError
from workbench.validation import AnyOf, Choices, Domain, ListOf, Text, validate

__all__ = ["KINDS", "AGGREGATES", "GroupPattern", "FoldsError", "aggregate_folds", "group_systems"]

KINDS = ("auto", "folds", "seeds")
AGGREGATES = ("mean", "median")


@dataclass(frozen=True)
class GroupPattern(Domain):
    """A regular expression with a group, ``( ... )``, around the model's name (``(.*)_seed\\d+``).

    >>> [GroupPattern().reason(pattern) is None for pattern in ("(.*)_seed[0-9]+", ".*_seed", "(.*")]
    [True, False, False]
    """

    def __str__(self) -> str:
        return "a regular expression with a group ( ... ) around the model's name"

    def reason(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be {self}"
        try:
            groups = re.compile(value).groups
        except re.error as error:
            return f"must be {self} ({error})"
        return None if groups >= 1 else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str)

    def outside(self) -> tuple:
        return (3, "(.*", ".*_seed")


class FoldsError(ResultsError):
    """A fold or seed column that neither partitions the topics nor repeats them, or is absent."""


@validate(results=RESULTS, by=AnyOf(Text(), ListOf(Text(), shortest=1), what="a column's name or a list of them"),
          kind=Choices(KINDS), how=Choices(AGGREGATES))
def aggregate_folds(results: pd.DataFrame, by: str | Sequence[str] = "fold", *, kind: str = "auto",
                    how: str = "mean") -> pd.DataFrame:
    """The tidy results with the column(s) ``by`` aggregated away: ``kind="folds"`` checks that each system's
    (topic, measure) appears in exactly one fold and keeps it; ``"seeds"`` checks that it appears once under
    every seed and takes the ``how`` (mean or median); ``"auto"`` says which from the data. What was done is in
    ``.attrs["aggregated"]``; :class:`FoldsError` names the topic that fits neither."""
    by = [by] if isinstance(by, str) else list(by)
    absent = [c for c in (*COLUMNS, *by) if c not in results.columns]
    if absent:
        raise FoldsError(f"results lack column(s) {', '.join(absent)} "
                         f"(columns: {', '.join(map(str, results.columns))})")
    cell = ["system", "topic", "measure"]
    counts = results.groupby(cell, sort=False, dropna=False).size()
    labels = results[by].drop_duplicates()
    n_labels = len(labels)
    per_system = results.groupby("system", sort=False)[by].nunique().max(axis=1) if len(by) == 1 else \
        results.drop_duplicates(["system", *by]).groupby("system", sort=False).size()
    if kind == "auto":
        kind = "folds" if (counts == 1).all() and n_labels > 1 else "seeds"
    _check_values(results, by, kind, how)
    if kind == "folds":
        again = counts[counts > 1]
        if len(again):
            system, topic, measure = map(_plain, again.index[0])
            where = results[(results["system"] == system) & (results["topic"] == topic) &
                            (results["measure"] == measure)][by].drop_duplicates().values.tolist()
            where = [w[0] if len(by) == 1 else tuple(w) for w in where]
            raise FoldsError(f"the {'/'.join(by)} column does not partition the topics: system {system!r}, topic "
                             f"{topic!r}, measure {measure!r} is in {len(where)} of them ({where[:4]}); folds must "
                             "hold each topic once (seeds repeat every topic: kind='seeds')",
                             system=system, topic=topic, measure=measure)
        out = results.drop(columns=by).reset_index(drop=True)
    else:
        expected = per_system.reindex(counts.index.get_level_values("system")).to_numpy()
        short = counts.to_numpy() != expected
        if short.any():
            system, topic, measure = map(_plain, counts.index[int(short.argmax())])
            raise FoldsError(f"the {'/'.join(by)} column does not repeat every topic: system {system!r}, topic "
                             f"{topic!r}, measure {measure!r} has {int(counts.iloc[int(short.argmax())])} of "
                             f"{int(expected[int(short.argmax())])} values (seeds must score every topic; folds hold "
                             "each topic once: kind='folds')", system=system, topic=topic, measure=measure)
        out = results.groupby(cell, sort=False, dropna=False)["value"].agg(how).reset_index()
    out = out[[*COLUMNS, *[c for c in out.columns if c not in COLUMNS]]]
    out.attrs = {**results.attrs, "aggregated": {"by": by, "kind": kind, "how": how if kind == "seeds" else None,
                                                  "values": labels.to_dict("records")}}
    return out


def _check_values(results: pd.DataFrame, by: list[str], kind: str, how: str) -> None:
    """Refuse a value the aggregation would hide: an infinite one (or past ±1e150,
    :data:`~workbench.analysis.results.LARGEST`), and under seeds a NaN or non-number, which pandas' mean and
    median skip (the mean of the other seeds would stand for the model)."""
    given = results["value"]
    values = np.asarray(pd.to_numeric(given, errors="coerce"), dtype=float)
    bad = (np.abs(values) > LARGEST) | (np.isnan(values) if kind == "seeds" else False)
    if not bad.any():
        return
    at = int(np.argmax(bad))
    row = results.iloc[at]
    system, topic, measure = (_plain(row[c]) for c in ("system", "topic", "measure"))
    label = ", ".join(f"{c} {_plain(row[c])!r}" for c in by)
    value = values[at]
    why = (f"is {_plain(given.iloc[at])!r}: the {how} over the seeds would skip it and stand for the model "
           "with the other seeds (score it, or leave the seed out)" if np.isnan(value) else
           f"is {value!r}: aggregated scores are finite, within ±{LARGEST:g}")
    raise FoldsError(f"system {system!r}, topic {topic!r}, measure {measure!r} under {label} {why}",
                     system=system, topic=topic, measure=measure)


def _plain(value):
    """A numpy scalar as the Python value it holds (for messages)."""
    return value.item() if hasattr(value, "item") else value


@validate(results=RESULTS, pattern=GroupPattern(), column=Text())
def group_systems(results: pd.DataFrame, pattern: str, column: str = "group") -> pd.DataFrame:
    """Systems renamed by ``pattern`` (a regular expression whose first group is the model's name, e.g.
    ``(.*)_seed\\d+`` or ``(.*)\\.fold\\d``), the rest of each name in ``column``: the input of
    :func:`aggregate_folds` ``(by=column)`` when seeds or folds are separate runs. A system the pattern does not
    match stays as it is (its own single group)."""
    compiled = re.compile(pattern)
    names, labels = {}, {}
    for system in results["system"].drop_duplicates():
        match = compiled.fullmatch(str(system))
        names[system] = match.group(1) if match else system
        labels[system] = (str(system)[:match.start(1)] + str(system)[match.end(1):]) if match else ""
    out = results.assign(**{column: results["system"].map(labels)})
    out["system"] = results["system"].map(names)
    return out
