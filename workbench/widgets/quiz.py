"""Predict, then reveal: the class orders some outputs on one measure before seeing the scores; the reveal says,
pair by pair, who was right. Plain data, so a notebook can run a quiz from code; the workbench hides its scores
while a quiz is unrevealed and explains the pair most predictions got wrong.

    >>> quiz = Quiz("R∼", {"Ana": ["output 1", "output 4"], "Ben": ["output 4", "output 1"]})
    >>> table = verdicts(quiz, {"output 1": 1.0, "output 4": 0.9649})
    >>> table[["who", "higher", "lower", "outcome"]].values.tolist()
    [['Ana', 'output 1', 'output 4', 'right'], ['Ben', 'output 4', 'output 1', 'wrong']]
    >>> disagreement(table)
    ('output 4', 'output 1')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pandas as pd

from workbench.errors import quoted
from workbench.validation import Choices, ListOf, MappingOf, Text
from workbench.widgets.errors import QuizError
from workbench.widgets.why import EXPLAINED  # a quiz predicts a measure the why panel explains

__all__ = ["VERDICT_COLUMNS", "MEASURE", "ORDER", "PREDICTIONS", "Quiz", "checked_predictions", "verdicts",
           "disagreement"]

VERDICT_COLUMNS = ["who", "higher", "lower", "score_higher", "score_lower", "outcome"]
MEASURE = Choices(EXPLAINED)
"""The domain of the measure a quiz predicts."""
ORDER = ListOf(Text(), shortest=2)
"""The domain of one prediction."""
PREDICTIONS = MappingOf(Text(), ORDER, what="a mapping who → outputs' names in predicted order")
"""The domain of the predictions."""


@dataclass
class Quiz:
    """``measure``: the measure predicted; ``predictions``: who → the outputs they ordered, the one predicted
    to score highest first (two outputs: "which scores higher"); ``revealed``: the scores are shown."""

    measure: str = "R∼"
    predictions: dict[str, list[str]] = field(default_factory=dict)
    revealed: bool = False


def checked_predictions(predictions: Mapping[str, Iterable[str]], names: Iterable[str]) -> dict[str, list[str]]:
    """``predictions`` (inside :data:`PREDICTIONS`) as plain data (who → list of output names), or
    :class:`QuizError` naming the first prediction that names an output the workbench does not have, or one
    twice."""
    known = list(names)
    checked = {}
    for who, order in predictions.items():
        order = list(order)
        unknown = [o for o in order if o not in known]
        if unknown:
            raise QuizError(f"{who}: no output named {quoted(unknown[0])}: the outputs are "
                            f"{', '.join(map(quoted, known))}")
        if len(set(order)) != len(order):
            raise QuizError(f"{who}: an output is named twice in {quoted(order)}")
        checked[who] = order
    return checked


def verdicts(quiz: Quiz, scores: Mapping[str, float]) -> pd.DataFrame:
    """One row per predictor and pair of outputs they ordered: ``higher`` the one they put above ``lower``,
    both scores on ``quiz.measure``, and ``outcome``: ``right`` (it scores higher), ``wrong`` or ``tie``."""
    rows = [(who, a, b, scores[a], scores[b], _outcome(scores[a], scores[b]))
            for who, order in quiz.predictions.items()
            for i, a in enumerate(order) for b in order[i + 1:]]
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def _outcome(higher: float, lower: float) -> str:
    """``tie`` for scores equal up to rounding (two outputs equal in exact arithmetic may differ in the last
    bits of a float), else ``right`` or ``wrong``."""
    if math.isclose(higher, lower, rel_tol=1e-9, abs_tol=1e-12):
        return "tie"
    return "right" if higher > lower else "wrong"


def disagreement(table: pd.DataFrame) -> tuple[str, str] | None:
    """The pair most predictions got wrong, as (the output predicted higher, the one that scores higher);
    None when nobody was wrong."""
    wrong = table[table["outcome"] == "wrong"]
    if wrong.empty:
        return None
    counts = wrong.groupby(["higher", "lower"], sort=False).size()
    higher, lower = counts.idxmax()
    return higher, lower
