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


def with_data(spec: dict, frame: pd.DataFrame) -> dict:
    """A copy of ``spec`` (a chart's ``to_dict()`` over one inline dataset) drawing ``frame``'s rows, which
    must have the columns the chart was built with."""
    datasets = spec.get("datasets", {})
    name = spec.get("data", {}).get("name")
    if len(datasets) != 1 or name not in datasets:
        raise ChartDataError("with_data: the spec must draw exactly one inline dataset")
    columns = list(datasets[name][0]) if datasets[name] else list(frame.columns)
    if list(frame.columns) != columns:
        raise ChartDataError(f"with_data: the chart was built on columns {columns}, "
                             f"got {list(frame.columns)}")
    return {**spec, "datasets": {name: frame.to_dict("records")}}
