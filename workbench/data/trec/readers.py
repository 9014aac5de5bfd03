"""TREC qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``) read as trec_eval 10.0 reads them.

``read_trec_qrels`` gives graded gold per topic (:class:`~workbench.data.trec.ranked.Judgements`),
``read_trec_run`` each system's rankings in trec_eval's order (:class:`~workbench.data.trec.ranked.RankedRun`:
scores compared as doubles, ties by document id descending, ``-M``); an Organization per topic is built only
when asked for. The ``*_frame`` readers give the lines as a table. Every reader reads the file through
:func:`~workbench.data.trec.lines.read_lines` (gzip and ``-`` for standard input too), so values are read as
trec_eval reads them and said in a :class:`~workbench.data.trec.errors.TrecReadingWarning` where that differs from
the text; what trec_eval refuses raises :class:`~workbench.data.trec.errors.TrecFormatError` naming the file, the
line and its text::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0\\nq1 0 d3 1\\n")
    >>> read_trec_qrels(path)["q1"].format()
    '[2] d1\\n[1] d3'

A document given twice for one topic (of one system) is refused as trec_eval refuses it, when that topic is
read or scored (trec_eval checks only the topics it evaluates).
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from typing import TYPE_CHECKING

import numpy as np

from workbench.data.trec.errors import TrecReadingWarning
from workbench.data.trec.lines import Labels, TrecLines, lines_at_once, read_lines
from workbench.data.trec.ranked import (
    COSTS,
    MAX_DOCS,
    SCORE_PRECISION,
    TIES,
    Judgements,
    RankedRun,
    judgements,
    rank_runs,
    subtopic_judgements,
)
from workbench.errors import warn
from workbench.heap import release_freed
from workbench.reading.numbers import read_integers, reading_note
from workbench.validation import ENCODING, FilePath, Flag, LazyInstance, validate

__all__ = ["read_trec_qrels", "read_trec_qrels_frame", "qrels_grades", "read_trec_run", "read_trec_run_frame",
           "run_scores", "read_trec_qrels_and_run"]

if TYPE_CHECKING:
    import pandas as pd

FRAME = LazyInstance(("pandas:DataFrame",), "a DataFrame")


def _texts(values: np.ndarray, codec: str) -> np.ndarray:
    return np.array([value.decode(codec, errors="backslashreplace") for value in values.tolist()], dtype=object)


def _names(labels: Labels) -> np.ndarray:
    return np.asarray(labels.names, dtype=object)[labels.codes]


# ------------------------------------------------------------------------------------------ qrels
@validate(path=FilePath(), encoding=ENCODING, subtopics=Flag(optional=True))
def read_trec_qrels(path: str | PathLike, encoding: str = "utf-8", subtopics: bool | None = None) -> Judgements:
    """Graded gold per topic (:class:`~workbench.data.trec.ranked.Judgements`, a mapping topic → Organization):
    one level per positive grade, highest first (:meth:`Organization.from_graded`), built when a topic is first
    asked for; grades as trec_eval reads them (``atol``: whole numbers), judged non-relevant and negative ones
    kept in the arrays.

    ``subtopics=True`` reads the second column as a subtopic (the TREC Web track's diversity qrels,
    ``topic subtopic document grade``, as ndeval reads them): a
    :class:`~workbench.data.trec.ranked.SubtopicJudgements`, each document with its highest grade for the
    ranking measures and every subtopic's grades for the diversity measures. None (the default) sniffs it: a
    document judged under two values of the second column in one topic makes the file subtopic qrels (trec_eval
    refuses such a file), said in a :class:`~workbench.data.trec.errors.TrecReadingWarning`; False reads the
    column as trec_eval does (ignored)."""
    return _judged(read_lines(path, "qrels", encoding, _qrels_fields(subtopics)), subtopics)


def _qrels_fields(subtopics: bool | None) -> tuple[str, ...] | None:
    return ("iteration",) if subtopics is not False else None


def _judged(lines: TrecLines, subtopics: bool | None) -> Judgements:
    """:func:`read_trec_qrels` of the qrels' lines."""
    grades = lines.values.astype(float)
    if subtopics is None:
        subtopics = _subtopic_file(lines)
        if subtopics:
            warn(f"{lines.path}: documents are judged under several values of the second column in one "
                 "topic: read as subtopic qrels (topic subtopic document grade, as ndeval reads them; "
                 "subtopics=False reads the column as trec_eval does)", TrecReadingWarning)
    if subtopics:
        names = _texts(lines.other["iteration"], lines.codec)
        return subtopic_judgements(lines.topics, names, lines.documents, grades, locate=lines.located)
    return judgements(lines.topics, lines.documents, grades, locate=lines.located)


