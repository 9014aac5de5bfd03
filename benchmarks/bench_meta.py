"""The methods that judge measures (:mod:`workbench.analysis.meta`), vectorised over bootstrap samples, against the
plain loops of ``tests/meta_bruteforce.py`` (one pair, one topic set, one sample at a time) and against the time of
scoring the campaign once.

    python benchmarks/bench_meta.py [--systems 50] [--topics 50] [--docs 1000] [--samples 1000]
                                    [--loop-systems 10] [--seed 0]

A synthetic campaign of ``systems`` runs × ``topics`` topics (``docs`` ranked documents per topic, from a pool of 1.5 ×
docs of which 10% are judged, grades 0–3; the runs differ in how well their scores follow the grades) is scored once
with AP, Q-measure, P-measure, RR and nDCG@10 (``Campaign.evaluate``: the time of scoring the campaign). Then, on the
AP scores, each method runs vectorised over all the pairs with ``samples`` topic sets (the stability method at the 11
fuzziness values of Figure 2, the swap method, the bootstrap tests); the plain loop runs on the first
``loop-systems`` systems only (a loop's time is linear in the pairs) and is scaled to all the pairs, as printed; its
numbers are checked equal to the vectorised ones on those systems. Wall and CPU seconds (``time.process_time``, this
process) and the machine's load (``os.getloadavg``) are printed beside every figure.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests import meta_bruteforce as brute  # noqa: E402
from workbench.analysis import (  # noqa: E402
    FIGURE2_FUZZINESS,
    achieved_significance,
    measure_trust,
    stability_method,
    swap_rates,
)
from workbench.data import Campaign  # noqa: E402

MEASURES = ["AP", "Q-measure", "P-measure", "RR", "nDCG@10"]


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def timed(work):
    """(result, wall seconds, CPU seconds) of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def campaign(systems: int, topics: int, docs: int, seed: int) -> Campaign:
    rng = np.random.default_rng(seed)
    pool = int(docs * 1.5)
    qrels, runs = {}, {f"run{s:02d}": {} for s in range(systems)}
    skill = np.linspace(0.2, 1.5, systems)
    for t in range(topics):
        judged = np.flatnonzero(rng.random(pool) < 0.1)
        grades = rng.choice(4, size=judged.size, p=[0.55, 0.25, 0.12, 0.08])
        qrels[f"q{t}"] = {f"d{d}": int(g) for d, g in zip(judged, grades, strict=True)}
        gain = np.zeros(pool)
        gain[judged] = grades
        for s in range(systems):
            score = skill[s] * gain + rng.normal(0, 1, pool)
            top = np.argsort(-score)[:docs]
            runs[f"run{s:02d}"][f"q{t}"] = {f"d{d}": float(round(score[d], 4)) for d in top}
    return Campaign.from_dicts(qrels, runs)


def plain_loops(scores: dict[str, list[float]], n: int, samples: int, seed: int) -> dict[str, float]:
    """The three methods by the brute force, on ``scores``; their numbers (for the check)."""
    sets = [s[0] for s in brute.bootstrap_sets(n, samples, n, 1, seed)]
    stability = {f: brute.stability(scores, sets, f) for f in FIGURE2_FUZZINESS}
    table, zero = brute.swap(scores, brute.bootstrap_sets(n, samples, n, 2, seed), 0.01, 20)
    systems = list(scores)
    asl = {(a, b): brute.bootstrap(scores[a], scores[b], sets, 0.05)[1]
           for i, a in enumerate(systems) for b in systems[i + 1:]}
    return {"stability": stability, "swap": table, "asl": asl}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=50)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--loop-systems", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    pairs = options.systems * (options.systems - 1) // 2
    loop_pairs = options.loop_systems * (options.loop_systems - 1) // 2
    print(f"bench_meta: {options.systems} systems × {options.topics} topics × {options.docs} documents, "
          f"{options.samples:,} samples, {pairs:,} pairs; {os.cpu_count()} cores, {load()}")

    built, wall, cpu = timed(lambda: campaign(options.systems, options.topics, options.docs, options.seed))
    print(f"  campaign built in memory: {wall:.2f} s wall, {cpu:.2f} s CPU")
    results, score_wall, score_cpu = timed(lambda: built.evaluate(MEASURES, progress=False))
    print(f"  scoring the campaign once ({len(MEASURES)} measures, {len(results):,} scores): {score_wall:.2f} s wall, "
          f"{score_cpu:.2f} s CPU ({load()})")

    ap = results[results["measure"] == "AP"]
    common = {"samples": options.samples, "seed": options.seed, "progress": False}
    methods = {
        "stability (11 fuzziness values)": lambda frame: stability_method(frame, fuzziness=FIGURE2_FUZZINESS,
                                                                          **common),
        "swap method": lambda frame: swap_rates(frame, **common),
        "bootstrap tests": lambda frame: achieved_significance(frame, **common),
    }
    vectorised = {}
    for name, method in methods.items():
        _, wall, cpu = timed(lambda method=method: method(ap))
        vectorised[name] = (wall, cpu)
        print(f"  vectorised {name:33} AP, all {pairs:,} pairs: {wall:6.3f} s wall, {cpu:6.3f} s CPU ({load()})")
    _, wall, cpu = timed(lambda: measure_trust(results, **common))
    print(f"  measure_trust: every method on {len(MEASURES)} measures: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"= {cpu / score_cpu:.2f} × the CPU of scoring the campaign once ({load()})")

    chosen = list(dict.fromkeys(ap["system"]))[: options.loop_systems]  # the cube's orders: first appearance
    part = ap[ap["system"].isin(chosen)]
    wide = part.pivot(index="system", columns="topic", values="value")[list(dict.fromkeys(part["topic"]))]
    scores = {s: wide.loc[s].tolist() for s in chosen}
    scale = pairs / loop_pairs
    loops, wall, cpu = timed(lambda: plain_loops(scores, wide.shape[1], options.samples, options.seed))
    print(f"  plain loops (tests/meta_bruteforce.py), the 3 methods, AP, {options.loop_systems} systems = "
          f"{loop_pairs} pairs: {wall:.1f} s wall, {cpu:.1f} s CPU; scaled to {pairs:,} pairs (× {scale:.1f}): "
          f"{wall * scale:.0f} s wall, {cpu * scale:.0f} s CPU ({load()})")
    total_wall = sum(w for w, _ in vectorised.values())
    total_cpu = sum(c for _, c in vectorised.values())
    print(f"  vectorised, the 3 methods, AP, all pairs: {total_wall:.2f} s wall, {total_cpu:.2f} s CPU; "
          f"plain loop / vectorised: {wall * scale / total_wall:,.0f} × wall, {cpu * scale / max(total_cpu, 1e-9):,.0f}"
          f" × CPU")

    check_stability = stability_method(part, fuzziness=FIGURE2_FUZZINESS, **common)
    same = all(tuple(check_stability.loc[check_stability["fuzziness"] == f, ["minority_rate", "ties"]].iloc[0])
               == loops["stability"][f] for f in FIGURE2_FUZZINESS)
    rates = swap_rates(part, **common)
    same &= rates["observations"].tolist() == [loops["swap"][i][0] for i in range(21)]
    same &= rates["swaps"].tolist() == [loops["swap"][i][1] for i in range(21)]
    asl = achieved_significance(part, **common)
    same &= asl["asl"].tolist() == [loops["asl"][(a, b)] for a, b in zip(asl["system_a"], asl["system_b"],
                                                                          strict=True)]
    print(f"  the plain loops' numbers equal the vectorised ones on those {loop_pairs} pairs: {same}")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    pd.set_option("display.width", 160)
    main()
