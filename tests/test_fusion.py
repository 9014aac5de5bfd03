"""workbench.fusion: every method and normalisation equal to ranx's on random runs (distinct scores, so that every
tool ranks alike) wherever ranx's rule is the workbench's, the documented rule of each degenerate topic (all
negative, all zero, constant, one document, huge or tiny magnitudes), infinite scores and overflowing sums refused
with system, topic and document, the fused run usable as a read run (written, read back, evaluated),
cross-validated weights, and the named errors for runs, weights and folds that do not fit."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.fusion_oracle import as_dict as _as_dict
from tests.fusion_oracle import assert_same_as_ranx as _assert_same
from workbench.data.campaign import Campaign
from workbench.data.trec.ranked import RankedRun
from workbench.data.trec.readers import read_trec_run
from workbench.data.trec.writers import write_trec_run
from workbench.errors import ParameterError, ParameterTypeError
from workbench.fusion import (
    METHODS,
    NORMS,
    SUPERVISED,
    FoldError,
    FusionScoreError,
    FusionTopicsError,
    fuse,
    normalize,
    optimize_fusion,
)
from workbench.fusion.optimize import MAX_CANDIDATES

RANX_FLOOR = 1e-9  # ranx divides by at least this


@st.composite
def random_runs(draw, max_runs=4, max_topics=3, max_docs=12):
    """2..max_runs runs over the same topics, each retrieving a random subset of the documents with distinct
    scores (ranx's order and trec_eval's then agree), of any sign or (drawn) positive ones. Ids of one width:
    ranx 0.3.21's borda normalisation finds 'd11' in a run holding 'd1' (numba's typed containers), which these
    ids avoid."""
    n_runs, n_topics = draw(st.integers(2, max_runs)), draw(st.integers(1, max_topics))
    seed = draw(st.integers(0, 2**32 - 1))
    positive = draw(st.booleans())
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        run = {}
        for t in range(n_topics):
            docs = rng.choice(max_docs, size=rng.integers(1, max_docs + 1), replace=False)
            scores = rng.permutation(len(docs)) + rng.random() + rng.normal(0, 3)  # distinct, any sign
            if positive:
                scores = scores - scores.min() + 0.5
            ranked = sorted(zip(docs, scores, strict=True), key=lambda x: -x[1])
            run[f"q{t}"] = {f"d{d:02d}": float(s) for d, s in ranked}
        runs[f"r{r}"] = run
    return runs


def _ranx_runs(ranx, runs):
    return [ranx.Run(run, name=name) for name, run in runs.items()]


def _max_refused(runs) -> list[tuple[str, str]]:
    """The (system, topic) pairs ``max`` normalisation refuses: the highest score is not positive (all zero
    excepted)."""
    return [(name, topic) for name, run in runs.items() for topic, scores in run.items()
            if max(scores.values()) <= 0 and any(scores.values())]


def _ranx_rule_is_ours(runs, norm) -> bool:
    """Whether ranx's floor of 1e-9 leaves every (run, topic) of ``runs`` as the workbench normalises it: each
    denominator (range, highest score, Σ(s − min), std) is 0 or at least 1e-9; scores distinct for rank and
    borda (ties are broken otherwise)."""
    for run in runs.values():
        for scores in run.values():
            s = np.array(list(scores.values()))
            if norm in ("rank", "borda"):
                if len(set(s.tolist())) < s.size:
                    return False
                continue
            denominator = {"min-max": s.max() - s.min(), "min-max-inverted": s.max() - s.min(), "max": s.max(),
                           "sum": (s - s.min()).sum(),
                           "zmuv": s.std(), None: 0.0}[norm]
            if 0 < denominator < RANX_FLOOR or (norm == "max" and denominator < 0):
                return False
    return True


SCORE_METHODS = [m for m, spec in METHODS.items() if spec.kind == "score"]
MAJORITY = ("condorcet", "w_condorcet")  # equal to ranx where its comparison orders strictly: test_fusion_condorcet
RANK_METHODS = [m for m, spec in METHODS.items() if spec.kind == "rank" and m not in MAJORITY]
PARAMS = {"gmnz": {"gamma": 0.7}, "rrf": {"k": 20}, "rbc": {"phi": 0.6}, "logn_isr": {"sigma": 0.05}}
RANX_PARAMS = {"gmnz": {"gamma": 0.7}, "rrf": {"k": 20}, "rbc": {"phi": 0.6}, "logn_isr": {"sigma": 0.05}}
WEIGHTS = st.lists(st.floats(0.1, 2.0), min_size=4, max_size=4)  # the first len(runs) are used

# Issue 35: CI drew a topic whose scores in one run are all negative, with norm="max"; ranx divides them by 1e-9.
ALL_NEGATIVE = {"r0": {"q0": {"d03": -1.906470617800, "d06": -2.906470617800}},
                "r1": {"q0": {"d03": 1.5, "d01": 0.5}}}


@settings(max_examples=25)
@given(runs=random_runs(), norm=st.sampled_from([*NORMS, None]), method=st.sampled_from(SCORE_METHODS),
       weights=WEIGHTS)
@example(runs=ALL_NEGATIVE, norm="max", method="sum", weights=[1.0] * 4)
def test_score_methods_equal_ranx(ranx, runs, norm, method, weights):
    """Equal to ranx where ranx's rule is the workbench's; where a topic's highest score is not positive, max
    normalisation is refused, naming the system and the topic."""
    weights = weights[:len(runs)] if METHODS[method].weighted else None
    refused = _max_refused(runs) if norm == "max" else []
    if refused:
        system, topic = refused[0]
        with pytest.raises(FusionScoreError, match=f"system {system!r}, topic {topic!r} has highest score"):
            fuse(runs, method=method, weights=weights, norm=norm, **PARAMS.get(method, {}))
        return
    assert _ranx_rule_is_ours(runs, norm)
    mine = fuse(runs, method=method, weights=weights, norm=norm, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(ranx, runs), norm=norm, method=method, params=params))


@settings(max_examples=25)
@given(runs=random_runs(), method=st.sampled_from(RANK_METHODS), weights=WEIGHTS)
def test_rank_methods_equal_ranx(ranx, runs, method, weights):
    weights = weights[:len(runs)] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(ranx, runs), norm=None, method=method, params=params))


@pytest.mark.parametrize("method", [m for m in METHODS if m not in MAJORITY])
def test_every_method_equals_ranx_on_one_fixed_campaign(ranx, method):
    """The fast check of every method (the hypothesis tests above draw many more runs)."""
    runs = _FIXED
    spec = METHODS[method]
    weights = [0.5, 1.5, 1.0] if spec.weighted else None
    mine = fuse(runs, method=method, weights=weights, **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    norm = "min-max" if spec.kind == "score" else None
    _assert_same(mine, ranx.fuse(_ranx_runs(ranx, runs), norm=norm, method=method, params=params))


_rng = np.random.default_rng(7)
_FIXED = {f"r{r}": {f"q{t}": {f"d{d:02d}": float(s) for d, s in zip(
    _rng.choice(20, 10, replace=False), _rng.permutation(10) + _rng.random(), strict=True)} for t in range(3)}
    for r in range(3)}


@settings(max_examples=30)
@given(runs=random_runs(max_runs=2), norm=st.sampled_from(NORMS))
@example(runs=ALL_NEGATIVE, norm="max")
def test_normalize_equals_ranx(ranx, runs, norm):
    if norm == "borda":
        mine = normalize(runs, "borda")
        theirs = ranx.normalization.borda_norm(_ranx_runs(ranx, runs))
        for name, run in zip(runs, theirs, strict=True):
            _assert_same(mine[name], run)
        return
    switch = ranx.normalization.norm_switch(norm)
    for name, run in runs.items():
        if norm == "max" and _max_refused({name: run}):
            with pytest.raises(FusionScoreError, match="has highest score"):
                normalize(run, norm)
            continue
        assert _ranx_rule_is_ours({name: run}, norm)
        _assert_same(normalize(run, norm), switch(ranx.Run(run, name=name)))


# ------------------------------------------------------------------------------------- degenerate topics
R = 1 / 3
ZMUV = math.sqrt(1.5)  # (s - mean) / std of three equally spaced scores: ±sqrt(3/2) and 0
DEGENERATE = {
    # name: (scores of one topic, {norm: the normalised scores in the same order, or the refusal's pattern})
    "all negative": ({"a": -1.0, "b": -3.0, "c": -2.0},
                     {"min-max": [1, 0, 0.5], "max": "'q' has highest score -1.0", "sum": [2 * R, 0, R],
                      "zmuv": [ZMUV, -ZMUV, 0], "rank": [1, R, 2 * R]}),
    "all zero": ({"a": 0.0, "b": 0.0, "c": 0.0},
                 {"min-max": [0, 0, 0], "max": [0, 0, 0], "sum": [0, 0, 0], "zmuv": [0, 0, 0],
                  "rank": [R, 2 * R, 1]}),  # ties in trec_eval's order: document id descending
    "constant": ({"a": 0.1, "b": 0.1, "c": 0.1},  # ranx's zmuv gives ±1.4e-8: the mean of three 0.1 is not 0.1
                 {"min-max": [0, 0, 0], "max": [1, 1, 1], "sum": [0, 0, 0], "zmuv": [0, 0, 0],
                  "rank": [R, 2 * R, 1]}),
    "one document": ({"a": 5.0}, {"min-max": [0], "max": [1], "sum": [0], "zmuv": [0], "rank": [1]}),
    "one negative document": ({"a": -5.0}, {"min-max": [0], "max": "has highest score -5.0", "sum": [0],
                                            "zmuv": [0], "rank": [1]}),
    "zero above negatives": ({"a": 0.0, "b": -1.0}, {"min-max": [1, 0], "max": "has highest score 0.0",
                                                     "sum": [1, 0], "zmuv": [1, -1], "rank": [1, 0.5]}),
    "huge": ({"a": 1e308, "b": -1e308, "c": 0.0},
             {"min-max": [1, 0, 0.5], "max": [1, -1, 0], "sum": [2 * R, 0, R], "zmuv": [ZMUV, -ZMUV, 0],
              "rank": [1, R, 2 * R]}),
    "tiny": ({"a": 3e-300, "b": 1e-300, "c": 2e-300},  # ranx: 3e-291, 1e-291, 2e-291 under max
             {"min-max": [1, 0, 0.5], "max": [1, R, 2 * R], "sum": [2 * R, 0, R], "zmuv": [ZMUV, -ZMUV, 0],
              "rank": [1, R, 2 * R]}),
    "subnormal": ({"a": 3 * 5e-324, "b": 5e-324, "c": 2 * 5e-324},
                  {"min-max": [1, 0, 0.5], "max": [1, R, 2 * R], "sum": [2 * R, 0, R], "zmuv": [ZMUV, -ZMUV, 0],
                   "rank": [1, R, 2 * R]}),
    "range below ranx's floor": ({"a": 1 + 4e-16, "b": 1.0},  # ranx: min-max 4e-7, sum 4e-7, zmuv 4e-7 / 1e-9
                                 {"min-max": [1, 0], "max": [1, 1 / (1 + 4e-16)], "sum": [1, 0], "zmuv": [1, -1],
                                  "rank": [1, 0.5]}),
    "quotient beyond a double": ({"a": 1e-300, "b": -1e300},
                                 {"min-max": [1, 0], "max": "document 'b' has score -1e\\+300, which divided",
                                  "sum": [1, 0], "zmuv": [1, -1], "rank": [1, 0.5]}),
}


for _scores, _expected in DEGENERATE.values():  # min-max-inverted: 1 − min-max, a constant topic 0 as under min-max
    _constant = len(set(_scores.values())) == 1
    _expected["min-max-inverted"] = [0.0 if _constant else 1.0 - v for v in _expected["min-max"]]


@pytest.mark.parametrize("norm", [n for n in NORMS if n != "borda"])
@pytest.mark.parametrize("case", list(DEGENERATE))
def test_degenerate_topics_normalise_by_their_rule(case, norm):
    scores, expected = DEGENERATE[case]
    run = {"q": scores}
    if isinstance(expected[norm], str):
        with pytest.raises(FusionScoreError, match=f"system 'run', topic {expected[norm]}" if "'q'" in
                           expected[norm] else expected[norm]):
            normalize(run, norm)
        return
    normalised = normalize(run, norm)
    got = dict(zip(normalised.documents("q"), normalised.scores("q").tolist(), strict=True))
    assert [got[d] for d in scores] == pytest.approx(expected[norm], rel=1e-12, abs=0)


def test_borda_of_a_degenerate_topic_counts_ranks_only():
    """Borda reads ranks: a constant or all-negative run ranks its documents by id (descending), as trec_eval."""
    runs = {"a": {"q": {"x": 0.0, "y": 0.0}}, "b": {"q": {"y": -3.0, "z": -1.0}}}
    normalised = normalize(runs, "borda")
    assert _as_dict(normalised["a"])["q"] == pytest.approx({"y": 1.0, "x": 2 / 3, "z": 0.5 - 1 / 6})
    assert _as_dict(normalised["b"])["q"] == pytest.approx({"z": 1.0, "y": 2 / 3, "x": 0.5 - 1 / 6})


FINITE = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=200)
@given(scores=st.lists(FINITE, min_size=1, max_size=8), k=st.integers(-1100, 1100))
@example(scores=[-1.906470617800, -2.906470617800], k=0)
@example(scores=[1e308, -1e308, 0.0], k=-1)
def test_score_normalisations_keep_their_rule_at_every_magnitude(scores, k):
    """min-max in [0, 1], sum in [0, 1] summing to 1, zmuv of mean 0 and std 1, max at most 1, each preserving
    the order, 0 on a constant topic; each unchanged when the topic's scores are multiplied by 2**k (kept where
    no score leaves the normal range, so that the scaled scores are exact)."""
    run = {"q": {f"d{i}": s for i, s in enumerate(scores)}}
    s = np.array(scores)
    constant = s.max() == s.min()
    for norm in ("min-max", "sum", "zmuv", "max"):
        try:
            got = normalize(run, norm)
        except FusionScoreError:
            assert norm == "max"
            continue
        values = np.array([dict(zip(got.documents("q"), got.scores("q").tolist(), strict=True))[f"d{i}"]
                           for i in range(len(scores))])
        assert np.isfinite(values).all()
        assert (np.diff(values[np.argsort(s, kind="stable")]) >= 0).all()  # order kept (ties may appear)
        if constant and norm != "max":
            assert (values == 0).all()
        elif norm in ("min-max", "sum"):
            assert values.min() == 0 and values.max() <= 1
            assert norm != "min-max" or values.max() == 1
            assert norm != "sum" or math.fsum(values) == pytest.approx(1)
        elif norm == "zmuv":
            assert values.mean() == pytest.approx(0, abs=1e-9) and values.std() == pytest.approx(1)
        else:
            assert values.max() == 1 or (s == 0).all()
        with np.errstate(over="ignore"):
            scaled = np.ldexp(s, k)
        normal = np.abs(s[s != 0]) if (s != 0).any() else np.array([1.0])
        if np.isfinite(scaled).all() and (np.abs(scaled[s != 0]) >= np.finfo(float).tiny).all() and \
                (normal >= np.finfo(float).tiny).all():
            again = normalize({"q": {f"d{i}": v for i, v in enumerate(scaled.tolist())}}, norm)
            assert again.scores("q").tolist() == got.scores("q").tolist()


# ---------------------------------------------------------------------------------- degenerate fusions
def _runs_with(degenerate: dict[str, float]) -> dict:
    """Two ordinary runs and a third whose topic q holds ``degenerate``."""
    return {"r0": {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, "r1": {"q": {"d2": 0.9, "d4": 0.5}},
            "r2": {"q": degenerate}}


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("case", ["all zero", "constant", "one document"])
def test_a_constant_topic_fuses_as_any_other_constant(method, case):
    """A run whose topic is constant brings 0 per document under min-max (every score is its minimum) and its
    ranks (document id descending) to the rank methods, whatever the constant."""
    scores, _ = DEGENERATE[case]
    weights = [0.5, 1.5, 1.0] if METHODS[method].weighted else None
    fused = fuse(_runs_with(scores), method, weights=weights)
    other = fuse(_runs_with(dict.fromkeys(scores, 42.0)), method, weights=weights)
    assert _as_dict(fused) == _as_dict(other)
    assert np.isfinite(fused.scores("q")).all()


@pytest.mark.parametrize("method", list(METHODS))
@pytest.mark.parametrize("norm", ["auto", "min-max", "sum", "zmuv", "max", "rank", "borda"])
def test_huge_and_tiny_magnitudes_fuse_as_the_same_runs_near_1(method, norm):
    """Every score of the runs multiplied by 2**1000 or 2**-1000: the same fused run (the normalisations are scale
    invariant and see no overflow), and the rank methods read only the order."""
    if METHODS[method].kind == "rank" and norm != "auto":
        return
    weights = [0.5, 1.5, 1.0] if METHODS[method].weighted else None
    runs = _runs_with({"d3": 4.0, "d5": 2.5})
    expected = _as_dict(fuse(runs, method, weights=weights, norm=norm))
    for factor in (2.0 ** 1000, 2.0 ** -1000):
        scaled = {name: {t: {d: s * factor for d, s in scores.items()} for t, scores in run.items()}
                  for name, run in runs.items()}
        assert _as_dict(fuse(scaled, method, weights=weights, norm=norm)) == expected


@pytest.mark.parametrize("method", SCORE_METHODS)
def test_max_normalisation_of_an_all_negative_topic_is_refused_by_every_score_method(method):
    weights = [1.0, 1.0, 1.0] if METHODS[method].weighted else None
    with pytest.raises(FusionScoreError, match="system 'r2', topic 'q' has highest score -1.0"):
        fuse(_runs_with({"d3": -1.0, "d5": -2.0}), method, weights=weights, norm="max")


@pytest.mark.parametrize("method", RANK_METHODS)
def test_rank_methods_read_all_negative_scores_as_any_ranking(method):
    weights = [1.0, 1.0, 1.0] if METHODS[method].weighted else None
    negative = fuse(_runs_with({"d3": -1.0, "d5": -2.0}), method, weights=weights)
    assert _as_dict(negative) == _as_dict(fuse(_runs_with({"d3": 2.0, "d5": 1.0}), method, weights=weights))


@pytest.mark.parametrize("text", ["inf", "-inf", "1e400", "-1e999"])
@pytest.mark.parametrize("method", ["sum", "rrf"])
def test_infinite_scores_are_refused_where_they_enter(tmp_path, text, method):
    """trec_eval's atof reads them as ±inf: refused naming system, topic and document, before any normalisation
    (they made "score NaN" or a silently dropped run)."""
    path = tmp_path / "two.run"
    path.write_text(f"q1 Q0 a 1 3.0 x\nq1 Q0 b 2 1.0 x\nq1 Q0 b 1 9.0 y\nq2 Q0 c 2 {text} y\n")
    runs = read_trec_run(path)
    with pytest.raises(FusionScoreError, match=r"system 'y', topic 'q2', document 'c' has score -?inf"):
        fuse(runs, method, topics="union")
    with pytest.raises(FusionScoreError, match=r"system 'y', topic 'q2', document 'c' has score -?inf"):
        normalize(runs, "min-max")
    with pytest.raises(FusionScoreError, match="has score inf"):
        fuse({"a": {"q": {"d": math.inf}}, "b": {"q": {"d": 1.0}}}, method)


@pytest.mark.parametrize(("method", "weights"), [("sum", None), ("mnz", None), ("wsum", [1.0, 1.0])])
def test_raw_scores_whose_fusion_overflows_are_refused(method, weights):
    """norm=None sums the raw scores: two of 1e308 overflow, named with the topic, document and systems."""
    runs = {"a": {"q": {"d1": 1e308, "d2": 1.0}}, "b": {"q": {"d1": 1e308}}}
    with pytest.raises(FusionScoreError, match=r"topic 'q', document 'd1' \(from systems 'a', 'b'\) overflows"):
        fuse(runs, method, weights=weights, norm=None)


def test_weights_whose_fusion_overflows_are_refused():
    runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d1": 3.0, "d3": 1.0}}}  # d1: 1 in each (min-max)
    with pytest.raises(FusionScoreError, match="document 'd1' .* overflows a double; give smaller weights"):
        fuse(runs, "wsum", weights=[1e308, 1e308])


@pytest.mark.parametrize("norm", ["min-max", "max", "sum", "zmuv"])
def test_tiny_magnitudes_normalise_as_ranx_normalises_the_same_scores_near_1(ranx, norm):
    """Below ranx's floor its rule differs; the workbench's is ranx's on the scores scaled back near 1."""
    for name, run in _FIXED.items():
        tiny = {t: {d: s * 2.0 ** -1000 for d, s in scores.items()} for t, scores in run.items()}
        _assert_same(normalize(tiny, norm), ranx.normalization.norm_switch(norm)(ranx.Run(run, name=name)))


