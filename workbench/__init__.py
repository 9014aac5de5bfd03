"""workbench: evaluate ranking, filtering, clustering and document organization in Jupyter."""

from workbench.metrics.registry import Measure, UnknownMeasureError, evaluate, measures
from workbench.metrics.registry import parse as parse_measure
from workbench.model import Organization, OrganizationError

__all__ = [
    "Measure",
    "Organization",
    "OrganizationError",
    "UnknownMeasureError",
    "evaluate",
    "measures",
    "parse_measure",
]
__version__ = "0.1.0"
