"""Plain-loop transcriptions of the methods that judge measures, written from the papers' definitions and not from
``workbench.analysis.meta``: one system pair, one topic set, one bootstrap sample at a time, Python sums and
``sorted``. They draw the topic sets from the same seed with the same documented numpy calls (one index matrix, drawn
up front), so that the vectorised methods must give the same numbers: counts and rates exactly, differences to the
last digits.

- Buckley, C. and Voorhees, E. M.: Evaluating Evaluation Measure Stability, SIGIR 2000 (stability method);
- Voorhees, E. M. and Buckley, C.: The Effect of Topic Set Size on Retrieval Experiment Error, SIGIR 2002 (swap);
- Sakai, T.: Evaluating Evaluation Metrics based on the Bootstrap, SIGIR 2006 (Figures 2 and 4: ASL, difference);
- Sakai, T.: Topic set size design, Information Retrieval Journal 19(3), 2016 (variance estimates).

Scores are ``{system: [score per topic]}``, higher is better, in the order systems are paired.
"""

from __future__ import annotations

import math

import numpy as np

TOLERANCE = 1e-12  # two means closer than this × max(1, largest |score|) are equal (a tie in exact arithmetic)
EDGE_SLACK = 1e-9  # |d| / w is moved up by this much before its bin is taken (an edge in exact arithmetic)
SPREAD = 1e-6  # a standard deviation below this × the pair's largest |difference| is none


# ------------------------------------------------------------------------------------------ the draws
def bootstrap_sets(n: int, samples: int, size: int, sets: int, seed: int) -> list[list[list[int]]]:
    """``rng.integers(0, n, size=(samples, sets, size))`` as nested lists."""
    return np.random.default_rng(seed).integers(0, n, size=(samples, sets, size)).tolist()


def subsets(n: int, samples: int, size: int, sets: int, seed: int) -> list[list[list[int]]]:
    """``keys = rng.random((samples, n))``; each sample's topics sorted by key, cut into ``sets`` sets of ``size``."""
    keys = np.random.default_rng(seed).random((samples, n)).tolist()
    drawn = []
    for row in keys:
        order = sorted(range(n), key=lambda t: row[t])
        drawn.append([order[j * size:(j + 1) * size] for j in range(sets)])
    return drawn


def _mean(values: list[float]) -> float:
    total = 0.0
    for v in values:
        total += v
    return total / len(values)


def _sd(values: list[float]) -> float:
    m = _mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def _scale(scores: dict[str, list[float]]) -> float:
    return max([1.0] + [abs(v) for row in scores.values() for v in row])


def _pairs(systems: list[str]):
    for i in range(len(systems)):
        for j in range(i + 1, len(systems)):
            yield systems[i], systems[j]


# ------------------------------------------------------------------------------------------ stability
def stability(scores: dict[str, list[float]], topic_sets: list[list[int]], fuzziness: float) -> tuple[float, float]:
    """Buckley and Voorhees: for each pair and topic set, a tie when the means differ by at most ``fuzziness`` of
    the larger; minority rate = Σ min(GT(X,Y), GT(Y,X)) / comparisons, proportion of ties = Σ EQ / comparisons."""
    tolerance = TOLERANCE * _scale(scores)
    minority = ties = comparisons = 0
    for x, y in _pairs(list(scores)):
        x_wins = y_wins = equal = 0
        for topics in topic_sets:
            mx = _mean([scores[x][t] for t in topics])
            my = _mean([scores[y][t] for t in topics])
            if abs(mx - my) <= fuzziness * max(abs(mx), abs(my)) + tolerance:
                equal += 1
            elif mx > my:
                x_wins += 1
            else:
                y_wins += 1
        minority += min(x_wins, y_wins)
        ties += equal
        comparisons += len(topic_sets)
    return minority / comparisons, ties / comparisons


# ------------------------------------------------------------------------------------------ swap
def swap(scores: dict[str, list[float]], trials: list[list[list[int]]], width: float, bins: int):
    """Voorhees and Buckley: per trial (Q, Q′) and pair, d on Q, d′ on Q′; the observation goes to the bin of |d|
    (the last bin open), and swaps when d and d′ have strictly opposite signs; d = 0 is a tie, in no bin. Returns
    {bin: [observations, swaps]} and the number of ties."""
    tolerance = TOLERANCE * _scale(scores)
    table = {i: [0, 0] for i in range(bins + 1)}
    zero = 0
    for q, q2 in trials:
        for x, y in _pairs(list(scores)):
            d = _mean([scores[x][t] for t in q]) - _mean([scores[y][t] for t in q])
            d2 = _mean([scores[x][t] for t in q2]) - _mean([scores[y][t] for t in q2])
            positive, negative = d > tolerance, d < -tolerance
            if not positive and not negative:
                zero += 1
                continue
            where = min(bins, math.floor(abs(d) / width + EDGE_SLACK))
            table[where][0] += 1
            if (positive and d2 < -tolerance) or (negative and d2 > tolerance):
                table[where][1] += 1
    return table, zero


