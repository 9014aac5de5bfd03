"""Charts of results: pure builders from tidy DataFrames to altair charts, and offline export (the ``lab`` extra:
``pip install "ir-workbench[lab]"``). Each name is imported on first use
(:mod:`workbench.lazy`); without the extra, reading one raises :class:`~workbench.extras.MissingExtraError`."""

from workbench.lazy import DEFERRED, defer_module, lazy_exports

for _module, _functions in DEFERRED.items():  # before altair imports jsonschema: seconds saved (workbench.lazy)
    defer_module(_module, _functions)

_MODULES = {
    "workbench.charts.tables": ("ChartDataError",),
    "workbench.charts.builders": ("UIR_THRESHOLD", "f_alpha_chart", "history_chart",
                                  "lost_mass_chart", "means_chart", "measure_scatter", "per_topic_chart",
                                  "scores_chart", "strictness_chart", "uir_heatmap"),
    "workbench.charts.comparisons": ("agreement_chart", "tukey_chart"),
    "workbench.charts.curves": ("precision_recall_chart",),
    "workbench.charts.deltas": ("topic_deltas_chart",),
    "workbench.charts.export": ("enable_offline", "save_chart"),
    "workbench.charts.live": ("with_data",),
    "workbench.charts.posthoc": ("critical_difference_chart", "sign_plot"),
    "workbench.charts.meta": ("asl_chart", "sensitivity_chart", "stability_chart", "swap_chart",
                              "topic_set_size_chart", "trust_charts"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, extra="lab")
