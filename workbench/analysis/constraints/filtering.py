"""Filtering constraints (Amigó et al., filtering metrics comparison, §3): strict monotonicity, the two
non-informativeness properties and absolute weighting, over contingencies (TP, FN, FP, TN) of small collections."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator

import numpy as np

from workbench.analysis.constraints.core import (
    TOLERANCE,
    Case,
    Constraint,
    Finding,
    _contingency,
    _docs,
    _score,
    _Scorer,
    _show,
)
from workbench.model import Organization

__all__ = ["CONSTRAINTS"]


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
    """Every output with P(S ∩ G) = P(S)·P(G) exactly, smallest first (Amigó et al., filtering metrics comparison,
    §3.1)."""
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


def _pair(gold: Organization, output: Organization) -> str:
    return f"{_show(gold, 'gold')}\n{_show(output, 'output')}"


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
            value = _score(scorer, constraint.name, gold, output, functools.partial(_pair, gold, output))
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


def _absolute_weighting(constraint: Constraint, scorer: _Scorer, *, random_cases: int,
                        rng: np.random.Generator) -> Finding:
    """Amigó et al., filtering metrics comparison, §3.3: some parameter c and threshold θ make adding one relevant and
    one irrelevant item to S an improvement exactly when c is on one side of θ, whatever S and the input."""
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
        if not decided:
            reasons.append(f"{key}: the measure rejects every value tried")
        elif all(len(s) == 1 and 0 not in s for s in decided):
            flips = sum(a != b for a, b in itertools.pairwise(decided))
            if flips == 1:
                return Finding(True, "", total_cases)
            reasons.append(f"{key}: adding one relevant and one irrelevant item always "
                           f"{'raises' if decided[0] == {1} else 'lowers'} the score for {key} in {values}")
        else:
            mixed = next(v for v in values if len(signs[v]) != 1 or 0 in signs[v])
            reasons.append(f"{key}={mixed}: adding one relevant and one irrelevant item helps, hurts or ties "
                           f"depending on S and the input ({sorted(signs[mixed])})")
    if skipped:
        reasons.append(f"values the measure rejects, skipped: {', '.join(skipped)}")
    return Finding(False, "; ".join(reasons), total_cases)


CONSTRAINTS = (
    Constraint("strict monotonicity", "filtering",
               "Amigó et al., filtering metrics comparison, §3.2 (Sebastiani 2015); Amigó et al., SIGIR 2013, §2.2 "
               "priority",
               "Relabelling an item into its correct class strictly improves the output.",
               _monotonicity_exhaustive, _monotonicity_random, contingency=True),
    Constraint("non-informativeness fixed quality", "filtering", "Amigó et al., filtering metrics comparison, §3.3",
               "Every non-informative output (S independent of G) gets the same score.",
               checker=_fixed_quality, contingency=True),
    Constraint("non-informativeness growing quality", "filtering", "Amigó et al., filtering metrics comparison, §3.3",
               "A larger non-informative output scores higher.",
               _growing_exhaustive, _growing_random, contingency=True),
    Constraint("absolute weighting", "filtering", "Amigó et al., filtering metrics comparison, §3.3",
               "A parameter c and a threshold θ decide whether adding one relevant and one irrelevant "
               "item to S helps: c > θ ⇔ it does (or the reverse), whatever S and the input.",
               checker=_absolute_weighting, contingency=True),
)
"""The filtering constraints, in the order the reports list them."""