@pytest.mark.parametrize("case", ["all zero", "one document", "all negative"])
@pytest.mark.parametrize("norm", ["min-max", "sum", "rank"])
def test_degenerate_topics_equal_ranx_where_its_rule_is_the_same(ranx, case, norm):
    """A constant topic (0 under min-max and sum), one document, all-negative scores under min-max and sum: ranx's
    values (its floor of 1e-9 is not reached, or the numerators are 0)."""
    scores, _ = DEGENERATE[case]
    run = {"q": scores}
    if norm == "rank" and len(set(scores.values())) < len(scores):
        return  # ties: ranx breaks them its own way
    assert _ranx_rule_is_ours({"run": run}, norm)
    _assert_same(normalize(run, norm), ranx.normalization.norm_switch(norm)(ranx.Run(run, name="run")))


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
    ([1.0], r"fuse: weights must be one finite number per run \(r0, r1, r2\), .* \(1 given\)"),
    ({"r0": 1, "r1": 1, "zz": 1}, r"fuse: weights must be one finite number per run .* \(it names 'r0', 'r1', 'zz'\)"),
    ([1, "a", 2], "fuse: weights must be an array of finite numbers"),
    ([1, float("nan"), 2], r"fuse: weights must be finite numbers \(element 1 is nan\)"),
    ({"r0": 1, "r1": math.inf, "r2": 1}, r"fuse: weights must be .* \(the weight of 'r1' is inf\)"),
])
def test_weights_that_do_not_match_the_runs_are_named(weights, message):
    with pytest.raises(ParameterError, match=message) as caught:
        fuse(_FIXED, "wsum", weights=weights)
    assert (caught.value.function, caught.value.parameter) == ("fuse", "weights")


