"""Vector-space fusion, as trectools fuses (``trectools.fusion.vector_space_fusion``, trectools 0.0.50; Palotti,
Scells & Zuccon, TrecTools, SIGIR 2019): each document of a topic is a point whose coordinates are its scores in
the runs (0 in a run that lacks it); the documents are ranked by their Euclidean distance d to the point of the
first run's top document, and scored 1 / (d + 0.1) (that document 10).

trectools reads the raw scores (``norm=None``, the default here) of two runs (a third makes its pandas merge
fail); here any number of runs, one coordinate each, ``norm`` normalising each first (one of
:data:`~workbench.fusion.norms.NORMS`, as :func:`~workbench.fusion.fuse`). The first run's top document is the
first of its ranking (trec_eval's order); trectools takes the highest score of the first run among all the topic's
documents, those it lacks counted 0, which is the same document unless that highest score is tied or not positive.
A topic the first run does not answer has no such document: :class:`~workbench.fusion.entries.FusionTopicsError`
names it. trectools also cuts the fused ranking at ``max_docs`` (1000); here it is whole. Distances are computed
with each topic's coordinates scaled by a power of two, so that scores of 1e300 or 1e-300 give the distances
they have (their squares would overflow or vanish).

    >>> runs = {"a": {"q": {"x": 3.0, "y": 1.0}}, "b": {"q": {"x": 2.0, "z": 2.0}}}
    >>> fused = vector_space_fusion(runs)
    >>> fused.documents("q"), [round(s, 4) for s in fused.scores("q").tolist()]
    (['x', 'y', 'z'], [10.0, 0.3415, 0.3226])
"""

from __future__ import annotations

import numpy as np

from workbench.data.trec.ranked import RankedRun
from workbench.fusion.entries import TOPICS, FusionTopicsError, Runs, fused_run, groups, lay_out
from workbench.fusion.norms import NORMS, normalized
from workbench.validation import Choices, validate

__all__ = ["vector_space_fusion"]


@validate(runs=Runs(), norm=Choices((*NORMS, None)), topics=TOPICS)
def vector_space_fusion(runs, norm: str | None = None, *, topics: str = "same") -> RankedRun:
    """``runs`` (as :func:`~workbench.fusion.fuse` takes them, the first one's top documents the pivots) fused by
    their distance to the first run's top document of each topic; ``norm`` one of
    :data:`~workbench.fusion.norms.NORMS` or None (raw scores, as trectools); ``topics`` as
    :func:`~workbench.fusion.entries.lay_out`."""
    entries, values = normalized(lay_out(runs, topics), norm)
    order, starts = groups(entries)
    group_of = np.empty(order.size, dtype=np.int64)
    group_of[order] = np.repeat(np.arange(starts.size), np.diff(np.concatenate((starts, [order.size]))))
    points = np.zeros((starts.size, len(entries.names)))
    points[group_of, entries.run] = values
    group_topic = entries.topic[order[starts]]
    top = np.flatnonzero((entries.run == 0) & (entries.rank == 0))
    pivot = np.full(len(entries.topics), -1, dtype=np.int64)
    pivot[entries.topic[top]] = group_of[top]
    fused_topics = np.unique(group_topic)
    lacking = fused_topics[pivot[fused_topics] < 0]
    if lacking.size:
        topic = entries.topics[int(lacking[0])]
        raise FusionTopicsError(f"vector_space_fusion ranks by the distance to the first run's top document: system "
                                f"{entries.names[0]!r} retrieves nothing for topic {topic!r}; put a run that answers "
                                "every topic first")
    return fused_run(entries, order, starts, 1.0 / (_distances(points, pivot[group_topic], group_topic) + 0.1))


def _distances(points: np.ndarray, pivot: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """The Euclidean distance of each point to its pivot (a point's index), each topic's coordinates divided first by
    the power of two that brings its largest magnitude into [0.5, 1) (exactly, but for coordinates 2^1022 times
    smaller than it), so that no difference or square overflows or underflows where the distance does not."""
    largest = np.zeros(int(topic.max(initial=-1)) + 1)
    np.maximum.at(largest, topic, np.abs(points).max(axis=1, initial=0.0))
    _, exponent = np.frexp(largest)
    scaled = np.ldexp(points, -exponent[topic][:, None])
    with np.errstate(over="ignore"):  # a distance beyond a double's range: 1 / (d + 0.1) is 0 to the last bit
        return np.ldexp(np.sqrt(((scaled - scaled[pivot]) ** 2).sum(axis=1)), exponent[topic])
