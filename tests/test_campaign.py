"""Campaign: tidy results through the registry, the missing/extra topic policies, and the official RepLab and
trec_eval reference values reproduced end to end."""

import csv
import math
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import shared_dataset
from workbench import evaluate
from workbench.data.campaign import COLUMNS, Campaign, CampaignError, MissingTopicsWarning, Scores, means
from workbench.data.replab import read_replab
from workbench.data.trec import read_trec_eval_output, read_trec_qrels, read_trec_run
from workbench.errors import ParameterError
from workbench.metrics import registry
from workbench.metrics.registry import UnknownMeasureError
from workbench.model import Organization

GOLD = {"q1": Organization.parse("d1 d2\nrest: d3"), "q2": Organization.parse("d4\nrest: d5"),
        "q3": Organization.parse("{d6 d7}\nrest:")}
RUNS = {"full": {"q1": Organization.parse("d1\nrest: d9"), "q2": Organization.parse("d4 d5\nrest:"),
                 "q3": Organization.parse("d6\nrest:")},
        "partial": {"q3": Organization.parse("d6 d7\nrest:"), "q1": Organization.parse("d2 d3\nrest:")}}


def test_tidy_rows_in_order_hold_what_the_registry_returns(toy_measures):
    results = Campaign(GOLD, {"full": RUNS["full"]}).evaluate(["test-shared"], progress=False)
    assert list(results.columns) == ["system", "topic", "measure", "value"]
    assert list(results.topic) == ["q1", "q2", "q3"] and set(results.system) == {"full"}
    expected = [evaluate(GOLD[t], RUNS["full"][t], ["test-shared"])["test-shared"] for t in GOLD]
    assert list(results.value) == expected == [0.5, 1.0, 0.5]
    assert results.attrs["missing_topics"] == {"policy": "zero", "topics": {}}


def test_missing_topics_zero_skip_error_are_applied_and_reported(toy_measures):
    campaign = Campaign(GOLD, RUNS)
    assert campaign.missing_topics() == {"partial": ["q2"]}
    with pytest.warns(MissingTopicsWarning, match=r"'partial' lacks 1 gold topic\(s\) \('q2'\): scored without "
                      r"credit: every measure at its worst value \(test-shared 0\)"):
        zero = campaign.evaluate("test-shared", missing_topics="zero", progress=False)
    partial = zero[zero.system == "partial"]
    assert list(partial.topic) == ["q1", "q2", "q3"] and list(partial.value) == [0.5, 0.0, 1.0]
    with pytest.warns(MissingTopicsWarning, match="skipped"):
        skip = campaign.evaluate("test-shared", missing_topics="skip", progress=False)
    assert list(skip[skip.system == "partial"].topic) == ["q1", "q3"]
    assert skip.attrs["missing_topics"] == {"policy": "skip", "topics": {"partial": ["q2"]}}
    with pytest.raises(CampaignError, match=r"system 'partial' has no output for gold topic\(s\) 'q2'"):
        campaign.evaluate("test-shared", missing_topics="error", progress=False)
    with pytest.raises(ParameterError, match="Campaign.evaluate: missing_topics must be one of zero, skip, error"):
        campaign.evaluate("test-shared", missing_topics="ignore")


def test_topics_the_gold_lacks_raise_or_are_dropped(toy_measures):
    runs = {"sys": {**RUNS["full"], "q9": Organization.parse("d1\nrest:")}}
    with pytest.raises(CampaignError, match=r"system 'sys' has output for topic\(s\) 'q9' that the gold"):
        Campaign(GOLD, runs).evaluate("test-shared", progress=False)
    with pytest.warns(MissingTopicsWarning, match="'q9'.*ignored"):
        results = Campaign(GOLD, runs).evaluate("test-shared", extra_topics="ignore", progress=False)
    assert "q9" not in set(results.topic) and results.attrs["extra_topics"]["topics"] == {"sys": ["q9"]}


def test_no_warning_when_every_run_is_complete(toy_measures):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-shared", progress=False)


def test_means_tidy_and_wide_follow_the_policy(toy_measures):
    with pytest.warns(MissingTopicsWarning):
        skip = Campaign(GOLD, RUNS).evaluate(["test-shared"] * 2, missing_topics="skip", progress=False)
    tidy = means(skip)
    assert list(tidy.columns) == ["system", "topic", "measure", "value"] and set(tidy.topic) == {"all"}
    assert dict(zip(tidy.system, tidy.value, strict=True)) == {"full": pytest.approx(2 / 3), "partial": 0.75}
    wide = means(skip, wide=True)
    assert list(wide.index) == ["full", "partial"] and list(wide.columns) == ["test-shared"]
    assert wide.attrs["missing_topics"]["policy"] == "skip"
    with pytest.raises(CampaignError, match="lack column"):
        means(pd.DataFrame({"system": ["a"]}))


