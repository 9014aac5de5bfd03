"""Runs laid out for fusion: every retrieved document of every run as one entry of flat arrays (its run, topic,
document, score, rank), and fused scores turned back into a run as the readers give it.

The runs are read runs (:class:`~workbench.data.trec.ranked.RankedRun`, in trec_eval's order) or pytrec_eval's
``{topic: {document: score}}`` (ranked the same way, :func:`~workbench.data.trec.memory.runs_from_dicts`), given as
``{system: run}`` or a list. A run's rank is its position in that order (0 for the first document).

    >>> runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0}}}
    >>> entries = lay_out(runs)
    >>> entries.names, entries.rank.tolist(), entries.ids.strings().tolist()
    (('a', 'b'), [0, 1, 0], ['d1', 'd2', 'd2'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.data.trec.lines import Labels
from workbench.data.trec.ranked import RankedRun, keys, rank_runs
from workbench.errors import CampaignError
from workbench.ids import DocumentIds
from workbench.validation import Choices, Domain

__all__ = ["TOPIC_POLICIES", "TOPICS", "Runs", "FusionError", "FusionTopicsError", "FusionScoreError", "Entries",
           "by_system", "as_runs", "lay_out", "describe", "groups", "fused_run"]

TOPIC_POLICIES = ("same", "union", "intersection")
TOPICS = Choices(TOPIC_POLICIES)
"""The domain of ``topics``: which topics the runs are fused over (:func:`lay_out`)."""


@dataclass(frozen=True)
class Runs(Domain):
    """Runs to fuse: ``{system: run}`` or a list of runs, ``fewest`` of them at least, each a read run
    (:class:`~workbench.data.trec.ranked.RankedRun`) or pytrec_eval's ``{topic: {document: score}}`` (whose
    reading names what is wrong inside); one run alone too where ``alone``.

    >>> Runs().reason([{"q": {"d": 1.0}}])
    'must be 2 runs at least, as {system: run} or a list (read runs or {topic: {document: score}}) (1 given)'
    """

    fewest: int = 2
    alone: bool = False

    def __str__(self) -> str:
        what = (f"{self.fewest} runs at least, as {{system: run}} or a list (read runs or "
                "{topic: {document: score}})")
        return f"one run or {what}" if self.alone else what

    def reason(self, value: Any) -> str | None:
        if isinstance(value, RankedRun):
            return None if self.alone else f"must be {self}, not one run"
        if not isinstance(value, Mapping | Sequence) or isinstance(value, str | bytes):
            return f"must be {self}"
        if len(value) < self.fewest:
            return f"must be {self} ({len(value)} given)"
        for name, run in by_system(value).items():
            if not isinstance(run, RankedRun | Mapping):
                return f"must be {self} (run {name!r} is a {type(run).__name__})"
        return None

    def wrong_type(self, value: Any) -> bool:
        if not isinstance(value, RankedRun | Mapping | Sequence) or isinstance(value, str | bytes):
            return True
        return not isinstance(value, RankedRun) and not all(isinstance(run, RankedRun | Mapping)
                                                              for run in by_system(value).values())

    def outside(self) -> tuple:
        return ("text", 3, [{"q": {"d": 1.0}}] * (self.fewest - 1), {"a": 3, "b": 4})


class FusionError(CampaignError):
    """Runs, topics, folds or results that fusion cannot use; the message says which and what to change. (A bad
    argument is a :class:`~workbench.errors.ParameterError`, raised by the one validator.)"""


class FusionTopicsError(FusionError):
    """The runs do not answer the same topics (``topics="same"``), or share none to fuse."""


class FusionScoreError(FusionError):
    """Scores fusion cannot use: an infinite one (refused where the runs are laid out), a topic the normalisation
    is not defined for (``max`` of a topic whose highest score is not positive), or a result beyond a double's
    range; the message names the system, the topic and, where one is to blame, the document."""


@dataclass(frozen=True)
class Entries:
    """Every retrieved document of every run: ``run`` (index into ``names``), ``topic`` (index into
    ``topics``), ``ids``, ``score`` and ``rank`` (0 first), grouped by run then topic then rank; ``size[r, t]`` the
    number of documents run r retrieves for topic t (0 when it has none)."""

    names: tuple[str, ...]
    topics: tuple[str, ...]
    run: np.ndarray
    topic: np.ndarray
    ids: DocumentIds
    score: np.ndarray
    rank: np.ndarray
    size: np.ndarray

    def segments(self) -> tuple[np.ndarray, np.ndarray]:
        """Each entry's (run, topic) segment number, and where each non-empty segment starts."""
        segment = self.run * len(self.topics) + self.topic
        starts = np.flatnonzero(np.concatenate(([True], segment[1:] != segment[:-1]))) if segment.size else \
            np.zeros(0, dtype=np.int64)
        return segment, starts


def by_system(runs) -> dict[str, Any]:
    """``{system: run}`` as the runs are given (:class:`Runs`): a mapping's keys as text, a list's positions (0, 1,
    ...), one run alone named ``run``."""
    if isinstance(runs, RankedRun):
        return {"run": runs}
    if isinstance(runs, Mapping):
        return {str(name): run for name, run in runs.items()}
    return {str(i): run for i, run in enumerate(runs)}


