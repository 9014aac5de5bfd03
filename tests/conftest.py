"""Shared test helpers (no test module imports from another): where the real evaluation data beside the project lives,
Table 9 of Amigó et al., SIGIR 2013, TREC files written from dicts, measures registered for one test, and the servers'
plumbing (free ports, the processes below a server, stopping them all).

The real samples notebooks fetch (``workbench.datasets.fetch``) come from ``../shared/datasets`` as a mirror when it
is there (CI, the project's machines), into a cache under ``test-output/``; tests never reach the public URLs."""

from __future__ import annotations

import contextlib
import functools
import importlib
import itertools
import json
import math
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest
from _pytest.mark.expression import Expression
from hypothesis import settings

from workbench.datasets import shared
from workbench.errors import WorkbenchError
from workbench.lazy import DEFERRED, defer_module
from workbench.validation import environment_switch

# jsonschema, which altair imports, builds about 40 lark grammars when rfc3987_syntax is installed, for its "iri"
# formats alone: over a CPU second in every worker that imports altair. The tests defer it as the charts and widgets
# do (workbench.lazy.DEFERRED), so a test that imports altair before them pays nothing either.
for _module, _functions in DEFERRED.items():
    defer_module(_module, _functions)

ROOT = Path(__file__).resolve().parents[1]
# where workbench.datasets.shared looks: $WORKBENCH_SHARED_DATASETS (an empty folder plays a fresh clone), else
# ../shared/datasets
SHARED_DATASETS = Path(os.environ.get("WORKBENCH_SHARED_DATASETS") or ROOT.parent / "shared" / "datasets")
if shared() is not None:
    os.environ.setdefault("WORKBENCH_DATA_MIRROR", str(shared()))
os.environ.setdefault("WORKBENCH_CACHE", str(ROOT / "test-output" / "cache"))

# ------------------------------------------------------------------------------------------- Hypothesis
# Two profiles, chosen by WORKBENCH_HYPOTHESIS_PROFILE: "explore" (the default) draws new examples on every run;
# "ci" (.ci/run) is derandomized, the same examples on every run, so that a red CI run is a failure to fix and not
# a draw. A counterexample exploring finds is kept as an @example in its test, and CI runs it from then on. Neither
# profile has a deadline: time is measured by the benchmarks, not by tests on a shared machine (a deadline, and the
# too_slow health check it scales, fail by load). Both derive from Hypothesis's own "default" profile, not from the
# current one: where a CI variable is set, Hypothesis loads its built-in "ci" profile (derandomized) at import, and a
# profile derived from it would not explore.
settings.register_profile("explore", settings.get_profile("default"), deadline=None)
settings.register_profile("ci", settings.get_profile("explore"), derandomize=True, database=None, print_blob=True)
HYPOTHESIS_PROFILE = os.environ.get("WORKBENCH_HYPOTHESIS_PROFILE", "explore")
settings.load_profile(HYPOTHESIS_PROFILE)


def pytest_report_header(config) -> list[str]:
    chosen = settings.get_profile(HYPOTHESIS_PROFILE)
    return [f"hypothesis: profile {HYPOTHESIS_PROFILE!r} ({'derandomized' if chosen.derandomize else 'exploring'}; "
            "WORKBENCH_HYPOTHESIS_PROFILE=ci|explore)"]


# ------------------------------------------------------------------------------------------- xdist
def pytest_sessionfinish(session) -> None:
    """In an xdist worker whose tests are done: ignore SIGINT. execnet interrupts a worker still cleaning up 5 s
    after the controller ends the run (``os.kill(getpid(), SIGINT)``, then ``os._exit`` 10 s later); on a loaded
    machine pytest's last garbage collections take longer, and the KeyboardInterrupt, raised inside a gc callback
    (Hypothesis has one), printed a traceback at the end of a passing run (issue 35)."""
    if hasattr(session.config, "workerinput") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# ------------------------------------------------------------------------------------------- durations