@pytest.mark.parametrize(("call", "message"), [
    (lambda: fuse(_FIXED, "rrf", weights=[1, 1, 1]), r"fuse: weights must be one of None \(rrf takes no weights"),
    (lambda: fuse(_FIXED, "combsum"), "fuse: method must be one of sum, max"),
    (lambda: fuse(_FIXED, "rrf", norm="min-max"), "fuse: norm must be one of auto, min-max-inverted, None "
                                                   r"\(a rank-based method reads ranks"),
    (lambda: fuse(_FIXED, "rrf", phi=0.5), r"fuse: params must name parameters of rrf \(k\), not phi"),
    (lambda: fuse(_FIXED, "sum", norm="softmax"), "fuse: norm must be one of"),
    (lambda: fuse({"a": _FIXED["r0"]}, "sum"), r"fuse: runs must be 2 runs at least, .* \(1 given\)"),
    (lambda: fuse(fuse(_FIXED, "sum"), "sum"), "fuse: runs must be 2 runs at least, .*, not one run"),
    (lambda: fuse({"a": _FIXED["r0"], "b": 3}, "sum"), r"fuse: runs must be .* \(run 'b' is a int\)"),
    (lambda: fuse(_FIXED, "sum", topics="all"), "fuse: topics must be one of same, union, intersection"),
])
def test_other_misuses_are_named(call, message):
    with pytest.raises(ParameterError, match=message):
        call()