def test_bad_measures_and_inputs_are_named_before_any_work(toy_measures):
    campaign = Campaign(GOLD, RUNS)
    with pytest.raises(UnknownMeasureError, match="unknown measure 'nope'"):
        campaign.evaluate(["test-shared", "nope"], progress=False)
    with pytest.raises(ParameterError, match=r"Campaign.evaluate: measures must be a list of .* \(1 at least\)"):
        campaign.evaluate([], progress=False)
    with pytest.raises(CampaignError, match=r"system 'full', topic 'q1': WorkbenchError: output has a document"):
        Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-failing", progress=False)
    with pytest.raises(ZeroDivisionError) as bug:  # not bad input: a bug, its traceback kept
        Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-buggy", progress=False)
    assert bug.value.__notes__ == ["while scoring system 'full', topic 'q1'"]
    with pytest.raises(ParameterError, match=r"Campaign.__init__: gold must be a mapping topic → Organization "
                                             r"\(not empty\)"):
        Campaign({}, RUNS)
    with pytest.raises(CampaignError, match="gold topic 'q1': expected an Organization, got str"):
        Campaign({"q1": "d1 d2"}, RUNS)
    with pytest.raises(CampaignError, match="system 'x', topic 'q1': expected an Organization, got list"):
        Campaign(GOLD, {"x": {"q1": ["d1"]}})
    with pytest.raises(ParameterError, match="Campaign.__init__: runs value of 'x' must be a mapping topic → "):
        Campaign(GOLD, {"x": [GOLD["q1"]]})


def test_progress_bar_on_long_work_only(toy_measures, capsys):
    Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-shared")
    assert capsys.readouterr().err == ""  # short work: tqdm's delay keeps it silent
    Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-slow")  # 3 × 0.35 s > the 1 s delay
    assert "evaluating" in capsys.readouterr().err


# ------------------------------------------------------------------------------ official reference values
def test_replab_official_rs_per_entity_through_the_campaign():
    """reference_RS_per_entity.tsv: the official RepLab 2013 topic-detection R&S script, to 1e-9."""
    measures = ["R∼(missing=replab)", "S∼(missing=replab)", "F∼(missing=replab)"]
    folder = shared_dataset("replab2013_topic_detection")
    gold = read_replab(folder / "replab2013_topic_detection_goldstandard.dat", encoding="latin-1")
    runs = {p.name: read_replab(p) for p in sorted((folder / "system-outputs").iterdir())}
    results = Campaign(gold, runs).evaluate(measures, progress=False)
    scores = results.set_index(["system", "topic", "measure"])["value"]
    with open(folder / "reference_RS_per_entity.tsv", newline="") as f:
        reference = list(csv.DictReader(f, delimiter="\t"))
    assert len(reference) == 6 == len(results) / 3
    for row in reference:
        for measure, column in zip(measures, ("Reliability", "Sensitivity", "F measure"), strict=True):
            value = scores[(Path(row["system"]).name, row["entity"], measure)]
            assert value == pytest.approx(float(row[column]), abs=1e-9), (row["system"], row["entity"], measure)


CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_NAMES = {"map": "AP", "Rprec": "RPrec", "recip_rank": "RR", **{f"P_{k}": f"P@{k}" for k in CUTOFFS},
              "num_ret": "NumRet", "num_rel": "NumRel", "num_rel_ret": "NumRelRet", "gm_map": "GMAP"}


