"""The page Voilà serves for the workbench links nothing outside the machine (issue 12, an offline classroom):
``notebooks/workbench.ipynb`` picks the package's ``workbench`` template, which drops the lab template's Font
Awesome style sheets from a CDN. No browser needed: Voilà renders the page, the test reads its ``<link>`` and
``<script>`` addresses. (tests/test_browser.py checks every request a real browser makes.)

The template also leaves out of the app the cells tagged ``notebook-only`` (issue 41: Voilà runs every cell before
the page draws a widget, so each one delays the scores): they are neither run nor shown."""

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


def served_page(tmp_path, metadata: dict, cells: list | None = None) -> str:
    """The HTML Voilà serves for a notebook with ``metadata`` and ``cells`` (one cell by default), with the
    templates where the environment has them (``./wb`` links the package's template into .venv; a wheel installs
    it there)."""
    cells = [nbformat.v4.new_code_cell("1 + 1")] if cells is None else cells
    notebook = nbformat.v4.new_notebook(metadata=metadata, cells=cells)
    nbformat.write(notebook, tmp_path / "page.ipynb")
    port, token = free_port(), os.urandom(8).hex()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
           # this clone's template first, as the browser tests' servers have it (an environment's link may name
           # another clone's)
           "JUPYTER_PATH": os.pathsep.join(filter(None, [str(ROOT / "share" / "jupyter"),
                                                         os.environ.get("JUPYTER_PATH")]))}
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
    only = {"tags": ["notebook-only"]}  # and the cells tagged notebook-only are neither run nor shown (one server)
    cells = [nbformat.v4.new_code_cell("print('first' + ' cell')"),
             nbformat.v4.new_markdown_cell("a lesson for the notebook", metadata=only),
             nbformat.v4.new_code_cell("open('ran.txt', 'w').write('ran'); print('left' + ' out')", metadata=only),
             nbformat.v4.new_code_cell("print('last' + ' cell')")]
    page = served_page(tmp_path, metadata, cells)
    addresses = ADDRESS.findall(page)
    assert any("voila" in address for address in addresses)           # the page is Voilà's, with its assets
    assert [a for a in addresses if re.match(r"(https?:)?//", a)] == []
    assert "fontawesome" not in page
    assert "first cell" in page and "last cell" in page                     # the other cells ran, in order
    assert "left out" not in page and "a lesson for the notebook" not in page
    assert not (tmp_path / "ran.txt").exists()                                  # not run at all
    assert "voila_process(2, 2)" in page                                      # the progress counts two cells


def test_the_lab_template_alone_still_asks_the_cdn(tmp_path):
    """What the template fixes (if Voilà stops linking the CDN, the template can go)."""
    page = served_page(tmp_path, {"kernelspec": {"name": "python3", "display_name": "Python 3"}})
    assert any("cdn.jsdelivr.net" in address for address in ADDRESS.findall(page))


def test_the_workbench_app_leaves_out_only_the_figure_saving_section():
    """What the classroom sees is the whole notebook but its "Figures for a handout" section (a file written on the
    server, 0.5 CPU-s of vl-convert before the scores show: issue 41)."""
    cells = nbformat.read(NOTEBOOK, as_version=4).cells
    left_out = [cell for cell in cells if "notebook-only" in cell.metadata.get("tags", [])]
    assert [cell.cell_type for cell in left_out] == ["markdown", "code"]
    assert left_out[0].source.startswith("## Figures for a handout") and "save_chart(" in left_out[1].source
    assert cells[-2:] == left_out                                               # the notebook's last section