# Which tests are slow is measured, not decided by hand: `./wb test --record-durations` writes each test's CPU seconds
# (user + system, of pytest and of the processes it waited for) to tests/durations.json: "cpu", its own (its call and
# its function-scoped fixtures), and "alone", as if it ran alone (also every class-, module- or session-wide fixture
# it uses, which whichever test comes first pays). At collection a test is marked slow when its own seconds exceed
# SLOW_SECONDS (the quick loop's budget), when alone it could exceed ALONE_SECONDS (the quick loop's check, below,
# with room), or when it waited more than SLOW_WALL_SECONDS. The quick loop (`./wb test --quick`, --cpu-limit=2)
# fails a test whose setup and call take more than 2 CPU seconds: a new slow test, or one grown slower, is caught
# at once. CPU time, not wall time, so that the check holds on a loaded machine; every run prints its CPU seconds.
DURATIONS = Path(__file__).with_name("durations.json")
SLOW_SECONDS = 0.05
ALONE_SECONDS = 1.5
SLOW_WALL_SECONDS = 10.0
QUICK_BUDGET = 70.0  # CPU seconds of `./wb test --quick` in all on a fresh clone, first run included (README): over
# it, the quick loop fails (issue 41)


def pytest_addoption(parser) -> None:
    group = parser.getgroup("workbench")
    group.addoption("--record-durations", action="store_true",
                    help=f"write each test's CPU seconds to {DURATIONS.name} (the slow marks are read from it)")
    group.addoption("--cpu-limit", type=float, default=None, metavar="SECONDS",
                    help="fail a test whose setup and call take more CPU seconds (./wb test --quick: 2)")
    group.addoption("--cpu-budget", type=float, default=QUICK_BUDGET, metavar="SECONDS",
                    help="with --cpu-limit, fail the run when it takes more CPU seconds in all (pytest, its workers, "
                         f"imports and collection; default {QUICK_BUDGET:g}, the quick loop's budget)")


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and of the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


_FIXTURE_SECONDS: dict[tuple[str, str], float] = {}  # (where defined, name) of a wider fixture: its last setup here
_SET_UP: set[tuple[str, str]] = set()  # the wider fixtures set up while the current test runs
_SETUP, _CALL = pytest.StashKey[float](), pytest.StashKey[float]()


class _FixtureClock:
    """The setup of each class-, module- or session-wide fixture in CPU seconds. A plugin, not a hook of this file:
    a session-wide fixture is set up through the session's hooks, which a conftest below the root is not part of."""

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        start = cpu_seconds()  # the fixtures it needs are set up before this hook: not counted twice
        try:
            return (yield)
        finally:
            if fixturedef.scope != "function":
                key = (fixturedef.baseid, fixturedef.argname)
                _FIXTURE_SECONDS[key] = cpu_seconds() - start
                _SET_UP.add(key)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    _SET_UP.clear()
    start = cpu_seconds()
    try:
        return (yield)
    finally:
        item.stash[_SETUP] = cpu_seconds() - start


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    start = cpu_seconds()
    try:
        return (yield)
    finally:
        item.stash[_CALL] = cpu_seconds() - start


def _seconds(item) -> dict[str, float]:
    """``spent`` (this setup and call), ``own`` (without the wider fixtures set up for it) and ``alone`` (with every
    wider fixture it uses)."""
    spent = item.stash[_SETUP] + item.stash[_CALL]
    own = spent - sum(_FIXTURE_SECONDS[k] for k in _SET_UP)
    wider = {(d.baseid, d.argname) for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs[-1:]
             if d.scope != "function"}
    return {"spent": spent, "own": own, "alone": own + sum(_FIXTURE_SECONDS.get(k, 0.0) for k in wider)}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when != "call" or _CALL not in item.stash:
        return report
    seconds = _seconds(item)
    report.user_properties.append(("cpu_seconds", seconds))
    limit = item.config.getoption("cpu_limit")
    if limit is not None and report.passed and seconds["spent"] > limit:
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} took {seconds['spent']:.1f} CPU seconds (setup {item.stash[_SETUP]:.1f}, "
                           f"call {item.stash[_CALL]:.1f}), over the quick loop's {limit:g}: record the durations "
                           "(./wb test --record-durations) so that it is marked slow, or make it cheaper")
    return report


