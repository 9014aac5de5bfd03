"""Fusion methods: one score per (topic, document) from the runs' normalised scores or ranks, as ranx defines
them (Bassani & Romelli, ranx.fuse: Fusion Methods for Information Retrieval, CIKM 2022), the run ranked as a read
run is (trec_eval's order).

Score-based (after ``norm``, min-max by default), over the runs that retrieve the document (n of them):
``sum`` CombSUM Σs; ``max``/``min``/``med`` CombMAX/MIN/MED; ``anz`` CombANZ Σs / n; ``mnz`` CombMNZ Σs · n
(Fox & Shaw, TREC-2 1993); ``gmnz`` Σs · n^γ (Joho et al.); ``wsum`` Σ w·s; ``wmnz`` Σs · Σw (Wu & Crestani);
``mixed`` Σ w·s · √n (Wu & Crestani, CIKM 2002).
Rank-based (r the 1-based rank): ``rrf`` Σ 1 / (k + r) (Cormack et al., SIGIR 2009); ``isr`` Σ 1/r² · n,
``log_isr`` Σ 1/r² · ln n, ``logn_isr`` Σ 1/r² · ln(n + σ) (Mourão et al. 2015); ``rbc`` Σ (1 − φ) φ^(r−1)
(Bailey et al., SIGIR 2017); ``bordafuse`` Σ (c − r + 1), a candidate a run lacks taking (c − m + 1) / 2 of it
(c candidates, m retrieved; Aslam & Montague, SIGIR 2001); ``w_bordafuse`` the same weighted; ``condorcet`` and
``w_condorcet`` the pairwise majority of the runs (:mod:`~workbench.fusion.condorcet`).

Each method is one declaration in :data:`METHODS` (:class:`Method`): what each entry brings and how a document's
values combine, with its parameters as a measure declares them (:class:`~workbench.fusion.declare.MethodParam`:
default, domain, description, and the grid :func:`~workbench.fusion.optimize.optimize_fusion` tries), against which
:func:`fuse` checks what it is given:

    >>> for name, method in METHODS.items():
    ...     for p, d in method.params.items():
    ...         print(f"{name}: {p} = {d.default}, {d.domain}, {d.description}")
    gmnz: gamma = 1.0, in (-inf, inf), the exponent of n (the runs retrieving the document)
    rrf: k = 60.0, in [0, inf), added to each rank (the larger, the flatter)
    logn_isr: sigma = 0.01, in [0, 1], added to n inside the logarithm
    rbc: phi = 0.8, in (0, 1), the persistence (the chance of reading on)
    >>> runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0, "d3": 1.0}}}
    >>> fused = fuse(runs, method="rrf")
    >>> fused.documents("q"), [round(s, 5) for s in fused.scores("q").tolist()]
    (['d2', 'd1', 'd3'], [0.03252, 0.01639, 0.01613])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.data.trec.ranked import RankedRun
from workbench.fusion.condorcet import copeland_scores
from workbench.fusion.declare import Declared, MethodParam, NotedChoices, Weights
from workbench.fusion.entries import (
    TOPICS,
    Entries,
    FusionScoreError,
    Runs,
    by_system,
    describe,
    fused_run,
    groups,
    lay_out,
)
from workbench.fusion.norms import NORMS, normalized
from workbench.validation import Anything, Choices, Domain, Interval, check, validate

__all__ = ["Groups", "Method", "METHODS", "FUSE_METHODS", "FUSE_NORMS", "RANK_NORMS", "fuse", "weights_domain"]

FUSE_NORMS = Choices(("auto", *NORMS, None))
"""The domain of ``norm``: one of :data:`~workbench.fusion.norms.NORMS`, None (the scores as given) or ``"auto"``
(min-max for a score-based method, none for a rank-based one)."""
RANK_NORMS = NotedChoices(("auto", "min-max-inverted", None),
                          "a rank-based method reads ranks, which no normalisation but min-max-inverted changes")
"""The normalisations a rank-based method reads."""


@dataclass(frozen=True)
class Groups:
    """The runs' entries gathered by (topic, document): ``order`` and where each group ``starts`` in it
    (:func:`~workbench.fusion.entries.groups`), what each entry in that order brings (``values``), and one
    ``weight`` per run; what a method's ``combine`` reads."""

    entries: Entries
    order: np.ndarray
    starts: np.ndarray
    values: np.ndarray
    weight: np.ndarray

    @property
    def run(self) -> np.ndarray:
        """The run of each entry, in ``order``."""
        return self.entries.run[self.order]

    @property
    def count(self) -> np.ndarray:
        """n, the number of runs retrieving each group's document."""
        return np.diff(np.concatenate((self.starts, [self.order.size]))).astype(float)

    def total(self, values: np.ndarray | None = None) -> np.ndarray:
        """Σ of each group's ``values`` (by default its entries')."""
        return np.add.reduceat(self.values if values is None else values, self.starts)

    def weighted(self) -> np.ndarray:
        """Each entry's value times its run's weight."""
        return self.values * self.weight[self.run]


