"""The formal-constraint checker: does a measure behave as Amigó et al., SIGIR 2013, §2 and Amigó et al., filtering
metrics comparison, §3 require?

Each constraint generates, for small gold standards, pairs of outputs of which one must score higher (or,
for the descriptive filtering properties, sets of outputs whose scores must relate in a given way). The
checker runs a measure over every small case exhaustively, then over random larger ones (seeded), and
reports the smallest counterexample it found, written in the Organization notation (filtering cases also
as a contingency).

    >>> def purity(gold, output):  # the textbook definition, for the example
    ...     classes = [c for level in gold.levels for c in level]
    ...     clusters = [c for level in output.levels for c in level]
    ...     return sum(max(len(c & k) for k in classes) for c in clusters) / sum(map(len, clusters))
    >>> table = check_constraints(purity, ["homogeneity", "completeness"])
    >>> table[["constraint", "satisfied"]].values.tolist()
    [['homogeneity', True], ['completeness', False]]
    >>> print(table.loc[1, "counterexample"])
    gold:
      {d1 d2}
      rest:
    better (score 1):
      {d1 d2}
      rest:
    worse (score 1):
      d1 d2
      rest:

Constraints (``CONSTRAINTS``): clustering — homogeneity, completeness, rag bag, size vs quantity (Amigó et al., SIGIR
2013 §2.1, after Amigó et al. 2009) and its overlapping variant (Amigó et al., SIGIR 2013, §4.2); filtering — strict
monotonicity, non-informativeness fixed quality, non-informativeness growing quality, absolute weighting (Amigó et al.,
filtering metrics comparison, §3); ranking — priority, deepness, deepness threshold, closeness threshold, confidence
(Amigó et al., SIGIR 2013, §2.3).

The package, by task: :mod:`.core` (cases, findings, the measure under check), :mod:`.clustering`,
:mod:`.filtering`, :mod:`.ranking` (each task's constraints and their case generators), :mod:`.check`
(:func:`check_constraints`) and :mod:`.tables` (the papers' tables recomputed).
"""

from workbench.analysis.constraints.check import CONSTRAINTS, TASKS, check_constraints
from workbench.analysis.constraints.core import (
    GRID,
    TOLERANCE,
    Case,
    Constraint,
    ConstraintCheckError,
    Finding,
    describe,
)
from workbench.analysis.constraints.ranking import DEPTHS
from workbench.analysis.constraints.tables import (
    CLUSTERING_COLUMNS,
    FILTERING_COLUMNS,
    FILTERING_TABLES,
    RANKING_COLUMNS,
    TABLE6,
    as_grid,
    filtering_report,
    table6_report,
)

__all__ = [
    "CLUSTERING_COLUMNS",
    "CONSTRAINTS",
    "DEPTHS",
    "FILTERING_COLUMNS",
    "FILTERING_TABLES",
    "GRID",
    "RANKING_COLUMNS",
    "TABLE6",
    "TASKS",
    "TOLERANCE",
    "Case",
    "Constraint",
    "ConstraintCheckError",
    "Finding",
    "as_grid",
    "check_constraints",
    "describe",
    "filtering_report",
    "table6_report",
]
