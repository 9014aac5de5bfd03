"""Chart builders: the spec each one emits (via ``to_dict()``), their checks, and offline export."""

import math
from pathlib import Path

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import given, settings

from workbench.charts import (
    ChartDataError,
    f_alpha_chart,
    history_chart,
    means_chart,
    measure_scatter,
    per_topic_chart,
    save_chart,
    scores_chart,
    strictness_chart,
    uir_heatmap,
    with_data,
)
from workbench.errors import ParameterError, ParameterTypeError

# Amigó et al., SIGIR 2013, Table 9 as printed (R≺, S≺, R∼, S∼ of outputs 1–5): only used as chart input here.
TABLE9_PRINTED = {
    "output 1": (1, 1, 1, 0.97),
    "output 2": (1, 1, 1, 0.8),
    "output 3": (1, 0.86, 1, 0.74),
    "output 4": (0.95, 0.85, 0.96, 0.74),
    "output 5": (0.64, 0.59, 1, 1),
}
MEASURES = ("R≺", "S≺", "R∼", "S∼")

ROOT = Path(__file__).resolve().parents[1]


def table9_frame() -> pd.DataFrame:
    rows = [(o, m, v) for o, values in TABLE9_PRINTED.items() for m, v in zip(MEASURES, values, strict=True)]
    return pd.DataFrame(rows, columns=["output", "measure", "value"])


def dataset(spec: dict) -> list[dict]:
    (rows,) = spec["datasets"].values()
    return rows


def campaign() -> pd.DataFrame:
    """Three systems, three topics, two measures; values chosen by hand."""
    values = {("A", "t1"): (0.9, 0.5), ("A", "t2"): (0.8, 0.6), ("A", "t10"): (0.7, 0.7),
              ("B", "t1"): (0.6, 0.6), ("B", "t2"): (0.5, 0.9), ("B", "t10"): (0.4, 0.8),
              ("C", "t1"): (0.2, 0.3), ("C", "t2"): (0.1, 0.2), ("C", "t10"): (0.3, 0.1)}
    rows = [(s, t, m, v) for (s, t), pair in values.items() for m, v in zip(("P", "IP"), pair, strict=True)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def test_scores_chart_groups_outputs_per_measure_in_the_given_order():
    spec = scores_chart(table9_frame(), title="Table 9").to_dict()
    bars, labels = spec["layer"]
    assert bars["mark"]["type"] == "bar" and labels["mark"]["type"] == "text"
    for layer in (bars["encoding"], labels["encoding"]):
        assert layer["x"]["field"] == "measure" and layer["x"]["sort"] == list(MEASURES)
        assert layer["xOffset"] == {"field": "output", "type": "nominal", "sort": list(TABLE9_PRINTED)}
        assert layer["y"]["scale"] == {"domain": [0, 1]}
    assert labels["encoding"]["text"] == {"field": "value", "type": "quantitative", "format": ".2f"}
    assert bars["encoding"]["color"]["field"] == "output"
    rows = {(r["output"], r["measure"]): r["value"] for r in dataset(spec)}
    assert rows[("output 4", "R∼")] == 0.96 and rows[("output 5", "R≺")] == 0.64 and len(rows) == 20


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["o1", "o2", "o3"]), st.sampled_from(MEASURES),
                          st.floats(0, 1, allow_nan=False)), min_size=1, max_size=12))
def test_scores_chart_draws_exactly_the_rows_it_is_given(rows):
    frame = pd.DataFrame(rows, columns=["output", "measure", "value"])
    spec = scores_chart(frame).to_dict()
    assert [(r["output"], r["measure"], r["value"]) for r in dataset(spec)] == rows
    assert spec["layer"][0]["encoding"]["x"]["sort"] == list(dict.fromkeys(m for _, m, _ in rows))


def test_missing_columns_and_non_numbers_are_named():
    with pytest.raises(ChartDataError, match=r"scores_chart: the table lacks column\(s\) \['measure'\]"):
        scores_chart(pd.DataFrame({"output": ["a"], "value": [1.0]}))
    bad = table9_frame().astype({"value": object})
    bad.loc[3, "value"] = "high"
    with pytest.raises(ChartDataError, match=r"column 'value' holds a non-number, 'high' \(row 3\)"):
        scores_chart(bad)
    with pytest.raises(ChartDataError, match="no rows"):
        scores_chart(table9_frame().iloc[:0])
    with pytest.raises(ParameterTypeError, match="scores_chart: scores must be a pandas DataFrame, got"):
        scores_chart([("a", "R≺", 1.0)])


