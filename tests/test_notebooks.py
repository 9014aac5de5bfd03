"""Every notebook runs top to bottom, unattended and offline, from a stripped copy (issue: notebooks).

Running them takes about a minute, so tests/durations.json marks those tests ``slow``: the whole suite (``./wb
test``, CI) runs them; ``./wb test --quick`` leaves them out. The samples they fetch come from ``../shared/datasets``
as a mirror (``tests/conftest.py``); without it no test reaches the public URLs: the mirror is a folder that does
not exist, the notebooks say which sections they skip, and those built on a sample are skipped here."""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbclient
import nbformat
import pytest

from tests.conftest import REQUIRE_REFERENCES, missing_reference

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHARED = ROOT.parent / "shared" / "datasets"
CHECKED = {"workbench.ipynb", "06_comparing_two_runs.ipynb", "07_fusion_and_many_systems.ipynb"}  # tests below
OTHERS = [p for p in NOTEBOOKS if p.name not in CHECKED]
if "WORKBENCH_DATA_MIRROR" not in os.environ:  # never the public URLs from a test: fetch fails, sections skip
    os.environ["WORKBENCH_DATA_MIRROR"] = str(ROOT / "test-output" / "no-mirror")


def executed(name: str) -> nbformat.NotebookNode:
    """The notebook after a run in its own folder (as JupyterLab runs it), checked to show no error. Each test runs
    its notebook itself (no cache shared between tests), so that its recorded CPU seconds are its own."""
    path = ROOT / "notebooks" / name
    notebook = nbformat.read(path, as_version=4)
    environment = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environment]))
    try:
        start = time.perf_counter()
        nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        if environment is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = environment
    errors = [o for o in outputs(notebook) if o.output_type == "error"]
    assert not errors, f"{name}: {errors[0].ename}: {errors[0].evalue}" if errors else ""
    print(f"{name} ran in {time.perf_counter() - start:.1f} s")
    return notebook


def outputs(notebook: nbformat.NotebookNode) -> list:
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, f"{path.name} has no code"
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code), \
        f"{path.name}: strip the outputs before committing"


@pytest.mark.parametrize("path", OTHERS, ids=[p.name for p in OTHERS])
def test_notebook_runs_top_to_bottom_without_errors(path):
    executed(path.name)


def test_main_notebook_shows_the_workbench_a_comparison_and_a_campaign():
    weps = SHARED / "weps2007"
    if REQUIRE_REFERENCES and not weps.exists():  # elsewhere the notebook's own skip is checked
        missing_reference(f"{weps} is absent: the notebook would skip its WePS-1 campaign")
    notebook = executed("workbench.ipynb")
    shown = outputs(notebook)
    views = [o for o in shown if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(views) == 2 + weps.exists()  # the Workbench, a Comparison, and the WePS-1 campaign's
    assert weps.exists() or any("skipped:" in o.get("text", "") for o in shown)
    assert any("table9.png" in o.get("text", "") for o in shown)


def test_fusion_notebook_fuses_tests_and_compares_the_shared_runs():
    if REQUIRE_REFERENCES and not (SHARED / "trec_robust2003").exists():  # elsewhere the notebook's skip is checked
        missing_reference(f"{SHARED / 'trec_robust2003'} is absent: the notebook would skip its fusion")
    notebook = executed("07_fusion_and_many_systems.ipynb")
    text = "".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in outputs(notebook))
    if not (SHARED / "trec_robust2003").exists():
        assert "skipped: the shared TREC Robust 2003 runs are absent" in text
    else:
        assert "homogeneous groups, best first: [[" in text and "Tukey's HSD over the 21 pairs" in text
        assert "wsum (cv)" in text and "Kendall's τ = " in text
    assert "alpha_nDCG@3" in text and "StRecall@3" in text


def test_the_comparison_notebook_inspects_two_real_runs_and_reads_the_measures_from_the_explanations():
    if not Path(os.environ["WORKBENCH_DATA_MIRROR"]).is_dir():
        missing_reference("needs the TREC 2003 Robust and WePS-1 samples (no mirror: ../shared/datasets is absent)")
    notebook = executed("06_comparing_two_runs.ipynb")
    shown = outputs(notebook)
    views = [o for o in shown if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(views) == 2  # the inspector on the Robust runs, and on the WePS-1 clustering
    text = "".join(o.get("text", "") for o in shown if o.output_type == "stream")
    assert "100 topics, runs: UIUC03Rd1, aplrob03a, humR03dc, pircRBa1, uwmtCR0" in text
    assert "RR       earns 83% of its score at rank 1" in text and "AP       earns 9% of its score at rank 1" in text
