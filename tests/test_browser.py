"""End to end in a real browser: JupyterLab (and Voilà) on 127.0.0.1 with a token, Debian's chromium driven by
Playwright, the main notebook run; a document token clicked (the why panel explains it), ``d8`` dragged out of
``{d6 d7 d8}`` in Table 9's output 4, one gold level edited, and the displayed R∼ checked against the kernel
after each change. No request may leave the machine (Voilà is served with the package's ``workbench``
template, found where an installed package puts it: ``share/jupyter`` on the Jupyter path).

Skips (with the reason) where chromium or playwright is absent; CI installs chromium (``.ci/run``).
Everything it starts (server, kernel, browser) is stopped in ``finally``. The screenshot lands in
``test-output/browser/`` at the repository root.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT
from workbench.metrics.reliability import reliability_sensitivity
from workbench.model import Organization
from workbench.widgets.gallery import EXAMPLES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
OUTPUT = ROOT / "test-output" / "browser"
NOTEBOOK = ROOT / "notebooks" / "workbench.ipynb"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (apt-get install chromium)"),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (read from /proc): the kernels a server started."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [child for child, ppid in parents.items() if ppid == parent]
        found += children
        frontier += children
    return found


class Server:
    """JupyterLab or Voilà on 127.0.0.1, a free port and a token, in a temporary folder with a copy of the
    notebook and fresh settings; ``stop()`` ends it and every process below it."""

    def __init__(self, kind: str, tmp: Path) -> None:
        self.kind = kind
        notebooks = tmp / "nb"
        notebooks.mkdir()
        shutil.copy(NOTEBOOK, notebooks / NOTEBOOK.name)
        settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)
        (settings / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        port, self.token = free_port(), os.urandom(16).hex()
        self.base = f"http://127.0.0.1:{port}"
        env = {**os.environ,
               "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "ws"),
               "JUPYTER_RUNTIME_DIR": str(tmp / "rt"), "JUPYTER_CONFIG_DIR": str(tmp / "cfg"),
               "JUPYTER_PATH": os.pathsep.join(filter(None, [str(ROOT / "share" / "jupyter"),
                                                             os.environ.get("JUPYTER_PATH")])),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        if kind == "lab":
            command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
                       "--LabApp.extension_manager=readonly", "--ServerApp.ip=127.0.0.1",
                       f"--ServerApp.port={port}", f"--IdentityProvider.token={self.token}",
                       f"--ServerApp.root_dir={notebooks}", "--LabApp.expose_app_in_browser=True",
                       "--LabApp.news_url=None",
                       "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
            self.page = f"{self.base}/lab/tree/{NOTEBOOK.name}?reset&token={self.token}"
        else:
            command = [sys.executable, "-m", "voila", str(notebooks / NOTEBOOK.name), "--no-browser",
                       f"--port={port}", "--Voila.ip=127.0.0.1", f"--token={self.token}"]
            self.page = f"{self.base}/?token={self.token}"
        self.log = tmp / f"{kind}.log"
        with self.log.open("w") as sink:
            self.proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env,
                                         cwd=notebooks, start_new_session=True)

    def wait(self, path: str, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}:\n"
                                   f"{self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.base}{path}?token={self.token}", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        """Ask JupyterLab to shut down (it stops its kernels), then SIGTERM and, after 10 s, SIGKILL the server
        and every process that was below it, by pid."""
        below = descendants(self.proc.pid)
        try:
            if self.kind != "lab":
                raise OSError("only JupyterLab has a shutdown API")
            request = urllib.request.Request(f"{self.base}/api/shutdown?token={self.token}", method="POST")
            urllib.request.urlopen(request, timeout=5).close()
            self.proc.wait(20)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self.proc.poll() is None:
                self.proc.send_signal(sig)
            for pid in below:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and (self.proc.poll() is None or any(map(alive, below))):
                time.sleep(0.2)
        self.proc.wait(10)


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def click_drag_and_edit(kind: str, tmp: Path) -> dict:
    """Run the notebook in ``kind`` (lab or voila); click ``d2`` in output 5, drag ``d8`` to output 4's tail,
    type a new top level into the gold editor. Returns what was displayed after each step and every request
    that left 127.0.0.1."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    seen: dict = {"outside": []}
    server = Server(kind, tmp)
    try:
        server.wait("/api/status" if kind == "lab" else "/voila/static/voila.js")  # GET / would run it
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1500, "height": 2400})
                page.on("request", lambda r: None if r.url.startswith((server.base, "data:", "blob:"))
                        else seen["outside"].append(r.url))
                page.goto(server.page, timeout=120_000)
                if kind == "lab":
                    page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.session"
                                           "?.kernel", timeout=90_000)
                    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
                page.wait_for_selector(CELL, timeout=120_000)
                page.wait_for_selector(".wb-workbench .vega-embed svg, .wb-workbench .vega-embed canvas",
                                       timeout=60_000)
                output4 = page.locator(".wb-output").nth(3)
                page.locator(".wb-output").nth(4).locator('.wb-doc[data-doc="d2"]').click()
                page.wait_for_function("document.querySelector('.wb-why-title')?.innerText === "
                                       "'why: d2 in output 5'", timeout=30_000)
                seen["title"] = page.locator(".wb-why-title").inner_text()
                seen["why R∼"] = page.locator('.wb-why-measure[data-measure="R∼"]').inner_text()
                seen["chosen"] = page.locator(".wb-doc.wb-chosen").evaluate_all(
                    "tokens => tokens.map(t => t.closest('.wb-editor').querySelector('b')?.innerText)")
                before = page.locator(CELL4).inner_text()
                output4.locator('.wb-doc[data-doc="d8"]').drag_to(output4.locator(".wb-board-tail"))
                page.wait_for_function(f"document.querySelector('{CELL4}')?.innerText !== '{before}'",
                                       timeout=30_000)
                seen["dragged R∼"] = page.locator(CELL4).inner_text()
                seen["dragged text"] = output4.locator(".wb-level input").evaluate_all(
                    "inputs => inputs.map(i => i.value)")
                before = page.locator(CELL).inner_text()
                page.locator(".wb-gold .wb-level input").first.fill(EDITED_LEVEL)
                page.wait_for_function(f"document.querySelector('{CELL}')?.innerText !== '{before}'",
                                       timeout=30_000)
                seen["before"], seen["after"] = before, page.locator(CELL).inner_text()
                page.locator(".wb-workbench").first.screenshot(path=str(OUTPUT / f"{kind}-after-edit.png"))
            finally:
                browser.close()
    finally:
        server.stop()
    return seen


