"""workbench.fusion: every method and normalisation equal to ranx's on random runs (distinct scores, so that every
tool ranks alike), the fused run usable as a read run (written, read back, evaluated), cross-validated weights,
and the named errors for runs, weights and folds that do not fit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fusion_oracle import as_dict as _as_dict
from tests.fusion_oracle import assert_same_as_ranx as _assert_same
from workbench.data.campaign import Campaign
from workbench.data.trec.ranked import RankedRun
from workbench.data.trec.readers import read_trec_run
from workbench.data.trec.writers import write_trec_run
from workbench.fusion import (
    METHODS,
    NORMS,
    FoldError,
    FusionError,
    FusionTopicsError,
    FusionWeightsError,
    fuse,
    normalize,
    optimize_fusion,
)

ranx = pytest.importorskip("ranx")


@st.composite
def random_runs(draw, max_runs=4, max_topics=3, max_docs=12):
    """2..max_runs runs over the same topics, each retrieving a random subset of the documents with distinct
    scores (ranx's order and trec_eval's then agree). Ids of one width: ranx 0.3.21's borda normalisation finds
    'd11' in a run holding 'd1' (numba's typed containers), which these ids avoid."""
    n_runs, n_topics = draw(st.integers(2, max_runs)), draw(st.integers(1, max_topics))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        run = {}
        for t in range(n_topics):
            docs = rng.choice(max_docs, size=rng.integers(1, max_docs + 1), replace=False)
            scores = rng.permutation(len(docs)) + rng.random() + rng.normal(0, 3)  # distinct, any sign
            ranked = sorted(zip(docs, scores, strict=True), key=lambda x: -x[1])
            run[f"q{t}"] = {f"d{d:02d}": float(s) for d, s in ranked}
        runs[f"r{r}"] = run
    return runs


def _ranx_runs(runs):
    return [ranx.Run(run, name=name) for name, run in runs.items()]


MAJORITY = ("condorcet", "w_condorcet")  # equal to ranx where its comparison orders strictly: test_fusion_condorcet
SCORE_METHODS = [m for m, spec in METHODS.items() if spec.kind == "score"]
RANK_METHODS = [m for m, spec in METHODS.items() if spec.kind == "rank" and m not in MAJORITY]
PARAMS = {"gmnz": {"gamma": 0.7}, "rrf": {"k": 20}, "rbc": {"phi": 0.6}, "logn_isr": {"sigma": 0.05}}
RANX_PARAMS = {"gmnz": {"gamma": 0.7}, "rrf": {"k": 20}, "rbc": {"phi": 0.6}, "logn_isr": {"sigma": 0.05}}


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(runs=random_runs(), norm=st.sampled_from([*NORMS, None]), data=st.data())
def test_score_methods_equal_ranx(runs, norm, data):
    method = data.draw(st.sampled_from(SCORE_METHODS))
    weights = [data.draw(st.floats(0.1, 2.0)) for _ in runs] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, norm=norm, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(runs), norm=norm, method=method, params=params))


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(runs=random_runs(), data=st.data())
def test_rank_methods_equal_ranx(runs, data):
    method = data.draw(st.sampled_from(RANK_METHODS))
    weights = [data.draw(st.floats(0.1, 2.0)) for _ in runs] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(runs), norm=None, method=method, params=params))


