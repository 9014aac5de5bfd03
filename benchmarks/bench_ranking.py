"""Time AP, nDCG@10, P@10 and RR: workbench vs pytrec_eval vs ranx, cold and warm, in one run; then whole
processes from the same TREC files to the table (eval, Campaign, trec_eval -m all_trec vs pytrec_eval).

    python benchmarks/bench_ranking.py [--queries 2000] [--docs 1000] [--repeat 3] [--seed 0] [--profile]

Every library starts from the same Python dicts (qrels ``{topic: {doc: grade}}``, run
``{topic: {doc: score}}``). "cold" is the first call in this process (pytrec_eval: building the
RelevanceEvaluator and evaluating; ranx: building Qrels/Run and the first evaluate, which JIT-compiles with
numba; workbench: the first :func:`evaluate_run`); "warm" is the best of ``--repeat`` further calls
(pytrec_eval reuses its evaluator, ranx rebuilds Run objects from the dicts since it caches scores on them).
The workbench kernel alone (on a prebuilt :class:`GainTable`) is timed too. Also run on trec_eval's test
files (qrels.test, results.test) when ``../shared/datasets`` is present. Values are checked against
pytrec_eval (max absolute difference printed).

"From file to table" writes the synthetic campaign as TREC files and times whole processes, each started
afresh (best of ``--repeat``; wall time, and CPU time user + system, since the machine may be shared):
``python -m workbench eval --gold qrels --run run -m AP nDCG P@10 RR``, a script building a ``Campaign``
from the files, and pytrec_eval's own parse (``parse_qrel``, ``parse_run``) + evaluate of the same four
measures; then the drop-in ``python -m workbench trec_eval -m all_trec`` against pytrec_eval's parse +
evaluate of every measure it supports. It prints the ratios to the pytrec_eval process of the same work and
checks the means (the CLI's against pytrec_eval's; trec_eval's printed ``map`` against pytrec_eval's to 4
decimals). ``--profile`` prints cProfile's top functions of the CLI path and of the trec_eval path.

"Explain against evaluate" (issue 19): the campaign read from those files, each measure scored for the whole run
(``Campaign.evaluate``) and explained for the whole run, one row per document (``Campaign.explain(system, None,
measure)``), best of ``--repeat`` each, interleaved; target: explaining at most 2× scoring. ``--only explain``
runs this section alone.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.data.trec import evaluate_run, table_from_dicts  # noqa: E402
from workbench.metrics.ranking import evaluate_table  # noqa: E402

MEASURES = {"AP": "map", "nDCG@10": "ndcg_cut_10", "P@10": "P_10", "RR": "recip_rank"}
PYTREC_MEASURES = {"map", "ndcg_cut.10", "P.10", "recip_rank"}
RANX_MEASURES = ["map", "ndcg@10", "precision@10", "mrr"]


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


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def best_of(repeat: int, function) -> float:
    return min(timed(function)[0] for _ in range(repeat))


def bench(label: str, qrels: dict, run: dict, repeat: int) -> None:
    n_entries = sum(map(len, run.values()))
    print(f"\n== {label}: {len(run)} queries, {n_entries:,} run entries, "
          f"{sum(map(len, qrels.values())):,} judgements; measures {', '.join(MEASURES)}")
    rows = []

    cold, mine = timed(lambda: evaluate_run(qrels, run, MEASURES))
    warm = best_of(repeat, lambda: evaluate_run(qrels, run, MEASURES))
    table = table_from_dicts(qrels, run)
    kernel = best_of(repeat, lambda: evaluate_table(table, MEASURES))
    rows.append(("workbench", cold, warm))
    print(f"   workbench kernel only (prebuilt GainTable {table.gains.shape}): {kernel * 1e3:9.1f} ms")

    try:
        import pytrec_eval
    except ImportError:
        print("   pytrec_eval not installed: skipped")
        theirs = None
    else:
        def pytrec_cold():
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES)
            return evaluator, evaluator.evaluate(run)

        cold_p, (evaluator, theirs) = timed(pytrec_cold)
        warm_p = best_of(repeat, lambda: evaluator.evaluate(run))
        rows.append(("pytrec_eval", cold_p, warm_p))

    try:
        import ranx
    except ImportError:
        print("   ranx not installed: skipped")
    else:
        def ranx_call():
            return ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX_MEASURES, make_comparable=True)

        cold_r, _ = timed(ranx_call)
        warm_r = best_of(repeat, ranx_call)
        rows.append(("ranx", cold_r, warm_r))

    base_cold, base_warm = rows[0][1], rows[0][2]
    header = ("library", "cold (ms)", "warm (ms)", "cold / workbench", "warm / workbench")
    print("   {:<12} {:>11} {:>11} {:>17} {:>17}".format(*header))
    for name, c, w in rows:
        print(f"   {name:<12} {c * 1e3:11.1f} {w * 1e3:11.1f} {c / base_cold:17.2f} {w / base_warm:17.2f}")
    if theirs is not None:
        diff = max(abs(mine[m][t] - theirs[t][trec]) for m, trec in MEASURES.items() for t in theirs)
        print(f"   max |workbench − pytrec_eval| over all topics and measures: {diff:.2e}")


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
CAMPAIGN_FILE_SCRIPT = """
import sys
from workbench.data import Campaign, means, read_trec_qrels, read_trec_run
results = Campaign(read_trec_qrels(sys.argv[1]), read_trec_run(sys.argv[2])).evaluate(sys.argv[3:], progress=False)
print(means(results, wide=True))
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


