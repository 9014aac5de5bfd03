"""The pages' scripts served from the site, so that it works from ``file://`` with no network (issue 41).

myst-nb points a page with widgets at require.js and the Jupyter widget manager on CDNs, the widget manager loads a
widget's module from a CDN unless require.js knows it, and altair's HTML output loads vega, vega-lite and
vega-embed from jsDelivr (through require.js when the page has it, by ``<script>`` tags otherwise); Sphinx loads
MathJax from jsDelivr on the pages with math. At build time this extension writes into the site's
``_static/offline/``:

* ``require.min.js``, Voilà's copy (``share/jupyter/voila/templates/base/static``), which myst-nb's
  ``nb_ipywidgets_js`` then names instead of the CDN's;
* ``html-manager/``: the widget manager, ``embed-amd.js`` of ``@jupyter-widgets/html-manager`` (BSD-3-Clause;
  it bundles ``@jupyter-widgets/base`` and ``controls``) and the icon fonts beside it, and ``mathjax/``: MathJax 3's
  ``tex-mml-chtml.js`` (Apache-2.0, its licence beside it) and its fonts, which ``mathjax_path`` then names. No
  Python package ships either: each comes from its npm tarball (:data:`NPM`), pinned by version and the registry's
  ``integrity`` (sha512), downloaded once into ``offline_assets_cache`` (``docs/_build/.offline_cache``) and
  checked there on every build;
* ``anywidget.js``, anywidget's own AMD module for the classic notebook (``share/jupyter/nbextensions/anywidget``,
  installed with anywidget), which runs the workbench's views from the ESM their state holds;
* ``widgets-offline.js`` (this folder's; on the pages with widgets, before require.js): tells require.js where
  ``anywidget`` is and the manager where its fonts are, and puts one short line in place of a widget that could
  not be drawn (the manager failing to load, to render it or to find its module) instead of an empty box;
* ``vega-offline.js``, vl-convert's bundle of vega, vega-lite and vega-embed (``vl_convert.javascript_bundle``, the
  one altair inlines in ``chart.save(..., inline=True)``), followed by the two doors altair's output looks through
  before it fetches anything: the AMD modules ``vega``, ``vega-lite``, ``vega-embed`` defined for require.js, and
  ``VEGA_DEBUG``'s ``<lib>_version`` marks of the versions altair asks for (its ``maybeLoadScript`` then loads
  nothing). A page gets it when its body holds altair's output.

Example (``docs/conf.py``)::

    sys.path.insert(0, str(DOCS / "_ext"))
    extensions = ["myst_nb", "offline_assets"]
    offline_assets_cache = str(DOCS / "_build" / ".offline_cache")
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import shutil
import tarfile
import urllib.request
from pathlib import Path
from typing import NoReturn

__all__ = ["NPM", "REQUIRE_CDN", "setup"]

REQUIRE_CDN = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js"  # myst-nb's default
MANAGER_CDN = "/@jupyter-widgets/html-manager@"  # in myst-nb's default URL of the widget manager
NPM = {  # folder of _static/offline → what ``npm view <name>@<version> dist`` gives, and the files it serves
    "html-manager": {  # ipywidgets 8.1's widget manager
        "tarball": "https://registry.npmjs.org/@jupyter-widgets/html-manager/-/html-manager-1.0.15.tgz",
        "integrity": "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        "files": r"package/dist/(embed-amd\.js|[^/]+\.woff2?)",
    },
    "mathjax": {  # MathJax 3, whose combined component holds its TeX extensions and finds its fonts beside it
        "tarball": "https://registry.npmjs.org/mathjax/-/mathjax-3.2.2.tgz",
        "integrity": "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw==",
        "files": r"package/(LICENSE)|package/es5/(tex-mml-chtml\.js|output/chtml/fonts/woff-v2/[^/]+\.woff)",
    },
}
HERE = Path(__file__).resolve().parent
FOLDER = "offline"
REQUIRE = f"{FOLDER}/require.min.js"
MANAGER = f"{FOLDER}/html-manager/embed-amd.js"
MATHJAX = f"{FOLDER}/mathjax/tex-mml-chtml.js"
MATHJAX_CDN = "https://cdn.jsdelivr.net/npm/mathjax@"  # in Sphinx's default mathjax_path
ANYWIDGET = f"{FOLDER}/anywidget.js"
VEGA = f"{FOLDER}/vega-offline.js"
WIDGETS = f"{FOLDER}/widgets-offline.js"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # myst-nb's script holding a widget's place
ALTAIR_MARK = "https://cdn.jsdelivr.net/npm/vega-embed@"  # in every chart altair renders as HTML


def _fail(message: str) -> NoReturn:
    from sphinx.errors import ExtensionError

    raise ExtensionError(f"offline_assets: {message}")


def _installed(*parts: str) -> Path:
    """A file of a Jupyter data folder (``share/jupyter/...``), where the docs extra's packages install it."""
    from jupyter_core.paths import jupyter_path

    folders = jupyter_path(*parts[:-1])
    for folder in folders:
        if (Path(folder) / parts[-1]).is_file():
            return Path(folder) / parts[-1]
    _fail(f"{parts[-1]} not found in {'/'.join(parts[:-1])} ({', '.join(folders)}); install the docs extra "
          "(./wb docs does)")


