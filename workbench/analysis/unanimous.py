"""Unanimous improvement and the Unanimous Improvement Ratio (UIR) of Amigó et al., JAIR 2011.

Per topic, system a improves b unanimously (a ≥∀ b) when it is at least as good on every measure (§4.1;
"as good" follows each measure's registered direction, so an error rate such as Lam% counts lower as better);
=∀ is ≥∀ both ways, >∀ is ≥∀ one way only, ‖∀ neither way. Over topics T (§4.2)::

    UIR(a, b) = (|T_{a ≥∀ b}| − |T_{b ≥∀ a}|) / |T|       ties count on both sides and cancel

Amigó et al., JAIR 2011, Table 3 (10 test cases, precision and recall): UIR(A, B) = (6 − 4)/10 = 0.2.

    >>> import pandas as pd
    >>> rows = [("A", 1, "P", .7), ("A", 1, "R", .5), ("B", 1, "P", .6), ("B", 1, "R", .4)]
    >>> uir(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), "A", "B", ["P", "R"])
    1.0

Also here: the UIR matrix of all pairs, the improved and reference systems of Table 7, the parametric UIR of
§8 and the F_α curves of §6.1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats

from workbench.analysis.results import (
    MEASURE,
    MEASURES,
    MISSING,
    RESULTS,
    SCORES,
    SYSTEM,
    SYSTEMS,
    TOLERANCES,
    ResultsError,
    ScoreCube,
    score_cube,
)
from workbench.metrics.combine import f_alpha
from workbench.validation import Choices, Flag, Interval, Numbers, validate

__all__ = ["TOLERANCE", "unanimous_relation", "unanimous_improvements", "uir", "uir_matrix", "reference_systems",
           "parametric_uir", "f_alpha_curves"]

TOLERANCE = 1e-12
"""Scores closer than this are equal: a ≥ b means a ≥ b − TOLERANCE (scores from different float paths)."""

GE, EQ, GT, LT, INCOMPARABLE = "≥∀", "=∀", ">∀", "<∀", "‖∀"
VECTOR = replace(SCORES, shortest=1)
"""The domain of one test case's scores, one per measure."""