@pytest.mark.parametrize(("method", "params", "message"), [
    ("rbc", {"phi": 1.0}, r"fuse: phi must be in \(0, 1\), got 1.0"),
    ("rbc", {"phi": 0}, r"fuse: phi must be in \(0, 1\), got 0"),
    ("rrf", {"k": -1}, r"fuse: k must be in \[0, inf\), got -1"),
    ("rrf", {"k": math.inf}, r"fuse: k must be in \[0, inf\), got inf"),
    ("logn_isr", {"sigma": 2}, r"fuse: sigma must be in \[0, 1\], got 2"),
    ("gmnz", {"gamma": math.nan}, r"fuse: gamma must be in \(-inf, inf\), got nan"),
])
def test_a_method_parameter_is_checked_against_its_declaration(method, params, message):
    with pytest.raises(ParameterError, match=message) as caught:
        fuse(_FIXED, method, **params)
    assert caught.value.domain == METHODS[method].params[next(iter(params))].domain


@pytest.mark.parametrize("value", ["20", True, [20]])
def test_a_method_parameter_of_the_wrong_type_is_a_type_error(value):
    with pytest.raises(ParameterTypeError, match="fuse: k must be"):
        fuse(_FIXED, "rrf", k=value)


@pytest.mark.parametrize("name", [*METHODS, *SUPERVISED])
def test_every_declared_parameter_has_a_default_and_a_grid_inside_its_domain(name):
    """The declaration is what fuse checks and optimize_fusion searches: a default inside the domain (or None, to
    be given: the supervised hyperparameters) and a grid of values inside it."""
    for param in ({**METHODS, **SUPERVISED}[name]).params.values():
        assert param.description and param.grid
        assert param.default is None or param.domain.reason(param.default) is None
        assert [value for value in param.grid if param.domain.reason(value) is not None] == []


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
    refusal = (r"optimize_fusion: measure must be a ranking measure's name \(.* belongs to the "
               r"(clustering|filtering|organization) task\)")
    with pytest.raises(ParameterError, match=refusal):
        optimize_fusion(_campaign(), "rrf", measure, folds=2)


