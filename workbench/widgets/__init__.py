"""Jupyter widgets (ipywidgets 8): edit organizations and watch R≺ R∼ S≺ S∼ move; compare campaigns.

Names load on first use: ``workbench.widgets.state`` (the workbench without widgets) imports neither
ipywidgets nor altair; the widgets need the ``lab`` extra (``pip install "ir-workbench[lab]"``), and without it
importing one raises :class:`~workbench.extras.MissingExtraError` saying so.
"""

from workbench.lazy import DEFERRED, defer_module, lazy_exports

for _module, _functions in DEFERRED.items():  # before altair imports jsonschema: seconds saved (workbench.lazy)
    defer_module(_module, _functions)

_EXPORTS = {
    "Comparison": "workbench.widgets.comparison",
    "Inspector": "workbench.widgets.inspector",
    "InspectorState": "workbench.widgets.inspector_state",
    "OrganizationEditor": "workbench.widgets.editor",
    "Workbench": "workbench.widgets.workbench",
    "WorkbenchState": "workbench.widgets.state",
    "DocumentNotInOutputError": "workbench.widgets.errors",
    "InvalidEditError": "workbench.widgets.errors",
    "MeasureNotScoredError": "workbench.widgets.errors",
    "QuizError": "workbench.widgets.errors",
    "SelectionError": "workbench.widgets.errors",
    "UnknownOutputError": "workbench.widgets.errors",
    "WeightsError": "workbench.widgets.errors",
    "WorkbenchFormatError": "workbench.widgets.errors",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, extra="lab")
