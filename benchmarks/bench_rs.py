"""Time the Reliability/Sensitivity engine against size, beside the O(n²) brute force of the tests.

    python benchmarks/bench_rs.py [--max-size 1000000] [--brute-budget 60] [--overlap 0.002]

Three synthetic shapes per size (occurrences counted on the output side): a general organization (50 levels
of clusters, a share --overlap of documents in two clusters) against a 5-level gold; a ranking against a
4-grade gold; a flat clustering of a closed collection against its gold. The brute force runs while a run
takes less than the budget. Then the overlap shapes of issue 12 (20-document clusters at uniformly drawn
levels, a share of documents placed twice on both sides, against a 5-level gold), rankings in which half
the documents sit at two ranks (against a graded gold, and against such a ranking), and ``explain``
against ``reliability_sensitivity`` on 10⁵ occurrences (issue 11: at most 3×).

The engine is O(n log² n) plus, for the documents with several occurrences, matrix products over their
signatures (sorted levels) on both sides: O(E·Λ·Γ) for Λ x signatures with E entries and Γ other-side
signatures, which depends on the number of levels, not on the number of overlapping documents (rankings
with many repeated documents compare every class of them with every other, quadratic in those
documents).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import rs_bruteforce  # noqa: E402
from workbench import Organization, explain, reliability_sensitivity  # noqa: E402


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


def repeated_ranking(size: int, rng: random.Random, graded_gold: bool) -> tuple[Organization, Organization]:
    """Rankings of ``size`` documents in which half of them sit at two ranks; the gold is such a ranking too,
    or graded (4 grades) when ``graded_gold``."""
    docs = [f"d{i}" for i in range(size)]

    def ranks() -> Organization:
        placed = docs + rng.sample(docs, size // 2)
        rng.shuffle(placed)
        return Organization(tuple((frozenset([d]),) for d in placed))

    gold = Organization.from_graded({d: rng.choice([0, 0, 0, 1, 2, 3]) for d in docs}) if graded_gold else ranks()
    return gold, ranks()


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-size", type=int, default=1_000_000)
    parser.add_argument("--brute-budget", type=float, default=60.0)
    parser.add_argument("--overlap", type=float, default=0.002, help="share of documents in two clusters")
    args = parser.parse_args()
    sizes = [s for s in (100, 300, 1_000, 10_000, 100_000, 1_000_000) if s <= args.max_size]
    def general_with_overlap(size, rng):
        return general(size, rng, args.overlap)

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

    print("\noverlap (issue 12: each under 10 s): 20-document clusters at uniform levels, vs a 5-level gold")
    print(f"{'occurrences':>12}{'levels':>8}{'placed twice':>14}{'overlapping docs':>18}{'engine s':>11}")
    for size, n_levels, overlap in ((1_000_000, 50, 0.01), (1_000_000, 10, 0.25), (100_000, 50, 0.25)):
        if size > args.max_size:
            continue
        gold, output = uniform_overlap(size, random.Random(size + n_levels), overlap, n_levels)
        start = time.perf_counter()
        reliability_sensitivity(gold, output, n=10, wn=0.8)
        engine = time.perf_counter() - start
        twice = sum(1 for count in Counter(output.occurrences.document).values() if count > 1)
        print(f"{output.n_occurrences:>12,}{n_levels:>8}{overlap:>14.0%}{twice:>18,}{engine:>11.3f}", flush=True)

    print("\nrankings with half of the documents at two ranks, against a graded gold or such a ranking")
    print(f"{'documents':>12}{'gold':>9}{'engine s':>11}")
    for size in (s for s in (1_000, 3_000, 10_000) if s <= args.max_size):
        for graded in (True, False):
            gold, output = repeated_ranking(size, random.Random(size), graded)
            start = time.perf_counter()
            reliability_sensitivity(gold, output, n=10, wn=0.8)
            print(f"{size:>12,}{'graded' if graded else 'ranking':>9}{time.perf_counter() - start:>11.3f}", flush=True)

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