def test_optimize_fusion_names_an_unknown_measure_without_the_whole_catalogue():
    with pytest.raises(ParameterError, match=r"measure must be a ranking measure's name \(unknown measure 'APP' "
                                             r"\(did you mean 'AP'\?\)\), got 'APP'") as caught:
        optimize_fusion(_campaign(), "rrf", "APP", folds=2)
    assert len(str(caught.value)) < 200


@pytest.mark.parametrize(("folds", "message"), [
    ({"q0": 0, "q1": 1}, r"topics 'q2', 'q3'.* are in no fold"),
    ({**{f"q{t}": t % 2 for t in range(8)}, "q99": 0}, r"'q99' are not topics of the campaign"),
])
def test_folds_that_do_not_partition_the_topics_are_named(folds, message):
    with pytest.raises(FoldError, match=message):
        optimize_fusion(_campaign(), "rrf", "AP", folds=folds)


@pytest.mark.parametrize(("folds", "message"), [
    (1, "optimize_fusion: folds must be an integer ≥ 2, got 1"),
    (9, r"optimize_fusion: folds must be an integer in \[2, 8\], got 9"),  # the campaign's 8 topics
    (2.5, "optimize_fusion: folds must be an integer ≥ 2"),
    ({f"q{t}": 0 for t in range(8)}, "optimize_fusion: folds must be {topic: fold} of two folds at least"),
    ("5", "optimize_fusion: folds must be an integer ≥ 2 or {topic: fold} of two folds at least"),
])
def test_folds_are_a_number_from_two_to_the_number_of_topics_or_two_folds_at_least(folds, message):
    with pytest.raises(ParameterError, match=message) as caught:
        optimize_fusion(_campaign(), "rrf", "AP", folds=folds)
    assert (caught.value.function, caught.value.parameter) == ("optimize_fusion", "folds")


