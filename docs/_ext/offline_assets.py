"""The notebook pages' scripts served from the site, so that it works from ``file://`` with no network (issue 41).

myst-nb points a page with widgets at require.js on a CDN, and altair's HTML output loads vega, vega-lite and
vega-embed from jsDelivr (through require.js when the page has it, by ``<script>`` tags otherwise). At build time
this extension writes into the site's ``_static/offline/``, from installed packages only:

* ``require.min.js``, Voilà's copy (``share/jupyter/voila/templates/base/static``), which myst-nb's
  ``nb_ipywidgets_js`` then names instead of the CDN's;
* ``vega-offline.js``, vl-convert's bundle of vega, vega-lite and vega-embed (``vl_convert.javascript_bundle``, the
  one altair inlines in ``chart.save(..., inline=True)``), followed by the two doors altair's output looks through
  before it fetches anything: the AMD modules ``vega``, ``vega-lite``, ``vega-embed`` defined for require.js, and
  ``VEGA_DEBUG``'s ``<lib>_version`` marks of the versions altair asks for (its ``maybeLoadScript`` then loads
  nothing). A page gets it when its body holds altair's output.

The Jupyter widget manager (``@jupyter-widgets/html-manager``'s ``embed-amd.js``) ships in no Python package: it
stays on its CDN, so widgets need the network; charts do not. Where it cannot load, ``widgets-offline.js`` (on the
pages with widgets, before the manager) puts one short line in place of each widget instead of an empty box.

Example (``docs/conf.py``)::

    sys.path.insert(0, str(DOCS / "_ext"))
    extensions = ["myst_nb", "offline_assets"]
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

__all__ = ["OFFLINE_NOTE", "REQUIRE_CDN", "setup"]

REQUIRE_CDN = "https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js"  # myst-nb's default
FOLDER = "offline"
REQUIRE = f"{FOLDER}/require.min.js"
VEGA = f"{FOLDER}/vega-offline.js"
WIDGETS = f"{FOLDER}/widgets-offline.js"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"  # myst-nb's script holding a widget's place
OFFLINE_NOTE = ("An interactive view: the Jupyter widget manager, which comes from the network, could not load. "
                "Run the notebook (./wb lab) to use it.")
ALTAIR_MARK = "https://cdn.jsdelivr.net/npm/vega-embed@"  # in every chart altair renders as HTML


def _require_js() -> Path:
    """Voilà's require.js (the docs extra installs Voilà with the lab extra)."""
    from jupyter_core.paths import jupyter_path

    for folder in jupyter_path("voila", "templates", "base", "static"):
        if (Path(folder) / "require.min.js").is_file():
            return Path(folder) / "require.min.js"
    from sphinx.errors import ExtensionError

    raise ExtensionError("offline_assets: require.min.js not found in Voilà's static folder "
                         f"({', '.join(jupyter_path('voila', 'templates', 'base', 'static'))}); install the docs "
                         "extra (./wb docs does)")


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


def _widgets_js() -> str:
    """A note in place of each widget when the widget manager's script fails to load (a capturing listener:
    a script's load error does not bubble)."""
    return "\n".join([
        "window.addEventListener(\"error\", (event) => {",
        '  if (!(event.target instanceof HTMLScriptElement) || !event.target.src.includes("html-manager")) return;',
        "  const note = () => document.querySelectorAll(" + json.dumps(f'script[type="{WIDGET_VIEW}"]') + ")",
        "    .forEach((view) => {",
        '      const line = document.createElement("p");',
        '      line.className = "widgets-offline";',
        f"      line.textContent = {json.dumps(OFFLINE_NOTE)};",
        "      view.replaceWith(line);",
        "    });",
        '  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", note);',
        "  else note();",
        "}, true);",
        "",
    ])


def _local_require(app, config) -> None:
    """myst-nb's widget scripts with require.js from the site (the widget manager's entry kept: see above)."""
    config.nb_ipywidgets_js = {(REQUIRE if url == REQUIRE_CDN else url): attributes
                               for url, attributes in config.nb_ipywidgets_js.items()}


def _write(app) -> None:
    if app.builder.format != "html":
        return
    folder = Path(app.outdir) / "_static" / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_require_js(), folder / "require.min.js")
    for name, text in ((VEGA, _vega_js()), (WIDGETS, _widgets_js())):
        target = folder.parent / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def _per_page(app, pagename, templatename, context, doctree) -> None:
    """vega on the pages that draw a chart, after require.js (myst-nb's scripts have the default priority 500);
    the widgets' note on the pages with widgets, before the widget manager."""
    body = context.get("body", "")
    if ALTAIR_MARK in body:
        app.add_js_file(VEGA, priority=800)
    if WIDGET_VIEW in body:
        app.add_js_file(WIDGETS, priority=400)


def setup(app) -> dict:
    app.connect("config-inited", _local_require, priority=100)  # before myst-nb reads its configuration
    app.connect("builder-inited", _write)
    app.connect("html-page-context", _per_page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
