"""The critical-difference diagram and the sign plot drawn by vega in Debian's chromium through Playwright: each
chart saved as a self-contained HTML page (vega inlined by vl-convert, the SVG renderer), opened from a file with
no request leaving the machine, and read back from the drawn SVG: every system named with its mean rank on
Demšar's axis (1 the best), the critical difference of Nemenyi's test as printed in ``q_α √(k(k+1)/(6n))``, the
group bars, and one sign-plot cell per ordered pair. Screenshots land in ``test-output/browser/``. Skips (with the
reason) where chromium or playwright is absent; CI fails there without them (``tests/conftest.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tests.conftest import CHROME_ARGS, CHROMIUM, OUTPUT, reference_module
from workbench.analysis import friedman
from workbench.analysis.posthoc_family import posthoc
from workbench.charts.posthoc import critical_difference_chart, sign_plot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

K, N = 6, 20


def campaign() -> pd.DataFrame:
    scores = np.random.default_rng(3).random((K, N)) + np.arange(K)[:, None] * 0.08
    return pd.DataFrame([(f"sys{i}", t, "AP", v) for i, row in enumerate(scores) for t, v in enumerate(row)],
                        columns=["system", "topic", "measure", "value"])


def drawn(chart, name: str, tmp_path) -> tuple[list[str], int, list[str]]:
    """The texts and the number of ``rect`` marks vega drew for ``chart`` in chromium, and the requests that
    left the file."""
    sync_api = reference_module("playwright.sync_api")
    page_file = tmp_path / f"{name}.html"
    chart.save(str(page_file), format="html", inline=True, embed_options={"renderer": "svg", "actions": False})
    OUTPUT.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS,
                                             timeout=60_000)
        try:
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.on("request", lambda r: None if r.url.startswith(("file:", "data:", "blob:"))
                    else outside.append(r.url))
            page.goto(page_file.as_uri(), timeout=60_000)
            page.wait_for_selector(".vega-embed svg text", timeout=60_000)
            page.screenshot(path=str(OUTPUT / f"{name}.png"))
            texts = page.locator(".vega-embed svg text").evaluate_all("nodes => nodes.map(n => n.textContent)")
            cells = page.locator(".vega-embed svg g.mark-rect path").count()
        finally:
            browser.close()
    return [t.strip() for t in texts], cells, outside


def test_the_critical_difference_diagram_is_drawn(tmp_path):
    pairs = friedman(campaign(), "AP")
    texts, _, outside = drawn(critical_difference_chart(pairs, title="Friedman + Nemenyi on AP"), "cd-diagram",
                              tmp_path)
    assert outside == []
    for system, rank in pairs.attrs["mean_ranks"].items():
        assert any(system in t and f"{K + 1 - rank:.2f}" in t for t in texts), (system, texts)
    cd = stats.studentized_range.ppf(0.95, K, np.inf) / np.sqrt(2) * np.sqrt(K * (K + 1) / (6 * N))
    assert f"CD = {cd:.2f}" in texts and f"{cd:.2f}" == "1.69"  # Demšar's Table 5: q_0.05 = 2.850 for k = 6
    assert [str(r) for r in range(1, K + 1)] == [t for t in texts if t.isdigit()]


def test_the_sign_plot_is_drawn(tmp_path):
    pairs = posthoc(campaign(), "AP", "dunn")
    texts, cells, outside = drawn(sign_plot(pairs, title="Dunn on AP"), "sign-plot", tmp_path)
    assert outside == []
    assert cells == K * (K - 1)
    assert {"p < 0.001", "not significant"} <= set(texts)
