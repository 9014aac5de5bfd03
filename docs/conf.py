"""Sphinx configuration of the workbench's documentation (``./wb docs`` builds it into docs/_build/html, a site
that works from ``file://`` with no network; the first build downloads the widget manager and MathJax from the
npm registry, once: ``offline_assets``).

Before the build, the measure catalogue is written from the measures' declarations (:mod:`workbench.catalogue`,
into ``docs/measures/``) and the notebooks are copied in (``docs/notebooks/``), to be executed and rendered with
their outputs (myst-nb); both folders are generated, never edited.
"""

from __future__ import annotations

import html
import os
import re
import sys
import urllib.parse
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))  # offline_assets: the notebook pages' scripts served from the site

from workbench import __version__  # noqa: E402

# The notebooks fetch the public samples (workbench.datasets.fetch); the project's machines hold a copy beside the
# clone, which serves as the mirror, as it does for the tests (a user's build downloads them once).
if (ROOT.parent / "shared" / "datasets").is_dir():
    os.environ.setdefault("WORKBENCH_DATA_MIRROR", str(ROOT.parent / "shared" / "datasets"))

project = "workbench"
author = "the workbench's authors"
copyright = "2026, the workbench's authors"  # noqa: A001 (Sphinx's name)
release = version = __version__

extensions = ["myst_nb", "offline_assets", "sphinx.ext.autodoc", "sphinx.ext.viewcode"]
source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "jupyter_execute", "**.ipynb_checkpoints"]
offline_assets_cache = str(DOCS / "_build" / ".offline_cache")  # the widget manager's npm tarball, kept
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


_ID = re.compile(r'\bid="([^"]+)"')
_LINK = re.compile(r'\b(?:href|src)="([^"]*)"')
_BACK = re.compile(r'class="viewcode-back" href="([^"#]*)#([^"]+)"')


def _ids(page: Path, cache: dict[Path, set[str]]) -> set[str]:
    if page not in cache:
        cache[page] = set(_ID.findall(page.read_text(encoding="utf-8"))) if page.is_file() else set()
    return cache[page]


def _mend_backlinks(site: Path, cache: dict[Path, set[str]]) -> None:
    """viewcode links each object of a source page back to its entry under the name of the first module that
    documented that source file (Sphinx keeps one per file), so an object re-exported elsewhere (``workbench.X``,
    ``workbench.metrics.registry.Choices``) gets an anchor its page does not have: point it at the page's own id
    for that object, the one nearest the source module's name."""
    for source in (site / "_modules").rglob("*.html"):
        module = source.relative_to(site / "_modules").with_suffix("").as_posix().replace("/", ".")
        text = source.read_text(encoding="utf-8")

        def mend(match: re.Match, source: Path = source, module: str = module) -> str:
            page = (source.parent / html.unescape(match.group(1)).split("?")[0]).resolve()
            anchor, ids = match.group(2), _ids(page, cache)
            if anchor in ids:
                return match.group(0)
            name = anchor.rsplit(".", 1)[-1] if "." in anchor else anchor
            tail = anchor.split(".", 1)[-1]
            found = [i for i in ids if i.endswith("." + tail) or i.endswith("." + name)]
            found.sort(key=lambda i: (not i.endswith("." + tail), -len(os.path.commonprefix([i, module]))))
            return f'class="viewcode-back" href="{match.group(1)}#{found[0]}"' if found else match.group(0)

        mended = _BACK.sub(mend, text)
        if mended != text:
            source.write_text(mended, encoding="utf-8")


def _check_links(app, exception) -> None:
    """The link check of the build: every link and anchor inside the site resolves (its theme's template sources
    under ``_static/`` aside), and none points at a file path (``file:``); each broken one is a warning, an error
    under ``-W`` (``./wb docs``, CI)."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    site, cache = Path(app.outdir), {}
    _mend_backlinks(site, cache)
    broken = []
    for page in sorted(site.rglob("*.html")):
        if page.relative_to(site).parts[0] == "_static":
            continue
        for link in _LINK.findall(page.read_text(encoding="utf-8")):
            link = html.unescape(link)
            if re.match(r"[a-z][a-z0-9+.-]*:", link) and not link.startswith("file:"):
                continue  # http(s), mailto, data: outside the site
            path, _, anchor = link.partition("#")
            target = (page.parent / urllib.parse.unquote(path.split("?")[0])).resolve() if path else page
            if link.startswith("file:") or not target.exists() or (
                    anchor and target.suffix == ".html" and urllib.parse.unquote(anchor) not in _ids(target, cache)):
                broken.append(f"{page.relative_to(site)}: {link}")
    for line in broken:
        logging.getLogger(__name__).warning(f"broken link {line}")


def setup(app) -> None:
    app.connect("builder-inited", _generated)
    app.connect("build-finished", _check_links)
