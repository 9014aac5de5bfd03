"""Time and peak memory of ranking evaluation, the workbench beside pytrec_eval, ranx, ir_measures and the trec_eval
binary, on the same 2,000 queries × 1,000 documents: runs held in memory (dicts, frames) and whole processes from
TREC files; then a whole run explained against scored, and a file with one very long document id.

    python benchmarks/bench_ranking.py [--queries 2000] [--docs 1000] [--repeat 3] [--seed 0]
                                       [--only memory|files|explain|long-id] [--skip ranx ...]
                                       [--trec-eval PATH] [--long-id-mb 1] [--profile]

Every library starts from the same data: qrels ``{topic: {doc: grade}}`` and a run ``{topic: {doc: score}}``
(scores rounded to 4 decimals, so some tie), or the same as long DataFrames, or the same written as TREC files.
Measures: AP, nDCG@10, P@10, RR (pytrec_eval's map, ndcg_cut.10, P.10, recip_rank); the means are checked against
pytrec_eval's.

**In memory**: each library runs in a fresh process that first builds the data; "first" is the first call in that
process (pytrec_eval: building the RelevanceEvaluator from the qrels and evaluating; ranx: building Qrels and Run and
evaluating, which JIT-compiles with numba unless numba's cache has it; the workbench: the first call), "warm" the
best of ``--repeat`` further calls (pytrec_eval reuses its evaluator; ranx builds its Run again, since it keeps
scores on it; the workbench is called as a user calls it, with the same qrels object), in wall time and in CPU time
(best of the same calls: steadier than wall time where the machine is shared). "peak" is the process's peak
resident memory during the calls, "+data" the part above what the data itself holds. A door's modules are loaded
before (pytrec_eval, ranx, ir_measures, the workbench's; pandas for the doors whose result is a DataFrame), and a
process of frames holds the frames only (the dicts they were made from freed, their pages given back). Ratios are
to pytrec_eval warm (time) and to pytrec_eval's peak (memory).

**Files**: whole processes, each started afresh (best of ``--repeat``: wall time, CPU time user + system, peak
resident memory of that process): ``python -m workbench eval -m AP nDCG P@10 RR`` and the drop-in
``python -m workbench trec_eval -m all_trec`` against pytrec_eval's own parse (``parse_qrel``, ``parse_run``) and
evaluate of the same measures, ranx and ir_measures reading the files, and the trec_eval 10.0 binary where one is
given (``--trec-eval``, or ``$TREC_EVAL``; build it from usnistgov/trec_eval with ``make``). Ratios to the
pytrec_eval process of the same work. ``--profile`` prints cProfile's top functions of the eval and drop-in paths.

**Explain** (issue 19): a campaign read from those files, each measure scored for the whole run and explained for
the whole run, one row per document, best of ``--repeat`` each, interleaved; target: explaining at most 2× scoring.

**One long id**: trec_eval's ``results.test`` with one document id made ``--long-id-mb`` MB long (in the run and in
the qrels): time and peak memory of ``eval`` and the drop-in against the binary; both grow with the file's bytes.

The machine may be shared: the load average is printed at the start and the end of each section.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import ctypes
import gc
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MEASURES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
PYTREC_MEASURES = {"map", "ndcg_cut.10", "P.10", "recip_rank"}
RANX_MEASURES = {"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "RR": "mrr"}
LIBRARIES = ("workbench", "pytrec_eval", "ranx", "ir_measures", "trec_eval")


def synthetic(queries: int, docs: int, seed: int):
    """A campaign: per query ``docs`` retrieved documents with scores rounded to 4 decimals (so some ties,
    as in TREC files), 10% of them judged (grades 0–3), plus 20 judged documents the run misses."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(queries):
        ids = [f"q{q}-d{i}" for i in rng.permutation(docs + 20)]
        retrieved = ids[:docs]
        scores = np.round(rng.random(docs), 4).tolist()
        run[f"q{q}"] = dict(zip(retrieved, scores, strict=True))
        judged = retrieved[: docs // 10] + ids[docs:]
        qrels[f"q{q}"] = dict(zip(judged, rng.integers(0, 4, len(judged)).tolist(), strict=True))
    return qrels, run


def frames(qrels: dict, run: dict):
    """The same data as long frames ``query_id, doc_id, relevance`` and ``query_id, doc_id, score``."""
    import pandas as pd

    def long(nested: dict, value: str) -> pd.DataFrame:
        return pd.DataFrame({"query_id": [t for t, d in nested.items() for _ in range(len(d))],
                             "doc_id": [doc for d in nested.values() for doc in d],
                             value: [v for d in nested.values() for v in d.values()]})

    return long(qrels, "relevance"), long(run, "score")


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine() -> str:
    """The CPU and the SIMD path numpy sorts with: ratios to a peer move with both (numpy's AVX-512 sort is slow on
    AMD Zen 4, family 25 with AVX-512: 2M uint64 keys 0.11 s, against 0.02 s on its AVX2 path; workbench.sorting)."""
    try:  # numpy's own record of the features it dispatches to (less any NPY_DISABLE_CPU_FEATURES)
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:  # another numpy
        __cpu_features__ = {}
    fields: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    simd = [name for name in ("AVX2", "AVX512_SKX", "AVX512_ICL", "AVX512_SPR") if __cpu_features__.get(name)]
    cpu = " ".join(filter(None, (fields.get("model name"), fields.get("cpu family") and
                                 f"(family {fields['cpu family']}, model {fields.get('model', '?')})")))
    return f"{cpu or 'CPU unknown'}, numpy's SIMD up to {simd[-1] if simd else 'baseline'}"


# ------------------------------------------------------------------------------------------------ in memory
def _rss() -> dict[str, int]:
    """This process's resident memory now and at its peak (MB), from /proc."""
    found = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) // 1024
    return found


