"""Jupyter widgets (ipywidgets 8): edit organizations and watch R≺ R∼ S≺ S∼ move; compare campaigns."""

from workbench.widgets.comparison import Comparison
from workbench.widgets.editor import OrganizationEditor
from workbench.widgets.workbench import (
    DocumentNotInOutputError,
    InvalidEditError,
    SelectionError,
    UnknownOutputError,
    Workbench,
    WorkbenchFormatError,
)

__all__ = ["Comparison", "DocumentNotInOutputError", "InvalidEditError", "OrganizationEditor", "SelectionError",
           "UnknownOutputError", "Workbench", "WorkbenchFormatError"]
