"""Every measure says whether higher or lower is better, and the analyses read it from the registry: an
error rate (Lam%) scored as is gives the verdicts its quality form (1 − Lam%, a name of the user's own, hence
higher-is-better) gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench import measures
from workbench.analysis import (
    check_constraints,
    rank_gap_strictness,
    significance,
    top_n_strictness,
    uir,
    uir_matrix,
    unanimous_improvements,
)
from workbench.metrics.filtering import contingency, lam
from workbench.metrics.registry import DIRECTIONS, direction


def test_every_measure_has_a_direction_and_error_rates_are_lower_is_better():
    table = measures().set_index("name")
    assert set(table["direction"]) <= set(DIRECTIONS)
    lower = set(table.index[table["direction"] == "lower"])
    # error rates, the variation-of-information distance, the unjudged share and RBP residual (uncertainty), and
    # the errors of soft labels (cross entropy, mean absolute error), and the disorder of a clustering (EvALL's
    # Entropy and Class Entropy, issue 43)
    assert lower == {"Lam%", "E_abs", "VI", "Unjudged@k", "RBPResid", "CrossEntropy", "MAE", "Entropy", "ClassEntropy"}
    assert direction("Lam%(smoothing=laplace)") == "lower" and direction("AP@10") == "higher"
    assert direction("a column of my own") == "higher"


def results(error_rate: str) -> pd.DataFrame:
    """Three systems on eight topics: Accuracy and an error rate, A best on both, C worst."""
    rng = np.random.default_rng(7)
    rows = []
    for t in range(8):
        base = rng.uniform(0.2, 0.5)
        for s, shift in (("A", 0.3), ("B", 0.15), ("C", 0.0)):
            accuracy = base + shift + rng.uniform(0, 0.05)
            error = 1 - base - shift - rng.uniform(0, 0.05)
            rows += [(s, t, "Accuracy", accuracy),
                     (s, t, error_rate, error if error_rate == "Lam%" else 1 - error)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def test_uir_reads_lower_is_better_from_the_registry():
    as_error, as_quality = results("Lam%"), results("1 - Lam%")
    assert uir(as_error, "A", "C", ["Accuracy", "Lam%"]) == 1.0
    pd.testing.assert_frame_equal(uir_matrix(as_error, ["Accuracy", "Lam%"]),
                                  uir_matrix(as_quality, ["Accuracy", "1 - Lam%"]))
    relations = unanimous_improvements(as_error, "A", "B", ["Accuracy", "Lam%"])["relation"]
    assert set(relations) == {">∀"}


def test_strictness_ranks_by_direction():
    as_error, as_quality = results("Lam%"), results("1 - Lam%")
    for analysis in (rank_gap_strictness, top_n_strictness):
        error_table = analysis(as_error, ["Lam%"], against=["Accuracy"])
        quality_table = analysis(as_quality, ["1 - Lam%"], against=["Accuracy"])
        assert error_table["strictness"].tolist() == pytest.approx(quality_table["strictness"].tolist())


def test_significance_names_the_better_system_by_direction():
    table = significance(results("Lam%"), ["Accuracy", "Lam%"]).set_index(["measure", "system_a", "system_b"])
    assert table.loc[("Lam%", "A", "C"), "difference"] < 0  # A's error rate is lower ...
    assert table.loc[("Lam%", "A", "C"), "better"] == "A"  # ... so A is better
    assert table.loc[("Accuracy", "B", "C"), "better"] == "B"


def test_constraint_checker_takes_the_direction_of_a_registered_measure():
    def lam_on_organizations(gold, output):
        return lam(contingency(gold, output))

    registered = check_constraints("Lam%", "filtering", random_cases=10)
    by_hand = check_constraints(lam_on_organizations, "filtering", random_cases=10, lower_is_better=True)
    wrong_way = check_constraints("Lam%", "filtering", random_cases=10, lower_is_better=False)
    assert registered[["satisfied", "counterexample"]].equals(by_hand[["satisfied", "counterexample"]]
                                                             .replace("lam_on_organizations", "Lam%", regex=True))
    assert not registered[["satisfied", "counterexample"]].equals(wrong_way[["satisfied", "counterexample"]])