def slow(recorded: dict[str, float]) -> bool:
    """Whether a test of these recorded seconds is left out of the quick loop."""
    return recorded["cpu"] > SLOW_SECONDS or recorded["alone"] > ALONE_SECONDS or \
        recorded["wall"] > SLOW_WALL_SECONDS


@functools.cache
def recorded_durations() -> dict[str, dict[str, float]]:
    """tests/durations.json as read once per process: ``{nodeid: {"cpu", "alone", "wall"}}``."""
    return json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}


def deselects_slow(markexpr: str) -> bool:
    """Whether ``-m markexpr`` deselects every test marked slow, whatever its other marks (``not slow and not
    browser``: yes; ``browser``, ``slow or browser``, none: no)."""
    if not markexpr:
        return False
    expression = Expression.compile(markexpr)
    others = sorted(expression.idents() - {"slow"})
    return not any(expression.evaluate(lambda name, marks=frozenset(chosen), **_: name == "slow" or name in marks)
                   for size in range(len(others) + 1) for chosen in itertools.combinations(others, size))


_TEST_NAME = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(test\w*)", re.MULTILINE)


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    """In a run that deselects the slow tests (the quick loop), a test file all of whose tests the record marks slow
    is not imported: its imports (ranx and numba, trectools, the fuzzers' strategies) were paid by every worker for
    tests it then deselected. A file with a test the record does not name (a new one) is collected as usual."""
    if not (collection_path.suffix == ".py" and collection_path.name.startswith("test_")
            and collection_path.is_relative_to(ROOT) and deselects_slow(config.option.markexpr)):
        return None
    recorded = recorded_by_file().get(collection_path.relative_to(ROOT).as_posix(), {})
    known = {nodeid.split("::")[-1].split("[")[0] for nodeid in recorded}
    if not recorded or not all(map(slow, recorded.values())):
        return None
    return True if set(_TEST_NAME.findall(collection_path.read_text(encoding="utf-8"))) <= known else None


@functools.cache
def recorded_by_file() -> dict[str, dict[str, dict[str, float]]]:
    """:func:`recorded_durations` grouped by test file: ``{path: {nodeid: times}}``."""
    grouped: dict[str, dict[str, dict[str, float]]] = {}
    for nodeid, times in recorded_durations().items():
        grouped.setdefault(nodeid.split("::")[0], {})[nodeid] = times
    return grouped


@pytest.hookimpl(tryfirst=True)  # before -m deselects by mark
def pytest_collection_modifyitems(config, items) -> None:
    """Mark slow the tests tests/durations.json records as slow."""
    recorded = recorded_durations()
    for item in items:
        if item.nodeid in recorded and slow(recorded[item.nodeid]):
            item.add_marker(pytest.mark.slow)