TABLE9 = EXAMPLES["Table 9 (document organization)"]
EDITED_LEVEL = "{d2 d3 d4}"                                     # d1 leaves the gold's top level
CELL = '.wb-scores tr[data-output="output 1"] td[data-measure="R∼"]'
CELL4 = '.wb-scores tr[data-output="output 4"] td[data-measure="R∼"]'


def expected_r_relatedness() -> str:
    gold = Organization.parse("\n".join([EDITED_LEVEL, *TABLE9.gold.splitlines()[1:]]))
    scores = reliability_sensitivity(gold, Organization.parse(TABLE9.outputs["output 1"]), n=10, wn=0.8)
    return f"{scores.r_relatedness:.4f}"


def kernel_r_relatedness(gold: str, output: str) -> str:
    scores = reliability_sensitivity(Organization.parse(gold), Organization.parse(output), n=10, wn=0.8)
    return f"{scores.r_relatedness:.4f}"


@pytest.mark.parametrize("kind", ["lab", "voila"])
def test_click_drag_and_edit_show_the_kernels_values_with_no_request_leaving_the_machine(kind, tmp_path):
    seen = click_drag_and_edit(kind, tmp_path)
    (OUTPUT / f"{kind}-requests-off-127.0.0.1.txt").write_text("".join(f"{url}\n" for url in seen["outside"]))
    assert seen["title"] == "why: d2 in output 5"
    assert all(partner in seen["why R∼"] for partner in ("d3", "d4"))         # its cluster's ∼ relations
    assert seen["chosen"] == ["gold standard", "output 5"]            # its occurrences, highlighted
    moved = "d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}"                   # d8 dragged to the tail
    assert seen["dragged text"] == moved.splitlines()
    assert seen["dragged R∼"] == kernel_r_relatedness(TABLE9.gold, moved) == "1.0000"
    assert seen["after"] == expected_r_relatedness() and seen["after"] != seen["before"]
    assert seen["outside"] == []
