"""The documentation's notebook pages work from ``file://`` with the network off (issue 41 item 7). Debian's
chromium, driven by Playwright, opens each page from its file with every request off the machine blocked:

* a small site built here with the docs' ``offline_assets`` extension (``docs/_ext``) from three notebooks: an
  altair chart as the docs build renders it; the chart and the real :class:`~workbench.widgets.Workbench`
  (ipywidgets' controls and the workbench's anywidget views, its whole state embedded as ipywidgets' ``embed_data``
  writes it); and a widget whose module no one serves. Vega draws the charts, the widget manager draws the
  workbench with Table 9's scores (Amigó et al., SIGIR 2013), and the widget whose module cannot be loaded gets a line
  saying so above the manager's error, never an empty box;
* the site ``./wb docs`` built (``docs/_build/html``; CI builds it before the tests): each of its notebook pages
  and pages with math draws every widget (a non-zero box), every chart and every formula, and nothing leaves the
  machine; no page of it loads a script, image, frame or style sheet from the network.

The builds (Sphinx, myst-nb, vl-convert's bundle, the widget manager from the cache the docs build fills) and the
browser take some CPU seconds: browser tests, outside the quick loop."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import CHROME_ARGS, CHROMIUM, OUTPUT, ROOT, missing_reference, reference_module

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

SITE = ROOT / "docs" / "_build" / "html"  # ./wb docs
CACHE = ROOT / "docs" / "_build" / ".offline_cache"  # the widget manager's tarball, shared with ./wb docs
VIEW = "application/vnd.jupyter.widget-view+json"
NOTE = "An interactive view that cannot be shown on this page: run the notebook (./wb lab) to use it."
NOWHERE = "https://cdn.jsdelivr.net/npm/nowhere-widgets@1.0.0/dist/index.js"  # the manager's last resort


def workbench_state() -> tuple[dict, dict]:
    """The widget state and view of a new Workbench (Table 9 of Amigó et al.), as a notebook saves them."""
    from ipywidgets.embed import embed_data

    from workbench.widgets import Workbench

    data = embed_data(views=[Workbench()], drop_defaults=False)  # all of it, as JupyterLab saves it (anywidget's
    # front end has no default for the ``_view_name`` a state without defaults leaves out)
    return data["manager_state"], data["view_specs"][0]


def notebook(*, chart: bool = True, workbench: bool = False, nowhere: bool = False) -> dict:
    """A notebook whose one cell displays an altair bar chart as a kernel does, and, if asked, the workbench or a
    widget of a module no one serves."""
    outputs, state = [], {"version_major": 2, "version_minor": 0, "state": {}}
    if chart:
        alt = reference_module("altair")
        pd = reference_module("pandas")
        bars = alt.Chart(pd.DataFrame({"system": ["a", "b"], "AP": [0.3, 0.5]})).mark_bar().encode(x="system", y="AP")
        with alt.renderers.enable("html"):
            bundle = bars._repr_mimebundle_()
        bundle = bundle[0] if isinstance(bundle, tuple) else bundle
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {"text/html": bundle["text/html"]}})
    views = []
    if workbench:
        state, view = workbench_state()
        views.append(view)
    if nowhere:
        state["state"]["nowhere"] = {"model_name": "NothingModel", "model_module": "nowhere-widgets",
                                     "model_module_version": "1.0.0", "state": {}}
        views.append({"version_major": 2, "version_minor": 0, "model_id": "nowhere"})
    outputs += [{"output_type": "display_data", "metadata": {}, "data": {"text/plain": "a widget", VIEW: view}}
                for view in views]
    metadata: dict = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    if views:
        metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": state}
    cells = [{"id": "title", "cell_type": "markdown", "metadata": {}, "source": "# A page"},
             {"id": "cell", "cell_type": "code", "metadata": {}, "execution_count": 1, "source": "shown",
              "outputs": outputs}]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The small site: index, a chart page, a chart-and-workbench page and a page with a widget from nowhere."""
    application = reference_module("sphinx.application")
    reference_module("myst_nb")
    source = tmp_path_factory.mktemp("docs")
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'docs' / '_ext')!r})\n"
        'extensions = ["myst_nb", "offline_assets"]\n'
        f"offline_assets_cache = {str(CACHE)!r}\n"
        'nb_execution_mode = "off"\n'
        'html_theme = "basic"\n', encoding="utf-8")
    (source / "index.md").write_text("# Site\n\n```{toctree}\nchart\nwidget\nnowhere\nmath\n```\n", encoding="utf-8")
    (source / "math.md").write_text("# Math\n\n```{math}\n\\text{AP} = \\frac{1}{R} \\sum_{r} P@r\n```\n",
                                    encoding="utf-8")
    for name, cells in {"chart": notebook(), "widget": notebook(workbench=True),
                        "nowhere": notebook(chart=False, nowhere=True)}.items():
        (source / f"{name}.ipynb").write_text(json.dumps(cells), encoding="utf-8")
    out = source / "_build" / "html"
    try:
        application.Sphinx(str(source), str(source), str(out), str(source / "_build" / "doctrees"), "html",
                           status=None, warning=None, freshenv=True, warningiserror=True).build()
    except Exception as error:  # noqa: BLE001 (Sphinx wraps what an extension raises)
        if "could not download" not in f"{error} {getattr(error, 'orig_exc', '')}":
            raise
        missing_reference(f"the widget manager and MathJax are not in {CACHE} and the npm registry is out of reach "
                          f"({error})")
    return out


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:  # before Playwright looks for its own download (module fixtures come before the autouse skip)
        missing_reference("no chromium on PATH (apt-get install chromium)")
    sync_api = reference_module("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS,
                                              timeout=60_000)
        try:
            yield chromium
        finally:
            chromium.close()


