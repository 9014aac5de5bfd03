"""Charts offline: saved as PNG/SVG/PDF through vl-convert (no browser, no internet), and the switch that
makes ``alt.JupyterChart`` load vega from vl-convert instead of a CDN.

    >>> save_chart(scores_chart(df), "table9.png")          # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

import altair as alt

from workbench.charts.builders import ChartDataError

FORMATS = ("png", "svg", "pdf")


def save_chart(chart: alt.TopLevelMixin, path: str | Path, *, scale_factor: float = 2.0) -> Path:
    """Write ``chart`` to ``path`` as PNG, SVG or PDF (chosen by the suffix), offline via vl-convert."""
    path = Path(path)
    kind = path.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise ChartDataError(f"cannot save a chart as {path.name!r}: the suffix must be one of "
                             f"{', '.join('.' + f for f in FORMATS)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"scale_factor": scale_factor} if kind == "png" else {}
    chart.save(str(path), format=kind, **options)
    return path


_offline = False


def enable_offline() -> None:
    """Make ``alt.JupyterChart`` inline vega/vega-lite (from vl-convert) rather than import them from a CDN;
    idempotent. Call before creating a chart widget (the widgets do)."""
    global _offline
    if not _offline:
        alt.JupyterChart.enable_offline()
        _offline = True
