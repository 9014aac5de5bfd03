"""Condorcet fusion (Montague & Aslam, CIKM 2002), plain and weighted: equal to ranx's ``condorcet`` and
``w_condorcet`` on every random campaign whose pairwise comparison, as ranx makes it, orders each topic's
candidates strictly (the one case where ranx's sort gives one answer); Copeland's rule (1 + wins + ½ ties) written
out pair by pair on any campaign, cycles and ties included; the paradox by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from tests.fusion_oracle import as_dict, assert_same_as_ranx
from workbench.data.campaign import Campaign
from workbench.errors import ParameterError
from workbench.fusion import fuse, optimize_fusion

ranx = reference_module("ranx")
pytestmark = pytest.mark.usefixtures("ranx")  # ranx compiled once per session: its cost is every such test's


def _positions(run: dict[str, float]) -> dict[str, int]:
    """Each document's rank in trec_eval's order (score descending, then document id descending)."""
    return {doc: i for i, doc in enumerate(sorted(run, key=lambda d: (run[d], d), reverse=True))}


def _ranx_orders_strictly(runs: dict, weights: list[float]) -> bool:
    """Whether ranx's comparison (condorcet.py: x before y iff the weight of the runs placing x strictly above y
    is at least the rest of the weight; a run lacking a document places it at 1,000,000) is antisymmetric and
    transitive on every topic's candidates."""
    for topic in next(iter(runs.values())):
        ranked = [_positions(run[topic]) for run in runs.values()]
        candidates = sorted({d for r in ranked for d in r})

        def before(x, y, ranked=ranked):
            votes = sum(w for w, r in zip(weights, ranked, strict=True) if r.get(x, 10**6) < r.get(y, 10**6))
            return votes >= sum(weights) - votes

        for x, y in itertools.combinations(candidates, 2):
            if before(x, y) == before(y, x):
                return False
        for x, y, z in itertools.permutations(candidates, 3):
            if before(x, y) and before(y, z) and not before(x, z):
                return False
    return True


def _copeland_by_hand(runs: dict, weights: list[float]) -> dict[str, dict[str, float]]:
    """1 + wins + ½ ties per document, every pair compared by the weight of the runs placing each above."""
    out = {}
    for topic in next(iter(runs.values())):
        ranked = [_positions(run[topic]) for run in runs.values()]
        candidates = sorted({d for r in ranked for d in r})
        scores = {}
        for x in candidates:
            score = 1.0
            for y in candidates:
                if y == x:
                    continue
                up = sum(w for w, r in zip(weights, ranked, strict=True) if r.get(x, 10**6) < r.get(y, 10**6))
                down = sum(w for w, r in zip(weights, ranked, strict=True) if r.get(y, 10**6) < r.get(x, 10**6))
                score += 1.0 if up - down > 1e-12 * sum(weights) else 0.5 if abs(up - down) <= 1e-12 * sum(
                    weights) else 0.0
            scores[x] = score
        out[topic] = scores
    return out


def _near_consensus(seed: int) -> dict:
    """An odd number of runs, each a noisy copy of one ranking over a random subset of the documents (so that a
    strict majority order is common, abstentions included)."""
    rng = np.random.default_rng(seed)
    n_runs, n_docs = int(rng.choice([3, 5])), int(rng.integers(2, 9))
    base = rng.permutation(n_docs).astype(float)
    runs = {}
    for r in range(n_runs):
        run = {}
        for t in range(2):
            kept = rng.random(n_docs) < 0.85
            kept[rng.integers(n_docs)] = True
            noisy = base + rng.normal(0, 1.2, n_docs)
            run[f"q{t}"] = {f"d{d:02d}": float(noisy[d]) for d in np.flatnonzero(kept)}
        runs[f"r{r}"] = run
    return runs


@pytest.mark.parametrize("weighted", [False, True])
def test_equal_to_ranx_where_its_comparison_orders_strictly(weighted):
    compared = 0
    for seed in range(300):
        runs = _near_consensus(seed)
        weights = np.random.default_rng(seed + 1).uniform(0.1, 2.0, len(runs)).tolist() if weighted else None
        if not _ranx_orders_strictly(runs, weights or [1.0] * len(runs)):
            continue
        compared += 1
        method = "w_condorcet" if weighted else "condorcet"
        mine = fuse(runs, method, weights=weights)
        theirs = ranx.fuse([ranx.Run(r, name=n) for n, r in runs.items()], norm=None, method=method,
                           params={"weights": weights} if weighted else {})
        assert_same_as_ranx(mine, theirs, rel=0)
    assert compared >= 100, compared  # the filter keeps most of these near-consensus campaigns


