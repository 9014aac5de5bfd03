"""The suite's own machinery: CI's Hypothesis profile draws the same examples on every run; under
WORKBENCH_REQUIRE_REFERENCES=1 (CI) a test that would skip for a missing reference (a sample of ../shared, a
reference library, chromium) fails instead, while a user's clone without them still skips, saying what is missing;
the quick loop fails a test over its CPU limit, and the slow marks come from the recorded durations; a passing run
ends without a traceback when an xdist worker is slow to finish."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import conftest

ROOT = Path(__file__).resolve().parents[1]

PROBE = '''
import pytest

from tests.conftest import reference_module, shared_dataset


def test_a_sample():
    shared_dataset("no-such-sample", "qrels")


def test_a_library():
    reference_module("no_such_reference_library")


@pytest.mark.browser
def test_a_browser():
    pass
'''


def _probe(tmp_path: Path, source: str, *options: str, required: bool = False) -> subprocess.CompletedProcess:
    """pytest on ``source`` with tests/conftest.py as a plugin, chromium off PATH, the switch set or not, on a
    terminal of 80 columns (the short summary cuts its lines to the terminal's width)."""
    (tmp_path / "test_probe.py").write_text(source)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent), "COLUMNS": "80",
           "WORKBENCH_REQUIRE_REFERENCES": "1" if required else ""}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
                           "-rsf", "-q", *options, "test_probe.py"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_missing_reference_skips_with_its_reason_and_fails_under_the_switch(tmp_path):
    skipped = _probe(tmp_path, PROBE)
    assert skipped.returncode == 0, skipped.stdout
    assert "3 skipped" in skipped.stdout
    assert "no-such-sample/qrels is absent: the real evaluation samples live beside the project" in skipped.stdout
    assert "the reference library no_such_reference_library cannot be imported" in skipped.stdout
    assert "no chromium on PATH" in skipped.stdout
    failed = _probe(tmp_path, PROBE, "-rN", required=True)  # no short summary: each reason once, in its section
    assert failed.returncode == 1, failed.stdout
    assert "2 failed" in failed.stdout and "1 error" in failed.stdout  # chromium: in the browser test's setup
    assert failed.stdout.count("WORKBENCH_REQUIRE_REFERENCES=1: a missing reference fails") == 3


@pytest.mark.parametrize(("value", "required"), [("1", "True"), ("yes", "True"), ("false", "False"),
                                                 ("off", "False"), ("", "False")])
def test_the_switch_reads_as_every_boolean_environment_variable(value, required):
    """Audit (issue 38): "false", "no" or "off" turned the switch on, as any value but "" and "0" did; it is read
    by validation.environment_switch, which refuses a value that says neither."""
    script = "import tests.conftest as c; print(c.REQUIRE_REFERENCES)"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WORKBENCH_REQUIRE_REFERENCES": value}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.stdout.split()[-1:] == [required], done.stderr
    if value != "1":
        return
    refused = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                             env={**env, "WORKBENCH_REQUIRE_REFERENCES": "maybe"})
    assert "WORKBENCH_REQUIRE_REFERENCES must be 1, true, yes or on" in refused.stderr


def test_ci_sets_both_switches():
    exported = [word for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("export ")
                for word in line.split()[1:]]
    assert {"WORKBENCH_HYPOTHESIS_PROFILE=ci", "WORKBENCH_REQUIRE_REFERENCES=1"} <= set(exported)


def test_the_ci_profile_draws_the_same_examples_on_every_run():
    profile = settings.get_profile("ci")
    assert profile.derandomize and profile.database is None and profile.deadline is None

    def drawn(chosen: settings) -> list[int]:
        seen: list[int] = []

        @settings(chosen, max_examples=30)
        @given(st.integers())
        def probe(x):
            seen.append(x)

        probe()
        return seen

    assert drawn(profile) == drawn(profile)
    explore = settings.get_profile("explore")
    assert not explore.derandomize and drawn(explore) != drawn(explore)


@pytest.mark.parametrize("name", ["explore", "ci"])
def test_no_profile_times_a_test(name):
    """A deadline fails by load on a shared machine: time is the benchmarks' to measure."""
    assert settings.get_profile(name).deadline is None


COSTLY = """
def test_cheap():
    pass


def test_costly():
    total = 0
    for i in range(3_000_000):
        total += i
"""


def test_the_quick_loop_fails_a_test_over_its_cpu_limit(tmp_path):
    done = _probe(tmp_path, COSTLY, "--cpu-limit=0.05")
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed" in done.stdout
    assert "test_probe.py::test_costly took 0." in done.stdout and "over the quick loop's 0.05" in done.stdout
    assert "CPU: " in done.stdout and f"the quick loop's budget is {conftest.QUICK_BUDGET:g} CPU seconds in all" \
        in done.stdout and "s wall at load " in done.stdout
    assert "over its budget" not in done.stdout  # the run itself is within it: only the test over its limit fails
    assert _probe(tmp_path, COSTLY).returncode == 0  # the whole suite has no limit


def test_the_quick_loop_fails_when_its_total_is_over_its_budget(tmp_path):
    """Issue 41: the budget is the run's total CPU seconds (imports and collection included), enforced by the loop
    itself, not only each test's 2 seconds."""
    over = _probe(tmp_path, "def test_cheap():\n    pass\n", "--cpu-limit=30", "--cpu-budget=0.01")
    assert over.returncode == 1 and "1 passed" in over.stdout, over.stdout
    assert "FAILED: the quick loop took " in over.stdout and "over its budget of 0.01: make tests" in over.stdout


