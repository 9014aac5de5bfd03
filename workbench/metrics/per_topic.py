"""The ``"per topic"`` computation of one (gold, output) pair: each declaration's ``compute``, which for the table
families is their kernel on a one-row table, the kernel their engines run on a whole run's table
(:mod:`workbench.data.engines`; ``tests/test_engines.py`` walks every declaration: both give the same value).
It checks nothing: :func:`workbench.evaluate` and the campaigns check what they are given, then ask the engines,
whose one-pair value this is.

    >>> from workbench.metrics.registry import parse
    >>> from workbench.model import Organization
    >>> gold = Organization.parse("d1 d2\\nd3")
    >>> evaluate_topic(gold, Organization.parse("d2 d1\\nd3"), {"R∼": parse("R∼(n=10, wn=0.8)"), "P@1": parse("P@1")})
    {'R∼': 1.0, 'P@1': 1.0}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workbench.metrics.registry import Measure
from workbench.model import Organization
from workbench.model.labelling import Labelling

__all__ = ["evaluate_topic"]


def evaluate_topic(gold: Organization | Labelling, output: Organization | Labelling,
                   measures: Mapping[str, Measure]) -> dict[str, float]:
    """``{name: value}`` of one topic, each measure by its declaration's ``compute``; measures that share a
    computation (R≺ and S≺ of one n and wn) share one call."""
    results: dict[str, float] = {}
    shared: dict[tuple, Any] = {}
    for name, measure in measures.items():
        key = (measure.spec.compute, measure.bound)
        if key not in shared:
            shared[key] = measure.compute(gold, output)
        results[name] = measure.pick(shared[key])
    return results
