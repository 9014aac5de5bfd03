"""Meta-evaluation over many topics and systems: unanimous improvement and UIR, significance tests, Tukey's HSD
and win/tie/loss counts, the agreement of two rankings of the systems (τ, τ_ap), seeds and folds aggregated,
strictness and robustness, the formal-constraint checker, and precision–recall curves. Inputs are tidy results
(``system, topic, measure, value``); outputs are tidy DataFrames."""

from workbench.analysis.agreement import Agreement, kendall_tau_b, ranking_agreement, tau_ap
from workbench.analysis.constraints import (
    CONSTRAINTS,
    ConstraintCheckError,
    as_grid,
    check_constraints,
    filtering_report,
    table6_report,
)
from workbench.analysis.deltas import topic_deltas
from workbench.analysis.folds import FoldsError, aggregate_folds, group_systems
from workbench.analysis.precision_recall import CurveError, curve_summary, precision_recall
from workbench.analysis.report import ComparisonReport, compare_report
from workbench.analysis.results import ResultsError, ResultsWarning, ScoreCube, score_cube
from workbench.analysis.significance import adjust, significance
from workbench.analysis.strictness import rank_gap_strictness, robustness, top_n_strictness
from workbench.analysis.tukey import homogeneous_groups, tukey_hsd
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
from workbench.analysis.win_tie_loss import win_tie_loss

__all__ = [
    "CONSTRAINTS",
    "Agreement",
    "FoldsError",
    "ComparisonReport",
    "ConstraintCheckError",
    "CurveError",
    "ResultsError",
    "ResultsWarning",
    "ScoreCube",
    "adjust",
    "aggregate_folds",
    "as_grid",
    "check_constraints",
    "compare_report",
    "curve_summary",
    "f_alpha",
    "f_alpha_curves",
    "filtering_report",
    "group_systems",
    "homogeneous_groups",
    "kendall_tau_b",
    "parametric_uir",
    "precision_recall",
    "ranking_agreement",
    "rank_gap_strictness",
    "reference_systems",
    "robustness",
    "score_cube",
    "significance",
    "table6_report",
    "tau_ap",
    "top_n_strictness",
    "topic_deltas",
    "tukey_hsd",
    "uir",
    "uir_matrix",
    "unanimous_improvements",
    "unanimous_relation",
    "win_tie_loss",
]
