"""Every constraint by name, and :func:`check_constraints`: run a measure through the ones asked for."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from workbench.analysis.constraints import clustering, filtering, ranking
from workbench.analysis.constraints.core import GRID_DOMAIN, MEASURE_UNDER_CHECK, Constraint, Finding, _scorer
from workbench.metrics.registry import Measure
from workbench.validation import AnyOf, Choices, Flag, Instance, Interval, ListOf, validate

__all__ = ["CONSTRAINTS", "TASKS", "CASES_OF", "SELECTION", "RANDOM_CASES", "CHECK_SEED",
           "check_constraints"]

CONSTRAINTS: dict[str, Constraint] = {c.name: c for c in (*clustering.CONSTRAINTS, *filtering.CONSTRAINTS,
                                                            *ranking.CONSTRAINTS)}
TASKS = ("clustering", "filtering", "ranking")
CASES_OF = {"classification": "filtering"}
"""Tasks checked on another task's cases: a classification measure reads a filtering case as binary
classification (:meth:`workbench.model.labelling.Labelling.from_organization`), the setting of the filtering
constraints (Amigó et al., filtering metrics comparison, §3)."""
_NAMED = Instance((Constraint,), "a Constraint")
SELECTION = AnyOf(Choices((*TASKS, *CONSTRAINTS, None)), _NAMED, ListOf(AnyOf(Choices((*TASKS, *CONSTRAINTS)), _NAMED),
                                                                       shortest=1),
                  what="None, a task, a constraint's name or a Constraint, or a list of these")
"""The domain of ``constraints``: the constraints to check."""
RANDOM_CASES = Interval(0, 100_000, integer=True)
"""The domain of ``random_cases``, the random cases checked per constraint (each one scores the measure)."""
CHECK_SEED = Interval(0, integer=True)
"""The domain of the checker's ``seed``: an integer ≥ 0 (each constraint seeds its own generator with it)."""


def _select(constraints, task: str | None) -> list[Constraint]:
    if constraints is None:
        if task in TASKS:
            return [c for c in CONSTRAINTS.values() if c.task == task]
        return list(CONSTRAINTS.values())
    if isinstance(constraints, str | Constraint):
        constraints = [constraints]
    chosen = []
    for item in constraints:
        if isinstance(item, Constraint):
            chosen.append(item)
        elif item in TASKS:
            chosen.extend(c for c in CONSTRAINTS.values() if c.task == item)
        else:
            chosen.append(CONSTRAINTS[item])
    return chosen


@validate(measure=MEASURE_UNDER_CHECK, constraints=SELECTION, random_cases=RANDOM_CASES, seed=CHECK_SEED,
          grid=GRID_DOMAIN, lower_is_better=Flag(optional=True))
def check_constraints(measure: str | Measure | Callable, constraints=None, *, random_cases: int = 100,
                      seed: int = 0, grid: Mapping[str, Sequence[float]] | None = None,
                      lower_is_better: bool | None = None) -> pd.DataFrame:
    """Check a measure against formal constraints.

    ``measure`` is a registered name (``"F(alpha=0.2, smoothing=noninformative)"``), a
    :class:`~workbench.metrics.registry.Measure` or a callable ``(gold, output) → float``. ``constraints`` is
    None (the constraints of the measure's task — the filtering ones for a classification measure,
    :data:`CASES_OF` — or all of them for a callable or a general measure), a task
    name, a constraint name, or a list of these. Every small case is checked, then ``random_cases`` random
    ones per constraint (seeded). Returns one row per constraint: ``constraint, task, satisfied,
    counterexample`` (empty when satisfied), ``cases`` checked, ``undefined`` (cases where the measure gave
    NaN, left out of the verdict), ``source`` and ``statement``. A measure that raises stops the check with a
    :class:`ConstraintCheckError` naming the constraint and the case. ``grid`` maps a numeric parameter to
    the values the absolute-weighting check tries (a callable receives them as keyword arguments).
    ``lower_is_better`` defaults to the registered measure's ``direction`` (Lam% is an error rate); give it
    for a callable whose lower scores are better.
    """
    scorer = _scorer(measure, grid, lower_is_better)
    task = scorer.measure.spec.task if scorer.measure is not None else None
    task = CASES_OF.get(task, task) if task is not None else None
    rows = []
    for constraint in _select(constraints, task):
        rng = np.random.default_rng([seed, sum(map(ord, constraint.name))])
        finding = constraint.check(scorer, random_cases=random_cases, rng=rng)
        if finding.cases and finding.undefined == finding.cases:
            finding = Finding(False, f"{scorer.name} is undefined (NaN) on every case checked",
                              finding.cases, finding.undefined)
        rows.append({"constraint": constraint.name, "task": constraint.task, "satisfied": finding.satisfied,
                     "counterexample": finding.counterexample, "cases": finding.cases,
                     "undefined": finding.undefined, "source": constraint.source,
                     "statement": constraint.statement})
    table = pd.DataFrame(rows, columns=["constraint", "task", "satisfied", "counterexample", "cases",
                                        "undefined", "source", "statement"])
    table.attrs["measure"] = scorer.name
    return table
