"""Time the Reliability/Sensitivity engine against size, beside the O(n²) brute force of the tests.

    python benchmarks/bench_rs.py [--max-size 1000000] [--brute-budget 60] [--overlap 0.002]

Three synthetic shapes per size (occurrences counted on the output side): a general organization (50 levels
of clusters, a share --overlap of documents in two clusters) against a 5-level gold; a ranking against a
4-grade gold; a flat clustering of a closed collection against its gold. The brute force runs while a run
takes less than the budget. Then the overlap shapes of issue 12 (20-document clusters at uniformly drawn
levels, a share of documents placed twice on both sides, against a 5-level gold), rankings in which half
the documents sit at two ranks (against a graded gold, and against such a ranking), the shapes of issue 22
(as many levels on both sides, documents placed twice on both sides; a plain gold ranking against such a
ranking) and ``explain`` against ``reliability_sensitivity`` on 10⁵ occurrences (issue 11: at most 3×).

``--only small``: paper-size pairs (Table 9 of Amigó et al., SIGIR 2013, and 5-level organizations with a quarter
of the documents placed twice, 9 to 250 occurrences), the CPU milliseconds of one ``reliability_sensitivity``
through the pairwise path for small organizations and through the general kernels (issue 42, the classroom
path: where the pairwise path's size limit ``relations._PAIRWISE_OCCURRENCES`` comes from).

Times of 10⁶ occurrences are also printed in machine units (issue 42: each at most 1): a multiple of pytrec_eval's
time on the files benchmark's work (``bench_ranking.py``'s "pytrec_eval parse+eval 4" process, 2,000 queries ×
1,000 documents), measured at the start of the same run, wall time over its wall time and CPU time over its CPU
time (steadier where the machine is shared); ``--unit-repeat 0`` leaves it out. So is the R&S campaign of
``bench_campaign.py`` (100 runs × 250 topics, rankings of 50 documents against graded golds of 30: R≺ and S∼
under one (n, W_n) setting, and under its ten), each on a campaign built afresh and collected before the clock (the
build's full collection: ``bench_campaign.serially``), beside the shapes in one run, with the collector's CPU seconds
within the clock.

The engine is O(n log² n) (O(n) when both sides have few levels) plus, for the documents with several
occurrences, grouped in classes by their sorted levels on both sides: with few levels, prefix sums over a
grid of those levels per group of classes, O(grid + classes); with many levels (rankings with repeated
documents), comparisons of every pair of classes, O(classes²), in small integers and cache-sized blocks.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import bench_campaign  # noqa: E402
from benchmarks.bench_ranking import pytrec_eval_unit  # noqa: E402
from tests import rs_bruteforce  # noqa: E402
from workbench import Organization, explain, reliability_sensitivity  # noqa: E402
from workbench.metrics import relations  # noqa: E402
from workbench.widgets.gallery import EXAMPLES  # noqa: E402


def general(size: int, rng: random.Random, overlap: float) -> tuple[Organization, Organization]:
    docs = [f"d{i}" for i in range(size)]

    def organize(n_levels: int) -> Organization:
        levels: list[list[set[str]]] = [[] for _ in range(n_levels)]
        for doc in docs:
            placements = 2 if rng.random() < overlap else 1
            for _ in range(placements):
                level = levels[min(int(rng.expovariate(3 / n_levels)), n_levels - 1)]
                if not level or rng.random() < 0.2:
                    level.append(set())
                cluster = level[rng.randrange(len(level))]
                if doc in cluster:
                    continue
                cluster.add(doc)
        levels = [[c for c in level if c] for level in levels]
        return Organization(tuple(tuple(map(frozenset, level)) for level in levels if level))

    return organize(5), organize(50)


def uniform_overlap(occurrences: int, rng: random.Random, overlap: float, n_levels: int,
                    cluster_size: int = 20) -> tuple[Organization, Organization]:
    """About ``occurrences`` placements per side in ``cluster_size``-document clusters at uniformly drawn
    levels, a share ``overlap`` of the documents placed twice; the gold has 5 levels, the output n_levels."""
    docs = [f"d{i}" for i in range(round(occurrences / (1 + overlap)))]

    def organize(levels_wanted: int) -> Organization:
        placements = [d for d in docs for _ in range(2 if rng.random() < overlap else 1)]
        rng.shuffle(placements)
        levels: list[list[frozenset[str]]] = [[] for _ in range(levels_wanted)]
        for start in range(0, len(placements), cluster_size):
            levels[rng.randrange(levels_wanted)].append(frozenset(placements[start:start + cluster_size]))
        return Organization(tuple(tuple(level) for level in levels if level))

    return organize(5), organize(n_levels)


def overlap_on_both_sides(n_docs: int, rng: random.Random, n_levels: int, share_twice: float,
                          cluster_size: int = 20) -> tuple[Organization, Organization]:
    """Issue 22's shape, both sides built the same way, independently: the documents and a share of them
    again, shuffled into ``n_levels`` equal levels of ``cluster_size``-document clusters."""
    docs = [f"d{i}" for i in range(n_docs)]

    def organize() -> Organization:
        occurrences = docs + [d for d in docs if rng.random() < share_twice]
        rng.shuffle(occurrences)
        per = len(occurrences) // n_levels + 1
        levels = [occurrences[k * per:(k + 1) * per] for k in range(n_levels)]
        return Organization(tuple(tuple(frozenset(level[i:i + cluster_size])
                                        for i in range(0, len(level), cluster_size)) for level in levels if level))

    return organize(), organize()


def repeated_ranking(size: int, rng: random.Random, gold: str) -> tuple[Organization, Organization]:
    """An output ranking of ``size`` documents in which half of them sit at two ranks, against a gold that is
    ``"graded"`` (4 grades), a plain ``"ranking"`` of the documents, or such a ranking (``"repeated"``)."""
    docs = [f"d{i}" for i in range(size)]

    def ranks() -> Organization:
        placed = docs + rng.sample(docs, size // 2)
        rng.shuffle(placed)
        return Organization(tuple((frozenset([d]),) for d in placed))

    if gold == "graded":
        return Organization.from_graded({d: rng.choice([0, 0, 0, 1, 2, 3]) for d in docs}), ranks()
    if gold == "ranking":
        return Organization.from_ranking(rng.sample(docs, size)), ranks()
    return ranks(), ranks()


def ranking(size: int, rng: random.Random) -> tuple[Organization, Organization]:
    docs = [f"d{i}" for i in range(size)]
    grades = {d: rng.choice([0, 0, 0, 1, 2, 3]) for d in docs}
    return Organization.from_graded(grades), Organization.from_ranking(rng.sample(docs, len(docs)))


def clustering(size: int, rng: random.Random) -> tuple[Organization, Organization]:
    docs = [f"d{i}" for i in range(size)]

    def partition(k: int) -> Organization:
        groups: dict[int, list[str]] = {}
        for d in docs:
            groups.setdefault(rng.randrange(k), []).append(d)
        return Organization.from_clustering(groups.values())

    return partition(max(size // 50, 1)), partition(max(size // 40, 1))


class Units:
    """Wall and CPU seconds of a call, and the same as multiples of the machine unit (:func:`pytrec_eval_unit`)."""

    def __init__(self, repeat: int) -> None:
        self.wall, self.cpu = pytrec_eval_unit(repeat) if repeat else (0.0, 0.0)

    def timed(self, function) -> tuple[float, str]:
        """``function()``'s wall seconds, and its wall and CPU times in units ("—" without a unit)."""
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return wall, (f"{wall / self.wall:>7.2f}{cpu / self.cpu:>7.2f}" if self.wall else f"{'—':>7}{'—':>7}")


