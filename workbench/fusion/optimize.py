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
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.data.trec.ranked import RankedRun, rank_runs
from workbench.fusion.entries import FusionError, FusionWeightsError
from workbench.fusion.methods import METHODS, fuse
from workbench.fusion.supervised import SUPERVISED, train_fusion
from workbench.ids import DocumentIds

__all__ = ["MAX_CANDIDATES", "PARAMETER_GRIDS", "FoldError", "FusionSearch", "optimize_fusion"]

if TYPE_CHECKING:
    import pandas as pd

    from workbench.data.campaign import Campaign

MAX_CANDIDATES = 5000
PARAMETER_GRIDS = {"k": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100], "phi": [round(0.1 * i, 1) for i in range(1, 10)],
                   "gamma": [0.25, 0.5, 0.75, 1.0, 1.5, 2.0], "sigma": [0.001, 0.01, 0.1, 0.5, 1.0],
                   "n_segments": list(range(1, 101)), "w": list(range(1, 101))}
"""The values tried for each method parameter when no ``grid`` is given."""


class FoldError(FusionError):
    """Folds that do not partition the campaign's topics (a topic in none, a topic unknown, fewer than two)."""


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


def optimize_fusion(campaign: Campaign, method: str, measure: str, folds: int | Mapping = 5, *,
                    grid: Sequence[Mapping[str, Any]] | None = None, norm: str | None = "auto", step: float = 0.1,
                    seed: int = 0, name: str | None = None) -> FusionSearch:
    """Choose ``method``'s weights (a simplex grid of ``step``) and parameters (:data:`PARAMETER_GRIDS`) by
    cross-validation on ``measure`` over the campaign's gold topics, and report the held-out scores.

    ``folds`` is a number of folds (topics shuffled with ``seed``) or ``{topic: fold}`` naming every gold topic
    once (:class:`FoldError` otherwise); ``grid`` a list of candidates ``{"weights": [...], param: value}``
    instead of the default. The best candidate of a fold is the one whose mean over the other folds' topics is
    best in the measure's direction (the first of equals; ranx keeps the last). A supervised ``method`` is
    trained on the other folds' topics for each candidate (``n_segments`` of probfuse, ``w`` of slidefuse: 1 to
    100, as ranx tries them).
    """
    import pandas as pd

    from workbench.data.campaign import Campaign
    from workbench.metrics.registry import direction, parse

    task = parse(measure).spec.task
    if task != "ranking":  # a fused run is a ranking: a clustering or filtering measure would score it as one
        raise FusionError(f"optimize_fusion tunes a ranking measure; {measure!r} belongs to the {task} task")
    if method not in METHODS and method not in SUPERVISED:
        raise FusionError(f"unknown fusion method {method!r}; known: {', '.join([*METHODS, *SUPERVISED])}")
    runs = dict(campaign.runs)
    if len(runs) < 2:
        raise FusionError(f"fusion needs at least two runs, the campaign has {len(runs)}")
    topics = list(campaign.gold)
    fold_of = _folds(folds, topics, seed)
    candidates = list(grid) if grid is not None else _grid(method, len(runs), step)
    if not candidates:
        raise FusionError("the grid holds no candidate")
    names = name or f"{method} (cv)"

    def fused(candidate, training: list[str]) -> RankedRun:
        params = {k: v for k, v in candidate.items() if k != "weights"}
        if method in SUPERVISED:
            if "weights" in candidate:
                raise FusionWeightsError(f"{method} takes no weights: its candidates name {', '.join(params) or 'none'}"
                                         " of its parameters")
            return train_fusion(campaign, method, topics=training, norm=norm, **params).fuse(runs, topics="union")
        return fuse(runs, method, weights=candidate.get("weights"), norm=norm, topics="union", **params)

    def scored(run: RankedRun) -> list[float]:
        rows = Campaign(campaign.gold, {names: run}).score([measure], progress=False).rows
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
    """``{topic: fold}``: k folds drawn with ``seed``, or the mapping given, checked to partition ``topics``."""
    if isinstance(folds, Mapping) or hasattr(folds, "items"):
        given = {str(t): f for t, f in folds.items()}
        missing = [t for t in topics if t not in given]
        unknown = [t for t in given if t not in set(topics)]
        if missing or unknown:
            parts = ([f"topics {', '.join(map(repr, missing[:5]))} are in no fold"] if missing else []) + \
                ([f"{', '.join(map(repr, unknown[:5]))} are not topics of the campaign"] if unknown else [])
            raise FoldError(f"the folds do not partition the {len(topics)} topics: {'; '.join(parts)}; give every "
                            "gold topic exactly one fold")
        if len(set(given.values())) < 2:
            raise FoldError("cross-validation needs at least two folds; the mapping gives one")
        return given
    if isinstance(folds, bool) or not isinstance(folds, int | np.integer) or not 2 <= folds <= len(topics):
        raise FoldError(f"folds must be a number of folds in 2..{len(topics)} (the topics) or {{topic: fold}}, "
                        f"got {folds!r}")
    order = np.random.default_rng(seed).permutation(len(topics))
    return {topics[j]: int(i % folds) for i, j in enumerate(order)}


def _grid(method: str, n_runs: int, step: float) -> list[dict[str, Any]]:
    """The default candidates: every weight vector on the simplex grid of ``step`` (weighted methods) crossed with
    :data:`PARAMETER_GRIDS` of the method's parameters."""
    spec = METHODS.get(method)
    axes = [[(name, value) for value in PARAMETER_GRIDS[name]] for name in (spec or SUPERVISED[method]).params]
    params = [dict(combo) for combo in itertools.product(*axes)]
    if spec is None or not spec.weighted:
        return params
    if not 0 < step <= 1 or not float(1 / step).is_integer():
        raise FusionError(f"step must divide 1 (0.1, 0.25, 0.5...), got {step!r}")
    units = round(1 / step)
    count = _simplex_size(units, n_runs) * len(params)
    if count > MAX_CANDIDATES:
        raise FusionError(f"{n_runs} runs on a weight grid of step {step} make {count} candidates (more than "
                          f"{MAX_CANDIDATES}): give a larger step or your own grid")
    weights = [tuple(c / units for c in combo) for combo in _compositions(units, n_runs)]
    return [{"weights": w, **p} for w in weights for p in params]


def _simplex_size(units: int, parts: int) -> int:
    from math import comb

    return comb(units + parts - 1, parts - 1)


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
