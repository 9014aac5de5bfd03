"""cwl_eval's cost-aware C/W/L measures: TBG, U-measure and the IFT family.

Each measure is a user model over cwl_eval's ranks (:mod:`workbench.metrics.ranking.cwl_columns`), whence any of
its five output columns.

    >>> from workbench.metrics.ranking.cwl_columns import COLUMNS
    >>> t = GainTable.from_gains([[1, 0, 1]], [[1, 1]])
    >>> [round(float(tbg(t, H=1.0, max_rel=1, depth=3, column=c)[0]), 6) for c in COLUMNS]
    [0.714286, 1.25, 1.0, 1.75, 1.75]
"""

from __future__ import annotations

import numpy as np

from workbench.metrics.ranking.cwl import cwl_gains
from workbench.metrics.ranking.cwl_columns import Model, column_terms, costs_to_depth, reach_of, to_depth
from workbench.metrics.ranking.table import GainTable, row_sums

__all__ = ["tbg_model", "tbg", "u_model", "u_measure", "ift_goal_model", "ift_goal", "ift_rate_model", "ift_rate",
           "ift_goal_rate_model", "ift_goal_rate"]


def _gains_and_costs(table: GainTable, depth: int, min_rel: float, max_rel: float | None
                     ) -> tuple[np.ndarray, np.ndarray]:
    return to_depth(cwl_gains(table, min_rel, max_rel), depth, 0.0), costs_to_depth(table, depth)


def _ratios(reach: np.ndarray) -> np.ndarray:
    """C(i) = reach(i + 1)/reach(i) (0 where reach(i) is 0), and 0 at the last rank: the continuation of a model
    given by its weights, as cwl_eval's TBG and U-measure derive it (``c_vector``)."""
    after = np.hstack([reach[:, 1:], np.zeros((reach.shape[0], 1))])
    return np.divide(after, reach, out=np.zeros_like(reach), where=reach > 0)


def _starts(costs: np.ndarray) -> np.ndarray:
    """The cost spent before each rank: Σ_{j<i} c(j)."""
    return np.cumsum(costs, axis=1) - costs


def tbg_model(table: GainTable, H: float = 224.0, min_rel: float = 0, max_rel: float | None = None,
              depth: int = 1000) -> Model:
    """TBG's user model: reach(i) = 2^(−t(i)/H), t(i) = Σ_{j<i} c(j) the time spent before rank i."""
    gains, costs = _gains_and_costs(table, depth, min_rel, max_rel)
    with np.errstate(over="ignore"):  # t/H past a double (a tiny H): reach 0, the formula's limit
        reach = np.exp2(-_starts(costs) / H)
    return gains, costs, reach, _ratios(reach)


def tbg(table: GainTable, H: float = 224.0, min_rel: float = 0, max_rel: float | None = None, depth: int = 1000,
        column: str = "EU") -> np.ndarray:
    """TBG = Σ_i W(i)·g(i), W(i) ∝ 2^(−t(i)/H), t(i) the time (cost) spent before rank i: time-biased gain, a
    user who forgets with half-life H (Smucker & Clarke, SIGIR 2012, eq. 4 with D(t) = e^(−t ln 2/H)), as cwl_eval's
    ``TBGCWLMetric`` states it in C/W/L (the decay normalised to weights summing to 1; RBP with p = 2^(−1/H) when
    every document costs 1).

    >>> round(float(tbg(GainTable.from_gains([[1, 0]], [[1]]), H=1.0, max_rel=1, depth=2)[0]), 6)
    0.666667
    """
    return row_sums(column_terms(tbg_model(table, H, min_rel, max_rel, depth), column))


def u_model(table: GainTable, L: float = 1000.0, min_rel: float = 0, max_rel: float | None = None,
            depth: int = 1000) -> Model:
    """U-measure's user model: reach(i) = max(0, 1 − t(i)/L) before the last rank, 0 at the last (cwl_eval's
    ``UMeasureCWLMetric`` gives the last of its d ranks no weight)."""
    gains, costs = _gains_and_costs(table, depth, min_rel, max_rel)
    with np.errstate(over="ignore"):  # t/L past a double (a tiny L): reach 0, the formula's limit
        reach = np.maximum(0.0, 1.0 - _starts(costs) / L)
    reach[:, -1] = 0.0
    return gains, costs, reach, _ratios(reach)


def u_measure(table: GainTable, L: float = 1000.0, min_rel: float = 0, max_rel: float | None = None,
              depth: int = 1000, column: str = "EU") -> np.ndarray:
    """U = Σ_i W(i)·g(i), W(i) ∝ max(0, 1 − t(i)/L), t(i) the text read (cost) before rank i: U-measure, a user
    whose reading of L characters (or seconds) exhausts them linearly (Sakai & Dou, SIGIR 2013, eq. 2 with the
    linear decay D(pos) = max(0, 1 − pos/L)), as cwl_eval's ``UMeasureCWLMetric`` states it in C/W/L (the decay
    normalised to weights summing to 1, a document's position where it starts).

    >>> round(float(u_measure(GainTable.from_gains([[1, 0]], [[1]]), L=2.0, max_rel=1, depth=3)[0]), 6)
    0.666667
    """
    return row_sums(column_terms(u_model(table, L, min_rel, max_rel, depth), column))


def _goal(gained: np.ndarray, T: float, b1: float, R1: float) -> np.ndarray:
    """IFT's goal continuation c1(y) = 1 − 1/(1 + b1·e^((T − y)·R1)), y the gain so far."""
    with np.errstate(over="ignore"):  # e^x past a double: c1 = 1, as the formula's limit
        return 1.0 - 1.0 / (1.0 + b1 * np.exp((T - gained) * R1))


