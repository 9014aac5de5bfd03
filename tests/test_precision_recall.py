"""Interpolated precision–recall curves (issue 13): the kernel against trec_eval (pytrec_eval) and a brute
force, the campaign table and its summary, and the chart rendering to PNG offline."""

import math
import warnings
from decimal import ROUND_HALF_UP, Decimal

import hypothesis.strategies as st
import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given, settings

from workbench.analysis import CurveError, curve_summary, precision_recall
from workbench.charts import ChartDataError, precision_recall_chart, save_chart
from workbench.data import Campaign, MissingTopicsWarning, read_trec_qrels, read_trec_run
from workbench.data.campaign import CampaignError
from workbench.data.trec import table_from_dicts
from workbench.errors import ParameterError
from workbench.metrics.ranking import GainTable
from workbench.metrics.ranking.curves import ELEVEN_POINTS, interpolated_precision, recall_levels
from workbench.model import Organization


def brute_force(gains: list[float], n_relevant: int, levels, rel_level: float = 1.0, rule: str = "round"):
    """The definition read literally: the best precision at any rank where n(r) relevant documents have been
    found, n(r) = round(r·R) halves up (trec_eval 10) or ⌊r·R + 0.9⌋ (trec_eval 9); 0 where never."""
    out = []
    for r in levels:
        share = r * n_relevant  # a double, as trec_eval's C computes it
        needed = int(Decimal(share).to_integral_value(ROUND_HALF_UP)) if rule == "round" else \
            math.floor(share + 0.9)
        found, best = 0, 0.0
        for rank, gain in enumerate(gains, start=1):
            found += gain >= rel_level
            if found >= needed and found > 0:
                best = max(best, found / rank)
        out.append(best if n_relevant > 0 and found >= needed else 0.0)
    return out


def test_hand_computed_curve():
    """Relevant at ranks 1, 3, 6 of R = 4: precisions 1, 2/3, 1/2; recall 1 is never reached."""
    t = GainTable.from_gains([[1, 0, 1, 0, 0, 1, 0]], [[1, 1, 1, 1]])
    # trec_eval 10, round(r·R): r = 0.1 → 0 (0.4), 0.2 → 1, 0.3 → 1 (1.2), 0.4 → 2, 0.6 → 2 (2.4), 0.7 → 3, 0.9 → 4
    expected = [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 0, 0]
    assert interpolated_precision(t)[0].tolist() == pytest.approx(expected)
    # trec_eval 9, ⌊r·R + 0.9⌋: r = 0.1 → 1, 0.3 → 2 (2.1), 0.5 → 2 (2.9), 0.6 → 3 (3.3), 0.8 → 4 (4.1)
    expected_v9 = [1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 0, 0, 0]
    assert interpolated_precision(t, rule="v9")[0].tolist() == pytest.approx(expected_v9)
    for rule in ("round", "v9"):  # at the levels k/R both rules need k
        assert interpolated_precision(t, [0.25, 0.5, 0.75, 1.0], rule=rule)[0].tolist() == \
            pytest.approx([1, 2 / 3, 1 / 2, 0])


rankings = st.lists(st.tuples(st.lists(st.integers(0, 2), max_size=25), st.integers(0, 12)), min_size=1,
                    max_size=6)


