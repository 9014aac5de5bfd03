"""Values analyses average away (issue 31, class 6): an infinite score (or one past ±1e150, whose squares overflow)
is refused where it enters any analysis, naming its system, topic and measure (Tukey's HSD reported "significant"
with a NaN interval); a NaN seed is refused by aggregate_folds (its mean skipped it and stood for the model); the
array-level functions take finite numbers only. NaN in tidy results stays what it was: a missing score, by the
``missing`` policy."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import analysis as an
from workbench.analysis import FoldsError, ResultsError
from workbench.analysis.curves import CurveError
from workbench.errors import ParameterError, WorkbenchError

SYSTEMS, TOPICS, MEASURES = ["A", "B", "C"], [1, 2, 3, 4], ["P", "R"]


def _results(rng: np.random.Generator) -> pd.DataFrame:
    rows = [(s, t, m, float(rng.uniform(0.1, 0.9))) for s in SYSTEMS for t in TOPICS for m in MEASURES]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


ANALYSES = {
    "tukey_hsd": lambda r: an.tukey_hsd(r, "P"),
    "significance t": lambda r: an.significance(r, ["P", "R"]),
    "significance wilcoxon": lambda r: an.significance(r, ["P"], test="wilcoxon"),
    "significance randomization": lambda r: an.significance(r, ["P"], test="randomization", n_resamples=50),
    "significance bootstrap": lambda r: an.significance(r, ["P"], test="bootstrap", n_resamples=50),
    "compare_report": lambda r: an.compare_report(r, ["P", "R"]),
    "uir": lambda r: an.uir(r, "A", "B", ["P", "R"]),
    "uir_matrix": lambda r: an.uir_matrix(r, ["P", "R"]),
    "unanimous_improvements": lambda r: an.unanimous_improvements(r, "A", "B", ["P", "R"]),
    "parametric_uir": lambda r: an.parametric_uir(r, "A", "B", ["P", "R"]),
    "reference_systems": lambda r: an.reference_systems(r, ["P", "R"]),
    "f_alpha_curves": lambda r: an.f_alpha_curves(r, "P", "R"),
    "win_tie_loss": lambda r: an.win_tie_loss(r, "P"),
    "topic_deltas": lambda r: an.topic_deltas(r, "A", "B", "P"),
    "ranking_agreement": lambda r: an.ranking_agreement(r, "P", "R"),
    "rank_gap_strictness": lambda r: an.rank_gap_strictness(r, ["P", "R"]),
    "top_n_strictness": lambda r: an.top_n_strictness(r, ["P", "R"]),
    "robustness": lambda r: an.robustness(r, ["P", "R"]),
    "aggregate_folds": lambda r: an.aggregate_folds(r.assign(fold=r["topic"]), by="fold", kind="folds"),
}


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(ANALYSES)), cell=st.integers(0, len(SYSTEMS) * len(TOPICS) * 2 - 1),
       value=st.sampled_from([np.inf, -np.inf, 1e200, -3e151, "inf"]), seed=st.integers(0, 3))
def test_an_infinite_score_is_refused_by_every_analysis_naming_where(name, cell, value, seed):
    results = _results(np.random.default_rng(seed)).astype({"value": object})
    system, topic, measure = results.loc[cell, ["system", "topic", "measure"]]
    results.loc[cell, "value"] = value
    used = {"tukey_hsd": ["P"], "significance wilcoxon": ["P"], "significance randomization": ["P"],
            "significance bootstrap": ["P"], "win_tie_loss": ["P"], "topic_deltas": ["P"]}.get(name, MEASURES)
    pair = {"uir", "unanimous_improvements", "parametric_uir", "topic_deltas"}
    if measure not in used or (name in pair and system == "C"):
        return  # a score the analysis does not read
    with pytest.raises((ResultsError, FoldsError)) as caught:
        ANALYSES[name](results)
    error = caught.value
    assert (error.system, error.topic, error.measure) == (system, topic, measure), str(error)
    assert "finite" in str(error) or "±1e+150" in str(error)


def test_tukey_refused_inf_where_it_said_significant():
    results = _results(np.random.default_rng(0))
    results.loc[0, "value"] = np.inf
    with pytest.raises(ResultsError, match=r"system 'A' on topic 1 for measure 'P' is inf"):
        an.tukey_hsd(results, "P")


def test_nan_stays_a_missing_score():
    results = _results(np.random.default_rng(0))
    results.loc[0, "value"] = np.nan
    with pytest.raises(ResultsError, match="is NaN; pass missing='intersection'"):
        an.tukey_hsd(results, "P")
    with pytest.warns(an.ResultsWarning, match="dropped 1 topic"):
        assert len(an.tukey_hsd(results, "P", missing="intersection")) == 3


@pytest.mark.parametrize("value", [np.nan, np.inf, "n/a"])
def test_a_seed_the_mean_would_skip_is_refused_naming_it(value):
    rows = [("m", t, "AP", s, 0.25 * s + t) for s in (1, 2, 3) for t in (1, 2)]
    results = pd.DataFrame(rows, columns=["system", "topic", "measure", "seed", "value"]).astype({"value": object})
    results.loc[3, "value"] = value  # topic 2 under seed 2
    for how in ("mean", "median"):
        with pytest.raises(FoldsError, match=r"system 'm', topic 2, measure 'AP' under seed 2 is") as caught:
            an.aggregate_folds(results, by="seed", how=how)
        assert (caught.value.system, caught.value.topic, caught.value.measure) == ("m", 2, "AP")


def test_a_fold_keeps_its_nan_as_a_missing_score():
    rows = [("m", t, "AP", t % 2, 0.5) for t in (1, 2, 3, 4)]
    results = pd.DataFrame(rows, columns=["system", "topic", "measure", "fold", "value"])
    results.loc[2, "value"] = np.nan
    assert an.aggregate_folds(results, by="fold")["value"].isna().sum() == 1


ARRAYS = {
    "kendall_tau_b": lambda v: an.kendall_tau_b(v, [1.0, 2.0, 3.0]),
    "adjust": lambda v: an.adjust(v, "holm"),
    "unanimous_relation": lambda v: an.unanimous_relation(v, [0.5, 0.5, 0.5]),
    "homogeneous_groups": lambda v: an.homogeneous_groups(["a", "b", "c"], v, pd.DataFrame(
        columns=["a", "b", "significant"])),
}


@settings(max_examples=80, deadline=None)
@given(name=st.sampled_from(sorted(ARRAYS)), at=st.integers(0, 2),
       bad=st.sampled_from([np.nan, np.inf, -np.inf, 1e300]))
def test_the_array_functions_take_finite_numbers(name, at, bad):
    values = np.array([0.1, 0.2, 0.3])
    values[at] = bad
    with pytest.raises(ParameterError, match=rf"\(element {at} is "):
        ARRAYS[name](values)


def test_p_values_are_probabilities_and_curves_finite():
    with pytest.raises(ParameterError, match=r"adjust: p_values must be finite numbers in \[0, 1\] \(element 1 is "
                                             r"1.5\)"):
        an.adjust([0.2, 1.5], "bonferroni")
    curves = pd.DataFrame({"system": ["A", "A"], "topic": ["1", "2"], "recall": [0.0, 0.0],
                           "precision": [0.5, np.nan]})
    with pytest.raises(CurveError, match=r"system 'A', topic '2', recall 0.0: precision nan"):
        an.curve_summary(curves)
    with warnings.catch_warnings(), pytest.raises(WorkbenchError, match=r"alphas must be finite numbers in \[0, 1\]"):
        an.f_alpha_curves(_results(np.random.default_rng(0)), "P", "R", alphas=[0.5, np.nan])
