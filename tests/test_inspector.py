"""The inspector of two runs: its state without widgets (the table adds up to the campaign's per-topic scores,
named refusals that keep the last valid view) and its view (a click on a bar opens the topic, the board shows
both runs, a token picked is linked across them, clustering and filtering campaigns grouped by cluster and
outcome)."""

from __future__ import annotations

import html
import warnings

import numpy as np
import pandas as pd
import pytest

import workbench as wb
from workbench.data.explain import UnknownSystemError, UnknownTopicError
from workbench.metrics.explanations import DocumentNotExplainedError, PartNotFoundError
from workbench.widgets import Inspector, InspectorState, MeasureNotScoredError
from workbench.widgets.inspector_state import campaign_task


def ranking_campaign(seed: int = 0, topics: int = 6, docs: int = 40) -> wb.Campaign:
    """Graded qrels (some unjudged retrieved documents, a topic one run lacks) and three runs with ties."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"A": {}, "B": {}, "C": {}}
    for t in range(topics):
        ids = [f"t{t}d{i}" for i in range(docs)]
        qrels[f"q{t}"] = {d: int(rng.integers(0, 4)) for d in ids[: docs // 2]}
        for system in runs:
            if system == "C" and t == 0:
                continue
            chosen = rng.permutation(ids)[: docs - 5]
            runs[system][f"q{t}"] = {d: float(rng.integers(0, 20)) for d in chosen}
    return wb.Campaign.from_dicts(qrels, runs)


def per_topic(campaign: wb.Campaign, measure: str) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = campaign.evaluate(measure, progress=False)
    return results.pivot(index="topic", columns="system", values="value")


@pytest.mark.parametrize("measure", ["AP", "nDCG@10", "P@10", "RR", "ERR@20"])
def test_the_table_adds_up_to_the_campaigns_per_topic_scores(measure):
    campaign = ranking_campaign()
    state = InspectorState(campaign, ("A", "C"), measure)
    expected = per_topic(campaign, measure)
    for topic in state.deltas["topic"]:
        state.topic = topic
        sums = state.table.groupby("system")["contribution"].sum()
        for system in ("A", "C"):
            assert sums[system] == pytest.approx(expected.loc[topic, system], abs=1e-12)
            assert state.scores[system] == expected.loc[topic, system]
    assert state.deltas["advantage"].is_monotonic_decreasing
    assert set(state.deltas["topic"]) == set(expected.index)


def test_the_documents_that_make_the_difference_come_first():
    campaign = wb.Campaign.from_dicts({"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"d": 1}},
                                      {"A": {"q1": {"a": 3.0, "c": 2.0, "b": 1.0}, "q2": {"d": 1.0}},
                                       "B": {"q1": {"c": 3.0, "b": 2.0, "a": 1.0}, "q2": {"x": 1.0, "d": 0.5}}})
    state = InspectorState(campaign, ("A", "B"), "AP")
    state.topic = "q1"
    difference = state.difference()
    assert difference["document"].tolist()[0] == "a"  # A's a at rank 1 (1/2) against B's at rank 3 (1/3·… )
    assert (difference["difference"].abs().diff().dropna() <= 0).all()
    assert difference.set_index("document").loc["c", "difference"] == 0


def test_refusals_are_named_and_keep_the_last_valid_view():
    campaign = ranking_campaign()
    state = InspectorState(campaign, ("A", "B"), "AP", measures=["AP", "P@5"])
    state.topic = "q3"
    before = state.table.copy()
    for action, error in ((lambda: setattr(state, "measure", "Bpref"), MeasureNotScoredError),
                          (lambda: setattr(state, "measure", "APX"), wb.UnknownMeasureError),
                          (lambda: setattr(state, "topic", "q99"), UnknownTopicError),
                          (lambda: setattr(state, "systems", ("A", "Z")), UnknownSystemError),
                          (lambda: setattr(state, "systems", ("A", "A")), UnknownSystemError),
                          (lambda: setattr(state, "document", "nowhere"), DocumentNotExplainedError),
                          (lambda: setattr(state, "k", 0), wb.ParameterError),
                          (lambda: setattr(state, "part", "P(G|S)"), PartNotFoundError)):
        with pytest.raises(error) as raised:
            action()
        assert state.message == str(raised.value) and isinstance(raised.value, wb.WorkbenchError)
        assert (state.topic, state.measure, state.systems) == ("q3", "AP", ("A", "B"))
        pd.testing.assert_frame_equal(state.table, before)
    state.measure = "P@5"  # an accepted change clears the message
    assert state.message == "" and state.measure == "P@5"


def test_a_measure_spelled_otherwise_is_the_same_measure():
    state = InspectorState(ranking_campaign(), ("A", "B"), "AP", measures=["AP", "nDCG@10"])
    state.measure = "ndcg_cut_10"
    assert state.measure == "nDCG@10"


def test_the_view_opens_a_topic_when_its_bar_is_clicked():
    campaign = ranking_campaign()
    inspector = Inspector(campaign, systems=("A", "B"), measure="AP", measures=["AP", "nDCG@10"])
    target = inspector.deltas["topic"].iloc[-1]
    # what the chart's front end sends when a bar is clicked
    inspector.chart._vl_selections = {"pick": {"value": {"vlPoint": {"or": [{"topic": target}]}}, "store": []}}
    assert inspector.topic == target == inspector.topic_control.value
    assert inspector.chart.params.chosen == target
    lists = inspector.board.columns
    assert [c["system"] for c in lists] == ["A", "B"]
    expected = per_topic(campaign, "AP").loc[target]
    assert [c["score"] for c in lists] == [f"{expected['A']:.4f}", f"{expected['B']:.4f}"]
    ranks = [int(r["group"]) for r in lists[0]["rows"] if r["group"] != "missed"]
    assert ranks == list(range(1, inspector.k + 1))
    inspector.measure_control.value = "nDCG@10"  # switching the measure from its control
    assert inspector.measure == "nDCG@10" and inspector.topic == target
    assert [c["score"] for c in inspector.board.columns][0] == f"{per_topic(campaign, 'nDCG@10').loc[target, 'A']:.4f}"
    spec_rows = next(iter(inspector.chart.spec["datasets"].values()))
    assert {r["topic"] for r in spec_rows} == set(inspector.deltas["topic"].astype(str))


def test_the_view_says_what_it_refuses_and_keeps_its_view():
    inspector = Inspector(ranking_campaign(), systems=("A", "B"), measure="AP", measures=["AP"])
    columns = inspector.board.columns
    inspector.topic_control.value = inspector.deltas["topic"].iloc[1]
    shown = inspector.topic
    with pytest.raises(UnknownTopicError):
        inspector.topic = "q99"
    assert "no topic 'q99'" in html.unescape(inspector.message_view.value) and inspector.topic == shown
    inspector.system_b.value = "A"  # the same system twice: refused, said, the view stays
    assert "two different systems" in html.unescape(inspector.message_view.value)
    assert inspector.systems == ("A", "B") and inspector.system_b.value == "B"
    inspector.k_control.value = 3
    assert inspector.k == 3 and inspector.message == ""
    assert len([r for r in inspector.board.columns[0]["rows"] if r["group"] != "missed"]) == 3
    assert columns != inspector.board.columns


def test_a_token_picked_is_linked_across_both_runs():
    inspector = Inspector(ranking_campaign(), systems=("A", "B"), measure="AP", measures=["AP"])
    document = inspector.board.columns[0]["rows"][0]["document"]
    inspector.board.receive({"kind": "select", "document": document})
    assert inspector.document == document == inspector.board.selected
    others = [r["other"] for r in inspector.board.columns[0]["rows"] if r["document"] == document]
    assert others and others[0].startswith("B: ")
    inspector.board.receive({"kind": "select", "document": document})  # a second click lets it go
    assert inspector.document is None


def test_clustering_and_filtering_campaigns_are_shown_by_cluster_and_outcome():
    gold = {"n1": wb.Organization.from_clustering([["a", "b"], ["c", "d"]]),
            "n2": wb.Organization.from_clustering([["x", "y", "z"]])}
    runs = {"S": {"n1": wb.Organization.from_clustering([["a"], ["b", "c", "d"]]),
                  "n2": wb.Organization.from_clustering([["x", "y"], ["z"]])},
            "T": {"n1": wb.Organization.from_clustering([["a", "b", "c", "d"]]),
                  "n2": wb.Organization.from_clustering([["x", "y", "z"]])}}
    clustering = wb.Campaign(gold, runs)
    assert campaign_task(clustering) == "clustering"
    inspector = Inspector(clustering, systems=("S", "T"))
    assert inspector.measure == "BCubed-F" and inspector.state.parts == ["BCubed-P", "BCubed-R"]
    assert set(inspector.table["group"]) <= {"C1", "C2"} and inspector.board.kind == "clustering"
    inspector.part = "BCubed-R"
    assert {r["group"] for r in inspector.board.columns[0]["rows"]} <= {"C1", "C2"}
    inspector.measure = "BCubed-P"
    sums = inspector.table.groupby("system")["contribution"].sum()
    assert sums.to_dict() == pytest.approx(inspector.scores)

    golds = {f"e{i}": wb.Organization.from_filtering(["a", "b"], ["c", "d", "e"]) for i in range(3)}
    decisions = {"S": {f"e{i}": wb.Organization.from_filtering(["a", "c"], ["b", "d", "e"]) for i in range(3)},
                 "T": {f"e{i}": wb.Organization.from_filtering(["a", "b", "c"][: i + 1], ["d", "e"]) for i in range(3)}}
    filtering = wb.Campaign(golds, decisions)
    assert campaign_task(filtering) == "filtering"
    inspector = Inspector(filtering, systems=("S", "T"), measure="Accuracy")
    assert set(inspector.table["group"]) <= {"TP", "FP", "FN", "TN"}
    assert inspector.table.groupby("system")["contribution"].sum().to_dict() == pytest.approx(inspector.scores)
    tones = {r["tone"] for c in inspector.board.columns for r in c["rows"]}
    assert tones <= {"positive", "negative"}


def test_results_given_decide_the_measures():
    campaign = ranking_campaign()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = campaign.evaluate(["AP", "RR"], progress=False)
    state = InspectorState(campaign, ("A", "B"), "RR", results=results)
    assert state.measures == ["AP", "RR"] and state.measure == "RR"
    with pytest.raises(MeasureNotScoredError):
        state.measure = "nDCG@10"


def test_an_organization_campaign_of_one_topic_is_inspected_by_level_and_cluster():
    from workbench.widgets.gallery import EXAMPLES

    table9 = EXAMPLES["Table 9 (document organization)"]
    gold = {"table 9": wb.Organization.parse(table9.gold)}
    runs = {name: {"table 9": wb.Organization.parse(text)} for name, text in table9.outputs.items()}
    campaign = wb.Campaign(gold, runs)
    assert campaign_task(campaign) == "organization"
    inspector = Inspector(campaign, systems=("output 4", "output 5"), measure="R∼(n=10, wn=0.8)")
    assert inspector.deltas["topic"].tolist() == ["table 9"] and np.isnan(inspector.state.test["p_value"])
    assert inspector.table.groupby("system")["contribution"].sum().to_dict() == pytest.approx(inspector.scores)
    assert round(inspector.scores["output 4"], 4) == 0.9649
    assert {g.split(" · ")[0] for g in inspector.table["group"]} <= {"level 1", "level 2", "level 3", "level tail",
                                                                    "level rest"}


# ---------------------------------------------------------------------------------------------- issue 38
def test_a_topic_a_run_lacks_is_shown_unanswered_without_the_placeholder_document():
    """trec_eval's -c placeholder ('ceci_nest_pas_un_docno', the one-document ranking of a topic a run lacks)
    was drawn as a document row; the run is said to be unanswered instead, its scores unchanged."""
    campaign = ranking_campaign()                                   # C lacks q0
    inspector = Inspector(campaign, systems=("A", "C"), measure="AP")
    inspector.topic = "q0"
    state = inspector.state
    assert state.unanswered == ("C",)
    assert "ceci_nest_pas_un_docno" not in set(state.table["document"].astype(str))
    assert not any(r["document"] == "ceci_nest_pas_un_docno" for c in inspector.board.columns for r in c["rows"])
    assert set(state.rows("C")["group"]) == {"missed"}                   # the relevant documents it misses
    assert state.table.groupby("system")["contribution"].sum()["C"] == 0 == state.scores["C"]
    assert "C did not answer this topic" in html.unescape(inspector.summary.value)
    assert inspector.board.columns[1]["caption"].startswith("unanswered")
    with pytest.raises(DocumentNotExplainedError):
        state.document = "ceci_nest_pas_un_docno"
    inspector.topic = "q1"
    assert state.unanswered == () and "did not answer" not in inspector.summary.value


@pytest.mark.parametrize("change", [
    {"new": type("Selection", (), {"value": [{"x": 1}]})()},
    {"new": type("Selection", (), {"value": [5]})()},
    {"new": type("Selection", (), {"value": "q1"})()},
    {"new": type("Selection", (), {"value": [{"topic": ["q1"]}]})()},
])
def test_a_chart_selection_of_another_shape_is_ignored_and_logged(change, caplog):
    inspector = Inspector(ranking_campaign(), systems=("A", "B"), measure="AP", measures=["AP"])
    shown = inspector.topic
    with caplog.at_level("WARNING", logger="workbench.widgets"):
        inspector._picked(change)
        inspector.board.receive({"kind": "select", "document": 5})
        inspector.board.receive(["select"])
    assert inspector.topic == shown and inspector.document is None and inspector.message == ""
    assert [r.message.split(":")[0] for r in caplog.records] == ["the inspector's chart", "the rankings board",
                                                                 "the rankings board"]


@pytest.mark.parametrize(("arguments", "message"), [
    ({"campaign": "runs"}, "InspectorState.__init__: campaign must be a Campaign, got 'runs'"),
    ({"k": 0}, "InspectorState.__init__: k must be an integer in [1, 100,000], got 0"),
    ({"k": 10**9}, "k must be an integer in [1, 100,000]"),
    ({"systems": ("A",)}, "systems must be a list of a non-empty string (2 to 2)"),
    ({"test": "z"}, "test must be one of t, wilcoxon, randomization, bootstrap, sign"),
    ({"results": [1, 2]}, "results must be a tidy results DataFrame"),
])
def test_the_inspectors_arguments_are_declared(arguments, message):
    given = {"campaign": ranking_campaign(), "systems": ("A", "B"), "measure": "AP", **arguments}
    with pytest.raises(wb.ParameterError) as caught:
        InspectorState(**given)
    assert message in str(caught.value)
    state = InspectorState(ranking_campaign(), ("A", "B"), "AP")
    with pytest.raises(wb.ParameterError, match=r"InspectorState.k: k must be an integer in \[1, 100,000\]"):
        state.k = 2.5
    assert state.message.startswith("InspectorState.k: ") and state.k == 10
