"""The page Voilà serves for the workbench links nothing outside the machine (issue 12, an offline classroom):
``notebooks/workbench.ipynb`` picks the package's ``workbench`` template, which drops the lab template's Font
Awesome style sheets from a CDN. No browser needed: Voilà renders the page, the test reads its ``<link>`` and
``<script>`` addresses. (tests/test_browser.py checks every request a real browser makes.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late

import nbformat
import pytest

from tests.conftest import ROOT, descendants, free_port, missing_reference, stop_tree

NOTEBOOK = ROOT / "notebooks" / "workbench.ipynb"
ADDRESS = re.compile(r"""<(?:link|script)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)

DEADLINE = 120  # seconds for Voilà to start and serve the page, reading included
pytestmark = [pytest.mark.timeout(DEADLINE + 120)]  # the page, then stopping the server


def installed_template() -> bool:
    """Whether Voilà can find the package's ``workbench`` template on the Jupyter path."""
    from jupyter_core.paths import jupyter_path
    return any(os.path.isfile(os.path.join(folder, "index.html.j2"))
               for folder in jupyter_path("voila", "templates", "workbench"))


def served_page(tmp_path, metadata: dict) -> str:
    """The HTML Voilà serves for a one-cell notebook with ``metadata``, with the templates where the
    environment has them (``./wb`` links the package's template into .venv; a wheel installs it there)."""
    notebook = nbformat.v4.new_notebook(metadata=metadata, cells=[nbformat.v4.new_code_cell("1 + 1")])
    nbformat.write(notebook, tmp_path / "page.ipynb")
    port, token = free_port(), os.urandom(8).hex()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    command = [sys.executable, "-m", "voila", str(tmp_path / "page.ipynb"), "--no-browser", f"--port={port}",
               "--Voila.ip=127.0.0.1", f"--token={token}"]
    with (tmp_path / "voila.log").open("w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
                                  start_new_session=True)

    def fetch() -> str:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/?token={token}", timeout=10) as answer:
                    return answer.read().decode()
            except OSError:
                if server.poll() is not None:
                    raise RuntimeError((tmp_path / "voila.log").read_text()[-3000:]) from None
                time.sleep(0.5)

    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(fetch).result(timeout=DEADLINE)     # a page that never finishes fails, not hangs
    except Late:
        pytest.fail(f"Voilà did not serve the page within {DEADLINE} s:\n"
                    f"{(tmp_path / 'voila.log').read_text()[-3000:]}")
    finally:
        stop_tree(server, descendants(server.pid))
        pool.shutdown(wait=False, cancel_futures=True)  # the read ends with the server it reads from


def test_the_workbench_notebook_is_served_with_no_outside_style_sheet_or_script(tmp_path):
    if not installed_template():
        missing_reference("the workbench Voilà template is not installed on the Jupyter path (./wb links it into "
                          ".venv; a wheel installs it under share/jupyter/voila/templates)")
    metadata = json.loads(NOTEBOOK.read_text())["metadata"]
    assert metadata["voila"] == {"template": "workbench"}
    page = served_page(tmp_path, metadata)
    addresses = ADDRESS.findall(page)
    assert any("voila" in address for address in addresses)           # the page is Voilà's, with its assets
    assert [a for a in addresses if re.match(r"(https?:)?//", a)] == []
    assert "fontawesome" not in page


def test_the_lab_template_alone_still_asks_the_cdn(tmp_path):
    """What the template fixes (if Voilà stops linking the CDN, the template can go)."""
    page = served_page(tmp_path, {"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    assert any("cdn.jsdelivr.net" in address for address in ADDRESS.findall(page))
