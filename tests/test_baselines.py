"""Random baselines of Mehlitz et al.: Tables I–II, Fig. 2, brute force and scipy cross-checks."""

import itertools
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import hypergeom

from workbench import evaluate
from workbench.errors import ParameterError
from workbench.metrics.baselines import (
    BaselineInputError,
    absolute_effectiveness,
    absolute_precision,
    absolute_recall,
    effectiveness,
    expected_best_of,
    expected_relevant,
)
from workbench.metrics.registry import parse
from workbench.model import Organization

# Table I of Mehlitz et al.: scenario -> (n retrieved, g relevant, c clusters, d average size), and Table II's
# expected number of relevant documents, reported effectiveness (β = 1) and absolute effectiveness (β = 1).
TABLE_I = {1: (100, 16, 50, 12), 2: (200, 24, 100, 17), 3: (350, 31, 175, 21), 4: (500, 37, 250, 24),
           5: (750, 43, 375, 28), 6: (1000, 47, 500, 31)}
TABLE_II = {1: (4.85, 0.692, 1.038), 2: (5.47, 0.67, 0.943), 3: (5.85, 0.671, 0.896), 4: (5.99, 0.668, 0.864),
            5: (5.98, 0.667, 0.835), 6: (5.88, 0.676, 0.827)}


@pytest.mark.parametrize("scenario", [1, 3, 4, 5, 6])
def test_table2_expected_relevant(scenario):
    """Table II, "expected number of relevant documents", to its 2 decimals."""
    n, g, c, d = TABLE_I[scenario]
    assert round(float(expected_best_of(n, g, d, c)), 2) == TABLE_II[scenario][0]


def test_table2_scenario2_typo():
    """Scenario 2: Table I prints size 17, which gives 5.67; Table II's 5.47 is what size 16 gives (and its
    absolute effectiveness 0.943 also needs 16), so Table I's 17 is a typo for 16."""
    n, g, c, d = TABLE_I[2]
    assert round(float(expected_best_of(n, g, d, c)), 2) == 5.67
    assert round(float(expected_best_of(n, g, 16, c)), 2) == 5.47


@pytest.mark.parametrize("scenario", [1, 2, 3, 4, 5, 6])
def test_table2_absolute_effectiveness(scenario):
    """Table II's last column from its reported E (β = 1): F = 1 − E = 2·g_ret / (d + g) gives g_ret; then
    E_abs = E(P_abs, R_abs) with r = d (scenario 2 with d = 16, see the typo test), to 3 decimals."""
    n, g, c, d = TABLE_I[scenario]
    d = 16 if scenario == 2 else d
    _, reported, expected = TABLE_II[scenario]
    g_ret = (1 - reported) * (d + g) / 2
    e_abs = absolute_effectiveness(g_ret, expected_best_of(n, g, d, c), d, g)
    assert e_abs == pytest.approx(expected, abs=6e-4)


def test_figure2_best_of_five():
    """Fig. 2 / §III-C: 100 documents, 10 relevant, clusters of 10: one draw expects 1.0, the best of 5
    expects 2.0866, more than twice as many."""
    assert expected_best_of(100, 10, 10, 1) == 1
    assert float(expected_best_of(100, 10, 10, 5)) == pytest.approx(2.0866, abs=5e-5)
    assert expected_best_of(100, 10, 10, 5) > 2 * expected_relevant(100, 10, 10)


def test_large_collection_is_exact():
    """n = 1000 with c = 2000 clusters: exact big-integer arithmetic, no overflow, a finite float."""
    value = expected_best_of(1000, 47, 31, 2000)
    assert isinstance(value, Fraction)
    assert 5.88 < float(value) <= 31


def _brute_force(n, g, d, c):
    """Mean maximum number of relevant documents over every c-tuple of d-subsets (eq. 11 by definition)."""
    relevant = set(range(g))
    draws = list(itertools.combinations(range(n), d))
    total = sum(max(len(relevant.intersection(s)) for s in tup) for tup in itertools.product(draws, repeat=c))
    return Fraction(total, len(draws) ** c)