def test_the_default_grid_is_the_declared_one(monkeypatch):
    """optimize_fusion tries each value rrf declares for k, in its order."""
    tried = []

    def spy(*args, **kwargs):
        tried.append(kwargs["k"])
        return fuse(*args, **kwargs)

    monkeypatch.setattr("workbench.fusion.optimize.fuse", spy)
    optimize_fusion(_campaign(), "rrf", "AP", folds=2)
    grid = METHODS["rrf"].params["k"].grid
    assert tuple(tried[:len(grid)]) == grid and len(grid) == 11


@pytest.mark.parametrize(("arguments", "message"), [
    ({"grid": [{"phi": 1.5}]}, r"optimize_fusion: phi must be in \(0, 1\), got 1.5"),
    ({"grid": [{"k": 10}]}, r"optimize_fusion: params must name parameters of rbc \(phi\), not k"),
    ({"grid": [{"weights": [1, 1, 1]}]}, r"optimize_fusion: weights must be one of None \(rbc takes no weights"),
    ({"grid": []}, "optimize_fusion: grid must be a list"),
    ({"norm": "min-max"}, r"optimize_fusion: norm must be .*a rank-based method reads ranks"),
])
def test_optimize_fusion_checks_its_candidates_before_fusing(arguments, message, monkeypatch):
    monkeypatch.setattr("workbench.fusion.optimize.fuse", lambda *a, **k: pytest.fail("fused a bad candidate"))
    with pytest.raises(ParameterError, match=message):
        optimize_fusion(_campaign(), "rbc", "AP", folds=2, **arguments)


