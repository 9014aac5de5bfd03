"""The other text files trec_eval reads — preference judgements (``-R prefs``, ``-R qrels_prefs``), qrels with
judgement groups (``-R qrels_jg``) and z-score statistics (``-Z``) — cut into byte columns as trec_eval cuts
them (``get_prefs.c``, ``get_qrels_prefs.c``, ``get_qrels_jg.c``, ``get_zscores.c``).

Each is a file of lines with a fixed number of fields, separated by C's whitespace as
:func:`~workbench.data.trec.scan.split_fields` separates them (a non-breaking space stays inside a field); gzip
data and ``-`` for standard input are read through (:func:`~workbench.reading.sources.read_buffer`). As for qrels and
runs, blank lines and lines starting with ``#`` are left out (trec_eval 10.0 skips one ``#`` line at a time
and calls a blank line malformed; its z-score reader skips neither). A line with another number of fields is
refused as trec_eval refuses it ("Malformed line"), naming the file, the line and its text::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zscores"
    >>> _ = path.write_bytes(b"# topic measure mean stddev\\n301 map 0.12 0.15\\n")
    >>> read_columns(path, ("topic", "measure", "mean", "stddev"), "z-score").column("measure").tolist()
    [b'map']
    >>> _ = path.write_bytes(b"301 map 0.12\\n")
    >>> try:
    ...     read_columns(path, ("topic", "measure", "mean", "stddev"), "z-score")
    ... except TrecFormatError as error:
    ...     print(error.line, error.message)
    1 a z-score line has 4 fields (topic measure mean stddev), this one 3 (trec_eval: Malformed line)
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike

import numpy as np

from workbench.data.trec.errors import TrecFormatError, TrecReadingWarning
from workbench.data.trec.scan import Fields, bom_note, run_on_note, split_fields
from workbench.errors import warn
from workbench.reading.numbers import read_numbers, reading_note
from workbench.reading.sources import STDIN, STDIN_NAME, read_buffer

__all__ = ["Columns", "topic_names", "read_columns"]


@dataclass(frozen=True)
class Columns:
    """A file's data lines as fixed-width byte columns (numpy ``S``), one per named field, and numbers read from
    fields of any length, with each line's 1-based number."""

    path: str
    names: tuple[str, ...]
    fields: Fields

    @property
    def numbers(self) -> np.ndarray:
        """The 1-based line number of each data line."""
        return self.fields.numbers

    def column(self, name: str) -> np.ndarray:
        """The field ``name`` of every line (bytes; a field so long that the column would take more than
        :data:`~workbench.data.trec.scan.WIDE_FACTOR` times the file is refused, naming its line)."""
        return self.fields.column(self.names.index(name), self.path)

    def error(self, row: int, message: str, kind: type[TrecFormatError] = TrecFormatError) -> TrecFormatError:
        """The error (a :class:`~workbench.data.trec.errors.TrecFormatError` of ``kind``) naming this file, data
        line ``row`` and its text."""
        return kind(message, path=self.path, line=int(self.numbers[row]), text=self.fields.line(row))

    def floats(self, name: str, what: tuple[str, str]) -> np.ndarray:
        """The field read by C's ``atof`` (float64), with a note on values that are not plain numbers
        (``what``: the singular and plural phrases of :func:`~workbench.reading.numbers.reading_note`)."""
        tokens = self.fields.ids(self.names.index(name))
        values, odd = read_numbers(tokens, "atof")
        self._note(reading_note(what, "atof", tokens, values, odd, self.numbers))
        return values

    def integers(self, name: str, what: tuple[str, str]) -> np.ndarray:
        """The field read by C's ``atol`` (int64), with a note as :meth:`floats`."""
        tokens = self.fields.ids(self.names.index(name))
        values, odd = read_numbers(tokens, "atol")
        self._note(reading_note(what, "atol", tokens, values, odd, self.numbers))
        return values

    def _note(self, note: str | None) -> None:
        if note:
            warn(f"{self.path}: {note}", TrecReadingWarning)


def topic_names(topics: np.ndarray) -> list[str]:
    """Distinct byte topics in trec_eval's order (``strcmp``), decoded one character per byte."""
    return [name.decode("latin-1") for name in np.unique(topics).tolist()]


def read_columns(path: str | PathLike, names: tuple[str, ...], what: str) -> Columns:
    """The data lines of a file whose lines have exactly ``len(names)`` fields (``what`` names the kind of
    line in messages); see the module docstring."""
    name = STDIN_NAME if str(path) == STDIN else str(path)
    raw = read_buffer(path, TrecFormatError)
    if not len(raw):
        raise TrecFormatError("the file is empty", path=name)
    nul = raw.find(b"\0")
    if nul >= 0:
        line = int(np.count_nonzero(np.frombuffer(raw, dtype=np.uint8, count=nul) == 10)) + 1
        raise TrecFormatError(f"a NUL byte at offset {nul}: not a text file (trec_eval reads a line only up to "
                              "it)", path=name, line=line)
    fields = split_fields(raw)
    if not fields.numbers.size:
        raise TrecFormatError("the file holds no data lines", path=name)
    columns = Columns(name, tuple(names), fields)
    bad = np.flatnonzero(fields.counts != len(names))
    if bad.size:
        row = int(bad[0])
        raise columns.error(row, f"a {what} line has {len(names)} fields ({' '.join(names)}), this one "
                                 f"{fields.counts[row]} (trec_eval: Malformed line){fields.line_ends(row)}")
    for note in (bom_note(raw, "latin-1"), run_on_note(fields)):  # names are read one character per byte
        if note:
            warn(f"{name}: {note}", TrecReadingWarning)
    return columns
