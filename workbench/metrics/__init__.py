"""Pure metric kernels, one module per task, all reachable by name through :mod:`workbench.metrics.registry`."""

from workbench.metrics.registry import Measure, UnknownMeasureError, evaluate, measures, parse

__all__ = ["Measure", "UnknownMeasureError", "evaluate", "measures", "parse"]