def _require_js() -> Path:
    """Voilà's require.js (the docs extra installs Voilà with the lab extra)."""
    return _installed("voila", "templates", "base", "static", "require.min.js")


def _anywidget_js() -> Path:
    """anywidget's AMD module (``define(["@jupyter-widgets/base"], ...)``), the one the classic notebook loads."""
    return _installed("nbextensions", "anywidget", "index.js")


def _verified(data: bytes, integrity: str, source: str) -> bytes:
    """``data`` if its sha512 is npm's ``integrity`` (``sha512-<base64>``), else a clear error."""
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    if digest != integrity:
        _fail(f"{source} is not the file pinned: its checksum is {digest}, not {integrity}")
    return data


def _tarball(cache: Path, pinned: dict[str, str]) -> bytes:
    """A pinned npm tarball, from the cache or else once from the registry, checked either way."""
    cached = cache / pinned["tarball"].rsplit("/", 1)[-1]
    if cached.is_file():
        return _verified(cached.read_bytes(), pinned["integrity"], str(cached))
    try:
        with urllib.request.urlopen(pinned["tarball"], timeout=120) as response:  # noqa: S310 (a fixed https URL)
            data = response.read()
    except OSError as error:
        _fail(f"could not download {pinned['tarball']} ({error}); the build needs the npm registry once, or the "
              f"file in {cache}")
    _verified(data, pinned["integrity"], pinned["tarball"])
    cache.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(cached)
    return data


def _unpack(tarball: bytes, files: str, folder: Path) -> None:
    """The tarball's files whose names match ``files`` (a regular expression), each at the path its group that
    matched gives under ``folder`` (written only when it changed)."""
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        for member in archive.getmembers():
            wanted = re.fullmatch(files, member.name)
            if member.isfile() and wanted:
                target = folder / wanted.group(wanted.lastindex or 0)
                data = archive.extractfile(member).read()  # type: ignore[union-attr]
                if not target.is_file() or target.read_bytes() != data:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(data)


def _vega_js() -> str:
    """vl-convert's bundle at the vega-lite version altair writes, then the AMD modules and VEGA_DEBUG's marks."""
    import altair
    import vl_convert

    vega_lite = ".".join(altair.VEGALITE_VERSION.split(".")[:2])
    marks = {"vega": altair.VEGA_VERSION, "vegalite": altair.VEGALITE_VERSION, "vegaembed": altair.VEGAEMBED_VERSION}
    return "\n".join([
        "(function () {",  # its top-level names (``_``, ...) kept from the page's scripts (underscore.js)
        vl_convert.javascript_bundle(vl_version=vega_lite),
        "})();",
        "window.VEGA_DEBUG = window.VEGA_DEBUG || {};",
        *(f'window.VEGA_DEBUG["{lib}_version"] = "{version}";' for lib, version in marks.items()),
        'if (typeof define === "function" && define.amd) {',
        '  define("vega", [], () => window.vega);',
        '  define("vega-lite", [], () => window.vegaLite);',
        '  define("vega-embed", [], () => window.vegaEmbed);',
        "}",
        "",
    ])


def _local_scripts(app, config) -> None:
    """myst-nb's widget scripts from the site: require.js and the widget manager, with no CDN's attributes (an
    ``integrity`` of the CDN's file, ``crossorigin``, which ``file://`` refuses); MathJax from the site."""
    if config.mathjax_path.startswith(MATHJAX_CDN):
        config.mathjax_path = MATHJAX
    local = {}
    for url, attributes in config.nb_ipywidgets_js.items():
        if url == REQUIRE_CDN or MANAGER_CDN in url:
            url = REQUIRE if url == REQUIRE_CDN else MANAGER
            attributes = {key: value for key, value in attributes.items() if key not in ("integrity", "crossorigin")}
        local[url] = attributes
    config.nb_ipywidgets_js = local


def _write(app) -> None:
    if app.builder.format != "html":
        return
    folder = Path(app.outdir) / "_static" / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    cache = Path(app.config.offline_assets_cache or Path(app.outdir).parent / ".offline_cache")
    for name, pinned in NPM.items():
        _unpack(_tarball(cache, pinned), pinned["files"], folder / name)
    for name, source in ((REQUIRE, _require_js()), (ANYWIDGET, _anywidget_js())):
        shutil.copyfile(source, folder.parent / name)
    for name, text in ((VEGA, _vega_js()), (WIDGETS, (HERE / Path(WIDGETS).name).read_text(encoding="utf-8"))):
        target = folder.parent / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def _per_page(app, pagename, templatename, context, doctree) -> None:
    """vega on the pages that draw a chart, after require.js (myst-nb's scripts have the default priority 500);
    the widgets' script on the pages with widgets, before require.js."""
    body = context.get("body", "")
    if ALTAIR_MARK in body:
        app.add_js_file(VEGA, priority=800)
    if WIDGET_VIEW in body:
        app.add_js_file(WIDGETS, priority=400)


def setup(app) -> dict:
    app.add_config_value("offline_assets_cache", "", "env", [str])
    app.connect("config-inited", _local_scripts, priority=100)  # before myst-nb reads its configuration
    app.connect("builder-inited", _write)
    app.connect("html-page-context", _per_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
