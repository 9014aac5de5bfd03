"""Fusion weights and parameters chosen by cross-validation over topics: each fold's topics are fused with the
choice that scores best on the other folds' topics, so every reported score is held out (the protocol of ranx's
``optimize_fusion`` with folds, Bassani & Romelli, CIKM 2022). A supervised method
(:data:`~workbench.fusion.supervised.SUPERVISED`) is trained on the other folds' topics too, its hyperparameter
chosen there as ranx chooses it (the best mean of the measure over the training topics, fused by the model they
trained).

    >>> from workbench.data.campaign import Campaign
    >>> gold = {f"q{i}": {"a": 1} for i in range(4)}
    >>> runs = {"x": {f"q{i}": {"a": 1.0, "b": 2.0} for i in range(4)},
    ...         "y": {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(4)}}
    >>> search = optimize_fusion(Campaign.from_dicts(gold, runs), "wsum", "RR", folds=2, step=0.5)
    >>> search.folds[["fold", "weights", "held_out"]].to_dict("records")[0]
    {'fold': 0, 'weights': (0.0, 1.0), 'held_out': 1.0}
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.data.campaign import Campaign
from workbench.data.trec.ranked import RankedRun, rank_runs
from workbench.errors import ParameterError
from workbench.fusion.declare import Declared
from workbench.fusion.entries import FusionError
from workbench.fusion.methods import FUSE_NORMS, METHODS, fuse, weights_domain
from workbench.fusion.supervised import CAMPAIGN, SUPERVISED, campaign_runs, train_fusion
from workbench.ids import DocumentIds
from workbench.metrics.registry import direction, parse
from workbench.validation import (
    SEED,
    AnyOf,
    Choices,
    Domain,
    Interval,
    ListOf,
    MappingOf,
    Text,
    check,
    is_number,
    validate,
)

__all__ = ["MAX_CANDIDATES", "RankingMeasure", "FoldMapping", "WeightStep", "FoldError", "FusionSearch",
           "optimize_fusion"]

if TYPE_CHECKING:
    import pandas as pd

MAX_CANDIDATES = 5000
"""The most candidates the default grid holds (weight vectors × parameter values)."""


class FoldError(FusionError):
    """Folds that do not partition the campaign's topics (a topic in none, a topic unknown)."""


@dataclass(frozen=True)
class RankingMeasure(Domain):
    """The name of a ranking measure: a fused run is a ranking, which a clustering or filtering measure would score
    as one.

    >>> RankingMeasure().reason("Purity")
    "must be a ranking measure's name ('Purity' belongs to the clustering task)"
    """

    def __str__(self) -> str:
        return "a ranking measure's name"

    def reason(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be {self}"
        try:
            task = parse(value).spec.task
        except ParameterError as error:  # the registry's message, up to the list of measures it may append
            return f"must be {self} ({str(error).split('; known measures')[0]})"
        return None if task == "ranking" else f"must be {self} ({value!r} belongs to the {task} task)"

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str)

    def outside(self) -> tuple:
        return (3, "Purity", "no-such-measure")


@dataclass(frozen=True)
class FoldMapping(Domain):
    """``{topic: fold}`` naming two folds at least: a mapping, or what reads as one (a pandas Series of folds
    indexed by topic).

    >>> FoldMapping().reason({"q1": 0, "q2": 0})
    'must be {topic: fold} of two folds at least'
    """

    def __str__(self) -> str:
        return "{topic: fold} of two folds at least"

    def reason(self, value: Any) -> str | None:
        try:
            folds = {fold for _, fold in value.items()}
        except (AttributeError, TypeError):  # no items(), or a fold that cannot be a label
            return f"must be {self}"
        return None if len(folds) >= 2 else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not callable(getattr(value, "items", None))

    def outside(self) -> tuple:
        return ("text", [1, 2], {"q1": 0})


