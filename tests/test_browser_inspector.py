"""The inspector of two runs in a real browser: JupyterLab and Voilà on 127.0.0.1 (the servers of
``tests/test_browser.py``), Debian's chromium through Playwright at a projector's 1280×720, a notebook that shows
an :class:`~workbench.widgets.Inspector` on a small campaign.

On one screen, without scrolling (in JupyterLab the file browser closed and the inspector scrolled to the top, as
for a projection): the per-topic chart, both runs' top 10 and the table of the documents that make the
difference, with no text clipped or running past its box. A bar of the per-topic chart is clicked: that topic's
two rankings appear, with the scores the kernel computed (``Campaign.evaluate``, in this process, on the same
campaign); the measure is switched from its list and the numbers follow; a token is picked and marked in both
lists; a refused choice (the same system twice) is said in red while the view stays. The accessibility audit
(axe-core) finds no serious or critical violation in the inspector (in Voilà: in the whole page), as opened
and with a token picked. No request may leave the machine. Every wait has a deadline; screenshots land in
``test-output/browser/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import nbformat
import pytest

from tests.conftest import CHROME_ARGS, CHROMIUM, OUTPUT, Server, reference_module, settle

CAMPAIGN = '''
import numpy as np
import workbench as wb

rng = np.random.default_rng(19)
qrels, runs = {}, {"A": {}, "B": {}}
for t in range(8):
    ids = [f"t{t}d{i}" for i in range(30)]
    qrels[f"q{t}"] = {d: int(rng.integers(0, 3)) for d in ids[:18]}
    for system in runs:
        runs[system][f"q{t}"] = {d: float(rng.integers(0, 100)) for d in rng.permutation(ids)[:25]}
campaign = wb.Campaign.from_dicts(qrels, runs)
'''
SHOW = '''
from workbench.widgets import Inspector

inspector = Inspector(campaign, systems=("A", "B"), measure="AP", measures=["AP", "nDCG@10", "P@10"], k=10)
inspector
'''

pytestmark = [pytest.mark.browser]  # without chromium: a skip, a failure in CI (tests/conftest.py)


def kernel_values():
    namespace: dict = {}
    exec(CAMPAIGN, namespace)  # the notebook's campaign, built here by the same code
    campaign = namespace["campaign"]
    results = campaign.evaluate(["AP", "nDCG@10", "P@10"], progress=False)
    values = {(row.system, row.topic, row.measure): row.value for row in results.itertuples()}
    from workbench.analysis import topic_deltas

    return campaign, values, topic_deltas(results, "A", "B", "AP")


def notebook(tmp) -> object:
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CAMPAIGN.strip()),
                                           nbformat.v4.new_code_cell(SHOW.strip())],
                                    metadata={"kernelspec": {"display_name": "Python 3", "language": "python",
                                                             "name": "python3"}, "voila": {"template": "workbench"}})
    path = tmp / "inspector.ipynb"
    nbformat.write(book, path)
    return path


def text(page, selector: str) -> str:
    return page.locator(selector).first.inner_text().strip()


IN_VIEW = {  # what one projector screen must show at once
    "the per-topic chart": [".wb-inspector-chart svg"],
    "the difference table": [".wb-rankings-difference"],
    **{f"run {system}'s top 10": [f".wb-rankings-list[data-system={system}] .wb-rankings-row:nth-of-type({row})"
                                  for row in range(3, 13)] for system in ("A", "B")},  # head and note come first
}
CLIPPED = """root => {
    const found = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const owner = node.parentElement;
        if (!node.textContent.trim() || !owner || owner.closest('select, option')) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const text = range.getBoundingClientRect(), box = owner.getBoundingClientRect();
        if (!text.width) continue;
        if (text.right > box.right + 1 || text.left < box.left - 1 || text.right > innerWidth
            || getComputedStyle(owner).textOverflow === 'ellipsis' && owner.scrollWidth > owner.clientWidth) {
            found.push(node.textContent.trim().slice(0, 40));
        }
    }
    return found;
}"""


def out_of_view(page) -> list[str]:
    """The parts of IN_VIEW with a box outside the viewport (or not on the page)."""
    width, height = page.evaluate("[innerWidth, innerHeight]")
    found = []
    for name, selectors in IN_VIEW.items():
        for selector in selectors:
            box = page.locator(selector).first.bounding_box() if page.locator(selector).count() else None
            if box is None or box["x"] < 0 or box["y"] < 0 or box["x"] + box["width"] > width + 0.5 or (
                    box["y"] + box["height"] > height + 0.5):
                found.append(f"{name}: {selector} at {box}")
                break
    return found


def audit(page, kind: str, when: str) -> list[dict]:
    """axe-core over the inspector (in Voilà: the whole page); the report lands beside the screenshots."""
    axe = reference_module("axe_playwright_python.sync_playwright")
    results = axe.Axe().run(page, context=None if kind == "voila" else ".wb-inspector").response
    (OUTPUT / f"inspector-{kind}-{when}-axe.json").write_text(json.dumps(results["violations"], indent=1))
    return [{"id": v["id"], "impact": v["impact"], "nodes": [n["html"][:160] for n in v["nodes"][:3]]}
            for v in results["violations"] if v["impact"] in ("serious", "critical")]



@contextmanager
def opened(server, kind: str, seen: dict, viewport: dict, system: str, patience: float = 1) -> Iterator:
    """The inspector's page in chromium once its chart is drawn and ``system``'s ranking listed (in JupyterLab after
    Run All), every request leaving the server recorded in ``seen["outside"]``; ``patience`` multiplies the waits
    (the real runs take longer)."""
    sync_api = reference_module("playwright.sync_api")
    server.wait("/api/status" if kind == "lab" else "/voila/static/voila.js")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS,
                                             timeout=60_000)
        try:
            page = browser.new_page(viewport=viewport)
            page.set_default_timeout(30_000 * patience)
            page.on("request", lambda r: None if r.url.startswith((server.base, "data:", "blob:"))
                    else seen["outside"].append(r.url))
            page.goto(server.page, timeout=120_000 * patience)
            if kind == "lab":
                page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel",
                                       timeout=90_000)
                page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
            page.wait_for_selector(".wb-inspector-chart svg", timeout=120_000 * patience)
            page.wait_for_selector(f".wb-rankings-list[data-system={system}] .wb-rankings-row",
                                   timeout=60_000 * patience)
            yield page
        finally:
            browser.close()

def inspect(kind: str, tmp) -> dict:
    reference_module("playwright.sync_api")  # without Playwright, skip before a server starts
    OUTPUT.mkdir(parents=True, exist_ok=True)
    _, _, deltas = kernel_values()
    target = str(deltas["topic"].iloc[-1])  # where B beats A most: not the topic the inspector opens on
    seen: dict = {"outside": [], "target": target}
    source = tmp / "source"
    source.mkdir()
    server = Server(kind, tmp, notebook(source))
    try:
        with opened(server, kind, seen, {"width": 1280, "height": 720}, "A") as page:
            if kind == "lab":  # as for a projection: the file browser closed, the inspector at the top
                page.evaluate("window.jupyterapp.shell.collapseLeft()")
                settle(page)
                page.locator(".wb-inspector").evaluate("node => node.scrollIntoView({block: 'start'})")
            settle(page)
            seen["out of view"] = out_of_view(page)
            seen["clipped"] = page.locator(".wb-inspector").evaluate(CLIPPED)
            seen["audit opened"] = audit(page, kind, "opened")
            page.screenshot(path=str(OUTPUT / f"inspector-{kind}-1280x720.png"))
            seen["opened on"] = text(page, ".wb-rankings-caption")
            bar = page.locator(f'.wb-inspector-chart svg path[aria-label*="topic: {target};"]')
            seen["bars"] = page.locator(".wb-inspector-chart svg g.mark-rect path").count()
            bar.first.click()
            page.wait_for_function(f"document.querySelector('.wb-rankings-caption')?.innerText"
                                   f".startsWith('topic {target},')", timeout=30_000)
            settle(page)
            seen["AP"] = read(page)
            page.screenshot(path=str(OUTPUT / f"inspector-{kind}-clicked.png"))
            page.locator(".wb-inspector-measure select").select_option("nDCG@10")
            page.wait_for_function(f"document.querySelector('.wb-rankings-caption')?.innerText"
                                   f".startsWith('topic {target}, nDCG@10')", timeout=30_000)
            settle(page)
            seen["nDCG@10"] = read(page)
            shown_in_both = [d for d in seen["nDCG@10"]["A"]["documents"] if d in seen["nDCG@10"]["B"]["documents"]]
            seen["picked"] = shown_in_both[0]  # a document both lists show
            page.locator(f'.wb-rankings-list[data-system=A] .wb-rankings-doc[data-doc="{seen["picked"]}"]').click()
            page.wait_for_selector(".wb-rankings-list[data-system=B] .wb-rankings-row.wb-selected",
                                   timeout=30_000)
            seen["marked"] = [text(page, f".wb-rankings-list[data-system={s}] .wb-rankings-row.wb-selected "
                                         ".wb-rankings-doc").rstrip(" ?") for s in ("A", "B")]
            seen["linked"] = page.locator(".wb-rankings-links line.wb-selected").count()
            seen["audit picked"] = audit(page, kind, "picked")
            seen["clipped picked"] = page.locator(".wb-inspector").evaluate(CLIPPED)
            caption = text(page, ".wb-rankings-caption")
            page.locator(".wb-inspector-system-b select").select_option("A")
            page.wait_for_function("document.querySelector('.wb-inspector-message')?.innerText"
                                   ".includes('two different systems') && document.querySelector("
                                   "'.wb-inspector-system-b select')?.value === 'B'", timeout=30_000)
            seen["refused"] = text(page, ".wb-inspector-message")
            seen["kept"] = (text(page, ".wb-rankings-caption") == caption,
                            page.locator(".wb-inspector-system-b select").input_value())
            page.screenshot(path=str(OUTPUT / f"inspector-{kind}-refused.png"))
    finally:
        server.stop()
    return seen


def read(page) -> dict:
    """What the page shows of both runs: scores in the summary and on the board, the ranks and documents."""
    shown = {}
    for system in ("A", "B"):
        rows = page.locator(f".wb-rankings-list[data-system={system}] .wb-rankings-row")
        shown[system] = {
            "summary": text(page, f".wb-inspector-score[data-system={system}]"),
            "board": text(page, f".wb-rankings-list[data-system={system}] .wb-rankings-score"),
            "ranks": rows.locator(".wb-rankings-rank").all_inner_texts(),
            "documents": [d.strip().rstrip(" ?") for d in rows.locator(".wb-rankings-doc").all_inner_texts()],
            "values": rows.locator(".wb-rankings-value").all_inner_texts(),
        }
    return shown


@pytest.mark.parametrize("kind", ["lab", "voila"])
def test_a_click_on_a_topic_shows_its_two_rankings_and_the_kernels_numbers(kind, tmp_path):
    seen = inspect(kind, tmp_path)
    (OUTPUT / f"inspector-{kind}-seen.json").write_text(json.dumps(seen, indent=1, default=str))
    assert seen["out of view"] == [] and seen["clipped"] == seen["clipped picked"] == []
    assert seen["audit opened"] == seen["audit picked"] == []
    campaign, values, deltas = kernel_values()
    target = seen["target"]
    assert seen["bars"] == len(deltas) and not seen["opened on"].startswith(f"topic {target},")
    for measure in ("AP", "nDCG@10"):
        for system in ("A", "B"):
            shown = seen[measure][system]
            expected = f"{values[(system, target, measure)]:.4f}"
            assert shown["summary"] == shown["board"] == expected, (measure, system, shown, expected)
            ranking = campaign.runs[system].documents(target)
            ranked = [(r, d) for r, d in zip(shown["ranks"], shown["documents"], strict=True) if r.isdigit()]
            assert [r for r, _ in ranked] == [str(i) for i in range(1, 11)]
            assert [d for _, d in ranked] == ranking[:10]
            explained = campaign.explain(system, target, measure).contributions.set_index("document")["contribution"]
            assert [float(v) for v in shown["values"][:10]] == pytest.approx(
                [round(explained[d], 4) for d in ranking[:10]], abs=1e-4)
    assert seen["marked"] == [seen["picked"]] * 2 and seen["linked"] == 1  # marked in both, the link drawn bold
    assert "two different systems" in seen["refused"] and seen["kept"] == (True, "B")
    assert seen["outside"] == []


# ------------------------------------------------------------------------------ the real campaign (issue 41 item 5)
REAL_SYSTEMS = ("aplrob03a", "uwmtCR0")   # notebook 06's two runs of the TREC 2003 Robust track
REAL = '''
from pathlib import Path

import workbench as wb
from workbench.widgets import Inspector

robust = Path({folder!r})
campaign = wb.read_campaign(robust / "qrels.txt", sorted((robust / "runs").glob("*.gz")))
inspector = Inspector(campaign, systems={systems!r}, measure="AP", measures=["AP"], k=15)
inspector
'''
REAL_SIZES = [(1280, 720), (1024, 768)]
LAYOUT = """root => {
    const box = (node) => node.getBoundingClientRect();
    const lists = Array.from(root.querySelectorAll('.wb-rankings-list'));
    const [a, b] = lists.map(box);
    const found = [];
    if (a.right > b.left + 0.5 && b.right > a.left + 0.5 && a.bottom > b.top + 0.5 && b.bottom > a.top + 0.5)
        found.push('the two lists overlap');
    const scrolled = box(root.querySelector('.wb-rankings-grid'));   // the lists scroll inside it
    if (scrolled.left < 0 || scrolled.right > innerWidth + 0.5 || scrolled.bottom > innerHeight + 0.5)
        found.push(`the lists run outside the window: ${[scrolled.left, scrolled.top, scrolled.right,
            scrolled.bottom].map(Math.round)}`);
    for (const list of lists) {
        const outer = box(list), name = list.dataset.system;
        for (const row of list.querySelectorAll('.wb-rankings-row')) {
            const cells = Array.from(row.children).map(box);
            for (let i = 1; i < cells.length; i++) {
                if (cells[i].width && cells[i - 1].width && cells[i - 1].right > cells[i].left + 0.5)
                    found.push(`${name}, ${row.dataset.doc}: column ${i} runs into column ${i + 1}`);
            }
            const last = cells[cells.length - 1];
            if (last.right > outer.right + 0.5) found.push(`${name}, ${row.dataset.doc}: runs past its list`);
        }
    }
    return found.slice(0, 10);
}"""


def real_notebook(tmp, folder) -> object:
    book = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(REAL.format(folder=str(folder), systems=REAL_SYSTEMS).strip())],
        metadata={"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                  "voila": {"template": "workbench"}})
    path = tmp / "robust.ipynb"
    nbformat.write(book, path)
    return path


def stress_topics(folder) -> list[str]:
    """The topics of the real campaign that strain the layout most, computed in this process: the most rows in
    one list (top 15 and the relevant documents missed) and the longest document id shown."""
    import workbench as wb
    from workbench.widgets import Inspector

    campaign = wb.read_campaign(folder / "qrels.txt", sorted((folder / "runs").glob("*.gz")))
    inspector = Inspector(campaign, systems=REAL_SYSTEMS, measure="AP", measures=["AP"], k=15)
    shown = {}
    for topic in inspector.deltas["topic"].astype(str):
        inspector.topic = topic
        rows = [column["rows"] for column in inspector.board.columns]
        shown[topic] = (max(map(len, rows)), max(len(row["document"] or "") for column in rows for row in column))
    most_rows = max(shown, key=lambda topic: shown[topic])
    longest = max(shown, key=lambda topic: (shown[topic][1], shown[topic][0]))
    return list(dict.fromkeys([most_rows, longest]))


@pytest.mark.timeout(900)
@pytest.mark.parametrize("kind", ["voila", "lab"])
def test_the_inspector_holds_its_layout_on_the_real_trec_robust_runs(kind, tmp_path):
    from tests.conftest import shared_dataset

    folder = shared_dataset("trec_robust2003")
    topics = stress_topics(folder)
    reference_module("playwright.sync_api")  # without Playwright, skip before a server starts
    OUTPUT.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "source"
    source.mkdir()
    seen: dict = {"outside": []}
    server = Server(kind, tmp_path, real_notebook(source, folder))
    try:
        with opened(server, kind, seen, dict(zip(("width", "height"), REAL_SIZES[0], strict=True)), REAL_SYSTEMS[0],
                    patience=2) as page:
            if kind == "lab":  # as for a projection: the file browser closed, the inspector at the top
                page.evaluate("window.jupyterapp.shell.collapseLeft()")
                settle(page)
            for topic in topics:
                page.locator(f'.wb-inspector-chart svg path[aria-label*="topic: {topic};"]').first.click()
                page.wait_for_function(f"document.querySelector('.wb-rankings-caption')?.innerText"
                                       f".startsWith('topic {topic},')", timeout=60_000)
                for width, height in REAL_SIZES:
                    page.set_viewport_size({"width": width, "height": height})
                    settle(page)
                    page.locator(".wb-rankings-caption").evaluate("node => node.scrollIntoView({block: 'start'})")
                    settle(page)
                    where = f"topic {topic} at {width}×{height}"
                    seen[where] = {"layout": page.locator(".wb-inspector").evaluate(LAYOUT),
                                   "clipped": page.locator(".wb-inspector").evaluate(CLIPPED)}
                    page.screenshot(path=str(OUTPUT / f"inspector-robust-{kind}-{topic}-{width}x{height}.png"))
    finally:
        server.stop()
    (OUTPUT / f"inspector-robust-{kind}-seen.json").write_text(json.dumps(seen, indent=1, default=str))
    assert len(seen) == 1 + len(topics) * len(REAL_SIZES)
    for where, found in seen.items():
        if where != "outside":
            assert found == {"layout": [], "clipped": []}, (where, found)
    assert seen["outside"] == []
