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
from workbench.metrics.ranking.matching import RankingRows
from workbench.metrics.ranking.table import GainTable, RankingInputError, organization_table
from workbench.metrics.registry import Measure, declared_terms, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization

__all__ = ["RankingRows", "explain_table", "organization_rows", "explain_ranking"]


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


@dataclass(frozen=True)
class _Entries:
    """Who sits where in the explanation's frame, a part's rows in order: the retrieved entries (table row,
    column, position in the ranking the measure scores, judged, gain), then the judged relevant documents each
    row misses (``m_rows``, ``m_grades``), then the rows that carry a value outside the documents (``rest_rows``).
    ``full``: the table's shape when every ranking fills it (its matrices then read row by row)."""

    row: np.ndarray
    column: np.ndarray
    positions: np.ndarray
    judged: np.ndarray
    gains: np.ndarray
    full: tuple[int, int] | None
    m_rows: np.ndarray
    m_grades: np.ndarray
    rest_rows: np.ndarray

    @property
    def n_ret(self) -> int:
        return len(self.row)

    @property
    def n_miss(self) -> int:
        return len(self.m_rows)

    @property
    def size(self) -> int:
        """The frame's rows per part."""
        return len(self.row) + len(self.m_rows) + len(self.rest_rows)


def _entries(table: GainTable, rows: RankingRows, terms: Any, judged_only: bool) -> _Entries:
    """The entries of ``table`` as the frame lists them (:class:`_Entries`); ``judged_only``: the measure reads
    the ranking without its unjudged documents (their positions are -1).

    >>> table = GainTable.from_gains([[1, 0, 2]], [[2, 1, 0]])
    >>> rows = RankingRows(np.array(["a", "b", "c"], dtype=object), np.zeros(0, dtype=np.int64), np.array([]),
    ...                    np.zeros(0))
    >>> entries = _entries(table, rows, declared_terms(parse("AP").spec)(table), judged_only=False)
    >>> entries.positions.tolist(), entries.gains.tolist(), entries.full, entries.size
    ([0, 1, 2], [1.0, 0.0, 2.0], (1, 3), 3)
    """
    n_rows, width = table.gains.shape
    row: np.ndarray
    column: np.ndarray
    if (table.num_ret == width).all() and not judged_only:  # the entries are the matrices read row by row
        row = np.repeat(np.arange(n_rows, dtype=np.int32), width)
        column = np.tile(np.arange(width, dtype=np.int32), n_rows)
        positions, judged, gains, full = column, table.judged.ravel(), table.gains.ravel(), (n_rows, width)
    else:
        row, column = np.nonzero(table.retrieved())
        positions = _scored_positions(table, row, column, judged_only)
        judged, gains, full = table.judged[row, column], table.gains[row, column], None
    rest_rows = np.flatnonzero(terms.rest != 0) if terms.rest is not None else np.zeros(0, dtype=np.int64)
    return _Entries(row, column, positions, judged, gains, full, np.asarray(rows.missing_rows, dtype=np.int64),
                    np.asarray(rows.missing_grades, dtype=float), rest_rows)


