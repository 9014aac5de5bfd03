"""Supervised fusion: methods that learn, from judged training topics, how likely each run's document at a rank
is relevant, then fuse other topics with it (ranx's ``bayesfuse``, ``probfuse``, ``segfuse``, ``slidefuse``,
``posfuse``, ``mapfuse``; Bassani & Romelli, CIKM 2022). :func:`train_fusion` learns, :meth:`TrainedFusion.fuse`
fuses; :func:`~workbench.fusion.optimize.optimize_fusion` trains on each fold's other folds and reports the
held-out scores.

A run's training rankings are read as ranx's hit lists: the run normalised (``norm``, as
:func:`~workbench.fusion.fuse`), ranked, a document relevant at grade ≥ 1; a training topic the run lacks is an
empty ranking. Per run, over the Q training topics (rank i from 1):

* ``bayesfuse`` (Aslam & Montague, Models for metasearch, SIGIR 2001): for the ranks 1–5, 6–10, 11–15, 16–20,
  21–30, 31–100, 101–200, 201–500, 501–1000, p the mean over topics of the relevant documents in the bin divided
  by its size, 0.001 added to p or to 1 − p where one is 0; the document scores log(p / (1 − p)), a run lacking it
  log(0.001 / 0.999), summed over the runs. Ranks past 1000 take the last bin's odds (ranx reads past its array);
* ``probfuse`` (Lillis et al., ProbFuse, SIGIR 2006; ``n_segments`` x): each ranking of m documents cut into
  segments of ⌈m / x⌉; P_k the mean over topics of the share of relevant documents in segment k (0 where a
  ranking has no k-th segment); a document in segment k scores P_k / k;
* ``segfuse`` (Shokouhi, ECIR 2007): segments of 5, 10, 20, … 2560 ranks (bounds 10 · 2^(k−1) − 5); P_k the mean
  of relevant / size; a document scores P_k · (s + 1), s its normalised score (0 past rank 5115);
* ``slidefuse`` (Lillis et al., ECIR 2008; ``w``): P_i the share of relevant documents at rank i among the
  topics ranked to depth i; a document at rank i of m scores the mean of P over ranks max(1, i − w) …
  min(m, i + w) (P = 0 past the deepest training ranking);
* ``posfuse`` (Lillis et al., SIGIR 2010): a document at rank i scores P_i (0 past the deepest);
* ``mapfuse`` (Lillis et al., SIGIR 2010): a document at rank i scores MAP / i, MAP the run's mean AP over
  the training topics (trec_eval's AP; 0 for a topic without a relevant document).

All but bayesfuse sum their scores over the runs that retrieve the document (CombSUM). Each method is one
declaration in :data:`SUPERVISED` (:class:`Supervised`: what it learns, the points it gives, its hyperparameters as
a measure declares its parameters, bounded by :data:`LONGEST`), against which :func:`train_fusion` checks what it
is given.

    >>> from workbench.data.campaign import Campaign
    >>> gold = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    >>> runs = {"x": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 0.5}},
    ...         "y": {"q1": {"b": 2.0, "a": 1.0}, "q2": {"d": 3.0, "c": 0.5}}}
    >>> model = train_fusion(Campaign.from_dicts(gold, runs), "posfuse", topics=["q1"])
    >>> [p.tolist() for p in model.estimates]
    [[1.0, 0.0], [0.0, 1.0]]
    >>> model.fuse(runs).documents("q2")
    ['c', 'd']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from workbench.data.campaign import Campaign
from workbench.data.trec.join import gain_table
from workbench.data.trec.ranked import RankedRun
from workbench.fusion.declare import Declared, MethodParam, NotedChoices
from workbench.fusion.entries import TOPICS, Entries, FusionError, Runs, as_runs, fused_run, groups, lay_out
from workbench.fusion.norms import NORMS, normalized
from workbench.metrics.ranking.kernels import average_precision
from workbench.metrics.ranking.table import GainTable
from workbench.model import Organization
from workbench.validation import Anything, Choices, Domain, Instance, Interval, ListOf, Text, validate

__all__ = ["BAYES_BINS", "SEGFUSE_BOUNDS", "LONGEST", "CAMPAIGN", "SUPERVISED_NORMS", "Supervised", "SUPERVISED",
           "FusionModelError", "TrainedFusion", "campaign_runs", "train_fusion"]

BAYES_BINS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""The rank bins of bayesfuse's log-odds (ranx's cut-offs), as 0-based bounds."""
SEGFUSE_BOUNDS = (0, *(10 * 2 ** (k - 1) - 5 for k in range(1, 11)))
"""segfuse's segment bounds (0-based): 0, 5, 15, 35, … 5115."""
LONGEST = 10 ** 5
"""The bound of a hyperparameter counted in ranks (probfuse's segments, slidefuse's window): deeper than any run's
ranking of a TREC track, and probfuse allocates one estimate per segment."""
_FLOOR = 0.001  # bayesfuse: p or 1 − p moved off 0; a missing document's odds log(0.001 / 0.999)

