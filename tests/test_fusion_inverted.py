"""ranx's ``min-max-inverted`` normalisation, for runs whose lower scores are better: each run ranked again by
(max − s) / (max − min), so that the rank-based methods read the inverted ranking too, as ranx's do. The score
methods and :func:`~workbench.fusion.normalize` under it are compared with ranx by ``tests/test_fusion.py``, which
draws every normalisation of ``NORMS``."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_fusion import PARAMS, RANK_METHODS, RANX_PARAMS, _as_dict, _assert_same, _ranx_runs, random_runs
from workbench.fusion import METHODS, FusionError, fuse, normalize

ranx = pytest.importorskip("ranx")


@settings(max_examples=25, deadline=None)
@given(runs=random_runs(), method=st.sampled_from(RANK_METHODS), data=st.data())
def test_rank_methods_read_the_inverted_ranking_as_ranx_does(runs, method, data):
    weights = [data.draw(st.floats(0.1, 2.0)) for _ in runs] if METHODS[method].weighted else None
    mine = fuse(runs, method=method, weights=weights, norm="min-max-inverted", **PARAMS.get(method, {}))
    params = {**RANX_PARAMS.get(method, {}), **({"weights": weights} if weights else {})}
    _assert_same(mine, ranx.fuse(_ranx_runs(runs), norm="min-max-inverted", method=method, params=params))


def test_distances_by_hand():
    """Two runs of distances (lower is better): inverted, d1 is first in a and second in b."""
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