def _ideal_positions(entries: _Entries, level: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each judged relevant document sits in its row's ideal ranking: by grade (at a relevance ``level``:
    relevant or not), then by rank, the missed ones last. Returns the retrieved entries that are judged relevant,
    and for them then the missed documents, their table rows and ideal positions.

    >>> entries = _Entries(np.zeros(3, dtype=np.int64), np.arange(3), np.arange(3), np.ones(3, dtype=bool),
    ...                    np.array([1.0, 0.0, 2.0]), None, np.zeros(0, dtype=np.int64), np.zeros(0),
    ...                    np.zeros(0, dtype=np.int64))
    >>> [a.tolist() for a in _ideal_positions(entries, None)]  # c (grade 2) is first ideally, a second
    [[0, 2], [0, 0], [1, 0]]
    """
    positive = np.flatnonzero(entries.judged & (entries.gains > 0))
    key_rows = np.concatenate((entries.row[positive], entries.m_rows))
    key_grades = np.concatenate((entries.gains[positive], entries.m_grades))
    if level is not None:
        key_grades = (key_grades >= level).astype(float)
    key_ranks = np.concatenate((entries.column[positive], np.full(entries.n_miss, np.iinfo(np.int64).max)))
    order = np.lexsort((key_ranks, -key_grades, key_rows))
    ideal_at = np.empty(len(order), dtype=np.int64)
    ideal_at[order] = np.arange(len(order)) - np.searchsorted(key_rows[order], key_rows[order], "left")
    return positive, key_rows, ideal_at


def _factors(entries: _Entries, factors: Mapping[str, Any], copies: int) -> tuple[dict[str, np.ndarray], dict]:
    """The frame's float columns as rows of one block (``grade``, each float factor, ``contribution`` and
    ``lost``, the last two left to :func:`_contributions`), ``copies`` parts long, and the boolean factors as
    pandas columns. A factor is NaN (or missing) where the measure does not define it.

    >>> entries = _Entries(np.zeros(3, dtype=np.int64), np.arange(3), np.arange(3), np.array([True, True, False]),
    ...                    np.array([1.0, 0.0, 0.0]), None, np.zeros(0, dtype=np.int64), np.zeros(0),
    ...                    np.zeros(0, dtype=np.int64))
    >>> view, flags = _factors(entries, {"precision": np.array([[1.0, 0.5, 1 / 3]])}, copies=1)
    >>> list(view), view["grade"].tolist(), view["precision"].round(2).tolist(), flags
    (['grade', 'precision', 'contribution', 'lost'], [1.0, 0.0, nan], [1.0, 0.5, 0.33], {})
    """
    import pandas as pd

    n_ret, size = entries.n_ret, entries.size
    float_factors = [f for f, m in factors.items() if np.asarray(m).dtype != bool]
    names = ["grade", *float_factors, "contribution", "lost"]
    view = dict(zip(names, np.empty((len(names), size * copies)), strict=True))
    np.copyto(view["grade"][:n_ret], entries.gains)
    view["grade"][:n_ret][~entries.judged] = np.nan
    view["grade"][n_ret:n_ret + entries.n_miss] = entries.m_grades
    view["grade"][n_ret + entries.n_miss:size] = np.nan
    flags: dict[str, object] = {}
    for factor, matrix_of in factors.items():
        values_of, inside = _take(matrix_of, entries.row, entries.positions, entries.full)
        if factor in view:
            view[factor][:n_ret] = values_of if entries.full and len(values_of) == len(inside) and inside.all() \
                else np.where(inside, values_of, np.nan)
            view[factor][n_ret:size] = np.nan
        else:
            filled, mask = np.zeros(size, dtype=bool), np.ones(size, dtype=bool)
            filled[:n_ret], mask[:n_ret] = values_of, ~inside
            flags[factor] = pd.arrays.BooleanArray(np.tile(filled, copies), np.tile(mask, copies))
    for name in ("grade", *float_factors):
        for i in range(1, copies):
            view[name][i * size:(i + 1) * size] = view[name][:size]
    return view, flags


def _contributions(view: dict[str, np.ndarray], entries: _Entries, terms: Any, ideal: Any, name: str,
                   lower_is_better: bool, level: float | None) -> list[str]:
    """Each part's ``contribution`` and ``lost`` written into ``view`` (:func:`_factors`), a part after another:
    what each row adds to the score, and what it lost against the ideal ranking (the contribution it would
    have there minus the one it has; a measure where lower is better counts it the other way). Returns the
    parts' names (the measure's ``name`` when it has none).

    >>> table = GainTable.from_gains([[1, 0, 2]], [[2, 1, 0]])
    >>> rows = RankingRows(np.array(["a", "b", "c"], dtype=object), np.zeros(0, dtype=np.int64), np.array([]),
    ...                    np.zeros(0))
    >>> terms_of = declared_terms(parse("AP").spec)
    >>> terms, entries = terms_of(table), _entries(table, rows, terms_of(table), judged_only=False)
    >>> view, _ = _factors(entries, terms.factors, copies=1)
    >>> _contributions(view, entries, terms, terms_of(_ideal(table)), "AP", False, None)
    ['AP']
    >>> view["contribution"].round(4).tolist(), view["lost"].round(4).tolist()  # c: 1 at rank 1, 2/3 at rank 3
    ([0.5, 0.0, 0.3333], [0.0, 0.0, 0.1667])
    """
    n_ret, n_miss, size = entries.n_ret, entries.n_miss, entries.size
    positive, key_rows, ideal_at = _ideal_positions(entries, level)
    parts = terms.parts or {name: terms.contribution}
    ideal_parts = ideal.parts or {name: ideal.contribution}
    for i, (part, matrix) in enumerate(parts.items()):
        mine, lost = view["contribution"][i * size:(i + 1) * size], view["lost"][i * size:(i + 1) * size]
        mine[:n_ret] = _take(matrix, entries.row, entries.positions, entries.full)[0]
        mine[n_ret:] = 0.0
        missing = terms.missing.get(part) if isinstance(terms.missing, Mapping) else \
            None if terms.parts else terms.missing
        if missing is not None:
            mine[n_ret:n_ret + n_miss] = missing(entries.m_rows, entries.m_grades)
        if len(entries.rest_rows):
            mine[n_ret + n_miss:] = terms.rest[entries.rest_rows]
        np.negative(mine, out=lost)  # lost = best − contribution: best is 0 but for the ideal's documents
        lost[positive] += _take(ideal_parts[part], key_rows[:len(positive)], ideal_at[:len(positive)])[0]
        lost[n_ret:n_ret + n_miss] += _take(ideal_parts[part], entries.m_rows, ideal_at[len(positive):])[0]
        if len(entries.rest_rows) and ideal.rest is not None:
            lost[n_ret + n_miss:] += np.nan_to_num(ideal.rest[entries.rest_rows])
        if lower_is_better:
            np.negative(lost, out=lost)
        lost += 0.0  # no -0.0
    return list(parts)


def _leading(table: GainTable, entries: _Entries, rows: RankingRows, copies: int, with_topics: bool) -> dict:
    """The columns that say who and where: ``topic`` (``with_topics``), ``rank`` (missing for a document the
    measure does not rank), ``document``, ``judged`` (missing for the rows without a document).

    >>> table = GainTable.from_gains([[1, 0, 2]], [[2, 1, 0]])
    >>> rows = RankingRows(np.array(["a", "b", "c"], dtype=object), np.zeros(0, dtype=np.int64), np.array([]),
    ...                    np.zeros(0))
    >>> entries = _entries(table, rows, declared_terms(parse("AP").spec)(table), judged_only=False)
    >>> import pandas as pd
    >>> print(pd.DataFrame(_leading(table, entries, rows, 1, False)).to_string(index=False))
     rank document  judged
        1        a    True
        2        b    True
        3        c    True
    """
    import pandas as pd

    def tiled(array) -> np.ndarray:
        return np.tile(array, copies) if copies > 1 else array

    n_ret, size = entries.n_ret, entries.size
    rank, rank_mask = np.zeros(size, dtype=np.int64), np.ones(size, dtype=bool)
    rank[:n_ret], rank_mask[:n_ret] = entries.positions + 1, entries.positions < 0
    judged, judged_mask = np.ones(size, dtype=bool), np.zeros(size, dtype=bool)
    judged[:n_ret], judged_mask[n_ret + entries.n_miss:] = entries.judged, True
    leading: dict[str, object] = {}
    if with_topics:
        codes = tiled(np.concatenate((entries.row, entries.m_rows, entries.rest_rows)))
        leading["topic"] = pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(table.topics)),
                                                     validate=False)
    return leading | {"rank": pd.arrays.IntegerArray(tiled(rank), tiled(rank_mask)),
                      "document": _documents(rows, len(entries.rest_rows), copies),
                      "judged": pd.arrays.BooleanArray(tiled(judged), tiled(judged_mask))}


def explain_table(table: GainTable, measure: str | Measure, rows: RankingRows,
                  with_topics: bool = False) -> MeasureExplanation:
    """The explanation of a ranking measure on every row of ``table`` (see the module docstring). One row: the
    score is the kernel's; several (``with_topics``: a ``topic`` column), the score is their summary as trec_eval
    summarizes them and ``scores`` holds each row's. The rows come as the retrieved documents (topic by topic, in
    rank order), then the missed relevant ones, then those without a document; a part at a time: the steps are
    :func:`_entries` (who, where), :func:`_factors`, :func:`_contributions` (contribution and lost) and
    :func:`_leading` (topic, rank, document, judged).

    >>> table = GainTable.from_gains([[1, 0, 2]], [[2, 1, 0]])
    >>> rows = RankingRows(np.array(["a", "b", "c"], dtype=object), np.zeros(0, dtype=np.int64), np.array([]),
    ...                    np.zeros(0))
    >>> e = explain_table(table, "AP", rows)
    >>> round(e.score, 4), e.contributions.contribution.round(4).tolist()
    (0.8333, [0.5, 0.0, 0.3333])
    """
    import pandas as pd

    measure = parse(measure)
    spec, params = measure.spec, measure.params
    judged_only = bool(params.pop("judged_only", False))
    if not isinstance(spec.compute, TableMeasure):
        raise RankingInputError(f"{measure} is not a measure of a ranking's gains: a gain table cannot explain it")
    values = spec.compute.score(table, judged_only=judged_only, **params)  # the kernel, as evaluate scores
    scored = table.judged_only() if judged_only else table
    terms_of = declared_terms(spec)  # the declaration's terms (workbench.metrics.ranking.measures)
    terms = terms_of(scored, **params)
    name = str(measure)
    entries = _entries(table, rows, terms, judged_only and scored is not table)
    copies = len(terms.parts) if terms.parts else 1
    view, others = _factors(entries, terms.factors, copies)
    parts = _contributions(view, entries, terms, terms_of(_ideal(table), **params), name,
                           spec.direction == "lower", params.get("rel"))
    others = _leading(table, entries, rows, copies, with_topics) | others
    columns = [*(["topic"] if with_topics else []), "rank", "document", "grade", "judged", *terms.factors]
    if terms.rest is not None:  # the measure carries a value outside the documents (rows only where it is not 0)
        what = np.full(entries.size, None, dtype=object)
        what[entries.n_ret + entries.n_miss:] = terms.rest_label
        others["what"] = pd.array(np.tile(what, copies), dtype=pd.StringDtype())
        columns.append("what")
    if terms.parts:
        others["part"] = np.repeat(np.array(parts, dtype=object), entries.size)
        columns.append("part")
    columns += ["contribution", "lost"]
    frame = pd.DataFrame({column: others[column] if column in others else view[column] for column in columns},
                         copy=False)
    return _explanation(table, spec, name, values, frame, terms, parts, view["contribution"], with_topics)


def _explanation(table: GainTable, spec: Any, name: str, values: np.ndarray, frame: Any, terms: Any,
                 parts: list[str], contribution: np.ndarray, with_topics: bool) -> MeasureExplanation:
    """The frame and the kernel's ``values`` as the explanation: the score (one row's, or the summary over
    topics), each part's value, the formula."""
    import pandas as pd

    topics = list(table.topics) if table.topics else [str(i) for i in range(len(values))]
    per_topic = pd.Series(values, index=pd.Index(topics, name="topic"), name=name)
    score = float(values[0]) if len(values) == 1 else float(
        summarize(np.asarray(values, dtype=float)[trec_order(topics)], spec.aggregate))
    scores = per_topic if with_topics else None
    if terms.parts:
        size = len(frame) // len(parts)
        how = f"through its parts: {', '.join(parts)}"
        part_values = {part: float(contribution[i * size:(i + 1) * size].sum()) if len(values) == 1
                       else float("nan") for i, part in enumerate(parts)}
        return MeasureExplanation(name, score, frame, part_values, terms.formula, how, terms.combine, scores)
    formula = terms.formula + (f" (over topics: the {spec.aggregate})" if spec.aggregate != "mean" else "")
    return MeasureExplanation(name, score, frame, {name: score}, formula, "per document", scores=scores)


def organization_rows(gold: Organization, output: Organization) -> tuple[GainTable, RankingRows]:
    """The one-row table the registry scores ``output`` on (:meth:`GainTable.from_organizations`) and its
    documents: the ranking's, and the gold's relevant ones it misses (by grade, then by id), from the one match
    (:func:`~workbench.metrics.ranking.table.organization_table`)."""
    table, rows = organization_table(gold, output, documents=True)
    assert rows is not None  # asked for
    return table, rows


def explain_ranking(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A ranking measure of ``output`` against ``gold`` explained per document (the module docstring)."""
    table, rows = organization_rows(gold, output)
    return explain_table(table, measure, rows)


