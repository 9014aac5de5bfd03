"""Judgements and runs from Python structures: pytrec_eval's dicts (``{query: {doc: value}}``) and ir_datasets'
records (``query_id, doc_id, relevance`` / ``score``), through the same arrays and the same trec_eval ranking as
TREC files (:mod:`workbench.data.trec.ranked`), without pandas::

    >>> evaluate_run({"q": {"a": 1, "b": 0}}, {"q": {"a": 0.5, "b": 0.9}}, ["RR", "P@1"])
    {'RR': {'q': 0.5}, 'P@1': {'q': 0.0}}

Values are kept as given (a grade 2.5 stays 2.5: only files are read as trec_eval reads text); numbers may be
ints, floats, numpy numbers or numeric text, never booleans; ids are read as their text (``str()``). Bad input
raises :class:`~workbench.data.trec.errors.FrameError` naming the query and document.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from workbench.data.trec.errors import FrameError
from workbench.data.trec.join import gain_table
from workbench.data.trec.lines import Labels
from workbench.data.trec.ranked import DuplicateEntryError, Judgements, RankedRun, judgements, rank_runs
from workbench.errors import quoted
from workbench.metrics.ranking.table import GainTable

_QRELS_FIELDS = ("query_id", "doc_id", "relevance")
_RUN_FIELDS = ("query_id", "doc_id", "score")


def _number(value, what: str, where: str, finite: bool) -> float:
    if isinstance(value, bool | np.bool_):
        raise FrameError(f"{what}: {where} is a boolean, not a number (say which grade True is)")
    try:
        number = float(value)
    except OverflowError:
        raise FrameError(f"{what}: {where} is too large for a double: {quoted(value)}") from None
    except (TypeError, ValueError):
        raise FrameError(f"{what}: {where} is not a number: {quoted(value)}") from None
    if math.isnan(number) or (finite and math.isinf(number)):
        raise FrameError(f"{what}: {where} is {'NaN' if math.isnan(number) else 'infinite'}: {quoted(value)}")
    return number


_NUMBER_TYPES = {int, float, np.float64, np.float32, np.int64, np.int32}


class _Columns:
    """Entries gathered topic by topic: topic codes (in order of first appearance), documents, values."""

    def __init__(self, what: str, finite: bool) -> None:
        self.what, self.finite = what, finite
        self.codes: dict[str, int] = {}
        self.topics: list[int] = []
        self.documents: list = []
        self.values: list = []

    def add(self, topic, documents: list, values: list) -> None:
        if topic is None:
            raise FrameError(f"{self.what}: entry {len(self.topics)} has no query")
        code = self.codes.setdefault(str(topic), len(self.codes))
        self.topics.extend([code] * len(documents))
        self.documents.extend(documents)
        self.values.extend(values)

    def where(self, i: int) -> str:
        topic = next(name for name, code in self.codes.items() if code == self.topics[i])
        return f"query {topic!r}, document {str(self.documents[i])!r}"

    def arrays(self) -> tuple[Labels, list[str], np.ndarray]:
        """The topics, the documents as text and the values as float64 (checked: numbers, never booleans)."""
        if None in self.documents:
            raise FrameError(f"{self.what}: {self.where(self.documents.index(None))} has no document")
        documents = self.documents if set(map(type, self.documents)) <= {str} else list(map(str, self.documents))
        values = None
        if set(map(type, self.values)) <= _NUMBER_TYPES:
            try:
                values = np.array(self.values, dtype=float)
            except OverflowError:  # an int past a double
                values = None
            else:
                bad = np.isnan(values) | (np.isinf(values) if self.finite else False)
                if bad.any():
                    values = None
        if values is None:  # find and name the first value that is not a number
            values = np.array([_number(v, self.what, self.where(i), self.finite) for i, v in enumerate(self.values)])
        return Labels(np.array(self.topics, dtype=np.int64), tuple(self.codes)), documents, values

    def duplicate(self, error: DuplicateEntryError) -> FrameError:
        return FrameError(f"{self.what}: {self.where(error.again)} is given twice (entries {error.first} and "
                          f"{error.again}, the same once read as text); trec_eval stops on duplicate documents")


def _nested(nested, value: str, what: str) -> Iterable[tuple]:
    """``(query, documents, values)`` of ``{query: {doc: value}}``, checked to be dicts."""
    if not isinstance(nested, Mapping):
        raise FrameError(f"{what}: expected a dict {{query: {{doc: {value}}}}}, got {type(nested).__name__}")
    for query, docs in nested.items():
        if not isinstance(docs, Mapping):
            raise FrameError(f"{what}: the value of query {query!r} is a {type(docs).__name__}, expected a dict "
                             f"{{doc: {value}}}")
        yield query, list(docs), list(docs.values())


def _records(records: Iterable, fields: tuple[str, ...], what: str) -> Iterable[tuple]:
    """``(query, [doc], [value])`` of each record."""
    for number, record in enumerate(records):
        try:
            query, doc, value = (getattr(record, name) for name in fields)
        except AttributeError:
            raise FrameError(f"{what}: records need the fields {', '.join(fields)} (as ir_datasets' namedtuples); "
                             f"record {number} is {record!r}") from None
        yield query, [doc], [value]


def _judgements(entries: Iterable[tuple], what: str) -> Judgements:
    columns = _Columns(what, finite=True)
    for query, docs, grades in entries:
        columns.add(query, docs, grades)
    topics, documents, grades = columns.arrays()
    return judgements(topics, documents, grades, locate=columns.duplicate)


def _runs(runs: Mapping[str, Iterable[tuple]], what: str, **ranking) -> dict[str, RankedRun]:
    out: dict[str, RankedRun] = {}
    for system, entries in runs.items():
        columns = _Columns(f"{what} {system!r}", finite=False)
        for query, docs, scores in entries:
            columns.add(query, docs, scores)
        topics, documents, scores = columns.arrays()
        out[str(system)] = rank_runs(None, topics, documents, scores, locate=columns.duplicate, **ranking)[""]
    return out


def judgements_from_dicts(qrels: Mapping[str, Mapping[str, float]]) -> Judgements:
    """Judgements from pytrec_eval's ``{query: {doc: relevance}}``."""
    return _judgements(_nested(qrels, "relevance", "qrels"), "qrels")