def test_history_chart_has_one_panel_per_output_and_edits_along_x():
    history = pd.DataFrame([(step, o, m, 0.1 * step) for step in range(3) for o in ("o1", "o2")
                            for m in MEASURES], columns=["step", "output", "measure", "value"])
    spec = history_chart(history).to_dict()
    assert spec["facet"]["column"]["field"] == "output" and spec["facet"]["column"]["sort"] == ["o1", "o2"]
    assert spec["spec"]["encoding"]["x"]["field"] == "step"
    assert spec["spec"]["encoding"]["color"]["sort"] == list(MEASURES)
    assert len(dataset(spec)) == 24


def test_f_alpha_chart_highlights_black_and_rejects_unknown_systems():
    curves = pd.DataFrame([(s, a / 10, 0.5) for s in ("S6", "S10") for a in range(11)],
                          columns=["system", "alpha", "value"])
    spec = f_alpha_chart(curves, highlight=["S6"]).to_dict()
    assert spec["encoding"]["color"] == {"condition": {"test": "datum.highlighted", "value": "black"},
                                         "value": "#999999"}
    assert {r["system"]: r["highlighted"] for r in dataset(spec)} == {"S6": True, "S10": False}
    assert f_alpha_chart(curves).to_dict()["encoding"]["color"]["field"] == "system"
    with pytest.raises(ChartDataError, match=r"highlighted system\(s\) \['S9'\]"):
        f_alpha_chart(curves, highlight=["S9"])


def test_per_topic_chart_keeps_the_two_systems_and_orders_topics_naturally():
    spec = per_topic_chart(campaign(), ["A", "B"], ["P", "IP"]).to_dict()
    assert {r["system"] for r in dataset(spec)} == {"A", "B"} and len(dataset(spec)) == 12
    assert spec["encoding"]["x"]["sort"] == ["t1", "t2", "t10"]
    assert spec["encoding"]["strokeDash"]["field"] == "measure"
    with pytest.raises(ChartDataError, match=r"system\(s\) \['Z'\] are not in the table"):
        per_topic_chart(campaign(), ["A", "Z"], ["P", "IP"])
    with pytest.raises(ChartDataError, match=r"measure\(s\) \['F'\]"):
        per_topic_chart(campaign(), ["A", "B"], ["F"])


def test_uir_heatmap_marks_the_threshold_inclusively_from_either_shape():
    # Amigó et al., JAIR 2011, Table 3: UIR(A, B) = 0.2 and UIR(B, A) = −0.2; C improves A by exactly the 0.25
    # threshold.
    long = pd.DataFrame([("A", "B", 0.2), ("B", "A", -0.2), ("C", "A", 0.25), ("A", "C", -0.25)],
                        columns=["system_a", "system_b", "uir"])
    square = pd.DataFrame({"A": [0.0, -0.2, 0.25], "B": [0.2, 0.0, math.nan],
                           "C": [-0.25, math.nan, math.nan]}, index=["A", "B", "C"])
    for table in (long, square):
        spec = uir_heatmap(table).to_dict()
        cells = {(r["system_a"], r["system_b"]): (r["uir"], r["robust"]) for r in dataset(spec)}
        assert cells == {("A", "B"): (0.2, False), ("B", "A"): (-0.2, False), ("C", "A"): (0.25, True),
                         ("A", "C"): (-0.25, False)}
        assert spec["layer"][0]["encoding"]["x"]["sort"] == ["A", "B", "C"]
        assert spec["title"] == "UIR matrix (outlined: UIR ≥ 0.25)"
    strict = uir_heatmap(long, threshold=0.3).to_dict()
    assert not any(r["robust"] for r in dataset(strict))
    with pytest.raises(ChartDataError, match="square matrix"):
        uir_heatmap(pd.DataFrame({"A": [0.1]}, index=["B"]))


