"""Campaign.explain and analysis.topic_deltas: a campaign's per-topic scores explained through the gain table it
scores (the rows add up to Campaign.evaluate's values), the per-topic differences of two systems with the paired
test beside them, and the named errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from tests.conftest import shared_dataset
from tests.measure_instances import CLAMPED, INSTANCES
from workbench.analysis import ResultsError, significance, topic_deltas
from workbench.data.explain import UnknownSystemError, UnknownTopicError
from workbench.metrics import registry
from workbench.metrics.ranking import is_table_measure
from workbench.metrics.ranking.declare import is_diversity_measure

RANKING = [name for names in INSTANCES.values() for name in names if registry.parse(name).spec.task == "ranking"]


@st.composite
def campaigns(draw):
    """qrels with grades −1..3 (−1: pooled but unjudged), two runs with tied scores, a topic one run lacks and a
    topic without relevant documents."""
    topics = ["q1", "q2", "q3"]
    docs = [f"d{i}" for i in range(8)]
    qrels = {t: {d: draw(st.integers(-1, 3)) for d in draw(st.lists(st.sampled_from(docs), unique=True,
                                                                     min_size=1, max_size=6))} for t in topics}
    runs = {}
    for system in ("A", "B"):
        runs[system] = {}
        for t in topics:
            if system == "B" and t == "q3" and draw(st.booleans()):
                continue  # a topic the run lacks
            ranked = draw(st.lists(st.sampled_from(docs + ["u1", "u2"]), unique=True, max_size=8))
            runs[system][t] = {d: float(draw(st.integers(0, 3))) for d in ranked}
    return wb.Campaign.from_dicts(qrels, runs)


def per_topic(results: pd.DataFrame) -> pd.Series:
    return results.set_index("topic")["value"]


@pytest.mark.filterwarnings(CLAMPED)
@pytest.mark.parametrize("name", RANKING)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(campaign=campaigns())
def test_a_whole_run_explained_adds_up_to_the_campaigns_values(campaign, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = campaign.evaluate(name, progress=False)
    for system in campaign.runs:
        expected = per_topic(results[results.system == system])
        e = campaign.explain(system, None, name)
        assert np.allclose(e.scores.reindex(expected.index).to_numpy(), expected.to_numpy(), rtol=0, atol=0,
                           equal_nan=True)
        if e.is_sum:
            sums = e.contributions.groupby("topic", observed=False)["contribution"].sum(min_count=0)
            undefined = e.contributions.groupby("topic", observed=False)["contribution"].apply(
                lambda c: c.isna().any())
            for topic, value in expected.items():
                if math.isnan(value):
                    assert undefined[topic]
                else:
                    assert sums[topic] == pytest.approx(value, abs=1e-12), (system, topic, name)
        for topic, value in expected.items():  # one topic: the same rows and score as in the whole run
            one = campaign.explain(system, topic, name)  # its own one-row table: equal up to the kernel's rounding
            assert one.score == pytest.approx(value, abs=1e-12, nan_ok=True)
            whole = e.contributions[e.contributions.topic == topic].reset_index(drop=True)
            pd.testing.assert_frame_equal(one.contributions.astype({"topic": str}), whole.astype({"topic": str}),
                                          check_dtype=False)


def test_array_backed_and_organization_campaigns_explain_alike():
    qrels = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}, "q2": {"x": 1}}
    runs = {"S": {"q1": {"c": 3.0, "a": 2.0, "u": 1.0}, "q2": {"y": 1.0}}}
    arrays = wb.Campaign.from_dicts(qrels, runs)
    organized = wb.Campaign(
        {t: wb.Organization(tuple((frozenset([d]),) for d in sorted((d for d in g if g[d] > 0),
                                                                     key=lambda d: -g[d])),
                            frozenset(d for d in g if g[d] == 0),
                            tuple(float(g[d]) for d in sorted((d for d in g if g[d] > 0), key=lambda d: -g[d])))
         for t, g in qrels.items()},
        {"S": {t: wb.Organization.from_ranking(sorted(r, key=lambda d: -r[d])) for t, r in runs["S"].items()}})
    for name in ("AP", "nDCG", "Bpref", "NumRel"):
        one, other = arrays.explain("S", None, name), organized.explain("S", None, name)
        columns = ["topic", "rank", "document", "grade", "contribution"]
        pd.testing.assert_frame_equal(one.contributions[columns].astype({"topic": str, "document": str}),
                                      other.contributions[columns].astype({"topic": str, "document": str}),
                                      check_dtype=False)
    missed = arrays.explain("S", "q1", "AP").contributions
    assert missed[missed["rank"].isna()]["document"].tolist() == ["d", "b"] or \
        set(missed[missed["rank"].isna()]["document"]) == {"b", "d"}


def test_a_topic_the_run_lacks_is_explained_as_the_campaign_scores_it():
    campaign = wb.Campaign.from_dicts({"q1": {"a": 1}, "q2": {"b": 1}}, {"S": {"q1": {"a": 1.0}}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = per_topic(campaign.evaluate(["AP", "NumRel", "NumRet"], progress=False).query("measure == 'AP'"))
    e = campaign.explain("S", "q2", "AP")
    assert e.score == values["q2"] == 0.0
    assert e.contributions["document"].tolist() == ["ceci_nest_pas_un_docno", "b"]
    assert campaign.explain("S", "q2", "NumRel").score == 1.0 and campaign.explain("S", "q2", "NumRet").score == 0
    with pytest.raises(wb.WorkbenchError, match=r"^system 'S' has no output for topic 'q2': missing_topics='skip' "
                                                r"leaves it out, so there is nothing to explain \('zero' explains"):
        campaign.explain("S", "q2", "AP", missing_topics="skip")
    assert campaign.explain("S", None, "AP", missing_topics="skip").contributions["topic"].unique().tolist() == ["q1"]
    for topic in ("q2", None):  # the refusal Campaign.evaluate gives
        with pytest.raises(wb.WorkbenchError, match=r"^system 'S' has no output for gold topic\(s\) 'q2' "
                                                    r"\(missing_topics='error'; use 'zero' or 'skip'"):
            campaign.explain("S", topic, "AP", missing_topics="error")


def test_clustering_campaigns_explain_each_topic_through_its_organizations():
    gold = {"n1": wb.Organization.from_clustering([["a", "b"], ["c"]]),
            "n2": wb.Organization.from_clustering([["x", "y", "z"]])}
    runs = {"S": {"n1": wb.Organization.from_clustering([["a"], ["b", "c"]]),
                  "n2": wb.Organization.from_clustering([["x"], ["y", "z"]])}}
    campaign = wb.Campaign(gold, runs)
    results = per_topic(campaign.evaluate("BCubed-P", progress=False))
    e = campaign.explain("S", None, "BCubed-P")
    assert e.contributions.groupby("topic").contribution.sum().to_dict() == pytest.approx(results.to_dict())
    assert e.score == pytest.approx(results.mean())
    f = campaign.explain("S", "n1", "BCubed-F")
    assert f.combine() == pytest.approx(campaign.evaluate("BCubed-F", progress=False).value.iloc[0])


def test_unknown_systems_topics_and_measures_are_named():
    campaign = wb.Campaign.from_dicts({"q1": {"a": 1}}, {"S": {"q1": {"a": 1.0}}})
    with pytest.raises(UnknownSystemError, match="no system 'T'.*'S'"):
        campaign.explain("T", "q1", "AP")
    with pytest.raises(UnknownTopicError, match="no topic 'q9'.*'q1'"):
        campaign.explain("S", "q9", "AP")
    with pytest.raises(wb.UnknownMeasureError):
        campaign.explain("S", "q1", "APX")
    assert issubclass(UnknownTopicError, wb.WorkbenchError)


def test_the_real_trec_eval_test_run_is_explained_topic_by_topic():
    folder = shared_dataset("trec_eval_test")
    campaign = wb.read_campaign(folder / "qrels.rel_level", [folder / "results.test"])
    system = next(iter(campaign.runs))
    for name in ("AP", "nDCG@10", "ERR@20", "P(rel=2)@10", "Bpref", "infAP"):
        values = per_topic(campaign.evaluate(name, progress=False))
        e = campaign.explain(system, None, name)
        sums = e.contributions.groupby("topic", observed=True)["contribution"].sum()
        assert np.abs(sums.reindex(values.index).to_numpy() - values.to_numpy()).max() < 1e-12, name


# ------------------------------------------------------------------------------------------ topic deltas
def _results(values: dict[str, list[float]], measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame([(s, f"t{i}", measure, v) for s, vs in values.items() for i, v in enumerate(vs)],
                        columns=["system", "topic", "measure", "value"])


def test_topic_deltas_are_sorted_by_who_wins_with_the_paired_test_beside_them():
    results = _results({"A": [0.3, 0.5, 0.4, 0.6, 0.2], "B": [0.2, 0.3, 0.45, 0.6, 0.5]})
    d = topic_deltas(results, "A", "B", "AP")
    assert d["topic"].tolist() == ["t1", "t0", "t3", "t2", "t4"]
    assert d["winner"].tolist() == ["A", "A", "tie", "B", "B"]
    assert d["difference"].tolist() == pytest.approx([0.2, 0.1, 0.0, -0.05, -0.3])
    reference = significance(results, ["AP"], systems=["A", "B"], correction="none").iloc[0]
    assert d.attrs["test"]["p_value"] == pytest.approx(reference["p_value"])
    assert d.attrs["test"]["better"] == reference["better"] and d.attrs["systems"] == ("A", "B")
    randomization = topic_deltas(results, "A", "B", "AP", test="randomization")
    assert randomization.attrs["test"]["test"].startswith("Fisher randomization")


def test_topic_deltas_turn_around_for_a_measure_where_lower_is_better():
    d = topic_deltas(_results({"A": [0.1, 0.4], "B": [0.3, 0.2]}, "Lam%"), "A", "B", "Lam%")
    assert d["topic"].tolist() == ["t0", "t1"] and d["winner"].tolist() == ["A", "B"]
    assert d["advantage"].tolist() == pytest.approx([0.2, -0.2])


def test_topic_deltas_name_what_they_cannot_compare():
    results = _results({"A": [0.1, 0.4], "B": [0.3, 0.2]})
    with pytest.raises(ResultsError, match="system 'C' is not in the results"):
        topic_deltas(results, "A", "C", "AP")
    with pytest.raises(ResultsError, match="measure 'nDCG' is not in the results"):
        topic_deltas(results, "A", "B", "nDCG")
    with pytest.raises(ResultsError, match="twice"):
        topic_deltas(results, "A", "A", "AP")


def test_the_ranking_instances_are_table_or_diversity_measures():
    assert all(is_table_measure(name) or is_diversity_measure(name) for name in RANKING)
