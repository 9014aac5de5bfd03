"""Vector-space fusion equal to trectools 0.0.50's ``vector_space_fusion`` (trectools/fusion.py) on random pairs of
runs with distinct positive scores (documents, order and scores), raw and after a normalisation; any number of
runs where trectools takes two; the first run's top document as pivot where trectools' is another; the named
refusal of a topic the first run does not answer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from tests.fusion_oracle import as_dict
from workbench.fusion import FusionTopicsError, normalize, vector_space_fusion

trectools = reference_module("trectools")
from trectools import fusion as trectools_fusion  # noqa: E402


def _trec_run(run: dict[str, dict[str, float]], name: str):
    rows = [(topic, "Q0", doc, rank, score, name) for topic, scores in run.items()
            for rank, (doc, score) in enumerate(sorted(scores.items(), key=lambda x: -x[1]), start=1)]
    out = trectools.TrecRun(None)
    out.load_run_from_dataframe(pd.DataFrame(rows, columns=["query", "q0", "docid", "rank", "score", "system"]))
    return out


def _trectools_fused(runs: dict) -> dict[str, list[tuple[str, float]]]:
    data = trectools_fusion.vector_space_fusion([_trec_run(run, name) for name, run in runs.items()]).run_data
    return {topic: list(zip(group.sort_values("rank")["docid"], group.sort_values("rank")["score"], strict=True))
            for topic, group in data.groupby("query")}


def _pair(seed: int) -> dict:
    """Two runs over 1–3 topics answered by both, random subsets (2 documents at least, so that the first run's
    top score stays the highest positive one under each normalisation) of 15 documents, random positive
    scores."""
    rng = np.random.default_rng(seed)
    topics = [f"q{t}" for t in range(int(rng.integers(1, 4)))]
    return {name: {t: {f"d{d:02d}": float(rng.uniform(0.5, 20.0)) for d in rng.choice(15, int(rng.integers(2, 12)),
                                                                                    replace=False)}
                   for t in topics} for name in ("a", "b")}


@settings(max_examples=40, deadline=None)
@given(runs=st.integers(0, 2**32 - 1).map(_pair), norm=st.sampled_from([None, "min-max", "zmuv", "rank"]))
def test_equal_to_trectools(runs, norm):
    """Under a normalisation, trectools is given the normalised runs (where two documents are one point, e.g. the
    lowest of a run under min-max and a document it lacks, their order is trectools' ball tree's)."""
    given_runs = runs if norm is None else {n: as_dict(run) for n, run in normalize(runs, norm).items()}
    theirs = _trectools_fused(given_runs)
    mine = as_dict(vector_space_fusion(runs, norm))
    assert set(mine) == set(theirs)
    for topic, ranked in theirs.items():
        assert mine[topic] == pytest.approx(dict(ranked), rel=1e-12, abs=0), topic
        assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)  # so, both ranked alike


def test_trectools_takes_two_runs_this_takes_any():
    runs = {name: {"q": {"x": x, "y": y, "z": z}} for name, (x, y, z) in
            {"a": (3.0, 2.0, 1.0), "b": (1.0, 3.0, 2.0), "c": (2.0, 1.0, 3.0)}.items()}
    with pytest.raises(Exception, match="duplicate columns"):  # pandas' MergeError on the third run
        trectools_fusion.vector_space_fusion([_trec_run(run, name) for name, run in runs.items()])
    fused = as_dict(vector_space_fusion(runs))["q"]
    # x at (3, 1, 2); y at (2, 3, 1): distance √6; z at (1, 2, 3): distance √(4 + 1 + 1) = √6
    assert fused == pytest.approx({"x": 10.0, "z": 1 / (6 ** 0.5 + 0.1), "y": 1 / (6 ** 0.5 + 0.1)})


def test_the_pivot_is_the_first_run_s_top_document():
    """All of a's scores negative: trectools' highest 'score' is the 0 it fills in for z, a document a lacks;
    here the pivot is a's top document, x."""
    runs = {"a": {"q": {"x": -1.0, "y": -2.0}}, "b": {"q": {"z": 1.0, "y": 0.5}}}
    assert _trectools_fused(runs)["q"][0][0] == "z"
    assert list(as_dict(vector_space_fusion(runs))["q"])[0] == "x"


def test_a_topic_the_first_run_does_not_answer_is_named():
    runs = {"a": {"q": {"x": 1.0}}, "b": {"q": {"x": 1.0}, "p": {"y": 1.0}}}
    with pytest.raises(FusionTopicsError, match="system 'a' retrieves nothing for topic 'p'"):
        vector_space_fusion(runs, topics="union")
    assert set(vector_space_fusion(runs, topics="intersection")) == {"q"}


@pytest.mark.parametrize("power", [1000, -1000, 0])
def test_huge_and_tiny_scores_give_the_distances_they_have(power):
    """Every score times 2**power: each distance times 2**power exactly (the squares of 1e300 would overflow and
    those of 1e-300 vanish); the fused scores then follow 1 / (d + 0.1)."""
    base = {"a": {"q": {"x": 3.0, "y": 1.0, "w": 0.5}}, "b": {"q": {"x": 2.0, "z": 2.0, "w": 1.0}}}
    scaled = {n: {t: {d: s * 2.0 ** power for d, s in v.items()} for t, v in r.items()} for n, r in base.items()}
    distance = {d: 1 / s - 0.1 for d, s in as_dict(vector_space_fusion(base))["q"].items()}
    expected = {d: 1 / (v * 2.0 ** power + 0.1) for d, v in distance.items()}
    assert as_dict(vector_space_fusion(scaled))["q"] == pytest.approx(expected, rel=1e-12)
