"""Supervised fusion (bayesfuse, probfuse, segfuse, slidefuse, posfuse, mapfuse): what is learnt on training
topics and the held-out fusion equal to ranx's ``*_train`` and ``fuse`` on random campaigns (every normalisation
that keeps each run's own documents; runs of up to 1,000 documents for bayesfuse's bins and segfuse's segments);
optimize_fusion training each fold's model on the other folds and choosing its hyperparameter there, checked
against the search written out; the named errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from tests.fusion_oracle import as_dict, assert_same_as_ranx
from workbench.data.campaign import Campaign
from workbench.errors import ParameterError
from workbench.fusion import (
    SUPERVISED,
    FusionError,
    FusionModelError,
    fuse,
    optimize_fusion,
    train_fusion,
)

ranx = reference_module("ranx")
pytestmark = pytest.mark.usefixtures("ranx")  # ranx compiled once per session: its cost is every such test's

NORMS = [None, "min-max", "min-max-inverted", "zmuv", "rank", "sum", "max"]
PARAMS = {"probfuse": st.integers(1, 8).map(lambda n: {"n_segments": n}),
          "slidefuse": st.integers(0, 4).map(lambda w: {"w": w})}


def _campaign_dicts(seed: int, n_runs: int, n_topics: int, max_docs: int, pool: int):
    """Qrels (grades 0–2, every topic judging some documents) and runs retrieving random subsets of a pool with
    distinct positive scores; ids of one width (ranx's typed containers)."""
    rng = np.random.default_rng(seed)
    width = len(str(pool - 1))
    topics = [f"q{t}" for t in range(n_topics)]
    qrels = {t: {f"d{d:0{width}d}": int(rng.integers(0, 3)) for d in rng.choice(pool, pool // 2, replace=False)}
             for t in topics}
    runs = {}
    for r in range(n_runs):
        runs[f"r{r}"] = {}
        for t in topics:
            docs = rng.choice(pool, int(rng.integers(1, max_docs + 1)), replace=False)
            scores = rng.permutation(docs.size) + rng.random() + 1.0
            runs[f"r{r}"][t] = {f"d{d:0{width}d}": float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, runs


def _only(d: dict, topics) -> dict:
    return {t: d[t] for t in topics}


def _ranx_params(method: str, qrels, runs, norm, params):
    """ranx's training on the normalised training runs (as ranx.optimize_fusion normalises them)."""
    switch = (lambda run: run) if norm is None else ranx.normalization.norm_switch(norm)
    normed = [switch(ranx.Run(run, name=name)) for name, run in runs.items()]
    q = ranx.Qrels(qrels)
    f = ranx.fusion
    return {"bayesfuse": lambda: {"log_odds": f.bayesfuse_train(q, normed)},
            "probfuse": lambda: {"probs": f.probfuse_train(q, normed, params.get("n_segments", 1))},
            "segfuse": lambda: {"probs": f.segfuse_train(q, normed)},
            "slidefuse": lambda: {"probs": f.slidefuse_train(q, normed), "w": params.get("w", 0)},
            "posfuse": lambda: {"probs": f.posfuse_train(q, normed)},
            "mapfuse": lambda: {"map_scores": f.mapfuse_train(q, normed)}}[method]()


def _check_against_ranx(method, qrels, runs, training, norm, params):
    held_out = [t for t in qrels if t not in training]
    model = train_fusion(Campaign.from_dicts(qrels, runs), method, topics=training, norm=norm, **params)
    theirs = _ranx_params(method, _only(qrels, training), {n: _only(r, training) for n, r in runs.items()}, norm,
                          params)
    test_runs = {n: _only(r, held_out) for n, r in runs.items()}
    assert_same_as_ranx(model.fuse(test_runs), ranx.fuse([ranx.Run(r, name=n) for n, r in test_runs.items()],
                                                  norm=norm, method=method, params=theirs))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), method=st.sampled_from(list(SUPERVISED)), norm=st.sampled_from(NORMS),
       data=st.data())
def test_trained_and_fused_as_ranx(seed, method, norm, data):
    rng = np.random.default_rng(seed)
    qrels, runs = _campaign_dicts(seed, int(rng.integers(2, 5)), int(rng.integers(3, 7)), 20, 30)
    topics = list(qrels)
    training = [t for t in topics if rng.random() < 0.6][:len(topics) - 1] or topics[:1]
    params = data.draw(PARAMS[method]) if method in PARAMS else {}
    _check_against_ranx(method, qrels, runs, training, norm, params)


@pytest.mark.parametrize("method", ["bayesfuse", "segfuse", "probfuse", "slidefuse"])
def test_long_runs_reach_every_bin_and_segment(method):
    """Runs of up to 1,000 documents: bayesfuse's bins to rank 1000, segfuse's segments to rank 635 and past."""
    qrels, runs = _campaign_dicts(11, 3, 4, 1000, 1500)
    params = {"probfuse": {"n_segments": 37}, "slidefuse": {"w": 25}}.get(method, {})
    _check_against_ranx(method, qrels, runs, ["q0", "q1", "q2"], "min-max", params)


def test_past_rank_1000_bayesfuse_keeps_the_last_bin():
    """ranx reads past its 1,000 log-odds there; here ranks 1001 on take the odds of ranks 501–1000."""
    qrels = {"q0": {"a0000": 1}, "q1": {"a0600": 1}}
    runs = {"a": {t: {f"a{d:04d}": 2000.0 - d for d in range(1003)} for t in qrels},
            "b": {t: {"a0000": 1.0, "b0000": 0.5} for t in qrels}}
    model = train_fusion(Campaign.from_dicts(qrels, runs), "bayesfuse", topics=["q1"])
    odds = model.estimates[0]
    fused = dict(zip(model.fuse(runs).documents("q0"), model.fuse(runs).scores("q0").tolist(), strict=True))
    floor = np.log(0.001 / 0.999)
    assert odds[-1] == pytest.approx(np.log((1 / 500) / (1 - 1 / 500)))
    assert fused["a1002"] == pytest.approx(odds[-1] + floor) and fused["a0999"] == fused["a1002"]


def test_a_topic_a_run_lacks_is_an_empty_training_ranking():
    qrels = {"q0": {"x": 1}, "q1": {"x": 1, "y": 1}}
    runs = {"a": {"q0": {"x": 2.0, "y": 1.0}, "q1": {"y": 2.0, "x": 1.0}}, "b": {"q0": {"x": 1.0}}}
    model = train_fusion(Campaign.from_dicts(qrels, runs), "posfuse")
    assert [p.tolist() for p in model.estimates] == [[1.0, 0.5], [1.0]]
    mapfuse = train_fusion(Campaign.from_dicts(qrels, runs), "mapfuse")
    assert [p.tolist() for p in mapfuse.estimates] == [[1.0], [0.5]]  # b: AP 1 on q0, 0 on q1


# --------------------------------------------------------------------------------- cross-validation
def _search_by_hand(campaign, method, measure, folds, candidates):
    """Per fold: each candidate trained on the other folds, the fused run scored; the first best on them."""
    chosen = {}
    for label in sorted(set(folds.values())):
        training = [t for t, f in folds.items() if f != label]
        best, best_mean = None, -np.inf
        for candidate in candidates:
            run = train_fusion(campaign, method, topics=training, **candidate).fuse(campaign.runs, topics="union")
            frame = Campaign(campaign.gold, {"f": run}).evaluate([measure], progress=False)
            values = dict(zip(frame["topic"], frame["value"], strict=True))
            mean = np.mean([values[t] for t in training])
            if mean > best_mean:
                best, best_mean = candidate, mean
        chosen[label] = (best, best_mean)
    return chosen


@pytest.mark.parametrize("method", list(SUPERVISED))
def test_optimize_fusion_trains_each_fold_on_the_others(method):
    qrels, runs = _campaign_dicts(4, 3, 6, 15, 20)
    campaign = Campaign.from_dicts(qrels, runs)
    folds = {t: i % 3 for i, t in enumerate(qrels)}
    candidates = [{"n_segments": n} for n in (1, 2, 3, 5)] if method == "probfuse" else \
        [{"w": w} for w in (0, 1, 3)] if method == "slidefuse" else [{}]
    search = optimize_fusion(campaign, method, "AP", folds=folds, grid=candidates)
    expected = _search_by_hand(campaign, method, "AP", folds, candidates)
    for row in search.folds.itertuples():
        candidate, train = expected[row.fold]
        assert row.params == candidate and row.train == pytest.approx(train)
        held_out = [t for t, f in folds.items() if f == row.fold]
        training = [t for t, f in folds.items() if f != row.fold]
        # the fold's held-out topics are fused by ranx's model of the training topics
        theirs = _ranx_params(method, _only(qrels, training), {n: _only(r, training) for n, r in runs.items()},
                              "min-max", candidate)
        test_runs = {n: _only(r, held_out) for n, r in runs.items()}
        mine = {t: dict(zip(search.run.documents(t), search.run.scores(t).tolist(), strict=True))
                for t in held_out}
        fused = ranx.fuse([ranx.Run(r, name=n) for n, r in test_runs.items()], norm="min-max", method=method,
                          params=theirs).to_dict()
        for t in held_out:
            assert mine[t] == pytest.approx(fused[t], rel=1e-9, abs=1e-12)


def test_optimize_fusion_tries_ranx_s_hyperparameters_by_default():
    qrels, runs = _campaign_dicts(5, 2, 4, 8, 12)
    search = optimize_fusion(Campaign.from_dicts(qrels, runs), "slidefuse", "AP", folds=2)
    assert all(1 <= row["w"] <= 100 for row in search.folds["params"])


# ------------------------------------------------------------------------------------------- errors
def _small():
    qrels, runs = _campaign_dicts(6, 2, 3, 5, 8)
    return Campaign.from_dicts(qrels, runs), runs


@pytest.mark.parametrize(("call", "message"), [
    (lambda c: train_fusion(c, "probfuse"), r"train_fusion: n_segments must be given \(an integer in \[1, 100,000\]\)"),
    (lambda c: train_fusion(c, "posfuse", w=3), r"train_fusion: params must name parameters of posfuse \(it takes "
                                                r"none\), not w"),
    (lambda c: train_fusion(c, "probfuse", n_segments=0), r"n_segments must be an integer in \[1, 100,000\], got 0"),
    (lambda c: train_fusion(c, "slidefuse", w=1.5), r"w must be an integer in \[0, 100,000\], got 1.5"),
    (lambda c: train_fusion(c, "rrf"), r"train_fusion: method must be one of bayesfuse, probfuse"),
    (lambda c: train_fusion(c, "posfuse", topics=[]), r"train_fusion: topics must be a list of a non-empty string "
                                                      r"\(1 at least\)"),
    (lambda c: train_fusion(c, "posfuse", norm="borda"), r"train_fusion: norm must be .* \(not borda, which adds "
                                                         "every candidate"),
    (lambda c: train_fusion(c, "posfuse", norm="minmax"), r"train_fusion: norm must be one of"),
    (lambda c: train_fusion(c.runs, "posfuse"), r"train_fusion: campaign must be a Campaign"),
])
def test_misuses_are_named(call, message):
    campaign, _ = _small()
    with pytest.raises(ParameterError, match=message):
        call(campaign)


def test_training_topics_the_campaign_does_not_judge_are_named():
    campaign, _ = _small()
    with pytest.raises(FusionError, match=r"training topics 'q9' are not judged"):
        train_fusion(campaign, "posfuse", topics=["q9"])


@pytest.mark.parametrize(("method", "params"), [
    ("probfuse", {"n_segments": 10 ** 9}), ("probfuse", {"n_segments": 10 ** 5000}), ("slidefuse", {"w": 10 ** 100})])
def test_a_hyperparameter_that_would_allocate_without_bound_is_refused_before_training(method, params, monkeypatch):
    """Audit (issue 38): train_fusion(campaign, "probfuse", n_segments=10**9) allocated 10⁹ estimates per run (and
    slidefuse's w = 10**100 overflowed numpy's integers); the declaration bounds them, refused before the runs
    are read."""
    campaign, _ = _small()
    monkeypatch.setattr("workbench.fusion.supervised.lay_out", lambda *a, **k: pytest.fail("trained"))
    with pytest.raises(ParameterError, match=r"must be an integer in \[[01], 100,000\]") as caught:
        train_fusion(campaign, method, **params)
    assert (caught.value.function, caught.value.parameter) == ("train_fusion", *params)
    with pytest.raises(ParameterError, match=r"optimize_fusion: .* must be an integer in \[[01], 100,000\]"):
        optimize_fusion(campaign, method, "AP", folds=2, grid=[params])


def test_a_hyperparameter_is_kept_as_an_integer():
    campaign, _ = _small()
    assert train_fusion(campaign, "probfuse", n_segments=np.int64(3)).params == {"n_segments": 3}
    model = train_fusion(campaign, "probfuse", n_segments=3.0)
    assert model.params == {"n_segments": 3} and type(model.params["n_segments"]) is int


def test_a_grid_with_weights_is_refused_for_a_supervised_method():
    campaign, _ = _small()
    with pytest.raises(ParameterError, match=r"optimize_fusion: weights must be one of None \(posfuse takes no "
                                             "weights"):
        optimize_fusion(campaign, "posfuse", "AP", folds=2, grid=[{"weights": [0.5, 0.5]}])


def test_a_model_fuses_only_the_runs_it_learnt_from():
    campaign, runs = _small()
    model = train_fusion(campaign, "posfuse")
    with pytest.raises(FusionModelError, match=r"trained on the runs 'r0', 'r1'; got 'x', 'r1'"):
        model.fuse({"x": runs["r0"], "r1": runs["r1"]})
    swapped = model.fuse({"r1": runs["r1"], "r0": runs["r0"]})  # named alike, in another order: the same
    assert as_dict(swapped) == as_dict(model.fuse(runs))
    with pytest.raises(ParameterError, match=r"fuse: method must be one of .* \(a supervised method is trained: "
                                             r"train_fusion\(campaign, method\)\.fuse\(runs\)\)"):
        fuse(runs, "posfuse")
