"""Time Campaign.evaluate serially, on 2 local processes and on a 2-worker Dask LocalCluster, in one run.

    python benchmarks/bench_campaign.py [--runs 100] [--topics 250] [--docs 100] [--chunk-topics N] [--seed 0]
                                        [--long-runs 20] [--long-topics 100] [--long-docs 2000]
                                        [--rounds 3]

A synthetic TREC-like campaign: per topic a graded gold over 30 of ``--docs`` documents and, per run, a ranking of
``--docs // 2`` of them; six measures (AP, nDCG@10, P@10, RR, R≺ and S∼ with n=10, W_n=0.8). The pools are started
before the clock (their start-up is printed apart), then the serial run, the pool and the cluster evaluate in turn,
``--rounds`` times each in the same processes, and their medians are compared. An evaluation touches its peak's
memory, which on a virtual machine costs a fault of the host per page the guest gave back (the reason one serial
run took 2.8-5.1 s): the serial run's system time was 0.8-3.5 s in a fresh process, 0.10-0.14 s right after
another evaluation, 0.9-2.2 s after a pause of 4 s (its freed pages gone back), for the same 2.5-2.8 s of user
time; a single run compared the caller's first evaluation with workers forked after it. Each executor's results
are checked equal to the serial ones bit for bit. Needs ``dask[distributed]`` (``pip install -e
".[distributed]"``, in the dev extra) for the cluster row and psutil, which it brings, for each worker's CPU.
Every row scores a campaign built afresh (same seed), so that no row reuses what another computed and cached on the
organizations (their occurrence arrays), and collected once (``gc.collect()``) before the clock: the collector's
first full pass over the 1.25 million objects just built otherwise fell in whichever evaluation came next, in the
serial one (whose scoring allocates enough to trigger it) more than in a caller that only sends chunks. Measured:
the serial rounds took 2.35, 2.26, 1.48, 1.58, 1.39 s without it, 1.56, 1.55, 1.41, 1.42, 1.42 s with it.

Then (issue 24) R≺ and S∼ alone, serially; a sweep of 10 (n, W_n) settings of both against one setting (the
campaign-level kernel shares every count between settings); and the three rows again for a campaign of
``--long-runs`` × ``--long-topics`` with rankings of ``--long-docs // 2`` documents (R≺ and S∼ only), read as a
TREC campaign is: runs held as arrays (``Campaign.from_dicts``), which reach the workers as arrays.

R≺ and S∼ alone are also printed in machine units (issue 42: at most 1): a multiple of pytrec_eval's time on the
files benchmark's work (``bench_ranking.py``'s "pytrec_eval parse+eval 4" process, 2,000 queries × 1,000 documents),
measured in the same run, wall time over its wall time and CPU time over its CPU time; ``--unit-repeat 0`` leaves
it out.

Beside the wall-clock times it prints the CPU seconds the work took in the caller and in each worker (the pool's
children, the Dask workers, read with psutil): the caller's is what it still does itself (cutting and pickling the
chunks, putting the rows together; with a LocalCluster also its scheduler and nannies, which run in the caller's
process), their sum against the serial CPU time the cost of distribution, which the wall-clock speed-up hides on
a busy machine (the load average is printed with every table). The Dask row runs on the workbench's own cluster,
:func:`workbench.data.distributed.local_cluster` (its workers' profiler, tick and memory monitor slowed:
``LOCAL_CLUSTER_CONFIG``); ``--dask-defaults`` runs it on a LocalCluster with Dask's defaults instead. The pool is
made before the campaign, as docs/distributed.md advises: its forked workers share the caller's memory copy on
write, and a campaign built before the fork has its pages copied as the caller reads its organizations to cut the
chunks (every read changes reference counts: 0.35 s of system time on the Organization campaign).

``--only executors`` prints the two executor tables alone (no machine unit, no R≺ S∼ sweep). ``--only passes``
prints the R&S engine's CPU milliseconds per topic when one pass scores 5, 10, 25, 50 or all the topics (every
system's pairs of those topics, as a chunk of a distributed campaign holds them), on both campaigns, sizes
alternated over three rounds: the serial run is the pass of all the topics, and should cost per topic what a chunk
costs (the segmented pass works in blocks of pairs, ``campaign_rs._BLOCK_ROWS``; before them the arrays campaign
took 10.1-10.8 ms a topic in one pass against 7.4-7.9 in passes of 10 topics).
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from statistics import median

import numpy as np
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_ranking import pytrec_eval_unit  # noqa: E402
from workbench.data import Campaign  # noqa: E402
from workbench.data.engines import ENGINES, Held  # noqa: E402
from workbench.metrics.campaign_rs import campaign_scores  # noqa: E402
from workbench.metrics.registry import parse  # noqa: E402
from workbench.model import Organization  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R≺(n=10, wn=0.8)", "S∼(n=10, wn=0.8)"]
RS = ["R≺(n=10, wn=0.8)", "S∼(n=10, wn=0.8)"]
SETTINGS = [(1, 0.5), (2, 0.6), (3, 0.7), (5, 0.8), (10, 0.8), (10, 0.9), (20, 0.9), (50, 0.95), (100, 0.95),
            (1000, 0.99)]
SWEEP = [f"{name}(n={n}, wn={wn})" for n, wn in SETTINGS for name in ("R≺", "S∼")]


def synthetic_arrays(runs: int, topics: int, docs: int, seed: int) -> Campaign:
    """The same shape as :func:`synthetic`, read as a TREC campaign is (Campaign.from_dicts: runs held as arrays,
    their Organizations built only when a measure needs them)."""
    rng = np.random.default_rng(seed)
    ids = np.array([f"d{i}" for i in range(docs)])
    qrels = {f"q{t}": {str(d): int(g) for d, g in zip(rng.choice(ids, 30, replace=False), rng.integers(0, 4, 30),
                                                      strict=True)} for t in range(topics)}
    scores = np.arange(docs // 2, 0, -1, dtype=float)
    outputs = {f"run{r:03d}": {t: dict(zip(rng.permutation(ids)[: docs // 2].tolist(), scores.tolist(), strict=True))
                               for t in qrels} for r in range(runs)}
    return Campaign.from_dicts(qrels, outputs)


def synthetic(runs: int, topics: int, docs: int, seed: int) -> Campaign:
    rng = np.random.default_rng(seed)
    ids = np.array([f"d{i}" for i in range(docs)])
    gold = {f"q{t}": Organization.from_graded({d: int(g) for d, g in zip(rng.choice(ids, 30, replace=False),
                                                                        rng.integers(0, 4, 30), strict=True)})
            for t in range(topics)}
    outputs = {f"run{r:03d}": {t: Organization.from_ranking(rng.permutation(ids)[: docs // 2].tolist())
                               for t in gold} for r in range(runs)}
    return Campaign(gold, outputs)


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--chunk-topics", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--long-runs", type=int, default=20)
    parser.add_argument("--long-topics", type=int, default=100)
    parser.add_argument("--long-docs", type=int, default=2000)
    parser.add_argument("--unit-repeat", type=int, default=3,
                        help="fresh pytrec_eval processes for the machine unit (best of; 0: no unit)")
    parser.add_argument("--only", choices=["rs", "executors", "passes"],
                        help="only R≺ and S∼ alone, serially (with the unit); only the executor tables; or only the "
                             "R&S engine's cost per topic against the topics of its pass")
    parser.add_argument("--rounds", type=int, default=3,
                        help="evaluations of each executor row, in turn (the median is compared)")
    parser.add_argument("--dask-defaults", action="store_true",
                        help="the Dask row on a LocalCluster with Dask's defaults, not local_cluster()'s settings")
    args = parser.parse_args()

    def fresh():
        return synthetic(args.runs, args.topics, args.docs, args.seed)

    if args.only == "passes":
        for label, campaign in (("Organization campaign", fresh()), ("arrays campaign", synthetic_arrays(
                args.long_runs, args.long_topics, args.long_docs, args.seed))):
            passes(label, campaign)
        return
    unit = pytrec_eval_unit(args.unit_repeat) if args.unit_repeat and args.only != "executors" else None
    warm_up()  # the first evaluation would otherwise pay for importing pandas and the measure modules
    if unit:
        print(f"machine unit: pytrec_eval parse+eval of bench_ranking.py's files (2,000 q × 1,000 d) {unit[0]:.2f} s "
              f"wall, {unit[1]:.2f} s CPU")
    if args.only != "rs":
        print(f"{args.runs} runs × {args.topics} topics × {len(MEASURES)} measures "
              f"({args.runs * args.topics} run-topic pairs, rankings of {args.docs // 2}); {os.cpu_count()} cores, "
              f"load average {load()}")
        executors(fresh, MEASURES, args.chunk_topics, args.dask_defaults, args.rounds)
    if args.only != "executors":
        sweeps(fresh, unit, args.runs, args.topics, args.only == "rs")
    if args.only == "rs":
        return

    def long():
        return synthetic_arrays(args.long_runs, args.long_topics, args.long_docs, args.seed)

    print(f"\n{args.long_runs} runs × {args.long_topics} topics, rankings of {args.long_docs // 2} read as arrays "
          f"(Campaign.from_dicts), R≺ and S∼ (load average {load()}):")
    executors(long, RS, args.chunk_topics, args.dask_defaults, args.rounds)


def sweeps(fresh, unit: tuple[float, float] | None, runs: int, topics: int, alone: bool) -> None:
    """R≺ and S∼ serially, one (n, W_n) setting against ten (then the kernel alone, unless ``alone``), each on a
    campaign built afresh and collected before the clock (:func:`serially`), with the collector's CPU seconds
    inside the clock."""
    print(f"\nR≺ and S∼ alone, serially, {runs} runs × {topics} topics (load average {load()}):")
    one, one_cpu, one_gc = serially(fresh(), RS)
    print(f"{'1 setting (2 measures)':30} {one:8.2f}s {one_cpu:8.2f}s CPU{in_units(one, one_cpu, unit)}; "
          f"collector {one_gc:.2f}s CPU")
    sweep, sweep_cpu, sweep_gc = serially(fresh(), SWEEP)
    print(f"{'10 settings (20 measures)':30} {sweep:8.2f}s {sweep_cpu:8.2f}s CPU{in_units(sweep, sweep_cpu, unit)} "
          f"{sweep / one:8.2f}× one setting; collector {sweep_gc:.2f}s CPU")
    if alone:
        return
    campaign = fresh()
    pairs = [(campaign.gold[topic], run[topic]) for run in campaign.runs.values() for topic in campaign.gold]
    campaign_scores(pairs, SETTINGS[4:5])  # the organizations' arrays, computed once, then the kernel alone
    one = timed(lambda: campaign_scores(pairs, SETTINGS[4:5]))[0]
    sweep = timed(lambda: campaign_scores(pairs, SETTINGS))[0]
    print(f"{'kernel alone: 1 setting':30} {one:8.2f}s\n{'kernel alone: 10 settings':30} {sweep:8.2f}s "
          f"{sweep / one:8.2f}× one setting (campaign_scores, without the rows of the table)")


def passes(label: str, campaign: Campaign, sizes: tuple[int, ...] = (5, 10, 25, 50), rounds: int = 3) -> None:
    """CPU milliseconds per topic of the R&S engine (R≺ and S∼) scoring ``campaign`` in passes of each of ``sizes``
    topics and in one pass of all of them, every system's pairs of a pass's topics together; the sizes in turn,
    ``rounds`` times, after one pass over everything (the golds' arrays made once)."""
    topics, systems = list(campaign.gold), list(campaign.runs)
    held, engine, measures = Held(campaign.gold, campaign.runs), ENGINES["R&S"], {name: parse(name) for name in RS}

    def cpu_per_topic(size: int) -> float:
        before = time.process_time()
        for start in range(0, len(topics), size):
            engine.score(held, [(system, topic) for system in systems for topic in topics[start:start + size]],
                         measures)
        return (time.process_time() - before) * 1000 / len(topics)

    cpu_per_topic(len(topics))
    every = [size for size in sizes if size < len(topics)] + [len(topics)]
    spent: dict[int, list[float]] = {size: [] for size in every}
    for _ in range(rounds):
        for size in every:
            gc.collect()
            spent[size].append(cpu_per_topic(size))
    print(f"{label}, {len(systems)} systems × {len(topics)} topics, R≺ and S∼ (load average {load()}): CPU ms per "
          "topic by topics in one pass, median (each round)")
    for size, times in spent.items():
        print(f"  {size:5d} topics{' (serial)' if size == len(topics) else '':9} {median(times):6.2f}  ("
              + ", ".join(f"{one:.2f}" for one in times) + ")")


def serially(campaign: Campaign, measures: list[str]) -> tuple[float, float, float]:
    """Wall and CPU seconds of evaluating ``measures`` on this process, and the CPU seconds of the cyclic collector
    within them. The campaign just built is collected first, outside the clock: a full collection costs as much as
    the objects alive (0.7 CPU-s over the 2.7 million a 100 × 250 campaign of Organizations tracks) and falls where
    the build left it due. R≺ and S∼ under ten settings leave 502 tracked objects alive of about 137,000 they make
    (196 young collections, 17 middle, no full one: 0.01 CPU-s), so a full pass in their clock would be the build's
    (in four runs of this table with and without the collection before the clock, none fell in it; the collector's
    seconds inside the clock are printed to show it)."""
    gc.collect()
    with Collector() as collector:
        before = cpu_seconds()
        elapsed = timed(lambda: campaign.evaluate(measures, progress=False))[0]
        spent = cpu_seconds() - before
    return elapsed, spent, collector.seconds


class Collector:
    """As a context manager: the CPU seconds (this thread's) the cyclic collector spends while the block runs."""

    def __init__(self) -> None:
        self.seconds, self._start = 0.0, 0.0

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.thread_time()
        else:
            self.seconds += time.thread_time() - self._start

    def __enter__(self) -> Collector:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


def in_units(wall: float, cpu: float, unit: tuple[float, float] | None) -> str:
    """Wall and CPU seconds as multiples of the machine unit's (nothing without a unit)."""
    return f"  = {wall / unit[0]:.2f} units wall, {cpu / unit[1]:.2f} units CPU" if unit else ""


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def executors(fresh, measures: list[str], chunk_topics: int | None, dask_defaults: bool = False,
              rounds: int = 3) -> None:
    """Serial, ProcessPoolExecutor(2) and a 2-worker Dask LocalCluster on fresh copies of one campaign, ``rounds``
    times in turn (serial, pool, Dask, serial, ...): wall seconds, and CPU seconds of this process (the caller) and
    of each worker, each round's and their median. Every path runs as many times in the same processes: on a
    virtual machine an evaluation's system time depends on whether the pages it touches were given back to the host
    (the module's docstring), and one run of each would compare a serial first run with workers' later ones."""
    start, pool = timed(lambda: ProcessPoolExecutor(2))
    pool.submit(warm_up).result()  # the workers are up (forked: both at the first submit)
    pool.submit(warm_up).result()
    paths = {"serial": (0.0, None, [])}
    with ExitStack() as stack:
        stack.enter_context(pool)
        paths["ProcessPoolExecutor(2)"] = (start, pool, list(pool._processes))  # the pool's workers (private)
        try:
            from distributed import Client, LocalCluster

            from workbench.data.distributed import local_cluster
        except ImportError:
            print("(dask[distributed] is not installed: no cluster row)")
        else:
            start, cluster = timed(lambda: local_cluster(2) if not dask_defaults else LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40))
            stack.enter_context(cluster)
            client = stack.enter_context(Client(cluster))
            client.wait_for_workers(2)
            client.run(warm_up)  # the spawned workers import the workbench (forked pool workers inherit it)
            label = "Dask LocalCluster(2, defaults)" if dask_defaults else "Dask local_cluster(2)"
            paths[label] = (start, client, list(client.run(os.getpid).values()))
        times: dict[str, list[tuple[float, float, list[float]]]] = {label: [] for label in paths}
        serial = None
        for _ in range(rounds):
            for label, (_, executor, workers) in paths.items():
                campaign = fresh()  # built afresh: nothing cached on the organizations by an earlier row
                gc.collect()  # the build's objects collected once, outside the timer, whichever row comes next
                caller, each = cpu_seconds(), processes_cpu(workers)
                elapsed, result = timed(functools.partial(campaign.evaluate, measures, executor=executor,
                                                          chunk_topics=chunk_topics, progress=False))
                times[label].append((elapsed, cpu_seconds() - caller, spent_since(each, workers)))
                del campaign
                serial = result if serial is None else serial
                assert result.equals(serial), f"{label}: results differ from the serial ones"
    print_executors(paths, times)


