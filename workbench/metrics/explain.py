"""Why a Reliability/Sensitivity score is what it is: each score split into its occurrences' contributions,
and each occurrence's share into its relations (Amigó et al., SIGIR 2013, §3; the reading in ``docs/rs-engine.md``).

R≺ S≺ R∼ S∼ are weighted averages over the occurrences of one side (the output for Reliability, the gold for
Sensitivity) of the share of their related mass whose relation holds on the other side, so a score is exactly Σ
weight·holds over its rows of :attr:`Explanation.contributions`. Table 9 of Amigó et al., SIGIR 2013, output 4::

    >>> from workbench.model import Organization
    >>> gold = Organization.parse("d1 {d2 d3 d4}\\n{d4 d5} {d6 d7}\\n{d6 d7}")
    >>> output = Organization.parse("d1 {d3 d4}\\n{d4 d5} {d6 d7}\\n{d6 d7 d8}")
    >>> e = explain_rs(gold, output, n=10, wn=0.8)
    >>> rows = e.contributions.query("measure == 'R∼'")
    >>> round(rows.contribution.sum(), 4) == round(e.scores.r_relatedness, 4) == 0.9649
    True
    >>> e.relations("d8", "R∼")[["partner", "relation", "holds"]].to_string(index=False)
    'partner relation  holds\\n     d6        ∼    0.0\\n     d7        ∼    0.0\\n     d8        ∼    0.0'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ParameterError
from workbench.lazy import deprecated_names
from workbench.metrics import relations
from workbench.metrics.reliability import RS_ARGUMENTS, RS_MEASURES, RSScores, scored_views
from workbench.model import Organization
from workbench.validation import Choices, Text, validate

__all__ = ["MEASURES", "ExplainError", "Explanation", "explain_rs"]

MEASURES = RS_MEASURES
_COLUMNS = ["measure", "side", "document", "level", "cluster", "weight", "holds", "contribution"]
_RELATION_COLUMNS = ["occurrence", "level", "cluster", "partner", "partner_level", "relation", "weight", "holds",
                     "mass"]


class ExplainError(ParameterError):
    """A question ``explain`` cannot answer: an unknown measure, or a document absent from the side the
    measure reads."""


@dataclass(frozen=True)
class _View:
    x: relations.Side
    other: relations.Side
    side: str  # "output" (Reliability) or "gold" (Sensitivity)


@dataclass(frozen=True, eq=False)
class Explanation:
    """The four scores of one output against one gold, decomposed.

    * :attr:`scores`: the :class:`~workbench.metrics.reliability.RSScores` (``reliability_sensitivity``).
    * :attr:`contributions`: one row per (measure, occurrence): ``measure`` (R≺ S≺ R∼ S∼), ``side``
      (``output`` for R, ``gold`` for S), ``document``, ``level`` (1-based; ``"rest"`` for a finite rest,
      ``"tail"`` for the row of an unlimited tail), ``cluster`` (numbered across levels as
      ``Organization.occurrences``; documents a side lacks and the missing policy adds come after),
      ``weight`` (the occurrence's share of the score's mass; a measure's weights sum to 1), ``holds`` (the
      weighted share of its relations that hold on the other side, in [0, 1]) and ``contribution``
      (weight·holds; a measure's contributions sum to its score).

    The special cases read off the same frame. A flat clustering of a closed set (no n, wn): the R∼ rows'
    ``holds`` are the per-item BCubed precisions and the S∼ rows' the recalls, e.g.
    ``e.contributions.query("measure == 'R∼'").set_index("document").holds``. Filtering (one level over the
    rest): on the R≺ rows ``holds`` is 0 exactly for the false positives (level 1) and the false negatives
    (``rest``), P(¬G|¬S) for a true positive and P(G|S) for a true negative; the S≺ rows read the gold's
    positives and negatives likewise, e.g. ``e.contributions.query("measure == 'R≺' and holds == 0")`` lists
    the output's errors.
    """

    scores: RSScores
    contributions: pd.DataFrame
    _names: np.ndarray = field(repr=False)
    _views: dict[str, _View] = field(repr=False)

    def lost(self) -> pd.DataFrame:
        """The contribution rows sorted by the score mass they lose, ``lost = weight·(1 − holds)``, largest
        first: where to look first."""
        frame = self.contributions.assign(lost=self.contributions.weight * (1 - self.contributions.holds))
        return frame.sort_values("lost", ascending=False, kind="stable").reset_index(drop=True)

    @validate(document=Text(), measure=Choices(MEASURES))
    def relations(self, document: str, measure: str) -> pd.DataFrame:
        """Every relation of ``document``'s occurrences on the side ``measure`` reads, by enumeration.

        Columns: ``occurrence`` (1-based, the document's occurrences by level), its ``level`` and ``cluster``,
        the ``partner`` document (``"tail"`` for the unlimited tail) and its ``partner_level``, ``relation``
        (≻: the occurrence above the partner, ≺: below, ∼: same cluster, itself included), ``weight`` (the
        partner's share of the occurrence's related mass), ``holds`` (P that the relation holds on the other
        side, docs/rs-engine.md, point 4) and ``mass`` (the score mass at stake: the occurrence's weight in the
        score times ``weight``), split into what the relation ``kept`` (mass·holds) and ``lost``
        (mass·(1 − holds)). Per occurrence Σ weight·holds is its ``holds`` in :attr:`contributions`.
        """
        view = self._views[measure]
        code = np.flatnonzero(self._names == document)
        mine = np.flatnonzero(view.x.doc == code[0]) if len(code) else np.zeros(0, dtype=np.int64)
        if len(mine) == 0:
            raise ExplainError(f"document {document!r} is not in the {view.side} that {measure} reads")
        mine = mine[np.lexsort((view.x.cluster[mine], view.x.level[mine]))]
        rows = (_priority_relations if measure.endswith("≺") else _relatedness_relations)(view, int(code[0]), mine)
        frame = pd.DataFrame(rows, columns=_RELATION_COLUMNS)
        frame["partner"] = [p if isinstance(p, str) else self._names[p] for p in frame.partner]
        return frame.assign(kept=frame["mass"] * frame["holds"], lost=frame["mass"] * (1 - frame["holds"]))


@validate(**RS_ARGUMENTS)
def explain_rs(gold: Organization, output: Organization, *, n: float | None = None, wn: float | None = None,
               missing: str = "tail") -> Explanation:
    """R≺ S≺ R∼ S∼ of ``output`` against ``gold`` with their per-occurrence decomposition (see
    :class:`Explanation`); arguments as :func:`~workbench.metrics.reliability.reliability_sensitivity`.
    Same engine and complexity as the scores. Users reach it through the door, ``wb.explain(gold, output)``."""
    names, (r_x, r_other), (s_x, s_other) = scored_views(gold, output, n=n, wn=wn, missing=missing)
    views = {"R≺": _View(r_x, r_other, "output"), "S≺": _View(s_x, s_other, "gold"),
             "R∼": _View(r_x, r_other, "output"), "S∼": _View(s_x, s_other, "gold")}
    shares = {measure: (relations.priority_shares if measure.endswith("≺") else relations.relatedness_shares)(
        view.x, view.other) for measure, view in views.items()}
    scores = RSScores(*(shares[m].score(views[m].x) for m in MEASURES))
    return Explanation(scores, _contributions(views, shares, names), names, views)


def _level_labels(levels: np.ndarray, bottom: int) -> np.ndarray:
    labels = (levels + 1).astype(object)
    labels[levels >= bottom] = "rest"  # only a finite side has occurrences below its levels
    return labels


def _contributions(views: dict[str, _View], shares: dict[str, relations.Shares], names: np.ndarray) -> pd.DataFrame:
    """The rows of every measure, in :data:`MEASURES` order: one per occurrence of the side it reads, then its
    tail's (an unlimited tail), built as columns and made one frame (a frame per measure costs more than the
    scores on a paper-size example)."""
    parts: dict[str, list] = {column: [] for column in [*_COLUMNS[:-1], "no cluster"]}
    for measure in MEASURES:
        view, share = views[measure], shares[measure]
        x = view.x
        total = x.total
        scale = 1.0 / total if total > 0 else 0.0
        tail = [x.tail * scale] if x.tail > 0 else []
        rows = len(x.doc) + len(tail)
        parts["measure"].append(np.full(rows, measure, dtype=object))
        parts["side"].append(np.full(rows, view.side, dtype=object))
        parts["document"].append(np.append(names[x.doc], [None] * len(tail)))
        parts["level"].append(np.append(_level_labels(x.level, x.bottom), ["tail"] * len(tail)))
        parts["cluster"].append(np.append(x.cluster, [0] * len(tail)))
        parts["no cluster"].append(np.arange(rows) >= len(x.doc))  # the tail's row
        parts["weight"].append(np.append(x.weight * scale, tail))
        parts["holds"].append(np.append(share.holds, [share.tail_holds] * len(tail)))
    columns = {column: np.concatenate(values) for column, values in parts.items()}
    columns["cluster"] = pd.arrays.IntegerArray(columns["cluster"].astype(np.int64), columns.pop("no cluster"))
    # The dtypes a frame per measure had (pandas infers text only from non-empty columns of strings): documents
    # are objects when a tail's None or a measure without occurrences joins them, levels when a measure has none.
    empty = any(len(views[measure].x.doc) == 0 for measure in MEASURES)
    tails = any(views[measure].x.tail > 0 for measure in MEASURES)
    for column in ["document"] * (empty or tails) + ["level"] * empty:
        columns[column] = pd.Series(columns[column], dtype=object)
    frame = pd.DataFrame(columns, columns=_COLUMNS[:-1])
    if not len(frame):
        text = pd.Series(["text"]).dtype  # what a measure's name broadcast to no rows was
        frame = frame.astype({"measure": text, "side": text})
    frame["contribution"] = frame.weight * frame.holds
    return frame


def _levels_by_doc(side: relations.Side, docs: np.ndarray, absent_at: int | None) -> dict[int, np.ndarray]:
    """{document: its sorted levels on ``side``}; ``absent_at`` places a document the side lacks (its rest or
    tail, docs/rs-engine.md, point 5)."""
    order = np.lexsort((side.level, side.doc))
    doc, level = side.doc[order], side.level[order]
    first, last = np.searchsorted(doc, docs, "left"), np.searchsorted(doc, docs, "right")
    out = {int(d): level[a:b] for d, a, b in zip(docs, first, last, strict=True)}
    if absent_at is not None:
        out = {d: levels if len(levels) else np.array([absent_at]) for d, levels in out.items()}
    return out


def _pairs_above(upper: np.ndarray, lower: np.ndarray) -> int:
    """#{(a, b) ∈ upper × lower : a < b} for sorted level arrays."""
    return int(np.searchsorted(upper, lower, "left").sum())


def _p(agree: int, related: int) -> float:
    return min(agree, related) / related if related else 0.0


def _priority_relations(view: _View, doc: int, mine: np.ndarray) -> list[tuple]:
    x, other = view.x, view.other
    x_levels = _levels_by_doc(x, np.unique(x.doc), None)
    other_levels = _levels_by_doc(other, np.unique(x.doc), other.bottom)
    level_mass = np.bincount(x.level, x.weight)
    total = x.total
    in_other_levels = int(np.sum((other.doc == doc) & (other.level < other.bottom)))
    rows = []
    for number, i in enumerate(mine, start=1):
        level = x.level[i]
        related = level_mass.sum() - level_mass[level] + x.tail
        if related <= 0:
            continue
        share = x.weight[i] / total
        partners = np.flatnonzero(x.level != level)
        for j in partners[np.lexsort((x.cluster[partners], x.level[partners]))]:
            e = int(x.doc[j])
            above = level < x.level[j]
            upper, lower = (doc, e) if above else (e, doc)
            holds = _p(_pairs_above(other_levels[upper], other_levels[lower]),
                       _pairs_above(x_levels[upper], x_levels[lower]))
            weight = x.weight[j] / related
            rows.append((number, _level_labels(np.array([level]), x.bottom)[0], int(x.cluster[i]), e,
                         _level_labels(np.array([x.level[j]]), x.bottom)[0], "≻" if above else "≺", weight, holds,
                         share * weight))
        if x.tail > 0:  # P(d ≻ tail): d's occurrences prioritised on the other side (point 5)
            weight = x.tail / related
            rows.append((number, _level_labels(np.array([level]), x.bottom)[0], int(x.cluster[i]), "tail", "tail",
                         "≻", weight, _p(in_other_levels, len(x_levels[doc])), share * weight))
    return rows


def _relatedness_relations(view: _View, doc: int, mine: np.ndarray) -> list[tuple]:
    x, other = view.x, view.other
    total = x.total
    rows = []
    for number, i in enumerate(mine, start=1):
        cluster = x.cluster[i]
        partners = np.flatnonzero(x.cluster == cluster)
        cluster_mass = x.weight[partners].sum()
        share = x.weight[i] / total
        for j in partners[np.argsort(x.doc[partners])]:
            e = int(x.doc[j])
            r_x = len(np.intersect1d(x.cluster[x.doc == doc], x.cluster[x.doc == e]))
            r_other = len(np.intersect1d(other.cluster[other.doc == doc], other.cluster[other.doc == e]))
            weight = x.weight[j] / cluster_mass
            level = _level_labels(np.array([x.level[i]]), x.bottom)[0]
            rows.append((number, level, int(cluster), e, level, "∼", weight, _p(r_other, r_x), share * weight))
    return rows


__getattr__ = deprecated_names(__name__, {"explain": ("workbench.metrics.explain:explain_rs", "workbench.explain")})
