"""Time AP, nDCG@10, P@10 and RR: workbench vs pytrec_eval vs ranx, cold and warm, in one run.

    python benchmarks/bench_ranking.py [--queries 2000] [--docs 1000] [--repeat 3] [--seed 0]

Every library starts from the same Python dicts (qrels ``{topic: {doc: grade}}``, run
``{topic: {doc: score}}``). "cold" is the first call in this process (pytrec_eval: building the
RelevanceEvaluator and evaluating; ranx: building Qrels/Run and the first evaluate, which JIT-compiles with
numba; workbench: the first :func:`evaluate_run`); "warm" is the best of ``--repeat`` further calls
(pytrec_eval reuses its evaluator, ranx rebuilds Run objects from the dicts since it caches scores on them).
The workbench kernel alone (on a prebuilt :class:`GainTable`) is timed too. Also run on trec_eval's test
files (qrels.test, results.test) when ``../shared/datasets`` is present. Values are checked against
pytrec_eval (max absolute difference printed).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.metrics.ranking import GainTable, evaluate_run, evaluate_table  # noqa: E402

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
    table = GainTable.from_run(qrels, run)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, numpy {np.__version__}")
    qrels, run = synthetic(args.queries, args.docs, args.seed)
    bench(f"synthetic campaign (seed {args.seed})", qrels, run, args.repeat)
    shared = ROOT.parent / "shared" / "datasets" / "trec_eval_test"
    if not shared.exists():
        print(f"\n{shared} is absent: the trec_eval test files are skipped")
        return
    from workbench.data import qrels_grades, read_trec_qrels_frame, read_trec_run_frame, run_scores

    qrels = {t: {d: int(g) for d, g in judged.items()}  # pytrec_eval wants integer grades
             for t, judged in qrels_grades(read_trec_qrels_frame(shared / "qrels.test")).items()}
    run = run_scores(read_trec_run_frame(shared / "results.test"))["STANDARD"]
    bench("trec_eval test files (qrels.test, results.test; after the above, so not cold)", qrels, run,
          args.repeat)

if __name__ == "__main__":
    main()
