"""cwl_eval's five output columns of a C/W/L user model: EU, ETU, EC, ETC, ED.

A C/W/L user model (Moffat et al., TOIS 2017) over the ranks 1..d (cwl_eval's ``-n``, the ranking cut or padded to
d ranks with documents that gain 0 and cost 1) is its continuation C(i), the probability of going on from rank i,
whence reach(i) = Π_{j<i} C(j) (1 at rank 1), the weights W(i) = reach(i) / Σ_j reach(j) and the stopping
probabilities L(i) = reach(i)·(1 − C(i)). Each rank i holds a gain g(i)
(:func:`~workbench.metrics.ranking.cwl.cwl_gains`) and a cost c(i) (1 unless the run's documents have costs).
cwl_eval reports five numbers per measure (``cwl/ruler/measures/cwl_metrics.py``, ``_do_score``), named as its
columns (:data:`COLUMNS`):

* EU, the expected utility per document: Σ_i W(i)·g(i), the measure's value;
* ETU, the expected total utility: Σ_i L(i)·Σ_{j≤i} g(j), what the user has gained on leaving at rank i;
* EC, the expected cost per document: Σ_i W(i)·c(i);
* ETC, the expected total cost: Σ_i L(i)·Σ_{j≤i} c(j);
* ED, the expected depth: 1/W(1) = Σ_i reach(i).

Each is a sum over ranks (:func:`column_terms`), so each rank's term explains it. The ranks past the table count
too (their cost, their reach) and are computed, padded, not in closed form: ``depth`` is bounded.

    >>> model = (np.array([[1.0, 0.0, 1.0]]), np.ones((1, 3)), np.array([[1.0, 0.5, 0.25]]), np.array([[0.5, 0.5, 0]]))
    >>> [round(float(column_terms(model, c).sum()), 6) for c in COLUMNS]
    [0.714286, 1.25, 1.0, 1.75, 1.75]
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking.table import GainTable

__all__ = ["COLUMNS", "DEPTH_LIMIT", "Model", "to_depth", "costs_to_depth", "reach_of", "column_terms"]

COLUMNS = ("EU", "ETU", "EC", "ETC", "ED")
"""cwl_eval's five output columns of a measure, in its order: expected utility (per document), expected total
utility, expected cost (per document), expected total cost, expected depth."""
DEPTH_LIMIT = 100_000
"""The deepest ``depth`` of these measures: the ranks they read are padded to it, one number per topic and rank."""

Model = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""A user model over d ranks: gains, costs, reach and continuation, each topics × d."""


def to_depth(matrix: np.ndarray, depth: int, fill: float) -> np.ndarray:
    """``matrix`` (topics × ranks) cut or padded with ``fill`` to ``depth`` columns, as cwl_eval's ``Ranking``
    pads its vectors (``_pad_trunc_vector``).

    >>> to_depth(np.array([[1.0, 2.0]]), 3, 0.0).tolist(), to_depth(np.array([[1.0, 2.0]]), 1, 0.0).tolist()
    ([[1.0, 2.0, 0.0]], [[1.0]])
    """
    width = matrix.shape[1]
    if width >= depth:
        return matrix[:, :depth]
    return np.pad(matrix, ((0, 0), (0, depth - width)), constant_values=fill)


def costs_to_depth(table: GainTable, depth: int) -> np.ndarray:
    """Each rank's cost, topics × depth: the table's costs (:attr:`GainTable.costs`), 1 where it has none and at
    every rank past the ranking (cwl_eval's ``max_cost``, 1, for a document whose type has no cost and for its
    padding).

    >>> costs_to_depth(GainTable.from_gains([[1, 0]], [[1]]), 3).tolist()
    [[1.0, 1.0, 1.0]]
    """
    if table.costs is None:
        return np.ones((table.gains.shape[0], depth))
    return to_depth(table.costs, depth, 1.0)


def reach_of(continuation: np.ndarray) -> np.ndarray:
    """reach(i) = Π_{j<i} C(j), 1 at rank 1 (cwl_eval's ``w_vector`` before its normalisation).

    >>> reach_of(np.array([[0.5, 0.5, 0.0]])).tolist()
    [[1.0, 0.5, 0.25]]
    """
    return np.cumprod(np.hstack([np.ones((continuation.shape[0], 1)), continuation[:, :-1]]), axis=1)


def column_terms(model: Model, column: str) -> np.ndarray:
    """Each rank's term of cwl_eval's output ``column`` (one of :data:`COLUMNS`) under ``model``: a row's terms sum
    to its value.

    >>> ones = np.ones((1, 2))
    >>> column_terms((np.array([[1.0, 0.0]]), ones, np.array([[1.0, 0.5]]), np.array([[0.5, 0.0]])), "EU").tolist()
    [[0.6666666666666666, 0.0]]
    """
    gains, costs, reach, continuation = model
    if column in ("EU", "EC"):
        weights = reach / reach.sum(axis=1, keepdims=True)
        return weights * (gains if column == "EU" else costs)
    if column == "ED":
        return reach
    stops = reach * (1.0 - continuation)  # L(i): as cwl_eval sums it (not telescoped: 1 − C keeps its digits)
    return stops * np.cumsum(gains if column == "ETU" else costs, axis=1)