@dataclass(frozen=True)
class WeightStep(Domain):
    """The step of the weight grid, 1/u for a whole u; for ``runs`` runs and ``combinations`` of the other
    parameters' values, a step making at most :data:`MAX_CANDIDATES` candidates (C(u + runs − 1, runs − 1) weight
    vectors for each combination).

    >>> WeightStep().reason(0.3)
    'must be 1/u for a whole u (0.5, 0.25, 0.1, ...)'
    >>> WeightStep(runs=3).reason(0.01)
    'must be 1/u for a whole u (0.5, 0.25, 0.1, ...) making at most 5,000 candidates for 3 runs (0.01 makes 5,151)'
    """

    runs: int | None = None
    combinations: int = 1

    def __str__(self) -> str:
        text = "1/u for a whole u (0.5, 0.25, 0.1, ...)"
        return text if self.runs is None else f"{text} making at most {MAX_CANDIDATES:,} candidates for {self.runs} " \
            "runs"

    def reason(self, value: Any) -> str | None:
        if not is_number(value) or not 0 < value <= 1 or not float(1 / value).is_integer():
            return f"must be {self}"
        if self.runs is None:
            return None
        count = comb(round(1 / value) + self.runs - 1, self.runs - 1) * self.combinations
        if count <= MAX_CANDIDATES:
            return None
        return f"must be {self} ({value!r} makes {count:,})" if count < 10 ** 12 else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not is_number(value)

    def outside(self) -> tuple:
        return ("a word", 0, 0.3, 2.0, float("nan"))


@dataclass(frozen=True)
class FusionSearch:
    """What :func:`optimize_fusion` found: ``folds`` (one row per fold: ``fold, topics, weights, params, train,
    held_out``, the choice and its mean on the training and held-out topics), ``results`` (tidy ``system, topic,
    measure, value``: each run and the cross-validated fusion, named ``system``), and ``run``, the fused run with
    each topic fused by its fold's choice."""

    method: str
    measure: str
    system: str
    folds: pd.DataFrame
    results: pd.DataFrame
    run: RankedRun


@validate(campaign=CAMPAIGN, method=Choices((*METHODS, *SUPERVISED)), measure=RankingMeasure(),
          folds=AnyOf(Interval(2, integer=True), FoldMapping()),
          grid=ListOf(MappingOf(Text(), what="a candidate {weights or parameter: value}"), shortest=1, optional=True),
          norm=FUSE_NORMS, step=WeightStep(), seed=SEED, name=Text(optional=True))
def optimize_fusion(campaign: Campaign, method: str, measure: str, folds: int | Mapping = 5, *,
                    grid: Sequence[Mapping[str, Any]] | None = None, norm: str | None = "auto", step: float = 0.1,
                    seed: int = 0, name: str | None = None) -> FusionSearch:
    """Choose ``method``'s weights (a simplex grid of ``step``) and parameters (each its declared ``grid``:
    ``METHODS[method].params``, ``SUPERVISED[method].params``) by cross-validation on ``measure`` over the
    campaign's gold topics, and report the held-out scores.

    ``folds`` is a number of folds, 2 to the number of topics (topics shuffled with ``seed``), or
    ``{topic: fold}`` naming every gold topic once (:class:`FoldError` otherwise); ``grid`` a list of candidates
    ``{"weights": [...], param: value}`` instead of the default, each checked as :func:`~workbench.fusion.fuse`
    checks its arguments. The best candidate of a fold is the one whose mean over the other folds' topics is best
    in the measure's direction (the first of equals; ranx keeps the last). A supervised ``method`` is trained on
    the other folds' topics for each candidate (``n_segments`` of probfuse, ``w`` of slidefuse: 1 to 100, as ranx
    tries them).
    """
    import pandas as pd

    spec: Declared = METHODS[method] if method in METHODS else SUPERVISED[method]
    check(norm, spec.norms, "norm", "optimize_fusion")
    runs = campaign_runs(campaign)
    topics = list(campaign.gold)
    fold_of = _folds(folds, topics, seed)
    candidates = list(grid) if grid is not None else _grid(spec, len(runs), step)
    for candidate in candidates:
        spec.arguments(method, {k: v for k, v in candidate.items() if k != "weights"}, "optimize_fusion")
        check(candidate.get("weights"), weights_domain(method, spec, tuple(runs)), "weights", "optimize_fusion")
    names = name or f"{method} (cv)"

    def fused(candidate, training: list[str]) -> RankedRun:
        params = {k: v for k, v in candidate.items() if k != "weights"}
        if method in SUPERVISED:
            return train_fusion(campaign, method, topics=training, norm=norm, **params).fuse(runs, topics="union")
        return fuse(runs, method, weights=candidate.get("weights"), norm=norm, topics="union", **params)

    def scored(run: RankedRun) -> list[float]:
        rows = Campaign(campaign.gold, {names: run})._score([measure], progress=False).rows
        value = {topic: v for _, topic, _, v in rows}
        return [value[t] for t in topics]

    sign = -1.0 if direction(measure) == "lower" else 1.0
    labels = list(dict.fromkeys(fold_of[t] for t in topics))
    with contextlib.suppress(TypeError):  # labels of several types keep their order of appearance
        labels.sort()
    shared = None if method in SUPERVISED else np.array([scored(fused(c, topics)) for c in candidates])
    rows, held = [], {}
    for label in labels:
        test = np.array([fold_of[t] == label for t in topics])
        training = [t for t, out in zip(topics, test, strict=True) if not out]
        scores = shared if shared is not None else np.array([scored(fused(c, training)) for c in candidates])
        best = int(np.argmax(sign * scores[:, ~test].mean(axis=1)))
        held[label] = (scores[best], fused(candidates[best], training))
        candidate = candidates[best]
        rows.append({"fold": label, "topics": int(test.sum()),
                     "weights": tuple(float(w) for w in candidate["weights"]) if "weights" in candidate else None,
                     "params": {k: v for k, v in candidate.items() if k != "weights"},
                     "train": float(scores[best, ~test].mean()), "held_out": float(scores[best, test].mean())})
    per_topic = [held[fold_of[t]][0][j] for j, t in enumerate(topics)]
    parts = campaign.evaluate([measure], progress=False)
    mine = pd.DataFrame({"system": names, "topic": topics, "measure": measure, "value": per_topic})
    results = pd.concat([parts, mine], ignore_index=True)
    run = _assembled({t: held[fold_of[t]][1] for t in topics})
    return FusionSearch(method, measure, names, pd.DataFrame(rows), results, run)