def _at_least(a: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray:
    """a ≥∀ b over the last axis (the measures)."""
    return np.all(a >= b - tol, axis=-1)


@validate(a=VECTOR, b=replace(VECTOR, like="a"), tol=TOLERANCES)
def unanimous_relation(a: Sequence[float], b: Sequence[float], *, tol: float = TOLERANCE) -> str:
    """The relation of one test case between score vectors ``a`` and ``b`` (one finite score per measure, as many
    in ``b`` as in ``a``).

    Returns ``"=∀"``, ``">∀"`` (a strictly, unanimously better), ``"<∀"`` or ``"‖∀"`` (metric-biased).
    Amigó et al., JAIR 2011, Table 4: (0.6, 0.4) ‖∀ (0.5, 0.5) and (0.5, 0.5) >∀ (0.45, 0.45).

        >>> unanimous_relation([0.6, 0.4], [0.5, 0.5]), unanimous_relation([0.5, 0.5], [0.45, 0.45])
        ('‖∀', '>∀')
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return _relation_name(bool(_at_least(x, y, tol)), bool(_at_least(y, x, tol)))


def _relation_name(a_ge_b: bool, b_ge_a: bool) -> str:
    if a_ge_b and b_ge_a:
        return EQ
    if a_ge_b:
        return GT
    return LT if b_ge_a else INCOMPARABLE


@validate(results=RESULTS, a=SYSTEM, b=SYSTEM, measures=MEASURES, missing=MISSING, tol=TOLERANCES)
def unanimous_improvements(results: pd.DataFrame, a, b, measures: Sequence[str], *, missing: str = "error",
                           tol: float = TOLERANCE) -> pd.DataFrame:
    """Per topic: the scores of a and b, whether a ≥∀ b and b ≥∀ a (the YES/NO columns of Amigó et al.'s (JAIR 2011)
    Table 3) and the relation (``=∀ >∀ <∀ ‖∀``)."""
    cube = score_cube(results, measures, systems=_pair(a, b), missing=missing, min_topics=1)
    va, vb = cube.values[0], cube.values[1]
    oa, ob = cube.oriented()[0], cube.oriented()[1]
    a_ge_b, b_ge_a = _at_least(oa, ob, tol), _at_least(ob, oa, tol)
    table = pd.DataFrame({"topic": cube.topics})
    for k, measure in enumerate(cube.measures):
        table[f"{measure} ({a})"] = va[:, k]
        table[f"{measure} ({b})"] = vb[:, k]
    table[f"{a} ≥∀ {b}"] = a_ge_b
    table[f"{b} ≥∀ {a}"] = b_ge_a
    table["relation"] = [_relation_name(x, y) for x, y in zip(a_ge_b, b_ge_a, strict=True)]
    return table


def _pair(a, b) -> list:
    if a == b:
        raise ResultsError(f"UIR compares two different systems, got {a!r} twice", system=a)
    return [a, b]


def _uir_cube(cube: ScoreCube, tol: float) -> np.ndarray:
    """UIR[i, j] = UIR(system i, system j) for every pair, vectorised over topics and measures."""
    v = cube.oriented()  # systems × topics × measures, higher is better
    ge = np.all(v[:, None, :, :] >= v[None, :, :, :] - tol, axis=-1)  # i × j × topics
    counts = ge.sum(axis=-1)
    return (counts - counts.T) / v.shape[1]


@validate(results=RESULTS, a=SYSTEM, b=SYSTEM, measures=MEASURES, missing=MISSING, tol=TOLERANCES)
def uir(results: pd.DataFrame, a, b, measures: Sequence[str], *, missing: str = "error",
        tol: float = TOLERANCE) -> float:
    """UIR(a, b) over the topics both systems have (Amigó et al., JAIR 2011, §4.2); in [−1, 1], UIR(b, a) = −UIR(a,
    b)."""
    cube = score_cube(results, measures, systems=_pair(a, b), missing=missing, min_topics=1)
    return float(_uir_cube(cube, tol)[0, 1])


@validate(results=RESULTS, measures=MEASURES, systems=SYSTEMS, missing=MISSING, tol=TOLERANCES)
def uir_matrix(results: pd.DataFrame, measures: Sequence[str], *, systems: Sequence | None = None,
               missing: str = "error", tol: float = TOLERANCE) -> pd.DataFrame:
    """UIR of every pair: row a, column b holds UIR(a, b) (the diagonal is 0)."""
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=1)
    matrix = _uir_cube(cube, tol)
    return pd.DataFrame(matrix, index=pd.Index(cube.systems, name="a"),
                        columns=pd.Index(cube.systems, name="b"))


@validate(results=RESULTS, measures=MEASURES, threshold=Interval(-1, 1), inclusive=Flag(), systems=SYSTEMS,
          missing=MISSING, tol=TOLERANCES)
def reference_systems(results: pd.DataFrame, measures: Sequence[str], threshold: float = 0.25, *,
                      inclusive: bool = True, systems: Sequence | None = None, missing: str = "error",
                      tol: float = TOLERANCE) -> pd.DataFrame:
    """Amigó et al., JAIR 2011, Table 7: for each system, the systems it improves with UIR ≥ ``threshold`` (``>`` when
    ``inclusive=False``) and its reference system(s) argmax_S UIR(S, a), with that UIR.

    As in Table 7 (where a reference is shown only for systems some other system improves robustly), the
    reference is empty and its UIR NaN when no system reaches the threshold against a. Ties for the maximum
    list all maximisers. Columns: ``system, improves, reference, reference_uir``.
    """
    matrix = uir_matrix(results, measures, systems=systems, missing=missing, tol=tol)
    names = list(matrix.index)
    values = matrix.to_numpy()

    def passes(x: np.ndarray) -> np.ndarray:
        return x >= threshold - tol if inclusive else x > threshold + tol

    rows = []
    for i, system in enumerate(names):
        others = [j for j in range(len(names)) if j != i]
        improves = tuple(names[j] for j in others if passes(values[i, j]))
        against = values[others, i]  # UIR(S, system) for every other S
        best = against.max() if others else np.nan
        if others and passes(np.array(best)):
            reference = tuple(names[j] for j in others if values[j, i] >= best - tol)
            reference_uir = float(best)
        else:
            reference, reference_uir = (), float("nan")
        rows.append({"system": system, "improves": improves, "reference": reference,
                     "reference_uir": reference_uir})
    return pd.DataFrame(rows, columns=["system", "improves", "reference", "reference_uir"])


@validate(results=RESULTS, a=SYSTEM, b=SYSTEM, measures=MEASURES, missing=MISSING)
def parametric_uir(results: pd.DataFrame, a, b, measures: Sequence[str], *, missing: str = "error") -> float:
    """The parametric UIR of Amigó et al., JAIR 2011, §8: Prob(Δ ≥ 0 on every measure) − Prob(Δ ≤ 0 on every measure),
    where the per-topic differences Δ = scores(a) − scores(b) follow a multivariate normal fitted with the sample mean
    and the sample covariance (ddof=1).

    A measure whose difference has zero variance is deterministic: its sign decides both probabilities (a
    constant difference of 0 counts on both sides, like a tie). Needs at least 2 topics.
    """
    cube = score_cube(results, measures, systems=_pair(a, b), missing=missing, min_topics=2)
    delta = cube.oriented()[0] - cube.oriented()[1]
    mean = delta.mean(axis=0)
    cov = np.atleast_2d(np.cov(delta, rowvar=False, ddof=1))
    return _orthant(mean, cov) - _orthant(-mean, cov)


def _orthant(mean: np.ndarray, cov: np.ndarray) -> float:
    """Prob(X ≥ 0 componentwise) for X ~ N(mean, cov), allowing zero-variance components."""
    scale = np.sqrt(np.abs(np.diag(cov)))
    fixed = scale <= 1e-12 * max(1.0, float(np.abs(mean).max(initial=0.0)))
    if np.any(mean[fixed] < -TOLERANCE):
        return 0.0
    free = ~fixed
    if not free.any():
        return 1.0
    m, c = mean[free], cov[np.ix_(free, free)]
    if m.size == 1:
        return float(stats.norm.sf(0.0, loc=m[0], scale=np.sqrt(c[0, 0])))
    # Prob(X ≥ 0) = Prob(−X ≤ 0) with −X ~ N(−m, c)
    dist = stats.multivariate_normal(mean=-m, cov=c, allow_singular=True, maxpts=100_000 * m.size,
                                     abseps=1e-10, releps=1e-10)
    return float(np.clip(dist.cdf(np.zeros(m.size)), 0.0, 1.0))


@validate(results=RESULTS, precision=MEASURE, recall=MEASURE, alphas=Numbers(low=0, high=1, shortest=1, optional=True),
          average=Choices(("topics", "scores")), systems=SYSTEMS, missing=MISSING)
def f_alpha_curves(results: pd.DataFrame, precision: str, recall: str, *,
                   alphas: Sequence[float] | None = None, average: str = "topics",
                   systems: Sequence | None = None, missing: str = "error") -> pd.DataFrame:
    """F_α of every system for α over [0, 1] (Amigó et al., JAIR 2011, Figures 4 and 6): columns ``system, alpha,
    value``.

    ``average="topics"`` averages the per-topic F_α (as the WePS scorer does); ``"scores"`` takes F_α of the
    mean precision and mean recall. Either way a ≥∀ b on every topic implies F_α(a) ≥ F_α(b) for every α.
    """
    grid = np.linspace(0.0, 1.0, 21) if alphas is None else np.asarray(alphas, dtype=float)
    cube = score_cube(results, [precision, recall], systems=systems, missing=missing, min_topics=1)
    p, r = cube.values[..., 0], cube.values[..., 1]  # systems × topics
    if average == "topics":
        f = f_alpha(p[:, :, None], r[:, :, None], grid[None, None, :]).mean(axis=1)
    else:
        f = f_alpha(p.mean(axis=1)[:, None], r.mean(axis=1)[:, None], grid[None, :])
    return pd.DataFrame({
        "system": np.repeat(np.asarray(cube.systems, dtype=object), len(grid)),
        "alpha": np.tile(grid, len(cube.systems)),
        "value": f.ravel(),
    })
