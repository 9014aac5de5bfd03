"""Sphinx configuration of the workbench's documentation (``./wb docs`` builds it offline into docs/_build/html).

Before the build, the measure catalogue is written from the measures' declarations (:mod:`workbench.catalogue`,
into ``docs/measures/``) and the notebooks are copied in (``docs/notebooks/``), to be executed and rendered with
their outputs (myst-nb); both folders are generated, never edited.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

from workbench import __version__  # noqa: E402

# The notebooks fetch the public samples (workbench.datasets.fetch); the project's machines hold a copy beside the
# clone, which serves as the mirror, as it does for the tests (a user's build downloads them once).
if (ROOT.parent / "shared" / "datasets").is_dir():
    os.environ.setdefault("WORKBENCH_DATA_MIRROR", str(ROOT.parent / "shared" / "datasets"))

project = "workbench"
author = "the workbench's authors"
copyright = "2026, the workbench's authors"  # noqa: A001 (Sphinx's name)
release = version = __version__

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.viewcode"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]  # a catalogue page steps from its title to a measure's second-level heading

nb_execution_mode = "cache"  # each notebook runs once, until it changes
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_show_tb = True

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_typehints = "description"

html_theme = "pydata_sphinx_theme"
html_title = f"workbench {version}"
html_theme_options = {"navigation_with_keys": True, "show_toc_level": 2}


def _generated(app) -> None:
    """The catalogue from the declarations, and the notebooks beside the pages they link to (a notebook's link
    ``../docs/page.md``, right in the repository, is ``../page.md`` in the site)."""
    from workbench.catalogue import write

    write(DOCS / "measures")
    notebooks = DOCS / "notebooks"
    notebooks.mkdir(exist_ok=True)
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        target = notebooks / notebook.name
        text = notebook.read_text(encoding="utf-8").replace("](../docs/", "](../")
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def setup(app) -> None:
    app.connect("builder-inited", _generated)
