"""Charts offline: saved as PNG/SVG/PDF through vl-convert (no browser, no internet), and the switch that
makes ``alt.JupyterChart`` load vega from vl-convert instead of a CDN. vl-convert bundles vega for the chart
widget in about two seconds; the bundle is kept in the cache folder (``WORKBENCH_CACHE``, as the samples), one
file per altair and vl-convert version, so that a class's kernel loads it in milliseconds.

    >>> save_chart(scores_chart(df), "table9.png")          # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import altair as alt

from workbench.data.samples import cache_folder
from workbench.validation import FilePath, Instance, Interval, validate

__all__ = ["FORMATS", "ImagePath", "save_chart", "enable_offline", "vega_bundle_path"]

FORMATS = ("png", "svg", "pdf")


def _kind(path: Any) -> str:
    """The format a file name asks for: its suffix, lower case, without the dot."""
    return Path(os.fsdecode(path)).suffix.lower().lstrip(".")


@dataclass(frozen=True)
class ImagePath(FilePath):
    """A file name ending in one of :data:`FORMATS` (any case).

    >>> ImagePath().reason("table9.PNG") is None, ImagePath().reason("table9.jpg")
    (True, 'must be a file name ending in .png, .svg or .pdf')
    """

    def __str__(self) -> str:
        return "a file name ending in " + ", ".join("." + f for f in FORMATS[:-1]) + f" or .{FORMATS[-1]}"

    def reason(self, value: Any) -> str | None:
        why = super().reason(value)
        return why if why is not None or _kind(value) in FORMATS else f"must be {self}"

    def outside(self) -> tuple:
        return (*super().outside(), "figure.jpg", "figure")


@validate(chart=Instance((alt.TopLevelMixin,), "an altair chart"), path=ImagePath(),
          scale_factor=Interval(0, 10, low_open=True))
def save_chart(chart: alt.TopLevelMixin, path: str | Path, *, scale_factor: float = 2.0) -> Path:
    """Write ``chart`` to ``path`` as PNG, SVG or PDF (chosen by the suffix), offline via vl-convert; a PNG has
    ``scale_factor`` times the chart's pixels (10 at most)."""
    path = Path(os.fsdecode(path))
    kind = _kind(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    options = {"scale_factor": scale_factor} if kind == "png" else {}
    chart.save(str(path), format=kind, **options)
    return path


_offline = False


def enable_offline() -> None:
    """Make ``alt.JupyterChart`` inline vega/vega-lite (from vl-convert) rather than import them from a CDN;
    idempotent. Call before creating a chart widget (the widgets do). The bundle altair's
    ``JupyterChart.enable_offline()`` builds is read from the cache when an earlier kernel kept it."""
    global _offline
    if _offline:
        return
    kept = vega_bundle_path()
    try:
        alt.JupyterChart._esm = kept.read_text(encoding="utf-8")
        alt.JupyterChart._is_offline = True
    except OSError:  # not kept yet (or unreadable): built, then kept if the cache folder can hold it
        alt.JupyterChart.enable_offline()
        _keep(kept, alt.JupyterChart._esm)
    _offline = True


def vega_bundle_path() -> Path:
    """Where the chart widget's offline bundle is kept: one file per altair and vl-convert version."""
    versions = f"altair-{alt.__version__}-vl-convert-{version('vl-convert-python')}"
    return cache_folder() / "vega" / f"jupyterchart-{versions}.js"


def _keep(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole (a temporary file renamed into place), or not at all (a cache that
    cannot be written only costs the next kernel the bundling)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, part = tempfile.mkstemp(dir=path.parent, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as sink:
            sink.write(text)
        os.replace(part, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(part)
