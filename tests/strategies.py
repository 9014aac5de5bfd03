"""Hypothesis strategies for organizations with overlap, ties, tails and finite rests."""

from __future__ import annotations

from hypothesis import strategies as st

from workbench.model import Organization

DOCS = [f"d{i}" for i in range(1, 10)]


@st.composite
def organizations(draw, docs=DOCS, finite=None, max_levels=4, max_clusters=3, overlap=True):
    """A random Organization over ``docs``: levels of clusters (documents may repeat across clusters when
    ``overlap``), then an unlimited tail or a finite rest drawn from the unused documents."""
    levels, used = [], set()
    for _ in range(draw(st.integers(0, max_levels))):
        level = []
        for _ in range(draw(st.integers(1, max_clusters))):
            pool = docs if overlap else [d for d in docs if d not in used]
            if not pool:
                break
            cluster = draw(st.sets(st.sampled_from(pool), min_size=1, max_size=4))
            if not overlap:
                used |= cluster
            level.append(frozenset(cluster))
        if level:
            levels.append(tuple(level))
    is_finite = draw(st.booleans()) if finite is None else finite
    rest = None
    if is_finite:
        prioritised = {d for level in levels for c in level for d in c}
        rest = draw(st.sets(st.sampled_from([d for d in docs if d not in prioritised] or ["r0"])))
    return Organization(tuple(levels), None if rest is None else frozenset(rest))