@pytest.mark.parametrize(("step", "message"), [
    (0.3, r"optimize_fusion: step must be 1/u for a whole u \(0.5, 0.25, 0.1, ...\), got 0.3"),
    (0.0, "optimize_fusion: step must be 1/u"),
    (0.01, rf"making at most {MAX_CANDIDATES:,} candidates for 3 runs \(0.01 makes 5,151\)"),
    (1e-300, rf"making at most {MAX_CANDIDATES:,} candidates for 3 runs, got 1e-300"),
])
def test_a_weight_step_divides_one_and_bounds_the_grid(step, message):
    with pytest.raises(ParameterError, match=message):
        optimize_fusion(_campaign(), "wsum", "AP", folds=2, step=step)


def test_a_fold_column_of_a_frame_works_as_a_mapping():
    frame = pd.DataFrame({"topic": [f"q{t}" for t in range(8)], "fold": [t % 2 for t in range(8)]})
    search = optimize_fusion(_campaign(), "rrf", "AP", folds=frame.set_index("topic")["fold"], grid=[{"k": 60}])
    assert search.folds["fold"].tolist() == [0, 1]


# ------------------------------------------------------------------------------------ min-max-inverted
@settings(max_examples=25)
@given(runs=random_runs(), method=st.sampled_from(RANK_METHODS), data=st.data())
def test_rank_methods_read_the_inverted_ranking_as_ranx_does(ranx, runs, method, data):
    """ranx's min-max-inverted ranks each run lowest score first; the rank methods read that ranking."""
    weights = [data.draw(st.floats(0.1, 2.0)) for _ in runs] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, norm="min-max-inverted", **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(ranx, runs), norm="min-max-inverted", method=method, params=params))


