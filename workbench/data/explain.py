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

import math
from typing import Any

import numpy as np

from workbench.data.scoring import CampaignError, topics_text, unanswered_values
from workbench.data.trec.join import gain_table, ndeval_order, subtopic_table
from workbench.data.trec.ranked import RankedRun
from workbench.ids import DocumentIds
from workbench.metrics.explanations import MeasureExplanation, explain
from workbench.metrics.explanations.diversity import explain_subtopic_table
from workbench.metrics.explanations.ranking import RankingRows, explain_table
from workbench.metrics.ranking import is_table_measure
from workbench.metrics.ranking.declare import is_diversity_measure
from workbench.metrics.ranking.table import ranked_documents
from workbench.metrics.registry import Measure, parse
from workbench.metrics.summary import summarize, trec_order

__all__ = ["UnknownSystemError", "UnknownTopicError", "checked", "explain_run", "explain_of_nothing"]


class UnknownSystemError(CampaignError):
    """A system the campaign does not have; the message lists those it has."""


class UnknownTopicError(CampaignError):
    """A topic the campaign's gold standard does not judge; the message lists some it does."""


def _in_ndeval_order(run: RankedRun, topic: str) -> list[str]:
    """The topic's documents as the diversity measures rank them (:func:`~workbench.data.trec.join.ndeval_order`)."""
    documents = run.documents(topic)
    return [documents[i] for i in ndeval_order(run, topic).tolist()]


def _as_columns(rows: RankingRows) -> RankingRows:
    """The join's documents as the explanation's columns: ids held as arrays (a read campaign's) become pandas
    columns backed by Arrow strings, with no Python object per document."""
    import pandas as pd

    def column(documents):
        return pd.arrays.ArrowExtensionArray(documents.arrow()) if isinstance(documents, DocumentIds) else documents

    return RankingRows(column(rows.retrieved), rows.missing_rows, column(rows.missing_documents),
                       rows.missing_grades)


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
    import pandas as pd

    measure = checked(campaign, system, topic, measure)
    run = campaign.runs[system]
    topics = list(campaign.gold) if topic is None else [topic]
    lacking = [t for t in topics if t not in run]
    if lacking and missing_topics != "zero":
        if missing_topics == "error" or topic is not None:
            raise CampaignError(f"system {system!r} has no output for topic(s) {topics_text(lacking)} "
                                f"(missing_topics={missing_topics!r})")
        topics = [t for t in topics if t in run]
    if is_table_measure(measure):
        try:
            table, rows = gain_table(campaign.gold, run, topics, placeholders=True, documents=True)
        except CampaignError:
            raise
        except Exception as error:
            if hasattr(error, "add_note"):
                error.add_note(f"while explaining system {system!r}")
            raise
        return explain_table(table, measure, _as_columns(rows), with_topics=True)
    if is_diversity_measure(measure):  # the subtopic table the campaign scores, a topic the run lacks empty
        subtopics = subtopic_table(campaign.gold, run, topics, placeholders=True)
        ranked = [(_in_ndeval_order(run, t) if isinstance(run, RankedRun) else ranked_documents(run[t]))
                  if t in run else [] for t in topics]
        return explain_subtopic_table(subtopics, measure, ranked, with_topics=True)
    explanations = []
    for name in topics:
        if name in run:
            explanations.append((name, explain(campaign.gold[name], run[name], measure)))
        else:
            explanations.append((name, _absent(measure, system, name)))
    if len(explanations) == 1:
        name, only = explanations[0]
        frame = only.contributions.copy()
        frame.insert(0, "topic", name)
        return MeasureExplanation(only.measure, only.score, frame, only.parts, only.formula, only.how, only.combiner,
                                  pd.Series([only.score], index=pd.Index([name], name="topic"), name=only.measure))
    frames = []
    for name, each in explanations:
        frame = each.contributions.copy()
        frame.insert(0, "topic", name)
        frames.append(frame)
    values = np.array([each.score for _, each in explanations], dtype=float)
    names = [name for name, _ in explanations]
    score = summarize(values[trec_order(names)], measure.spec.aggregate) if names else math.nan
    first = explanations[0][1] if explanations else explain_of_nothing(measure)
    return MeasureExplanation(str(measure), float(score), pd.concat(frames, ignore_index=True),
                              {part: math.nan for part in first.parts}, first.formula, first.how, first.combiner,
                              pd.Series(values, index=pd.Index(names, name="topic"), name=str(measure)))


def _absent(measure: Measure, system: str, topic: str) -> MeasureExplanation:
    """A topic the run lacks, explained as the campaign scores it (``missing_topics="zero"``): at the value the
    one rule gives (:func:`~workbench.data.scoring.unanswered_values`: the measure's worst, refused where it has
    none), in one row that says so."""
    import pandas as pd

    value = unanswered_values([measure], {system: [topic]})[str(measure)]
    lost = abs(float(measure.spec.range[1 if measure.spec.direction == "higher" else 0]) - value)  # to the best
    rows = pd.DataFrame({"document": [None], "what": [f"the run has no output for this topic: scored {value:g}, "
                                                      "the measure's worst value"], "contribution": [value],
                         "lost": [lost if math.isfinite(lost) else float("nan")]})
    return MeasureExplanation(str(measure), value, rows, {str(measure): value},
                              f"no output: the worst value, {value:g}", "per document")


def explain_of_nothing(measure: Measure) -> MeasureExplanation:
    """The explanation of no topic at all (a run explained over topics it all lacks, skipped): NaN, no rows."""
    import pandas as pd

    rows = pd.DataFrame({"document": [], "contribution": [], "lost": []})
    return MeasureExplanation(str(measure), math.nan, rows, {str(measure): math.nan}, "no topic", "per document")