def test_trec_eval_out_test_through_the_campaign():
    """out.test: trec_eval's default measures over qrels.test × results.test (3 topics), to its 4 decimals."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.test"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.test"))
    reference = read_trec_eval_output(shared_dataset("trec_eval_test", "out.test"))
    results = Campaign(gold, runs).evaluate(list(TREC_NAMES.values()), missing_topics="skip", progress=False)
    ours = means(results).set_index("measure")["value"]
    checked = 0
    for name, topic, value in reference[["measure", "topic", "value"]].itertuples(index=False):
        if name in TREC_NAMES and topic == "all":
            assert ours[TREC_NAMES[name]] == pytest.approx(float(value), abs=5e-5), name
            checked += 1
    assert checked == len(TREC_NAMES)
    assert list(runs) == ["STANDARD"]


def test_trec_eval_complete_flag_is_the_zero_policy():
    """out.test.aqc: ``trec_eval -c -q`` over results.trunc, which has no line for topic 302: trec_eval scores
    it on an empty ranking, 0 but for its num_rel (77), and counts it in the mean (missing_topics="zero"); the
    counts are summed and gm_map is a geometric mean, as trec_eval prints them; without -c it would average 301 and
    303 ("skip")."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.test"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.trunc"))
    reference = read_trec_eval_output(shared_dataset("trec_eval_test", "out.test.aqc"))
    reference = reference[reference.measure.isin(list(TREC_NAMES))]
    with pytest.warns(MissingTopicsWarning,
                      match=r"'STANDARD' lacks 1 gold topic\(s\) \('302'\): scored without credit: ranking"):
        zero = Campaign(gold, runs).evaluate(list(TREC_NAMES.values()), missing_topics="zero", progress=False)
    ours = pd.concat([zero, means(zero)]).set_index(["topic", "measure"])["value"]
    for name, topic, value in reference[["measure", "topic", "value"]].itertuples(index=False):
        assert ours[(str(topic), TREC_NAMES[name])] == pytest.approx(float(value), abs=5e-5), (name, topic)
    assert ours[("302", "NumRel")] == 77 and ours[("all", "NumRel")] == 561 and ours[("all", "NumRet")] == 584
    assert len(reference) == 4 * len(TREC_NAMES) - 3  # 301, 302, 303 and all; gm_map only in all
    with pytest.warns(MissingTopicsWarning, match="skipped"):
        skip = means(Campaign(gold, runs).evaluate(list(TREC_NAMES.values()), missing_topics="skip", progress=False))
    per_topic = reference[reference.topic.astype(str).isin(["301", "303"])]
    expected = per_topic.assign(value=per_topic.value.astype(float)).groupby("measure")["value"].mean()
    for name, value in expected.items():
        if name.startswith("num_"):
            continue  # summed
        assert skip.set_index("measure").loc[TREC_NAMES[name], "value"] == pytest.approx(value, abs=5e-5)


# ------------------------------------------------------------------ a topic a run lacks earns no credit
def _non_ranking_specs():
    from workbench.metrics.ranking import is_table_measure

    return [spec for spec in registry.specs()
            if spec.task != "ranking" and not is_table_measure(spec.name)]


def _default_name(spec) -> str:
    return spec.name if spec.task != "organization" else f"{spec.name}(n=10, wn=0.8)"


@pytest.mark.parametrize("spec", _non_ranking_specs(), ids=lambda spec: spec.name)
def test_a_missing_topic_scores_the_worst_value_or_is_refused(spec):
    """Issue 20 item 8: Lam% and VI came out perfect (0) for a topic the system skipped. Now every measure
    scores its worst value (registered range and direction), which no answered topic beats; a measure
    unbounded where it is bad is refused with the reason."""
    from tests.strategies import pairs_of

    gold, output = pairs_of(spec)[0]
    name = _default_name(spec)
    campaign = Campaign({"t1": gold, "t2": gold}, {"sys": {"t1": output}})
    worst = registry.worst(name)
    if math.isinf(worst):
        with pytest.raises(CampaignError, match=rf"system 'sys' lacks gold topic\(s\) 't2', and "
                                                rf"'{re.escape(name)}' has no worst value .* missing_topics='skip'"):
            campaign.evaluate(name, progress=False)
        return
    with pytest.warns(MissingTopicsWarning,
                      match=rf"every measure at its worst value \({re.escape(name)} {worst:g}\)"):
        scores = campaign.evaluate(name, progress=False).set_index("topic")["value"]
    assert scores["t2"] == worst
    answered = scores["t1"]
    assert math.isnan(answered) or (answered >= worst if spec.direction == "higher" else answered <= worst)


def test_the_shell_scores_missing_topics_as_python_does_and_refuses_contradicting_settings(tmp_path, capsys):
    """Issue 20 items 3 and 8 in the shell: Lam% at its worst, VI refused, ``-c`` beside ``--missing skip``
    refused, ``-l`` against a name's own ``rel`` refused (quoting the name as typed)."""
    from workbench.cli import main

    gold, run = tmp_path / "gold.qrels", tmp_path / "run"
    gold.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n")
    run.write_text("q1 Q0 d1 1 2 s\nq1 Q0 d2 2 1 s\n")
    args = ["eval", "--gold", str(gold), "--run", str(run), "--per-topic", "--format", "csv", "-q"]
    assert main([*args, "-m", "Lam%", "AP"]) == 0
    out, err = capsys.readouterr()
    assert "s,q2,Lam%,1.0\n" in out and "s,q2,AP,0.0\n" in out
    assert "ranking measures as trec_eval -c scores them" in err
    assert "other measures at their worst value (Lam% 1)" in err
    for extra, message in ((["-m", "VI"], "'VI' has no worst value"),
                           (["-m", "AP", "-c", "--missing", "skip"], "-c (--complete) scores the topics a run lacks"),
                           (["-m", "P(rel=1)@5", "-l", "2"], "'P(rel=1)@5' writes rel=1, the setting for")):
        assert main([*args, *extra]) == 2
        assert message in capsys.readouterr().err
    assert main([*args, "-m", "AP", "-c", "--missing", "zero"]) == 0