def _subtopic_file(lines: TrecLines) -> bool:
    """Whether some (topic, document) is judged under two values of the second column."""
    iteration = lines.other["iteration"]
    if not iteration.size or (iteration == iteration[0]).all():  # one value (the usual 0): no sort, and np.unique
        return False  # not called (its first call imports numpy.ma: eval's CPU 20 ms)
    distinct = np.unique(iteration)
    codes = lines.documents.codes()
    pair = lines.topics.codes.astype(np.int64) * (int(codes.max(initial=0)) + 1) + codes
    sub = np.searchsorted(distinct, iteration)
    both = np.unique(pair * distinct.size + sub)
    return np.unique(both // distinct.size).size < both.size


@validate(path=FilePath(), encoding=ENCODING)
def read_trec_qrels_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every judgement line as a row: ``topic, iteration, document, relevance`` (int64, as trec_eval reads it;
    negative and zero grades kept)."""
    import pandas as pd

    lines = read_lines(path, "qrels", encoding, ("iteration",))
    return pd.DataFrame({"topic": _names(lines.topics), "iteration": _texts(lines.other["iteration"], lines.codec),
                         "document": lines.documents.strings(), "relevance": lines.values})


@validate(frame=FRAME)
def qrels_grades(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """``{topic: {document: relevance}}`` from a qrels frame (judged non-relevant documents included)."""
    grades: dict[str, dict[str, float]] = {}
    for topic, doc, rel in frame[["topic", "document", "relevance"]].itertuples(index=False):
        grades.setdefault(topic, {})[doc] = rel
    return grades


# ------------------------------------------------------------------------------------------- runs
@validate(path=FilePath(), encoding=ENCODING, ties=TIES, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS,
          costs=COSTS)
def read_trec_run(path: str | PathLike, encoding: str = "utf-8", ties: str = "trec_eval",
                  score_precision: str = "float64", max_docs: int | None = None,
                  costs: Mapping[str, float] | None = None) -> dict[str, RankedRun]:
    """``{system (the tag): {topic: ranking}}`` as trec_eval ranks it (:func:`~workbench.data.trec.ranked.rank_runs`):
    score descending compared as doubles (``score_precision="float32"``: as 32-bit floats, trec_eval 9.x), then
    document id descending. The rank column is ignored, as trec_eval ignores it. ``max_docs`` keeps the first
    documents of each topic (``trec_eval -M``).

    Each run is a :class:`~workbench.data.trec.ranked.RankedRun`: its Organizations are built on first access.
    ``ties="trec_eval"``: one document per level; ``ties="levels"``: documents with equal scores share one level
    (a tie).

    ``costs`` (cwl_eval's cost file, :func:`~workbench.data.trec.costs.read_cwl_costs`) prices each document by
    the element type its line names in the second column, as cwl_eval reads it
    (:attr:`~workbench.data.trec.ranked.RankedRun.costs_array`; a type without a cost costs 1, cwl_eval's
    ``max_cost``); the cost-aware C/W/L measures read them (``TBG(H=22, max_rel=1, column=ETC)``).
    """
    return _ranked(read_lines(path, "run", encoding, _run_fields(costs)), ties, score_precision, max_docs, costs)


def _run_fields(costs: Mapping[str, float] | None) -> tuple[str, ...] | None:
    return ("iteration",) if costs is not None else None


def _ranked(lines: TrecLines, ties: str, score_precision: str, max_docs: int | None,
            costs: Mapping[str, float] | None) -> dict[str, RankedRun]:
    """:func:`read_trec_run` of the run's lines, which it lets go once they are ranked."""
    priced = None if costs is None else _priced(lines.other["iteration"], costs)
    runs = rank_runs(lines.systems, lines.topics, lines.documents, lines.values, ties=ties,
                     score_precision=score_precision, max_docs=max_docs, locate=lines.located, costs=priced)
    entries = len(lines.values)
    del lines, priced  # the lines as read are ranked: their pages go back before the join takes its own
    release_freed(entries)
    return runs


@validate(qrels=FilePath(), run=FilePath(), qrels_encoding=ENCODING, run_encoding=ENCODING,
          subtopics=Flag(optional=True), ties=TIES, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS, costs=COSTS)
def read_trec_qrels_and_run(qrels: str | PathLike, run: str | PathLike, *, qrels_encoding: str = "utf-8",
                            run_encoding: str = "utf-8", subtopics: bool | None = None, ties: str = "trec_eval",
                            score_precision: str = "float64", max_docs: int | None = None,
                            costs: Mapping[str, float] | None = None) -> tuple[Judgements, dict[str, RankedRun]]:
    """:func:`read_trec_qrels` of ``qrels`` and :func:`read_trec_run` of ``run`` (their parameters), both files
    read at once on two threads (:func:`~workbench.data.trec.lines.lines_at_once`), their notes said and their
    errors raised in that order, as reading one after the other would: the qrels' first."""
    judged, ranked = lines_at_once([(qrels, "qrels", {"encoding": qrels_encoding, "wanted": _qrels_fields(subtopics)}),
                                    (run, "run", {"encoding": run_encoding, "wanted": _run_fields(costs)})])
    gold = _judged(judged(), subtopics)
    return gold, _ranked(ranked(), ties, score_precision, max_docs, costs)


def _priced(kinds: np.ndarray, costs: Mapping[str, float]) -> np.ndarray:
    """Each line's cost, by the element type of its second column (bytes, read as UTF-8 as the cost file's types
    are); NaN for a type without a cost."""
    types, which = np.unique(kinds, return_inverse=True)
    prices = np.array([costs.get(kind.decode("utf-8", "surrogateescape"), np.nan) for kind in types.tolist()],
                      dtype=float)
    return prices[which.ravel()]


@validate(path=FilePath(), encoding=ENCODING)
def read_trec_run_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every run line as a row, in file order: ``topic, q0, document, rank, score, system`` (fields after the
    sixth are ignored; the rank read as C's ``atol`` reads it, as trec_eval would if it read ranks)."""
    import pandas as pd

    lines = read_lines(path, "run", encoding, ("iteration", "rank"))
    ranks, odd = read_integers(lines.other["rank"])
    note = reading_note(("rank is not a plain integer", "ranks are not plain integers"), "atol", lines.other["rank"],
                        ranks, odd, lines.numbers)
    if note:
        warn(f"{lines.path}: {note} (trec_eval ignores ranks)", TrecReadingWarning)
    assert lines.systems is not None  # a run's lines are read with their systems unless told not to
    return pd.DataFrame({"topic": _names(lines.topics), "q0": _texts(lines.other["iteration"], lines.codec),
                         "document": lines.documents.strings(), "rank": ranks, "score": lines.values,
                         "system": _names(lines.systems)})


@validate(frame=FRAME)
def run_scores(frame: pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    """``{system: {topic: {document: score}}}`` from a run frame (file order kept)."""
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for system, topic, doc, score in frame[["system", "topic", "document", "score"]].itertuples(index=False):
        scores.setdefault(system, {}).setdefault(topic, {})[doc] = score
    return scores

