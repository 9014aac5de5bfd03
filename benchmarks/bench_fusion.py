"""Fuse 10 runs of 2,000 queries × 1,000 documents and evaluate the fused run: workbench against ranx, each in a
fresh process from the same TREC files, cold start included (imports, reading, fusing, evaluating; ranx's numba
functions compiled in a fresh cache directory, as on first use, and again with the cache they left).

    python benchmarks/bench_fusion.py [--queries 2000] [--docs 1000] [--runs 10] [--methods rrf wsum]
                                      [--repeat 1] [--seed 0]

The runs draw their documents from a pool of 1.5 × docs per query (so that they overlap, as runs of one
collection do), scores rounded to 4 decimals; the qrels judge 10% of the pool (grades 0–3). Both tools fuse with
the method's defaults (rrf: k = 60; wsum: min-max normalisation, weights 1) and evaluate AP and nDCG@10 of the
fused run; the means are printed side by side. Ratios are workbench / ranx (below 1: the workbench is faster).
The machine's load (``os.getloadavg``) is printed beside every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

WORKBENCH = """
import json, sys, time
start = time.perf_counter()
from workbench.data.trec import read_trec_qrels, read_trec_run
from workbench.data.campaign import Campaign
from workbench.fusion import fuse
qrels, paths, method = read_trec_qrels(sys.argv[1]), sys.argv[3:], sys.argv[2]
runs = {}
for path in paths:
    runs.update(read_trec_run(path))
read = time.perf_counter()
fused = fuse(runs, method=method)
fusion = time.perf_counter()
results = Campaign(qrels, {"fused": fused}).evaluate(["AP", "nDCG@10"], progress=False)
means = results.groupby("measure")["value"].mean().to_dict()
end = time.perf_counter()
print(json.dumps({"read": read - start, "fuse": fusion - read, "evaluate": end - fusion, "total": end - start,
                  "means": {"AP": means["AP"], "nDCG@10": means["nDCG@10"]}}))
"""

RANX = """
import json, sys, time
start = time.perf_counter()
from ranx import Qrels, Run, evaluate, fuse
qrels, paths, method = Qrels.from_file(sys.argv[1], kind="trec"), sys.argv[3:], sys.argv[2]
runs = [Run.from_file(path, kind="trec") for path in paths]
read = time.perf_counter()
fused = fuse(runs, norm="min-max" if method == "wsum" else None, method=method,
             params={"weights": [1.0] * len(runs)} if method == "wsum" else {})
fusion = time.perf_counter()
means = evaluate(qrels, fused, ["map", "ndcg@10"], make_comparable=True)
end = time.perf_counter()
print(json.dumps({"read": read - start, "fuse": fusion - read, "evaluate": end - fusion, "total": end - start,
                  "means": {"AP": means["map"], "nDCG@10": means["ndcg@10"]}}))
"""


def write_campaign(folder: Path, queries: int, docs: int, n_runs: int, seed: int) -> tuple[Path, list[Path]]:
    """qrels and ``n_runs`` run files in ``folder`` (written with pyarrow's CSV writer, space-separated)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    rng = np.random.default_rng(seed)
    pool = int(docs * 1.5)
    options = csv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    topic_names = np.array([f"q{q}" for q in range(queries)], dtype=object)
    judged = rng.random((queries, pool)) < 0.1
    q_index, d_index = np.nonzero(judged)
    qrels = folder / "qrels"
    csv.write_csv(pa.table({"q": topic_names[q_index], "i": np.zeros(q_index.size, dtype=np.int64),
                            "d": np.char.add("doc", d_index.astype(str)).astype(object),
                            "g": rng.integers(0, 4, q_index.size)}), qrels, options)
    paths = []
    for r in range(n_runs):
        chosen = np.argsort(rng.random((queries, pool)), axis=1)[:, :docs]  # each query's documents
        scores = np.round(rng.random((queries, docs)), 4)
        order = np.argsort(-scores, axis=1, kind="stable")
        chosen, scores = np.take_along_axis(chosen, order, 1), np.take_along_axis(scores, order, 1)
        path = folder / f"run{r}"
        csv.write_csv(pa.table({"q": np.repeat(topic_names, docs), "z": np.full(queries * docs, "Q0", dtype=object),
                                "d": np.char.add("doc", chosen.ravel().astype(str)).astype(object),
                                "rank": np.tile(np.arange(1, docs + 1), queries), "s": scores.ravel(),
                                "tag": np.full(queries * docs, f"run{r}", dtype=object)}), path, options)
        paths.append(path)
    return qrels, paths


def run_process(code: str, args: list[str], env: dict | None = None) -> tuple[float, dict, float]:
    """Wall time of a fresh Python process running ``code``, what it printed (JSON), and the load when it ended."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    wall = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"process failed:\n{done.stderr[-3000:]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1]), os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--methods", nargs="+", default=["rrf", "wsum"])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        import ranx  # noqa: F401
    except ImportError:
        raise SystemExit("ranx is not installed (pip install 'workbench[dev]'): nothing to compare with") from None
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        qrels, paths = write_campaign(Path(folder), args.queries, args.docs, args.runs, args.seed)
        print(f"{args.runs} runs × {args.queries} queries × {args.docs} documents written in "
              f"{time.perf_counter() - start:.1f} s (load {os.getloadavg()[0]:.2f})")
        files = [str(qrels), "METHOD", *map(str, paths)]
        for method in args.methods:
            argv = [method if a == "METHOD" else a for a in files]
            print(f"\n== {method}: fuse {args.runs} runs and evaluate AP, nDCG@10 (seconds; load = 1-min average)")
            rows = []
            for _ in range(args.repeat):
                rows.append(("workbench", *run_process(WORKBENCH, argv)))
                with tempfile.TemporaryDirectory() as cache:  # numba compiles afresh: ranx's first use
                    rows.append(("ranx (cold cache)", *run_process(RANX, argv, {"NUMBA_CACHE_DIR": cache})))
                rows.append(("ranx (warm cache)", *run_process(RANX, argv)))
            print(f"   {'':18} {'process':>8} {'read':>7} {'fuse':>7} {'eval':>7}  {'AP':>8} {'nDCG@10':>8}  load")
            best = {}
            for name, wall, inside, load in rows:
                best[name] = min(best.get(name, wall), wall)
                print(f"   {name:18} {wall:8.2f} {inside['read']:7.2f} {inside['fuse']:7.2f} {inside['evaluate']:7.2f}"
                      f"  {inside['means']['AP']:8.5f} {inside['means']['nDCG@10']:8.5f}  {load:.2f}")
            for other in ("ranx (cold cache)", "ranx (warm cache)"):
                print(f"   workbench / {other}: {best['workbench'] / best[other]:.2f}")


if __name__ == "__main__":
    main()