@pytest.mark.parametrize(("n", "g", "d", "c"), [(5, 2, 2, 1), (5, 2, 2, 2), (6, 3, 2, 3), (6, 1, 3, 2),
                                                (4, 4, 2, 2), (5, 0, 2, 2), (6, 3, 0, 2)])
def test_best_of_equals_brute_force(n, g, d, c):
    assert expected_best_of(n, g, d, c) == _brute_force(n, g, d, c)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 60).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n))),
       st.integers(1, 30))
def test_best_of_properties(ngd, c):
    """μ_all(d, 1) = μ(d) = hypergeometric mean (eq. 5, and scipy); μ_all grows with c and stays ≤ min(d, g);
    it equals Σ_i (1 − F(i − 1)^c) with scipy's hypergeometric CDF F."""
    n, g, d = ngd
    mean = Fraction(sum(i * comb(g, i) * comb(n - g, d - i) for i in range(d + 1)), comb(n, d))
    assert expected_relevant(n, g, d) == mean == expected_best_of(n, g, d, 1)
    pmf = hypergeom(n, g, d).pmf(range(d + 1))
    assert float(mean) == pytest.approx(sum(i * p for i, p in enumerate(pmf)), abs=1e-9)
    best = expected_best_of(n, g, d, c)
    assert mean <= best <= expected_best_of(n, g, d, c + 1) <= min(d, g)
    cdf = hypergeom(n, g, d).cdf
    assert float(best) == pytest.approx(sum(1 - cdf(i - 1) ** c for i in range(1, d + 1)), abs=1e-9)


def test_effectiveness_and_absolute_measures():
    """E = 1 − F_β (eq. 3): E(1, 1) = 0, E(0, 0) = 1, E(0.5, 0.25) = 1 − 2·0.125/0.75 at β = 1;
    β = 2 weighs recall: 1 − 5·0.5·0.25 / (4·0.5 + 0.25). Absolute values by eqs. 12–14."""
    assert effectiveness(1, 1) == 0
    assert effectiveness(0, 0) == 1
    assert effectiveness(0.5, 0.25) == pytest.approx(1 - 0.25 / 0.75)
    assert effectiveness(0.5, 0.25, beta=2) == pytest.approx(1 - 5 * 0.125 / 2.25)
    assert absolute_precision(5, Fraction(3, 2), 10) == 0.35
    assert absolute_recall(5, 1.5, 7) == 0.5
    assert absolute_effectiveness(1, 2, 10, 5) > 1  # random retrieval beats the system


def test_registered_measures_single_draw():
    """Filtering gold (10 documents, 4 relevant); the output retrieves 5, 3 of them relevant:
    g_exp = 4·5/10 = 2, P_abs = (3 − 2)/5, R_abs = (3 − 2)/4, E_abs = 1 − 2·0.2·0.25/0.45."""
    gold = Organization.from_filtering(["r1", "r2", "r3", "r4"], [f"n{i}" for i in range(6)])
    output = Organization.from_filtering(["r1", "r2", "r3", "n0", "n1"], ["r4", "n2", "n3", "n4", "n5"])
    got = evaluate(gold, output, ["P_abs", "R_abs", "E_abs"])
    assert got == pytest.approx({"P_abs": 0.2, "R_abs": 0.25, "E_abs": 1 - 2 * 0.2 * 0.25 / 0.45})
    assert parse("E_abs(beta=2.0, search=optimal)").params == {"beta": 2.0, "search": "optimal", "n": None}


