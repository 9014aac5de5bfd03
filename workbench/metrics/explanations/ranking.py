"""Ranking measures explained per document: each rank's term of the sum the kernel computes.

Every ranking measure of the registry is computed by a kernel over a
:class:`~workbench.metrics.ranking.table.GainTable`; here each kernel's per-rank terms (read from the functions
the kernels themselves sum: :func:`~workbench.metrics.ranking.kernels.precision_terms`,
:func:`~workbench.metrics.ranking.kernels.dcg_terms`, :func:`~workbench.metrics.ranking.kernels.err_terms`, ...)
become one row per retrieved document, plus one row per judged relevant document the ranking misses (rank
``<NA>``), and a row without a document for what no document carries (trec_eval's ``utility`` over the documents
never seen, the RBP residual beyond the ranking). A measure scored with ``judged_only`` reads the ranking without
its unjudged documents: their rows have rank ``<NA>`` and contribute 0.

The columns: ``rank``, ``document``, ``grade`` (NaN when unjudged), ``judged``, the factors of the term (AP:
``precision``, ``1/R``; nDCG: ``gain``, ``discount``, ``ideal_dcg``, and with ``ties=average`` the
``tie_averaged_gain`` the sum reads; ERR: ``reach``, ``stop``; RBP: ``weight`` =
(1−p)·p^(r−1), ``gain``; Q/O/P/P+: ``blended_ratio``; Hits: ``relevant``; Bpref: ``nonrelevant_above``...),
``contribution`` and ``lost``. A measure at a cutoff k (P@k, nDCG@k, RBP@k, Q-measure@k, O/P/P+@k, Hits@k...)
keeps a row for every retrieved document: the ranks past k contribute 0. What a row lost is measured against
the ideal ranking of the judged documents (by grade, ties in the ranking's order): the contribution the document
would have there, minus the one it has. Tables of many rows (a whole run) are explained at once, with a ``topic``
column.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 1, "d2": 1, "d3": 1})
    >>> e = explain_ranking(gold, Organization.from_ranking(["d1", "x", "d2"]), "AP")
    >>> print(e.contributions[["rank", "document", "precision", "contribution"]].round(4).to_string(index=False))
     rank document  precision  contribution
        1       d1     1.0000        0.3333
        2        x     0.5000        0.0000
        3       d2     0.6667        0.2222
     <NA>       d3        NaN        0.0000
    >>> round(e.score, 6), round(float(e.contributions.contribution.sum()), 6)
    (0.555556, 0.555556)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.ranking.declare import TableMeasure
from workbench.metrics.ranking.table import GainTable, RankingInputError, judgements_of, ranked_documents
from workbench.metrics.registry import Measure, declared_terms, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization, natural_key

__all__ = ["RankingRows", "explain_table", "organization_rows", "explain_ranking"]


@dataclass(frozen=True)
class RankingRows:
    """Who sits where in a :class:`GainTable`: the retrieved documents, row by row in rank order (as
    ``np.nonzero(table.retrieved())`` lists them), and the judged relevant documents each row misses
    (``missing_rows``, ``missing_documents``, ``missing_grades``). Documents may be an object array of ``str``
    or anything pandas takes as a column (an Arrow string array)."""

    retrieved: Any
    missing_rows: np.ndarray
    missing_documents: Any
    missing_grades: np.ndarray


def _ideal(table: GainTable) -> GainTable:
    """The ideal ranking of each row: its judged relevant documents by grade, every one judged."""
    shown = (table.ideal > 0).sum(axis=1)
    retrieved = np.arange(table.ideal.shape[1])[None, :] < shown[:, None]
    return GainTable(table.ideal, table.ideal, table.topics, num_ret=shown, judged=retrieved, pooled=retrieved,
                     n_judged=table.n_judged)


def _scored_positions(table: GainTable, rows: np.ndarray, columns: np.ndarray, judged_only: bool) -> np.ndarray:
    """Each retrieved entry's position in the ranking the measure scores (-1: left out as unjudged)."""
    if not judged_only:
        return columns
    judged = table.judged[rows, columns]
    counts = np.cumsum(judged)  # judged entries up to each one, over the rows in turn
    before = np.concatenate(([0], counts))[np.searchsorted(rows, rows, "left")]  # those of the rows above
    return np.where(judged, counts - 1 - before, -1)


