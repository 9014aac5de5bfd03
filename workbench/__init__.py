"""workbench: evaluate ranking, filtering, clustering and document organization in Jupyter.

    >>> import workbench
    >>> gold = workbench.Organization.parse("d1 {d2 d3}\\n{d4 d5}")
    >>> workbench.reliability_sensitivity(gold, gold, n=10, wn=0.8).r_relatedness
    1.0
"""

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
