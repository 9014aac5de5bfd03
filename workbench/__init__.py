"""workbench: evaluate ranking, filtering, clustering and document organization in Jupyter.

    >>> import workbench
    >>> gold = workbench.Organization.parse("d1 {d2 d3}\\n{d4 d5}")
    >>> workbench.reliability_sensitivity(gold, gold, n=10, wn=0.8).r_relatedness
    1.0

Names and subpackages load on first use, so ``import workbench`` stays light (no pandas, ipywidgets or
altair until a name needs them). Three doors: :func:`evaluate` and :func:`explain` for one gold and one output,
:func:`read_campaign` and :class:`Campaign` for many systems and topics, and the commands of ``python -m workbench``
(``eval``, ``compare``, ``trec_eval``); the other names are the data model, the errors and
:func:`reliability_sensitivity`, the papers' record of one pair (docs/api.md). Every error is a
:class:`WorkbenchError` of one of five families (:func:`workbench.errors.families`)::

    >>> workbench.analysis.uir.__name__
    'uir'
"""

from workbench._version import __version__ as __version__  # the one place it is written
from workbench.lazy import lazy_exports

_EXPORTS = {
    "Campaign": "workbench.data.campaign",
    "read_campaign": "workbench.data.read",
    "ExplainError": "workbench.metrics.explain",
    "Explanation": "workbench.metrics.explain",
    "MeasureExplanation": "workbench.metrics.explanations.core",
    "explain": "workbench.data.one_pair",
    "Measure": "workbench.metrics.registry",
    "UnknownMeasureError": "workbench.metrics.registry",
    "evaluate": "workbench.data.one_pair",
    "measures": "workbench.metrics.registry",
    "parse_measure": "workbench.metrics.registry:parse",
    "RSScores": "workbench.metrics.reliability",
    "reliability_sensitivity": "workbench.metrics.reliability",
    "Organization": "workbench.model",
    "OrganizationError": "workbench.model",
    "ParameterError": "workbench.errors",
    "InputError": "workbench.errors",
    "CampaignError": "workbench.errors",
    "OutputError": "workbench.errors",
    "MissingExtraError": "workbench.errors",
    "WorkbenchError": "workbench.errors",
    "WorkbenchWarning": "workbench.errors",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, ("analysis", "charts", "data", "datasets", "fusion",
                                                                "metrics", "widgets"))