def print_executors(paths: dict, times: dict[str, list[tuple[float, float, list[float]]]]) -> None:
    """Each path's evaluations, then its medians: speed-up against the serial median, CPU of the caller and of
    each worker, their sum against the serial CPU (the cost of distribution), and each worker's idle time (the
    evaluation's wall time less the worker's CPU: waiting for its first chunk, for the others at the end, or for
    a core another process took)."""
    medians = {label: (median(t[0] for t in runs), median(t[1] for t in runs),
                       [median(t[2][i] for t in runs) for i in range(len(runs[0][2]))])
               for label, runs in times.items()}
    idle = {label: [median(t[0] - t[2][i] for t in runs) for i in range(len(runs[0][2]))]
            for label, runs in times.items()}
    serial_time, serial_cpu = medians["serial"][0], medians["serial"][1]
    print(f"{'(medians of ' + str(len(times['serial'])) + ' rounds)':30} {'start-up':>9} {'evaluate':>9} "
          f"{'speed-up':>9} {'CPU caller':>11} {'CPU workers':>12} {'CPU/serial':>10}  each worker (idle); each round")
    for label, (elapsed, caller, each) in medians.items():
        rounds = ", ".join(f"{t[0]:.2f}s ({t[1] + sum(t[2]):.2f} CPU)" for t in times[label])
        print(f"{label:30} {paths[label][0]:8.2f}s {elapsed:8.2f}s {serial_time / elapsed:8.2f}× {caller:10.2f}s "
              f"{sum(each):11.2f}s {(caller + sum(each)) / max(serial_cpu, 1e-9):9.2f}×  "
              + " + ".join(f"{one:.2f}s" for one in each)
              + (" (" + ", ".join(f"{one:.2f}s" for one in idle[label]) + ")" if each else "") + f"; {rounds}")
    print(f"(every executor's results equal the serial ones bit for bit; load average now {load()})")


def warm_up() -> None:
    """Import what a chunk's scoring uses (pandas, the measure modules, the engines and their kernels), by scoring a
    one-topic campaign with the benchmark's measures: what the first chunk would otherwise pay for, once per process
    (a long-lived cluster's workers have paid it)."""
    from workbench.data.campaign import Campaign
    from workbench.data.distributed import score_on  # noqa: F401  (the worker's side)

    campaign = Campaign.from_dicts({"q": {"a": 1, "b": 0}}, {"s": {"q": {"a": 0.5, "b": 0.9}}})
    campaign.evaluate(MEASURES + RS, progress=False)


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (every thread: with a LocalCluster, its scheduler's too)."""
    times = os.times()
    return times.user + times.system


def processes_cpu(pids: list[int]) -> list[float]:
    """User + system CPU seconds of each of these processes (the workers), so far."""
    return [sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids]


def spent_since(before: list[float], pids: list[int]) -> list[float]:
    """CPU seconds each of these processes spent since :func:`processes_cpu` gave ``before``."""
    return [after - was for was, after in zip(before, processes_cpu(pids), strict=True)]

if __name__ == "__main__":
    main()
