"""Jupyter widgets (ipywidgets 8): edit organizations and watch R≺ R∼ S≺ S∼ move; compare campaigns.

Names load on first use: ``workbench.widgets.state`` (the workbench without widgets) imports neither
ipywidgets nor altair.
"""

from workbench.lazy import lazy_exports

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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
