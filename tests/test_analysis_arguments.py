"""The analyses and charts at the one boundary (issue 38): the audit's cases of a statistic that returned a number for
input it cannot handle (a NaN difference counted as a loss, vectors of different lengths, orderings of different
items), each refused with the validator's one error shape (function, parameter, value), and the bounds that keep an
argument from allocating without limit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.analysis import (
    adjust,
    compare_report,
    homogeneous_groups,
    kendall_tau_b,
    precision_recall,
    ranking_agreement,
    robustness,
    sign_test,
    significance,
    tau_ap,
    tukey_hsd,
    unanimous_relation,
)
from workbench.charts import save_chart, scores_chart
from workbench.data import Campaign
from workbench.errors import ParameterError, ParameterTypeError
from workbench.metrics.combine import f_alpha
from workbench.model import Organization


def tidy(means: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One topic per system and measure: ``means[system][measure]``."""
    return pd.DataFrame([(s, 1, m, v) for s, values in means.items() for m, v in values.items()],
                        columns=["system", "topic", "measure", "value"])


def refused(call, function: str, parameter: str, message: str, kind=ParameterError) -> ParameterError:
    with pytest.raises(kind, match=message) as caught:
        call()
    assert (caught.value.function, caught.value.parameter) == (function, parameter)
    assert str(caught.value).startswith(f"{function}: {parameter} ")
    return caught.value


# ------------------------------------------------------------------------------------------------ the audit
def test_a_nan_difference_is_refused_by_the_sign_test_naming_it():
    # NaN > 0 is False and NaN != 0 is True: it counted as a topic the second system won
    refused(lambda: sign_test([[0.1, 0.2], [0.3, math.nan]]), "sign_test", "d", r"\(element \(1, 1\) is nan\)")
    refused(lambda: sign_test([0.1, -0.2]), "sign_test", "d", "must be a 2-dimensional array")
    assert sign_test([[0.1, 0.2, -0.1, 0.3, 0.0]])[1].tolist() == [0.625]


def test_kendall_tau_b_refuses_vectors_of_different_lengths_naming_both():
    # it compared x with a prefix of a longer y (and a shorter y raised an IndexError)
    refused(lambda: kendall_tau_b([0.1, 0.2], [0.3, 0.2, 0.1]), "kendall_tau_b", "y",
            r"y must hold as many entries as x \(2\), not 3")
    refused(lambda: kendall_tau_b([0.1, 0.2, 0.3], [0.3, 0.2]), "kendall_tau_b", "y",
            r"y must hold as many entries as x \(3\), not 2")
    refused(lambda: kendall_tau_b([0.1, math.inf], [0.3, 0.2]), "kendall_tau_b", "x", r"\(element 1 is inf\)")


@pytest.mark.parametrize(("reference", "other", "parameter", "message"), [
    (["A", "B", "A"], ["A", "B", "A"], "reference", r"distinct items \('A' twice\)"),
    (["A", "B", "C"], ["A", "B", "B"], "other", r"distinct items \('B' twice\)"),
    (["A", "B", "C"], ["A", "B", "D"], "other", r"must order the items of reference \('D' is not one of them\)"),
    (["A", "B", "C"], ["A", "B"], "other", r"must order the items of reference \('C' is missing\)"),
    ([1, 2], ["1", "2"], "other", r"must order the items of reference \('[12]' is not one of them\)"),
    (["A"], ["A"], "reference", "two or more"),
    ({"A", "B"}, ["A", "B"], "reference", "an ordering"),
    ("AB", "AB", "reference", "an ordering"),
])
def test_tau_ap_takes_two_orderings_of_the_same_distinct_items(reference, other, parameter, message):
    # repeated items and different sets gave a number (or a KeyError: 1 and "1" looked alike as text)
    refused(lambda: tau_ap(reference, other), "tau_ap", parameter, message)


def test_tau_ap_breaks_ties_by_the_systems_order_worked_by_hand():
    # AP ties A and B (order A, B, C); P@10 orders B, A, C. τ_ap of (B, A, C) against (A, B, C):
    # C(2) = 0 (a puts B below A), C(3) = 2, so 2/(3 − 1) · (0/1 + 2/2) − 1 = 0; the other way round the same.
    # τ-b leaves the tied pair out: C = 2, D = 0, n0 − n1 = 2, n0 − n2 = 3, τ-b = 2/√6.
    found = ranking_agreement(tidy({"A": {"AP": 0.5, "P@10": 0.4}, "B": {"AP": 0.5, "P@10": 0.5},
                                    "C": {"AP": 0.1, "P@10": 0.1}}), "AP", "P@10")
    assert (found.tau_ap, found.tau_ap_ba) == (0.0, 0.0)
    assert found.tau == pytest.approx(2 / math.sqrt(6), abs=1e-15)
    assert found.rankings["rank AP"].tolist() == [1, 2, 3] and found.swaps.empty  # a tie is no swap for τ-b
    # the tie broken the other way (the systems listed B, A, C) makes the orders agree
    again = ranking_agreement(tidy({"A": {"AP": 0.5, "P@10": 0.4}, "B": {"AP": 0.5, "P@10": 0.5},
                                    "C": {"AP": 0.1, "P@10": 0.1}}), "AP", "P@10", systems=["B", "A", "C"])
    assert (again.tau_ap, again.tau) == (1.0, found.tau)


