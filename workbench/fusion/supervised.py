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

All but bayesfuse sum their scores over the runs that retrieve the document (CombSUM).

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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from workbench.data.trec.join import gain_table
from workbench.data.trec.ranked import RankedRun
from workbench.fusion.entries import Entries, FusionError, as_runs, fused_run, groups, lay_out
from workbench.fusion.norms import normalized
from workbench.metrics.ranking.kernels import average_precision
from workbench.metrics.ranking.table import GainTable
from workbench.model import Organization

__all__ = ["BAYES_BINS", "SEGFUSE_BOUNDS", "Supervised", "SUPERVISED", "FusionModelError", "TrainedFusion",
           "train_fusion"]

if TYPE_CHECKING:
    from workbench.data.campaign import Campaign

BAYES_BINS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""The rank bins of bayesfuse's log-odds (ranx's cut-offs), as 0-based bounds."""
SEGFUSE_BOUNDS = (0, *(10 * 2 ** (k - 1) - 5 for k in range(1, 11)))
"""segfuse's segment bounds (0-based): 0, 5, 15, 35, … 5115."""
_FLOOR = 0.001  # bayesfuse: p or 1 − p moved off 0; a missing document's odds log(0.001 / 0.999)


@dataclass(frozen=True)
class Supervised:
    """A supervised fusion method: its hyperparameters (integers, given or chosen by
    :func:`~workbench.fusion.optimize.optimize_fusion`) and where it comes from."""

    params: tuple[str, ...] = ()
    source: str = ""