def _reset_peak() -> None:
    """Start the peak (VmHWM) afresh from the present resident memory (Linux: clear_refs 5)."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def _trim_heap() -> None:
    """Give the freed pages of the heap back to the system (glibc's ``malloc_trim``; elsewhere nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _calls(door: str, qrels: dict, run: dict, qrels_frame, run_frame):
    """The function one user call makes, and how its result gives ``{measure: mean}``."""
    names = list(MEASURES)
    if door == "workbench evaluate_run":
        from workbench.data.trec import evaluate_run

        return (lambda: evaluate_run(qrels, run, names),
                lambda out: {m: float(np.mean(list(out[m].values()))) for m in names})
    if door in ("workbench Campaign.from_dicts", "workbench Campaign.from_frames"):
        import pandas  # noqa: F401  # its result is a DataFrame: pandas loaded before, as each peer's modules are

        from workbench.data import Campaign

        def campaign():
            made = Campaign.from_dicts(qrels, {"run": run}) if door.endswith("dicts") else \
                Campaign.from_frames(qrels_frame, {"run": run_frame})
            return made.evaluate(names, progress=False)

        return campaign, lambda out: out.groupby("measure")["value"].mean().to_dict()
    if door == "pytrec_eval":
        import pytrec_eval

        state: dict = {}

        def pytrec():  # the first call builds the evaluator (the qrels), later calls reuse it
            if "evaluator" not in state:
                state["evaluator"] = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES)
            return state["evaluator"].evaluate(run)

        return pytrec, lambda out: {m: float(np.mean([r[trec] for r in out.values()])) for m, trec in
                                    MEASURES.items()}
    if door.startswith("ranx"):
        import ranx

        def ranx_call():  # ranx keeps scores on its Run: a fresh one each call
            if door.endswith("dicts"):
                judged, ranked = ranx.Qrels(qrels), ranx.Run(run)
            else:
                judged = ranx.Qrels.from_df(qrels_frame, q_id_col="query_id", doc_id_col="doc_id",
                                            score_col="relevance")
                ranked = ranx.Run.from_df(run_frame, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
            return ranx.evaluate(judged, ranked, list(RANX_MEASURES.values()), make_comparable=True)

        return ranx_call, lambda out: {m: float(out[r]) for m, r in RANX_MEASURES.items()}
    if door.startswith("ir_measures"):
        import ir_measures

        wanted = [ir_measures.parse_measure(m) for m in names]
        given = (qrels, run) if door.endswith("dicts") else (qrels_frame, run_frame)
        return (lambda: ir_measures.calc_aggregate(wanted, *given),
                lambda out: {str(m): float(v) for m, v in out.items()})
    raise SystemExit(f"unknown door {door!r}")


MEMORY_DOORS = {"dicts": ["workbench evaluate_run", "workbench Campaign.from_dicts", "pytrec_eval", "ranx dicts",
                          "ir_measures dicts"],
                "frames": ["workbench Campaign.from_frames", "ranx frames", "ir_measures frames"]}


def worker(door: str, queries: int, docs: int, seed: int, repeat: int) -> None:
    """One door in this fresh process: build the data, call once (first), then ``repeat`` more times (warm);
    print the times, the memory and the means as JSON."""
    qrels, run = synthetic(queries, docs, seed)
    qrels_frame = run_frame = None
    if "frames" in door:
        qrels_frame, run_frame = frames(qrels, run)
        if door.startswith("ranx"):  # ranx asks for ids in object columns (pandas 3 makes them str)
            qrels_frame, run_frame = (frame.astype({"query_id": object, "doc_id": object})
                                      for frame in (qrels_frame, run_frame))
        qrels = run = {}  # a user holding frames holds no dicts of the same data: theirs freed, their pages given back
        gc.collect()
        _trim_heap()
    call, means = _calls(door, qrels, run, qrels_frame, run_frame)
    data = _rss()["VmRSS"]
    _reset_peak()
    first, out = timed(call)
    warm, cpu = [], []
    for _ in range(repeat):
        start = time.process_time()
        warm.append(timed(call)[0])
        cpu.append(time.process_time() - start)
    print(json.dumps({"first": first, "warm": min(warm), "cpu": min(cpu), "data": data, "peak": _rss()["VmHWM"],
                      "means": means(out)}))


def _environment() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's modules come from their bytecode cache, not recompiled
    return env


def bench_memory(args) -> None:
    """Dicts and frames held in memory, one fresh process per library and door."""
    print(f"\n== in memory: {args.queries} queries × {args.docs} documents; first call and warm best of "
          f"{args.repeat}, one process per row ({load()})")
    results: dict[str, dict] = {}
    for doors in MEMORY_DOORS.values():
        for door in doors:
            if door.split()[0] in args.skip:
                continue
            done = subprocess.run([sys.executable, __file__, "--worker", door, "--queries", str(args.queries),
                                   "--docs", str(args.docs), "--seed", str(args.seed), "--repeat", str(args.repeat)],
                                  capture_output=True, text=True, env=_environment(), cwd=ROOT)
            if done.returncode:
                print(f"   {door}: failed ({done.stderr.strip().splitlines()[-1] if done.stderr.strip() else '?'})")
                continue
            results[door] = json.loads(done.stdout.strip().splitlines()[-1])
    base = results.get("pytrec_eval")
    header = ("in memory", "first (s)", "warm (s)", "warm/pytrec", "CPU/pytrec", "peak (MB)", "+data (MB)",
              "peak/pytrec", "Δ means")
    print("   {:<32} {:>9} {:>9} {:>11} {:>10} {:>9} {:>10} {:>11} {:>8}".format(*header))
    for door, r in results.items():
        ratios = (f"{r['warm'] / base['warm']:11.2f}", f"{r['cpu'] / base['cpu']:10.2f}",
                  f"{r['peak'] / base['peak']:11.2f}",
                  f"{max(abs(r['means'][m] - base['means'][m]) for m in MEASURES):8.1e}") if base else ("",) * 4
        print(f"   {door:<32} {r['first']:9.2f} {r['warm']:9.2f} {ratios[0]} {ratios[1]} {r['peak']:9d} "
              f"{r['peak'] - r['data']:10d} {ratios[2]} {ratios[3]}")
    if base:
        print("   Δ means: the largest difference of a measure's mean from pytrec_eval's (ranx breaks score ties its "
              "own way)")
    print(f"   ({load()})")


# ---------------------------------------------------------------------------------------------------- files
FILE_MEASURES = ["AP", "nDCG", "P@10", "RR"]
PYTREC_FILE_SCRIPT = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = pytrec_eval.supported_measures if sys.argv[3] == "all" else {"map", "ndcg", "P.10", "recip_rank"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
for trec, ours in (("map", "AP"), ("ndcg", "nDCG"), ("P_10", "P@10"), ("recip_rank", "RR")):
    print(ours, sum(r[trec] for r in results.values()) / len(results))
"""
RANX_FILE_SCRIPT = """
import sys, ranx
qrels, run = ranx.Qrels.from_file(sys.argv[1], kind="trec"), ranx.Run.from_file(sys.argv[2], kind="trec")
print(ranx.evaluate(qrels, run, ["map", "ndcg", "precision@10", "mrr"], make_comparable=True))
"""
IR_MEASURES_FILE_SCRIPT = """
import sys, ir_measures
from ir_measures import AP, nDCG, P, RR
print(ir_measures.calc_aggregate([AP, nDCG, P@10, RR], ir_measures.read_trec_qrels(sys.argv[1]),
                                 ir_measures.read_trec_run(sys.argv[2])))
"""


def write_files(folder: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    """The campaign as TREC files (scores written as Python prints them: read back exactly)."""
    with open(folder / "qrels", "w") as f:
        f.writelines(f"{t} 0 {d} {g}\n" for t, judged in qrels.items() for d, g in judged.items())
    with open(folder / "run", "w") as f:
        for t, scored in run.items():
            ranked = sorted(scored.items(), key=lambda item: -item[1])
            f.writelines(f"{t} Q0 {d} {rank} {s!r} synthetic\n" for rank, (d, s) in enumerate(ranked, 1))
    return folder / "qrels", folder / "run"


MEASURED = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(f"{usage.ru_maxrss} {usage.ru_utime + usage.ru_stime}")
sys.exit(os.waitstatus_to_exitcode(status) & 255)
"""


def _run_measured(command: list[str], env: dict) -> tuple[float, float, int, int, str, str]:
    """Run ``command`` and return its wall and CPU seconds, its peak resident memory (MB), exit status and output.
    It is started by a small Python process that reports its child's usage: a child started from this process
    (which holds the benchmark's data) counts this process's memory in its peak (the pages it shared until its
    exec)."""
    with tempfile.NamedTemporaryFile("r", suffix=".usage") as report:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", MEASURED, report.name, *command], capture_output=True, text=True,
                              errors="replace", env=env, cwd=ROOT)
        wall = time.perf_counter() - start
        peak, cpu = (report.read().split() or ["0", "0"])
    return wall, float(cpu), int(peak) // 1024, done.returncode, done.stdout, done.stderr


def measured_process(command: list[str], repeat: int, warm_up: bool = True) -> tuple[float, float, int, str]:
    """Best wall and CPU (user + system) seconds of ``repeat`` fresh processes, the least of their peak resident
    memory (MB, each process's own), and the output."""
    env = _environment()
    if warm_up:  # a first run writes the bytecode cache and brings the files into the page cache
        subprocess.run(command, capture_output=True, env=env, cwd=ROOT)
    walls, cpus, peaks = [], [], []
    for _ in range(repeat):
        wall, cpu, peak, code, out, err = _run_measured(command, env)
        if code:
            raise SystemExit(f"{' '.join(command)} failed ({code}):\n{err}")
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    return min(walls), min(cpus), min(peaks), out


def trec_eval_binary(given: str | None) -> str | None:
    found = given or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return found if found and os.access(found, os.X_OK) else None


def pytrec_eval_unit(repeat: int = 3, queries: int = 2000, docs: int = 1000, seed: int = 0) -> tuple[float, float]:
    """The machine unit of the other benchmarks (issue 42): wall and CPU seconds (best of ``repeat`` fresh
    processes) of pytrec_eval parsing and evaluating this benchmark's files (``queries`` × ``docs``, AP nDCG P@10 RR),
    the row "pytrec_eval parse+eval 4" of the files section. A time divided by it removes most of the machine's
    speed; measure it in the same run as the time it divides."""
    with tempfile.TemporaryDirectory() as folder:
        files = [str(path) for path in write_files(Path(folder), *synthetic(queries, docs, seed))]
        wall, cpu, _, _ = measured_process([sys.executable, "-c", PYTREC_FILE_SCRIPT, *files, "four"], repeat)
    return wall, cpu


def bench_files(qrels: dict, run: dict, args) -> None:
    """Whole processes from the same files to the table."""
    repeat = args.repeat
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = write_files(Path(folder), qrels, run)
        size = run_path.stat().st_size / 1e6
        print(f"\n== from file to table: {len(run)} queries, {sum(map(len, run.values())):,} run lines "
              f"({size:.0f} MB), {sum(map(len, qrels.values())):,} judgements; whole processes, best of {repeat} "
              f"({load()})")
        python, files = sys.executable, [str(qrels_path), str(run_path)]
        cli = [python, "-m", "workbench", "eval", "--gold", files[0], "--run", files[1], "-m", *FILE_MEASURES,
               "-q", "--format", "csv"]
        drop_in = [python, "-m", "workbench", "trec_eval", "-m", "all_trec", *files]
        binary = trec_eval_binary(args.trec_eval)
        rows: list[tuple[str, str, float, float, int, str]] = []
        # (label, work, command): the workbench rows first, then the peers
        commands = [("workbench eval (4 measures)", "four", cli),
                    ("workbench trec_eval -m all_trec", "all", drop_in)]
        if "pytrec_eval" not in args.skip:
            commands += [("pytrec_eval parse+eval 4", "four", [python, "-c", PYTREC_FILE_SCRIPT, *files, "four"]),
                         ("pytrec_eval parse+eval all", "all", [python, "-c", PYTREC_FILE_SCRIPT, *files, "all"])]
        if "ranx" not in args.skip:
            commands.append(("ranx from files (4)", "four", [python, "-c", RANX_FILE_SCRIPT, *files]))
        if "ir_measures" not in args.skip:
            commands.append(("ir_measures from files (4)", "four", [python, "-c", IR_MEASURES_FILE_SCRIPT, *files]))
        if binary and "trec_eval" not in args.skip:
            commands += [("trec_eval 10.0 binary (4)", "four", [binary, "-m", "map", "-m", "ndcg", "-m", "P.10",
                                                                 "-m", "recip_rank", *files]),
                         ("trec_eval 10.0 binary all_trec", "all", [binary, "-m", "all_trec", *files])]
        for label, work, command in commands:
            try:
                rows.append((label, work, *measured_process(command, repeat)))
            except SystemExit as failed:
                print(f"   {label}: {str(failed).splitlines()[0]}")
        references = {work: row for row in rows for work in ("four", "all")
                      if row[0] == f"pytrec_eval parse+eval {'4' if work == 'four' else 'all'}"}
        header = ("process", "wall (s)", "CPU (s)", "peak (MB)", "wall/pytrec", "CPU/pytrec", "peak/pytrec")
        print("   {:<34} {:>8} {:>8} {:>9} {:>11} {:>10} {:>11}".format(*header))
        for label, work, wall, cpu, peak, _ in rows:
            reference = references.get(work)
            ratios = (f"{wall / reference[2]:11.2f} {cpu / reference[3]:10.2f} {peak / reference[4]:11.2f}"
                      if reference else "")
            print(f"   {label:<34} {wall:8.2f} {cpu:8.2f} {peak:9d} {ratios}")
        if binary is None:
            print("   (no trec_eval binary: give --trec-eval PATH or $TREC_EVAL)")
        if "four" in references:
            ours = {line.split(",")[2]: float(line.split(",")[3]) for line in rows[0][5].splitlines()[1:]}
            theirs = {line.split()[0]: float(line.split()[1]) for line in references["four"][5].splitlines()}
            print("   max |eval mean − pytrec_eval mean|: "
                  f"{max(abs(ours[m] - theirs[m]) for m in FILE_MEASURES):.2e}")
        if "all" in references:
            printed = next(line.split()[2] for line in rows[1][5].splitlines() if line.startswith("map "))
            reference_map = float(next(line.split()[1] for line in references["all"][5].splitlines()
                                       if line.startswith("AP ")))
            print(f"   trec_eval map {printed}, pytrec_eval {reference_map:.4f} "
                  f"({'equal' if printed == f'{reference_map:.4f}' else 'DIFFERENT'})")
        print(f"   ({load()})")
        if args.profile:
            from workbench.cli import main as cli_main

            for label, command in (("the eval path", cli), ("the trec_eval path", drop_in)):
                profiler = cProfile.Profile(time.process_time)
                sink = io.StringIO()
                stdout, sys.stdout = sys.stdout, sink
                try:
                    profiler.runcall(cli_main, command[3:])
                finally:
                    sys.stdout = stdout
                print(f"\n   cProfile of {label} (CPU time, top 20 by own time):")
                pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


# -------------------------------------------------------------------------------------------------- explain
def bench_explain(qrels: dict, run: dict, repeat: int) -> None:
    """A whole run explained per document against the same run scored, from a campaign read from files."""
    import workbench as wb

    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = write_files(Path(folder), qrels, run)
        campaign = wb.read_campaign(qrels_path, [run_path])
    system = next(iter(campaign.runs))
    print(f"\n== explain against evaluate (issue 19): {len(campaign.gold)} topics, "
          f"{sum(map(len, run.values())):,} ranked documents; whole run, best of {repeat}, interleaved")
    cold_scored = timed(lambda: campaign.evaluate("AP", progress=False))[0]
    cold_explained = timed(lambda: campaign.explain(system, None, "AP"))[0]  # builds the run's Arrow ids once
    print(f"   first calls (cold): evaluate AP {cold_scored:.3f} s, explain AP {cold_explained:.3f} s "
          f"(ratio {cold_explained / cold_scored:.2f})")
    print("   {:<10} {:>13} {:>12} {:>12} {:>7} {:>7}".format("measure", "evaluate (s)", "explain (s)", "rows",
                                                          "ratio", "target"))
    for measure in MEASURES:
        scored, explained = [], []
        for _ in range(repeat):
            scored.append(timed(lambda m=measure: campaign.evaluate(m, progress=False))[0])
            seconds, explanation = timed(lambda m=measure: campaign.explain(system, None, m))
            explained.append(seconds)
        ratio = min(explained) / min(scored)
        print(f"   {measure:<10} {min(scored):13.3f} {min(explained):12.3f} {len(explanation.contributions):12,} "
              f"{ratio:7.2f} {'ok' if ratio <= 2 else 'SLOW':>7}")


# -------------------------------------------------------------------------------------------------- long id
def bench_long_id(args) -> None:
    """trec_eval's results.test and qrels.test with one document id made ``--long-id-mb`` MB long."""
    from workbench.datasets import shared

    folder_in = shared("trec_eval_test")
    if folder_in is None:
        print("\n== one long id: ../shared/datasets/trec_eval_test is absent, skipped")
        return
    size = int(args.long_id_mb * (1 << 20))
    with tempfile.TemporaryDirectory() as folder:
        run_lines = (folder_in / "results.test").read_bytes().splitlines(keepends=True)
        qrels_lines = (folder_in / "qrels.test").read_bytes().splitlines(keepends=True)
        fields = run_lines[0].split()
        long_id = b"L" * size
        run_lines[0] = b" ".join([fields[0], fields[1], long_id, *fields[3:]]) + b"\n"
        qrels_lines.append(b" ".join([fields[0], b"0", long_id, b"1"]) + b"\n")
        run_path, qrels_path = Path(folder) / "run", Path(folder) / "qrels"
        run_path.write_bytes(b"".join(run_lines))
        qrels_path.write_bytes(b"".join(qrels_lines))
        print(f"\n== one long id: results.test ({len(run_lines):,} lines) and qrels.test with one "
              f"{args.long_id_mb:g} MB document id; one process each ({load()})")
        python = sys.executable
        commands = [("workbench eval -m AP", [python, "-m", "workbench", "eval", "--gold", str(qrels_path), "--run",
                                             str(run_path), "-m", "AP", "--format", "csv"]),
                    ("workbench trec_eval -m all_trec", [python, "-m", "workbench", "trec_eval", "-m", "all_trec",
                                                         str(qrels_path), str(run_path)])]
        binary = trec_eval_binary(args.trec_eval)
        if binary:
            commands.append(("trec_eval 10.0 binary all_trec", [binary, "-m", "all_trec", str(qrels_path),
                                                                str(run_path)]))
        print("   {:<34} {:>8} {:>9} {:>8}".format("process", "wall (s)", "peak (MB)", "status"))
        for label, command in commands:
            wall, _, peak, code, _, err = _run_measured(command, _environment())
            said = "ok" if code == 0 else f"{code}: {err.strip().splitlines()[-1][:60] if err.strip() else ''}"
            print(f"   {label:<34} {wall:8.2f} {peak:9d} {said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=["memory", "files", "explain", "long-id"], action="append",
                        help="run these sections only (repeatable)")
    parser.add_argument("--skip", nargs="*", default=[], choices=LIBRARIES, help="leave these peers out")
    parser.add_argument("--trec-eval", help="the trec_eval 10.0 binary (default: $TREC_EVAL, or on PATH)")
    parser.add_argument("--long-id-mb", type=float, default=1.0)
    parser.add_argument("--profile", action="store_true", help="cProfile the eval and drop-in paths")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.queries, args.docs, args.seed, args.repeat)
        return

    sections = args.only or ["memory", "files", "explain", "long-id"]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cores, {machine()}, {load()}")
    if "memory" in sections:
        bench_memory(args)
    if {"files", "explain"} & set(sections):
        qrels, run = synthetic(args.queries, args.docs, args.seed)
        if "files" in sections:
            bench_files(qrels, run, args)
        if "explain" in sections:
            bench_explain(qrels, run, args.repeat)
    if "long-id" in sections:
        bench_long_id(args)


if __name__ == "__main__":
    main()