def test_p_values_outside_zero_one_are_refused():
    refused(lambda: adjust([0.2, -0.1], "holm"), "adjust", "p_values", r"in \[0, 1\] \(element 1 is -0.1\)")
    refused(lambda: adjust([0.2], "fdr"), "adjust", "correction", "must be one of holm, bonferroni, none")


def test_unanimous_relation_and_homogeneous_groups_refuse_what_they_cannot_compare():
    refused(lambda: unanimous_relation([0.5, 0.5], [0.5, 0.5, 0.1]), "unanimous_relation", "b",
            r"as many entries as a \(2\), not 3")
    pairs = pd.DataFrame({"a": ["A"], "b": ["B"], "significant": [True]})
    refused(lambda: homogeneous_groups(["A", "B"], [0.3, 0.2, 0.1], pairs), "homogeneous_groups", "oriented_means",
            r"as many entries as systems \(2\), not 3")
    assert homogeneous_groups(["A", "B"], [0.2, 0.3], pairs) == [["B"], ["A"]]


def test_f_alpha_takes_scores_and_weights_elementwise():
    assert f_alpha([0.4, math.nan], [0.8, 0.8], 0.5).tolist()[0] == pytest.approx(0.8 / 1.5)
    assert math.isnan(f_alpha(math.nan, 0.5))  # an undefined component stays undefined
    refused(lambda: f_alpha(0.5, 0.5, [[0.5, 1.5]]), "f_alpha", "alpha", r"in \[0, 1\] \(element \(0, 1\) is 1.5\)")
    refused(lambda: f_alpha([0.5, -0.5], 0.5), "f_alpha", "a", r"≥ 0, NaN where undefined \(element 1 is -0.5\)")
    refused(lambda: f_alpha(math.inf, 0.5), "f_alpha", "a", "≥ 0")
    refused(lambda: f_alpha(0.5, "high"), "f_alpha", "b", "must be a number or an array", ParameterTypeError)


# ------------------------------------------------------------------------------------------------ bounds
def results() -> pd.DataFrame:
    rows = [(s, t, "AP", v) for s, values in {"A": [0.3, 0.5, 0.4], "B": [0.2, 0.3, 0.35]}.items()
            for t, v in enumerate(values)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


@pytest.mark.parametrize(("call", "function", "parameter", "message"), [
    (lambda: significance(results(), ["AP"], test="bootstrap", n_resamples=10**8), "significance", "n_resamples",
     r"an integer in \[1, 10,000,000\]"),
    (lambda: compare_report(results(), n_resamples=0), "compare_report", "n_resamples", "an integer in"),
    (lambda: compare_report(results(), digits=10**9), "compare_report", "digits", r"an integer in \[0, 17\]"),
    (lambda: significance(results(), "AP"), "significance", "measures", "a list of measure names"),
    (lambda: significance(results(), ["AP"], systems=["A", None]), "significance", "systems",
     r"item 1 must be a system's name \(a string or an integer\), got \['A', None\]"),
    (lambda: tukey_hsd(results(), "AP", design="two-way"), "tukey_hsd", "design", "one of one-way, blocked"),
    (lambda: robustness(results(), pairs=0), "robustness", "pairs", r"an integer ≥ 1"),
    (lambda: scores_chart(pd.DataFrame({"output": ["o"], "measure": ["m"], "value": [1.0]}), height=10**9),
     "scores_chart", "height", r"an integer in \[1, 10,000\]"),
])
def test_arguments_are_refused_before_the_analysis_runs(call, function, parameter, message):
    refused(call, function, parameter, message)


def test_save_chart_bounds_the_pixels_it_allocates(tmp_path):
    chart = scores_chart(pd.DataFrame({"output": ["o"], "measure": ["m"], "value": [1.0]}))
    refused(lambda: save_chart(chart, tmp_path / "big.png", scale_factor=1e6), "save_chart", "scale_factor",
            r"in \(0, 10\]")
    assert not (tmp_path / "big.png").exists()


def test_precision_recall_takes_its_levels_as_an_array():
    # `points == 11` compared an array element by element and raised numpy's ambiguous truth value
    campaign = Campaign({"q1": Organization.from_graded({"d1": 1, "d2": 1})},
                        {"A": {"q1": Organization.from_ranking(["d1", "d9", "d2"])}})
    assert precision_recall(campaign, points=np.array([0.5, 1.0]))["precision"].round(4).tolist() == [1.0, 0.6667]
