"""A campaign's scores explained: one system's run on one topic, or on every topic at once, through the very gain
table the campaign scores (so the rows add up to :meth:`Campaign.evaluate`'s values, bit for bit in the kernel).

Ranking measures read the array-backed judgements and runs directly: the documents of a whole run become an
Arrow string column (no Python object per document), and the judged relevant documents a ranking misses are
found by their (topic, document) keys. Diversity measures read the subtopic table the campaign scores. The other
measures explain each topic's Organizations (:func:`workbench.explain`). A gold topic the run lacks is explained
as the campaign scores it: on trec_eval's ``-c`` placeholder ranking for a ranking measure, on an empty ranking
for a diversity measure, at the measure's worst value otherwise (``missing_topics="zero"``,
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
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from workbench.data.scoring import CampaignError, topics_text, unanswered_values
from workbench.data.trec.join import PLACEHOLDER, gain_table, ndeval_order, spans, subtopic_table
from workbench.data.trec.ranked import Judgements, RankedRun, keys
from workbench.ids import DocumentIds
from workbench.metrics.explanations import MeasureExplanation, explain
from workbench.metrics.explanations.diversity import explain_subtopic_table
from workbench.metrics.explanations.ranking import RankingRows, explain_table
from workbench.metrics.ranking import is_table_measure
from workbench.metrics.ranking.declare import is_diversity_measure
from workbench.metrics.ranking.table import judgements_of, ranked_documents
from workbench.metrics.registry import Measure, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import natural_key


class UnknownSystemError(CampaignError):
    """A system the campaign does not have; the message lists those it has."""


class UnknownTopicError(CampaignError):
    """A topic the campaign's gold standard does not judge; the message lists some it does."""


def _in_ndeval_order(run: RankedRun, topic: str) -> list[str]:
    """The topic's documents as the diversity measures rank them (:func:`~workbench.data.trec.join.ndeval_order`)."""
    documents = run.documents(topic)
    return [documents[i] for i in ndeval_order(run, topic).tolist()]


def _column(ids: DocumentIds):
    """Ids as a pandas column backed by Arrow strings."""
    import pandas as pd

    return pd.arrays.ArrowExtensionArray(ids.arrow())


def _array_rows(gold: Judgements, run: RankedRun, topics: Sequence[str], table) -> RankingRows:
    """The documents of an array-backed run's table (its entries in rank order, trec_eval's placeholder for a
    topic the run lacks) and the judged relevant documents each topic's ranking misses."""
    present = [run.index.get(topic) for topic in topics]
    if None not in present:
        entries = np.arange(int(run.offsets[-1])) if present == list(range(len(run.topics))) else \
            spans(run.offsets, np.array(present, dtype=np.int64))[0]
        docs = run.ids.take(entries)  # these very ids when the run's topics are all there, in order
    else:  # the placeholder rows come after the run's own in the join: put them in place, topic by topic
        kept = np.array([p for p in present if p is not None], dtype=np.int64)
        entries, rank = spans(run.offsets, kept)
        rows = np.array([row for row, p in enumerate(present) if p is not None], dtype=np.int64)[rank]
        absent = np.array([row for row, p in enumerate(present) if p is None], dtype=np.int64)
        ids = DocumentIds.from_strings(np.concatenate((run.ids.take(entries).strings(), [PLACEHOLDER] * absent.size)))
        docs = ids.take(np.argsort(np.concatenate((rows, absent)), kind="stable"))
    # the judged relevant documents of each topic, and those the ranking retrieves (gain > 0 in the table)
    judged, judged_rank = spans(gold.offsets, np.array([gold.index[t] for t in topics], dtype=np.int64))
    relevant = gold.grades[judged] > 0
    judged, judged_rows = judged[relevant], judged_rank[relevant]
    judged_ids = gold.ids.take(judged)
    retrieved = table.retrieved()
    found_rows, found_columns = np.nonzero((table.gains > 0) & retrieved)
    width = table.gains.shape[1]
    flat = found_rows * width + found_columns
    entry = flat if (table.num_ret == width).all() else np.cumsum(retrieved.ravel())[flat] - 1
    found_ids = docs.take(entry)
    n = max(len(topics), 1)
    judged_keys, found_keys = keys(judged_rows, judged_ids, n), keys(found_rows, found_ids, n)
    order = np.argsort(found_keys, kind="stable")
    matched = np.zeros(len(judged_keys), dtype=bool)
    if len(order):
        candidate = order[np.minimum(np.searchsorted(found_keys[order], judged_keys), len(order) - 1)]
        same = (found_keys[candidate] == judged_keys) & (found_rows[candidate] == judged_rows)
        where = np.flatnonzero(same)
        matched[where] = found_ids.equal(candidate[where], judged_ids, where)  # a key shared by two ids: missed
    missing = np.flatnonzero(~matched)
    return RankingRows(_column(docs), judged_rows[missing], _column(judged_ids.take(missing)),
                       gold.grades[judged][missing])


def _mapping_rows(gold: Mapping, run: Mapping, topics: Sequence[str]) -> RankingRows:
    """The same from Organizations (or any mapping the join reads topic by topic)."""
    retrieved: list[str] = []
    missing_rows: list[int] = []
    missing_docs: list[str] = []
    missing_grades: list[float] = []
    for row, topic in enumerate(topics):
        ranked = (run.documents(topic) if isinstance(run, RankedRun) else ranked_documents(run[topic])) \
            if topic in run else [PLACEHOLDER]
        judged = gold.grades_of(topic) if isinstance(gold, Judgements) else judgements_of(gold[topic])
        retrieved.extend(ranked)
        seen = set(ranked)
        lacking = sorted(((d, g) for d, g in judged.items() if g > 0 and d not in seen),
                         key=lambda item: (-item[1], natural_key(item[0])))
        missing_rows.extend([row] * len(lacking))
        missing_docs.extend(d for d, _ in lacking)
        missing_grades.extend(g for _, g in lacking)
    documents = np.empty(len(retrieved), dtype=object)
    documents[:] = retrieved
    lacking_docs = np.empty(len(missing_docs), dtype=object)
    lacking_docs[:] = missing_docs
    return RankingRows(documents, np.array(missing_rows, dtype=np.int64), lacking_docs,
                       np.array(missing_grades, dtype=float))


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
            table = gain_table(campaign.gold, run, topics, placeholders=True)
        except CampaignError:
            raise
        except Exception as error:
            if hasattr(error, "add_note"):
                error.add_note(f"while explaining system {system!r}")
            raise
        if isinstance(campaign.gold, Judgements) and isinstance(run, RankedRun):
            rows = _array_rows(campaign.gold, run, topics, table)
        else:
            rows = _mapping_rows(campaign.gold, run, topics)
        return explain_table(table, measure, rows, with_topics=True)
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
