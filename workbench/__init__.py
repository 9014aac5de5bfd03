"""workbench: evaluate ranking, filtering, clustering and document organization in Jupyter.

    >>> import workbench
    >>> gold = workbench.Organization.parse("d1 {d2 d3}\\n{d4 d5}")
    >>> workbench.reliability_sensitivity(gold, gold, n=10, wn=0.8).r_relatedness
    1.0

The subpackages load on first use, so ``import workbench`` stays light (no ipywidgets, no altair)::

    >>> workbench.analysis.uir.__name__
    'uir'
"""

import importlib

from workbench.errors import ParameterError, WorkbenchError, WorkbenchWarning
from workbench.metrics.explain import ExplainError, Explanation, explain
from workbench.metrics.registry import Measure, UnknownMeasureError, evaluate, measures
from workbench.metrics.registry import parse as parse_measure
from workbench.metrics.reliability import RSScores, reliability_sensitivity
from workbench.model import Organization, OrganizationError

__all__ = [
    "ExplainError",
    "Explanation",
    "Measure",
    "Organization",
    "OrganizationError",
    "ParameterError",
    "RSScores",
    "UnknownMeasureError",
    "WorkbenchError",
    "WorkbenchWarning",
    "evaluate",
    "explain",
    "measures",
    "parse_measure",
    "reliability_sensitivity",
]
__version__ = "0.1.0"

_SUBPACKAGES = ("analysis", "charts", "data", "datasets", "widgets")
"""Imported by :func:`__getattr__` the first time ``workbench.<name>`` is read."""


def __getattr__(name: str):
    """``wb.analysis``, ``wb.data``, ``wb.charts``, ``wb.widgets``, ``wb.datasets`` after a bare
    ``import workbench as wb`` (PEP 562): the subpackage is imported on first access."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SUBPACKAGES))
