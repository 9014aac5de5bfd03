"""Jupyter widgets (ipywidgets 8): edit organizations and watch R≺ R∼ S≺ S∼ move; compare campaigns."""

from workbench.widgets.comparison import Comparison
from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.workbench import Workbench, WorkbenchFormatError

__all__ = ["Comparison", "OrganizationEditor", "Workbench", "WorkbenchFormatError"]
