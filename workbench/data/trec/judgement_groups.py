"""Qrels with judgement groups as trec_eval reads them (``-R qrels_jg``: ``get_qrels_jg.c``), joined to a run
as ``form_res_rels_jg.c`` joins them.

A line is ``topic group document grade``: the second field names the judgement group (JG, one user's
judgements) where a qrels file has its unused iteration field. Grades are read by C's ``atol``, as qrels grades.
A document judged twice within one JG of a topic is refused, for every topic, as trec_eval refuses it when it
reads the file ("duplicate docs"). :func:`group_table` joins the run's ranking of each topic to each of its
JGs, one gain-table row per (topic, JG)::

    >>> import pathlib, tempfile
    >>> from workbench.data.trec.lines import read_lines
    >>> from workbench.data.trec.ranked import rank_runs
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_bytes(b"q u1 a 1\\nq u1 b 0\\nq u2 b 1\\n")
    >>> _ = (folder / "run").write_bytes(b"q Q0 a 1 0.9 r\\nq Q0 b 2 0.8 r\\n")
    >>> lines = read_lines(folder / "run", "run")
    >>> run = rank_runs(None, lines.topics, lines.documents, lines.values)[""]
    >>> groups = group_table(read_judgement_groups(folder / "qrels"), run, ["q"])
    >>> groups.table.gains.tolist(), groups.groups.tolist()
    ([[1.0, 0.0], [0.0, 1.0]], [0, 0])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike

import numpy as np

from workbench.data.trec.columns import read_columns, topic_names
from workbench.data.trec.errors import TrecDuplicateError
from workbench.data.trec.join import gain_table, spans
from workbench.data.trec.lines import Labels
from workbench.data.trec.ranked import RankedRun, judgements
from workbench.ids import DocumentIds
from workbench.metrics.ranking.table import GainTable
from workbench.validation import FilePath, Flag, Instance, ListOf, Text, validate

__all__ = ["GroupedJudgements", "GroupTable", "read_judgement_groups", "group_table"]


@dataclass(frozen=True)
class GroupedJudgements:
    """A ``qrels_jg`` file's lines as columns in file order: ``topics``, ``groups`` and ``documents`` (bytes),
    ``grades`` (int64, by ``atol``) and each line's number."""

    path: str
    topics: np.ndarray
    groups: np.ndarray
    documents: np.ndarray
    grades: np.ndarray
    numbers: np.ndarray

    def topic_names(self) -> list[str]:
        """The topics in trec_eval's order (``strcmp``), decoded one character per byte."""
        return topic_names(self.topics)


@dataclass(frozen=True)
class GroupTable:
    """One gain-table row per (topic, JG) of ``topics``, the JGs of a topic in trec_eval's order (``strcmp`` of
    their names), and each row's topic (its index in ``topics``): what the ``*_avgjg`` kernels of
    :mod:`workbench.metrics.ranking.judgement_groups` read."""

    table: GainTable
    groups: np.ndarray
    topics: tuple[str, ...]


@validate(path=FilePath())
def read_judgement_groups(path: str | PathLike) -> GroupedJudgements:
    """The lines of a ``qrels_jg`` file; a malformed line or a document judged twice in one JG raises
    :class:`~workbench.data.trec.errors.TrecFormatError` with the file and line."""
    columns = read_columns(path, ("topic", "group", "document", "grade"), "qrels_jg")
    topics, groups, documents = columns.column("topic"), columns.column("group"), columns.column("document")
    grades = columns.integers("grade", ("relevance grade is not a plain integer",
                                        "relevance grades are not plain integers"))
    order = np.lexsort((documents, groups, topics))
    same = np.flatnonzero((topics[order][1:] == topics[order][:-1]) & (groups[order][1:] == groups[order][:-1])
                          & (documents[order][1:] == documents[order][:-1]))
    if same.size:
        pairs = np.sort(np.stack((order[same], order[same + 1]), axis=1), axis=1)
        first, again = pairs[np.argmin(pairs[:, 1])].tolist()
        raise columns.error(again, f"document {documents[again].decode('latin-1')!r} of topic "
                                   f"{topics[again].decode('latin-1')!r} is already judged in group "
                                   f"{groups[again].decode('latin-1')!r} on line {columns.numbers[first]} "
                                   "(trec_eval: duplicate docs)", TrecDuplicateError)
    return GroupedJudgements(columns.path, topics, groups, documents, grades, columns.numbers)


@validate(judged=Instance((GroupedJudgements,), "judgement groups (read_judgement_groups)"),
          run=Instance((RankedRun,), "a RankedRun"), topics=ListOf(Text(empty=True)), placeholders=Flag())
def group_table(judged: GroupedJudgements, run: RankedRun, topics: Sequence[str], *,
                placeholders: bool = False) -> GroupTable:
    """The run's ranking of each of ``topics`` joined to each of the topic's JGs
    (:func:`~workbench.data.trec.join.gain_table`: grades, pooled and unjudged documents, ``-M`` as the run was
    ranked); a topic the run lacks is an error, or with ``placeholders`` (``-c``) trec_eval's one-document
    placeholder ranking."""
    names = np.array([topic.encode("latin-1") for topic in topics], dtype=bytes)
    by_name = np.argsort(names, kind="stable")
    at = np.searchsorted(names[by_name], judged.topics)
    chosen = at < names.size
    chosen[chosen] = names[by_name][at[chosen]] == judged.topics[chosen]
    topic = by_name[at[chosen]]
    group_names, group = np.unique(judged.groups[chosen], return_inverse=True)
    rows, row = np.unique(topic * group_names.size + group.ravel(), return_inverse=True)
    row_topic, row_group = rows // group_names.size, rows % group_names.size
    labels = tuple(f"{topics[t]}\t{group_names[g].decode('latin-1')}" for t, g in zip(row_topic.tolist(),
                                                                                     row_group.tolist(), strict=True))
    gold = judgements(Labels(row.ravel(), labels), DocumentIds.from_bytes(judged.documents[chosen]),
                      judged.grades[chosen])
    present = [i for i, t in enumerate(row_topic.tolist()) if topics[t] in run]
    for t in {topics[row_topic[i]] for i in present}:
        run.span(t)  # a topic whose ranking repeats a document is refused here, when it is used
    entries, _ = spans(run.offsets, np.array([run.index[topics[row_topic[i]]] for i in present], dtype=np.int64))
    lengths = np.diff(run.offsets)[[run.index[topics[row_topic[i]]] for i in present]]
    rows_run = RankedRun([labels[i] for i in present], np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
                         run.ids.take(entries), run.scores_array[entries], run.ties, run.score_precision,
                         costs=None if run.costs_array is None else run.costs_array[entries])
    table = gain_table(gold, rows_run, labels, placeholders=placeholders)
    return GroupTable(table, row_topic, tuple(topics))
