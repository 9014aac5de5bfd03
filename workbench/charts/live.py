"""Redraw a chart on new data without rebuilding it: altair validates every chart it builds (tens of ms), too
slow for a chart that follows each keystroke. ``with_data`` swaps the rows of a built chart's spec; use it
while everything the builder derived from the data (category orders, sizes) is unchanged.

    >>> import pandas as pd
    >>> from workbench.charts import scores_chart
    >>> old = pd.DataFrame({"output": ["o1"], "measure": ["R≺"], "value": [0.5]})
    >>> spec = with_data(scores_chart(old).to_dict(), old.assign(value=1.0))
    >>> next(iter(spec["datasets"].values()))
    [{'output': 'o1', 'measure': 'R≺', 'value': 1.0}]
"""

from __future__ import annotations

import pandas as pd

from workbench.charts.builders import ChartDataError
from workbench.validation import AnyOf, Instance, ListOf, MappingOf, Text, validate

__all__ = ["with_data"]


@validate(spec=MappingOf(Text(), what="a chart's spec (chart.to_dict())"), rows=AnyOf(
    Instance((pd.DataFrame,), "a DataFrame"), ListOf(Instance((dict,), "a record"), what="a list of records (dicts)"),
    what="a DataFrame or a list of records"))
def with_data(spec: dict, rows: pd.DataFrame | list[dict]) -> dict:
    """A copy of ``spec`` (a chart's ``to_dict()`` over one inline dataset) drawing ``rows`` (a DataFrame or
    a list of records), which must have the columns the chart was built with."""
    datasets = spec.get("datasets", {})
    name = spec.get("data", {}).get("name")
    if len(datasets) != 1 or name not in datasets:
        raise ChartDataError("with_data: the spec must draw exactly one inline dataset")
    records = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else rows
    if datasets[name] and records and list(records[0]) != list(datasets[name][0]):
        raise ChartDataError(f"with_data: the chart was built on columns {list(datasets[name][0])}, "
                             f"got {list(records[0])}")
    return {**spec, "datasets": {name: records}}
