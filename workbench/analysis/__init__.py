"""Meta-evaluation over many topics and systems: unanimous improvement and UIR, significance tests (the sign test
among them), Tukey's HSD, Friedman's test with Nemenyi's and Conover's post-hoc and the whole post-hoc family
(Dunn, Quade, Durbin, Siegel–Friedman, Miller–Friedman, pairwise Wilcoxon, t and Mann–Whitney, Scheffé, Tamhane),
win/tie/loss counts, the agreement of two rankings of the systems (τ, τ_ap, Pearson, Spearman), pools of
documents to judge and the agreement of assessors (Cohen's and Fleiss' κ, Jaccard), seeds and folds aggregated,
strictness and robustness, the formal-constraint checker, precision–recall curves, and the methods that judge the
measures themselves (which measure to trust: Buckley and Voorhees's stability method, Voorhees and Buckley's swap
method, Sakai's bootstrap discriminative power and topic set size design, :mod:`workbench.analysis.meta`). Inputs
are tidy results (``system, topic, measure, value``); outputs are tidy DataFrames. Each name is imported on first
use (:mod:`workbench.lazy`)."""

from workbench.lazy import lazy_exports

_MODULES = {
    "workbench.analysis.agreement": ("Agreement", "kendall_tau_b", "pearson_r", "ranking_agreement", "tau_ap"),
    "workbench.analysis.assessors": ("AssessorAgreement", "fleiss_kappa", "qrels_agreement"),
    "workbench.analysis.constraints": ("CONSTRAINTS", "ConstraintCheckError", "as_grid", "check_constraints",
                                       "filtering_report", "table6_report"),
    "workbench.analysis.deltas": ("topic_deltas",),
    "workbench.analysis.folds": ("FoldsError", "aggregate_folds", "group_systems"),
    "workbench.analysis.meta.bootstrap": ("achieved_significance", "discriminative_power"),
    "workbench.analysis.meta.samples": ("topic_samples",),
    "workbench.analysis.meta.stability": ("FIGURE2_FUZZINESS", "stability_method"),
    "workbench.analysis.meta.swap": ("swap_rates", "swap_sensitivity"),
    "workbench.analysis.meta.topic_sets": ("topic_set_size", "topics_for_ci", "topics_for_power"),
    "workbench.analysis.meta.trust": ("measure_trust",),
    "workbench.analysis.curves": ("CurveError", "curve_summary", "precision_recall"),
    "workbench.analysis.report": ("ComparisonReport", "compare_report"),
    "workbench.analysis.results": ("ResultsError", "ResultsWarning", "ScoreCube", "score_cube"),
    "workbench.analysis.paired_tests": ("adjust", "significance"),
    "workbench.analysis.pooling": ("Pool", "make_pool"),
    "workbench.analysis.posthoc_family": ("POSTHOC_TESTS", "posthoc"),
    "workbench.analysis.rank_tests": ("POSTHOCS", "friedman"),
    "workbench.analysis.signs": ("sign_test",),
    "workbench.analysis.strictness": ("rank_gap_strictness", "robustness", "top_n_strictness"),
    "workbench.analysis.tukey": ("homogeneous_groups", "tukey_hsd"),
    "workbench.analysis.unanimous": ("f_alpha", "f_alpha_curves", "parametric_uir", "reference_systems", "uir",
                                     "uir_matrix", "unanimous_improvements", "unanimous_relation"),
    "workbench.analysis.wins": ("win_tie_loss",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
