"""Meta-evaluation over many topics and systems: unanimous improvement and UIR, significance tests,
strictness and robustness, the formal-constraint checker, and precision–recall curves. Inputs are tidy results
(``system, topic, measure, value``); outputs are tidy DataFrames."""

from workbench.analysis.constraints import (
    CONSTRAINTS,
    ConstraintCheckError,
    as_grid,
    check_constraints,
    filtering_report,
    table6_report,
)
from workbench.analysis.deltas import topic_deltas
from workbench.analysis.precision_recall import CurveError, curve_summary, precision_recall
from workbench.analysis.report import ComparisonReport, compare_report
from workbench.analysis.results import ResultsError, ResultsWarning, ScoreCube, score_cube
from workbench.analysis.significance import adjust, significance
from workbench.analysis.strictness import rank_gap_strictness, robustness, top_n_strictness
from workbench.analysis.unanimous import (
    f_alpha,
    f_alpha_curves,
    parametric_uir,
    reference_systems,
    uir,
    uir_matrix,
    unanimous_improvements,
    unanimous_relation,
)

__all__ = [
    "CONSTRAINTS",
    "ComparisonReport",
    "ConstraintCheckError",
    "CurveError",
    "ResultsError",
    "ResultsWarning",
    "ScoreCube",
    "adjust",
    "as_grid",
    "check_constraints",
    "compare_report",
    "curve_summary",
    "f_alpha",
    "f_alpha_curves",
    "filtering_report",
    "parametric_uir",
    "precision_recall",
    "rank_gap_strictness",
    "reference_systems",
    "robustness",
    "score_cube",
    "significance",
    "table6_report",
    "top_n_strictness",
    "topic_deltas",
    "uir",
    "uir_matrix",
    "unanimous_improvements",
    "unanimous_relation",
]
