"""The checker's machinery: a :class:`Case` (a gold and the output that must win over another), the
measure under check, a :class:`Finding`, and a :class:`Constraint` checked case by case."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from workbench.errors import ParameterError
from workbench.metrics.registry import Measure, UnknownMeasureError, parse
from workbench.model import Organization
from workbench.validation import AnyOf, Function, Instance, Interval, ListOf, MappingOf, Text

__all__ = ["TOLERANCE", "MEASURE_UNDER_CHECK", "GRID_DOMAIN", "ConstraintCheckError", "Case", "describe", "Finding",
           "Constraint", "GRID"]

TOLERANCE = 1e-12
"""A score difference below this is a tie (scores computed along different float paths)."""
MEASURE_UNDER_CHECK = AnyOf(Text(), Instance((Measure,), "a Measure"), Function(),
                            what="a registered name, a Measure or a callable (gold, output) → float")
"""The domain of the measure a check runs."""
GRID_DOMAIN = MappingOf(Text(), ListOf(Interval(), shortest=1), optional=True,
                        what="a mapping from a numeric parameter to the values tried")
"""The domain of ``grid``."""


class ConstraintCheckError(ParameterError):
    """The measure raised on a case; ``constraint`` and ``case`` (the notation text) say which."""

    def __init__(self, message: str, *, constraint: str, case: str) -> None:
        super().__init__(message)
        self.constraint, self.case = constraint, case


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
    return _Scorer(getattr(measure, "__name__", repr(measure)), measure, None, grid, bool(lower_is_better))


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
    if constraint.random is not None:
        for _ in range(random_cases):
            drawn = constraint.random(rng)
            if drawn is None:
                continue
            text = run(drawn)
            if text is not None and (smallest is None or drawn.size < smallest[0]):
                smallest = (drawn.size, text)
    if smallest is not None:
        return Finding(False, smallest[1], finding.cases, finding.undefined)
    return finding


GRID = (0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 1.25, 2.0, 4.0, 10.0, 20.0)
"""Values tried for a numeric parameter by the absolute-weighting check (values a measure rejects are skipped)."""


def _docs(n: int, prefix: str = "d") -> list[str]:
    return [f"{prefix}{i}" for i in range(1, n + 1)]