def runs_from_dicts(runs: Mapping[str, Mapping[str, Mapping[str, float]]], *, ties: str = "trec_eval",
                    score_precision: str = "float64", max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: {query: {doc: score}}}`` (each run as pytrec_eval takes it)."""
    if not isinstance(runs, Mapping) or not runs:
        raise FrameError("runs: expected a non-empty dict {system: {query: {doc: score}}}")
    for name, run in runs.items():
        if isinstance(run, Mapping) and any(not isinstance(v, Mapping) for v in run.values()):
            raise FrameError(f"runs: the value of {name!r} is not a run {{query: {{doc: score}}}}; give the runs "
                             "as {system: run}, e.g. {'bm25': run}")
    return _runs({name: _nested(run, "score", f"run {name!r}") for name, run in runs.items()}, "run", ties=ties,
                 score_precision=score_precision, max_docs=max_docs)


def judgements_from_records(qrels: Iterable) -> Judgements:
    """Judgements from any iterable of records with ``query_id, doc_id, relevance`` (ir_datasets' TrecQrel)."""
    return _judgements(_records(qrels, _QRELS_FIELDS, "qrels"), "qrels")


def runs_from_records(runs: Mapping[str, Iterable], *, ties: str = "trec_eval", score_precision: str = "float64",
                      max_docs: int | None = None) -> dict[str, RankedRun]:
    """Runs from ``{system: records}``, each record with ``query_id, doc_id, score`` (ir_datasets' ScoredDoc)."""
    if not isinstance(runs, Mapping) or not runs:
        raise FrameError("runs: expected a non-empty dict {system: iterable of (query_id, doc_id, score)}")
    return _runs({name: _records(records, _RUN_FIELDS, f"run {name!r}") for name, records in runs.items()}, "run",
                 ties=ties, score_precision=score_precision, max_docs=max_docs)


def table_from_dicts(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]], *,
                     score_precision: str = "float64", max_docs: int | None = None) -> GainTable:
    """The gain table of one run given as pytrec_eval takes it (qrels ``{topic: {doc: grade}}``, run
    ``{topic: {doc: score}}``): a row per run topic that has judgements (as pytrec_eval scores them), ranked as
    trec_eval ranks them (``max_docs`` is trec_eval's ``-M``)."""
    gold = judgements_from_dicts(qrels)
    ranked = runs_from_dicts({"run": run}, score_precision=score_precision, max_docs=max_docs)["run"]
    return gain_table(gold, ranked, [topic for topic in ranked if topic in gold])


def evaluate_run(qrels: Mapping[str, Mapping[str, float]], run: Mapping[str, Mapping[str, float]],
                 measures: Iterable[str], score_precision: str = "float64",
                 max_docs: int | None = None) -> dict[str, dict[str, float]]:
    """Score one run given as pytrec_eval takes it in one vectorised pass (:func:`table_from_dicts`):
    ``{measure: {topic: value}}`` for ranking measures."""
    from workbench.metrics.ranking import evaluate_table

    return evaluate_table(table_from_dicts(qrels, run, score_precision=score_precision, max_docs=max_docs), measures)
