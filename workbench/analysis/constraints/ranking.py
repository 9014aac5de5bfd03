"""Ranking constraints (Amigó et al., SIGIR 2013, §2.3): priority, deepness, the deepness and closeness thresholds, and
confidence, over relevance patterns of short rankings."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from workbench.analysis.constraints.core import Case, Constraint, Finding, _docs, _score, _Scorer, describe
from workbench.model import Organization

__all__ = ["DEPTHS", "CONSTRAINTS"]


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


CONSTRAINTS = (
    Constraint("priority", "ranking", "Amigó et al., SIGIR 2013, §2.3",
               "Moving a relevant document above the irrelevant one just before it improves the ranking.",
               *_ranking_generators(_priority_cases, range(2, 7))),
    Constraint("deepness", "ranking", "Amigó et al., SIGIR 2013, §2.3",
               "The same swap of a relevant and an irrelevant document costs more near the top.",
               *_ranking_generators(_deepness_cases, range(4, 9))),
    Constraint("deepness threshold", "ranking", "Amigó et al., SIGIR 2013, §2.3",
               "For n large enough, one relevant document on top beats n relevant after n irrelevant.",
               checker=_threshold(deep=True)),
    Constraint("closeness threshold", "ranking", "Amigó et al., SIGIR 2013, §2.3",
               "For some small n, n relevant after n irrelevant beat one relevant document on top.",
               checker=_threshold(deep=False)),
    Constraint("confidence", "ranking", "Amigó et al., SIGIR 2013, §2.3",
               "Appending an irrelevant document to the ranking lowers its score.",
               *_ranking_generators(_confidence_cases, range(1, 6))),
)
"""The ranking constraints, in the order the reports list them."""