@settings(max_examples=200, deadline=None)
@given(rankings, st.sampled_from([1.0, 2.0]), st.sampled_from(["round", "v9"]))
def test_equals_the_brute_force_at_the_11_points_and_every_full_level(rows, rel_level, rule):
    gains = [g for g, _ in rows]
    judged = [[2] * extra + [g for g in gs if g > 0] for gs, extra in rows]  # every found relevant is judged
    table = GainTable.from_gains(gains, judged)
    n_relevant = table.n_relevant(rel_level)
    levels = sorted(set(ELEVEN_POINTS) | set(recall_levels(n_relevant).tolist()))
    ours = interpolated_precision(table, levels, rel_level, rule)
    for i, gs in enumerate(gains):
        expected = brute_force(gs, int(n_relevant[i]), levels, rel_level, rule)
        assert ours[i].tolist() == pytest.approx(expected, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(rankings, st.sampled_from([1.0, 2.0]), st.sampled_from(["round", "v9"]))
def test_the_envelope_read_at_the_relevant_ranks_only_is_the_whole_envelope_bit_for_bit(rows, rel_level, rule):
    """Issue 42: interpolated precision reads the best precision after each relevant document from a matrix of the
    relevant ranks alone; the whole ranking's envelope (what interpolation_ranks reads) gives the same values to
    the bit."""
    from workbench.metrics.ranking.curves import _interpolation

    table = GainTable.from_gains([g for g, _ in rows], [[2] * extra + [g for g in gs if g > 0] for gs, extra in rows])
    levels = sorted(set(ELEVEN_POINTS) | set(recall_levels(table.n_relevant(rel_level)).tolist()) | {0.0})
    _, best_after, index, reached = _interpolation(table, levels, rel_level, rule)
    whole = np.where(reached, best_after[np.arange(len(rows))[:, None], np.minimum(index, best_after.shape[1] - 1)],
                     0.0)
    assert interpolated_precision(table, levels, rel_level, rule).tobytes() == whole.tobytes()


def test_v9_equals_pytrec_eval_iprec_at_recall_on_random_runs():
    """pytrec_eval wraps trec_eval 9 (⌊r·R + 0.9⌋)."""
    rng = np.random.default_rng(13)
    for _ in range(60):
        qrels, run = {}, {}
        for q in range(6):
            docs = [f"d{i}" for i in range(int(rng.integers(1, 40)))]
            qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in docs if rng.random() < 0.7} or {"d0": 1}
            run[f"q{q}"] = {d: float(rng.integers(0, 6)) for d in docs if rng.random() < 0.8} or {"d0": 1.0}
        reference = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
        table = table_from_dicts(qrels, run)
        ours = interpolated_precision(table, rule="v9")
        for row, topic in enumerate(table.topics):
            if topic in reference:  # trec_eval leaves out topics without relevant documents
                expected = [reference[topic][f"iprec_at_recall_{r:.2f}"] for r in ELEVEN_POINTS]
                assert ours[row].tolist() == pytest.approx(expected, abs=1e-12)


def test_levels_and_bad_input():
    assert recall_levels([2, 4, 0]).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert recall_levels([]).tolist() == [0.0]
    assert interpolated_precision(GainTable.from_gains([[]], [[]])).tolist() == [[0.0] * 11]
    with pytest.raises(ParameterError, match=r"^interpolated_precision: recall must be finite numbers in \[0, 1\] "
                                             r"\(element 1 is 1.5\)"):
        interpolated_precision(GainTable.from_gains([[1]], [[1]]), [0.5, 1.5])
    with pytest.raises(ParameterError, match="^interpolated_precision: recall must be an array of finite numbers"):
        interpolated_precision(GainTable.from_gains([[1]], [[1]]), ["high"])
    with pytest.raises(ParameterError, match="^interpolated_precision: rule must be one of round, v9"):
        interpolated_precision(GainTable.from_gains([[1]], [[1]]), rule="ceil")


# -------------------------------------------------------------------------------------- campaign table
@pytest.fixture
def campaign(tmp_path):
    qrels, runs = tmp_path / "qrels", tmp_path / "runs"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d4 2\nq2 0 d5 1\nq3 0 d6 0\n")
    runs.write_text("q1 Q0 d3 1 3 A\nq1 Q0 d1 2 2 A\nq1 Q0 d2 3 1 A\nq2 Q0 d5 1 2 A\nq2 Q0 d9 2 1 A\n"
                    "q1 Q0 d1 1 3 B\nq1 Q0 d9 2 2 B\nq3 Q0 d6 1 1 B\nq7 Q0 d1 1 1 B\n")
    return qrels, runs


