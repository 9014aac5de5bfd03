"""Preference judgements as trec_eval reads them (``-R prefs``: ``get_prefs.c``; ``-R qrels_prefs``:
``get_qrels_prefs.c``), and counted against a run's rankings as ``form_prefs_counts.c`` counts them.

A ``prefs`` line is ``topic group subgroup document level``: within a judgement sub-group (JSG) of a judgement
group (JG), a document is preferred to every document of a lower level. ``qrels_prefs`` reads a qrels file
``topic iteration document grade`` as preferences, the iteration field naming the JG, with one JSG per JG.
Levels are read by C's ``atof`` (a grade ``2.5`` stays 2.5 here); a NaN level, whose place trec_eval's sorts
leave undefined, is refused. Topic names are decoded one character per byte (Latin-1), as the ``trec_eval``
drop-in prints them back::

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "prefs").write_bytes(b"q jg s a 2\\nq jg s b 1\\nq jg s c 0\\n")
    >>> _ = (folder / "run").write_bytes(b"q Q0 b 1 0.9 r\\nq Q0 a 2 0.8 r\\nq Q0 x 3 0.7 r\\n")
    >>> from workbench.data.trec.lines import read_lines
    >>> counts, = count_topics(read_preferences(folder / "prefs"), read_lines(folder / "run", "run"), ["q"]).counts
    >>> counts.fulfilled_ret.tolist(), counts.possible_ret.tolist(), counts.num_judged_ret
    ([0], [1], 2)

Each topic's run is ranked by score descending, then — unlike trec_eval's other measures — by document id
*ascending* (``form_prefs_counts.c``'s ``comp_sim_docno``), cut to ``-M``, and its documents numbered as
:func:`~workbench.metrics.ranking.preferences.count_preferences` reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike

import numpy as np

from workbench.data.trec.columns import read_columns, topic_names
from workbench.data.trec.errors import DuplicateEntryError
from workbench.data.trec.join import PLACEHOLDER
from workbench.data.trec.lines import TrecLines
from workbench.data.trec.ranked import MAX_DOCS, SCORE_PRECISION, first_duplicate
from workbench.errors import WorkbenchError, WorkbenchWarning, warn
from workbench.ids import DocumentIds
from workbench.metrics.ranking.preferences import (
    InconsistentPreferencesError,
    PreferenceCounts,
    count_preferences,
)
from workbench.metrics.ranking.table import trec_eval_order
from workbench.validation import Choices, FilePath, Flag, Instance, ListOf, Text, validate

__all__ = ["FORMATS", "FORMAT", "PreferenceJudgements", "PreferenceTopics", "read_preferences", "count_topics"]

FORMATS = {"prefs": ("topic", "group", "subgroup", "document", "level"),
           "qrels_prefs": ("topic", "group", "document", "level")}
"""The fields of a line of each preference format (trec_eval's ``-R`` names)."""
FORMAT = Choices(tuple(FORMATS))


@dataclass(frozen=True)
class PreferenceJudgements:
    """A preference file's lines as byte columns (numpy ``S``) in file order: ``topics``, ``groups`` (JG),
    ``subgroups`` (JSG; ``b"0"`` for every ``qrels_prefs`` line), ``documents``, ``levels`` (float64) and each
    line's 1-based number."""

    path: str
    topics: np.ndarray
    groups: np.ndarray
    subgroups: np.ndarray
    documents: np.ndarray
    levels: np.ndarray
    numbers: np.ndarray

    def topic_names(self) -> list[str]:
        """The topics in trec_eval's order (``strcmp``), decoded one character per byte."""
        return topic_names(self.topics)


@dataclass(frozen=True)
class PreferenceTopics:
    """Each topic's :class:`~workbench.metrics.ranking.preferences.PreferenceCounts` (:func:`count_topics`): what
    the ``prefs_*`` measures read."""

    counts: tuple[PreferenceCounts, ...]
    topics: tuple[str, ...]


@validate(path=FilePath(), format=FORMAT)
def read_preferences(path: str | PathLike, format: str = "prefs") -> PreferenceJudgements:
    """The lines of a ``prefs`` or ``qrels_prefs`` file (:data:`FORMATS`); a malformed line or a NaN level
    raises :class:`~workbench.data.trec.errors.TrecFormatError` with the file and line."""
    columns = read_columns(path, FORMATS[format], "preference" if format == "prefs" else "qrels_prefs")
    levels = columns.floats("level", ("relevance level is not a plain decimal number",
                                      "relevance levels are not plain decimal numbers"))
    nan = np.flatnonzero(np.isnan(levels))
    if nan.size:
        raise columns.error(int(nan[0]), "relevance level is NaN (trec_eval's order of such lines is undefined)")
    subgroups = (columns.column("subgroup") if format == "prefs" else
                 np.full(levels.size, b"0", dtype="S1"))  # get_qrels_prefs.c: one JSG, "0"
    return PreferenceJudgements(columns.path, columns.column("topic"), columns.column("group"), subgroups,
                                columns.column("document"), levels, columns.numbers)


def _bytes(ids: DocumentIds, width: int) -> np.ndarray:
    """The ids no longer than ``width`` bytes, in order, as a numpy ``S`` array of that width (ids hold no NUL
    byte; a longer id cannot equal a judged document when ``width`` is the judged documents' width)."""
    return ids.take(ids.lengths <= width).fixed_width(width)


def _codes(values: np.ndarray) -> np.ndarray:
    """Integer codes numbering the distinct values in byte order."""
    return np.unique(values, return_inverse=True)[1].ravel()


@validate(prefs=Instance((PreferenceJudgements,), "preference judgements (read_preferences)"),
          run=Instance((TrecLines,), "a run's lines (read_lines)"), topics=ListOf(Text(empty=True)),
          max_docs=MAX_DOCS, score_precision=SCORE_PRECISION, placeholders=Flag())
def count_topics(prefs: PreferenceJudgements, run: TrecLines, topics: Sequence[str], *,
                 max_docs: int | None = None, score_precision: str = "float64",
                 placeholders: bool = False) -> PreferenceTopics:
    """:class:`~workbench.metrics.ranking.preferences.PreferenceCounts` of each of ``topics`` (names of
    ``prefs``'s topics): the run's ranking of the topic (``run`` as :func:`~workbench.data.trec.lines.read_lines`
    reads it; ``max_docs``: trec_eval's ``-M``) against the topic's preferences. A topic the run lacks is an
    error, or with ``placeholders`` (``-c``) ranked as trec_eval ranks it, one document
    ``ceci_nest_pas_un_docno``. A document the kept ranking holds twice raises the reader's located error, as
    trec_eval stops on it; inconsistent preferences raise
    :class:`~workbench.metrics.ranking.preferences.InconsistentPreferencesError` naming the file and topic."""
    order = trec_eval_order(run.values, run.documents, groups=run.topics.codes, score_precision=score_precision,
                            ids="ascending")
    starts = np.concatenate(([0], np.cumsum(np.bincount(run.topics.codes, minlength=len(run.topics.names)))))
    in_run = {name: i for i, name in enumerate(run.topics.names)}
    names = np.unique(prefs.topics, return_inverse=True)
    index = {name.decode("latin-1"): i for i, name in enumerate(names[0].tolist())}
    by_topic = np.argsort(names[1].ravel(), kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(names[1].ravel(), minlength=names[0].size))))
    found = []
    for topic in topics:
        if topic in in_run:
            code = in_run[topic]
            kept = order[starts[code]:starts[code + 1]][:max_docs]
            repeat = first_duplicate(np.zeros(len(run.documents), dtype=np.int64), run.documents, np.sort(kept))
            if repeat is not None:
                raise run.located(DuplicateEntryError(run.documents[repeat[1]], topic, None, *repeat))
            ranked = _bytes(run.documents.take(kept), prefs.documents.dtype.itemsize)
        elif placeholders:
            ranked = np.array([PLACEHOLDER.encode()])[:max_docs]
        else:
            raise WorkbenchError(f"the run lacks topic {topic!r}")
        lines = by_topic[bounds[index[topic]]:bounds[index[topic] + 1]]
        documents = prefs.documents[lines]
        judged = np.unique(documents)
        retrieved = ranked[np.isin(ranked, judged)]  # in rank order
        rank_of = np.empty(judged.size, dtype=np.int64)
        shown = np.searchsorted(judged, retrieved)
        rank_of[shown] = np.arange(retrieved.size)
        unretrieved = np.ones(judged.size, dtype=bool)
        unretrieved[shown] = False
        rank_of[unretrieved] = retrieved.size + np.arange(int(unretrieved.sum()))  # then by document id
        try:
            found.append(count_preferences(_codes(prefs.groups[lines]), _codes(prefs.subgroups[lines]),
                                           prefs.levels[lines], rank_of[np.searchsorted(judged, documents)],
                                           judged.size, retrieved.size))
        except InconsistentPreferencesError as error:
            docs = ", ".join(repr(judged[rank_of == d][0].decode("latin-1")) for d in error.documents)
            raise InconsistentPreferencesError(f"{prefs.path}: topic {topic!r}: {error}"
                                               f"{f' (document {docs})' if docs else ''}",
                                               error.documents) from None
    beyond = [topic for topic, counts in zip(topics, found, strict=True) if counts.beyond.any()]
    if beyond:
        warn(f"{prefs.path}: {len(beyond)} topic(s) ({', '.join(map(repr, beyond[:3]))}"
             f"{', …' if len(beyond) > 3 else ''}) have more relevant documents than documents at their "
             "lowest, negative level, where trec_eval's prefs_avgjg_Rnonrel(_ret) read past their arrays "
             "(undefined): the workbench counts that level's documents only", WorkbenchWarning)
    return PreferenceTopics(tuple(found), tuple(topics))
