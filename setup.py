"""What goes into the wheel: every ``workbench*`` package, ``py.typed`` (PEP 561: the package's annotations are
for type checkers), the widgets' front-end files (ES modules and style sheets beside their Python modules), the
manifest of the public samples and the small reference tables shipped with them, and the papers' worked examples.

The examples are edited in one place, the top-level ``datasets/`` folder; the build maps that folder into the
wheel as the package data ``workbench/examples/`` (no copy is kept in the source tree), where
:func:`workbench.datasets.folder` finds them in an install without the repository. The rest of the
configuration is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["workbench", "workbench.*"]), "workbench.examples"],
    package_dir={"workbench.examples": "datasets"},
    package_data={"workbench": ["py.typed"], "workbench.examples": ["*.org", "*.csv", "*.md"],
                  "workbench.widgets": ["*.js", "*.css"],
                  "workbench.data": ["*.tsv", "references/*.md", "references/*/*.eval", "references/*/*/*.eval"]},
)