SHOWN = """() => {
  if (document.querySelector(".math") && !document.querySelector("mjx-container")) return false;
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const shown = document.querySelectorAll(".widget-subarea, p.widgets-offline").length;
  const charts = document.querySelectorAll('[id^="altair-viz-"]');
  return shown >= views && Array.from(charts).every((chart) => chart.querySelector("svg.marks, canvas.marks"));
}"""
BOXES = """() => Array.from(document.querySelectorAll(".widget-subarea")).map((area) => {
  const box = area.getBoundingClientRect();
  return [box.width, box.height, area.innerText];
})"""


def opened(browser, page_file, name: str, lost: str = "") -> dict:
    """What the page opened from its file shows once every widget and chart is drawn (or noted), with every
    request off the file blocked: the charts vega drew, each widget's box (width, height, text), the notes in
    place of widgets, the requests that tried to leave and the site's files asked for but absent (``lost``, a
    file of the site, made absent)."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []

    def route(request_route):
        if lost and request_route.request.url.split("?")[0].endswith(lost):
            request_route.abort("failed")
        elif request_route.request.url.startswith(("file:", "data:", "blob:")):
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    page = browser.new_page(viewport={"width": 1024, "height": 768})
    missing: list[str] = []
    page.on("requestfailed", lambda request: missing.append(request.url) if request.url.startswith("file:") else None)
    try:
        page.route("**/*", route)
        page.goto(page_file.as_uri(), timeout=60_000)
        page.wait_for_function(SHOWN, timeout=60_000)
        page.screenshot(path=str(OUTPUT / f"docs-offline-{name}.png"))
        math = page.locator("mjx-container")
        return {"charts": page.locator('[id^="altair-viz-"] :is(svg, canvas).marks').count(),
                "math": [box["height"] for box in (math.nth(i).bounding_box() for i in range(math.count())) if box],
                "widgets": page.evaluate(BOXES),
                "notes": page.locator("p.widgets-offline").all_inner_texts(), "outside": outside,
                "missing": [url.split("?")[0].rsplit("/", 1)[-1] for url in missing]}
    finally:
        page.close()


def test_a_chart_page_draws_from_file_with_no_request_leaving(site, browser):
    assert opened(browser, site / "chart.html", "chart") == {"charts": 1, "math": [], "widgets": [], "notes": [],
                                                                  "outside": [], "missing": []}
    assert "_static/offline/vega-offline.js" in (site / "chart.html").read_text(encoding="utf-8")


def test_the_workbench_and_a_chart_draw_through_the_sites_require_js_and_widget_manager(site, browser):
    html = (site / "widget.html").read_text(encoding="utf-8")
    assert "_static/offline/require.min.js" in html and "_static/offline/html-manager/embed-amd.js" in html
    assert "cdnjs.cloudflare.com" not in html and "html-manager@" not in html
    shown = opened(browser, site / "widget.html", "widget")
    assert (shown["charts"], shown["notes"], shown["outside"], shown["missing"]) == (1, [], [], [])
    [(width, height, text)] = shown["widgets"]
    assert width > 500 and height > 300
    assert SCORES["notebooks/workbench.html"] in text  # in the workbench's scores table (an anywidget view)


def test_a_widget_that_cannot_be_drawn_says_so_instead_of_an_empty_box(site, browser):
    shown = opened(browser, site / "nowhere.html", "nowhere")
    assert (shown["charts"], shown["outside"]) == (0, [NOWHERE])
    # looked for on the site first (then on the CDN); the error's icon font found beside the manager
    assert shown["missing"] == ["nowhere-widgets.js"]
    assert shown["notes"] == [NOTE]
    [(width, height, text)] = shown["widgets"]  # the manager's error widget, explained above it
    assert height > 0 and [line for line in text.splitlines() if line] == [NOTE, "Click to show javascript error."]


def test_widgets_say_so_when_the_widget_manager_cannot_load(site, browser):
    shown = opened(browser, site / "widget.html", "widget-lost", lost="/html-manager/embed-amd.js")
    assert (shown["charts"], shown["widgets"], shown["outside"]) == (1, [], [])
    assert (shown["notes"], shown["missing"]) == ([NOTE], ["embed-amd.js"])


def test_math_is_typeset_by_the_sites_mathjax(site, browser):
    assert "_static/offline/mathjax/tex-mml-chtml.js" in (site / "math.html").read_text(encoding="utf-8")
    shown = opened(browser, site / "math.html", "math")
    assert (shown["outside"], shown["missing"]) == ([], [])  # MathJax's fonts found beside it
    [height] = shown["math"]
    assert height > 20  # a fraction, typeset


def built(page: str):
    """A page of the site ./wb docs built, or :func:`missing_reference` where it is not built."""
    if not (SITE / page).is_file():
        missing_reference(f"{SITE / page} is absent: ./wb docs builds the site (CI builds it before the tests)")
    return SITE / page


# the notebooks' pages, and the pages with math (MathJax)
PAGES = [*(f"notebooks/{path.stem}.html" for path in sorted((ROOT / "notebooks").glob("*.ipynb"))),
         *(f"{path.stem}.html" for path in sorted((ROOT / "docs").glob("*.md"))
           if "$$" in path.read_text(encoding="utf-8"))]
# Table 9 of Amigó et al. (SIGIR 2013): output 5's R≺ and S≺ (printed 0.64 and 0.59) in the workbench's scores
SCORES = {"notebooks/workbench.html": "output 5\t0.6386\t0.5897"}
LOADED = re.compile(r'<(?:script|img|iframe)\b[^>]*\bsrc="([a-z]+:[^"]*)"|<link\b[^>]*\bhref="([a-z]+:[^"]*)"')


@pytest.mark.parametrize("name", PAGES)
def test_each_page_of_the_built_site_draws_its_widgets_charts_and_math_offline(name, browser):
    page = built(name)
    shown = opened(browser, page, "site-" + Path(name).stem)
    html = page.read_text(encoding="utf-8")
    assert (shown["notes"], shown["outside"], shown["missing"]) == ([], [], [])
    assert shown["charts"] == html.count('<div id="altair-viz-')
    assert len(shown["widgets"]) == html.count(f'<script type="{VIEW}">')
    assert all(width > 0 and height > 0 for width, height, _ in shown["widgets"]), shown["widgets"]
    assert len(shown["math"]) >= html.count('class="math notranslate') and all(shown["math"])
    assert SCORES.get(name, "") in "".join(text for _, _, text in shown["widgets"])


def test_no_page_of_the_built_site_loads_anything_from_the_network():
    """Scripts, images, frames and linked style sheets of every page (its links to read elsewhere aside)."""
    built("index.html")
    loaded = {(page.relative_to(SITE).as_posix(), "".join(found)) for page in SITE.rglob("*.html")
              for found in LOADED.findall(page.read_text(encoding="utf-8"))}
    assert sorted(loaded) == []
