"""A campaign's scores explained: one system's run on one topic, or on every topic at once, through the very gain
table the campaign scores (so the rows add up to :meth:`Campaign.evaluate`'s values, bit for bit in the kernel).

Ranking measures read the gain table and the documents the join matched
(:func:`~workbench.data.trec.join.gain_table` with ``documents=True``, the one place a ranking meets its
judgements): the documents of a whole run become an Arrow string column (no Python object per document), beside
the judged relevant documents each ranking misses. Diversity measures read the subtopic table the campaign
scores. The other measures explain each topic's Organizations (:func:`workbench.explain`). A gold topic the run
lacks is explained as the campaign scores it: on trec_eval's ``-c`` placeholder ranking for a ranking measure, on
an empty ranking for a diversity measure, at the measure's worst value otherwise (``missing_topics="zero"``,
:func:`~workbench.data.scoring.unanswered_values`).

    >>> from workbench.data.campaign import Campaign
    >>> campaign = Campaign.from_dicts({"q1": {"a": 1, "b": 1}}, {"s": {"q1": {"a": 0.9, "x": 0.5}}})
    >>> e = explain_run(campaign, "s", "q1", "AP")
    >>> print(e.contributions[["topic", "rank", "document", "contribution"]].to_string(index=False))
    topic  rank document  contribution
       q1     1        a           0.5
       q1     2        x           0.0
       q1  <NA>        b           0.0
"""

from __future__ import annotations

from typing import Any

from workbench.data.engines import engine_of, explain_of_nothing
from workbench.data.scoring import CampaignError, topics_text
from workbench.data.topic_policies import TopicPolicy
from workbench.metrics.explanations import MeasureExplanation
from workbench.metrics.registry import Measure, parse

__all__ = ["UnknownSystemError", "UnknownTopicError", "checked", "explain_run", "explain_of_nothing"]


class UnknownSystemError(CampaignError):
    """A system the campaign does not have; the message lists those it has."""


class UnknownTopicError(CampaignError):
    """A topic the campaign's gold standard does not judge; the message lists some it does."""


def checked(campaign: Any, system: str, topic: str | None, measure: str | Measure) -> Measure:
    """The measure, once the system and the topic are known to the campaign (a
    :class:`~workbench.data.campaign.Campaign`; named errors otherwise)."""
    measure = parse(measure)
    if system not in campaign.runs:
        raise UnknownSystemError(f"no system {system!r} in the campaign; its systems: "
                                 f"{topics_text(list(campaign.runs))}")
    if topic is not None and topic not in campaign.gold:
        raise UnknownTopicError(f"no topic {topic!r} in the campaign's gold standard; its topics: "
                                f"{topics_text(list(campaign.gold))}")
    return measure


def explain_run(campaign: Any, system: str, topic: str | None, measure: str | Measure,
                missing_topics: str = "zero") -> MeasureExplanation:
    """``measure`` of ``system`` on ``topic`` (None: on every gold topic, one ``topic`` column) explained, as
    :meth:`Campaign.evaluate` scores it (``missing_topics``: ``"zero"`` explains a topic the run lacks as the
    campaign scores it, ``"skip"`` leaves it out, ``"error"`` refuses it)."""
    measure = checked(campaign, system, topic, measure)
    run = campaign.runs[system]
    topics = list(campaign.gold) if topic is None else [topic]
    lacking = [t for t in topics if t not in run]
    TopicPolicy(missing_topics, "ignore", {system: lacking} if lacking else {}).refuse()  # as evaluate refuses
    if lacking and missing_topics == "skip":
        if topic is not None:
            raise CampaignError(f"system {system!r} has no output for topic {topic!r}: missing_topics='skip' "
                                "leaves it out, so there is nothing to explain ('zero' explains it as the "
                                "campaign scores it)")
        topics = [t for t in topics if t in run]
    return engine_of(measure).explain(campaign.gold, run, topics, system, measure)  # the one lookup