def difference_required(table: dict[int, list[int]], zero: int, width: float, alpha: float, rule: str):
    """The bin's lower edge and the sensitivity: ``first``, the lowest non-empty bin with swap rate ≤ α; ``stays``,
    the lowest non-empty bin after the last one above α."""
    order = sorted(table)
    filled = [i for i in order if table[i][0] > 0]
    if rule == "first":
        passing = [i for i in filled if table[i][1] / table[i][0] <= alpha]
        start = passing[0] if passing else None
    else:
        failing = [i for i in filled if table[i][1] / table[i][0] > alpha]
        later = [i for i in filled if not failing or i > failing[-1]]
        start = later[0] if later else None
    total = sum(table[i][0] for i in order) + zero
    if start is None:
        return float("nan"), 0.0
    reached = sum(table[i][0] for i in order if i >= start)
    return round(start * width, 12), reached / total


# ------------------------------------------------------------------------------------------ bootstrap
def _t(values: list[float], tiny: float) -> float:
    n = len(values)
    m, s = _mean(values), _sd(values)
    if s <= tiny:
        return 0.0 if abs(m) <= tiny else math.copysign(math.inf, m)
    return m / (s / math.sqrt(n))


def bootstrap(x: list[float], y: list[float], samples: list[list[int]], alpha: float) -> tuple[float, float, float]:
    """Sakai's paired bootstrap test of one pair: (t(z), ASL, difference required). ASL = #{|t(w*)| ≥ |t(z)|} / B
    with w = z − z̄; the difference is |w̄*| of the sample with the (B·α)-th largest |t(w*)| (ties in sample order)."""
    z = [a - b for a, b in zip(x, y, strict=True)]
    t = _t(z, SPREAD * max(abs(v) for v in z))
    z_mean = _mean(z)
    w = [v - z_mean for v in z]
    tiny = SPREAD * max(abs(v) for v in z)
    limit = math.inf if math.isinf(t) else abs(t) - 1e-12 * max(1.0, abs(t))
    hits = 0
    found = []
    for b, sample in enumerate(samples):
        resample = [w[i] for i in sample]
        t_star = abs(_t(resample, tiny))
        if t_star >= limit:
            hits += 1
        found.append((t_star, b, abs(_mean(resample))))
    k = max(1, math.floor(len(samples) * alpha + 1e-9))
    ranked = sorted(found, key=lambda item: (-float(np.round(item[0], 9)), item[1]))  # |t*| to 9 decimals, then b
    return t, hits / len(samples), ranked[k - 1][2]


# ------------------------------------------------------------------------------------------ variance
def residual_variance(scores: dict[str, list[float]]) -> float:
    """V_E of a two-way ANOVA without replication (systems × topics)."""
    systems = list(scores)
    m, n = len(systems), len(scores[systems[0]])
    grand = sum(sum(row) for row in scores.values()) / (m * n)
    row_mean = {s: sum(scores[s]) / n for s in systems}
    column_mean = [sum(scores[s][t] for s in systems) / m for t in range(n)]
    total = 0.0
    for s in systems:
        for t in range(n):
            total += (scores[s][t] - row_mean[s] - column_mean[t] + grand) ** 2
    return total / ((m - 1) * (n - 1))


def within_variance(scores: dict[str, list[float]]) -> float:
    """The pooled within-system variance of a one-way ANOVA."""
    systems = list(scores)
    n = len(scores[systems[0]])
    total = 0.0
    for s in systems:
        mean = sum(scores[s]) / n
        total += sum((v - mean) ** 2 for v in scores[s])
    return total / (len(systems) * (n - 1))


def pair_variance(scores: dict[str, list[float]]) -> float:
    """The mean over system pairs of the variance of their per-topic differences."""
    found = [_sd([a - b for a, b in zip(scores[x], scores[y], strict=True)]) ** 2 for x, y in _pairs(list(scores))]
    return sum(found) / len(found)