def small_overlap(n_docs: int, rng: random.Random) -> Organization:
    """5 levels of 3-document clusters over ``n_docs`` documents, a quarter of them placed twice."""
    docs = [f"d{i}" for i in range(n_docs)]
    placed = docs + rng.sample(docs, n_docs // 4)
    rng.shuffle(placed)
    per = len(placed) // 5 + 1
    levels = [placed[k * per:(k + 1) * per] for k in range(5)]
    return Organization(tuple(tuple(frozenset(level[i:i + 3]) for i in range(0, len(level), 3))
                              for level in levels if level))


def small_pairs(repeat: int = 50) -> None:
    """CPU ms of one reliability_sensitivity on paper-size pairs, pairwise path and general kernels."""
    table9 = EXAMPLES["Table 9 (document organization)"]
    gold = Organization.parse(table9.gold)
    cases = [(f"Table 9, {name}", gold, Organization.parse(text)) for name, text in table9.outputs.items()]
    cases += [(f"overlap, {n} documents", small_overlap(n, random.Random(n)), small_overlap(n, random.Random(-n)))
              for n in (8, 24, 48, 100, 200)]
    print(f"paper-size pairs (CPU ms per reliability_sensitivity, median of {repeat}; pairwise up to "
          f"{relations._PAIRWISE_OCCURRENCES} occurrences); load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'pair':<26}{'occurrences':>12}{'pairwise':>10}{'general':>10}")

    def cpu_ms(gold, output) -> float:
        samples = []
        for _ in range(repeat):
            start = time.process_time()
            reliability_sensitivity(gold, output, n=10, wn=0.8)
            samples.append(time.process_time() - start)
        return 1000 * statistics.median(samples)

    for name, gold, output in cases:
        with mock.patch.object(relations, "_PAIRWISE_OCCURRENCES", 1 << 30):
            pairwise = cpu_ms(gold, output)
        with mock.patch.object(relations, "_PAIRWISE_OCCURRENCES", 0):
            general = cpu_ms(gold, output)
        occurrences = max(len(gold.occurrences.document), len(output.occurrences.document))
        print(f"{name:<26}{occurrences:>12}{pairwise:>10.3f}{general:>10.3f}", flush=True)


def campaign_rows(units: Units, runs: int = 100, topics: int = 250, docs: int = 100) -> None:
    """R≺ and S∼ of bench_campaign.py's synthetic campaign serially, one setting and ten, in seconds and units."""
    bench_campaign.warm_up()  # imports and the measure modules: what the first evaluation would otherwise pay
    print(f"\nR&S campaign (issue 42: at most 1 unit): {runs} runs × {topics} topics, rankings of {docs // 2} "
          f"against graded golds of 30; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'measures':<32}{'pairs':>8}{'engine s':>11}{'wall u':>7}{'CPU u':>7}{'collector s':>13}")
    for label, measures in (("R≺ S∼, 1 setting", bench_campaign.RS), ("R≺ S∼, 10 settings", bench_campaign.SWEEP)):
        campaign = bench_campaign.synthetic(runs, topics, docs, 0)  # afresh: no occurrence arrays cached
        gc.collect()  # the build's full collection outside the clock, as bench_campaign.serially explains
        with bench_campaign.Collector() as collector:
            engine, in_units = units.timed(lambda c=campaign, m=measures: c.evaluate(m, progress=False))
        print(f"{label:<32}{runs * topics:>8,}{engine:>11.3f}{in_units}{collector.seconds:>13.3f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-size", type=int, default=1_000_000)
    parser.add_argument("--brute-budget", type=float, default=60.0)
    parser.add_argument("--overlap", type=float, default=0.002, help="share of documents in two clusters")
    parser.add_argument("--only", choices=["overlap", "small"],
                        help="only the overlap shapes (issues 12 and 22), or only the paper-size pairs (issue 42)")
    parser.add_argument("--unit-repeat", type=int, default=3,
                        help="fresh pytrec_eval processes for the machine unit (best of; 0: no unit)")
    args = parser.parse_args()
    if args.only == "small":
        small_pairs()
        return
    units = Units(args.unit_repeat)
    if units.wall:
        print(f"machine unit: pytrec_eval parse+eval of bench_ranking.py's files (2,000 q × 1,000 d) "
              f"{units.wall:.2f} s wall, {units.cpu:.2f} s CPU; load average "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sizes = [s for s in (100, 300, 1_000, 10_000, 100_000, 1_000_000) if s <= args.max_size]
    def general_with_overlap(size, rng):
        return general(size, rng, args.overlap)

    if args.only != "overlap":
        print(f"general: {args.overlap:.1%} of documents in two clusters; brute force while a run takes "
              f"< {args.brute_budget / 10:g} s")
        print(f"{'shape':<11}{'occurrences':>12}{'engine s':>11}{'brute s':>11}{'ratio':>9}")
        for shape, build, params in (("general", general_with_overlap, {"n": 10, "wn": 0.8}),
                                     ("ranking", ranking, {"n": 10, "wn": 0.8}),
                                     ("clustering", clustering, {})):
            brute_alive = True
            for size in sizes:
                gold, output = build(size, random.Random(size))
                start = time.perf_counter()
                reliability_sensitivity(gold, output, **params)
                engine = time.perf_counter() - start
                brute_time = ratio = "—"
                if brute_alive:
                    start = time.perf_counter()
                    rs_bruteforce.reliability_sensitivity(gold, output, **params)
                    elapsed = time.perf_counter() - start
                    brute_time, ratio = f"{elapsed:.3f}", f"{elapsed / engine:.0f}×"
                    brute_alive = elapsed < args.brute_budget / 10  # the next size is ≥ 3× larger: O(n³) scan
                print(f"{shape:<11}{output.n_occurrences + len(output.rest or ()):>12,}{engine:>11.3f}"
                      f"{brute_time:>11}{ratio:>9}", flush=True)

    # The imports of a first evaluation (pandas and pyarrow, through the documents' codes) outside the times, as
    # bench_campaign.py's warm_up keeps them out of its rows: 2,000 occurrences go through the general kernels.
    reliability_sensitivity(*uniform_overlap(2_000, random.Random(0), 0.25, 10), n=10, wn=0.8)
    print("\noverlap (issue 12: each under 10 s): 20-document clusters at uniform levels, vs a 5-level gold")
    print(f"{'occurrences':>12}{'levels':>8}{'placed twice':>14}{'overlapping docs':>18}{'engine s':>11}"
          f"{'wall u':>7}{'CPU u':>7}")
    for size, n_levels, overlap in ((1_000_000, 50, 0.01), (1_000_000, 10, 0.25), (100_000, 50, 0.25)):
        if size > args.max_size:
            continue
        gold, output = uniform_overlap(size, random.Random(size + n_levels), overlap, n_levels)
        engine, in_units = units.timed(lambda g=gold, o=output: reliability_sensitivity(g, o, n=10, wn=0.8))
        twice = sum(1 for count in Counter(output.occurrences.document).values() if count > 1)
        print(f"{output.n_occurrences:>12,}{n_levels:>8}{overlap:>14.0%}{twice:>18,}{engine:>11.3f}{in_units}",
              flush=True)

    campaign_rows(units)

    if args.only != "overlap":
        print("\nrankings with half of the documents at two ranks, against a graded gold or such a ranking")
        print(f"{'documents':>12}{'gold':>9}{'engine s':>11}")
        for size in (s for s in (1_000, 3_000, 10_000) if s <= args.max_size):
            for gold_kind in ("graded", "repeated"):
                gold, output = repeated_ranking(size, random.Random(size), gold_kind)
                start = time.perf_counter()
                reliability_sensitivity(gold, output, n=10, wn=0.8)
                print(f"{size:>12,}{'graded' if gold_kind == 'graded' else 'ranking':>9}"
                      f"{time.perf_counter() - start:>11.3f}", flush=True)

    print("\noverlap on both sides (issue 22: each under 3 s): the same shape on both sides, 20-document clusters,"
          "\nand a gold ranking against an output ranking with half of the documents at two ranks")
    print(f"{'documents':>12}{'levels':>8}{'placed twice':>14}{'overlapping docs':>18}{'engine s':>11}"
          f"{'wall u':>7}{'CPU u':>7}")
    shapes = [(100_000, 50, 0.25), (1_000_000, 50, 0.01), (1_000_000, 10, 0.25), (10_000, "ranks", 0.5)]
    for n_docs, n_levels, overlap in shapes:
        if n_docs > args.max_size:
            continue
        if n_levels == "ranks":
            gold, output = repeated_ranking(n_docs, random.Random(n_docs), "ranking")
        else:
            gold, output = overlap_on_both_sides(n_docs, random.Random(n_docs + n_levels), n_levels, overlap)
        engine, in_units = units.timed(lambda g=gold, o=output: reliability_sensitivity(g, o, n=10, wn=0.8))
        twice = len({doc for org in (gold, output) for doc, count in Counter(org.occurrences.document).items()
                     if count > 1})  # documents with several occurrences on either side
        print(f"{n_docs:>12,}{n_levels:>8}{overlap:>14.0%}{twice:>18,}{engine:>11.3f}{in_units}", flush=True)

    if args.only == "overlap":
        return
    size = min(100_000, args.max_size)
    print(f"\nexplain vs reliability_sensitivity on {size:,} occurrences (issue 11: at most 3×)")
    print(f"{'shape':<11}{'scores s':>10}{'explain s':>11}{'ratio':>8}")
    for shape, build, params in (("general", general_with_overlap, {"n": 10, "wn": 0.8}),
                                 ("overlap", lambda s, r: uniform_overlap(s, r, 0.25, 50), {"n": 10, "wn": 0.8}),
                                 ("ranking", ranking, {"n": 10, "wn": 0.8}),
                                 ("clustering", clustering, {})):
        gold, output = build(size, random.Random(size))
        start = time.perf_counter()
        reliability_sensitivity(gold, output, **params)
        scores = time.perf_counter() - start
        start = time.perf_counter()
        explain(gold, output, **params)
        explained = time.perf_counter() - start
        print(f"{shape:<11}{scores:>10.3f}{explained:>11.3f}{explained / scores:>7.2f}×", flush=True)


if __name__ == "__main__":
    main()
