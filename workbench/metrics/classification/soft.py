"""Soft-label measures ("learning with disagreement"): Cross Entropy and Mean Absolute Error, as PyEvALL
(``pyevall/metrics/metrics.py``: ``CrossEntropy``, ``MAE``) computes them, over the classes C the topic's gold or
the output names. Lower is better for both.

* Cross Entropy, per gold item: each vector over C has its weights ≤ 0 replaced by 0.001 and is divided by its
  sum; CE = −Σ_c g(c)·log₂ o(c). An unanswered item reads as all zeros, i.e. the uniform distribution once
  smoothed.
* MAE, per gold item: Σ_c |g(c) − o(c)| / |C|.

Both average over the gold's items; an item only the output names has nothing to be compared with.

Where PyEvALL departs: it sums CE over the classes an item's gold dict names, each vector normalized over the
classes its own dict names, and counts an unanswered item as 0 (the best possible CE); it takes MAE's classes from
the gold only. Here a class an item's dict leaves out has weight 0, smoothed like a written 0, an unanswered item
is the uniform distribution, and MAE also counts weight the output puts on classes the gold never names. On dicts
that name the same classes, with the output's classes among the gold's, both agree (tests/test_classification.py).

    >>> from workbench.model.labelling import Labelling
    >>> from workbench.metrics.classification.pairs import pair
    >>> p = pair(Labelling.parse("1: {A: 1, B: 0}", gold=True), Labelling.parse("1: {A: 0.75, B: 0.25}"))
    >>> round(cross_entropy(p), 4), mean_absolute_error(p)
    (0.4166, 0.25)
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.classification.pairs import LabelledPair

__all__ = ["SMOOTHING", "absolute_error_terms", "cross_entropy", "cross_entropy_terms", "mean_absolute_error"]

SMOOTHING = 0.001
"""The weight a class at or below 0 gets before Cross Entropy normalizes a vector (PyEvALL's ``SMOOTH_VALUE``)."""


def _smoothed(rows: np.ndarray) -> np.ndarray:
    rows = np.where(rows <= 0.0, SMOOTHING, rows)
    return rows / rows.sum(axis=1, keepdims=True)


def cross_entropy_terms(p: LabelledPair) -> np.ndarray:
    """−Σ_c g(c)·log₂ o(c) per gold item, both smoothed and normalized over the named classes."""
    p.require("CrossEntropy", "soft")
    n = p.n_gold
    gold, output = _smoothed(p.gold[:n, p.named]), _smoothed(p.output[:n, p.named])
    return -(gold * np.log2(output)).sum(axis=1)


def cross_entropy(p: LabelledPair) -> float:
    """Cross Entropy averaged over the gold's items (bits)."""
    return float(cross_entropy_terms(p).sum() / p.n_gold)


def absolute_error_terms(p: LabelledPair) -> np.ndarray:
    """Σ_c |g(c) − o(c)| / |C| per gold item."""
    p.require("MAE", "soft")
    n = p.n_gold
    return np.abs(p.gold[:n, p.named] - p.output[:n, p.named]).sum(axis=1) / int(p.named.sum())


def mean_absolute_error(p: LabelledPair) -> float:
    """MAE averaged over the gold's items."""
    return float(absolute_error_terms(p).sum() / p.n_gold)
