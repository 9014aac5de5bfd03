"""The Comparison widget's Tukey view (intervals and homogeneous groups of measure x) and ranking-agreement view
(τ, τ_ap and the swapped pairs between measure x and measure y): what they draw and say is what
workbench.analysis computes."""

from __future__ import annotations

import html

import pandas as pd

from workbench.analysis import ranking_agreement, tukey_hsd
from workbench.widgets import Comparison


def campaign() -> pd.DataFrame:
    """A and B close on P, C far above; P and Q order A and B the other way round."""
    values = {"A": (0.30, 0.6), "B": (0.31, 0.5), "C": (0.90, 0.1)}
    rows = [(s, f"t{t}", m, v + (0.02 if t % 2 else -0.02)) for s, pair in values.items() for t in range(6)
            for m, v in zip(("P", "Q"), pair, strict=True)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def test_tukey_view_draws_the_pairs_and_names_the_groups():
    cmp = Comparison(campaign())
    cmp.view.value = "Tukey's HSD groups"
    assert cmp.message.value == ""
    pairs = tukey_hsd(campaign(), "P")
    (rows,) = [r for r in cmp.chart_widget.spec["datasets"].values() if r and "pair" in r[0]]
    assert {(r["pair"], r["significant"]) for r in rows} == {
        (f"{a} − {b}", s) for a, b, s in pairs[["a", "b", "significant"]].itertuples(index=False)}
    assert "{C} {B, A}" in cmp.summary.value
    cmp.systems.value = ("A",)
    assert "two systems at least" in cmp.message.value and cmp.summary.value == ""


def test_agreement_view_reads_tau_and_the_swaps_between_two_measures():
    cmp = Comparison(campaign())
    cmp.view.value = "ranking agreement (τ)"
    cmp.measure_x.value, cmp.measure_y.value = "P", "Q"
    found = ranking_agreement(campaign(), "P", "Q")
    assert html.escape(str(found)) in cmp.summary.value and found.tau == -1.0
    assert "swapped: B ↔ A, C ↔ A, C ↔ B" in cmp.summary.value
    (rows,) = cmp.chart_widget.spec["datasets"].values()
    assert {(r["system"], r["measure"], r["rank"]) for r in rows} == {
        (s, m, r) for s, m, r in found.rankings.melt(id_vars="system", value_vars=["rank P", "rank Q"])
        .assign(variable=lambda f: f["variable"].str.removeprefix("rank ")).itertuples(index=False)}
    cmp.measure_y.value = "P"
    assert "name two measures" in cmp.message.value
    cmp.view.value = "mean scores"
    assert cmp.message.value == "" and cmp.summary.value == ""
