"""The doors of one gold and one output, :func:`evaluate` and :func:`explain` (``workbench.evaluate``,
``workbench.explain``): the arguments checked, then the same lookup a campaign makes, each measure asked of the
engine its declaration names (:func:`~workbench.data.engines.by_engine`, ``score_pair`` and ``explain_pair`` of
:mod:`workbench.data.engines`). A family whose engine scores one pair its own way is reached here with no edit.

    >>> from workbench.model import Organization
    >>> gold = Organization.parse("d1 {d2 d3 d4}\\n{d4 d5} {d6 d7}\\n{d6 d7}")  # Amigó et al., SIGIR 2013, Table 9
    >>> output = Organization.parse("{d6 d7}\\n{d4 d5} {d6 d7}\\nd1 {d2 d3 d4}")  # its output 5
    >>> scores = evaluate(gold, output, ["R≺(n=10, wn=0.8)", "P@2"])
    >>> round(scores["R≺(n=10, wn=0.8)"], 4), scores["P@2"]
    (0.6386, 1.0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from workbench.data.engines import by_engine, engine_of
from workbench.metrics.registry import MEASURE, MEASURES, SIDE, Measure, parse
from workbench.metrics.reliability import DISCOUNT_DOMAINS, MISSING
from workbench.model import Organization
from workbench.model.labelling import Labelling
from workbench.validation import validate

__all__ = ["evaluate", "explain"]


@validate(gold=SIDE, output=SIDE, measures=MEASURES)
def evaluate(gold: Organization | Labelling, output: Organization | Labelling,
             measures: str | Measure | Iterable[str | Measure]) -> dict[str, float]:
    """Score one topic: ``{name as given: value}``, each measure by the engine its declaration names (measures that
    share a computation share one call); a single name (``"AP"``) is one measure.

    >>> from workbench.model import Organization
    >>> g = Organization.parse("d1 d2\\nd3")
    >>> evaluate(g, Organization.parse("d2 d1\\nd3"), ["S∼(n=10, wn=0.8)", "R∼(n=10, wn=0.8)"])
    {'S∼(n=10, wn=0.8)': 1.0, 'R∼(n=10, wn=0.8)': 1.0}
    """
    given = [measures] if isinstance(measures, str | Measure) else list(measures)
    values: dict[str, float] = {}
    for engine, group in by_engine(given, refuse=False).items():
        values.update(engine.score_pair(gold, output, group))
    return {name: values[name] for name in (each if isinstance(each, str) else str(each) for each in given)}


@validate(gold=SIDE, output=SIDE, measure=dataclasses.replace(MEASURE, optional=True), **DISCOUNT_DOMAINS,
          missing=MISSING)
def explain(gold: Organization, output: Organization, measure: str | Measure | None = None, *,
            n: float | None = None, wn: float | None = None, missing: str = "tail"):
    """``measure`` of ``output`` against ``gold``, explained by the engine its declaration names (a
    :class:`~workbench.metrics.explanations.MeasureExplanation`, whose rows sum to the score :func:`evaluate`
    gives, or to its parts); without a measure, R≺ S≺ R∼ S∼ with ``n``, ``wn`` and ``missing`` (an
    :class:`~workbench.metrics.explain.Explanation`, :func:`workbench.metrics.explain.explain_rs`).

    >>> from workbench.model import Organization
    >>> explain(Organization.from_graded({"d1": 1}), Organization.from_ranking(["d2", "d1"]), "RR").score
    0.5
    """
    from workbench.metrics.explain import ExplainError, explain_rs  # pandas: loaded when a pair is explained

    if measure is None:
        return explain_rs(gold, output, n=n, wn=wn, missing=missing)
    if n is not None or wn is not None or missing != "tail":
        raise ExplainError("give n, wn and missing inside the measure's name (e.g. 'R≺(n=10, wn=0.8)') when "
                           "a measure is named")
    measure = parse(measure)
    return engine_of(measure).explain_pair(gold, output, measure)
