"""Charts of results: pure builders from tidy DataFrames to altair charts, and offline export."""

from workbench.charts.builders import (
    UIR_THRESHOLD,
    ChartDataError,
    f_alpha_chart,
    history_chart,
    lost_mass_chart,
    means_chart,
    measure_scatter,
    per_topic_chart,
    scores_chart,
    strictness_chart,
    uir_heatmap,
)
from workbench.charts.comparisons import agreement_chart, tukey_chart
from workbench.charts.curves import precision_recall_chart
from workbench.charts.deltas import topic_deltas_chart
from workbench.charts.export import enable_offline, save_chart
from workbench.charts.live import with_data

__all__ = [
    "UIR_THRESHOLD",
    "ChartDataError",
    "agreement_chart",
    "enable_offline",
    "f_alpha_chart",
    "history_chart",
    "lost_mass_chart",
    "means_chart",
    "measure_scatter",
    "per_topic_chart",
    "precision_recall_chart",
    "save_chart",
    "scores_chart",
    "strictness_chart",
    "topic_deltas_chart",
    "tukey_chart",
    "uir_heatmap",
    "with_data",
]