class _Spent:
    """On the controller (the only process without xdist's ``workerinput``): every test's recorded seconds, and at the
    end the CPU seconds in all, and tests/durations.json when asked."""

    def __init__(self, config) -> None:
        self.config, self.tests, self.session, self.started = config, {}, None, time.monotonic()

    def pytest_sessionstart(self, session) -> None:
        self.session = session

    def pytest_runtest_logreport(self, report) -> None:
        for name, value in report.user_properties:
            if name == "cpu_seconds" and report.when == "call":
                self.tests[report.nodeid] = {**value, "wall": report.duration}

    def pytest_terminal_summary(self, terminalreporter) -> None:
        total, budget = cpu_seconds(), self.config.getoption("cpu_budget")
        quick = self.config.getoption("cpu_limit") is not None
        line = (f"CPU: {total:.1f} s in all (user + system: pytest, its workers and what they started), "
                f"{sum(t['spent'] for t in self.tests.values()):.1f} s in {len(self.tests)} tests' setups and "
                f"calls")
        if quick:
            line += (f"; {time.monotonic() - self.started:.0f} s wall at load {os.getloadavg()[0]:.1f}; the quick "
                     f"loop's budget is {budget:g} CPU seconds in all")
        terminalreporter.write_line(line)
        if quick and total > budget and self.session is not None:
            terminalreporter.write_line(
                f"FAILED: the quick loop took {total:.1f} CPU seconds, over its budget of {budget:g}: make "
                "tests cheaper, or record the durations (./wb test --record-durations) so that slow ones leave it",
                red=True, bold=True)
            if self.session.exitstatus == pytest.ExitCode.OK:
                self.session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self.config.getoption("record_durations"):
            terminalreporter.write_line(f"durations of {len(self.tests)} tests written to {self.write()}")

    def write(self) -> Path:
        """tests/durations.json: this run's tests, and the others recorded before unless this run was the whole
        suite (no paths, -k or -m given); one line each, sorted."""
        whole = self.config is not None and self.config.args_source == pytest.Config.ArgsSource.TESTPATHS and \
            not self.config.option.keyword and not self.config.option.markexpr
        recorded = json.loads(DURATIONS.read_text()) if DURATIONS.exists() and not whole else {}
        recorded.update({nodeid: {"cpu": round(t["own"], 2), "alone": round(t["alone"], 2),
                                  "wall": round(t["wall"], 2)} for nodeid, t in self.tests.items()})
        lines = [f"  {json.dumps(nodeid)}: {json.dumps(recorded[nodeid])}" for nodeid in sorted(recorded)]
        DURATIONS.write_text("{\n" + ",\n".join(lines) + "\n}\n")
        return DURATIONS


def pytest_configure(config) -> None:
    config.pluginmanager.register(_FixtureClock(), "workbench-fixture-clock")
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Spent(config), "workbench-durations")


# ------------------------------------------------------------------------------------------- references
# What the numbers are checked against: the real samples and official scores of ../shared/datasets, the reference
# libraries of the dev extra (pytrec_eval, ranx, ir_measures, pyndeval, pyNTCIREVAL, scikit-learn, bcubed...),
# chromium for the browser tests. A user's clone without them skips those tests, saying what is missing; CI sets
# WORKBENCH_REQUIRE_REFERENCES=1 (.ci/run), and there a missing reference fails the test: a moved file or a broken
# install must not pass as a green run with fewer checks.
REQUIRE_REFERENCES = environment_switch("WORKBENCH_REQUIRE_REFERENCES")  # "false", "no", "off" are off too


