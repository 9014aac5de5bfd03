"""The formal-constraint checker: does a measure behave as seed 000 §2 and seed 003 §3 require?

Each constraint generates, for small gold standards, pairs of outputs of which one must score higher (or,
for the descriptive filtering properties, sets of outputs whose scores must relate in a given way). The
checker runs a measure over every small case exhaustively, then over random larger ones (seeded), and
reports the smallest counterexample it found, written in the Organization notation (filtering cases also
as a contingency).

    >>> def purity(gold, output):  # the textbook definition, for the example
    ...     classes = [c for level in gold.levels for c in level]
    ...     clusters = [c for level in output.levels for c in level]
    ...     return sum(max(len(c & k) for k in classes) for c in clusters) / sum(map(len, clusters))
    >>> table = check_constraints(purity, ["homogeneity", "completeness"])
    >>> table[["constraint", "satisfied"]].values.tolist()
    [['homogeneity', True], ['completeness', False]]
    >>> print(table.loc[1, "counterexample"])
    gold:
      {d1 d2}
      rest:
    better (score 1):
      {d1 d2}
      rest:
    worse (score 1):
      d1 d2
      rest:

Constraints (``CONSTRAINTS``): clustering — homogeneity, completeness, rag bag, size vs quantity (seed 000
§2.1, after Amigó et al. 2009) and its overlapping variant (seed 000 §4.2); filtering — strict monotonicity,
non-informativeness fixed quality, non-informativeness growing quality, absolute weighting (seed 003 §3);
ranking — priority, deepness, deepness threshold, closeness threshold, confidence (seed 000 §2.3).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from workbench.errors import ParameterError, ParameterTypeError, WorkbenchError
from workbench.metrics.registry import Measure, UnknownMeasureError, parse
from workbench.model import Organization

TOLERANCE = 1e-12
"""A score difference below this is a tie (scores computed along different float paths)."""


class ConstraintCheckError(WorkbenchError):
    """The measure raised on a case; ``constraint`` and ``case`` (the notation text) say which."""

    def __init__(self, message: str, *, constraint: str, case: str) -> None:
        super().__init__(message)
        self.constraint, self.case = constraint, case


# ----------------------------------------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    """A gold and two outputs of which ``better`` must score strictly higher than ``worse``."""

    gold: Organization
    better: Organization
    worse: Organization
    size: int
    note: str = ""


def _indent(text: str) -> str:
    return "\n".join("  " + line if line else line for line in text.splitlines()) or "  (empty)"


def _show(org: Organization, label: str, score: float | None = None) -> str:
    head = label + ("" if score is None else f" (score {score:.6g})") + ":"
    text = org.format()
    if "\n" not in text and text:
        return f"{head}  {text}"
    return f"{head}\n{_indent(text)}"


def _contingency(gold: Organization, output: Organization) -> str:
    relevant, returned = gold.prioritised, output.prioritised
    documents = gold.documents | output.documents
    tp, fp = len(relevant & returned), len(returned - relevant)
    fn = len(relevant - returned)
    return f"TP={tp} FP={fp} FN={fn} TN={len(documents) - tp - fp - fn}"


def describe(case: Case, better: float | None = None, worse: float | None = None,
             contingency: bool = False) -> str:
    """A case as text: the gold, then the output that should win and the one that should lose."""
    parts = [case.note] if case.note else []
    parts.append(_show(case.gold, "gold"))
    for label, org, score in (("better", case.better, better), ("worse", case.worse, worse)):
        line = _show(org, label, score)
        if contingency:
            line = line.replace(":", f" [{_contingency(case.gold, org)}]:", 1)
        parts.append(line)
    return "\n".join(parts)


# ------------------------------------------------------------------------------------ the measure
@dataclass(frozen=True)
class _Scorer:
    """A measure made callable on Organizations, with its display name and (when registered) its Measure."""

    name: str
    function: Callable[..., float]
    measure: Measure | None = None
    grid: Mapping[str, Sequence[float]] = field(default_factory=dict)
    lower_is_better: bool = False

    def beats(self, a: float, b: float) -> bool:
        """Whether score a is strictly better than score b (beyond rounding)."""
        return a < b - TOLERANCE if self.lower_is_better else a > b + TOLERANCE

    def parameters(self) -> dict[str, Sequence[float]]:
        """The numeric parameters to vary and the values to try (``grid`` first, else :data:`GRID`)."""
        if self.measure is None:
            return dict(self.grid)
        spec = self.measure.spec
        numeric = [key for key, value in self.measure.bound
                   if isinstance(value, int | float) and not isinstance(value, bool) and key != spec.cutoff]
        return {key: self.grid.get(key, GRID) for key in numeric} | dict(self.grid)

    def with_param(self, key: str, value: Any) -> _Scorer:
        if self.measure is None:
            return _Scorer(f"{self.name}({key}={value})", functools.partial(self.function, **{key: value}),
                           lower_is_better=self.lower_is_better)
        bound = tuple((k, value if k == key else v) for k, v in self.measure.bound)
        measure = Measure(self.measure.spec, bound)
        return _Scorer(str(measure), measure, measure, lower_is_better=self.lower_is_better)


def _scorer(measure: str | Measure | Callable, grid: Mapping[str, Sequence[float]] | None = None,
            lower_is_better: bool | None = None) -> _Scorer:
    grid = dict(grid or {})
    if isinstance(measure, str | Measure):
        parsed = parse(measure)
        if lower_is_better is None:  # the registry's direction
            lower_is_better = parsed.spec.direction == "lower"
        unknown = set(grid) - set(parsed.params)
        if unknown:
            raise UnknownMeasureError(f"{parsed}: no parameter {', '.join(sorted(unknown))} to vary")
        name = measure if isinstance(measure, str) else str(measure)
        return _Scorer(name, parsed, parsed, grid, lower_is_better)
    if callable(measure):
        return _Scorer(getattr(measure, "__name__", repr(measure)), measure, None, grid, bool(lower_is_better))
    raise ParameterTypeError(f"a measure is a registered name, a Measure or a callable (gold, output) → "
                             f"float, got {type(measure).__name__}", parameter="measure")


def _score(scorer: _Scorer, constraint: str, gold: Organization, output: Organization,
           context: Callable[[], str]) -> float:
    try:
        value = scorer.function(gold, output)
        return float(value)
    except Exception as error:
        case = context()
        raise ConstraintCheckError(
            f"measure {scorer.name} raised {type(error).__name__}: {error} while checking the constraint "
            f"{constraint!r} on this case:\n{case}", constraint=constraint, case=case) from error


@dataclass
class Finding:
    """The outcome of one constraint for one measure."""

    satisfied: bool
    counterexample: str = ""
    cases: int = 0
    undefined: int = 0


# ----------------------------------------------------------------------------------------- constraints
@dataclass(frozen=True)
class Constraint:
    """A formal constraint: a name, the task it belongs to, where it is stated, and how it is checked."""

    name: str
    task: str
    source: str
    statement: str
    exhaustive: Callable[[], Iterable[Case]] | None = None
    random: Callable[[np.random.Generator], Case | None] | None = None
    checker: Callable[..., Finding] | None = field(default=None, repr=False)
    contingency: bool = False

    def check(self, scorer: _Scorer, *, random_cases: int, rng: np.random.Generator) -> Finding:
        if self.checker is not None:
            return self.checker(self, scorer, random_cases=random_cases, rng=rng)
        return _check_pairs(self, scorer, random_cases=random_cases, rng=rng)


def _check_pairs(constraint: Constraint, scorer: _Scorer, *, random_cases: int,
                 rng: np.random.Generator) -> Finding:
    """Q(better) > Q(worse) on every case: exhaustive cases first (smallest first), then random ones."""
    finding = Finding(True)
    smallest: tuple[int, str] | None = None

    def run(case: Case) -> str | None:
        def context() -> str:
            return describe(case, contingency=constraint.contingency)

        better = _score(scorer, constraint.name, case.gold, case.better, context)
        worse = _score(scorer, constraint.name, case.gold, case.worse, context)
        finding.cases += 1
        if math.isnan(better) or math.isnan(worse):
            finding.undefined += 1
            return None
        if scorer.beats(better, worse):
            return None
        return describe(case, better, worse, constraint.contingency)

    for case in constraint.exhaustive() if constraint.exhaustive else ():
        text = run(case)
        if text is not None:
            return Finding(False, text, finding.cases, finding.undefined)
    for _ in range(random_cases if constraint.random else 0):
        case = constraint.random(rng)
        if case is None:
            continue
        text = run(case)
        if text is not None and (smallest is None or case.size < smallest[0]):
            smallest = (case.size, text)
    if smallest is not None:
        return Finding(False, smallest[1], finding.cases, finding.undefined)
    return finding


# -------------------------------------------------------------------------------------------- clustering
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


def _docs(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]


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
    """Seed 000 §2.1: {a a a a} {a} {b b} {c c} {d d} {e e} > {a a a a a} {b} {b} {c} {c} {d} {d} {e} {e}."""
    big = _docs(n + 1, "a")
    pairs = [_docs(2, _PAIR_LETTERS[i]) for i in range(n)]
    extra_classes, extra_clusters = _context(rng)
    classes = [big, *pairs, *extra_classes]
    better = [big[:-1], big[-1:], *pairs, *extra_clusters]
    worse = [big, *([d] for pair in pairs for d in pair), *extra_clusters]
    return Case(_clustering(classes), _clustering(better), _clustering(worse), 3 * n + 1)


def _size_vs_quantity_overlap(n: int, rng: np.random.Generator | None) -> Case:
    """The overlapping variant (seed 000 §4.2): x and y share n gold clusters; breaking those n relations is n
    small errors and must hurt more than splitting one item off a cluster of n + 1."""
    big = _docs(n + 1, "a")
    extra_classes, extra_clusters = _context(rng)
    classes = [big, *(["x", "y"] for _ in range(n)), *extra_classes]
    better = [big[:-1], big[-1:], *(["x", "y"] for _ in range(n)), *extra_clusters]
    worse = [big, *(["x"] for _ in range(n)), *(["y"] for _ in range(n)), *extra_clusters]
    return Case(_clustering(classes), _clustering(better), _clustering(worse), n + 3,
                note=f"x and y share {n} gold clusters")


# ---------------------------------------------------------------------------------------------- filtering
def _filtering(tp: int, fn: int, fp: int, tn: int) -> tuple[Organization, Organization]:
    """Gold and output over relevant r1… and irrelevant x1… with the given contingency."""
    relevant, irrelevant = _docs(tp + fn, "r"), _docs(fp + tn, "x")
    gold = Organization.from_filtering(relevant, irrelevant)
    returned = relevant[:tp] + irrelevant[:fp]
    output = Organization.from_filtering(returned, relevant[tp:] + irrelevant[fp:])
    return gold, output


def _contingencies(total: int) -> Iterator[tuple[int, int, int, int]]:
    for tp in range(total + 1):
        for fn in range(total - tp + 1):
            for fp in range(total - tp - fn + 1):
                yield tp, fn, fp, total - tp - fn - fp


def _monotonicity_cases(tp: int, fn: int, fp: int, tn: int) -> Iterator[Case]:
    """Relabelling one item into its correct class: a relevant one into S, an irrelevant one out of S."""
    total = tp + fn + fp + tn
    if tp + fn == 0 or fp + tn == 0:
        return  # a gold needs both classes
    gold, worse = _filtering(tp, fn, fp, tn)
    if fn:
        yield Case(gold, _filtering(tp + 1, fn - 1, fp, tn)[1], worse, total)
    if fp:
        yield Case(gold, _filtering(tp, fn, fp - 1, tn + 1)[1], worse, total)


def _monotonicity_exhaustive() -> Iterator[Case]:
    for total in range(2, 8):
        for cell in _contingencies(total):
            yield from _monotonicity_cases(*cell)


def _monotonicity_random(rng: np.random.Generator) -> Case | None:
    total = int(rng.integers(8, 120))
    cuts = np.sort(rng.integers(0, total + 1, 3))
    cell = (int(cuts[0]), int(cuts[1] - cuts[0]), int(cuts[2] - cuts[1]), int(total - cuts[2]))
    options = list(_monotonicity_cases(*cell))
    return options[int(rng.integers(len(options)))] if options else None


def _non_informative(total: int, relevant: int) -> list[tuple[int, int, int, int]]:
    """Every output with P(S ∩ G) = P(S)·P(G) exactly, smallest first (seed 003 §3.1)."""
    cells = []
    for size in range(total + 1):
        if (size * relevant) % total == 0:
            tp = size * relevant // total
            cells.append((tp, relevant - tp, size - tp, total - relevant - size + tp))
    return cells


def _inputs(limit: int) -> Iterator[tuple[int, int]]:
    for total in range(2, limit + 1):
        for relevant in range(1, total):
            yield total, relevant


def _fixed_quality(constraint: Constraint, scorer: _Scorer, *, random_cases: int,
                   rng: np.random.Generator) -> Finding:
    """Every non-informative output, of any input, gets one and the same score."""
    finding = Finding(True)
    reference: tuple[float, Organization, Organization] | None = None
    inputs = list(_inputs(12))
    for _ in range(random_cases):
        total = int(rng.integers(13, 200))
        inputs.append((total, int(rng.integers(1, total))))
    for total, relevant in inputs:
        for cell in _non_informative(total, relevant):
            gold, output = _filtering(*cell)
            value = _score(scorer, constraint.name, gold, output,
                           lambda g=gold, o=output: f"{_show(g, 'gold')}\n{_show(o, 'output')}")
            finding.cases += 1
            if math.isnan(value):
                finding.undefined += 1
            elif reference is None:
                reference = (value, gold, output)
            elif abs(value - reference[0]) > 1e-9:
                first, second = reference, (value, gold, output)
                text = "\n".join(
                    f"{_show(g, f'gold {k}')}\n{_show(o, f'non-informative output {k} [{_contingency(g, o)}]', v)}"
                    for k, (v, g, o) in enumerate((first, second), start=1))
                return Finding(False, "two non-informative outputs score differently:\n" + text,
                               finding.cases, finding.undefined)
    return finding


def _growing_cases(total: int, relevant: int) -> Iterator[Case]:
    cells = _non_informative(total, relevant)
    for small, large in itertools.combinations(cells, 2):
        gold, worse = _filtering(*small)
        yield Case(gold, _filtering(*large)[1], worse, total,
                   note="both outputs are non-informative; the larger must score higher")


def _growing_exhaustive() -> Iterator[Case]:
    for total, relevant in _inputs(12):
        yield from _growing_cases(total, relevant)


def _growing_random(rng: np.random.Generator) -> Case | None:
    total = int(rng.integers(13, 200))
    options = list(_growing_cases(total, int(rng.integers(1, total))))
    return options[int(rng.integers(len(options)))] if options else None


GRID = (0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 1.25, 2.0, 4.0, 10.0, 20.0)
"""Values tried for a numeric parameter by the absolute-weighting check (values a measure rejects are skipped)."""


def _absolute_weighting(constraint: Constraint, scorer: _Scorer, *, random_cases: int,
                        rng: np.random.Generator) -> Finding:
    """Seed 003 §3.3: some parameter c and threshold θ make adding one relevant and one irrelevant item to S
    an improvement exactly when c is on one side of θ, whatever S and the input."""
    params = scorer.parameters()
    if not params:
        return Finding(False, f"{scorer.name} has no numeric parameter to weigh relevant against irrelevant "
                              "items (a registered measure with one, e.g. Utility, or a callable with "
                              "grid={'name': values})")
    cases = []
    for total in range(2, 7):
        for tp, fn, fp, tn in _contingencies(total):
            if fn and tn:
                gold, smaller = _filtering(tp, fn, fp, tn)
                cases.append(Case(gold, _filtering(tp + 1, fn - 1, fp + 1, tn - 1)[1], smaller, total,
                                  note="better: S′ = S ∪ {one relevant, one irrelevant}; worse: S"))
    reasons, skipped = [], []
    total_cases = 0
    for key, grid in params.items():
        signs: dict[float, set[int]] = {}
        for value in grid:
            varied = scorer.with_param(key, value)
            differences = []
            try:
                for case in cases:
                    differences.append(varied.function(case.gold, case.better)
                                       - varied.function(case.gold, case.worse))
            except (ValueError, TypeError, ArithmeticError):
                skipped.append(f"{key}={value}")
                continue  # the measure does not accept this value
            total_cases += len(cases)
            signs[value] = {0 if abs(d) <= TOLERANCE else int(np.sign(d)) for d in differences if not math.isnan(d)}
        values = sorted(signs)
        decided = [signs[v] for v in values]
        if decided and all(len(s) == 1 and 0 not in s for s in decided):
            flips = sum(a != b for a, b in itertools.pairwise(decided))
            if flips == 1:
                return Finding(True, "", total_cases)
            reasons.append(f"{key}: adding one relevant and one irrelevant item always "
                           f"{'raises' if decided[0] == {1} else 'lowers'} the score for {key} in {values}")
        else:
            mixed = next((v for v in values if len(signs[v]) != 1 or 0 in signs[v]), None)
            reasons.append(f"{key}={mixed}: adding one relevant and one irrelevant item helps, hurts or ties "
                           f"depending on S and the input ({sorted(signs.get(mixed, ()))})")
    if skipped:
        reasons.append(f"values the measure rejects, skipped: {', '.join(skipped)}")
    return Finding(False, "; ".join(reasons), total_cases)


# ------------------------------------------------------------------------------------------------ ranking
def _ranking_case(pattern: Sequence[bool], extra: int = 0):
    """Gold with relevant r1… (plus ``extra`` relevant documents never retrieved) and the ranking of a
    relevance pattern, relevant documents r1… and irrelevant x1… in order."""
    ids, r, x = [], 0, 0
    for relevant in pattern:
        if relevant:
            r += 1
            ids.append(f"r{r}")
        else:
            x += 1
            ids.append(f"x{x}")
    gold = Organization.from_graded({f"r{i}": 1 for i in range(1, r + extra + 1)})
    return gold, ids


def _ranking(ids: Sequence[str]) -> Organization:
    return Organization.from_ranking(ids)


def _swap(ids: list[str], i: int) -> list[str]:
    ids = list(ids)
    ids[i], ids[i + 1] = ids[i + 1], ids[i]
    return ids


def _patterns(lengths: Iterable[int]) -> Iterator[tuple[tuple[bool, ...], int]]:
    for length in lengths:
        for pattern in itertools.product((True, False), repeat=length):
            for extra in (0, 1):
                if any(pattern) or extra:
                    yield pattern, extra


def _priority_cases(pattern, extra) -> Iterator[Case]:
    gold, ids = _ranking_case(pattern, extra)
    for i in range(len(pattern) - 1):
        if not pattern[i] and pattern[i + 1]:
            yield Case(gold, _ranking(_swap(ids, i)), _ranking(ids), len(pattern),
                       note=f"better: the relevant document at {i + 2} moved above the irrelevant one at {i + 1}")


def _deepness_cases(pattern, extra) -> Iterator[Case]:
    gold, ids = _ranking_case(pattern, extra)
    spots = [i for i in range(len(pattern) - 1) if pattern[i] and not pattern[i + 1]]
    for i, j in itertools.combinations(spots, 2):
        yield Case(gold, _ranking(_swap(ids, j)), _ranking(_swap(ids, i)), len(pattern),
                   note=f"better: the ranking with positions {j + 1},{j + 2} swapped; worse: with {i + 1},{i + 2} "
                        "swapped (a swap near the top must cost more)")


def _confidence_cases(pattern, extra) -> Iterator[Case]:
    if not any(pattern):
        return  # a ranking without relevant documents is already at the floor of most measures
    gold, ids = _ranking_case(pattern, extra)
    tail = f"x{sum(1 for p in pattern if not p) + 1}"
    yield Case(gold, _ranking(ids), _ranking([*ids, tail]), len(pattern) + 1,
               note="worse: the same ranking with one more irrelevant document at the bottom")


def _ranking_generators(cases: Callable, lengths: Sequence[int], max_random: int = 30):
    def exhaustive() -> Iterator[Case]:
        for pattern, extra in _patterns(lengths):
            yield from cases(pattern, extra)

    def random(rng: np.random.Generator) -> Case | None:
        length = int(rng.integers(max(lengths) + 1, max_random + 1))
        for _ in range(20):
            pattern = tuple(bool(b) for b in rng.random(length) < rng.uniform(0.1, 0.9))
            options = list(cases(pattern, int(rng.integers(0, 3))))
            if options:
                return options[int(rng.integers(len(options)))]
        return None

    return exhaustive, random


DEPTHS = (1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300)
"""The n tried by the two threshold constraints (rankings of 2n documents)."""


def _threshold_case(n: int) -> Case:
    """One relevant document on top of 2n − 1 irrelevant ones versus n relevant after n irrelevant."""
    gold = Organization.from_graded({f"r{i}": 1 for i in range(1, n + 1)})
    top = _ranking(["r1", *_docs(2 * n - 1, "x")])
    late = _ranking([*_docs(n, "x"), *_docs(n, "r")])
    return Case(gold, top, late, 2 * n, note=f"n = {n}")


def _threshold(deep: bool):
    """Deepness threshold (``deep``): for all large n, one relevant document on top beats n relevant after
    n irrelevant — checked at the deepest n tried. Closeness threshold: for some small n ≥ 2 the n late
    relevant documents win."""

    def check(constraint: Constraint, scorer: _Scorer, *, random_cases: int, rng: np.random.Generator) -> Finding:
        outcomes = []
        for n in DEPTHS:
            case = _threshold_case(n)

            def context(c=case) -> str:
                return describe(c)

            top = _score(scorer, constraint.name, case.gold, case.better, context)
            late = _score(scorer, constraint.name, case.gold, case.worse, context)
            outcomes.append((n, case, top, late))
        defined = [o for o in outcomes if not (math.isnan(o[2]) or math.isnan(o[3]))]
        undefined = len(outcomes) - len(defined)
        if deep:
            failing = [o for o in defined if not scorer.beats(o[2], o[3])]
            if defined and defined[-1] not in failing:
                return Finding(True, "", len(outcomes), undefined)
            last_success = max((o[0] for o in defined if o not in failing), default=0)
            n, case, top, late = next(o for o in failing if o[0] > last_success) if failing else outcomes[-1]
            text = (f"one relevant document on top does not beat n relevant after n irrelevant at the deepest n "
                    f"tried ({DEPTHS[-1]}) nor at any n from {n} on; n = {n}:\n"
                    + describe(replace(case, note=""), top, late))
            return Finding(False, text, len(outcomes), undefined)
        if any(n >= 2 and scorer.beats(late, top) for n, _, top, late in defined):
            return Finding(True, "", len(outcomes), undefined)
        n, case, top, late = next(o for o in outcomes if o[0] == 2)
        swapped = Case(case.gold, case.worse, case.better, case.size)
        text = (f"n relevant after n irrelevant never beat one relevant document on top for n in "
                f"{DEPTHS[1]}…{DEPTHS[-1]}; n = 2:\n" + describe(swapped, late, top))
        return Finding(False, text, len(outcomes), undefined)

    return check


# --------------------------------------------------------------------------------------------- registry
def _build() -> dict[str, Constraint]:
    seed000 = "seed 000 §2.1 (Amigó et al. 2009)"
    made = [
        Constraint("homogeneity", "clustering", seed000,
                   "Splitting a cluster that mixes two classes into the two classes improves the output.",
                   *_local(_homogeneity)),
        Constraint("completeness", "clustering", seed000,
                   "Merging two clusters that hold only items of one class improves the output.",
                   *_local(_completeness)),
        Constraint("rag bag", "clustering", seed000,
                   "An item of a new class hurts less in a rag bag than in a clean cluster.",
                   *_template(_rag_bag, (2, 3, 4))),
        Constraint("size vs quantity", "clustering", seed000,
                   "A small error in a big cluster is better than many small errors in small clusters.",
                   *_template(_size_vs_quantity, (2, 3, 4, 5))),
        Constraint("size vs quantity (overlap)", "clustering", "seed 000 §4.2",
                   "With overlap: breaking n relations between two items that share n clusters is n errors.",
                   *_template(_size_vs_quantity_overlap, (2, 3, 4, 5))),
        Constraint("strict monotonicity", "filtering", "seed 003 §3.2 (Sebastiani 2015); seed 000 §2.2 priority",
                   "Relabelling an item into its correct class strictly improves the output.",
                   _monotonicity_exhaustive, _monotonicity_random, contingency=True),
        Constraint("non-informativeness fixed quality", "filtering", "seed 003 §3.3",
                   "Every non-informative output (S independent of G) gets the same score.",
                   checker=_fixed_quality, contingency=True),
        Constraint("non-informativeness growing quality", "filtering", "seed 003 §3.3",
                   "A larger non-informative output scores higher.",
                   _growing_exhaustive, _growing_random, contingency=True),
        Constraint("absolute weighting", "filtering", "seed 003 §3.3",
                   "A parameter c and a threshold θ decide whether adding one relevant and one irrelevant "
                   "item to S helps: c > θ ⇔ it does (or the reverse), whatever S and the input.",
                   checker=_absolute_weighting, contingency=True),
        Constraint("priority", "ranking", "seed 000 §2.3",
                   "Moving a relevant document above the irrelevant one just before it improves the ranking.",
                   *_ranking_generators(_priority_cases, range(2, 7))),
        Constraint("deepness", "ranking", "seed 000 §2.3",
                   "The same swap of a relevant and an irrelevant document costs more near the top.",
                   *_ranking_generators(_deepness_cases, range(4, 9))),
        Constraint("deepness threshold", "ranking", "seed 000 §2.3",
                   "For n large enough, one relevant document on top beats n relevant after n irrelevant.",
                   checker=_threshold(deep=True)),
        Constraint("closeness threshold", "ranking", "seed 000 §2.3",
                   "For some small n, n relevant after n irrelevant beat one relevant document on top.",
                   checker=_threshold(deep=False)),
        Constraint("confidence", "ranking", "seed 000 §2.3",
                   "Appending an irrelevant document to the ranking lowers its score.",
                   *_ranking_generators(_confidence_cases, range(1, 6))),
    ]
    return {c.name: c for c in made}


CONSTRAINTS: dict[str, Constraint] = _build()
TASKS = ("clustering", "filtering", "ranking")


def _select(constraints, task: str | None) -> list[Constraint]:
    if constraints is None:
        if task in TASKS:
            return [c for c in CONSTRAINTS.values() if c.task == task]
        return list(CONSTRAINTS.values())
    if isinstance(constraints, str | Constraint):
        constraints = [constraints]
    chosen = []
    for item in constraints:
        if isinstance(item, Constraint):
            chosen.append(item)
        elif item in TASKS:
            chosen.extend(c for c in CONSTRAINTS.values() if c.task == item)
        elif item in CONSTRAINTS:
            chosen.append(CONSTRAINTS[item])
        else:
            raise ParameterError(f"unknown constraint {item!r}; constraints: {', '.join(CONSTRAINTS)} "
                                 f"(or a task: {', '.join(TASKS)})", parameter="constraints")
    return chosen


def check_constraints(measure: str | Measure | Callable, constraints=None, *, random_cases: int = 100,
                      seed: int = 0, grid: Mapping[str, Sequence[float]] | None = None,
                      lower_is_better: bool | None = None) -> pd.DataFrame:
    """Check a measure against formal constraints.

    ``measure`` is a registered name (``"F(alpha=0.2, smoothing=noninformative)"``), a
    :class:`~workbench.metrics.registry.Measure` or a callable ``(gold, output) → float``. ``constraints`` is
    None (the constraints of the measure's task, or all of them for a callable or a general measure), a task
    name, a constraint name, or a list of these. Every small case is checked, then ``random_cases`` random
    ones per constraint (seeded). Returns one row per constraint: ``constraint, task, satisfied,
    counterexample`` (empty when satisfied), ``cases`` checked, ``undefined`` (cases where the measure gave
    NaN, left out of the verdict), ``source`` and ``statement``. A measure that raises stops the check with a
    :class:`ConstraintCheckError` naming the constraint and the case. ``grid`` maps a numeric parameter to
    the values the absolute-weighting check tries (a callable receives them as keyword arguments).
    ``lower_is_better`` defaults to the registered measure's ``direction`` (Lam% is an error rate); give it
    for a callable whose lower scores are better.
    """
    scorer = _scorer(measure, grid, lower_is_better)
    task = scorer.measure.spec.task if scorer.measure is not None else None
    rows = []
    for constraint in _select(constraints, task):
        rng = np.random.default_rng([seed, sum(map(ord, constraint.name))])
        finding = constraint.check(scorer, random_cases=random_cases, rng=rng)
        if finding.cases and finding.undefined == finding.cases:
            finding = Finding(False, f"{scorer.name} is undefined (NaN) on every case checked",
                              finding.cases, finding.undefined)
        rows.append({"constraint": constraint.name, "task": constraint.task, "satisfied": finding.satisfied,
                     "counterexample": finding.counterexample, "cases": finding.cases,
                     "undefined": finding.undefined, "source": constraint.source,
                     "statement": constraint.statement})
    table = pd.DataFrame(rows, columns=["constraint", "task", "satisfied", "counterexample", "cases",
                                        "undefined", "source", "statement"])
    table.attrs["measure"] = scorer.name
    return table


# ----------------------------------------------------------------------------------- the papers' tables
def _combined(reliability: str, sensitivity: str, label: str) -> Callable[[Organization, Organization], float]:
    """F_0.5 of a registered Reliability and Sensitivity pair: the R*S of seed 000 Table 6."""
    from workbench.analysis.unanimous import f_alpha

    r, s = parse(reliability), parse(sensitivity)

    def combined(gold: Organization, output: Organization) -> float:
        return float(f_alpha(r(gold, output), s(gold, output), 0.5))

    combined.__name__ = label
    return combined


CLUSTERING_COLUMNS = ("homogeneity", "completeness", "rag bag", "size vs quantity")
RANKING_COLUMNS = ("priority", "deepness", "deepness threshold", "closeness threshold", "confidence")
FILTERING_COLUMNS = ("strict monotonicity", "non-informativeness fixed quality",
                     "non-informativeness growing quality", "absolute weighting")

Y, N = True, False
TABLE6 = (
    # seed 000 Table 6 (✓ = True, ✗ = False), read off the extracted text column by column; its Priority
    # column for filtering measures is the filtering priority constraint, i.e. strict monotonicity.
    ("Set matching", ("F(P,IP)",), dict(zip(CLUSTERING_COLUMNS, (Y, N, N, Y), strict=True))),
    ("Entropy based", ("V-measure", "NMI"), dict(zip(CLUSTERING_COLUMNS, (Y, Y, N, Y), strict=True))),
    ("Edit distance", (), dict(zip(CLUSTERING_COLUMNS, (N, Y, N, Y), strict=True))),
    ("Counting pairs", ("Rand", "Jaccard", "FM"), dict(zip(CLUSTERING_COLUMNS, (Y, Y, N, N), strict=True))),
    ("Bcubed", ("BCubed-F",),
     dict(zip(CLUSTERING_COLUMNS, (Y, Y, Y, Y), strict=True)) | {"size vs quantity (overlap)": N}),
    ("MAP, DCG, Q measure", ("AP", "nDCG", "Q-measure"), dict(zip(RANKING_COLUMNS, (Y, Y, N, Y, N), strict=True))),
    ("P10", ("P@10",), dict(zip(RANKING_COLUMNS, (N, N, Y, Y, N), strict=True))),
    ("MRR", ("RR",), dict(zip(RANKING_COLUMNS, (Y, Y, Y, N, N), strict=True))),
    ("RBP", ("RBP(p=0.8)",), dict(zip(RANKING_COLUMNS, (Y, Y, Y, Y, N), strict=True))),
    ("UTILITY, F, LAM%", ("Utility", "F(alpha=0.5)", "Lam%"), {"strict monotonicity": Y}),
    # BCubed over occurrences (each document in each cluster a separate item) is R∼/S∼ on flat clusterings:
    # seed 000 §4.2's fix for overlap, so it stands with R*S here.
    ("R*S", ("F(R∼,S∼)", "BCubed-F(variant=occurrence)"),
     dict.fromkeys((*CLUSTERING_COLUMNS, "size vs quantity (overlap)"), Y)),
    ("R*S", ("F(R≺,S≺)(n=10, wn=0.8)",), dict.fromkeys(RANKING_COLUMNS, Y)),
    ("R*S", ("F(R≺,S≺)",), {"strict monotonicity": Y}),
)
"""Seed 000 Table 6: (family, the workbench measures standing for it, the paper's verdict per constraint)."""

_UNSTATED = None
FILTERING_TABLES = (
    # seed 003 Tables 3 and 5 as far as the prose of §4–5 states them (the tables are images, absent from the
    # extracted text); None = not stated. The three properties are mutually exclusive (§3.3), so a measure
    # placed in one family is ✗ on the other two.
    ("Table 3", "Accuracy", ("Accuracy",), (Y, N, N, N)),
    ("Table 3", "Utility", ("Utility",), (Y, N, N, Y)),
    ("Table 3", "Utility (α1…α4)", ("LinearUtility",), (Y, N, N, Y)),
    ("Table 3", "Weighted accuracy", ("WAcc",), (Y, N, N, Y)),
    ("Table 3", "Lam%", ("Lam%",), (N, Y, N, N)),
    ("Table 3", "Phi", ("Phi",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Odds", ("Odds",), (N, Y, N, N)),
    ("Table 3", "MAAc", ("MAAc",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Kappa", ("Kappa",), (_UNSTATED, Y, N, N)),
    ("Table 3", "Chi", ("Chi",), (_UNSTATED, Y, N, N)),
    ("Table 3", "MI", ("MI",), (_UNSTATED, Y, N, N)),
    ("Table 3", "F", ("F(alpha=0.5)",), (N, N, Y, N)),
    ("Table 3", "F(R,S)", ("F(R,S)",), (N, N, N, N)),
    ("Table 5", "F_smL", ("F(alpha=0.5, smoothing=laplace)",), (Y, N, N, N)),
    ("Table 5", "F_smN", ("F(alpha=0.5, smoothing=noninformative)",), (Y, N, Y, N)),
    ("Table 5", "Lam%_smL", ("Lam%(smoothing=laplace)",), (Y, N, _UNSTATED, N)),
    ("Table 5", "Lam%_smN", ("Lam%(smoothing=noninformative)",), (Y, Y, N, N)),
)
"""Seed 003 Tables 3 and 5: (table, measure, workbench spellings, verdicts in FILTERING_COLUMNS order)."""

_COMBINED = {
    "F(R∼,S∼)": ("R∼", "S∼"),
    "F(R≺,S≺)(n=10, wn=0.8)": ("R≺(n=10, wn=0.8)", "S≺(n=10, wn=0.8)"),
    "F(R≺,S≺)": ("R≺", "S≺"),
}


def _resolve(spelling: str):
    """A measure for a spelling of the tables, or None when the workbench does not register it."""
    try:
        if spelling in _COMBINED:
            return _combined(*_COMBINED[spelling], label=spelling)
        return parse(spelling)
    except UnknownMeasureError:
        return None


def _verdict_rows(family: str, spelling: str, expected: Mapping[str, bool | None], *, random_cases: int,
                  seed: int) -> list[dict]:
    def row(constraint: str, found: str, note: str) -> dict:
        paper = expected[constraint]
        agrees = pd.NA if paper is None or found not in ("✓", "✗") else (found == "✓") == paper
        return {"family": family, "measure": spelling, "constraint": constraint,
                "paper": "" if paper is None else "✓" if paper else "✗", "found": found, "agrees": agrees,
                "note": note}

    measure = _resolve(spelling) if spelling else None
    if measure is None:
        why = "no such measure in the workbench" if not spelling else f"{spelling} is not registered"
        return [row(c, "absent", why) for c in expected]
    rows = []
    for constraint in expected:
        try:
            found = check_constraints(measure, constraint, random_cases=random_cases, seed=seed).iloc[0]
        except ConstraintCheckError as error:
            rows.append(row(constraint, "error", str(error)))
            continue
        rows.append(row(constraint, "✓" if found["satisfied"] else "✗", found["counterexample"]))
    return rows


def table6_report(*, random_cases: int = 50, seed: int = 0, families: Sequence[str] | None = None) -> pd.DataFrame:
    """Seed 000 Table 6 recomputed for the measures the workbench has.

    One row per (family, measure, constraint): ``family, measure, constraint, paper`` (✓/✗), ``found``
    (✓, ✗, ``absent`` when the workbench lacks the measure, ``error`` when it raised), ``agrees`` and
    ``note`` (the counterexample, or why absent/error). Use :func:`as_grid` for the table's layout.
    """
    rows = []
    for family, spellings, expected in TABLE6:
        if families is not None and family not in families:
            continue
        for spelling in spellings or ("",):
            rows.extend(_verdict_rows(family, spelling, expected, random_cases=random_cases, seed=seed))
    return pd.DataFrame(rows, columns=["family", "measure", "constraint", "paper", "found", "agrees", "note"])


def filtering_report(*, random_cases: int = 50, seed: int = 0) -> pd.DataFrame:
    """Seed 003 Tables 3 and 5 recomputed for the registered filtering measures (same columns as
    :func:`table6_report`, ``family`` naming the table)."""
    rows = []
    for table, name, spellings, verdicts in FILTERING_TABLES:
        expected = dict(zip(FILTERING_COLUMNS, verdicts, strict=True))
        for spelling in spellings:
            for row in _verdict_rows(table, spelling, expected, random_cases=random_cases, seed=seed):
                rows.append(row | {"family": f"{table}: {name}"})
    return pd.DataFrame(rows, columns=["family", "measure", "constraint", "paper", "found", "agrees", "note"])


def as_grid(report: pd.DataFrame) -> pd.DataFrame:
    """A report laid out like the paper: one row per measure, one column per constraint; a cell reads ``✓``
    or ``✗`` (the finding), with ``(paper ✗)`` appended where the paper says otherwise."""
    def cell(row: pd.Series) -> str:
        if row["agrees"] is False:
            return f"{row['found']} (paper {row['paper']})"
        return row["found"]

    cells = report.assign(cell=report.apply(cell, axis=1))
    grid = cells.pivot_table(index=["family", "measure"], columns="constraint", values="cell", aggfunc="first",
                             sort=False)
    order = [c for c in (*CLUSTERING_COLUMNS, "size vs quantity (overlap)", *RANKING_COLUMNS, *FILTERING_COLUMNS)
             if c in grid.columns]
    return grid[order].fillna("")