def test_registered_measures_optimal_cluster_search():
    """Clustering of 8 documents (3 relevant) into 4 clusters of 2: the best cluster {r1 r2} has E = 1 − 0.8;
    g_exp = μ_all(d = 2, c = 4) over n = 8, g = 3."""
    gold = Organization.from_filtering(["r1", "r2", "r3"], ["n1", "n2", "n3", "n4", "n5"])
    output = Organization.from_clustering([["r1", "r2"], ["r3", "n1"], ["n2", "n3"], ["n4", "n5"]])
    g_exp = float(expected_best_of(8, 3, 2, 4))
    got = evaluate(gold, output, ["P_abs(search=optimal)", "R_abs(search=optimal)"])
    assert got == pytest.approx({"P_abs(search=optimal)": (2 - g_exp) / 2,
                                 "R_abs(search=optimal)": (2 - g_exp) / 3})


def test_work_beyond_the_bound_is_refused_before_it_starts():
    """c = 10^9 or n = d/2 = 10^7 would take integers of ~10^12 or ~10^7 bits: refused at once, naming the
    counts; the largest accepted inputs answer (n = 1000, g = 100, d = 500, c = 1000 takes ~3 CPU-s:
    tests/durations.json marks it slow), and the steps outside the hypergeometric support are not taken (d = n − 1
    of n = 10^7, one step)."""
    with pytest.raises(BaselineInputError, match=r"^the best of c = 1000000000 clusters of d = 500 documents from "
                                                 r"n = 1000 takes exact integers of about 995,000,000,000 bits"):
        expected_best_of(1000, 100, 500, 10**9)
    with pytest.raises(BaselineInputError, match=r"n = 10000000 takes exact integers of about 9,999,988 bits over 10 "):
        expected_best_of(10**7, 10, 5 * 10**6, 1)
    with pytest.raises(BaselineInputError, match=r"995,000 bits over 500 steps"):  # bits × steps > MAX_WORK
        expected_best_of(1000, 500, 500, 1000)
    with pytest.raises(ParameterError, match=r"^expected_best_of: n must be an integer in \[0, 9,007,199,254,740,99"):
        expected_best_of(2**60, 10, 5, 1)
    assert expected_best_of(10**7, 10**7 - 1, 10**7 - 1, 1) == Fraction(10**7 - 1) * (10**7 - 1) / 10**7
    n, g, d = 10**9, 10, 5  # a large collection, few steps: Σ_i (1 − F(i − 1)^c), F the exact hypergeometric CDF
    cdf = [Fraction(sum(comb(g, j) * comb(n - g, d - j) for j in range(k + 1)), comb(n, d)) for k in range(d)]
    assert expected_best_of(n, g, d, 1000) == sum(1 - cdf[i - 1] ** 1000 for i in range(1, d + 1))


def test_the_largest_accepted_input_answers():
    """n = 1000, g = 100, d = 500, c = 1000: bits × steps = 995,000 × 100, just under MAX_WORK (~3 CPU-s)."""
    assert 65.27 < float(expected_best_of(1000, 100, 500, 1000)) < 65.28


def test_bad_input():
    with pytest.raises(BaselineInputError, match="g = 5"):
        expected_best_of(4, 5, 1, 1)
    with pytest.raises(ParameterError, match=r"^expected_relevant: g must be an integer ≥ 0, got -1"):
        expected_relevant(10, -1, 2)
    with pytest.raises(ParameterError, match=r"^expected_best_of: c must be an integer ≥ 1, got 0"):
        expected_best_of(10, 2, 2, 0)
    with pytest.raises(BaselineInputError, match="cannot draw"):
        expected_relevant(3, 1, 4)
    ranking_gold = Organization.from_graded({"a": 1})
    with pytest.raises(BaselineInputError, match="collection size n"):
        evaluate(ranking_gold, Organization.from_ranking(["a"]), ["P_abs"])
    assert evaluate(ranking_gold, Organization.from_ranking(["a", "b"]), ["P_abs(n=4)"]) == {
        "P_abs(n=4)": pytest.approx((1 - 0.5) / 2)}
    with pytest.raises(BaselineInputError, match="no relevant"):
        evaluate(Organization.from_filtering([], ["a"]), Organization.from_filtering(["a"], []), ["P_abs"])