@pytest.mark.parametrize(("markexpr", "deselects"), [
    ("not slow and not browser", True), ("not slow", True), ("not (slow or browser)", True), ("", False),
    ("slow", False), ("browser", False), ("slow or browser", False), ("not browser", False)])
def test_which_mark_expressions_deselect_every_slow_test(markexpr, deselects):
    assert conftest.deselects_slow(markexpr) is deselects


def test_the_quick_loop_does_not_import_a_file_whose_tests_are_all_recorded_slow(monkeypatch):
    """Its imports (ranx and numba...) were paid by every worker for tests then deselected; a file with a test the
    record does not know yet, or a quick one, is imported as usual."""
    path = ROOT / "tests" / "test_fusion_condorcet.py"
    names = set(conftest._TEST_NAME.findall(path.read_text()))
    slow_times, quick_times = {"cpu": 9.0, "alone": 9.0, "wall": 9.0}, {"cpu": 0.01, "alone": 0.01, "wall": 0.01}
    record = {f"tests/test_fusion_condorcet.py::{name}": slow_times for name in names}
    quick = SimpleNamespace(option=SimpleNamespace(markexpr="not slow and not browser"))
    ignored = []
    for changed in ({}, {next(iter(record)): quick_times}, {"drop": None}):
        current = {k: v for k, v in {**record, **changed}.items() if k != "drop" and v is not None}
        if "drop" in changed:
            current.pop(next(iter(record)))
        monkeypatch.setattr(conftest, "recorded_by_file",
                            lambda current=current: {"tests/test_fusion_condorcet.py": current})
        ignored.append(conftest.pytest_ignore_collect(path, quick))
    assert ignored == [True, None, None]
    whole = SimpleNamespace(option=SimpleNamespace(markexpr=""))
    monkeypatch.setattr(conftest, "recorded_by_file", lambda: {"tests/test_fusion_condorcet.py": record})
    assert conftest.pytest_ignore_collect(path, whole) is None


def test_recorded_durations_replace_this_runs_tests_and_keep_the_others(tmp_path, monkeypatch):
    path = tmp_path / "durations.json"
    path.write_text('{"a.py::kept": {"cpu": 3.0, "alone": 3.0, "wall": 4.0}, '
                    '"a.py::rerun": {"cpu": 9.0, "alone": 9.0, "wall": 9.0}}')
    monkeypatch.setattr(conftest, "DURATIONS", path)
    spent = conftest._Spent(None)
    spent.tests = {"a.py::rerun": {"spent": 0.1, "own": 0.1, "alone": 0.123, "wall": 0.5},
                   "a.py::new": {"spent": 2.0, "own": 0.2, "alone": 2.5, "wall": 2.25}}
    spent.write()
    rerun, new = {"cpu": 0.1, "alone": 0.12, "wall": 0.5}, {"cpu": 0.2, "alone": 2.5, "wall": 2.25}
    assert json.loads(path.read_text()) == {"a.py::kept": {"cpu": 3.0, "alone": 3.0, "wall": 4.0},
                                            "a.py::new": new, "a.py::rerun": rerun}
    spent.config = SimpleNamespace(args_source=pytest.Config.ArgsSource.TESTPATHS,
                                   option=SimpleNamespace(keyword="", markexpr=""))
    spent.write()  # the whole suite: what it did not run is gone (a renamed or removed test)
    assert json.loads(path.read_text()) == {"a.py::new": new, "a.py::rerun": rerun}


@pytest.mark.parametrize(("recorded", "slow"), [
    ({"cpu": 0.05, "alone": 0.2, "wall": 0.3}, False),
    ({"cpu": 0.5, "alone": 0.5, "wall": 0.6}, True),  # its own seconds: over the quick loop's share
    ({"cpu": 0.05, "alone": 1.8, "wall": 0.3}, True),  # a wide fixture it may pay for: near the check's limit
    ({"cpu": 0.05, "alone": 0.1, "wall": 12.0}, True),  # waits
])
def test_a_test_is_slow_by_its_recorded_seconds(recorded, slow):
    assert conftest.slow(recorded) is slow


def test_the_quick_loop_leaves_out_what_the_durations_record_as_slow():
    """The notebooks' runs are recorded over a CPU second each: collected, then deselected by -m 'not slow'."""
    recorded = json.loads(conftest.DURATIONS.read_text())
    slow = {n for n, d in recorded.items() if conftest.slow(d)}
    notebooks = {n for n in recorded if n.startswith("tests/test_notebooks.py::test_notebook_runs_")}
    assert notebooks and notebooks <= slow
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-m",
                           "not slow", "tests/test_notebooks.py"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    collected = set(done.stdout.split())
    assert not notebooks & collected
    assert "tests/test_notebooks.py::test_notebook_is_stored_without_outputs[workbench.ipynb]" in collected


SLOW_TO_FINISH = '''
import gc
import time


def pytest_unconfigure(config):
    """A worker still collecting garbage 7 s after its tests, as a loaded machine's can be."""
    if hasattr(config, "workerinput"):
        gc.callbacks.append(lambda phase, info: time.sleep(0.01))
        end = time.monotonic() + 7
        while time.monotonic() < end:
            gc.collect()
'''


def test_a_worker_slow_to_finish_ends_a_passing_run_without_a_traceback(tmp_path):
    """execnet SIGINTs a worker still running 5 s after the run ends: the KeyboardInterrupt landed in a gc callback
    and was printed after the last dot (issue 35)."""
    (tmp_path / "slow_to_finish.py").write_text(SLOW_TO_FINISH)
    done = _probe(tmp_path, "def test_nothing():\n    pass\n", "-p", "slow_to_finish", "-n", "1")
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "1 passed" in done.stdout, said
    assert "Traceback" not in said and "KeyboardInterrupt" not in said, said
