"""Why a document scores as it does, as data: which of its relations hold and which fail on the other side,
for each of R≺ S≺ R∼ S∼, with their weights and the score mass they keep or lose, and where an output loses
mass document by document. Everything is read off a ``workbench.explain`` :class:`Explanation`; nothing here
computes a score (Amigó et al., SIGIR 2013, §3). The panel drawing it is ``why_panel.WhyPanel``.

    >>> import workbench
    >>> gold, output = workbench.Organization.parse("{d1 d2}"), workbench.Organization.parse("{d1 d2 d3}")
    >>> frame = why_frame(workbench.explain(gold, output, n=10, wn=0.8), "d1")
    >>> frame[frame["measure"] == "R∼"][["partner", "holds"]].values.tolist()
    [['d1', 1.0], ['d2', 1.0], ['d3', 0.0]]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench import ExplainError
from workbench.metrics.reliability import RS_FIELDS, RS_MEASURES
from workbench.model import natural_key

__all__ = ["FIELDS", "EXPLAINED", "COLUMNS", "LOST_COLUMNS", "TAIL_ROW", "ROWS_SHOWN", "LOST_DOCUMENTS_SHOWN",
           "why_frame", "lost_by_document", "lost_rows"]

# Measure → RSScores field, in the order the scores table shows them (R, S and their F per relation).
FIELDS = {name: RS_FIELDS[name] for name in ("R≺", "S≺", "F≺", "R∼", "S∼", "F∼")}
EXPLAINED = RS_MEASURES  # the measures workbench.explain decomposes
COLUMNS = ["measure", "occurrence", "level", "cluster", "partner", "partner_level", "relation", "weight", "holds",
           "mass", "kept", "lost"]
LOST_COLUMNS = ["document", "measure", "lost", "order", "chosen"]
TAIL_ROW = "(tail)"  # the contribution chart's name for the unlimited tail's row
ROWS_SHOWN = 30  # per measure; the DataFrame (``Workbench.why``) keeps them all
LOST_DOCUMENTS_SHOWN = 25


def why_frame(explanation, document: str) -> pd.DataFrame:
    """One row per relation of ``document`` and measure: ``explanation.relations(document, measure)`` with
    the ``measure`` in front (the score mass at stake, ``mass``, and what the relation ``kept`` and ``lost``
    come from the kernel). A measure whose side lacks the document has no rows (e.g.
    S≺ and S∼ read the gold, which may not hold an output's document)."""
    parts = []
    for measure in EXPLAINED if explanation is not None else ():
        try:
            relations = explanation.relations(document, measure)
        except ExplainError:
            continue
        parts.append(relations.assign(measure=measure))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def lost_by_document(explanation) -> dict[str, dict[str, float]]:
    """document → measure → the score mass it loses (``explanation.lost()`` summed over its occurrences; the
    unlimited tail's row as ``(tail)``), documents that lose most first."""
    rows = explanation.contributions
    lost = rows["weight"].to_numpy() * (1 - rows["holds"].to_numpy())  # as Explanation.lost, row by row
    # Grouped by codes (a groupby on the frame costs more than the scores of a paper's example), in the
    # groupby's order: documents and measures sorted.
    codes, documents = pd.factorize(rows["document"].fillna(TAIL_ROW).to_numpy(dtype=object))
    names = documents.tolist()
    order = np.array(sorted(range(len(names)), key=names.__getitem__), dtype=np.int64)  # as str sorts (NUL too)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    measures = sorted(EXPLAINED)
    key = rank[codes] * len(measures) + np.searchsorted(measures, rows["measure"].to_numpy(dtype=object))
    sums = np.bincount(key, lost, len(order) * len(measures)).reshape(-1, len(measures)).tolist()
    present = (np.bincount(key, minlength=len(order) * len(measures)) > 0).reshape(-1, len(measures)).tolist()
    per_document = {document: {m: mass for m, mass, here in zip(measures, masses, held, strict=True) if here}
                    for document, masses, held in zip(documents[order].tolist(), sums, present, strict=True)}
    return dict(sorted(per_document.items(), key=lambda item: -sum(item[1].values())))


def lost_rows(per_document: dict[str, dict[str, float]], chosen: str | None) -> list[dict]:
    """The contribution chart's rows (columns ``LOST_COLUMNS``) from :func:`lost_by_document`: the documents
    that lose any mass (at most ``LOST_DOCUMENTS_SHOWN``, those losing most) and the chosen one."""
    shown = [d for d, masses in per_document.items() if sum(masses.values()) > 0][:LOST_DOCUMENTS_SHOWN]
    if chosen is not None and chosen not in shown:
        shown.append(chosen)
    shown.sort(key=lambda d: (d == TAIL_ROW, natural_key(d)))
    return [{"document": d, "measure": m, "lost": per_document.get(d, {}).get(m, 0.0), "order": i,
             "chosen": d == chosen} for i, d in enumerate(shown) for m in EXPLAINED]
