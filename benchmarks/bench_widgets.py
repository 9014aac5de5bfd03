"""Latency of one edit in the Workbench: a level row typed → parse → R≺ S≺ R∼ S∼ for every output →
scores table → the charts (scores, history, lost mass) redrawn and their specs serialised (what the kernel
sends to the browser).

The workbench is drawn first (its charts built, as when the browser shows it). Targets (issue 42): a median under
20 ms for the paper-size tables (Amigó et al., SIGIR 2013, Table 9: 7 documents, 5 outputs; 8 ms of it in the
kernels) and under 30 ms for 1,000-document tables. Run: ``python benchmarks/bench_widgets.py [--repeat 30]``
(``--only edits``: this table alone). It prints one line per case: median, 90th percentile and max over the
edits, the median CPU time of this process per edit (steadier than wall time where the machine is shared), and
the time spent in the kernels (R&S of every output, and ``explain`` of the output in focus for the why panel and
the lost-mass chart).

Then the click-to-panel update (issue 11): a document token clicked in an output → ``workbench.explain`` →
the why panel's table and HTML, the contribution chart's spec and the highlights; target under 50 ms on
Table 9, printed the same way (a click in the output already explained reuses its explanation).

Then undo (issue 25): Ctrl+Z as the browser sends it, after an edit → the step before restored (texts pushed back
into the editors, no kernel call for the scores: each step keeps its own) and everything redrawn; same targets
as an edit.

Then the inspector of two runs (issue 19): a bar of the per-topic chart clicked, as the front end reports it →
the topic's rows of both runs (their explanations computed once per measure) → the rankings board, the scores and
the chart's outline redrawn, the board's state serialised; rankings of 1,000 documents (two synthetic runs over
100 topics, and the TREC 2003 Robust runs when ``../shared/datasets`` is there); target under 100 ms.

First, start-up (issues 30 and 41): in fresh processes (modules read from their bytecode cache, as a user's are),
``import workbench.widgets`` plus ``from workbench.widgets import Workbench`` and the first ``Workbench()`` (target
under 1.5 s together; best of ``--repeat-start``, each phase printed in wall and CPU seconds), then the charts built
on the first display (target 0.5 s); then Voilà serving ``notebooks/workbench.ipynb`` with the package's template,
Debian's chromium opening it (Playwright), one line each: the CPU seconds the kernel (target 2) and the server had
spent when the scores table showed numbers, wall seconds from the server's start to the page opened, to the scores
(target: 5 s after the page opens on an idle machine, 10 s at load 4) and to the chart drawn, the load average
before and after (the machine may be shared: CPU seconds vary less than wall seconds), and the warnings the
browser's console printed about JupyterLab's shared modules ("Unsatisfied version", "No satisfying version": the
front-end packages out of step, issue 41; target none). ``--only startup`` runs this section alone;
``--no-browser`` skips Voilà.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.widgets.state as module  # noqa: E402
from workbench.model import Organization  # noqa: E402
from workbench.widgets import Workbench  # noqa: E402
from workbench.widgets.gallery import EXAMPLES  # noqa: E402


def clustered(n_docs: int, per_cluster: int, clusters_per_level: int, seed: int) -> tuple[str, list[str]]:
    """A gold of ``n_docs`` documents in levels of clusters, and two outputs: one with 5% of the documents
    swapped between clusters, one with its levels in reverse order."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(1, n_docs + 1)]
    clusters = [docs[i:i + per_cluster] for i in range(0, n_docs, per_cluster)]
    levels = [clusters[i:i + clusters_per_level] for i in range(0, len(clusters), clusters_per_level)]

    def text(levels) -> str:
        return "\n".join(" ".join("{" + " ".join(c) + "}" for c in level) for level in levels)

    noisy = [[list(c) for c in level] for level in levels]
    flat = [c for level in noisy for c in level]
    for _ in range(n_docs // 20):
        a, b = rng.sample(range(len(flat)), 2)
        i, j = rng.randrange(len(flat[a])), rng.randrange(len(flat[b]))
        flat[a][i], flat[b][j] = flat[b][j], flat[a][i]
    return text(levels), [text(noisy), text(levels[::-1])]


def ranking(n_docs: int, seed: int) -> tuple[str, list[str]]:
    """A graded gold (levels of 50 singletons) over an unlimited tail, and a shuffled ranking of the same
    documents plus 100 unjudged ones."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(1, n_docs + 1)]
    gold = "\n".join(" ".join(docs[i:i + 50]) for i in range(0, n_docs, 50))
    run = docs + [f"u{i}" for i in range(100)]
    rng.shuffle(run)
    return gold, ["\n".join(run)]


class KernelClock:
    """Times every call the widget makes to the kernels (``reliability_sensitivity`` and ``explain_rs``) while
    installed in the workbench module."""

    NAMES = ("reliability_sensitivity", "explain_rs")

    def __init__(self) -> None:
        self.seconds = 0.0

    def __enter__(self) -> KernelClock:
        self.saved = {name: getattr(module, name) for name in self.NAMES}
        for name, kernel in self.saved.items():
            setattr(module, name, self._timed(kernel))
        return self

    def __exit__(self, *_exc) -> None:
        for name, kernel in self.saved.items():
            setattr(module, name, kernel)

    def _timed(self, kernel):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return kernel(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def summary(name: str, wb: Workbench, gold: str, samples: list[float], kernel_samples: list[float],
            levels: int | str, cpu_samples: list[float] | None = None) -> dict:
    ms = sorted(1000 * s for s in samples)
    return {"case": name, "documents": len(Organization.parse(gold).documents), "outputs": len(wb.outputs),
            "levels": levels, "median_ms": statistics.median(ms), "p90_ms": ms[int(0.9 * (len(ms) - 1))],
            "max_ms": ms[-1], "kernel_median_ms": 1000 * statistics.median(kernel_samples),
            "cpu_median_ms": 1000 * statistics.median(cpu_samples) if cpu_samples else float("nan")}


def measure(name: str, gold: str, outputs: list[str] | dict[str, str], repeat: int, edit: str) -> dict:
    wb = Workbench(gold, outputs, n=10, wn=0.8)
    wb.frame.receive({"kind": "shown"})          # drawn, as in a browser: the charts are built (untimed)
    editor = wb.gold if edit == "gold" else wb.outputs[0]
    row = editor.levels[0]
    original = row.value
    edited = original.split()[0].lstrip("{").rstrip("}") if " " in original else original + " d0"
    samples, kernel_samples, cpu_samples = [], [], []
    with KernelClock() as clock:
        for i in range(repeat):
            wb.state.clear_history()
            clock.seconds = 0.0
            start, cpu = time.perf_counter(), time.process_time()
            row.value = edited if i % 2 == 0 else original
            json.dumps(wb.scores_chart.spec), json.dumps(wb.history_chart.spec), json.dumps(wb.lost_chart.spec)
            samples.append(time.perf_counter() - start)
            cpu_samples.append(time.process_time() - cpu)
            kernel_samples.append(clock.seconds)
            assert editor.error == "" and wb.state.scores, (name, editor.error, wb.state.status)
    return summary(name, wb, gold, samples, kernel_samples, len(editor.organization.levels), cpu_samples)


def measure_clicks(name: str, gold: str, outputs, clicks: list[tuple[int, str]], repeat: int) -> dict:
    """Click the tokens ``clicks`` (output index, document) in turn, as the front end reports a click."""
    wb = Workbench(gold, outputs, n=10, wn=0.8)
    wb.frame.receive({"kind": "shown"})          # drawn, as in a browser: the charts are built (untimed)
    samples, kernel_samples = [], []
    with KernelClock() as clock:
        for i in range(repeat):
            index, document = clicks[i % len(clicks)]
            board = wb.outputs[index].board
            clock.seconds = 0.0
            start = time.perf_counter()
            board.receive({"kind": "select", "document": document})
            json.dumps(wb.lost_chart.spec), len(wb.views.why_details.value)
            samples.append(time.perf_counter() - start)
            kernel_samples.append(clock.seconds)
            assert not wb.views.why.warned and set(wb.state.why["measure"]) <= {"R≺", "S≺", "R∼", "S∼"}, name
    return summary(name, wb, gold, samples, kernel_samples, "")


def measure_undo(name: str, gold: str, outputs, repeat: int, edit: str) -> dict:
    """Edit a level row (untimed), then time the Ctrl+Z that undoes it, as the front end sends it."""
    wb = Workbench(gold, outputs, n=10, wn=0.8)
    wb.frame.receive({"kind": "shown"})          # drawn, as in a browser: the charts are built (untimed)
    editor = wb.gold if edit == "gold" else wb.outputs[0]
    row = editor.levels[0]
    original = row.value
    edited = original.split()[0].lstrip("{").rstrip("}") if " " in original else original + " d0"
    samples, kernel_samples, cpu_samples = [], [], []
    with KernelClock() as clock:
        for _ in range(repeat):
            row.value = edited
            clock.seconds = 0.0
            start, cpu = time.perf_counter(), time.process_time()
            wb.frame.receive({"kind": "undo"})
            json.dumps(wb.scores_chart.spec), json.dumps(wb.history_chart.spec)
            samples.append(time.perf_counter() - start)
            cpu_samples.append(time.process_time() - cpu)
            kernel_samples.append(clock.seconds)
            assert editor.levels[0].value == original and editor.error == "", name
    return summary(name, wb, gold, samples, kernel_samples, len(editor.organization.levels), cpu_samples)


def synthetic_campaign(topics: int, docs: int, seed: int):
    """Two runs of ``docs`` documents over ``topics`` topics, a tenth of them judged (grades 0–3)."""
    import numpy as np

    from workbench.data.campaign import Campaign

    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"A": {}, "B": {}}
    for t in range(topics):
        ids = [f"q{t}-d{i}" for i in range(docs + 20)]
        qrels[f"q{t}"] = {d: int(rng.integers(0, 4)) for d in ids[: docs // 10] + ids[docs:]}
        for system in runs:
            runs[system][f"q{t}"] = {d: float(rng.random()) for d in rng.permutation(ids[:docs])}
    return Campaign.from_dicts(qrels, runs)


def measure_topic_switch(name: str, campaign, systems, repeat: int, measure: str = "AP") -> dict:
    """Click the per-topic chart's bars in turn, as the front end reports a click."""
    from workbench.widgets import Inspector

    inspector = Inspector(campaign, systems=systems, measure=measure, measures=[measure], k=20)
    topics = inspector.deltas["topic"].astype(str).tolist()
    samples = []
    for i in range(repeat):
        topic = topics[(i * 7 + 1) % len(topics)]
        start = time.perf_counter()
        inspector.chart._vl_selections = {"pick": {"value": {"vlPoint": {"or": [{"topic": topic}]}}, "store": []}}
        json.dumps(inspector.board.columns), json.dumps(inspector.difference_board.difference)
        len(inspector.summary.value)
        samples.append(time.perf_counter() - start)
        assert inspector.topic == topic and not inspector.message, (name, topic, inspector.message)
    ms = sorted(1000 * s for s in samples)
    rows = inspector.table.groupby("system").size().max()
    return {"case": name, "documents": int(rows), "median_ms": statistics.median(ms),
            "p90_ms": ms[int(0.9 * (len(ms) - 1))], "max_ms": ms[-1]}


ROOT = Path(__file__).resolve().parents[1]
START = """
import time
clocks = [(time.perf_counter(), time.process_time())]
import workbench.widgets
from workbench.widgets import Workbench
clocks.append((time.perf_counter(), time.process_time()))
bench = Workbench()
clocks.append((time.perf_counter(), time.process_time()))
bench.frame.receive({"kind": "shown"})   # what the front end says when it draws the view: the charts are built
clocks.append((time.perf_counter(), time.process_time()))
print(*(after[i] - before[i] for i in (0, 1) for before, after in zip(clocks, clocks[1:])))
"""
PHASES = ("import workbench.widgets + Workbench class", "first Workbench()", "its charts, built on the first display")


def user_environment() -> dict[str, str]:
    """The environment of the processes measured: the worktree's package, and its modules read from their bytecode
    cache as a user's are (not compiled again in every process)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def measure_start(repeat: int) -> list[tuple[float, ...]]:
    """Wall seconds, then CPU seconds, to import the widgets, build the first Workbench and draw its charts, each
    in a fresh process (a first, unmeasured one writes the bytecode cache)."""
    runs = []
    for _ in range(repeat + 1):
        done = subprocess.run([sys.executable, "-c", START], capture_output=True, text=True, check=True,
                              cwd=ROOT, env=user_environment())
        runs.append(tuple(map(float, done.stdout.split()[-6:])))
    return runs[1:]


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user and system) the live processes ``pids`` have spent, from /proc."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


"""How webpack's module federation says a JupyterLab extension asks for a shared module in another version."""


def measure_voila() -> dict[str, float] | str:
    """Seconds from Voilà's start to the workbench's scores shown in chromium, and to its chart drawn, the CPU
    seconds the server and its kernel spent by then, and the console's warnings about shared modules' versions
    (or why it could not be measured)."""
    sys.path.insert(0, str(ROOT))
    try:
        from playwright.sync_api import sync_playwright

        from tests.conftest import CHROME_ARGS, CHROMIUM, VERSION_WARNINGS, Server, descendants
    except ImportError as missing:
        return f"skipped: {missing}"
    if CHROMIUM is None:
        return "skipped: no chromium on PATH (apt-get install chromium)"
    seen: dict[str, float] = {}
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(user_environment())  # the server and its kernel start from the user's environment
    try:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            server = Server("voila", Path(tmp))
            os.environ.clear()
            os.environ.update(saved)

            def spent() -> tuple[float, float]:
                kernels = descendants(server.proc.pid)
                return cpu_seconds([server.proc.pid, *kernels]), cpu_seconds(kernels)

            try:
                server.wait("/voila/static/voila.js", timeout=120)
                seen["server answers"] = time.perf_counter() - start
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
                    try:
                        page = browser.new_page(viewport={"width": 1280, "height": 720})
                        warnings: list[str] = []
                        page.on("console", lambda message: warnings.append(message.text)
                                if message.text.startswith(VERSION_WARNINGS) else None)
                        page.goto(server.page, timeout=180_000, wait_until="commit")
                        seen["page opened"] = time.perf_counter() - start
                        page.wait_for_function("/^\\d\\.\\d{4}$/.test(document.querySelector("
                                               "'[data-role=scores] td[data-measure]')?.textContent ?? '')",
                                               timeout=180_000, polling=100)
                        seen["scores shown"] = time.perf_counter() - start
                        seen["CPU: server and kernel"], seen["CPU: kernel"] = spent()
                        page.wait_for_selector("[data-role=chart] .vega-embed svg, "
                                               "[data-role=chart] .vega-embed canvas", timeout=180_000)
                        seen["chart drawn"] = time.perf_counter() - start
                        page.wait_for_selector(".wb-comparison .vega-embed", timeout=180_000)
                        seen["whole page"] = time.perf_counter() - start
                        seen["version warnings"] = len(warnings)
                    finally:
                        browser.close()
            finally:
                server.stop()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return seen


def startup(repeat: int, browser: bool) -> None:
    load = os.getloadavg()[0]
    runs = measure_start(repeat)
    best = min(runs, key=lambda run: sum(run[3:]))
    print(f"start-up (load average {load:.1f}; best of {repeat} fresh processes by CPU; target: import + first "
          f"Workbench under 1.5 s, the first display's charts under 0.5 s)")
    print(f"  {'':42} {'wall':>7} {'CPU':>7}")
    for i, phase in enumerate(PHASES):
        print(f"  {phase:42} {best[i]:6.2f}s {best[3 + i]:6.2f}s   (CPU of all runs: "
              f"{', '.join(f'{r[3 + i]:.2f}' for r in runs)})")
    total = best[3] + best[4]
    print(f"  {'import + first Workbench':42} {best[0] + best[1]:6.2f}s {total:6.2f}s   "
          f"{'ok' if total < 1.5 else 'SLOW'} (CPU)")
    print(f"  {'the charts':42} {best[2]:6.2f}s {best[5]:6.2f}s   {'ok' if best[5] <= 0.5 else 'SLOW'} (CPU)")
    if not browser:
        return
    before = os.getloadavg()
    seen = measure_voila()
    if isinstance(seen, str):
        print(f"  Voilà: {seen}")
        return
    opened = seen["scores shown"] - seen["page opened"]
    kernel, server = seen["CPU: kernel"], seen["CPU: server and kernel"] - seen["CPU: kernel"]
    print("  Voilà serving notebooks/workbench.ipynb, chromium opening it:")
    print(f"    kernel CPU before the scores show    {kernel:5.2f} s   {'ok' if kernel <= 2 else 'SLOW'} (target 2)")
    print(f"    server CPU before the scores show    {server:5.2f} s")
    print(f"    wall seconds to the page opened      {seen['page opened']:5.1f} s   (the server answered at "
          f"{seen['server answers']:.1f})")
    target = 5 if before[0] < 1 else 10 if before[0] <= 4 else None
    verdict = ("no target above load 4" if target is None
               else f"{'ok' if opened <= target else 'SLOW'} (target {target})")
    print(f"    wall seconds to the scores shown     {seen['scores shown']:5.1f} s   {opened:.1f} after the page "
          f"opened: {verdict}; targets 5 idle, 10 at load 4")
    print(f"    wall seconds to the chart drawn      {seen['chart drawn']:5.1f} s   (every widget of the notebook: "
          f"{seen['whole page']:.1f})")
    print(f"    load average (1, 5, 15 min)          {' '.join(f'{x:.2f}' for x in before)} before, "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} after")
    warnings = int(seen["version warnings"])
    print(f"    shared-module version warnings       {warnings:5d}     {'ok' if warnings == 0 else 'OFF'} (target 0: "
          "the browser's console, tests.conftest.VERSION_WARNINGS)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="edits per case (default 30)")
    parser.add_argument("--repeat-start", type=int, default=3, help="fresh processes for start-up (default 3)")
    parser.add_argument("--only", choices=["startup", "edits"], help="run one section only")
    parser.add_argument("--no-browser", action="store_true", help="start-up without Voilà and chromium")
    args = parser.parse_args()
    if args.only != "edits":
        startup(args.repeat_start, not args.no_browser)
    if args.only == "startup":
        return
    print(f"\nedits (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    table9 = EXAMPLES["Table 9 (document organization)"]
    cases = [
        ("SIGIR 2013 Table 9, gold edited", table9.gold, table9.outputs, 20, "gold"),
        ("1,000 docs, 50 levels of clusters, gold", *clustered(1000, 5, 4, seed=1), 30, "gold"),
        ("1,000 docs, graded gold (20 levels)", *ranking(1000, seed=2), 30, "gold"),
        ("1,000 docs, ranked output (1,100 levels)", *ranking(1000, seed=2), 30, "output"),
    ]
    print(f"{'case (the edited table)':42} {'docs':>5} {'outs':>4} {'levels':>6} {'median':>8} {'p90':>8} "
          f"{'max':>8} {'CPU':>8} {'kernel':>8} {'target':>7}")
    for name, gold, outputs, target, edit in cases:
        result = measure(name, gold, outputs, args.repeat, edit)
        verdict = "ok" if result["median_ms"] < target else "SLOW"
        print(f"{name:42} {result['documents']:>5} {result['outputs']:>4} {result['levels']:>6} "
              f"{result['median_ms']:>6.1f}ms {result['p90_ms']:>6.1f}ms {result['max_ms']:>6.1f}ms "
              f"{result['cpu_median_ms']:>6.1f}ms {result['kernel_median_ms']:>6.1f}ms {target:>4}ms {verdict}")
    if args.only == "edits":
        return
    names = ["SIGIR 2013 Table 9, Ctrl+Z (gold)", "1,000 docs, 50 levels, Ctrl+Z (gold)"]
    for (_, gold, outputs, target, edit), name in zip(cases[:2], names, strict=True):
        result = measure_undo(name, gold, outputs, args.repeat, edit)
        verdict = "ok" if result["median_ms"] < target else "SLOW"
        print(f"{result['case']:42} {result['documents']:>5} {result['outputs']:>4} {result['levels']:>6} "
              f"{result['median_ms']:>6.1f}ms {result['p90_ms']:>6.1f}ms {result['max_ms']:>6.1f}ms "
              f"{result['cpu_median_ms']:>6.1f}ms {result['kernel_median_ms']:>6.1f}ms {target:>4}ms {verdict}")
    clicks = [(3, "d8"), (3, "d6"), (4, "d1"), (0, "d4"), (1, "d2")]
    result = measure_clicks("SIGIR 2013 Table 9, click → why panel", table9.gold, table9.outputs, clicks,
                            max(args.repeat, 50))
    verdict = "ok" if result["median_ms"] < 50 else "SLOW"
    print(f"{result['case']:42} {result['documents']:>5} {result['outputs']:>4} {result['levels']:>6} "
          f"{result['median_ms']:>6.1f}ms {result['p90_ms']:>6.1f}ms {result['max_ms']:>6.1f}ms "
          f"{'':>8} {result['kernel_median_ms']:>6.1f}ms {50:>4}ms {verdict}")
    cases = [("inspector: topic clicked, 2 synthetic runs", synthetic_campaign(100, 1000, seed=3), ("A", "B"))]
    from workbench.datasets import shared

    robust = shared("trec_robust2003")
    if robust is not None:
        from workbench.data import read_campaign

        campaign = read_campaign(robust / "qrels.txt", sorted((robust / "runs").glob("*.gz")))
        cases.append(("inspector: topic clicked, TREC 2003 Robust", campaign, ("aplrob03a", "uwmtCR0")))
    print(f"\n{'case (rankings of each run)':42} {'docs':>5} {'median':>8} {'p90':>8} {'max':>8} {'target':>7}")
    for name, campaign, systems in cases:
        result = measure_topic_switch(name, campaign, systems, max(args.repeat, 30))
        verdict = "ok" if result["median_ms"] < 100 else "SLOW"
        print(f"{result['case']:42} {result['documents']:>5} {result['median_ms']:>6.1f}ms {result['p90_ms']:>6.1f}ms "
              f"{result['max_ms']:>6.1f}ms {100:>5}ms {verdict}")


if __name__ == "__main__":
    main()