# ----------------------------------------------------------------------------------- what each entry brings
def _scores(entries: Entries, values: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """Its normalised score s."""
    return values


def _rank(entries: Entries) -> np.ndarray:
    return entries.rank.astype(float) + 1.0


def _reciprocal_rank(entries: Entries, values: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """1 / (k + r)."""
    return 1.0 / (params["k"] + _rank(entries))


def _inverse_square_rank(entries: Entries, values: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """1 / r²."""
    return 1.0 / _rank(entries) ** 2


def _rank_biased(entries: Entries, values: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """(1 − φ) φ^(r−1)."""
    return (1.0 - params["phi"]) * params["phi"] ** (_rank(entries) - 1.0)


def _borda_points(entries: Entries, values: np.ndarray, params: Mapping[str, Any]) -> np.ndarray:
    """c − r + 1 (c the topic's candidates)."""
    return _candidates(entries)[entries.topic] - _rank(entries) + 1.0


# ------------------------------------------------------------------------------ how a group's values combine
def _total(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ."""
    return g.total()


def _weighted_total(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ w·v."""
    return g.total(g.weighted())


def _largest(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    return np.maximum.reduceat(g.values, g.starts)


def _smallest(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    return np.minimum.reduceat(g.values, g.starts)


def _median(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """The middle value, or the mean of the two middle ones."""
    count = g.count.astype(np.int64)
    group = np.repeat(np.arange(g.starts.size), count)
    ranked = g.values[np.lexsort((g.values, group))]
    low, high = g.starts + (count - 1) // 2, g.starts + count // 2
    return (ranked[low] + ranked[high]) / 2


def _mean(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ / n."""
    return g.total() / g.count


def _times_count(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ · n."""
    return g.total() * g.count


def _times_count_to_gamma(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ · n^γ."""
    return g.total() * g.count ** params["gamma"]


def _times_weights(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ · Σw (the weights of the runs retrieving the document)."""
    return g.total() * np.add.reduceat(g.weight[g.run], g.starts)


def _times_log_count(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ · ln n."""
    return g.total() * np.log(g.count)


def _times_log_count_sigma(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ · ln(n + σ)."""
    return g.total() * np.log(g.count + params["sigma"])


def _mixed(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ w·s · √n."""
    return g.total(g.weighted()) * np.sqrt(g.count)


def _borda(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Σ w·v, plus what the runs lacking the document give it."""
    return g.total(g.weighted()) + _absent_borda_points(g)


def _copeland(g: Groups, params: Mapping[str, Any]) -> np.ndarray:
    """Copeland's score in the runs' weighted pairwise majority (:mod:`~workbench.fusion.condorcet`)."""
    return copeland_scores(g.entries, g.order, g.starts, g.weight)


@dataclass(frozen=True, kw_only=True)
class Method(Declared):
    """A fusion method, declared as a measure is: ``kind`` ``"score"`` (it reads normalised scores, min-max by
    default) or ``"rank"`` (it reads ranks: no normalisation but min-max-inverted, which ranks again), what each
    entry brings (``values(entries, scores, params)``: its score, or points for its rank r, 1 first), how the
    values of each (topic, document) combine (``combine(groups, params)``, :class:`Groups`), its parameters
    (:class:`~workbench.fusion.declare.MethodParam`), whether it takes one weight per run and where it comes from."""

    kind: str
    values: Callable[[Entries, np.ndarray, Mapping[str, Any]], np.ndarray]
    combine: Callable[[Groups, Mapping[str, Any]], np.ndarray]

    @property
    def norms(self) -> Domain:
        return FUSE_NORMS if self.kind == "score" else RANK_NORMS

    @property
    def auto(self) -> str | None:
        return "min-max" if self.kind == "score" else None


def _score(combine: Callable[[Groups, Mapping[str, Any]], np.ndarray], source: str, **declared: Any) -> Method:
    return Method(kind="score", values=_scores, combine=combine, source=source, **declared)


def _ranks(values: Callable[[Entries, np.ndarray, Mapping[str, Any]], np.ndarray],
           combine: Callable[[Groups, Mapping[str, Any]], np.ndarray], source: str, **declared: Any) -> Method:
    return Method(kind="rank", values=values, combine=combine, source=source, **declared)


_MOURAO = "Mourão, Martins & Magalhães 2015"
_GAMMA = MethodParam(1.0, Interval(), "the exponent of n (the runs retrieving the document)",
                     grid=(0.25, 0.5, 0.75, 1.0, 1.5, 2.0))
_K = MethodParam(60.0, Interval(0), "added to each rank (the larger, the flatter)", grid=tuple(range(0, 101, 10)))
_SIGMA = MethodParam(0.01, Interval(0, 1), "added to n inside the logarithm", grid=(0.001, 0.01, 0.1, 0.5, 1.0))
_PHI = MethodParam(0.8, Interval(0, 1, low_open=True, high_open=True), "the persistence (the chance of reading on)",
                   grid=tuple(round(0.1 * i, 1) for i in range(1, 10)))
METHODS: dict[str, Method] = {
    "sum": _score(_total, "CombSUM, Fox & Shaw 1993"),
    "max": _score(_largest, "CombMAX, Fox & Shaw 1993"),
    "min": _score(_smallest, "CombMIN, Fox & Shaw 1993"),
    "med": _score(_median, "CombMED, Fox & Shaw 1993"),
    "anz": _score(_mean, "CombANZ, Fox & Shaw 1993"),
    "mnz": _score(_times_count, "CombMNZ, Fox & Shaw 1993"),
    "gmnz": _score(_times_count_to_gamma, "CombGMNZ, Joho et al. 2005", params={"gamma": _GAMMA}),
    "wsum": _score(_weighted_total, "weighted CombSUM", weighted=True),
    "wmnz": _score(_times_weights, "WMNZ, Wu & Crestani 2002", weighted=True),
    "rrf": _ranks(_reciprocal_rank, _total, "Cormack, Clarke & Büttcher, SIGIR 2009", params={"k": _K}),
    "isr": _ranks(_inverse_square_rank, _times_count, _MOURAO),
    "log_isr": _ranks(_inverse_square_rank, _times_log_count, _MOURAO),
    "logn_isr": _ranks(_inverse_square_rank, _times_log_count_sigma, _MOURAO, params={"sigma": _SIGMA}),
    "rbc": _ranks(_rank_biased, _total, "Bailey et al., SIGIR 2017", params={"phi": _PHI}),
    "bordafuse": _ranks(_borda_points, _borda, "Aslam & Montague, SIGIR 2001"),
    "w_bordafuse": _ranks(_borda_points, _borda, "weighted BordaFuse", weighted=True),
    "mixed": _score(_mixed, "Mixed, Wu & Crestani, CIKM 2002", weighted=True),
    "condorcet": _ranks(_scores, _copeland, "Condorcet-fuse, Montague & Aslam, CIKM 2002"),
    "w_condorcet": _ranks(_scores, _copeland, "weighted Condorcet-fuse, Montague & Aslam, CIKM 2002", weighted=True),
}
"""The fusion methods by name (ranx's names)."""

FUSE_METHODS = NotedChoices(tuple(METHODS), "a supervised method is trained: train_fusion(campaign, method).fuse(runs)")
"""The domain of :func:`fuse`'s ``method``."""


def weights_domain(method: str, spec: Declared, names: tuple[str, ...]) -> Domain:
    """The weights ``method`` takes for the runs ``names``: one finite number each, or none (None) for a method
    that weighs no run."""
    if spec.weighted:
        return Weights(names)
    weighted = ", ".join(name for name, m in METHODS.items() if m.weighted)
    return NotedChoices((None,), f"{method} takes no weights: use one of {weighted} to weigh the runs")


@validate(runs=Runs(), method=FUSE_METHODS, weights=Weights(), norm=FUSE_NORMS, topics=TOPICS,
          params=Anything("each checked against the method's declared parameters, METHODS[method].params"))
def fuse(runs, method: str = "rrf", weights=None, norm: str | None = "auto", *, topics: str = "same",
         **params) -> RankedRun:
    """One run fused from ``runs`` (read runs or pytrec_eval's ``{topic: {document: score}}``, as ``{system: run}``
    or a list), in the shape :func:`~workbench.data.trec.readers.read_trec_run` gives a run: a
    :class:`~workbench.data.trec.ranked.RankedRun` (``{topic: ranking}``, fused scores kept) that can be written,
    evaluated and inspected.

    ``method`` is one of :data:`METHODS`; ``weights`` one finite number per run (a list in the runs' order, or
    ``{system: weight}``) for the weighted methods (default: 1 each); ``norm`` one of
    :data:`~workbench.fusion.norms.NORMS` or None for the score-based methods (``"auto"``: min-max, as ranx),
    refused for the rank-based ones, which read ranks (but ``min-max-inverted``, which ranks each run lowest
    score first, as ranx does); ``topics`` as :func:`~workbench.fusion.entries.lay_out`;
    ``params`` the method's own, as it declares them (``k`` of rrf, ``phi`` of rbc, ``gamma`` of gmnz, ``sigma``
    of logn_isr: ``METHODS[method].params``).
    An infinite score, a topic ``norm`` is not defined for (:mod:`~workbench.fusion.norms`: ``max`` of a topic whose
    highest score is not positive) and a fused score beyond a double's range raise
    :class:`~workbench.fusion.entries.FusionScoreError` naming the system, the topic and the document.
    """
    spec = METHODS[method]
    arguments = spec.arguments(method, params, "fuse")
    check(norm, spec.norms, "norm", "fuse")
    names = tuple(by_system(runs))
    check(weights, weights_domain(method, spec, names), "weights", "fuse")
    norm = spec.auto if norm == "auto" else norm
    entries, values = normalized(lay_out(runs, topics), norm)
    order, starts = groups(entries)
    with np.errstate(over="ignore", invalid="ignore"):  # a sum beyond a double's range: refused below, named
        fused = spec.combine(Groups(entries, order, starts, spec.values(entries, values, arguments)[order],
                                    _weights(weights, names)), arguments) if order.size else np.zeros(0)
    _refuse_overflow(entries, order, starts, fused, method, spec.kind == "score" and norm is None)
    return fused_run(entries, order, starts, fused)


def _weights(weights, names: tuple[str, ...]) -> np.ndarray:
    """One weight per run (as :func:`weights_domain` takes them), 1 each when none is given."""
    if weights is None:
        return np.ones(len(names))
    if isinstance(weights, Mapping):
        given = {str(name): weight for name, weight in weights.items()}
        weights = [given[name] for name in names]
    return np.asarray(weights, dtype=float)


def _refuse_overflow(entries: Entries, order: np.ndarray, starts: np.ndarray, fused: np.ndarray, method: str,
                     raw: bool) -> None:
    """:class:`FusionScoreError` naming the topic, the document and the systems behind the first fused score
    beyond a double's range (``raw`` scores near ±1.8e308 summed, or a huge weight)."""
    bad = np.flatnonzero(~np.isfinite(fused))
    if not bad.size:
        return
    g = int(bad[0])
    members = order[starts[g]:starts[g + 1] if g + 1 < starts.size else order.size]
    systems = ", ".join(repr(entries.names[r]) for r in entries.run[members])
    where = describe(entries, int(members[0])).split(", ", 1)[1]
    hint = "normalise the scores (norm='min-max')" if raw else "give smaller weights"
    raise FusionScoreError(f"{method}: the fused score of {where} (from systems {systems}) overflows a double; "
                           f"{hint}")


def _candidates(entries: Entries) -> np.ndarray:
    """The number of distinct documents the runs retrieve, per topic."""
    order, starts = groups(entries)
    return np.bincount(entries.topic[order[starts]], minlength=len(entries.topics)).astype(float)


def _absent_borda_points(g: Groups) -> np.ndarray:
    """What each group's document gets from the runs that lack it: (c − m + 1) / 2 from each (c candidates of the
    topic, m documents the run retrieves), times the run's weight."""
    entries = g.entries
    c = _candidates(entries)
    points = (c[None, :] - entries.size + 1.0) / 2.0 * g.weight[:, None]  # runs × topics
    topic = entries.topic[g.order[g.starts]]
    present = np.add.reduceat(points[entries.run[g.order], entries.topic[g.order]], g.starts)
    return points.sum(axis=0)[topic] - present
