"""Time ``python -m workbench trec_eval -m all_trec`` against pytrec_eval's parse + evaluate, as processes.

    python benchmarks/bench_trec_eval.py [--queries 2000] [--docs 1000] [--repeat 3] [--seed 0]

Writes a qrels file (300 judgements per query, grades 0–2) and a run file (``--docs`` per query, scores
rounded to 4 decimals so that ties occur) to a temporary folder, then runs each side as a fresh process:
the workbench's drop-in ``trec_eval -m all_trec`` (reading, ranking, every all_trec measure, printing) and a
pytrec_eval script (reading both files into dicts with a plain loop, then ``RelevanceEvaluator`` with all
its supported measures). Prints wall and CPU seconds (best of ``--repeat``), the ratio, and checks that the
printed ``map`` equals pytrec_eval's mean AP to 4 decimals.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

PYTREC_SCRIPT = """
import sys, pytrec_eval
def read(path, column, kind):
    found = {}
    with open(path) as lines:
        for line in lines:
            fields = line.split()
            found.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
    return found
qrels, run = read(sys.argv[1], 3, int), read(sys.argv[2], 4, float)
result = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
print(sum(v["map"] for v in result.values()) / len(result))
"""


def write_campaign(folder: Path, queries: int, docs: int, seed: int) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    qrels, run = folder / "qrels", folder / "run"
    with qrels.open("w") as q, run.open("w") as r:
        for topic in range(queries):
            judged = rng.choice(5 * docs, 300, replace=False)
            q.writelines(f"{topic} 0 doc{d} {g}\n" for d, g in zip(judged, rng.integers(0, 3, 300), strict=True))
            retrieved = rng.choice(5 * docs, docs, replace=False)
            scores = np.round(rng.random(docs), 4)
            r.writelines(f"{topic} Q0 doc{d} {i} {s} bench\n"
                         for i, (d, s) in enumerate(zip(retrieved, scores, strict=True)))
    return qrels, run


def run_process(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system of the child) and standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = write_campaign(Path(folder), args.queries, args.docs, args.seed)
        print(f"{args.queries} queries × {args.docs} documents: run {run.stat().st_size / 1e6:.1f} MB, "
              f"qrels {qrels.stat().st_size / 1e6:.1f} MB; best of {args.repeat}")
        sides = {"workbench trec_eval -m all_trec": [sys.executable, "-m", "workbench", "trec_eval", "-m",
                                                    "all_trec", str(qrels), str(run)],
                 "pytrec_eval parse + evaluate": [sys.executable, "-c", PYTREC_SCRIPT, str(qrels), str(run)]}
        best, outputs = {}, {}
        for label, command in sides.items():
            times = [run_process(command) for _ in range(args.repeat)]
            best[label] = (min(t[0] for t in times), min(t[1] for t in times))
            outputs[label] = times[0][2]
            print(f"  {label:<34} wall {best[label][0]:7.2f} s   cpu {best[label][1]:7.2f} s")
        ours, theirs = best.values()
        print(f"  ratio workbench / pytrec_eval:     wall {ours[0] / theirs[0]:7.2f}"
              f"     cpu {ours[1] / theirs[1]:7.2f}")
        printed = next(line.split()[2] for line in outputs[next(iter(sides))].splitlines()
                       if line.startswith("map "))
        reference = float(outputs["pytrec_eval parse + evaluate"])
        print(f"  map: workbench {printed}, pytrec_eval {reference:.4f} "
              f"({'equal' if printed == f'{reference:.4f}' else 'DIFFERENT'})")


if __name__ == "__main__":
    main()
