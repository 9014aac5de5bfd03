"""A z-score statistics file as trec_eval's ``-Z`` reads it (``get_zscores.c``): lines ``topic measure mean
stddev`` (numbers by C's ``atof``), each giving the mean and standard deviation of one measure's value on one
topic over a reference set of runs.

trec_eval sorts the lines by topic, then measure (glibc's ``qsort``, a merge sort that keeps equal lines in file
order), and finds a topic, then a measure within it, by binary search (``convert_zscores.c``). :meth:`ZScoreTable
.statistics` searches the same way, so that a measure given twice for a topic resolves to the line trec_eval
uses (said in a note), and a search past the end of a topic's lines looks, as trec_eval's does, at the first
line of the next topic::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zscores"
    >>> _ = path.write_bytes(b"301 map 0.2 0.1\\n301 P_5 0.4 0.2\\n302 map 0.3 0.1\\n")
    >>> means, stddevs, found = read_zscores(path).statistics(["301", "300"], ["map", "P_5", "ndcg"])
    >>> means.tolist(), found.tolist()
    ([[0.2, 0.4, 0.0], [0.0, 0.0, 0.0]], [[True, True, False], [False, False, False]])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike

import numpy as np

from workbench.data.trec.columns import read_columns
from workbench.data.trec.errors import TrecReadingWarning
from workbench.errors import warn
from workbench.validation import FilePath, validate

__all__ = ["ZScoreTable", "read_zscores"]


class _Beyond(Exception):
    """trec_eval's binary search reads past the end of its table."""


@dataclass(frozen=True)
class ZScoreTable:
    """The lines of a z-score file in trec_eval's order (topic, then measure, byte by byte; equal keys in file
    order): ``topics`` and ``measures`` (bytes), ``means``, ``stddevs``, each line's number, and where each
    distinct topic's lines start (``starts``, one more than the topics)."""

    path: str
    topics: np.ndarray
    measures: np.ndarray
    means: np.ndarray
    stddevs: np.ndarray
    numbers: np.ndarray
    starts: np.ndarray

    def _topic(self, topic: bytes) -> int | None:
        """``find_qid``: binary search over the distinct topics (``end`` starts one past the last one, which
        trec_eval reads: memory beyond its table, taken here as no match; raises :class:`_Beyond`)."""
        firsts = self.topics[self.starts[:-1]]
        start, end = 0, firsts.size
        while start <= end:
            current = (start + end) // 2
            if current == firsts.size:
                raise _Beyond
            here = firsts[current]
            if topic < here:
                end = current - 1
            elif topic > here:
                start = current + 1
            else:
                return current
        return None

    def _line(self, group: int, measure: bytes) -> int | None:
        """``find_meas``: binary search over the topic's lines, ``end`` starting one past its last line (which
        trec_eval reads: the next topic's first line, or beyond its table after the last topic)."""
        base, start, end = int(self.starts[group]), 0, int(self.starts[group + 1] - self.starts[group])
        while start <= end:
            current = (start + end) // 2
            if base + current >= self.measures.size:
                raise _Beyond
            here = self.measures[base + current]
            if measure < here:
                end = current - 1
            elif measure > here:
                start = current + 1
            else:
                return base + current
        return None

    def statistics(self, topics: Sequence[str], names: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(means, stddevs, found)``, each ``len(topics) × len(names)``: the statistics trec_eval finds for each
        topic and printed measure name (both encoded one byte per character, as the drop-in reads them)."""
        means = np.zeros((len(topics), len(names)))
        stddevs = np.zeros((len(topics), len(names)))
        found = np.zeros((len(topics), len(names)), dtype=bool)
        beyond: list[str] = []
        borrowed: list[str] = []
        for i, topic in enumerate(topics):
            try:
                group = self._topic(topic.encode("latin-1"))
            except _Beyond:
                beyond.append(f"topic {topic!r}")
                continue
            if group is None:
                continue
            for j, name in enumerate(names):
                try:
                    line = self._line(group, name.encode("latin-1"))
                except _Beyond:
                    beyond.append(f"{name!r} of topic {topic!r}")
                    continue
                if line is not None:
                    means[i, j], stddevs[i, j], found[i, j] = self.means[line], self.stddevs[line], True
                    if line >= self.starts[group + 1]:
                        borrowed.append(f"{name!r} of topic {topic!r} (line {self.numbers[line]})")
        if beyond:
            warn(f"{self.path}: looking up {', '.join(beyond[:3])}{', …' if len(beyond) > 3 else ''}, "
                 "trec_eval's binary search reads past the end of its z-score table (undefined; it may "
                 "crash): taken as missing, -1000000", TrecReadingWarning)
        if borrowed:
            warn(f"{self.path}: {', '.join(borrowed[:3])}{', …' if len(borrowed) > 3 else ''}: the "
                 "statistics of the next topic's first line, where trec_eval's binary search finds them",
                 TrecReadingWarning)
        return means, stddevs, found


@validate(path=FilePath())
def read_zscores(path: str | PathLike) -> ZScoreTable:
    """The z-score file's lines in trec_eval's order; a malformed line raises
    :class:`~workbench.data.trec.errors.TrecFormatError` with the file and line."""
    columns = read_columns(path, ("topic", "measure", "mean", "stddev"), "z-score")
    topics, measures = columns.column("topic"), columns.column("measure")
    means = columns.floats("mean", ("mean is not a plain decimal number", "means are not plain decimal numbers"))
    stddevs = columns.floats("stddev", ("standard deviation is not a plain decimal number",
                                        "standard deviations are not plain decimal numbers"))
    order = np.lexsort((measures, topics))  # stable: equal lines stay in file order, as glibc's merge sort
    topics, measures = topics[order], measures[order]
    numbers = columns.numbers[order]
    repeated = np.flatnonzero((topics[1:] == topics[:-1]) & (measures[1:] == measures[:-1]))
    if repeated.size:
        shown = "; ".join(f"lines {numbers[i]} and {numbers[i + 1]}" for i in repeated[:3].tolist())
        warn(f"{columns.path}: {repeated.size} line(s) repeat the topic and measure of the line before "
             f"them ({shown}{'; …' if repeated.size > 3 else ''}): the line used is the one trec_eval's "
             "binary search finds", TrecReadingWarning)
    starts = np.concatenate(([0], np.flatnonzero(topics[1:] != topics[:-1]) + 1, [topics.size]))
    return ZScoreTable(columns.path, topics, measures, means[order], stddevs[order], numbers, starts)