def test_measure_scatter_puts_one_dot_per_system_and_topic():
    spec = measure_scatter(campaign(), "P", "IP").to_dict()
    dots = {(r["system"], r["topic"]): (r["x"], r["y"]) for r in dataset(spec)}
    assert len(dots) == 9 and dots[("B", "t2")] == (0.5, 0.9) and dots[("C", "t10")] == (0.3, 0.1)
    assert spec["encoding"]["x"]["title"] == "P" and spec["encoding"]["y"]["title"] == "IP"
    with pytest.raises(ChartDataError, match="measure 'F' is not in the table"):
        measure_scatter(campaign(), "P", "F")
    doubled = pd.concat([campaign(), campaign().iloc[:1]])
    with pytest.raises(ChartDataError, match="system 'A', topic 't1' has measure 'P' more than once"):
        measure_scatter(doubled, "P", "IP")


def test_means_chart_lets_vega_lite_average_over_topics():
    spec = means_chart(campaign()).to_dict()
    bars, errors = spec["layer"]
    assert bars["encoding"]["y"]["aggregate"] == "mean" and bars["encoding"]["y"]["field"] == "value"
    assert errors["mark"]["extent"] == "stderr"
    assert len(dataset(spec)) == 18


def test_strictness_chart_reads_top_percent_or_other_column_names():
    curve = pd.DataFrame({"measure": ["R·S", "R·S", "Lam%"], "n_percent": [10, 50, 10],
                          "value": [0.9, 0.8, 0.7]})
    spec = strictness_chart(curve, top="n_percent", value="value").to_dict()
    assert [(r["measure"], r["top"], r["strictness"]) for r in dataset(spec)] == [
        ("R·S", 10.0, 0.9), ("R·S", 50.0, 0.8), ("Lam%", 10.0, 0.7)]
    with pytest.raises(ChartDataError, match="strictness_chart: the table lacks"):
        strictness_chart(curve)
    default = curve.rename(columns={"n_percent": "top_percent", "value": "strictness"})
    assert len(dataset(strictness_chart(default).to_dict())) == 3


def test_charts_save_offline_as_svg_and_png(tmp_path):
    svg = save_chart(scores_chart(table9_frame()), tmp_path / "table9.svg").read_text()
    assert svg.startswith("<svg") and "R≺" in svg and "S∼" in svg
    png = save_chart(uir_heatmap(pd.DataFrame([("A", "B", 0.3)], columns=["system_a", "system_b", "uir"])),
                     tmp_path / "sub" / "uir.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    with pytest.raises(ParameterError, match=r"save_chart: path must be a file name ending in .png, .svg or .pdf"):
        save_chart(scores_chart(table9_frame()), tmp_path / "x.jpg")


def without_dataset_names(spec: dict) -> dict:
    (rows,) = spec["datasets"].values()
    return {**spec, "data": None, "datasets": rows}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=20, max_size=20))
def test_with_data_equals_rebuilding_the_chart_on_the_new_rows(values):
    old, new = table9_frame(), table9_frame().assign(value=values)
    swapped = with_data(scores_chart(old).to_dict(), new)
    assert without_dataset_names(swapped) == without_dataset_names(scores_chart(new).to_dict())


def test_with_data_refuses_other_columns_or_several_datasets():
    spec = scores_chart(table9_frame()).to_dict()
    with pytest.raises(ChartDataError, match=r"built on columns \['output', 'measure', 'value'\]"):
        with_data(spec, table9_frame()[["measure", "output", "value"]])
    with pytest.raises(ChartDataError, match="exactly one inline dataset"):
        with_data({**spec, "datasets": {}}, table9_frame())


def test_the_offline_vega_bundle_is_kept_for_the_next_kernel(tmp_path):
    """vl-convert bundles vega for the chart widget in about two seconds per kernel; the first kernel keeps the
    bundle in the cache folder and the next reads it: the same JavaScript as altair's own enable_offline()."""
    import os
    import subprocess
    import sys

    code = """if True:
        import time
        import altair as alt
        from workbench.charts import enable_offline
        from workbench.charts.export import vega_bundle_path
        kept = vega_bundle_path().exists()
        start = time.perf_counter()
        enable_offline()
        print(kept, vega_bundle_path().read_text() == alt.JupyterChart._esm, alt.JupyterChart._is_offline,
              "esm.sh" in alt.JupyterChart._esm, round(time.perf_counter() - start, 1))"""
    env = {**os.environ, "WORKBENCH_CACHE": str(tmp_path), "PYTHONPATH": str(ROOT)}
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=True,
                           env=env).stdout.split() for _ in range(2)]
    assert [run[:4] for run in runs] == [["False", "True", "True", "False"], ["True", "True", "True", "False"]]
    assert float(runs[1][4]) < 0.5 and not list((tmp_path / "vega").glob("*.part"))