def _take(factor: np.ndarray, rows: np.ndarray, positions: np.ndarray,
          full: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A factor's value at each entry (a 1-D factor: the row's value at every scored position; a matrix: the
    value at the entry's position) and where it is defined. ``full``: the (rows, width) of a table whose every
    row is retrieved to the end, the entries then being the matrix read row by row (no gather)."""
    factor = np.asarray(factor)
    if full is not None:
        n_rows, width = full
        if factor.ndim == 1:
            return np.repeat(factor, width), np.ones(n_rows * width, dtype=bool)
        if factor.shape == full:
            return factor.ravel(), np.ones(n_rows * width, dtype=bool)
        if factor.shape[0] == n_rows and factor.shape[1] <= width:  # the first ranks only (a cutoff): padded
            padded, inside = np.zeros(full, dtype=factor.dtype), np.zeros(full, dtype=bool)
            padded[:, :factor.shape[1]], inside[:, :factor.shape[1]] = factor, True
            return padded.ravel(), inside.ravel()
    inside = positions >= 0
    if factor.ndim == 2:
        inside &= positions < factor.shape[1]
    values = np.zeros(len(rows), dtype=factor.dtype)
    where = np.flatnonzero(inside)
    values[where] = factor[rows[where]] if factor.ndim == 1 else factor[rows[where], positions[where]]
    return values, inside


def _documents(rows: RankingRows, rest: int, copies: int):
    """The document column: the retrieved, the missed and ``rest`` rows without one, ``copies`` times (one per
    part); Arrow strings when the retrieved documents come as Arrow, else Python strings."""
    import pandas as pd
    import pyarrow as pa

    retrieved, missing = rows.retrieved, rows.missing_documents
    if isinstance(retrieved, pd.arrays.ArrowExtensionArray):
        missing = missing.__arrow_array__() if isinstance(missing, pd.arrays.ArrowExtensionArray) else \
            pa.array(list(missing), type=pa.string())
        chunks = [retrieved.__arrow_array__(), missing, pa.nulls(rest, type=pa.string())]
        pieces = [chunk for _ in range(copies) for piece in chunks
                  for chunk in (piece.chunks if isinstance(piece, pa.ChunkedArray) else [piece])]
        return pd.arrays.ArrowExtensionArray(pa.chunked_array(pieces, type=pa.string()))
    column = np.empty((len(retrieved) + len(rows.missing_documents) + rest) * copies, dtype=object)
    one = np.concatenate([np.asarray(retrieved, dtype=object), np.asarray(rows.missing_documents, dtype=object),
                          np.full(rest, None, dtype=object)])
    column[:] = np.tile(one, copies)
    return column


def explain_table(table: GainTable, measure: str | Measure, rows: RankingRows,
                  with_topics: bool = False) -> MeasureExplanation:
    """The explanation of a ranking measure on every row of ``table`` (see the module docstring). One row: the
    score is the kernel's; several (``with_topics``: a ``topic`` column), the score is their summary as trec_eval
    summarizes them and ``scores`` holds each row's. The rows come as the retrieved documents (topic by topic, in
    rank order), then the missed relevant ones, then those without a document; a part at a time."""
    import pandas as pd

    measure = parse(measure)
    spec, params = measure.spec, measure.params
    judged_only = bool(params.pop("judged_only", False))
    kernel = spec.compute
    if not isinstance(kernel, TableMeasure):
        raise RankingInputError(f"{measure} is not a measure of a ranking's gains: a gain table cannot explain it")
    values = kernel.score(table, judged_only=judged_only, **params)  # the kernel, as evaluate scores
    scored = table.judged_only() if judged_only else table
    terms_of = declared_terms(spec)  # the declaration's terms (workbench.metrics.ranking.measures)
    terms = terms_of(scored, **params)
    ideal = terms_of(_ideal(table), **params)
    n_rows, width = table.gains.shape
    full = (n_rows, width) if (table.num_ret == width).all() and not (judged_only and scored is not table) else None
    row: np.ndarray
    column: np.ndarray
    if full:  # every ranking as long as the table: the entries are the matrices read row by row
        row, column = np.repeat(np.arange(n_rows, dtype=np.int32), width), np.tile(np.arange(width, dtype=np.int32),
                                                                                   n_rows)
        positions, judged, gains = column, table.judged.ravel(), table.gains.ravel()
    else:
        row, column = np.nonzero(table.retrieved())
        positions = _scored_positions(table, row, column, judged_only and scored is not table)
        judged, gains = table.judged[row, column], table.gains[row, column]
    m_rows = np.asarray(rows.missing_rows, dtype=np.int64)
    m_grades = np.asarray(rows.missing_grades, dtype=float)
    rest_rows = np.flatnonzero(terms.rest != 0) if terms.rest is not None else np.zeros(0, dtype=np.int64)
    n_ret, n_miss, n_rest = len(row), len(m_rows), len(rest_rows)
    size = n_ret + n_miss + n_rest

    # the ideal position of every judged relevant document: by grade (a binary measure: relevant or not), then
    # by rank (the missed ones last)
    positive = np.flatnonzero(judged & (gains > 0))
    key_rows = np.concatenate((row[positive], m_rows))
    key_grades = np.concatenate((gains[positive], m_grades))
    level = params.get("rel")
    if level is not None:
        key_grades = (key_grades >= level).astype(float)
    key_ranks = np.concatenate((column[positive], np.full(n_miss, np.iinfo(np.int64).max)))
    order = np.lexsort((key_ranks, -key_grades, key_rows))
    ideal_at = np.empty(len(order), dtype=np.int64)
    ideal_at[order] = np.arange(len(order)) - np.searchsorted(key_rows[order], key_rows[order], "left")
    sign = -1.0 if spec.direction == "lower" else 1.0
    name = str(measure)
    parts = terms.parts or {name: terms.contribution}
    ideal_parts = ideal.parts or {name: ideal.contribution}
    copies = len(parts)

    # the float columns are rows of one block, which the frame takes as they are (no copy)
    float_factors = [f for f, m in terms.factors.items() if np.asarray(m).dtype != bool]
    float_names = ["grade", *float_factors, "contribution", "lost"]
    block = np.empty((len(float_names), size * copies))
    view = dict(zip(float_names, block, strict=True))
    first = slice(0, size)
    np.copyto(view["grade"][:n_ret], gains)
    view["grade"][:n_ret][~judged] = np.nan
    view["grade"][n_ret:n_ret + n_miss] = m_grades
    view["grade"][n_ret + n_miss:size] = np.nan
    others: dict[str, object] = {}
    for factor, matrix_of in terms.factors.items():
        values_of, inside = _take(matrix_of, row, positions, full)
        if factor in view:
            view[factor][:n_ret] = values_of if full and len(values_of) == len(inside) and inside.all() else \
                np.where(inside, values_of, np.nan)
            view[factor][n_ret:size] = np.nan
        else:
            filled, mask = np.zeros(size, dtype=bool), np.ones(size, dtype=bool)
            filled[:n_ret], mask[:n_ret] = values_of, ~inside
            others[factor] = pd.arrays.BooleanArray(np.tile(filled, copies), np.tile(mask, copies))
    for name_of in ("grade", *float_factors):
        for i in range(1, copies):
            view[name_of][i * size:(i + 1) * size] = view[name_of][first]
    for i, (part, matrix) in enumerate(parts.items()):
        mine, lost = view["contribution"][i * size:(i + 1) * size], view["lost"][i * size:(i + 1) * size]
        mine[:n_ret] = _take(matrix, row, positions, full)[0]
        mine[n_ret:] = 0.0
        missing = terms.missing.get(part) if isinstance(terms.missing, Mapping) else \
            None if terms.parts else terms.missing
        if missing is not None:
            mine[n_ret:n_ret + n_miss] = missing(m_rows, m_grades)
        if n_rest:
            mine[n_ret + n_miss:] = terms.rest[rest_rows]
        np.negative(mine, out=lost)  # lost = best − contribution: best is 0 but for the ideal's documents
        lost[positive] += _take(ideal_parts[part], key_rows[:len(positive)], ideal_at[:len(positive)])[0]
        lost[n_ret:n_ret + n_miss] += _take(ideal_parts[part], m_rows, ideal_at[len(positive):])[0]
        if n_rest and ideal.rest is not None:
            lost[n_ret + n_miss:] += np.nan_to_num(ideal.rest[rest_rows])
        if sign < 0:
            np.negative(lost, out=lost)
        lost += 0.0  # no -0.0

    def tiled(array) -> np.ndarray:
        return np.tile(array, copies) if copies > 1 else array

    rank = np.zeros(size, dtype=np.int64)
    rank[:n_ret] = positions + 1
    rank_mask = np.ones(size, dtype=bool)
    rank_mask[:n_ret] = positions < 0
    judged_column = np.ones(size, dtype=bool)
    judged_column[:n_ret] = judged
    judged_mask = np.zeros(size, dtype=bool)
    judged_mask[n_ret + n_miss:] = True
    leading: dict[str, object] = {}
    if with_topics:
        codes = tiled(np.concatenate((row, m_rows, rest_rows)))
        leading["topic"] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(table.topics)),
                                                     validate=False)
    leading |= {"rank": pd.arrays.IntegerArray(tiled(rank), tiled(rank_mask)),
                "document": _documents(rows, n_rest, copies),
                "judged": pd.arrays.BooleanArray(tiled(judged_column), tiled(judged_mask))}
    columns = [*(["topic"] if with_topics else []), "rank", "document", "grade", "judged", *terms.factors]
    others = leading | others
    if terms.rest is not None:  # the measure carries a value outside the documents (rows only where it is not 0)
        what = np.full(size, None, dtype=object)
        what[n_ret + n_miss:] = terms.rest_label
        others["what"] = pd.array(tiled(what), dtype=pd.StringDtype())
        columns.append("what")
    if terms.parts:
        others["part"] = np.repeat(np.array(list(parts), dtype=object), size)
        columns.append("part")
    columns += ["contribution", "lost"]
    frame = pd.DataFrame({name_of: others[name_of] if name_of in others else view[name_of] for name_of in columns},
                         copy=False)
    contribution = view["contribution"]
    topics = list(table.topics) if table.topics else [str(i) for i in range(len(values))]
    per_topic = pd.Series(values, index=pd.Index(topics, name="topic"), name=name)
    score = float(values[0]) if len(values) == 1 else float(
        summarize(np.asarray(values, dtype=float)[trec_order(topics)], spec.aggregate))
    scores = per_topic if with_topics else None
    if terms.parts:
        how = f"through its parts: {', '.join(parts)}"
        part_values = {part: float(contribution[i * size:(i + 1) * size].sum()) if len(values) == 1
                       else float("nan") for i, part in enumerate(parts)}
        return MeasureExplanation(name, score, frame, part_values, terms.formula, how, terms.combine, scores)
    formula = terms.formula + (f" (over topics: the {spec.aggregate})" if spec.aggregate != "mean" else "")
    return MeasureExplanation(name, score, frame, {name: score}, formula, "per document", scores=scores)


def organization_rows(gold: Organization, output: Organization) -> tuple[GainTable, RankingRows]:
    """The one-row table the registry scores ``output`` on (:meth:`GainTable.from_organizations`) and its
    documents: the ranking's, and the gold's relevant ones it misses (by grade, then by id)."""
    ranked = ranked_documents(output)
    judged = judgements_of(gold)
    seen = set(ranked)
    missing = sorted(((doc, grade) for doc, grade in judged.items() if grade > 0 and doc not in seen),
                     key=lambda item: (-item[1], natural_key(item[0])))
    table = GainTable.from_organizations(gold, output)
    documents = np.empty(len(ranked), dtype=object)
    documents[:] = ranked
    missing_documents = np.empty(len(missing), dtype=object)
    missing_documents[:] = [doc for doc, _ in missing]
    return table, RankingRows(documents, np.zeros(len(missing), dtype=np.int64), missing_documents,
                              np.array([grade for _, grade in missing], dtype=float))


def explain_ranking(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A ranking measure of ``output`` against ``gold`` explained per document (the module docstring)."""
    table, rows = organization_rows(gold, output)
    return explain_table(table, measure, rows)


