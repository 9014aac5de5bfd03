"""The critical-difference diagram (Demšar, JMLR 2006, Fig. 1) and the sign plot as altair specs: what they draw
is what the post-hoc table says (mean ranks, groups, the critical difference, the p-value classes); the frames
they refuse. The drawing itself is checked in chromium by ``tests/test_browser_charts.py``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.analysis import friedman
from workbench.analysis.posthoc_family import posthoc
from workbench.charts.builders import ChartDataError
from workbench.charts.posthoc import critical_difference_chart, sign_plot


def campaign(k: int = 5, n: int = 20, seed: int = 3) -> pd.DataFrame:
    scores = np.random.default_rng(seed).random((k, n)) + np.arange(k)[:, None] * 0.1
    return pd.DataFrame([(f"sys{i}", t, "AP", v) for i, row in enumerate(scores) for t, v in enumerate(row)],
                        columns=["system", "topic", "measure", "value"])


def layers_with(spec: dict, mark: str) -> list[dict]:
    return [layer for layer in spec["layer"] if layer["mark"]["type"] == mark]


def data_of(spec: dict, layer: dict) -> list[dict]:
    return spec["datasets"][layer["data"]["name"]]


def test_the_diagram_places_each_system_at_its_mean_rank_and_draws_the_critical_difference():
    pairs = friedman(campaign(), "AP")
    spec = critical_difference_chart(pairs).to_dict()
    texts = [row for layer in layers_with(spec, "text") for row in data_of(spec, layer) if "system" in row]
    k = 5
    assert {row["system"] for row in texts} == set(pairs.attrs["mean_ranks"])
    for row in texts:  # Demšar's rank: 1 the best
        assert f"{k + 1 - pairs.attrs['mean_ranks'][row['system']]:.2f}" in row["text"]
    cd = stats.studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * 20))
    assert f"CD = {cd:.2f}" in [row.get("text") for layer in layers_with(spec, "text") for row in data_of(spec, layer)]
    bars = [layer for layer in layers_with(spec, "rule") if layer["mark"].get("strokeWidth") == 4]
    assert len(data_of(spec, bars[0])) == sum(len(g) > 1 for g in pairs.attrs["groups"])


def test_holm_has_no_critical_difference_and_dunn_no_diagram():
    spec = critical_difference_chart(friedman(campaign(), "AP", posthoc="conover")).to_dict()
    assert not any("CD = " in str(row.get("text")) for layer in layers_with(spec, "text")
                   for row in data_of(spec, layer))
    critical_difference_chart(posthoc(campaign(), "AP", "siegel-friedman")).to_dict()
    with pytest.raises(ChartDataError, match="critical_difference_chart: draws the pairs of friedman"):
        critical_difference_chart(posthoc(campaign(), "AP", "dunn"))
    with pytest.raises(ChartDataError, match="lacks|low"):
        critical_difference_chart(pd.DataFrame({"a": ["x"], "b": ["y"]}))


def test_the_sign_plot_classes_every_pair_both_ways():
    pairs = posthoc(campaign(), "AP", "dunn", correction="holm")
    spec = sign_plot(pairs).to_dict()
    cells = spec["datasets"][spec["data"]["name"]]
    assert len(cells) == 2 * len(pairs)
    for cell in cells:
        p = cell["pvalue"]
        expected = ("p < 0.001" if p < 0.001 else "p < 0.01" if p < 0.01 else "p < 0.05" if p < 0.05
                    else "not significant")
        assert cell["class"] == expected
    assert {c["class"] for c in cells} >= {"not significant", "p < 0.001"}
