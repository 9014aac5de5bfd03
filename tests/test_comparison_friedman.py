"""The Comparison widget's Friedman views (Nemenyi's and Conover's single-step post-hoc of measure x): the pairs
it draws, their verdicts and the groups it names are what ``workbench.analysis.friedman`` computes."""

from __future__ import annotations

import html

import numpy as np
import pandas as pd
import pytest

from workbench.analysis import friedman
from workbench.widgets import Comparison


def campaign() -> pd.DataFrame:
    """C above A above B on every topic but one; D between."""
    rng = np.random.default_rng(4)
    level = {"A": 0.5, "B": 0.3, "C": 0.9, "D": 0.45}
    rows = [(s, f"t{t}", "P", v + rng.normal(0, 0.08)) for s, v in level.items() for t in range(10)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


@pytest.mark.parametrize(("view", "posthoc"), [("Friedman + Nemenyi groups", "nemenyi"),
                                               ("Friedman + Conover groups", "conover")])
def test_friedman_views_draw_the_pairs_and_name_the_groups(view, posthoc):
    cmp = Comparison(campaign())
    cmp.view.value = view
    assert cmp.message.value == ""
    pairs = friedman(campaign(), "P", posthoc=posthoc, correction="single-step")
    (rows,) = [r for r in cmp.chart_widget.spec["datasets"].values() if r and "pair" in r[0]]
    assert {(r["pair"], r["significant"], r["mean_difference"]) for r in rows} == {
        (f"{a} − {b}", s, d) for a, b, s, d in pairs[["a", "b", "significant", "rank_difference"]]
        .itertuples(index=False)}
    groups = " ".join("{" + ", ".join(g) + "}" for g in pairs.attrs["groups"])
    assert html.escape(groups) in cmp.summary.value and "Friedman's test</b>: χ² = " in cmp.summary.value
    assert pairs["significant"].any() and not pairs["significant"].all()
    cmp.systems.value = ("A",)
    assert "two systems at least" in cmp.message.value and cmp.summary.value == ""
