"""Fusion methods: one score per (topic, document) from the runs' normalised scores or ranks, as ranx defines
them (Bassani & Romelli, ranx.fuse: Fusion Methods for Information Retrieval, CIKM 2022), the run ranked as a read
run is (trec_eval's order).

Score-based (after ``norm``, min-max by default), over the runs that retrieve the document (n of them):
``sum`` CombSUM Σs; ``max``/``min``/``med`` CombMAX/MIN/MED; ``anz`` CombANZ Σs / n; ``mnz`` CombMNZ Σs · n
(Fox & Shaw, TREC-2 1993); ``gmnz`` Σs · n^γ (Joho et al.); ``wsum`` Σ w·s; ``wmnz`` Σs · Σw (Wu & Crestani);
``mixed`` Σ w·s · √n (Wu & Crestani, CIKM 2002).
Rank-based (r the 1-based rank): ``rrf`` Σ 1 / (k + r) (Cormack et al., SIGIR 2009; k = 60); ``isr`` Σ 1/r² · n,
``log_isr`` Σ 1/r² · ln n, ``logn_isr`` Σ 1/r² · ln(n + σ) (Mourão et al. 2015); ``rbc`` Σ (1 − φ) φ^(r−1)
(Bailey et al., SIGIR 2017); ``bordafuse`` Σ (c − r + 1), a candidate a run lacks taking (c − m + 1) / 2 of it
(c candidates, m retrieved; Aslam & Montague, SIGIR 2001); ``w_bordafuse`` the same weighted; ``condorcet`` and
``w_condorcet`` the pairwise majority of the runs (:mod:`~workbench.fusion.condorcet`).

    >>> runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0, "d3": 1.0}}}
    >>> fused = fuse(runs, method="rrf")
    >>> fused.documents("q"), [round(s, 5) for s in fused.scores("q").tolist()]
    (['d2', 'd1', 'd3'], [0.03252, 0.01639, 0.01613])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from workbench.data.trec.ranked import RankedRun
from workbench.fusion.condorcet import copeland_scores
from workbench.fusion.entries import (
    Entries,
    FusionError,
    FusionScoreError,
    FusionWeightsError,
    describe,
    fused_run,
    groups,
    lay_out,
)
from workbench.fusion.norms import normalized
from workbench.fusion.supervised import SUPERVISED

__all__ = ["Method", "METHODS", "fuse", "combine"]


@dataclass(frozen=True)
class Method:
    """A fusion method: ``kind`` (``"score"``: reads normalised scores; ``"rank"``: reads ranks), its parameters
    with defaults, whether it takes one weight per run, and where it comes from."""

    kind: str
    params: Mapping[str, float] = field(default_factory=dict)
    weighted: bool = False
    source: str = ""


METHODS: dict[str, Method] = {
    "sum": Method("score", source="CombSUM, Fox & Shaw 1993"),
    "max": Method("score", source="CombMAX, Fox & Shaw 1993"),
    "min": Method("score", source="CombMIN, Fox & Shaw 1993"),
    "med": Method("score", source="CombMED, Fox & Shaw 1993"),
    "anz": Method("score", source="CombANZ, Fox & Shaw 1993"),
    "mnz": Method("score", source="CombMNZ, Fox & Shaw 1993"),
    "gmnz": Method("score", {"gamma": 1.0}, source="CombGMNZ, Joho et al. 2005"),
    "wsum": Method("score", weighted=True, source="weighted CombSUM"),
    "wmnz": Method("score", weighted=True, source="WMNZ, Wu & Crestani 2002"),
    "rrf": Method("rank", {"k": 60.0}, source="Cormack, Clarke & Büttcher, SIGIR 2009"),
    "isr": Method("rank", source="Mourão et al. 2015"),
    "log_isr": Method("rank", source="Mourão et al. 2015"),
    "logn_isr": Method("rank", {"sigma": 0.01}, source="Mourão et al. 2015"),
    "rbc": Method("rank", {"phi": 0.8}, source="Bailey et al., SIGIR 2017"),
    "bordafuse": Method("rank", source="Aslam & Montague, SIGIR 2001"),
    "w_bordafuse": Method("rank", weighted=True, source="weighted BordaFuse"),
    "mixed": Method("score", weighted=True, source="Mixed, Wu & Crestani, CIKM 2002"),
    "condorcet": Method("rank", source="Condorcet-fuse, Montague & Aslam, CIKM 2002"),
    "w_condorcet": Method("rank", weighted=True, source="weighted Condorcet-fuse, Montague & Aslam, CIKM 2002"),
}
"""The fusion methods by name (ranx's names)."""


def fuse(runs, method: str = "rrf", weights=None, norm: str | None = "auto", *, topics: str = "same",
         **params) -> RankedRun:
    """One run fused from ``runs`` (read runs or pytrec_eval's ``{topic: {document: score}}``, as ``{system: run}``
    or a list), in the shape :func:`~workbench.data.trec.readers.read_trec_run` gives a run: a
    :class:`~workbench.data.trec.ranked.RankedRun` (``{topic: ranking}``, fused scores kept) that can be written,
    evaluated and inspected.

    ``method`` is one of :data:`METHODS`; ``weights`` one number per run (a list in the runs' order, or
    ``{system: weight}``) for the weighted methods (default: 1 each); ``norm`` one of
    :data:`~workbench.fusion.norms.NORMS` or None for the score-based methods (``"auto"``: min-max, as ranx),
    refused for the rank-based ones, which read ranks (but ``min-max-inverted``, which ranks each run lowest
    score first, as ranx does); ``topics`` as :func:`~workbench.fusion.entries.lay_out`;
    ``params`` the method's own (``k`` of rrf, ``phi`` of rbc, ``gamma`` of gmnz, ``sigma`` of logn_isr).
    An infinite score, a topic ``norm`` is not defined for (:mod:`~workbench.fusion.norms`: ``max`` of a topic whose
    highest score is not positive) and a fused score beyond a double's range raise
    :class:`~workbench.fusion.entries.FusionScoreError` naming the system, the topic and the document.
    """
    spec = _method(method, params)
    entries = lay_out(runs, topics)
    norm = _norm(spec, method, norm)
    entries, values = normalized(entries, norm)
    weight = _weights(spec, method, weights, entries.names)
    order, starts = groups(entries)
    with np.errstate(over="ignore", invalid="ignore"):  # a sum beyond a double's range: refused below, named
        fused = combine(entries, values, order, starts, method, weight, {**spec.params, **params})
    _refuse_overflow(entries, order, starts, fused, method, norm)
    return fused_run(entries, order, starts, fused)


def _refuse_overflow(entries: Entries, order: np.ndarray, starts: np.ndarray, fused: np.ndarray, method: str,
                     norm: str | None) -> None:
    """:class:`FusionScoreError` naming the topic, the document and the systems behind the first fused score
    beyond a double's range (raw scores near ±1.8e308 summed, or a huge weight)."""
    bad = np.flatnonzero(~np.isfinite(fused))
    if not bad.size:
        return
    g = int(bad[0])
    members = order[starts[g]:starts[g + 1] if g + 1 < starts.size else order.size]
    systems = ", ".join(repr(entries.names[r]) for r in entries.run[members])
    where = describe(entries, int(members[0])).split(", ", 1)[1]
    hint = "normalise the scores (norm='min-max')" if norm is None and METHODS[method].kind == "score" else \
        "give smaller weights"
    raise FusionScoreError(f"{method}: the fused score of {where} (from systems {systems}) overflows a double; "
                           f"{hint}")


def _method(method: str, params: Mapping) -> Method:
    if method in SUPERVISED:
        raise FusionError(f"{method} learns from judged topics: train_fusion(campaign, {method!r}).fuse(runs) "
                          "fuses with what it learnt, optimize_fusion cross-validates it")
    if method not in METHODS:
        raise FusionError(f"unknown fusion method {method!r}; known: {', '.join(METHODS)}")
    spec = METHODS[method]
    unknown = set(params) - set(spec.params)
    if unknown:
        raise FusionError(f"{method} takes no parameter {', '.join(sorted(unknown))} (its parameters: "
                          f"{', '.join(spec.params) or 'none'})")
    for name, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not np.isfinite(value):
            raise FusionError(f"{method}: parameter {name} must be a finite number, got {value!r}")
    if "phi" in params and not 0 < params["phi"] < 1:
        raise FusionError(f"rbc: phi must be in (0, 1), got {params['phi']!r}")
    if "sigma" in params and not 0 <= params["sigma"] <= 1:
        raise FusionError(f"logn_isr: sigma must be in [0, 1], got {params['sigma']!r}")
    if "k" in params and params["k"] < 0:
        raise FusionError(f"rrf: k must be ≥ 0, got {params['k']!r}")
    return spec


def _norm(spec: Method, method: str, norm: str | None) -> str | None:
    if spec.kind == "rank":
        if norm == "min-max-inverted":  # the one normalisation that changes the ranks: lowest score first
            return norm
        if norm not in ("auto", None):
            raise FusionError(f"{method} fuses ranks, which no normalisation but min-max-inverted changes: leave "
                              "norm out (or None)")
        return None
    return "min-max" if norm == "auto" else norm


def _weights(spec: Method, method: str, weights, names: tuple[str, ...]) -> np.ndarray:
    """One weight per run, from a list in the runs' order or ``{system: weight}``; :class:`FusionWeightsError`
    when they do not match the runs."""
    if weights is None:
        return np.ones(len(names))
    if not spec.weighted:
        weighted = ", ".join(name for name, m in METHODS.items() if m.weighted)
        raise FusionWeightsError(f"{method} takes no weights: use one of {weighted} to weigh the runs")
    if isinstance(weights, Mapping):
        given = {str(k): v for k, v in weights.items()}
        if set(given) != set(names):
            raise FusionWeightsError(f"weights name {sorted(given)} but the runs are {list(names)}: give one weight "
                                     "per run, keyed by its system name")
        weights = [given[name] for name in names]
    values = list(weights) if not isinstance(weights, str | bytes) and np.ndim(weights) == 1 else None
    if values is None or len(values) != len(names):
        raise FusionWeightsError(f"{len(names)} runs ({', '.join(names)}) need {len(names)} weights, got "
                                 f"{weights!r}")
    array = np.array([v if isinstance(v, int | float | np.number) and not isinstance(v, bool) else np.nan
                      for v in values], dtype=float)
    if not np.isfinite(array).all():
        raise FusionWeightsError(f"weights must be finite numbers, got {weights!r}")
    return array


def combine(entries: Entries, values: np.ndarray, order: np.ndarray, starts: np.ndarray, method: str,
            weight: np.ndarray, params: Mapping[str, float]) -> np.ndarray:
    """The fused score of each (topic, document) group (``order``, ``starts``: :func:`groups`)."""
    v = _entry_values(entries, values, method, params)[order]
    runs = entries.run[order]
    count = np.diff(np.concatenate((starts, [order.size]))).astype(float)
    if order.size == 0:
        return np.zeros(0)
    if method in ("condorcet", "w_condorcet"):
        return copeland_scores(entries, order, starts, weight)
    if method in ("wsum", "w_bordafuse", "mixed"):
        v = v * weight[runs]
    if method == "max":
        return np.maximum.reduceat(v, starts)
    if method == "min":
        return np.minimum.reduceat(v, starts)
    if method == "med":
        group = np.repeat(np.arange(starts.size), count.astype(np.int64))
        ranked = v[np.lexsort((v, group))]
        low, high = starts + (count.astype(np.int64) - 1) // 2, starts + count.astype(np.int64) // 2
        return (ranked[low] + ranked[high]) / 2
    total = np.add.reduceat(v, starts)
    if method in ("bordafuse", "w_bordafuse"):
        return total + _absent_borda_points(entries, order, starts, weight if method == "w_bordafuse" else None)
    if method == "anz":
        return total / count
    if method in ("mnz", "isr"):
        return total * count
    if method == "gmnz":
        return total * count ** params["gamma"]
    if method == "log_isr":
        return total * np.log(count)
    if method == "logn_isr":
        return total * np.log(count + params["sigma"])
    if method == "wmnz":
        return total * np.add.reduceat(weight[runs], starts)
    if method == "mixed":
        return total * np.sqrt(count)
    return total  # sum, wsum, rrf, rbc


def _entry_values(entries: Entries, values: np.ndarray, method: str, params: Mapping[str, float]) -> np.ndarray:
    """What each entry brings: its normalised score, or its rank's points."""
    rank = entries.rank.astype(float) + 1.0
    if method == "rrf":
        return 1.0 / (params["k"] + rank)
    if method in ("isr", "log_isr", "logn_isr"):
        return 1.0 / rank ** 2
    if method == "rbc":
        return (1.0 - params["phi"]) * params["phi"] ** (rank - 1.0)
    if method in ("bordafuse", "w_bordafuse"):
        return _candidates(entries)[entries.topic] - rank + 1.0
    return values


def _candidates(entries: Entries) -> np.ndarray:
    """The number of distinct documents the runs retrieve, per topic."""
    order, starts = groups(entries)
    return np.bincount(entries.topic[order[starts]], minlength=len(entries.topics)).astype(float)


def _absent_borda_points(entries: Entries, order: np.ndarray, starts: np.ndarray,
                         weight: np.ndarray | None) -> np.ndarray:
    """What each group's document gets from the runs that lack it: (c − m + 1) / 2 from each (c candidates of the
    topic, m documents the run retrieves), weighted for w_bordafuse."""
    c = _candidates(entries)
    w = np.ones(len(entries.names)) if weight is None else weight
    points = (c[None, :] - entries.size + 1.0) / 2.0 * w[:, None]  # runs × topics
    topic = entries.topic[order[starts]]
    present = np.add.reduceat(points[entries.run[order], entries.topic[order]], starts)
    return points.sum(axis=0)[topic] - present