def _folds(folds, topics: list[str], seed: int) -> dict[str, Any]:
    """``{topic: fold}``: k folds drawn with ``seed`` (k from 2 to the number of topics), or the mapping given,
    checked to partition ``topics``."""
    if not is_number(folds):
        given = {str(t): f for t, f in folds.items()}
        missing = [t for t in topics if t not in given]
        known = set(topics)
        unknown = [t for t in given if t not in known]
        if missing or unknown:
            parts = ([f"topics {', '.join(map(repr, missing[:5]))} are in no fold"] if missing else []) + \
                ([f"{', '.join(map(repr, unknown[:5]))} are not topics of the campaign"] if unknown else [])
            raise FoldError(f"the folds do not partition the {len(topics)} topics: {'; '.join(parts)}; give every "
                            "gold topic exactly one fold")
        return given
    check(folds, Interval(2, len(topics), integer=True), "folds", "optimize_fusion")
    order = np.random.default_rng(seed).permutation(len(topics))
    return {topics[j]: int(i % folds) for i, j in enumerate(order)}


def _grid(spec: Declared, n_runs: int, step: float) -> list[dict[str, Any]]:
    """The default candidates: every combination of the declared grids of the method's parameters, crossed (for a
    weighted method) with every weight vector on the simplex grid of ``step``."""
    axes = [[(name, value) for value in param.grid] for name, param in spec.params.items()]
    params = [dict(combo) for combo in itertools.product(*axes)]
    if not spec.weighted:
        return params
    check(step, WeightStep(n_runs, len(params)), "step", "optimize_fusion")
    units = round(1 / step)
    weights = [tuple(c / units for c in combo) for combo in _compositions(units, n_runs)]
    return [{"weights": w, **p} for w in weights for p in params]


def _compositions(units: int, parts: int):
    """Every tuple of ``parts`` non-negative integers summing to ``units``."""
    if parts == 1:
        yield (units,)
        return
    for first in range(units + 1):
        for rest in _compositions(units - first, parts - 1):
            yield (first, *rest)


def _assembled(by_topic: Mapping[str, RankedRun]) -> RankedRun:
    """One run taking each topic's ranking from its own run."""
    topics, ids, scores = [], [], []
    for topic, run in by_topic.items():
        if topic not in run:
            continue
        span = run.span(topic)
        ids.append(run.ids.take(np.arange(span.start, span.stop)))
        scores.append(run.scores_array[span])
        topics.extend([topic] * (span.stop - span.start))
    if not ids:
        raise FusionError("the fused run retrieves nothing for any topic")
    return rank_runs(None, topics, DocumentIds.concatenate(ids), np.concatenate(scores))[""]
