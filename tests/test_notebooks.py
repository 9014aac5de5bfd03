"""Every notebook runs top to bottom, unattended, from a stripped copy, twice (issue 30):

* **offline**, as on a fresh clone without ``../shared``: no mirror, ``WORKBENCH_OFFLINE`` set (a fetch fails at
  once instead of waiting on a network that is not there), an empty cache; each section that needs a sample says
  so in one ``skipped:`` line, and every other cell runs;
* **with a mirror**: ``../shared/datasets`` as ``WORKBENCH_DATA_MIRROR`` (as ``tests/conftest.py`` sets it), where
  every real-data section runs and prints its numbers (no ``skipped:`` line).

Each notebook runs once each way, in the test that checks it (no run is shared between tests, so that each test's
recorded CPU seconds are its own): what a notebook must show offline and with the mirror is in :data:`OFFLINE` and
:data:`WITH_A_MIRROR`. Running them takes a few minutes, so tests/durations.json marks those tests ``slow``: the
whole suite (``./wb test``, CI) runs them; ``./wb test --quick`` leaves them out."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import nbclient
import nbformat
import pytest

from tests.conftest import ROOT, SHARED_DATASETS, shared_dataset
from workbench.data.samples import SAMPLES

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FETCH = re.compile(r"\bfetch\(\s*[\"']([^\"']+)[\"']")
OUTPUT = ROOT / "test-output" / "notebooks"


def code(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")


def fetched(path: Path) -> list[str]:
    """The samples a notebook fetches, in the order of its code."""
    return FETCH.findall(code(path))


FETCHING = [p for p in NOTEBOOKS if fetched(p)]
NOT_IN_THE_MIRROR = {"pyevall-classification": "PyEvALL's test files"}
"""Samples the project's copy beside the clone does not hold (fetched from their public source only), and how a
notebook names them when it goes on without them."""


def environment(name: str, mode: str) -> dict[str, str | None]:
    """The variables a run sets (None: unset): offline, nothing beside the clone, no network and a cache of the
    notebook's own; or the mirror."""
    if mode == "offline":
        return {"WORKBENCH_OFFLINE": "1", "WORKBENCH_DATA_MIRROR": None,
                "WORKBENCH_CACHE": str(OUTPUT / "offline-cache" / name),
                "WORKBENCH_SHARED_DATASETS": str(OUTPUT / "no-shared-datasets")}
    return {"WORKBENCH_OFFLINE": None, "WORKBENCH_DATA_MIRROR": str(SHARED_DATASETS),
            "WORKBENCH_CACHE": str(OUTPUT / "mirror-cache")}


def executed(name: str, mode: str) -> tuple[nbformat.NotebookNode, float]:
    """The notebook after a run in its own folder (as JupyterLab runs it), and the seconds it took. The kernel
    inherits the environment of :func:`environment`; the offline cache starts empty."""
    path = ROOT / "notebooks" / name
    notebook = nbformat.read(path, as_version=4)
    variables = {**environment(name, mode),
                 "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    if mode == "offline":
        cache = Path(variables["WORKBENCH_CACHE"])  # type: ignore[arg-type]
        if cache.exists():
            for file in sorted(cache.rglob("*"), reverse=True):
                file.unlink() if file.is_file() else file.rmdir()
    saved = {key: os.environ.get(key) for key in variables}
    try:
        for key, value in variables.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        start = time.perf_counter()
        nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}}).execute()
        return notebook, time.perf_counter() - start
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def outputs(notebook: nbformat.NotebookNode) -> list:
    return [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]


def shown_text(notebook: nbformat.NotebookNode) -> str:
    """Everything the notebook printed or displayed as text (streams, text/plain reprs, HTML tables)."""
    parts = []
    for output in outputs(notebook):
        parts.append(str(output.get("text", "")))
        data = output.get("data", {})
        parts += [str(data.get("text/plain", "")), str(data.get("text/html", ""))]
    return "\n".join(parts)


def skipped_lines(notebook: nbformat.NotebookNode) -> list[str]:
    return [line for output in outputs(notebook) if output.output_type == "stream"
            for line in output.text.splitlines() if "skipped:" in line]


def silent_headings(notebook: nbformat.NotebookNode) -> list[str]:
    """The section headings (``##``, ``###``: the title's preamble of imports aside) whose code cells, down to the
    next heading, show nothing: a section that ran says what it found, one that could not says so in its own cell
    (issue 41)."""
    silent, heading, shown, has_code = [], None, False, False
    for cell in [*notebook.cells, nbformat.v4.new_markdown_cell("# end")]:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            if heading is not None and heading.startswith("##") and has_code and not shown:
                silent.append(heading)
            heading, shown, has_code = cell.source.lstrip().splitlines()[0], False, False
        elif cell.cell_type == "code":
            has_code = True
            shown |= bool(cell.outputs)
    return silent