def _any_campaign(seed: int) -> dict:
    """2–5 runs of two topics over random subsets of 8 documents, scores from a few values (ties in a run too)."""
    rng = np.random.default_rng(seed)
    return {f"r{r}": {f"q{t}": {f"d{d}": float(rng.integers(0, 4)) for d in rng.choice(8, int(rng.integers(1, 9)),
                                                                                  replace=False)}
                      for t in range(2)} for r in range(int(rng.integers(2, 6)))}


@settings(max_examples=40, deadline=None)
@given(runs=st.integers(0, 2**32 - 1).map(_any_campaign), data=st.data())
def test_copeland_scores_pair_by_pair_on_any_campaign(runs, data):
    weighted = data.draw(st.booleans())
    weights = [data.draw(st.sampled_from([0.1, 0.2, 0.3, 0.5, 1.0])) for _ in runs] if weighted else None
    mine = fuse(runs, "w_condorcet" if weighted else "condorcet", weights=weights)
    expected = _copeland_by_hand(runs, weights or [1.0] * len(runs))
    assert as_dict(mine) == {t: pytest.approx(s, abs=0) for t, s in expected.items()}


def test_the_paradox_ties_its_cycle():
    """a > b > c, b > c > a, c > a > b: each document beats one and loses to one; all score 2, ranked by id
    descending. ranx's answer here depends on the order of a Python set."""
    runs = {"r1": {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, "r2": {"q": {"b": 3.0, "c": 2.0, "a": 1.0}},
            "r3": {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}}
    fused = fuse(runs, "condorcet")
    assert fused.documents("q") == ["c", "b", "a"] and fused.scores("q").tolist() == [2.0, 2.0, 2.0]
    weighted = fuse(runs, "w_condorcet", weights=[1.0, 0.1, 0.1])  # r1 alone outweighs the others
    assert weighted.documents("q") == ["a", "b", "c"] and weighted.scores("q").tolist() == [3.0, 2.0, 1.0]


def test_grid_weights_that_sum_alike_tie():
    """0.1 + 0.2 against 0.3 (0.30000000000000004 against 0.3 in binary) is a tie, not a win."""
    runs = {"r1": {"q": {"a": 2.0, "b": 1.0}}, "r2": {"q": {"a": 2.0, "b": 1.0}}, "r3": {"q": {"b": 2.0, "a": 1.0}}}
    fused = fuse(runs, "w_condorcet", weights=[0.1, 0.2, 0.3])
    assert fused.scores("q").tolist() == [1.5, 1.5]


def test_blocks_of_candidates_give_the_same_scores(monkeypatch):
    """The margins are computed in blocks of candidates; one candidate per block changes nothing."""
    rng = np.random.default_rng(5)
    runs = {f"r{r}": {"q": {f"d{d:02d}": float(rng.random()) for d in rng.choice(40, 30, replace=False)}}
            for r in range(4)}
    whole = as_dict(fuse(runs, "condorcet"))
    monkeypatch.setattr("workbench.fusion.condorcet._BLOCK", 1)
    assert as_dict(fuse(runs, "condorcet")) == whole


def test_a_run_without_the_topic_abstains():
    runs = {"r1": {"q": {"a": 2.0, "b": 1.0}, "p": {"a": 1.0}}, "r2": {"q": {"b": 2.0, "a": 1.0}}}
    assert as_dict(fuse(runs, "condorcet", topics="union")) == {"q": {"b": 1.5, "a": 1.5}, "p": {"a": 1.0}}


def test_weights_are_named_and_cross_validated():
    with pytest.raises(ParameterError, match=r"fuse: weights must be one of None \(condorcet takes no weights: use one "
                                             r"of .*w_condorcet"):
        fuse({"a": {"q": {"d": 1.0}}, "b": {"q": {"d": 2.0}}}, "condorcet", weights=[1, 2])
    rng = np.random.default_rng(3)
    qrels = {f"q{t}": {f"d{d}": int(rng.random() < 0.3) for d in range(10)} for t in range(6)}
    runs = {f"r{r}": {t: {f"d{d}": float(rng.random()) for d in range(10)} for t in qrels} for r in range(3)}
    search = optimize_fusion(Campaign.from_dicts(qrels, runs), "w_condorcet", "AP", folds=2, step=0.5)
    assert all(sum(row) == pytest.approx(1.0) for row in search.folds["weights"])
