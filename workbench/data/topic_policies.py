"""What scoring a campaign does with the gold topics a run lacks (``missing_topics``: score them as an empty run,
skip them, or stop) and with the topics the gold lacks (``extra_topics``: stop, or drop them), for every door that
scores a campaign: :meth:`~workbench.data.campaign.Campaign.evaluate` in memory, the streamed
:func:`~workbench.data.streamed.evaluate_files` and the precision-recall curves. Each reads the topics, then asks one
:class:`TopicPolicy` to refuse, to give the values of unanswered topics, the frame's attributes and the warning, so
the doors cannot drift apart.

    >>> policy = TopicPolicy("skip", "ignore", missing={"A": ["q2"]}, extra={})
    >>> policy.attrs("nan")["missing_topics"]
    {'policy': 'skip', 'topics': {'A': ['q2']}}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.data.engines import by_engine
from workbench.data.scoring import topics_text, unanswered_values
from workbench.errors import CampaignError, WorkbenchWarning, warn
from workbench.validation import Choices

__all__ = ["MISSING_TOPIC_POLICIES", "MISSING_TOPICS", "EXTRA_POLICIES", "EXTRA_TOPICS", "MissingTopicsWarning",
           "TopicPolicy"]

MISSING_TOPIC_POLICIES = ("zero", "skip", "error")
"""What scoring does with a gold topic a run lacks (``missing_topics=``): score it as an empty run, skip it, or stop."""
MISSING_TOPICS = Choices(MISSING_TOPIC_POLICIES)
"""The domain of ``missing_topics``, wherever a campaign is scored or explained."""
EXTRA_POLICIES = ("error", "ignore")
EXTRA_TOPICS = Choices(EXTRA_POLICIES)
"""The domain of ``extra_topics``: run topics the gold lacks raise, or are dropped."""


class MissingTopicsWarning(WorkbenchWarning):
    """Some run lacks topics of the gold standard; the message says which and what the policy did."""


@dataclass(frozen=True)
class TopicPolicy:
    """The two policies and what they meet: per system, the gold topics its run lacks (``missing``) and the topics
    it has that the gold lacks (``extra``); systems with none are left out of both."""

    missing_topics: str
    extra_topics: str
    missing: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, list[str]] = field(default_factory=dict)

    def refuse(self) -> None:
        """Stop, naming the first system and its topics, where a policy says ``"error"`` and a run meets it."""
        if self.missing and self.missing_topics == "error":
            system, topics = next(iter(self.missing.items()))
            raise CampaignError(f"system {system!r} has no output for gold topic(s) {topics_text(topics)} "
                                "(missing_topics='error'; use 'zero' or 'skip' to evaluate anyway)")
        if self.extra and self.extra_topics == "error":
            system, topics = next(iter(self.extra.items()))
            raise CampaignError(f"system {system!r} has output for topic(s) {topics_text(topics)} that the "
                                "gold standard lacks (extra_topics='ignore' drops them)")

    def unanswered(self, names: Iterable[str]) -> dict[str, float]:
        """The values of the measures ``names`` scored at their worst on a topic a run lacks (``"zero"``;
        :func:`~workbench.data.scoring.unanswered_values`), ``{}`` when no topic is scored so."""
        return unanswered_values(names, self.missing) if self.missing and self.missing_topics == "zero" else {}

    def attrs(self, undefined: str) -> dict[str, dict]:
        """What the policies did, as a result frame's ``attrs`` (with the campaign's ``undefined`` rule)."""
        return {"missing_topics": {"policy": self.missing_topics, "topics": self.missing},
                "extra_topics": {"policy": self.extra_topics, "topics": self.extra},
                "undefined": {"policy": undefined}}

    def warn(self, zero: str) -> None:
        """One :class:`MissingTopicsWarning` saying what the policies did, if they did anything (``zero``: what was
        done with the topics a run lacks under ``missing_topics="zero"``, e.g. :meth:`without_credit`)."""
        done = zero if self.missing_topics == "zero" else "skipped"
        notes = [f"system {s!r} lacks {len(t)} gold topic(s) ({topics_text(t, 5)}): {done}"
                 for s, t in self.missing.items()]
        notes += [f"system {s!r} has {len(t)} topic(s) the gold lacks ({topics_text(t, 5)}): ignored"
                  for s, t in self.extra.items()]
        if notes:
            warn("; ".join(notes), MissingTopicsWarning)

    def without_credit(self, names: Iterable[str]) -> str:
        """How the measures ``names`` scored the topics a run lacks (``"zero"``), for the warning."""
        names = list(names)
        ranking = any(engine.placeholders for engine in by_engine(names))
        worst_values = self.unanswered(names)
        parts = ["ranking measures as trec_eval -c scores them, on an empty ranking (counts of the judgements, such "
                 "as NumRel, keep their value)"] if ranking else []
        if worst_values:
            parts.append(("other measures at their" if ranking else "every measure at its") + " worst value ("
                         + ", ".join(f"{name} {value:g}" for name, value in worst_values.items()) + ")")
        return "scored without credit: " + "; ".join(parts)
