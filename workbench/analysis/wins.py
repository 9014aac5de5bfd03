"""Win/tie/loss counts over topics of each system against a baseline: on how many topics it scores better, the
same (within ``tolerance``) or worse, "better" following the measure's registered direction.

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"base": [.2, .3, .4], "new": [.3, .3, .1]}.items()
    ...         for t, v in enumerate(vs)]
    >>> win_tie_loss(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "AP").to_dict("records")
    [{'system': 'new', 'baseline': 'base', 'measure': 'AP', 'wins': 1, 'ties': 1, 'losses': 1}]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from workbench.analysis.results import (
    BASELINE,
    MEASURE,
    MEASURES,
    MISSING,
    RESULTS,
    SYSTEMS,
    TOLERANCES,
    ResultsError,
    score_cube,
)
from workbench.validation import AnyOf, validate

__all__ = ["win_tie_loss"]


@validate(results=RESULTS, measure=AnyOf(MEASURE, replace(MEASURES, optional=False),
                                         what="a measure's name or a list of them"),
          baseline=BASELINE, tolerance=TOLERANCES, systems=SYSTEMS, missing=MISSING)
def win_tie_loss(results: pd.DataFrame, measure: str | Sequence[str], baseline=None, *, tolerance: float = 0.0,
                 systems: Sequence | None = None, missing: str = "error") -> pd.DataFrame:
    """One row per system other than ``baseline`` (default: the first system) and measure: ``system, baseline,
    measure, wins, ties, losses``, topics where ``|difference|`` ≤ ``tolerance`` counting as ties."""
    measures = [measure] if isinstance(measure, str) else list(measure)
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=1)
    baseline = cube.systems[0] if baseline is None else baseline
    if baseline not in cube.systems:
        raise ResultsError(f"baseline {baseline!r} is not among the systems {cube.systems}", system=baseline)
    oriented = cube.oriented()
    base = oriented[cube.systems.index(baseline)]
    rows = []
    for i, system in enumerate(cube.systems):
        if system == baseline:
            continue
        for k, name in enumerate(cube.measures):
            d = oriented[i, :, k] - base[:, k]
            tie = np.abs(d) <= tolerance
            rows.append({"system": system, "baseline": baseline, "measure": name, "wins": int((~tie & (d > 0)).sum()),
                         "ties": int(tie.sum()), "losses": int((~tie & (d < 0)).sum())})
    return pd.DataFrame(rows, columns=["system", "baseline", "measure", "wins", "ties", "losses"])
