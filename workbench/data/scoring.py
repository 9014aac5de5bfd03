"""One (system, topic) scored with the campaign's error policy: the per-topic engine
(:mod:`workbench.data.engines`), here or on the workers of a distributed campaign, calls :func:`score_topic`, so
that their values and errors are the same.

    >>> from workbench.model import Organization
    >>> from workbench.data.engines import ENGINES
    >>> from workbench.metrics.registry import parse
    >>> gold, output = Organization.parse("d1"), Organization.from_ranking(["d1"])
    >>> score_topic("sys", "q1", gold, output, {"P@1": parse("P@1")}, ENGINES["per topic"].score_pair)
    {'P@1': 1.0}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from workbench.errors import CampaignError, WorkbenchError
from workbench.metrics.registry import Measure, missing_value, parse
from workbench.model import Organization
from workbench.validation import AnyOf, Instance, ListOf, Text

__all__ = ["MEASURE", "MEASURES", "measure_names", "topics_text", "unanswered_values", "score_topic",
           "outputs_of"]

MEASURE = AnyOf(Text(), Instance((Measure,), "a Measure"), what="a measure name or a Measure")
MEASURES = AnyOf(MEASURE, ListOf(MEASURE, shortest=1),
                 what="a measure name, a Measure or a list of them (e.g. ['AP', 'P@10'])")
"""The domain of the measures a campaign scores (names are parsed when scored: an unknown one is named there)."""


def measure_names(measures: str | Measure | Iterable[str | Measure]) -> list[str]:
    """The measures (:data:`~workbench.data.scoring.MEASURES`) as the names their scores are keyed by; unknown
    names fail here, before any work."""
    if isinstance(measures, str | Measure):
        measures = [measures]
    names: list[str] = []
    for measure in measures:
        spec = parse(measure).spec  # raises UnknownMeasureError listing the known measures
        name = measure if isinstance(measure, str) else str(measure)
        if spec.reads != "organizations" or spec.returns != "number":
            what = f"scored from trec_eval's {spec.reads}" if spec.reads != "organizations" else "text, not a number"
            raise CampaignError(f"{name!r} is {what}: python -m workbench trec_eval prints it "
                                f"(-m {spec.spellings['trec_eval'][0]})")
        if name not in names:
            names.append(name)
    return names


def topics_text(topics: list[str], limit: int = 10) -> str:
    """The first ``limit`` topics quoted, then how many more."""
    shown = ", ".join(map(repr, topics[:limit]))
    return shown + (f" and {len(topics) - limit} more" if len(topics) > limit else "")


def unanswered_values(measures: Iterable[str | Measure], missing: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """The one rule for a gold topic a system did not answer (``missing_topics="zero"``), for every door that shows a
    per-topic value (:meth:`Campaign.evaluate`, :meth:`Campaign.explain`, the Inspector that reads both): each
    measure scores what its declaration says (:func:`workbench.metrics.registry.missing_value`): ``{name: value}``
    for those scored at their worst value (0 where higher is better, 1 for Lam%), never a credit; the measures scored
    on an output that retrieves nothing (the ranking measures, on trec_eval's ``-c`` placeholder) are left to their
    kernels. A measure without a finite worst value (VI, the utilities) is refused, naming the system and topics
    (``missing``: system → the topics it lacks), since no value is fair.

    >>> unanswered_values(["Lam%", "AP"], {"sys": ["q2"]})
    {'Lam%': 1.0}
    """
    values = {}
    for measure in measures:
        value = missing_value(measure)
        if value is not None:
            values[measure if isinstance(measure, str) else str(measure)] = value
    unbounded = [name for name, value in values.items() if math.isinf(value)]
    if unbounded:
        system, topics = next(iter(missing.items()))
        raise CampaignError(f"system {system!r} lacks gold topic(s) {topics_text(list(topics), 5)}, and "
                            f"{', '.join(map(repr, unbounded))} ha{'ve' if len(unbounded) > 1 else 's'} no worst "
                            "value to score them with (unbounded where it is bad): pass missing_topics='skip' "
                            "(--missing skip) to leave those topics out")
    return values


def score_topic(system: str, topic: str, gold: Organization, output: Organization, measures: Mapping[str, Measure],
                score_pair: Callable[..., dict[str, float]]) -> dict[str, float]:
    """``{name: value}`` of one (system, topic) by ``score_pair`` (an engine's: each declaration's ``compute``): bad
    input raises a located :class:`CampaignError`, a bug keeps its traceback and gains a note."""
    try:
        return score_pair(gold, output, measures)
    except WorkbenchError as error:  # bad input: located; anything else is a bug and keeps its traceback
        raise CampaignError(f"system {system!r}, topic {topic!r}: {type(error).__name__}: {error}") from error
    except Exception as error:
        error.add_note(f"while scoring system {system!r}, topic {topic!r}")
        raise


def outputs_of(run: Mapping[str, Organization]) -> Callable[[str], Any]:
    """A run's output for a topic (the function returned) as the campaign kernel reads it: a ranking held as arrays
    (a TREC run read with trec_eval's ties) as a slice of the run's ids, made text once, without building its
    Organization: an Arrow string array (from the ids' bytes, :meth:`~workbench.ids.DocumentIds.arrow`: no Python
    string per id), or an object array of strings where a kept id holds a lone surrogate (no UTF-8 text); any other
    output as its Organization."""
    from workbench.data.trec.ranked import RankedRun

    if not (isinstance(run, RankedRun) and run.ties == "trec_eval"):
        return run.__getitem__
    try:
        texts = run.ids.arrow()
    except UnicodeEncodeError:
        texts = run.ids.strings()

    def output(topic: str) -> Any:
        span = run.span(topic)
        return texts[span.start:span.stop]

    return output
