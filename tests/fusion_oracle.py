"""Fused runs compared with a peer's: a :class:`~workbench.data.trec.ranked.RankedRun` as ``{topic: {document:
score}}``, and the assertion that it holds the peer's documents and scores (ranx's ``Run``), ranked by them."""

from __future__ import annotations

import pytest

from workbench.data.trec.ranked import RankedRun


def as_dict(run: RankedRun) -> dict[str, dict[str, float]]:
    """``{topic: {document: score}}`` in the run's order."""
    return {t: dict(zip(run.documents(t), run.scores(t).tolist(), strict=True)) for t in run}


def assert_same_as_ranx(mine: RankedRun, theirs, rel=1e-9):
    """The same topics, documents and scores (within ``rel``) as ranx's run, and ranked by the score; documents
    of equal fused score may come in another order (ranx's sort is not stable)."""
    theirs = theirs.to_dict()
    assert set(mine) == set(theirs)
    for topic, scores in as_dict(mine).items():
        assert scores.keys() == theirs[topic].keys(), topic
        for doc, value in scores.items():
            assert value == pytest.approx(theirs[topic][doc], rel=rel, abs=1e-9), (topic, doc)
        values = list(scores.values())
        assert values == sorted(values, reverse=True)  # ranked by the fused score