def test_distances_by_hand():
    """Two runs of distances (lower is better) under min-max-inverted: d1 is first in a and second in b."""
    runs = {"a": {"q": {"d1": 0.5, "d2": 2.5, "d3": 4.5}}, "b": {"q": {"d2": 1.0, "d1": 3.0}}}
    a = normalize(runs["a"], "min-max-inverted")
    assert a.documents("q") == ["d1", "d2", "d3"] and a.scores("q").tolist() == [1.0, 0.5, 0.0]
    fused = fuse(runs, "rrf", norm="min-max-inverted", k=0)
    assert _as_dict(fused) == {"q": pytest.approx({"d1": 1 + 1 / 2, "d2": 1 / 2 + 1, "d3": 1 / 3})}
    assert fused.documents("q")[2] == "d3"


def test_a_constant_topic_inverts_to_zeros_in_trec_eval_order():
    """Every score the maximum: 0 each (the constant topic's rule, ranx's too); ties ranked by document id
    descending, as every ranking of the workbench."""
    run = normalize({"q": {"a": 2.0, "c": 2.0, "b": 2.0}}, "min-max-inverted")
    assert run.documents("q") == ["c", "b", "a"] and run.scores("q").tolist() == [0.0, 0.0, 0.0]


def test_other_normalisations_are_still_refused_by_rank_methods():
    with pytest.raises(ParameterError, match="no normalisation but min-max-inverted"):
        fuse({"a": {"q": {"d": 1.0}}, "b": {"q": {"d": 2.0}}}, "rrf", norm="min-max")
