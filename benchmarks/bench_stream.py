"""Runs larger than memory (issue 42, goal 3): a large TREC run streamed by ``eval``, the ``trec_eval`` drop-in and
``evaluate_files`` (the Campaign door), beside the in-memory path, pytrec_eval and the trec_eval binary on the
largest file they read here.

    python benchmarks/bench_stream.py [--topics 100000] [--docs 1000] [--judged 20] [--memory-topics 10000]
                                      [--unsorted-topics 10000] [--block-mb 64] [--folder /tmp] [--memory-repeat 3]
                                      [--drop-in-measures all_trec|four] [--trec-eval PATH] [--skip ...]
                                      [--only unsorted]

Files: a run of ``topics`` × ``docs`` lines grouped by topic (``q<i> Q0 d<j> <rank> <score> run``, scores rounded to
4 decimals, so some tie), qrels of ``judged`` judgements per topic (grades 0–3, a few of them documents the run
misses); a smaller run of ``memory-topics`` topics for the in-memory path and the peers; a run of
``unsorted-topics`` topics not grouped by topic (each topic's first half of documents, then every topic's second
half), which the stream partitions to disk first (rows for ``eval``, the drop-in and ``evaluate_files``, each beside
its in-memory row). All are written under ``--folder`` and deleted at the end. ``--only unsorted``: the in-memory
rows and the not-grouped rows only (the large grouped run is not written).

Every row is a fresh process (bench_ranking.py's measure: wall, CPU user + system, peak resident memory; the
in-memory and not-grouped rows, a few seconds each, the best of ``--memory-repeat`` processes, 3 by default, the
100-million-line rows of one):
lines per second are the run's lines over the wall time (and over the CPU time), the ratios those of the streamed
row to the in-memory row of the same door. The goal: a streamed peak ≤ 1.5 GB and ≥ 80% of the in-memory
path's lines per second (the same command, ``--no-stream``, on the largest file it reads here). The load average is
printed at the start and the end: on a shared machine, CPU seconds and peak memory are steadier than wall time.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ranking import PYTREC_FILE_SCRIPT, load, measured_process, trec_eval_binary  # noqa: E402

FOUR = ["AP", "nDCG", "P@10", "RR"]
TREC_FOUR = ["-m", "map", "-m", "ndcg", "-m", "P.10", "-m", "recip_rank"]
CAMPAIGN_SCRIPT = """
import sys, warnings
from workbench.data import evaluate_files, read_campaign
warnings.simplefilter("ignore")
qrels, run, how, block = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
measures = ["AP", "nDCG", "P@10", "RR"]
if how == "stream":
    frame = evaluate_files(qrels, [run], measures, progress=False, block_bytes=block)
else:
    frame = read_campaign(qrels, [run]).evaluate(measures, progress=False)
