"""End to end in a real browser: JupyterLab on 127.0.0.1 with a token, Debian's chromium driven by Playwright,
the main notebook run, one gold level edited, and the displayed R∼ checked against the kernel.

Skips (with the reason) where chromium or playwright is absent; CI installs chromium (``.ci/run``).
Everything it starts (server, kernel, browser) is stopped in ``finally``. The screenshot lands in
``test-output/browser/`` at the repository root.
"""

from __future__ import annotations

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


def wait_for_server(base: str, token: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"the server did not answer within {timeout} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen, base: str, token: str) -> None:
    """Ask the server to shut down (it stops its kernels), then end its process group by id."""
    try:
        request = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
        urllib.request.urlopen(request, timeout=5).close()
        proc.wait(20)
    except (OSError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)


def start_lab(tmp: Path) -> tuple[subprocess.Popen, str, str, Path]:
    notebooks = tmp / "nb"
    notebooks.mkdir()
    shutil.copy(NOTEBOOK, notebooks / NOTEBOOK.name)
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port, token = free_port(), os.urandom(16).hex()
    env = {**os.environ,
           "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"), "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "ws"),
           "JUPYTER_RUNTIME_DIR": str(tmp / "rt"), "JUPYTER_CONFIG_DIR": str(tmp / "cfg"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    log = tmp / "server.log"
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
               "--LabApp.extension_manager=readonly", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={notebooks}",
               "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    with log.open("w") as sink:
        proc = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=notebooks,
                                start_new_session=True)
    return proc, f"http://127.0.0.1:{port}", token, log


def test_editing_a_gold_level_in_jupyterlab_updates_the_displayed_r_relatedness(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    table9 = EXAMPLES["Table 9 (document organization)"]
    edited_level = "{d2 d3 d4}"                                         # d1 leaves the gold's top level
    gold = Organization.parse("\n".join([edited_level, *table9.gold.splitlines()[1:]]))
    expected = reliability_sensitivity(gold, Organization.parse(table9.outputs["output 1"]), n=10, wn=0.8)
    cell = '.wb-scores tr[data-output="output 1"] td[data-measure="R∼"]'
    outside: list[str] = []
    proc, base, token, log = start_lab(tmp_path)
    try:
        wait_for_server(base, token, proc, log)
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1500, "height": 2400})
                page.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith("data:")
                        else outside.append(r.url))
                page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?reset&token={token}")
                page.wait_for_function("window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel",
                                       timeout=90_000)
                page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
                page.wait_for_selector(cell, timeout=120_000)
                page.wait_for_selector(".wb-workbench .vega-embed svg, .wb-workbench .vega-embed canvas",
                                       timeout=60_000)
                before = page.locator(cell).inner_text()
                page.locator(".wb-gold .wb-level input").first.fill(edited_level)
                page.wait_for_function(f"document.querySelector('{cell}')?.innerText !== '{before}'",
                                       timeout=30_000)
                shown = page.locator(cell).inner_text()
                page.locator(".wb-workbench").first.screenshot(path=str(OUTPUT / "workbench-after-edit.png"))
            finally:
                browser.close()
    finally:
        stop(proc, base, token)
    assert shown == f"{expected.r_relatedness:.4f}" and shown != before
    assert not [url for url in outside if "vega" in url or "esm.sh" in url], outside  # charts load offline