SUPERVISED: dict[str, Supervised] = {
    "bayesfuse": Supervised(source="Aslam & Montague, SIGIR 2001"),
    "probfuse": Supervised(("n_segments",), "Lillis, Toolan, Collier & Dunnion, SIGIR 2006"),
    "segfuse": Supervised(source="Shokouhi, ECIR 2007"),
    "slidefuse": Supervised(("w",), "Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, ECIR 2008"),
    "posfuse": Supervised(source="Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, SIGIR 2010"),
    "mapfuse": Supervised(source="Lillis, Zhang, Toolan, Collier, Leonard & Dunnion, SIGIR 2010"),
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

    def fuse(self, runs, *, topics: str = "same") -> RankedRun:
        """``runs`` (the trained systems, as :func:`~workbench.fusion.fuse` takes runs) fused with what was
        learnt: a :class:`~workbench.data.trec.ranked.RankedRun`."""
        entries, values = normalized(lay_out(self._matching(runs), topics), self.norm)
        order, starts = groups(entries)
        points = _points(self, entries, values)[order]
        total = np.add.reduceat(points, starts) if order.size else np.zeros(0)
        if self.method == "bayesfuse":  # a run lacking the document gives the floor's odds
            count = np.diff(np.concatenate((starts, [order.size])))
            total = total + (len(self.systems) - count) * np.log(_FLOOR / (1 - _FLOOR))
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


def train_fusion(campaign: Campaign, method: str, *, topics: Sequence[str] | None = None, norm: str | None = "auto",
                 **params: int) -> TrainedFusion:
    """Learn ``method`` (one of :data:`SUPERVISED`) from the campaign's runs on its judged ``topics`` (default:
    every gold topic), the runs normalised by ``norm`` (as :func:`~workbench.fusion.fuse`: ``"auto"`` is
    min-max); ``params`` its hyperparameters (``n_segments`` of probfuse, ``w`` of slidefuse)."""
    spec = _supervised(method, params)
    if norm == "borda":
        raise FusionError(f"{method} learns from each run's own ranking; borda adds every candidate to every run: "
                          "use another norm")
    norm = "min-max" if norm == "auto" else norm
    training = _training_topics(campaign, topics)
    entries, _ = normalized(lay_out(dict(campaign.runs), topics="union"), norm)
    tables = _training_tables(campaign, entries, training)
    estimates = tuple(_estimate(method, table, len(training), params) for table in tables)
    return TrainedFusion(method, entries.names, norm, {name: int(params[name]) for name in spec.params},
                         estimates, tuple(training))


def _supervised(method: str, params: Mapping) -> Supervised:
    if method not in SUPERVISED:
        raise FusionError(f"unknown supervised fusion method {method!r}; known: {', '.join(SUPERVISED)}")
    spec = SUPERVISED[method]
    if set(params) != set(spec.params):
        unknown, lacking = sorted(set(params) - set(spec.params)), sorted(set(spec.params) - set(params))
        raise FusionError(f"{method} takes the parameters {', '.join(spec.params) or 'none'}"
                          + (f"; got {', '.join(unknown)}" if unknown else "")
                          + (f"; give {', '.join(lacking)} (optimize_fusion chooses it by cross-validation)"
                             if lacking else ""))
    for name, value in params.items():
        low = 1 if name == "n_segments" else 0
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
            raise FusionError(f"{method}: {name} must be an integer ≥ {low}, got {value!r}")
    return spec


def _training_topics(campaign: Campaign, topics: Sequence[str] | None) -> list[str]:
    gold = list(campaign.gold)
    if topics is None:
        return gold
    chosen = [str(t) for t in topics]
    unknown = [t for t in chosen if t not in set(gold)]
    if unknown:
        raise FusionError(f"training topics {', '.join(map(repr, unknown[:5]))} are not judged in the campaign")
    if not chosen:
        raise FusionError("training needs at least one judged topic")
    return list(dict.fromkeys(chosen))


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


def _estimate(method: str, table: GainTable, topics: int, params: Mapping[str, int]) -> np.ndarray:
    """What ``method`` learns from one run's training table (``topics`` rows)."""
    if method == "bayesfuse":
        return _bayes_odds(table, topics)
    if method == "probfuse":
        return _segment_shares(table, topics, params["n_segments"])
    if method == "segfuse":
        return _segfuse_shares(table, topics)
    if method == "mapfuse":
        return np.array([float(np.mean(average_precision(table)))])
    return _rank_shares(table)  # slidefuse, posfuse


def _hits(table: GainTable) -> np.ndarray:
    """Topics × ranks: 1.0 where the retrieved document has grade ≥ 1 (ranx's hit lists, 0-padded)."""
    return table.relevant(1).astype(float)


def _bayes_odds(table: GainTable, topics: int) -> np.ndarray:
    hits = _hits(table)
    odds = np.empty(len(BAYES_BINS) - 1)
    for k, (start, end) in enumerate(zip(BAYES_BINS[:-1], BAYES_BINS[1:], strict=True)):
        p = float(np.sum(hits[:, start:end].sum(axis=1) / (end - start) / topics))
        p = p + _FLOOR if p == 0 else p
        q = 1 - p
        q = q + _FLOOR if q == 0 else q
        odds[k] = np.log(p / q)
    return odds


def _segment_shares(table: GainTable, topics: int, n_segments: int) -> np.ndarray:
    hits = _hits(table)
    shares = np.zeros(n_segments)
    for row, m in enumerate(table.num_ret.tolist()):
        if m:
            size = -(-m // n_segments)
            bounds = np.arange(0, m, size)
            counts = np.add.reduceat(hits[row, :m], bounds)
            shares[:bounds.size] += counts / np.diff(np.concatenate((bounds, [m])))
    return shares / topics


def _segfuse_shares(table: GainTable, topics: int) -> np.ndarray:
    hits = _hits(table)
    bounds = np.array(SEGFUSE_BOUNDS)
    shares = np.zeros(bounds.size - 1)
    for k in range(shares.size):
        shares[k] = np.sum(hits[:, bounds[k]:bounds[k + 1]].sum(axis=1) / (bounds[k + 1] - bounds[k]))
    return shares / topics


def _rank_shares(table: GainTable) -> np.ndarray:
    """P_i: relevant documents at rank i over the topics ranked to depth i."""
    depth = int(table.num_ret.max(initial=0))
    ranked = table.retrieved()[:, :depth].sum(axis=0)
    return _hits(table)[:, :depth].sum(axis=0) / np.maximum(ranked, 1)


def _points(model: TrainedFusion, entries: Entries, values: np.ndarray) -> np.ndarray:
    """What each entry brings: its run's estimate at its rank (segment, bin), as the method reads it."""
    rank = entries.rank
    length = entries.size[entries.run, entries.topic]
    points = np.empty(rank.size)
    for r, estimate in enumerate(model.estimates):
        mine = entries.run == r
        i, m = rank[mine], length[mine]
        if model.method == "bayesfuse":
            points[mine] = estimate[np.minimum(np.searchsorted(BAYES_BINS, i, side="right") - 1, estimate.size - 1)]
        elif model.method == "probfuse":
            k = i // -(-m // model.params["n_segments"])
            points[mine] = estimate[k] / (k + 1)
        elif model.method == "segfuse":  # 0 past the last segment
            k = np.searchsorted(SEGFUSE_BOUNDS, i, side="right") - 1
            points[mine] = _zero_past(estimate, k) * (values[mine] + 1)
        elif model.method == "posfuse":
            points[mine] = _zero_past(estimate, i)
        elif model.method == "slidefuse":
            w = model.params["w"]
            low, high = np.maximum(i - w, 0), np.minimum(i + w, m - 1)
            cumulative = np.concatenate(([0.0], np.cumsum(estimate)))
            reach = np.minimum(high + 1, estimate.size)
            within = cumulative[reach] - cumulative[np.minimum(low, estimate.size)]
            points[mine] = within / (high - low + 1)
        else:  # mapfuse
            points[mine] = estimate[0] / (i + 1)
    return points


def _zero_past(estimate: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``estimate[index]``, 0 where the index is past its end."""
    return np.concatenate((estimate, [0.0]))[np.minimum(index, estimate.size)]