def _rate(gained: np.ndarray, spent: np.ndarray, A: float, b2: float, R2: float) -> np.ndarray:
    """IFT's rate continuation c2(y, k) = 1/(1 + b2·e^((A − y/k)·R2)), y/k the rate of gain so far."""
    with np.errstate(over="ignore"):  # e^x past a double: c2 = 0, as the formula's limit
        return 1.0 / (1.0 + b2 * np.exp((A - gained / spent) * R2))


def _ift_model(gains: np.ndarray, costs: np.ndarray, continuation: np.ndarray) -> Model:
    return gains, costs, reach_of(continuation), continuation


def ift_goal_model(table: GainTable, T: float = 2.0, b1: float = 0.9, R1: float = 10.0, min_rel: float = 0,
                   max_rel: float | None = None, depth: int = 1000) -> Model:
    """IFT-C1's user model: C(i) = c1(Σ_{j≤i} g(j))."""
    gains, costs = _gains_and_costs(table, depth, min_rel, max_rel)
    return _ift_model(gains, costs, _goal(np.cumsum(gains, axis=1), T, b1, R1))


def ift_goal(table: GainTable, T: float = 2.0, b1: float = 0.9, R1: float = 10.0, min_rel: float = 0,
             max_rel: float | None = None, depth: int = 1000, column: str = "EU") -> np.ndarray:
    """IFT-C1 = Σ_i W(i)·g(i), C(i) = 1 − 1/(1 + b1·e^((T − y_i)·R1)), y_i the gain up to rank i: the information
    foraging user who stops as the gain nears the goal T, R1 how strictly (Azzopardi, Thomas & Craswell,
    SIGIR 2018, eq. 3; cwl_eval's ``IFTGoalCWLMetric``).

    >>> round(float(ift_goal(GainTable.from_gains([[1, 0]], [[1]]), T=1.0, b1=1.0, R1=0.0, max_rel=1,
    ...                      depth=2)[0]), 6)  # C(1) = 1/2: W = 2/3, 1/3
    0.666667
    """
    return row_sums(column_terms(ift_goal_model(table, T, b1, R1, min_rel, max_rel, depth), column))


def ift_rate_model(table: GainTable, A: float = 0.2, b2: float = 0.9, R2: float = 10.0, min_rel: float = 0,
                   max_rel: float | None = None, depth: int = 1000) -> Model:
    """IFT-C2's user model: C(i) = c2(Σ_{j≤i} g(j), Σ_{j≤i} c(j))."""
    gains, costs = _gains_and_costs(table, depth, min_rel, max_rel)
    return _ift_model(gains, costs, _rate(np.cumsum(gains, axis=1), np.cumsum(costs, axis=1), A, b2, R2))


def ift_rate(table: GainTable, A: float = 0.2, b2: float = 0.9, R2: float = 10.0, min_rel: float = 0,
             max_rel: float | None = None, depth: int = 1000, column: str = "EU") -> np.ndarray:
    """IFT-C2 = Σ_i W(i)·g(i), C(i) = 1/(1 + b2·e^((A − y_i/k_i)·R2)), y_i/k_i the gain per cost up to rank i: the
    information foraging user who goes on while the rate of gain beats A, R2 how strictly (Azzopardi, Thomas &
    Craswell, SIGIR 2018, eq. 4; cwl_eval's ``IFTRateCWLMetric``).

    >>> round(float(ift_rate(GainTable.from_gains([[1, 0]], [[1]]), A=1.0, b2=1.0, R2=1.0, max_rel=1,
    ...                      depth=2)[0]), 6)  # the rate 1 = A at rank 1: C(1) = 1/2
    0.666667
    """
    return row_sums(column_terms(ift_rate_model(table, A, b2, R2, min_rel, max_rel, depth), column))


def ift_goal_rate_model(table: GainTable, T: float = 2.0, b1: float = 0.9, R1: float = 10.0, A: float = 0.2,
                        b2: float = 0.9, R2: float = 10.0, min_rel: float = 0, max_rel: float | None = None,
                        depth: int = 1000) -> Model:
    """IFT-C1-C2's user model: C(i) = c1(y_i)·c2(y_i, k_i)."""
    gains, costs = _gains_and_costs(table, depth, min_rel, max_rel)
    gained = np.cumsum(gains, axis=1)
    return _ift_model(gains, costs, _goal(gained, T, b1, R1) * _rate(gained, np.cumsum(costs, axis=1), A, b2, R2))


def ift_goal_rate(table: GainTable, T: float = 2.0, b1: float = 0.9, R1: float = 10.0, A: float = 0.2,
                  b2: float = 0.9, R2: float = 10.0, min_rel: float = 0, max_rel: float | None = None,
                  depth: int = 1000, column: str = "EU") -> np.ndarray:
    """IFT-C1-C2 = Σ_i W(i)·g(i), C(i) = c1(y_i)·c2(y_i, k_i): the goal and the rate together, the variant that
    predicted users best (Azzopardi, Thomas & Craswell, SIGIR 2018, eq. 5; cwl_eval's ``IFTGoalRateCWLMetric``).

    >>> round(float(ift_goal_rate(GainTable.from_gains([[1, 0]], [[1]]), T=1.0, b1=1.0, R1=0.0, A=1.0, b2=1.0,
    ...                           R2=1.0, max_rel=1, depth=2)[0]), 6)  # C(1) = 1/2 · 1/2: W = 4/5, 1/5
    0.8
    """
    return row_sums(column_terms(ift_goal_rate_model(table, T, b1, R1, A, b2, R2, min_rel, max_rel, depth), column))
