"""Pure metric kernels, one module per task, all reachable by name through :mod:`workbench.metrics.registry`."""

from workbench.metrics import registry


def _load_measures() -> None:
    """Import every module that registers measures: the registry calls this before its first look-up by name."""
    from workbench.metrics import baselines, clustering, filtering, ranking, reliability  # noqa: F401


registry.set_loader(_load_measures)

from workbench.metrics.registry import Measure, UnknownMeasureError, evaluate, measures, parse  # noqa: E402

__all__ = ["Measure", "UnknownMeasureError", "evaluate", "measures", "parse"]