print(frame.groupby("measure", sort=False)["value"].mean().to_string())
"""
VARIANTS = 8  # score columns the topics draw from


def _middles(docs: int, rng: np.random.Generator) -> list[list[str]]:
    """The text after the topic of each line of a topic, in :data:`VARIANTS` variants (scores descending)."""
    out = []
    for _ in range(VARIANTS):
        scores = np.sort(np.round(rng.random(docs), 4))[::-1].tolist()
        order = rng.permutation(docs).tolist()
        out.append([f" Q0 d{order[j]} {j + 1} {scores[j]!r} run\n" for j in range(docs)])
    return out


def write_run(path: Path, topics: int, docs: int, seed: int, grouped: bool = True) -> int:
    """A run of ``topics`` × ``docs`` lines, grouped by topic or not (halves); its bytes."""
    rng = np.random.default_rng(seed)
    middles = _middles(docs, rng)
    picks = rng.integers(0, VARIANTS, topics)
    with open(path, "w", buffering=1 << 24) as file:
        halves = [slice(0, docs)] if grouped else [slice(0, docs // 2), slice(docs // 2, docs)]
        for half in halves:
            for t in range(topics):
                prefix = f"q{t}"
                file.write(prefix + prefix.join(middles[picks[t]][half]))
    return path.stat().st_size


def write_qrels(path: Path, topics: int, docs: int, judged: int, seed: int) -> None:
    rng = np.random.default_rng(seed + 1)
    with open(path, "w", buffering=1 << 24) as file:
        for t in range(topics):
            chosen = rng.choice(docs + judged, judged, replace=False)
            grades = rng.integers(0, 4, judged)
            file.write("".join(f"q{t} 0 d{d} {g}\n" for d, g in zip(chosen.tolist(), grades.tolist(), strict=True)))


def _row(label: str, lines: int, measured: tuple, reference: tuple[float, float] | None = None
         ) -> tuple[float, float]:
    """One process's row: lines per wall second and per CPU second, and their ratios to ``reference``'s."""
    wall, cpu, peak, _ = measured
    rates = (lines / wall, lines / cpu)
    ratios = f"{rates[0] / reference[0]:8.2f} {rates[1] / reference[1]:8.2f}" if reference else ""
    print(f"   {label:<44} {lines:>12,} {wall:8.1f} {cpu:8.1f} {peak:9,d} {rates[0]:12,.0f} {rates[1]:12,.0f} "
          f"{ratios}")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=20)
    parser.add_argument("--memory-topics", type=int, default=10_000)
    parser.add_argument("--unsorted-topics", type=int, default=10_000)
    parser.add_argument("--block-mb", type=int, default=64)
    parser.add_argument("--folder", default=tempfile.gettempdir())
    parser.add_argument("--drop-in-measures", choices=("all_trec", "four"), default="all_trec")
    parser.add_argument("--trec-eval")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-repeat", type=int, default=3, help="best of this many in-memory processes")
    parser.add_argument("--skip", nargs="*", default=[],
                        choices=["memory", "pytrec_eval", "trec_eval", "unsorted", "campaign", "drop-in"])
    parser.add_argument("--only", choices=["unsorted"])
    args = parser.parse_args()
    grouped = args.only is None
    python, block = sys.executable, args.block_mb << 20
    folder = Path(tempfile.mkdtemp(prefix="bench-stream-", dir=args.folder))
    try:
        start = time.perf_counter()
        qrels, small_qrels, unsorted_qrels = folder / "qrels", folder / "small.qrels", folder / "unsorted.qrels"
        for path, topics in ((qrels, args.topics), (small_qrels, args.memory_topics),
                             (unsorted_qrels, args.unsorted_topics)):  # each run's topics (trec_eval 10.0 stops on
            write_qrels(path, topics, args.docs, args.judged, args.seed)  # a judged topic a run lacks)
        big, small, unsorted = folder / "big.run", folder / "small.run", folder / "unsorted.run"
        size = write_run(big, args.topics, args.docs, args.seed) if grouped else 0
        write_run(small, args.memory_topics, args.docs, args.seed)
        if "unsorted" not in args.skip:
            write_run(unsorted, args.unsorted_topics, args.docs, args.seed, grouped=False)
        large = f"run {args.topics:,} topics × {args.docs:,} documents ({size / 1e9:.2f} GB); " if grouped else ""
        print(f"files written in {time.perf_counter() - start:.0f} s under {folder}: {large}in-memory run "
              f"{args.memory_topics:,} topics; not-grouped run {args.unsorted_topics:,} topics; blocks of "
              f"{args.block_mb} MiB ({load()})")
        drop_in = ["-m", "all_trec"] if args.drop_in_measures == "all_trec" else TREC_FOUR
        big_lines, small_lines = args.topics * args.docs, args.memory_topics * args.docs
        header = ("process", "run lines", "wall (s)", "CPU (s)", "peak (MB)", "lines/s", "lines/CPU-s", "÷ memory",
                  "(CPU)")
        print("   {:<44} {:>12} {:>8} {:>8} {:>9} {:>12} {:>12} {:>8} {:>8}".format(*header))
        def eval_command(gold: Path) -> list[str]:
            return [python, "-m", "workbench", "eval", "--gold", str(gold), "-m", *FOUR, "-q", "--format", "csv",
                    "--stream-block", str(block), "--run"]

        rates = {}
        best = args.memory_repeat  # the ratios' denominators: a few seconds each, best of several
        if "memory" not in args.skip:
            rates["eval"] = _row("in memory: eval --no-stream", small_lines,
                                 measured_process([*eval_command(small_qrels), str(small), "--no-stream"], best))
            if "drop-in" not in args.skip:
                rates["drop-in"] = _row(f"in memory: trec_eval {args.drop_in_measures} --no-stream", small_lines,
                                        measured_process([python, "-m", "workbench", "trec_eval", *drop_in,
                                                          "--no-stream", str(small_qrels), str(small)], best))
            if "campaign" not in args.skip:
                rates["campaign"] = _row("in memory: read_campaign().evaluate", small_lines,
                                         measured_process([python, "-c", CAMPAIGN_SCRIPT, str(small_qrels), str(small),
                                                           "memory", str(block)], best))
        def streamed_rows(label: str, gold: Path, run: Path, lines: int, repeat: int) -> None:
            _row(f"{label}: eval --stream", lines,
                 measured_process([*eval_command(gold), str(run), "--stream"], repeat, False), rates.get("eval"))
            if "drop-in" not in args.skip:
                _row(f"{label}: trec_eval {args.drop_in_measures} --stream", lines,
                     measured_process([python, "-m", "workbench", "trec_eval", *drop_in, "--stream",
                                       "--stream-block", str(block), str(gold), str(run)], repeat, False),
                     rates.get("drop-in"))
            if "campaign" not in args.skip:
                _row(f"{label}: evaluate_files", lines,
                     measured_process([python, "-c", CAMPAIGN_SCRIPT, str(gold), str(run), "stream", str(block)],
                                      repeat, False), rates.get("campaign"))

        if grouped:
            streamed_rows("streamed", qrels, big, big_lines, 1)
        if "unsorted" not in args.skip:  # as short as the in-memory rows: as many tries
            streamed_rows("not grouped, partitioned", unsorted_qrels, unsorted, args.unsorted_topics * args.docs,
                          best)
            print(f"      (temporary space: the file's {unsorted.stat().st_size / 1e9:.2f} GB)")
        if "pytrec_eval" not in args.skip and grouped:
            _row("pytrec_eval parse+eval 4 (in memory)", small_lines,
                 measured_process([python, "-c", PYTREC_FILE_SCRIPT, str(small_qrels), str(small), "four"], 1))
        binary = trec_eval_binary(args.trec_eval)
        if binary and "trec_eval" not in args.skip and grouped:
            _row("trec_eval 10.0 binary 4 (in memory)", small_lines,
                 measured_process([binary, *TREC_FOUR, str(small_qrels), str(small)], 1))
            _row("trec_eval 10.0 binary all_trec (in memory)", small_lines,
                 measured_process([binary, "-m", "all_trec", str(small_qrels), str(small)], 1))
        elif not binary:
            print("   (no trec_eval binary: give --trec-eval PATH or $TREC_EVAL)")
        print(f"   ({load()})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
