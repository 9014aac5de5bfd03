"""Strictness (Amigó et al., SIGIR 2013, §4.1 and Amigó et al., filtering metrics comparison, §6.3, named apart) and
robustness (Amigó et al., filtering metrics comparison, §6.4)."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.analysis import ResultsError
from workbench.analysis.strictness import rank_gap_strictness, robustness, top_n_strictness
from workbench.errors import ParameterError

# Four outputs (2 systems × 2 topics) scored by m and n, worked by hand below.
# ascending ranks: m → A1 4, B1 1, A2 3, B2 2;  n → A1 1, B1 2, A2 3, B2 4
HAND = [("A", 1, "m", .9), ("A", 1, "n", .1), ("B", 1, "m", .1), ("B", 1, "n", .2),
        ("A", 2, "m", .5), ("A", 2, "n", .6), ("B", 2, "m", .3), ("B", 2, "n", .9)]


def hand() -> pd.DataFrame:
    return pd.DataFrame(HAND, columns=["system", "topic", "measure", "value"])


def test_rank_gap_strictness_by_hand():
    # m − n gaps: 3, −1, 0, −2 → −3/4; n − m gaps: −3, 1, 0, 2 → −2/4; the 2 largest m gaps 3, 0 → −1.5/4
    table = rank_gap_strictness(hand()).set_index("measure")
    assert table.loc["m", "strictness"] == -0.75 and table.loc["n", "strictness"] == -0.5
    assert table.loc["m", "output"] == ("A", 1) and table.loc["m", "by"] == "n"
    assert table.loc["n", "output"] == ("B", 2)
    two = rank_gap_strictness(hand(), ["m"], against=["n"], top=2)
    assert two["strictness"].tolist() == [-0.375] and two["against"].tolist() == ["n"]


def test_rank_gap_strictness_of_an_identical_measure_is_zero():
    frame = hand()
    copy = frame[frame.measure == "m"].assign(measure="m2")
    table = rank_gap_strictness(pd.concat([frame, copy]), ["m"], against=["m2"])
    assert table["strictness"].tolist() == [0.0]


def test_top_n_strictness_by_hand():
    # top 25 % by m = A1, ranked 1/4 by n; top 25 % by n = B2, ranked 2/4 by m;
    # top 50 %: {A1, A2} → 1/4 and {B2, A2} → 2/4
    table = top_n_strictness(hand(), percents=[25, 50, 100])
    m = table[table.measure == "m"].set_index("top_percent")["strictness"]
    n = table[table.measure == "n"].set_index("top_percent")["strictness"]
    assert m.tolist() == [0.25, 0.25, 0.25] and n.tolist() == [0.5, 0.5, 0.25]
    assert set(table["by"]) == {"m", "n"}


def test_top_n_includes_ties_at_the_boundary():
    rows = [("A", 1, "m", .5), ("B", 1, "m", .5), ("C", 1, "m", .1),
            ("A", 1, "n", .9), ("B", 1, "n", .1), ("C", 1, "n", .5)]
    table = top_n_strictness(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]), ["m"],
                             percents=[10])
    assert table["strictness"].tolist() == [1 / 3]  # A and B tie for the top: B is n's worst output


def campaign(seed: int = 0, systems: int = 6, topics: int = 8) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    quality = rng.random(systems)
    rows = []
    for s, t in itertools.product(range(systems), range(topics)):
        rows.append((f"S{s}", t, "stable", quality[s] + rng.normal(0, 0.05)))
        rows.append((f"S{s}", t, "noisy", rng.random()))
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def test_robustness_equals_scipy_spearman_over_all_pairs():
    frame = campaign()
    table = robustness(frame).set_index("measure")
    for measure in ("stable", "noisy"):
        wide = frame[frame.measure == measure].pivot(index="system", columns="topic", values="value")
        pairs = itertools.combinations(wide.columns, 2)
        rhos = [stats.spearmanr(wide[a], wide[b]).statistic for a, b in pairs]
        assert table.loc[measure, "robustness"] == pytest.approx(np.mean(rhos), abs=1e-12)
        assert table.loc[measure, "pairs"] == 28 and table.loc[measure, "undefined"] == 0
    assert table.loc["stable", "robustness"] > table.loc["noisy", "robustness"]


def test_robustness_random_pairs_are_seeded_and_bounded():
    frame = campaign(1)
    first = robustness(frame, ["stable"], pairs=10, seed=3)
    assert first.equals(robustness(frame, ["stable"], pairs=10, seed=3))
    assert first.loc[0, "pairs"] == 10 and -1 <= first.loc[0, "robustness"] <= 1
    with pytest.raises(ParameterError, match=r"robustness: pairs must be an integer in \[1, 28\], got 29"):
        robustness(frame, ["stable"], pairs=29)


def test_robustness_leaves_out_topics_without_a_ranking():
    frame = campaign(2, topics=4)
    frame.loc[(frame.topic == 0) & (frame.measure == "noisy"), "value"] = 0.5
    row = robustness(frame, ["noisy"]).iloc[0]
    assert row["pairs"] == 3 and row["undefined"] == 3


def test_bad_input():
    with pytest.raises(ResultsError, match="compares 'm' with other measures, but there are none"):
        rank_gap_strictness(hand()[lambda f: f.measure == "m"])
    assert rank_gap_strictness(hand(), ["m"])["against"].tolist() == ["n"]
    with pytest.raises(ParameterError, match="top must be"):
        rank_gap_strictness(hand(), top=0)
    with pytest.raises(ParameterError, match="percents"):
        top_n_strictness(hand(), percents=[0])
    frame = hand()
    frame.loc[2, "value"] = np.nan
    with pytest.raises(ResultsError, match="system 'B' on topic 1 for measure 'm' is NaN"):
        top_n_strictness(frame)
    with pytest.raises(ResultsError, match="2 systems or more needed"):
        robustness(campaign()[lambda f: f.system == "S0"])


def test_strictness_bounds_on_a_random_campaign():
    """Rank-gap strictness lies in (−1, 0]; top-n strictness in (0, 1] and never rises as the top grows."""
    frame = campaign(4, systems=5, topics=6)
    gap = rank_gap_strictness(frame)
    assert ((gap["strictness"] > -1) & (gap["strictness"] <= 0)).all()
    curve = top_n_strictness(frame, percents=[10, 30, 60, 100])
    assert ((curve["strictness"] > 0) & (curve["strictness"] <= 1)).all()
    for _, rows in curve.groupby("measure"):
        assert (np.diff(rows["strictness"].to_numpy()) <= 1e-12).all()
