"""Clustering constraints (Amigó et al., SIGIR 2013, §2.1, after Amigó et al. 2009, and §4.2 for overlap): homogeneity,
completeness, rag bag, size vs quantity, each with exhaustive small cases and seeded random ones."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from workbench.analysis.constraints.core import Case, Constraint, _docs
from workbench.model import Organization

__all__ = ["CONSTRAINTS"]


def _partitions(items: Sequence[str]) -> Iterator[list[list[str]]]:
    """Every set partition of ``items`` (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1:]]


def _clustering(clusters: Iterable[Iterable[str]]) -> Organization:
    return Organization((tuple(frozenset(c) for c in clusters),), frozenset())


def _homogeneity(classes: list[list[str]], clusters: list[list[str]]) -> Iterator[tuple[list, list]]:
    """Splitting a cluster that mixes exactly two classes into its two classes."""
    label = {d: k for k, c in enumerate(classes) for d in c}
    for i, cluster in enumerate(clusters):
        kinds = sorted({label[d] for d in cluster})
        if len(kinds) == 2:
            parts = [[d for d in cluster if label[d] == k] for k in kinds]
            yield [*clusters[:i], *parts, *clusters[i + 1:]], clusters


def _completeness(classes: list[list[str]], clusters: list[list[str]]) -> Iterator[tuple[list, list]]:
    """Merging two clusters whose items all belong to one and the same class."""
    label = {d: k for k, c in enumerate(classes) for d in c}
    pure = [(i, label[c[0]]) for i, c in enumerate(clusters) if len({label[d] for d in c}) == 1]
    for (i, a), (j, b) in itertools.combinations(pure, 2):
        if a == b:
            merged = [c for k, c in enumerate(clusters) if k not in (i, j)] + [clusters[i] + clusters[j]]
            yield merged, clusters


def _local(instances: Callable, max_exhaustive: int = 4, max_random: int = 10):
    """Exhaustive and random case generators for a constraint defined on a (gold, output) pair."""

    def exhaustive() -> Iterator[Case]:
        for n in range(1, max_exhaustive + 1):
            docs = _docs(n)
            for classes in _partitions(docs):
                for clusters in _partitions(docs):
                    for better, worse in instances(classes, clusters):
                        yield Case(_clustering(classes), _clustering(better), _clustering(worse), n)

    def random(rng: np.random.Generator) -> Case | None:
        n = int(rng.integers(max_exhaustive + 1, max_random + 1))
        docs = _docs(n)
        for _ in range(20):
            classes = _group(docs, rng.integers(0, rng.integers(1, n + 1), n))
            clusters = _group(docs, rng.integers(0, rng.integers(1, n + 1), n))
            options = list(instances(classes, clusters))
            if options:
                better, worse = options[int(rng.integers(len(options)))]
                return Case(_clustering(classes), _clustering(better), _clustering(worse), n)
        return None

    return exhaustive, random


def _group(docs: Sequence[str], labels: np.ndarray) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for doc, label in zip(docs, labels, strict=True):
        groups.setdefault(int(label), []).append(doc)
    return list(groups.values())


def _context(rng: np.random.Generator | None) -> tuple[list[list[str]], list[list[str]]]:
    """Extra documents z1… in random classes and clusters of their own, around a template."""
    if rng is None:
        return [], []
    docs = _docs(int(rng.integers(1, 7)), "z")
    return (_group(docs, rng.integers(0, len(docs), len(docs))),
            _group(docs, rng.integers(0, len(docs), len(docs))))


def _template(build: Callable[[int, np.random.Generator | None], Case], sizes: Sequence[int]):
    """Cases from a template of size n: alone for every n (exhaustive), with random context (random)."""

    def exhaustive() -> Iterator[Case]:
        for n in sizes:
            yield build(n, None)

    def random(rng: np.random.Generator) -> Case:
        return build(int(rng.choice(sizes)), rng)

    return exhaustive, random


def _rag_bag(n: int, rng: np.random.Generator | None) -> Case:
    """A new item from a new class hurts less in a rag bag (b1…bn, all of different classes) than in a clean
    cluster (a1…an, one class)."""
    clean, noisy = _docs(n, "a"), _docs(n, "b")
    extra_classes, extra_clusters = _context(rng)
    classes = [clean, *([b] for b in noisy), ["x"], *extra_classes]
    better = [clean, [*noisy, "x"], *extra_clusters]
    worse = [[*clean, "x"], noisy, *extra_clusters]
    return Case(_clustering(classes), _clustering(better), _clustering(worse), 2 * n + 1)


_PAIR_LETTERS = "bcdefghijk"


def _size_vs_quantity(n: int, rng: np.random.Generator | None) -> Case:
    """Amigó et al., SIGIR 2013, §2.1: {a a a a} {a} {b b} {c c} {d d} {e e} > {a a a a a} {b} {b} {c} {c} {d} {d} {e}
    {e}."""
    big = _docs(n + 1, "a")
    pairs = [_docs(2, _PAIR_LETTERS[i]) for i in range(n)]
    extra_classes, extra_clusters = _context(rng)
    classes = [big, *pairs, *extra_classes]
    better = [big[:-1], big[-1:], *pairs, *extra_clusters]
    worse = [big, *([d] for pair in pairs for d in pair), *extra_clusters]
    return Case(_clustering(classes), _clustering(better), _clustering(worse), 3 * n + 1)


def _size_vs_quantity_overlap(n: int, rng: np.random.Generator | None) -> Case:
    """The overlapping variant (Amigó et al., SIGIR 2013, §4.2): x and y share n gold clusters; breaking those n
    relations is n small errors and must hurt more than splitting one item off a cluster of n + 1."""
    big = _docs(n + 1, "a")
    extra_classes, extra_clusters = _context(rng)
    classes = [big, *(["x", "y"] for _ in range(n)), *extra_classes]
    better = [big[:-1], big[-1:], *(["x", "y"] for _ in range(n)), *extra_clusters]
    worse = [big, *(["x"] for _ in range(n)), *(["y"] for _ in range(n)), *extra_clusters]
    return Case(_clustering(classes), _clustering(better), _clustering(worse), n + 3,
                note=f"x and y share {n} gold clusters")


_SEED000 = "Amigó et al., SIGIR 2013, §2.1 (Amigó et al. 2009)"
CONSTRAINTS = (
    Constraint("homogeneity", "clustering", _SEED000,
               "Splitting a cluster that mixes two classes into the two classes improves the output.",
               *_local(_homogeneity)),
    Constraint("completeness", "clustering", _SEED000,
               "Merging two clusters that hold only items of one class improves the output.",
               *_local(_completeness)),
    Constraint("rag bag", "clustering", _SEED000,
               "An item of a new class hurts less in a rag bag than in a clean cluster.",
               *_template(_rag_bag, (2, 3, 4))),
    Constraint("size vs quantity", "clustering", _SEED000,
               "A small error in a big cluster is better than many small errors in small clusters.",
               *_template(_size_vs_quantity, (2, 3, 4, 5))),
    Constraint("size vs quantity (overlap)", "clustering", "Amigó et al., SIGIR 2013, §4.2",
               "With overlap: breaking n relations between two items that share n clusters is n errors.",
               *_template(_size_vs_quantity_overlap, (2, 3, 4, 5))),
)
"""The clustering constraints, in the order the reports list them."""