# ------------------------------------------------------------------ everything else a user can pass
@pytest.mark.parametrize("measures", [None, 5, 2.5, object()])
def test_measures_that_are_no_list_of_names_are_named(measures):
    with pytest.raises(ParameterError, match=r"measures must be a measure name, a Measure or a list of them .* got "):
        Campaign(GOLD, RUNS).evaluate(measures, progress=False)


@pytest.mark.parametrize("returned", ["high", None, [0.5], 1j, b"0.5", {"x": 1}])
def test_a_custom_measure_returning_no_number_is_named_with_its_topic(returned, register_measure):
    register_measure("test-returns", lambda gold, output: returned, source="tests/test_campaign.py")
    with pytest.raises(CampaignError, match=r"system 'full', topic 'q1': MeasureResultError: measure "
                                            r"'test-returns' returned .* not a number"):
        Campaign(GOLD, {"full": RUNS["full"]}).evaluate("test-returns", progress=False)


@pytest.mark.parametrize(("gold_topics", "run_topics", "message"), [
    ([1, 2], ["1", 2], r"system 'sys' names topic '1' \(str\) where the gold has 1 \(int\): give the topics of both "
                       r"as one type"),
    (["1", "2"], [1, "2"], r"names topic 1 \(int\) where the gold has '1' \(str\)"),
    ([1, 2], [1.0, 2], r"system 'sys': topic 1.0 is a float: ids are strings or integers"),
    ([True, 2], [1, 2], r"gold topic True is a bool"),
    ([1, "1"], [1], r"gold topics 1 and '1' are both written 1: give ids of one type"),
])
def test_topic_ids_whose_types_differ_are_named(gold_topics, run_topics, message):
    """Issue 20 item 6: 1.0 and True equal 1 as dictionary keys, and 1 and "1" print alike; a campaign refuses
    such ids rather than matching or splitting topics silently."""
    organization = Organization.parse("d1\nrest: d2")
    with pytest.raises(CampaignError, match=message):
        Campaign(dict.fromkeys(gold_topics, organization), {"sys": dict.fromkeys(run_topics, organization)})


def test_systems_written_alike_are_refused_and_integer_ids_are_kept():
    organization = Organization.parse("d1\nrest: d2")
    with pytest.raises(CampaignError, match=r"systems 1 and '1' are both written 1"):
        Campaign({"q": organization}, {1: {"q": organization}, "1": {"q": organization}})
    scores = Campaign({7: organization}, {1: {7: organization}}).evaluate("AP", progress=False)
    assert scores[["system", "topic", "value"]].values.tolist() == [[1, 7, 1.0]]


@pytest.mark.parametrize("pairs, names", [([], ["AP"]), ([("A", "q1")], ["AP"]),
                                          ([("A", "q1"), ("A", "q2"), ("B", "q1")], ["AP", "P@5", "NumRet"])])
def test_scores_held_as_columns_give_the_rows_and_the_frame_rows_gave(pairs, names):
    """Scores keep columns (a frame of them is made 5× faster than of rows); its rows, and the frame of either
    constructor, are those of the rows written out, dtypes included (an empty table too)."""
    values = [float(i) / 2 for i in range(len(pairs) * len(names))]
    values[-1:] = [3] if values else []  # an integer count becomes a float64 as before
    rows = [(s, t, name, values[i * len(names) + j]) for i, (s, t) in enumerate(pairs) for j, name in enumerate(names)]
    by_pairs, by_rows = Scores.of_pairs(pairs, names, values, {"k": 1}), Scores.from_rows(iter(rows), {"k": 1})
    assert by_pairs.rows == by_rows.rows == rows
    expected = pd.DataFrame(rows, columns=COLUMNS).astype({"value": "float64"})
    for scores in (by_pairs, by_rows):
        pd.testing.assert_frame_equal(scores.frame(), expected)
        assert scores.frame().attrs == {"k": 1}
