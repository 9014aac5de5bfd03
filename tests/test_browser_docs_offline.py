"""The documentation's notebook pages work from ``file://`` with the network off (issue 41 item 7): a small site
built here with the docs' ``offline_assets`` extension (``docs/_ext``) from two notebooks holding an altair chart as
the docs build renders it, one of them with a widget's state too (so myst-nb adds require.js and the widget
manager, and altair's output takes its require.js path). Debian's chromium, driven by Playwright, opens each page
from the file with every other request blocked: vega draws the chart (an SVG), and no request but the widget
manager's (which no Python package ships: the one script left on its CDN) leaves the machine, and a line in place
of the widget says why it is not shown. The build (Sphinx,
myst-nb, vl-convert's bundle) and the browser take some CPU seconds: a browser test, outside the quick loop."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CHROME_ARGS, CHROMIUM, OUTPUT, ROOT, reference_module

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

WIDGET_MANAGER = "https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.6/dist/embed-amd.js"


def notebook(with_widget: bool) -> dict:
    """A notebook whose one cell displays an altair bar chart as a kernel does (and, if asked, an IntSlider)."""
    alt = reference_module("altair")
    pd = reference_module("pandas")
    chart = alt.Chart(pd.DataFrame({"system": ["a", "b"], "AP": [0.3, 0.5]})).mark_bar().encode(x="system", y="AP")
    with alt.renderers.enable("html"):
        bundle = chart._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    outputs = [{"output_type": "display_data", "metadata": {}, "data": {"text/html": bundle["text/html"]}}]
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    if with_widget:
        model = {"model_name": "IntSliderModel", "model_module": "@jupyter-widgets/controls",
                 "model_module_version": "2.0.0", "state": {"value": 3, "max": 10}}
        metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
            "version_major": 2, "version_minor": 0, "state": {"slider": model}}}
        outputs.append({"output_type": "display_data", "metadata": {}, "data": {
            "text/plain": "IntSlider(value=3)",
            "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0,
                                                         "model_id": "slider"}}})
    cells = [{"id": "title", "cell_type": "markdown", "metadata": {}, "source": "# A chart"},
             {"id": "chart", "cell_type": "code", "metadata": {}, "execution_count": 1, "source": "chart",
              "outputs": outputs}]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The small site: index, a chart page and a chart-and-widget page, built with the docs' extension."""
    application = reference_module("sphinx.application")
    reference_module("myst_nb")
    source = tmp_path_factory.mktemp("docs")
    (source / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT / 'docs' / '_ext')!r})\n"
        'extensions = ["myst_nb", "offline_assets"]\n'
        'nb_execution_mode = "off"\n'
        'html_theme = "basic"\n', encoding="utf-8")
    (source / "index.md").write_text("# Site\n\n```{toctree}\nchart\nwidget\n```\n", encoding="utf-8")
    (source / "chart.ipynb").write_text(json.dumps(notebook(with_widget=False)), encoding="utf-8")
    (source / "widget.ipynb").write_text(json.dumps(notebook(with_widget=True)), encoding="utf-8")
    out = source / "_build" / "html"
    app = application.Sphinx(str(source), str(source), str(out), str(source / "_build" / "doctrees"), "html",
                             status=None, warning=None, freshenv=True, warningiserror=True)
    app.build()
    return out


def opened(page_file, name: str) -> tuple[int, list[str], list[str]]:
    """The number of SVGs vega drew on the page opened from its file, with every request off the file blocked,
    the requests that tried to leave, and the notes shown in place of widgets."""
    sync_api = reference_module("playwright.sync_api")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []

    def route(request_route):
        if request_route.request.url.startswith(("file:", "data:", "blob:")):
            request_route.continue_()
        else:
            outside.append(request_route.request.url)
            request_route.abort()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS,
                                             timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.route("**/*", route)
            page.goto(page_file.as_uri(), timeout=60_000)
            page.wait_for_selector(".vega-embed svg, .vega-embed canvas", timeout=30_000)
            page.screenshot(path=str(OUTPUT / f"docs-offline-{name}.png"))
            drawn = page.locator(".vega-embed svg.marks, .vega-embed canvas.marks").count()
            notes = page.locator("p.widgets-offline").all_inner_texts()
        finally:
            browser.close()
    return drawn, outside, notes


def test_a_chart_page_draws_from_file_with_no_request_leaving(site):
    drawn, outside, notes = opened(site / "chart.html", "chart")
    assert (drawn, outside, notes) == (1, [], [])
    html = (site / "chart.html").read_text(encoding="utf-8")
    assert '_static/offline/vega-offline.js' in html


def test_a_widget_page_draws_its_chart_through_the_local_require_js(site):
    html = (site / "widget.html").read_text(encoding="utf-8")
    assert "_static/offline/require.min.js" in html and "cdnjs.cloudflare.com" not in html
    drawn, outside, notes = opened(site / "widget.html", "widget")
    assert (drawn, outside) == (1, [WIDGET_MANAGER])
    assert notes == ["An interactive view: the Jupyter widget manager, which comes from the network, could not "
                     "load. Run the notebook (./wb lab) to use it."]  # in place of the slider's empty box