CAMPAIGN = Instance((Campaign,), "a Campaign")
SUPERVISED_NORMS = NotedChoices(("auto", *(norm for norm in NORMS if norm != "borda"), None),
                                "not borda, which adds every candidate to every run: a supervised method learns "
                                "from each run's own ranking")
"""The normalisations a supervised method trains on (``"auto"``: min-max)."""


# ---------------------------------------------------------------- what a method learns from one run's table
def _hits(table: GainTable) -> np.ndarray:
    """Topics × ranks: 1.0 where the retrieved document has grade ≥ 1 (ranx's hit lists, 0-padded)."""
    return table.relevant(1).astype(float)


def _bayes_odds(table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """log(p / (1 − p)) of each rank bin of :data:`BAYES_BINS`."""
    hits = _hits(table)
    odds = np.empty(len(BAYES_BINS) - 1)
    for k, (start, end) in enumerate(zip(BAYES_BINS[:-1], BAYES_BINS[1:], strict=True)):
        p = float(np.sum(hits[:, start:end].sum(axis=1) / (end - start) / topics))
        p = p + _FLOOR if p == 0 else p
        q = 1 - p
        q = q + _FLOOR if q == 0 else q
        odds[k] = np.log(p / q)
    return odds


def _segment_shares(table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """P_k of each of the ``n_segments`` segments."""
    n_segments = params["n_segments"]
    hits = _hits(table)
    shares = np.zeros(n_segments)
    for row, m in enumerate(table.num_ret.tolist()):
        if m:
            size = -(-m // n_segments)
            bounds = np.arange(0, m, size)
            counts = np.add.reduceat(hits[row, :m], bounds)
            shares[:bounds.size] += counts / np.diff(np.concatenate((bounds, [m])))
    return shares / topics


def _segfuse_shares(table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """P_k of each segment of :data:`SEGFUSE_BOUNDS`."""
    hits = _hits(table)
    bounds = np.array(SEGFUSE_BOUNDS)
    shares = np.zeros(bounds.size - 1)
    for k in range(shares.size):
        shares[k] = np.sum(hits[:, bounds[k]:bounds[k + 1]].sum(axis=1) / (bounds[k + 1] - bounds[k]))
    return shares / topics


def _rank_shares(table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """P_i: relevant documents at rank i over the topics ranked to depth i."""
    depth = int(table.num_ret.max(initial=0))
    ranked = table.retrieved()[:, :depth].sum(axis=0)
    return _hits(table)[:, :depth].sum(axis=0) / np.maximum(ranked, 1)


def _mean_ap(table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """The run's MAP over the training topics."""
    return np.array([float(np.mean(average_precision(table)))])


# ------------------------- the points of an entry at 0-based rank i of a ranking of m, normalised score s
def _bin_odds(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
              params: Mapping[str, int]) -> np.ndarray:
    """The log-odds of i's bin (the last bin's past it)."""
    return estimate[np.minimum(np.searchsorted(BAYES_BINS, i, side="right") - 1, estimate.size - 1)]


def _segment_points(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
                    params: Mapping[str, int]) -> np.ndarray:
    """P_k / k, k the 1-based segment of ⌈m / n_segments⌉ ranks holding i."""
    k = i // -(-m // params["n_segments"])
    return estimate[k] / (k + 1)


def _segfuse_points(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
                    params: Mapping[str, int]) -> np.ndarray:
    """P_k · (s + 1), 0 past the last segment."""
    k = np.searchsorted(SEGFUSE_BOUNDS, i, side="right") - 1
    return _zero_past(estimate, k) * (s + 1)


def _rank_points(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
                 params: Mapping[str, int]) -> np.ndarray:
    """P_i (0 past the deepest training ranking)."""
    return _zero_past(estimate, i)


def _window_points(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
                   params: Mapping[str, int]) -> np.ndarray:
    """The mean of P over the ranks max(0, i − w) … min(m − 1, i + w)."""
    w = params["w"]
    low, high = np.maximum(i - w, 0), np.minimum(i + w, m - 1)
    cumulative = np.concatenate(([0.0], np.cumsum(estimate)))
    reach = np.minimum(high + 1, estimate.size)
    within = cumulative[reach] - cumulative[np.minimum(low, estimate.size)]
    return within / (high - low + 1)


def _map_points(estimate: np.ndarray, i: np.ndarray, m: np.ndarray, s: np.ndarray,
                params: Mapping[str, int]) -> np.ndarray:
    """MAP / (i + 1)."""
    return estimate[0] / (i + 1)


def _zero_past(estimate: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``estimate[index]``, 0 where the index is past its end."""
    return np.concatenate((estimate, [0.0]))[np.minimum(index, estimate.size)]


@dataclass(frozen=True, kw_only=True)
class Supervised(Declared):
    """A supervised fusion method, declared as a measure is: what it learns from one run's training table
    (``learn(table, topics, params)``, an array of estimates), the points an entry then gets from its run's
    estimate (``points(estimate, i, m, s, params)``: i its 0-based rank in a ranking of m, s its normalised score),
    what a run lacking the document gives it (``absent``), its hyperparameters
    (:class:`~workbench.fusion.declare.MethodParam`, given or chosen by
    :func:`~workbench.fusion.optimize.optimize_fusion`) and where it comes from."""

    learn: Callable[[GainTable, int, Mapping[str, int]], np.ndarray]
    points: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Mapping[str, int]], np.ndarray]
    absent: float = 0.0

    @property
    def norms(self) -> Domain:
        return SUPERVISED_NORMS

    @property
    def auto(self) -> str | None:
        return "min-max"


_LILLIS = "Lillis, Zhang, Toolan, Collier, Leonard & Dunnion"
SUPERVISED: dict[str, Supervised] = {
    "bayesfuse": Supervised(learn=_bayes_odds, points=_bin_odds, absent=float(np.log(_FLOOR / (1 - _FLOOR))),
                            source="Aslam & Montague, SIGIR 2001"),
    "probfuse": Supervised(learn=_segment_shares, points=_segment_points, params={"n_segments": MethodParam(
        None, Interval(1, LONGEST, integer=True), "the number of segments each training ranking is cut into",
        grid=tuple(range(1, 101)))}, source="Lillis, Toolan, Collier & Dunnion, SIGIR 2006"),
    "segfuse": Supervised(learn=_segfuse_shares, points=_segfuse_points, source="Shokouhi, ECIR 2007"),
    "slidefuse": Supervised(learn=_rank_shares, points=_window_points, params={"w": MethodParam(
        None, Interval(0, LONGEST, integer=True), "the ranks on either side of a rank averaged over",
        grid=tuple(range(1, 101)))}, source=f"{_LILLIS}, ECIR 2008"),
    "posfuse": Supervised(learn=_rank_shares, points=_rank_points, source=f"{_LILLIS}, SIGIR 2010"),
    "mapfuse": Supervised(learn=_mean_ap, points=_map_points, source=f"{_LILLIS}, SIGIR 2010"),
}
"""The supervised fusion methods by name (ranx's names)."""


class FusionModelError(FusionError):
    """Runs that are not those a :class:`TrainedFusion` was trained on (their systems differ)."""


@dataclass(frozen=True)
class TrainedFusion:
    """What :func:`train_fusion` learnt: per run (``systems``, in order) an array ``estimates`` (bayesfuse: the
    log-odds of each rank bin; probfuse and segfuse: P of each segment; slidefuse and posfuse: P of each rank;
    mapfuse: the MAP), the normalisation and hyperparameters it was trained with, and its training topics."""

    method: str
    systems: tuple[str, ...]
    norm: str | None
    params: Mapping[str, int]
    estimates: tuple[np.ndarray, ...]
    topics: tuple[str, ...] = field(repr=False)

    @validate(runs=Runs(), topics=TOPICS)
    def fuse(self, runs, *, topics: str = "same") -> RankedRun:
        """``runs`` (the trained systems, as :func:`~workbench.fusion.fuse` takes runs) fused with what was
        learnt: a :class:`~workbench.data.trec.ranked.RankedRun`. Each run's points summed (CombSUM), with
        ``absent`` for each run lacking the document."""
        spec = SUPERVISED[self.method]
        entries, values = normalized(lay_out(self._matching(runs), topics), self.norm)
        order, starts = groups(entries)
        length = entries.size[entries.run, entries.topic]
        points = np.empty(entries.rank.size)
        for r, estimate in enumerate(self.estimates):
            mine = entries.run == r
            points[mine] = spec.points(estimate, entries.rank[mine], length[mine], values[mine], self.params)
        total = np.add.reduceat(points[order], starts) if order.size else np.zeros(0)
        if spec.absent:
            count = np.diff(np.concatenate((starts, [order.size])))
            total = total + (len(self.systems) - count) * spec.absent
        return fused_run(entries, order, starts, total)

    def _matching(self, runs) -> dict[str, RankedRun]:
        named = as_runs(runs)
        if tuple(named) != self.systems:
            if sorted(named) != sorted(self.systems):
                raise FusionModelError(f"this {self.method} model was trained on the runs "
                                       f"{', '.join(map(repr, self.systems))}; got {', '.join(map(repr, named))}: "
                                       "fuse the runs it learnt from (named alike)")
            named = {name: named[name] for name in self.systems}
        return named


def campaign_runs(campaign: Campaign) -> dict[str, Mapping[str, Organization]]:
    """The campaign's runs, two at least (:class:`~workbench.fusion.entries.FusionError` otherwise)."""
    runs = dict(campaign.runs)
    if len(runs) < 2:
        raise FusionError(f"fusion needs at least two runs, the campaign has {len(runs)}")
    return runs


@validate(campaign=CAMPAIGN, method=Choices(tuple(SUPERVISED)), topics=ListOf(Text(), shortest=1, optional=True),
          norm=SUPERVISED_NORMS,
          params=Anything("each checked against the method's declared parameters, SUPERVISED[method].params"))
def train_fusion(campaign: Campaign, method: str, *, topics: Sequence[str] | None = None, norm: str | None = "auto",
                 **params: int) -> TrainedFusion:
    """Learn ``method`` (one of :data:`SUPERVISED`) from the campaign's runs on its judged ``topics`` (default:
    every gold topic), the runs normalised by ``norm`` (as :func:`~workbench.fusion.fuse`: ``"auto"`` is
    min-max; not borda); ``params`` its hyperparameters, as it declares them (``n_segments`` of probfuse, ``w`` of
    slidefuse: ``SUPERVISED[method].params``)."""
    spec = SUPERVISED[method]
    arguments = spec.arguments(method, params, "train_fusion")
    norm = spec.auto if norm == "auto" else norm
    training = _training_topics(campaign, topics)
    entries, _ = normalized(lay_out(campaign_runs(campaign), topics="union"), norm)
    tables = _training_tables(campaign, entries, training)
    estimates = tuple(spec.learn(table, len(training), arguments) for table in tables)
    return TrainedFusion(method, entries.names, norm, arguments, estimates, tuple(training))


def _training_topics(campaign: Campaign, topics: Sequence[str] | None) -> list[str]:
    gold = list(campaign.gold)
    if topics is None:
        return gold
    judged = set(gold)
    unknown = [t for t in topics if t not in judged]
    if unknown:
        raise FusionError(f"training topics {', '.join(map(repr, unknown[:5]))} are not judged in the campaign")
    return list(dict.fromkeys(topics))


def _training_tables(campaign: Campaign, entries: Entries, training: list[str]) -> list[GainTable]:
    """Per run, the gain table of its (normalised) rankings of the training topics, a row each (empty where
    the run lacks the topic), joined with the judgements by :func:`~workbench.data.trec.join.gain_table`."""
    code = {t: i for i, t in enumerate(entries.topics)}
    segment, starts = entries.segments()
    ends = np.concatenate((starts[1:], [segment.size]))
    span = {int(segment[s]): (s, e) for s, e in zip(starts, ends, strict=True)}
    tables = []
    for r in range(len(entries.names)):
        rankings = {}
        for t in training:
            s, e = span.get(r * len(entries.topics) + code[t], (0, 0)) if t in code else (0, 0)
            rankings[t] = Organization.from_ranking(entries.ids.take(np.arange(s, e)).strings().tolist())
        tables.append(gain_table(campaign.gold, rankings, training))
    return tables