def test_campaign_curves_are_the_kernel_on_each_system_s_run(campaign):
    qrels, runs = campaign
    data = Campaign(read_trec_qrels(qrels), read_trec_run(runs))
    with pytest.raises(CampaignError, match=r"system 'B' has output for topic\(s\) 'q7' that the gold standard "
                                            r"lacks \(extra_topics='ignore' drops them\)"):
        precision_recall(data)  # as Campaign.evaluate refuses it
    with pytest.warns(MissingTopicsWarning,
                      match=r"system 'A' lacks 1 gold topic\(s\) \('q3'\): counted as finding nothing; "
                            r"system 'B' lacks 1 gold topic\(s\) \('q2'\): counted as finding nothing; "
                            r"system 'B' has 1 topic\(s\) the gold lacks \('q7'\): ignored"):
        curves = precision_recall(data, extra_topics="ignore")
    assert list(curves.columns) == ["system", "topic", "recall", "precision"]
    assert list(dict.fromkeys(curves["system"])) == ["A", "B"] and len(curves) == 2 * 3 * 11
    grades = {"q1": {"d1": 1, "d2": 1, "d3": 0}, "q2": {"d4": 2, "d5": 1}, "q3": {"d6": 0}}
    scores = {"A": {"q1": {"d3": 3, "d1": 2, "d2": 1}, "q2": {"d5": 2, "d9": 1}, "q3": {}},
              "B": {"q1": {"d1": 3, "d9": 2}, "q2": {}, "q3": {"d6": 1}}}
    for system, run in scores.items():
        expected = interpolated_precision(table_from_dicts(grades, run))
        got = curves[curves["system"] == system].pivot(index="topic", columns="recall", values="precision")
        np.testing.assert_allclose(got.loc[["q1", "q2", "q3"]].to_numpy(), expected, atol=1e-15)
    assert curves.query("system == 'A' and topic == 'q1' and recall == 1.0")["precision"].item() == \
        pytest.approx(2 / 3)


