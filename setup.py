"""What goes into the wheel: every ``workbench*`` package, ``py.typed`` (PEP 561: the package's annotations are
for type checkers), the widgets' front-end files (ES modules and style sheets beside their Python modules), the
manifest of the public samples and the small reference tables shipped with them, and the papers' worked examples.

The examples are edited in one place, the top-level ``datasets/`` folder; the build maps that folder into the
wheel as the package data ``workbench/examples/`` (no copy is kept in the source tree), where
:func:`workbench.datasets.folder` finds them in an install without the repository. The rest of the
configuration is in ``pyproject.toml``.
"""

from setuptools import find_namespace_packages, setup

# The folders of shipped tables (workbench/data/references/...) hold no module: declared as the namespace packages
# they are, so that setuptools ships their files without warning that it "would ignore" them.
setup(
    packages=[*find_namespace_packages(include=["workbench", "workbench.*"], exclude=["*.__pycache__"]),
              "workbench.examples"],
    package_dir={"workbench.examples": "datasets"},
    package_data={"workbench": ["py.typed"], "workbench.examples": ["*.org", "*.csv", "*.md"],
                  "workbench.widgets": ["*.js", "*.css"],
                  "workbench.data": ["*.tsv", "references/*.md", "references/*/*.eval", "references/*/*/*.eval",
                                     "references/*/*.txt", "references/*/*/*.gz",
                                     "references/*_excerpt/*", "references/*_excerpt/*/*"]},
)