def missing_reference(reason: str) -> NoReturn:
    """Skip the test (or, at module level, the module) because a reference is absent, with ``reason``; fail it
    instead under WORKBENCH_REQUIRE_REFERENCES=1."""
    if REQUIRE_REFERENCES:
        pytest.fail(f"{reason} (WORKBENCH_REQUIRE_REFERENCES=1: a missing reference fails)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def reference_module(name: str) -> ModuleType:
    """The reference library ``name`` imported, as :func:`pytest.importorskip` does, but through
    :func:`missing_reference` (the dev extra installs every one)."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing_reference(f"the reference library {name} cannot be imported ({error}): ./wb test installs it "
                          "with the dev extra")


@pytest.fixture(scope="session")
def ranx() -> ModuleType:
    """ranx, imported and its numba code compiled (or read from numba's cache) once per process: about 6 CPU
    seconds warm, 60 to 150 on a fresh install. A session-wide fixture, so that every test comparing with ranx
    carries that cost in its recorded durations (and is marked slow), whichever test pays it first."""
    module = reference_module("ranx")
    runs = [module.Run({"q": {"a": 2.0, "b": 1.0}}, name="x"), module.Run({"q": {"b": 2.0, "c": 1.0}}, name="y")]
    module.fuse(runs, norm="min-max", method="sum")
    return module


def shared_dataset(*parts: str) -> Path:
    """Path to ``../shared/datasets/<parts>``; where it is absent, :func:`missing_reference` (a skip with a clear
    message, a failure in CI)."""
    path = shared(*parts)
    if path is None:
        missing_reference(f"{SHARED_DATASETS.joinpath(*parts)} is absent: the real evaluation samples live beside "
                          "the project (../shared/datasets)")
    return path


# trec_eval 10.0's Makefile quicktest: (reference output, command line); see trec_eval_test/SOURCE.txt
QUICKTEST = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test", ["qrels.test.with-comments", "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level", "results.test"]),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m",
                              "recall.20,2000", "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m",
                              "11pt_avg..25,.5,.75", "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4",
                              "-msuccess.2,5,20", "qrels.test", "results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.test", "prefs.results.test"]),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs", "prefs.comment.test", "prefs.results.test"]),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs", "qrels.test", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.123", "results.test"]),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg", "qrels.comments.123", "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test", "results.test"]),
]


def quicktest_paths(args: list[str]) -> list[str]:
    """The command line with its file names in the shared folder (not ``-R``'s format names)."""
    return [str(shared_dataset("trec_eval_test", a)) if a.startswith(("qrels", "results", "prefs", "zscores"))
            and before not in ("-R", "-m") else a for before, a in zip(["", *args], args, strict=False)]



# ------------------------------------------------------------------------------------- Amigó et al., SIGIR 2013, Table
# 9
TABLE9_GOLD = "d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}"
TABLE9_OUTPUTS = [
    "d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\nd6 d7",
    "d1 {d2 d3} d4\n{d4 d5} {d6 d7}\n{d6 d7}",
    "d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}",
    "d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7 d8}",
    "{d6 d7}\n{d4 d5} {d6 d7}\nd1 {d2 d3 d4}",
]


# ------------------------------------------------------------------------------------------- TREC files
def write_trec(folder: Path, qrels: Mapping, runs: Mapping) -> tuple[Path, Path]:
    """``folder/qrels`` and ``folder/run`` as trec_eval reads them, from qrels ``{topic: {doc: grade}}`` and runs
    ``{system: {topic: {doc: score}}}`` (several systems share the run file, told apart by the tag column);
    ranks count from 1 in the order given (trec_eval ignores them), scores are written as Python prints them."""
    qrels_path, run_path = folder / "qrels", folder / "run"
    qrels_path.write_text("".join(f"{t} 0 {d} {g}\n" for t, judged in qrels.items() for d, g in judged.items()))
    run_path.write_text("".join(f"{t} Q0 {d} {rank} {s!r} {system}\n" for system, run in runs.items()
                                for t, scored in run.items()
                                for rank, (d, s) in enumerate(scored.items(), start=1)))
    return qrels_path, run_path


# trec_eval's measure names (as pytrec_eval reports them) and the registry's spellings, {L} the relevance level.
TREC_EVAL_SPELLINGS = {
    "bpref": "Bpref(rel_level={L})", "infAP": "infAP(rel_level={L})", "set_P": "SetP(rel_level={L})",
    "set_recall": "SetR(rel_level={L})", "set_F": "SetF(rel_level={L})", "set_map": "SetAP(rel_level={L})",
    "set_relative_P": "SetRelP(rel_level={L})", "num_rel": "NumRel(rel_level={L})", "num_ret": "NumRet",
    "num_rel_ret": "NumRelRet(rel_level={L})", "num_nonrel_judged_ret": "NumNonRelJudgedRet(rel_level={L})",
    "recall_7": "R(rel_level={L})@7", "relative_P_7": "RelP(rel_level={L})@7",
    "iprec_at_recall_0.30": "IPrec(rel_level={L})@0.3", "Rprec_mult_0.60": "RPrecMult(rel_level={L})@0.6",
    "11pt_avg": "11ptAvg(rel_level={L})", "binG": "BinG(rel_level={L})", "utility": "SetUtility(rel_level={L})",
    "G": "G", "ndcg_rel": "nDCGRel", "Rndcg": "RnDCG(rel_level={L})", "map": "map(rel_level={L})", "ndcg": "nDCG",
}


def rounds_as_trec_eval_9(num_rel: float) -> bool:
    """Whether trec_eval 9's ⌊r·R + 0.9⌋ (pytrec_eval bundles version 9) and version 10's lround(r·R) agree at
    r = 0, 0.1, ..., 1."""
    return all(math.floor(r / 10 * num_rel + 0.9) == math.floor(r / 10 * num_rel + 0.5) for r in range(11))


# --------------------------------------------------------------------------------- the measure registry
@pytest.fixture
def register_measure():
    """``register_measure(name, compute, **spec)`` adds a measure to the registry (``task="test"`` unless
    given) for one test; everything it added is removed after the test, passed or failed."""
    from workbench.metrics import registry

    added = []

    def register(name: str, compute, *, task: str = "test", source: str = "tests", **spec):
        added.append(registry.register(name, compute, task=task, source=source, **spec))
        return added[-1]

    yield register
    for spec in added:
        registry.unregister(spec.name)


@pytest.fixture
def toy_measures(register_measure):
    """Four throwaway measures (the campaign logic is under test, not a metric): the share of gold-prioritised
    documents the output prioritises, a slow copy, a failure on bad input, a bug."""

    def shared(gold, output):
        return len(gold.prioritised & output.prioritised) / len(gold.prioritised)

    def slow(gold, output):
        time.sleep(0.35)
        return shared(gold, output)

    def failing(gold, output):
        raise WorkbenchError("output has a document the gold lacks")

    def buggy(gold, output):
        return 1 / 0

    names = {"test-shared": shared, "test-slow": slow, "test-failing": failing, "test-buggy": buggy}
    for name, compute in names.items():
        register_measure(name, compute, source="tests/conftest.py")
    return list(names)


# -------------------------------------------------------------------------------------------- servers
def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
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


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stop_tree(process: subprocess.Popen, below: list[int], grace: float = 10) -> None:
    """SIGTERM ``process`` and the processes ``below`` it (found by :func:`descendants` while it ran), by pid;
    SIGKILL whatever still runs ``grace`` seconds later; then reap ``process``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is None:
            process.send_signal(sig)
        for pid in below:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and (process.poll() is None or any(map(alive, below))):
            time.sleep(0.2)
    process.wait(grace)

# ---------------------------------------------------------------------------------- the browser tests
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# What the browser's console says when a page's widget manager and JupyterLab's shared modules disagree on versions
# (issue 41: none, with the lab extra's pins; benchmarks/bench_widgets.py counts them too).
VERSION_WARNINGS = ("Unsatisfied version", "No satisfying version")
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
OUTPUT = ROOT / "test-output" / "browser"
NOTEBOOK = ROOT / "notebooks" / "workbench.ipynb"


@pytest.fixture(autouse=True)
def _chromium_for_the_browser_tests(request) -> None:
    """A test marked ``browser`` without chromium on PATH: :func:`missing_reference` (a skip, a failure in CI)."""
    if CHROMIUM is None and request.node.get_closest_marker("browser"):
        missing_reference("no chromium on PATH (apt-get install chromium)")


class Server:
    """JupyterLab or Voilà on 127.0.0.1, a free port and a token, in a temporary folder with a copy of the
    notebook (the main one unless another is given) and fresh settings; ``stop()`` ends it and every process below
    it."""

    def __init__(self, kind: str, tmp: Path, notebook: Path = NOTEBOOK) -> None:
        self.kind = kind
        notebooks = tmp / "nb"
        notebooks.mkdir()
        shutil.copy(notebook, notebooks / notebook.name)
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
            self.page = f"{self.base}/lab/tree/{notebook.name}?reset&token={self.token}"
        else:
            command = [sys.executable, "-m", "voila", str(notebooks / notebook.name), "--no-browser",
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
        stop_tree(self.proc, below)


def settle(page) -> None:
    """Two animation frames and a short pause: layout and pending widget messages are done."""
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.wait_for_timeout(500)