def widget_views(notebook: nbformat.NotebookNode) -> int:
    """The widgets shown (``Workbench(...)``, ``Inspector(...)``...), progress bars left out."""
    return sum("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               and re.match(r"\w+\(", o["data"].get("text/plain", "")) is not None for o in outputs(notebook))


def with_mirror(name: str) -> nbformat.NotebookNode:
    shared_dataset()  # skips, with its message, where ../shared/datasets is absent
    notebook, _ = executed(name, "mirror")
    return notebook


# ------------------------------------------------------------------------------------------------ static
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code_cells, f"{path.name} has no code"
    assert all(not c.get("outputs") and c.get("execution_count") is None for c in code_cells), \
        f"{path.name}: strip the outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_the_title_carries_the_notebooks_number_and_nothing_points_beside_the_clone(path):
    notebook = nbformat.read(path, as_version=4)
    title = notebook.cells[0].source.splitlines()[0]
    number = path.name.split("_")[0]
    assert title.startswith(f"# {number} · " if number.isdigit() else "# The workbench"), title
    text = "\n".join(cell.source for cell in notebook.cells)
    assert "../shared" not in text and "shared/" not in text and ".shared(" not in text, path.name


def test_fetchable_lists_every_sample_a_notebook_fetches():
    wanted = {name for path in NOTEBOOKS for name in fetched(path)}
    assert wanted and wanted <= set(SAMPLES), wanted - set(SAMPLES)
    assert {p.name for p in FETCHING} >= {"02_uir.ipynb", "03_filtering_measures.ipynb", "04_p_measure.ipynb",
                                          "06_comparing_two_runs.ipynb", "07_fusion_and_many_systems.ipynb",
                                          "workbench.ipynb"}
    assert all(SAMPLES[name].public for name in wanted)  # each reaches a user without a mirror


def errors_of(notebook: nbformat.NotebookNode, name: str) -> None:
    errors = [o for o in outputs(notebook) if o.output_type == "error"]
    assert not errors, f"{name}: {errors[0].ename}: {errors[0].evalue}" if errors else ""
    assert not any(o.get("name") == "stderr" and "Traceback" in o.get("text", "") for o in outputs(notebook))


# --------------------------------------------------------------------------------------------- offline
OFFLINE = {  # notebook: (the sections it skips, what it still shows, the widgets it shows)
    # the shipped WePS-2 reference scores need no network; RepLab does
    "02_uir.ipynb": (0, ["'ALL_IN_ONE_BASELINE': 0.53", "'COMBINED_BASELINE': 0.52", "'ONE_IN_ONE_BASELINE': 0.34",
                         "offline: the same two entities", "RL2013D03E124", "best_replab"], None),  # shipped RepLab
    "03_filtering_measures.ipynb": (2, ["── F"], None),  # sections 4 and 5; the constraint checker runs
    # RepLab 2013's sample is shipped whole (the same scores); WePS-1's truth files have no licence to ship them
    "01_document_organization.ipynb": (1, ["printed values agree to two decimals", "offline: the same two entities",
                                           "3 systems, 2 topics, 1,000 samples (seed 0)"], None),
    # trec_eval's 3 files as they are (the notebook asserts its values equal trec_eval's); Robust's 8-topic excerpt
    "04_p_measure.ipynb": (0, ["'P-measure': 1.0, 'P+-measure': 0.7381", "recip_rank (trec_eval)",
                               "offline: the 3 trec_eval test files", "8 topics × 5 runs", "8 topics, B = 1,000"],
                           None),
    "05_optimal_cluster_search.ipynb": (0, ["3 systems, 30 topics, 1,000 samples (seed 0)"], None),  # shipped
    # TREC 2003 Robust's shipped excerpt stands in for the full sample: every section runs but WePS-1's
    "06_comparing_two_runs.ipynb": (1, ["discount", "shipped excerpt (topics 303–330)", "8 topics, runs: "], 1),
    "07_fusion_and_many_systems.ipynb": (0, ["alpha_nDCG@3", "StRecall@3", "homogeneous groups, best first:"], 1),
    "08_classification.ipynb": (1, ["SYS5: ICM = 0.246", "SYS2: ICM = 0.925"], 1),  # the copy it ships
    "workbench.ipynb": (1, ["table9.png"], 2),
}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_offline_on_a_clone_without_the_samples(path):
    notebook, seconds = executed(path.name, "offline")
    errors_of(notebook, path.name)
    skipped = skipped_lines(notebook)
    needing = [name for name in fetched(path) if not all(f.packaged for f in SAMPLES[name].files)
               and f"{name}-excerpt" not in fetched(path)]  # a shipped excerpt stands in for the sample offline
    assert len(skipped) >= len(needing), f"{path.name}: a section that needs {needing} did not say it skipped"
    # one short line each, naming what it needs or why (no 250-420 character URL lines: issue 41)
    assert all(("Error)" in line or "needs" in line) and len(line) <= 120 for line in skipped), skipped
    assert not silent_headings(notebook), (path.name, silent_headings(notebook))
    if path.name in OFFLINE:
        count, shown, widgets = OFFLINE[path.name]
        assert len(skipped) == count, (path.name, skipped)
        text = shown_text(notebook)
        assert all(piece in text for piece in shown), (path.name, [p for p in shown if p not in text])
        assert widgets is None or widget_views(notebook) == widgets
    print(f"{path.name} ran offline in {seconds:.1f} s, {len(skipped)} sections skipped")


# ---------------------------------------------------------------------------------------- with a mirror
def _uir(notebook, text):
    assert all(f"'{system}': {f05}" in text for system, f05 in (("ALL_IN_ONE_BASELINE", 0.53),
                                                                ("COMBINED_BASELINE", 0.52),
                                                                ("ONE_IN_ONE_BASELINE", 0.34)))
    assert "RL2013D01E001" in text and "RL2013D03E124" in text and "best_replab" in text


def _filtering(notebook, text):
    assert re.search(r"2 entities, [\d,]+ tweets", text)
    assert re.search(r"\d+ topics × 16 systems × 7 measures = \d+ scores", text)


def _document_organization(notebook, text):
    assert "3 systems, 5 topics, 1,000 samples (seed 0): S∼ is the most sensitive" in text  # WePS-1
    assert "3 systems, 2 topics, 1,000 samples (seed 0)" in text  # RepLab 2013


def _p_measure(notebook, text):
    assert "recip_rank (trec_eval)" in text and "ndcg (trec_eval)" in text
    assert "100 topics × 5 runs" in text  # §3 of the paper on TREC 2003 Robust
    assert "P-measure more stable than RR (minority rate at 20% ties 6.6% vs 7.4%): True" in text
    assert "P-measure more sensitive than RR (7.5% vs 18.1%): False" in text
    assert "Q-measure is the most sensitive (87.3% of 10,000 comparisons" in text


def _cluster_search(notebook, text):
    assert "3 systems, 30 topics, 1,000 samples (seed 0): BCubed-P is the most sensitive" in text


def _comparison(notebook, text):
    assert widget_views(notebook) == 2  # the inspector on the Robust runs, and on the WePS-1 clustering
    streams = "".join(o.get("text", "") for o in outputs(notebook) if o.output_type == "stream")
    assert "100 topics, runs: UIUC03Rd1, aplrob03a, humR03dc, pircRBa1, uwmtCR0" in streams
    assert "RR       earns 83% of its score at rank 1" in streams
    assert "AP       earns 9% of its score at rank 1" in streams


def _fusion(notebook, text):
    assert "homogeneous groups, best first: [[" in text and "Tukey's HSD over the 21 pairs" in text
    assert "wsum (cv)" in text and "Kendall's τ = " in text
    assert "alpha_nDCG@3" in text and "StRecall@3" in text


def _classification(notebook, text):
    assert "PyEvALL's test files fetched" in text or "skipped: the download of PyEvALL's test files" in text
    assert "SYS5: ICM = 0.246" in text and "SYS2: ICM = 0.925" in text and "ICM vs Acc: Kendall's τ" in text
    assert "{'Acc': 0.8, 'FMeasure': 0.6, 'ICM': 1.341, 'ICM-Norm': 0.816}" in text
    assert widget_views(notebook) == 1


def _workbench(notebook, text):
    assert widget_views(notebook) == 3  # the Workbench, a Comparison, and the WePS-1 campaign's
    assert "table9.png" in text


WITH_A_MIRROR = {"01_document_organization.ipynb": _document_organization, "02_uir.ipynb": _uir,
                 "03_filtering_measures.ipynb": _filtering, "04_p_measure.ipynb": _p_measure,
                 "05_optimal_cluster_search.ipynb": _cluster_search,
                 "06_comparing_two_runs.ipynb": _comparison, "07_fusion_and_many_systems.ipynb": _fusion,
                 "08_classification.ipynb": _classification, "workbench.ipynb": _workbench}
"""What each notebook that fetches a sample shows with the mirror: its real-data sections' numbers."""


@pytest.mark.parametrize("path", FETCHING, ids=[p.name for p in FETCHING])
def test_notebook_runs_every_real_data_section_with_a_mirror(path):
    notebook = with_mirror(path.name)
    errors_of(notebook, path.name)
    missed = [line for line in skipped_lines(notebook) if not any(s in line for s in NOT_IN_THE_MIRROR.values())]
    assert not missed, missed
    assert not silent_headings(notebook), (path.name, silent_headings(notebook))
    WITH_A_MIRROR[path.name](notebook, shown_text(notebook))


def test_every_notebook_that_fetches_is_checked_with_a_mirror():
    assert {p.name for p in FETCHING} == set(WITH_A_MIRROR)