@pytest.mark.parametrize("method", [m for m in METHODS if m not in MAJORITY])
@pytest.mark.slow
def test_every_method_equals_ranx_on_one_fixed_campaign(method):
    """The fast check of every method (the hypothesis tests above draw many more runs)."""
    runs = _FIXED
    spec = METHODS[method]
    weights = [0.5, 1.5, 1.0] if spec.weighted else None
    mine = fuse(runs, method=method, weights=weights, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    norm = "min-max" if spec.kind == "score" else None
    _assert_same(mine, ranx.fuse(_ranx_runs(runs), norm=norm, method=method, params=params))


_rng = np.random.default_rng(7)
_FIXED = {f"r{r}": {f"q{t}": {f"d{d:02d}": float(s) for d, s in zip(
    _rng.choice(20, 10, replace=False), _rng.permutation(10) + _rng.random(), strict=True)} for t in range(3)}
    for r in range(3)}


@settings(max_examples=30, deadline=None)
@given(runs=random_runs(max_runs=2), norm=st.sampled_from(NORMS))
def test_normalize_equals_ranx(runs, norm):
    if norm == "borda":
        mine = normalize(runs, "borda")
        theirs = ranx.normalization.borda_norm(_ranx_runs(runs))
        for name, run in zip(runs, theirs, strict=True):
            _assert_same(mine[name], run)
        return
    switch = ranx.normalization.norm_switch(norm)
    for name, run in runs.items():
        _assert_same(normalize(run, norm), switch(ranx.Run(run, name=name)))


def test_a_fused_run_is_a_read_run(tmp_path):
    """Written with its scores, read back the same, evaluated beside its parts."""
    fused = fuse(_FIXED, method="rrf")
    assert isinstance(fused, RankedRun)
    path = tmp_path / "fused.run"
    write_trec_run({"rrf": fused}, path)
    back = read_trec_run(path)["rrf"]
    assert _as_dict(back) == _as_dict(fused)
    qrels = {f"q{t}": {f"d{d:02d}": int(d % 3 == 0) for d in range(20)} for t in range(3)}
    campaign = Campaign.from_dicts(qrels, _FIXED)
    results = Campaign(campaign.gold, {**campaign.runs, "rrf": fused}).evaluate(["AP", "nDCG@10"], progress=False)
    assert set(results["system"]) == {"r0", "r1", "r2", "rrf"}
    assert fused["q0"].levels  # an Organization per topic, as every run


def test_rrf_by_hand():
    """Cormack et al.: d2 is 2nd in a and 1st in b: 1/62 + 1/61."""
    fused = fuse({"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0, "d3": 1.0}}}, "rrf")
    assert fused.documents("q") == ["d2", "d1", "d3"]
    assert fused.scores("q").tolist() == pytest.approx([1 / 62 + 1 / 61, 1 / 61, 1 / 62])


def test_read_runs_fuse_from_files(tmp_path):
    path = tmp_path / "two.run"
    path.write_text("q1 Q0 a 1 3.0 x\nq1 Q0 b 2 1.0 x\nq1 Q0 b 1 9.0 y\nq1 Q0 c 2 8.0 y\n")
    fused = fuse(read_trec_run(path), "mnz")
    assert fused.documents("q1") == ["b", "a", "c"]  # b: (0 + 1) · 2; a: 1; c: 0


# ------------------------------------------------------------------------------------------ bad input
def test_runs_with_other_topics_are_named():
    runs = {"a": {"q1": {"d": 1.0}, "q2": {"d": 1.0}}, "b": {"q1": {"d": 2.0}}}
    with pytest.raises(FusionTopicsError, match=r"'b' lacks 'q2'.*topics='union'"):
        fuse(runs, "sum")
    assert list(fuse(runs, "sum", topics="union")) == ["q1", "q2"]
    assert list(fuse(runs, "sum", topics="intersection")) == ["q1"]
    with pytest.raises(FusionTopicsError, match="share no topic"):
        fuse({"a": {"q1": {"d": 1.0}}, "b": {"q2": {"d": 1.0}}}, "sum", topics="intersection")


@pytest.mark.parametrize(("weights", "message"), [
    ([1.0], r"3 runs \(r0, r1, r2\) need 3 weights"),
    ({"r0": 1, "r1": 1, "zz": 1}, r"weights name \['r0', 'r1', 'zz'\] but the runs are"),
    ([1, "a", 2], "finite numbers"),
    ([1, float("nan"), 2], "finite numbers"),
])
def test_weights_that_do_not_match_the_runs_are_named(weights, message):
    with pytest.raises(FusionWeightsError, match=message):
        fuse(_FIXED, "wsum", weights=weights)


def test_other_misuses_are_named():
    with pytest.raises(FusionWeightsError, match="rrf takes no weights"):
        fuse(_FIXED, "rrf", weights=[1, 1, 1])
    with pytest.raises(FusionError, match="unknown fusion method 'combsum'"):
        fuse(_FIXED, "combsum")
    with pytest.raises(FusionError, match="rrf fuses ranks"):
        fuse(_FIXED, "rrf", norm="min-max")
    with pytest.raises(FusionError, match="rrf takes no parameter phi"):
        fuse(_FIXED, "rrf", phi=0.5)
    with pytest.raises(FusionError, match="norm must be one of"):
        fuse(_FIXED, "sum", norm="softmax")
    with pytest.raises(FusionError, match="at least 2 runs"):
        fuse({"a": _FIXED["r0"]}, "sum")
    with pytest.raises(FusionError, match="not one run"):
        fuse(fuse(_FIXED, "sum"), "sum")


# --------------------------------------------------------------------------------------- optimisation
def _campaign():
    rng = np.random.default_rng(3)
    qrels = {f"q{t}": {f"d{d}": int(rng.random() < 0.3) for d in range(15)} for t in range(8)}
    runs = {f"r{r}": {f"q{t}": {f"d{d}": float(rng.random()) for d in range(15)} for t in range(8)}
            for r in range(3)}
    return Campaign.from_dicts(qrels, runs)


def test_optimize_fusion_reports_held_out_scores_chosen_on_the_other_folds():
    campaign = _campaign()
    folds = {f"q{t}": t % 2 for t in range(8)}
    search = optimize_fusion(campaign, "wsum", "AP", folds=folds, step=0.5)
    candidates = [(a / 2, b / 2, c / 2) for a in range(3) for b in range(3) for c in range(3) if a + b + c == 2]
    table = {}
    for weights in candidates:  # the search done by hand
        run = fuse(campaign.runs, "wsum", weights=list(weights), topics="union")
        rows = Campaign(campaign.gold, {"f": run}).evaluate(["AP"], progress=False)
        table[weights] = dict(zip(rows["topic"], rows["value"], strict=True))
    for row in search.folds.itertuples():
        train = [t for t, f in folds.items() if f != row.fold]
        test = [t for t, f in folds.items() if f == row.fold]
        best = max(candidates, key=lambda w: np.mean([table[w][t] for t in train]))  # the first of equals
        assert row.weights == best
        assert row.held_out == pytest.approx(np.mean([table[best][t] for t in test]))
    mine = search.results[search.results["system"] == search.system].set_index("topic")["value"]
    assert mine.to_dict() == pytest.approx({t: table[search.folds.set_index("fold").loc[f, "weights"]][t]
                                            for t, f in folds.items()})
    rerun = Campaign(campaign.gold, {"cv": search.run}).evaluate(["AP"], progress=False).set_index("topic")["value"]
    assert rerun.to_dict() == pytest.approx(mine.to_dict())
    assert set(search.results["system"]) == {"r0", "r1", "r2", "wsum (cv)"}


def test_optimize_fusion_tunes_a_parameter():
    search = optimize_fusion(_campaign(), "rrf", "nDCG@10", folds=4, seed=1)
    assert len(search.folds) == 4 and all("k" in p for p in search.folds["params"])


@pytest.mark.parametrize("measure", ["Purity", "Lam%", "R≺(n=10, wn=0.8)"])
def test_optimize_fusion_refuses_a_measure_of_another_task(measure):
    refusal = r"tunes a ranking measure; .* belongs to the (clustering|filtering|organization) task"
    with pytest.raises(FusionError, match=refusal):
        optimize_fusion(_campaign(), "rrf", measure, folds=2)


@pytest.mark.parametrize(("folds", "message"), [
    ({"q0": 0, "q1": 1}, r"topics 'q2', 'q3'.* are in no fold"),
    ({**{f"q{t}": t % 2 for t in range(8)}, "q99": 0}, r"'q99' are not topics of the campaign"),
    ({f"q{t}": 0 for t in range(8)}, "at least two folds"),
    (1, r"a number of folds in 2\.\.8"),
    (9, r"a number of folds in 2\.\.8"),
])
def test_folds_that_do_not_partition_the_topics_are_named(folds, message):
    with pytest.raises(FoldError, match=message):
        optimize_fusion(_campaign(), "rrf", "AP", folds=folds)


def test_a_fold_column_of_a_frame_works_as_a_mapping():
    frame = pd.DataFrame({"topic": [f"q{t}" for t in range(8)], "fold": [t % 2 for t in range(8)]})
    search = optimize_fusion(_campaign(), "rrf", "AP", folds=frame.set_index("topic")["fold"], grid=[{"k": 60}])
    assert search.folds["fold"].tolist() == [0, 1]


# ------------------------------------------------------------------------------------ min-max-inverted
@settings(max_examples=25, deadline=None)
@given(runs=random_runs(), method=st.sampled_from(RANK_METHODS), data=st.data())
def test_rank_methods_read_the_inverted_ranking_as_ranx_does(runs, method, data):
    """ranx's min-max-inverted ranks each run lowest score first; the rank methods read that ranking."""
    weights = [data.draw(st.floats(0.1, 2.0)) for _ in runs] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, norm="min-max-inverted", **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(runs), norm="min-max-inverted", method=method, params=params))


def test_distances_by_hand():
    """Two runs of distances (lower is better) under min-max-inverted: d1 is first in a and second in b."""
    runs = {"a": {"q": {"d1": 0.5, "d2": 2.5, "d3": 4.5}}, "b": {"q": {"d2": 1.0, "d1": 3.0}}}
    a = normalize(runs["a"], "min-max-inverted")
    assert a.documents("q") == ["d1", "d2", "d3"] and a.scores("q").tolist() == [1.0, 0.5, 0.0]
    fused = fuse(runs, "rrf", norm="min-max-inverted", k=0)
    assert _as_dict(fused) == {"q": pytest.approx({"d1": 1 + 1 / 2, "d2": 1 / 2 + 1, "d3": 1 / 3})}
    assert fused.documents("q")[2] == "d3"


def test_a_constant_topic_inverts_to_zeros_in_trec_eval_order():
    """Every score the maximum: (max − s) / 1e-9 = 0, as ranx's floor gives; ties ranked by document id
    descending, as every ranking of the workbench."""
    run = normalize({"q": {"a": 2.0, "c": 2.0, "b": 2.0}}, "min-max-inverted")
    assert run.documents("q") == ["c", "b", "a"] and run.scores("q").tolist() == [0.0, 0.0, 0.0]


def test_other_normalisations_are_still_refused_by_rank_methods():
    with pytest.raises(FusionError, match="no normalisation but min-max-inverted"):
        fuse({"a": {"q": {"d": 1.0}}, "b": {"q": {"d": 2.0}}}, "rrf", norm="min-max")