def timed_process(command: list[str], repeat: int) -> tuple[float, float, str]:
    """Best wall and CPU (user + system of the child) seconds of ``repeat`` fresh processes, and the output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's modules come from their bytecode cache, not recompiled
    subprocess.run(command, capture_output=True, env=env, cwd=ROOT)  # a first run writes that cache
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return min(walls), min(cpus), done.stdout


def bench_files(qrels: dict, run: dict, repeat: int, profile: bool) -> None:
    """Whole processes from the same files to the table: the workbench CLI, Campaign and the drop-in
    trec_eval, each beside the pytrec_eval process doing the same work."""
    with tempfile.TemporaryDirectory() as folder:
        qrels_path, run_path = write_files(Path(folder), qrels, run)
        size = run_path.stat().st_size / 1e6
        print(f"\n== from file to table: {len(run)} queries, {sum(map(len, run.values())):,} run lines "
              f"({size:.0f} MB), {sum(map(len, qrels.values())):,} judgements; whole processes, best of {repeat}")
        python, files = sys.executable, [str(qrels_path), str(run_path)]
        cli = [python, "-m", "workbench", "eval", "--gold", files[0], "--run", files[1], "-m", *FILE_MEASURES,
               "-q", "--format", "csv"]
        trec_eval = [python, "-m", "workbench", "trec_eval", "-m", "all_trec", *files]
        try:
            import pytrec_eval  # noqa: F401
        except ImportError:
            print("   pytrec_eval not installed: no reference process")
            references = {}
        else:
            references = {work: ("pytrec_eval parse+eval " + ("4 measures" if work == "four" else "all"),
                                 *timed_process([python, "-c", PYTREC_FILE_SCRIPT, *files, work], repeat))
                          for work in ("four", "all")}
        rows = [("workbench eval (CLI)", "four", *timed_process(cli, repeat)),
                ("workbench Campaign", "four", *timed_process([python, "-c", CAMPAIGN_FILE_SCRIPT, *files,
                                                               *FILE_MEASURES], repeat)),
                ("workbench trec_eval all", "all", *timed_process(trec_eval, repeat))]
        print("   {:<34} {:>9} {:>9} {:>14} {:>14}".format("process", "wall (s)", "CPU (s)", "wall / pytrec",
                                                          "CPU / pytrec"))
        for name, work, wall, cpu, _ in rows:
            reference = references.get(work)
            ratios = f"{wall / reference[1]:14.2f} {cpu / reference[2]:14.2f}" if reference else ""
            print(f"   {name:<34} {wall:9.2f} {cpu:9.2f} {ratios}")
        for name, wall, cpu, _ in references.values():
            print(f"   {name:<34} {wall:9.2f} {cpu:9.2f}")
        if references:
            ours = {line.split(",")[2]: float(line.split(",")[3]) for line in rows[0][4].splitlines()[1:]}
            theirs = {line.split()[0]: float(line.split()[1]) for line in references["four"][3].splitlines()}
            print("   max |CLI mean − pytrec_eval mean|: "
                  f"{max(abs(ours[m] - theirs[m]) for m in FILE_MEASURES):.2e}")
            printed = next(line.split()[2] for line in rows[2][4].splitlines() if line.startswith("map "))
            reference_map = float(next(line.split()[1] for line in references["all"][3].splitlines()
                                       if line.startswith("AP ")))
            print(f"   trec_eval map {printed}, pytrec_eval {reference_map:.4f} "
                  f"({'equal' if printed == f'{reference_map:.4f}' else 'DIFFERENT'})")
        if profile:
            from workbench.cli import main as cli_main

            for label, command in (("the CLI path", cli), ("the trec_eval path", trec_eval)):
                profiler = cProfile.Profile(time.process_time)
                sink = io.StringIO()
                stdout, sys.stdout = sys.stdout, sink
                try:
                    profiler.runcall(cli_main, command[3:])
                finally:
                    sys.stdout = stdout
                print(f"\n   cProfile of {label} (CPU time, top 20 by own time):")
                pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="cProfile the CLI path from file to table")
    parser.add_argument("--only", choices=["explain"], help="run one section only")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    qrels, run = synthetic(args.queries, args.docs, args.seed)
    if args.only == "explain":
        bench_explain(qrels, run, args.repeat)
        return
    bench(f"synthetic campaign (seed {args.seed})", qrels, run, args.repeat)
    bench_files(qrels, run, args.repeat, args.profile)
    bench_explain(qrels, run, args.repeat)
    from workbench.datasets import shared as shared_datasets

    shared = shared_datasets("trec_eval_test")
    if shared is None:
        print("\n../shared/datasets/trec_eval_test is absent: the trec_eval test files are skipped")
        return
    from workbench.data import qrels_grades, read_trec_qrels_frame, read_trec_run_frame, run_scores

    qrels = {t: {d: int(g) for d, g in judged.items()}  # pytrec_eval wants integer grades
             for t, judged in qrels_grades(read_trec_qrels_frame(shared / "qrels.test")).items()}
    run = run_scores(read_trec_run_frame(shared / "results.test"))["STANDARD"]
    bench("trec_eval test files (qrels.test, results.test; after the above, so not cold)", qrels, run,
          args.repeat)

if __name__ == "__main__":
    main()
