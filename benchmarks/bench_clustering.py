"""Time the clustering measures against scikit-learn and the ``bcubed`` package on the same inputs.

    python benchmarks/bench_clustering.py [--quick]

Prints sizes, best-of-N wall times and the ratio peer/workbench (> 1: the workbench is faster), and checks
that both sides computed the same numbers.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bcubed  # noqa: E402
import sklearn.metrics as skm  # noqa: E402
from scipy.stats import entropy  # noqa: E402

from workbench.metrics import clustering as C  # noqa: E402
from workbench.model import Organization  # noqa: E402


def best(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


def row(label: str, size: str, ours: float, peer: float, peer_name: str) -> None:
    print(f"{label:<34} {size:>22} {ours * 1e3:>10.2f} ms {peer * 1e3:>10.2f} ms  "
          f"{peer_name:<8} {peer / ours:>8.1f}x")


def flat_labels(n: int, k_true: int, k_pred: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.integers(0, k_true, n), rng.integers(0, k_pred, n)


def bench_flat(n: int, repeat: int) -> None:
    true, pred = flat_labels(n, 50, 80, 1)

    def ours():
        c = C.contingency_from_labels(true, pred)
        return C.nmi(c), C.adjusted_rand(c), C.homogeneity_completeness_v(c)["v"], C.fowlkes_mallows(c)

    def sklearn():
        return (skm.normalized_mutual_info_score(true, pred), skm.adjusted_rand_score(true, pred),
                skm.v_measure_score(true, pred), skm.fowlkes_mallows_score(true, pred))

    t_ours, a = best(ours, repeat)
    t_peer, b = best(sklearn, repeat)
    assert np.allclose(a, b, atol=1e-12), (a, b)
    row("NMI+ARI+V+FM from labels", f"n={n}", t_ours, t_peer, "sklearn")

    docs = np.array([f"d{i}" for i in range(n)])
    gold = Organization.from_clustering([docs[true == k] for k in np.unique(true)])
    out = Organization.from_clustering([docs[pred == k] for k in np.unique(pred)])

    def from_organizations():
        c = C.contingency(gold, out)
        return C.nmi(c), C.adjusted_rand(c), C.homogeneity_completeness_v(c)["v"], C.fowlkes_mallows(c)

    t_orgs, a = best(from_organizations, repeat)
    assert np.allclose(a, b, atol=1e-12), (a, b)
    row("  same, from Organizations", f"n={n}", t_orgs, t_peer, "sklearn")


def bench_information(n: int, k: int, repeat: int) -> None:
    """AMI (its expected mutual information dominates), NMI with the geometric mean and VI."""
    true, pred = flat_labels(n, k, k + k // 2, 3)

    def ours():
        c = C.contingency_from_labels(true, pred)
        return C.adjusted_mutual_information(c), C.nmi(c, "geometric"), C.variation_of_information(c)

    def sklearn():
        h = [entropy(np.unique(x, return_counts=True)[1]) for x in (true, pred)]
        return (skm.adjusted_mutual_info_score(true, pred),
                skm.normalized_mutual_info_score(true, pred, average_method="geometric"),
                h[0] + h[1] - 2 * skm.mutual_info_score(true, pred))

    t_ours, a = best(ours, repeat)
    t_peer, b = best(sklearn, repeat)
    assert np.allclose(a, b, atol=1e-10), (a, b)
    row("AMI+NMI(geometric)+VI from labels", f"n={n}, k={k}", t_ours, t_peer, "sklearn")


def random_clustering(docs, k, overlap, rng):
    clusters = [set() for _ in range(k)]
    for d in docs:
        for i in rng.sample(range(k), 2 if rng.random() < overlap else 1):
            clusters[i].add(d)
    return [sorted(c) for c in clusters if c]


def bench_bcubed(n: int, overlap: float, repeat: int) -> None:
    rng = random.Random(2)
    docs = [f"d{i}" for i in range(n)]
    gold_clusters = random_clustering(docs, 40, overlap, rng)
    out_clusters = random_clustering(docs, 60, overlap, rng)
    gold, out = Organization.from_clustering(gold_clusters), Organization.from_clustering(out_clusters)
    ldict = {d: set() for d in docs}
    cdict = {d: set() for d in docs}
    for i, c in enumerate(gold_clusters):
        for d in c:
            ldict[d].add(i)
    for i, c in enumerate(out_clusters):
        for d in c:
            cdict[d].add(i)

    def ours():
        b = C.bcubed(C.contingency(gold, out))
        return b["precision"], b["recall"]

    def package():
        return bcubed.precision(cdict, ldict), bcubed.recall(cdict, ldict)

    t_ours, a = best(ours, repeat)
    t_peer, b = best(package, 1)
    assert np.allclose(a, b, atol=1e-12), (a, b)
    row(f"BCubed P+R, {overlap:.0%} overlap", f"n={n}", t_ours, t_peer, "bcubed")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    args = parser.parse_args()
    print(f"{'what':<34} {'size':>22} {'workbench':>13} {'peer':>13}  {'peer':<8} {'ratio':>9}")
    sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000]
    for n in sizes:
        bench_flat(n, 5)
    for n, k in ([(1_000, 20), (10_000, 100)] if args.quick else [(1_000, 20), (10_000, 100), (100_000, 500)]):
        bench_information(n, k, 3)
    for n in ([300, 1_000] if args.quick else [300, 1_000, 2_000]):
        bench_bcubed(n, 0.0, 3)
        bench_bcubed(n, 0.1, 3)


if __name__ == "__main__":
    main()