def as_runs(runs) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` from runs :class:`Runs` takes (pytrec_eval dicts ranked as read runs are)."""
    from workbench.data.trec.memory import runs_from_dicts

    return {name: run if isinstance(run, RankedRun) else runs_from_dicts({name: run})[name]
            for name, run in by_system(runs).items()}


def lay_out(runs, topics: str = "same") -> Entries:
    """The entries (:class:`Entries`) of ``runs`` (as :class:`Runs` takes them) over the topics ``topics`` says
    (:data:`TOPICS`): ``"same"`` (every run must answer the same topics, else :class:`FusionTopicsError`),
    ``"union"`` (a run without a topic retrieves nothing there) or ``"intersection"`` (the topics every run
    answers)."""
    named = as_runs(runs)
    sets = {name: set(run.topics) for name, run in named.items()}
    union = list(dict.fromkeys(t for run in named.values() for t in run.topics))
    common = [t for t in union if all(t in s for s in sets.values())]
    if topics == "same" and len(common) < len(union):
        lacking = {name: [t for t in union if t not in s] for name, s in sets.items() if len(s) < len(union)}
        shown = "; ".join(f"{name!r} lacks {', '.join(map(repr, ts[:5]))}{' …' if len(ts) > 5 else ''}"
                          for name, ts in lacking.items())
        raise FusionTopicsError(f"the runs do not answer the same topics ({shown}): pass topics='union' to fuse "
                                "what each run has, or topics='intersection' to keep the topics all of them answer")
    kept = union if topics == "union" else common
    if not kept:
        raise FusionTopicsError(f"the runs {', '.join(map(repr, named))} share no topic: there is nothing to fuse "
                                "(check that they answer the same queries, with the same topic ids)")
    index = {t: i for i, t in enumerate(kept)}
    parts, run_codes, topic_codes, scores, ranks = [], [], [], [], []
    size = np.zeros((len(named), len(kept)), dtype=np.int64)
    for r, run in enumerate(named.values()):
        used = [i for i, t in enumerate(run.topics) if t in index]
        for i in used:
            run.span(run.topics[i])  # a topic repeating a document is refused here, when it is used
        lengths = run.offsets[np.array(used, dtype=np.int64) + 1] - run.offsets[np.array(used, dtype=np.int64)]
        positions = np.concatenate([np.arange(run.offsets[i], run.offsets[i + 1]) for i in used]) if used else \
            np.zeros(0, dtype=np.int64)
        codes = np.array([index[run.topics[i]] for i in used], dtype=np.int64)
        size[r, codes] = lengths
        parts.append(run.ids.take(positions))
        run_codes.append(np.full(positions.size, r, dtype=np.int64))
        topic_codes.append(np.repeat(codes, lengths))
        scores.append(run.scores_array[positions])
        ranks.append(np.arange(positions.size) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    entries = Entries(tuple(named), tuple(kept), np.concatenate(run_codes), np.concatenate(topic_codes),
                      DocumentIds.concatenate(parts), np.concatenate(scores), np.concatenate(ranks), size)
    _refuse_non_finite(entries)
    return entries


def _refuse_non_finite(entries: Entries) -> None:
    """:class:`FusionScoreError` naming the first entry whose score is infinite or NaN (trec_eval's ``atof`` reads
    ``inf``, and any number beyond ±1.8e308, as infinite): no normalisation or sum of it means anything."""
    bad = np.flatnonzero(~np.isfinite(entries.score))
    if bad.size:
        raise FusionScoreError(f"{describe(entries, int(bad[0]))} has score {float(entries.score[bad[0]])}: "
                               "fusion needs finite scores (a score written beyond ±1.8e308 reads as infinite)")


def describe(entries: Entries, i: int, document: bool = True) -> str:
    """``system 'a', topic 'q1', document 'd3'``: where entry ``i`` comes from (without its document if not
    ``document``)."""
    where = f"system {entries.names[entries.run[i]]!r}, topic {entries.topics[entries.topic[i]]!r}"
    return f"{where}, document {entries.ids.take(np.array([i])).strings()[0]!r}" if document else where


def groups(entries: Entries) -> tuple[np.ndarray, np.ndarray]:
    """The entries ordered so that each (topic, document) is together (``order``), and where each such group
    starts in that order. Documents are matched by 64-bit keys and every match checked on the ids; should two
    documents share a key, by their exact byte codes."""
    n = len(entries.topics)
    hashed = keys(entries.topic, entries.ids, n)
    order = np.argsort(hashed, kind="stable")
    ordered = hashed[order]
    new = np.concatenate(([True], ordered[1:] != ordered[:-1])) if ordered.size else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(new)
    first = order[np.repeat(starts, np.diff(np.concatenate((starts, [order.size]))))]
    if not entries.ids.equal(order, entries.ids, first).all():  # two documents share a key: exact codes
        exact = entries.topic * (int(entries.ids.codes().max(initial=0)) + 1) + entries.ids.codes()
        order = np.argsort(exact, kind="stable")
        ordered = exact[order]
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    return order, starts


def fused_run(entries: Entries, order: np.ndarray, starts: np.ndarray, scores: np.ndarray) -> RankedRun:
    """The run of one fused score per (topic, document) group, ranked as a read run is (trec_eval's order: score
    descending, then document id descending); every topic of ``entries`` is in it."""
    first = order[starts]
    topics = Labels(entries.topic[first], entries.topics)
    return rank_runs(None, topics, entries.ids.take(first), scores)[""]
