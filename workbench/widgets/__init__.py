"""Jupyter widgets (ipywidgets 8): edit organizations and watch R≺ R∼ S≺ S∼ move; compare campaigns."""

from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.workbench import Workbench, WorkbenchFormatError

__all__ = ["OrganizationEditor", "Workbench", "WorkbenchFormatError"]
