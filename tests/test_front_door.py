"""The front door (issue 30 item 6): README opens with what the workbench is and the two commands that set it up,
its tour runs, its links and the documentation pages' lead somewhere, and ``./wb lab --no-browser`` prints a URL
that opens the workbench notebook."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.request

import pytest

from tests.conftest import ROOT, descendants, free_port, shared_dataset, stop_tree

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def test_readme_opens_with_what_the_workbench_is_then_the_two_commands():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) < 120, len(lines)
    assert lines[0] == "# workbench" and lines[1] == ""
    paragraph = text.split("\n\n")[1]
    assert paragraph.startswith("An evaluation workbench") and "teachers" in paragraph and "researchers" in paragraph
    first_block = blocks(text, "bash")[0]
    assert text.index("```bash") < text.index("## ")  # the commands come before any section
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands == ["./wb lab", "./wb test"]


def test_the_readme_commands_are_those_of_wb_and_ci_runs_the_test_command():
    wb = (ROOT / "wb").read_text()
    assert re.search(r"^    lab\)$", wb, flags=re.M) and re.search(r"^    test\)$", wb, flags=re.M)
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert "./wb test" in ci  # CI runs README's test command, the whole suite


def test_the_readme_tour_runs():
    """Every python block of README, in order, in one namespace (the last line fetches a sample: the tests' mirror
    serves it)."""
    shared_dataset("trec_robust2003")
    namespace: dict = {}
    tour = blocks(README.read_text(encoding="utf-8"), "python")
    assert tour and len(tour[0].splitlines()) <= 16
    for code in tour:
        exec(compile(code, str(README), "exec"), namespace)  # noqa: S102 (the README's own code)
    assert round(namespace["results"].query("system == 'bm25' and topic == 'q2' and measure == 'AP'")["value"]
                 .item(), 4) == 0.5
    assert (namespace["robust"] / "qrels.txt").is_file()


@pytest.mark.parametrize("name", ["measure-names.md", "explanations.md", "campaigns.md", "samples.md", "api.md"])
def test_the_examples_of_the_pages_that_stand_alone_run(name):
    """Their python blocks, in order, in one namespace (the others continue a campaign of the reader's own)."""
    shared_dataset("trec_robust2003")  # campaigns.md and samples.md fetch a sample: the tests' mirror serves it
    namespace: dict = {}
    for code in blocks((DOCS / name).read_text(encoding="utf-8"), "python"):
        exec(compile(code, name, "exec"), namespace)  # noqa: S102 (the page's own code)


@pytest.mark.parametrize("page", [README, *PAGES], ids=["README.md", *(p.name for p in PAGES)])
def test_links_lead_to_pages_that_exist_and_nothing_points_beside_the_clone(page):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text and "shared/design" not in text and "shared/datasets" not in text
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (page.parent / target).resolve().is_file(), f"{page.name}: {target}"
        if page.parent == DOCS:
            assert (page.parent / target).resolve().parent == DOCS, f"{page.name}: {target} leaves docs/"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_each_documentation_page_has_one_title_and_is_listed_in_the_index(page):
    text = page.read_text(encoding="utf-8")
    titles = [line for line in re.sub(r"^```.*?^```", "", text, flags=re.S | re.M).splitlines()
              if line.startswith("# ")]
    assert len(titles) == 1 and text.startswith(titles[0]), titles
    if page.name != "index.md":
        assert f"]({page.name})" in (DOCS / "index.md").read_text(encoding="utf-8")


def test_wb_lab_prints_a_url_that_opens_the_workbench_notebook(tmp_path):
    if not any((ROOT / ".venv" / f".installed{extra}").exists() for extra in ("[lab]", "[dev]")):
        pytest.skip("./wb has not set up .venv here (the tests run outside ./wb test)")
    port = free_port()
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "ws"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    log = tmp_path / "lab.log"
    with log.open("w") as sink:
        server = subprocess.Popen([str(ROOT / "wb"), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                                   f"--ServerApp.port={port}"],
                                  stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=tmp_path,
                                  start_new_session=True)
    below: list[int] = []
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.5)
            found = re.search(rf"http://127\.0\.0\.1:{port}/\S+", log.read_text())
            url = found.group() if found else None
        assert url, f"no URL printed:\n{log.read_text()[-3000:]}"
        below = descendants(server.pid)
        assert url.startswith(f"http://127.0.0.1:{port}/lab/tree/notebooks/workbench.ipynb?token=")
        with urllib.request.urlopen(url, timeout=30) as answer:
            page = answer.read().decode()
        assert '"treePath": "notebooks/workbench.ipynb"' in page  # JupyterLab opens that document, not the Launcher
        token = url.split("token=")[1]
        contents = f"http://127.0.0.1:{port}/api/contents/notebooks/workbench.ipynb?content=0&token={token}"
        with urllib.request.urlopen(contents, timeout=30) as answer:
            assert answer.status == 200  # the server's root is the checkout: the path names the real notebook
        notification = f"http://127.0.0.1:{port}/lab/api/settings/@jupyterlab/apputils-extension:notification"
        with urllib.request.urlopen(f"{notification}?token={token}", timeout=30) as answer:
            defaults = json.load(answer)["schema"]["properties"]
        # issue 41: no "official Jupyter news?" toast over the workbench's buttons, nothing asked of the internet
        assert (defaults["fetchNews"]["default"], defaults["checkForUpdates"]["default"]) == ("false", False)
    finally:
        below = below or descendants(server.pid)
        stop_tree(server, below)


def test_no_module_of_the_package_points_to_the_project_folders_beside_it():
    found = [f"{path.relative_to(ROOT)}:{number}" for path in sorted((ROOT / "workbench").rglob("*"))
             if path.suffix in (".py", ".md", ".tsv", ".js", ".css") and path.is_file()
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if "../shared" in line]
    assert not found, found


def test_wb_docs_in_a_tree_it_cannot_write_says_so_in_one_line(tmp_path):
    """Issue 38: ``./wb docs`` on a read-only tree ended in Sphinx's crash report. Root writes through permission
    bits, so the folder it must write is made a file here, which nobody can write into."""
    if not any((ROOT / ".venv" / f".installed{extra}").exists() for extra in ("[docs]", "[dev]")):
        pytest.skip("./wb has not set up .venv here (the tests run outside ./wb test)")
    for name in ("wb", "pyproject.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    (tmp_path / "wb").chmod(0o755)
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "bin").symlink_to(ROOT / ".venv" / "bin")
    (tmp_path / ".venv" / ".installed[dev]").touch()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "_build").write_text("not a folder")
    done = subprocess.run([str(tmp_path / "wb"), "docs"], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "cannot build the documentation: docs/_build is not writable here" in done.stderr