def test_full_curves_use_every_gold_level_and_the_topic_policies(campaign):
    qrels, runs = campaign
    data = Campaign(read_trec_qrels(qrels), read_trec_run(runs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        full = precision_recall(data, points="full", extra_topics="ignore")
        skipped = precision_recall(data, points="full", missing_topics="skip", extra_topics="ignore")
    assert sorted(full["recall"].unique()) == [0.0, 0.5, 1.0]  # R = 2, 2, 0
    assert set(zip(skipped["system"], skipped["topic"], strict=True)) == {("A", "q1"), ("A", "q2"), ("B", "q1"),
                                                                          ("B", "q3")}
    with pytest.raises(CampaignError, match="has no output for gold topic"):
        precision_recall(data, missing_topics="error")
    with pytest.raises(ParameterError, match="precision_recall: missing_topics must be one of zero, skip, error"):
        precision_recall(data, missing_topics="ignore")
    with pytest.raises(ParameterError, match="precision_recall: extra_topics must be one of error, ignore"):
        precision_recall(data, extra_topics="skip")
    with pytest.raises(ParameterError, match="precision_recall: points must be one of 11, full"):
        precision_recall(data, points=12)
    with pytest.raises(ParameterError, match=r"precision_recall: points item 1 must be in \[0, 1\]"):
        precision_recall(data, points=[0.5, 2])


def test_summary_is_the_mean_and_spread_over_topics(campaign):
    qrels, runs = campaign
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        curves = precision_recall(Campaign(read_trec_qrels(qrels), read_trec_run(runs)), extra_topics="ignore")
    summary = curve_summary(curves)
    assert list(summary.columns) == ["system", "recall", "mean", "q25", "median", "q75", "min", "max", "topics"]
    for (system, recall), group in curves.groupby(["system", "recall"]):
        row = summary[(summary["system"] == system) & (summary["recall"] == recall)].iloc[0]
        values = group["precision"].to_numpy()
        assert row["mean"] == pytest.approx(values.mean()) and row["topics"] == 3
        assert [row["q25"], row["q75"]] == pytest.approx(np.quantile(values, [0.25, 0.75]).tolist())
    with pytest.raises(CurveError, match="expected the columns system, topic, recall, precision"):
        curve_summary(curves.drop(columns="topic"))


# ------------------------------------------------------------------------------------------------ chart
def chart_curves() -> pd.DataFrame:
    gold = {f"q{i}": Organization.from_graded({f"d{j}": 1 for j in range(i + 2)}) for i in range(4)}
    rng = np.random.default_rng(4)
    runs = {name: {t: Organization.from_ranking(list(rng.permutation([f"d{j}" for j in range(8)])))
                   for t in gold} for name in ("BM25", "neural")}
    return precision_recall(Campaign(gold, runs))


def layers(chart) -> list[dict]:
    return chart.to_dict()["layer"]


def test_chart_draws_the_summary_as_a_line_over_a_band():
    curves = chart_curves()
    spec = precision_recall_chart(curves).to_dict()
    band, line = spec["layer"]
    assert band["mark"]["type"] == "area" and line["mark"] == {"type": "line", "point": True,
                                                               "interpolate": "linear"}
    assert band["encoding"]["y"]["field"] == "q25" and band["encoding"]["y2"]["field"] == "q75"
    assert line["encoding"]["y"]["field"] == "mean" and line["encoding"]["color"]["sort"] == ["BM25", "neural"]
    (rows,) = spec["datasets"].values()
    drawn = pd.DataFrame(rows)
    pd.testing.assert_frame_equal(drawn[["system", "recall", "mean", "q25", "q75"]],
                                  curve_summary(curves)[["system", "recall", "mean", "q25", "q75"]],
                                  check_dtype=False)
    ranged = layers(precision_recall_chart(curves, spread="range"))
    assert ranged[0]["encoding"]["y"]["field"] == "min" and ranged[0]["encoding"]["y2"]["field"] == "max"
    assert [layer["mark"]["type"] for layer in layers(precision_recall_chart(curves, spread="none"))] == ["line"]


def test_full_curves_are_drawn_as_steps():
    gold = {"q": Organization.from_graded({"a": 1, "b": 1, "c": 1})}
    runs = {"S": {"q": Organization.from_ranking(["a", "x", "b", "c"])}}
    full = precision_recall(Campaign(gold, runs), points="full")
    band, line = layers(precision_recall_chart(full))
    assert line["mark"] == {"type": "line", "point": False, "interpolate": "step-before"}
    assert band["mark"]["interpolate"] == "step-before"


def test_chart_bad_input_is_named():
    with pytest.raises(ChartDataError, match=r"precision_recall_chart: the table lacks column\(s\) \['topic'\]"):
        precision_recall_chart(pd.DataFrame({"system": ["A"], "recall": [0.0], "precision": [1.0]}))
    bad = pd.DataFrame({"system": ["A"], "topic": ["q"], "recall": [0.0], "precision": ["high"]})
    with pytest.raises(ChartDataError, match="column 'precision' holds a non-number, 'high' \\(row 0\\)"):
        precision_recall_chart(bad)
    with pytest.raises(ParameterError, match="precision_recall_chart: spread must be one of quartiles, range, none"):
        precision_recall_chart(chart_curves(), spread="stderr")


def test_chart_renders_to_png_offline(tmp_path):
    png = save_chart(precision_recall_chart(chart_curves(), title="11-point"), tmp_path / "pr.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


# ------------------------------------------------------------------------------ trec_eval's own outputs
@pytest.mark.parametrize("output, results, levels", [
    ("out.test.aq", "results.test", ELEVEN_POINTS),  # trec_eval -m all_trec -q
    ("out.test.aqc", "results.trunc", ELEVEN_POINTS),  # -c: topic 302 is missing from the run, scored 0
    ("out.test.meas_params", "results.test", (0.10, 0.20, 0.25, 0.50, 0.75)),  # -miprec_at_recall..10,.20,...
])
def test_equals_trec_eval_printed_iprec_at_recall(output, results, levels):
    from tests.conftest import shared_dataset
    from workbench.data import read_trec_eval_output

    folder = shared_dataset("trec_eval_test")
    printed = read_trec_eval_output(folder / output)
    printed = printed[printed["measure"].str.startswith("iprec_at_recall_")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        curves = precision_recall(Campaign(read_trec_qrels(folder / "qrels.test"),
                                           read_trec_run(folder / results)), points=levels)
    means = curve_summary(curves).set_index("recall")["mean"]
    assert len(printed) == len(levels) * (curves["topic"].nunique() + 1)
    for measure, topic, value in printed[["measure", "topic", "value"]].itertuples(index=False):
        recall = float(measure.removeprefix("iprec_at_recall_"))
        ours = means[recall] if topic == "all" else \
            curves.query("topic == @topic and recall == @recall")["precision"].item()
        assert ours == pytest.approx(value, abs=5e-5), (measure, topic)
