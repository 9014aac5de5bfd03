"""A TREC file cut into lines and fields as trec_eval cuts it, without a Python object per line or field.

Fields are separated by C's ``isspace`` bytes (space, ``\\t \\n \\v \\f \\r``; ``get_qrels.c``,
``get_trec_results.c``), so a non-breaking space or any other non-ASCII space is part of a field, and CRLF line
ends are a space before the newline. A line without fields or whose first field starts with ``#`` is left out
(trec_eval 10.0 skips ``#`` lines; its qrels reader skips only one such line at a time and then reads the next as
a judgement, which this reader does not copy). A qrels line has 4 fields, a run line at least 6 (the rest is
ignored); any other line is malformed, named by file, line and text::

    >>> fields = split_fields(b"# a comment\\n1 0 d1 1\\n\\n1\\t0 d2\\xc2\\xa0x 0\\r\\n")
    >>> fields.numbers.tolist(), fields.counts.tolist(), fields.column(2).tolist()
    ([2, 4], [4, 4], [b'd1', b'd2\\xc2\\xa0x'])
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from os import PathLike

import numpy as np

from workbench.data.trec.errors import TrecFormatError
from workbench.ids import DocumentIds
from workbench.reading.sources import FileBytes

__all__ = ["BLOCK", "WIDE_FACTOR", "FIELDS", "shown", "Fields", "run_on_note", "bom_note", "split_fields",
           "check_counts"]

BLOCK = 1 << 21  # bytes scanned at a time: small temporaries are reused, large ones cost fresh pages
WIDE_FACTOR = 8  # a fixed-width column may take this many times the file's bytes (and 64 MB in any case)
FIELDS = {"qrels": ("topic", "iteration", "document", "grade"),
          "run": ("topic", "iteration", "document", "rank", "score", "system")}


def shown(value: bytes) -> str:
    """Bytes as a message shows them (UTF-8 where they are, else replacement characters)."""
    return value.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Fields:
    """The data lines of a file: the byte buffer, every field's start and end, each line's first field, field
    count and 1-based line number."""

    buffer: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    first: np.ndarray
    counts: np.ndarray
    numbers: np.ndarray

    def bounds(self, index: int) -> tuple[np.ndarray, np.ndarray]:
        """Where field ``index`` of every line starts and ends in :attr:`buffer`."""
        return self.starts[self.first + index], self.ends[self.first + index]

    def ids(self, index: int, encoding: str = "utf-8") -> DocumentIds:
        """Field ``index`` of every line as :class:`~workbench.ids.DocumentIds` read in place (memory as the
        field's bytes, however long the longest)."""
        return DocumentIds.from_buffer(self.buffer, *self.bounds(index), encoding)

    def column(self, index: int, path: str | PathLike | None = None) -> np.ndarray:
        """Field ``index`` of every line as a fixed-width bytes array (numpy ``S``; no line may lack it), for
        short fields (levels, groups, tags): a column that would take more than :data:`WIDE_FACTOR` times the
        file's bytes (one very long field among many lines) is refused, naming the line, instead of taking
        lines × the longest field."""
        starts, ends = self.bounds(index)
        width = int((ends - starts).max(initial=1))
        if starts.size * width > max(WIDE_FACTOR * self.buffer.size, 1 << 26):
            row = int(np.argmax(ends - starts))
            raise TrecFormatError(f"field {index + 1} is {width:,} bytes long; this reader holds that field in a "
                                  f"column as wide as its longest value ({starts.size:,} lines × {width:,} bytes), "
                                  "which it refuses past "
                                  f"{WIDE_FACTOR} times the file's size", path=path, line=int(self.numbers[row]),
                                  text=shown(self.buffer[starts[row]:starts[row] + 80].tobytes()) + " …")
        out = np.zeros((starts.size, width), dtype=np.uint8)
        step = max(BLOCK // (8 * width), 1)  # a block's worth of positions at a time
        for a in range(0, starts.size, step):
            s, e = starts[a:a + step], ends[a:a + step]
            index_ = s[:, None] + np.arange(width)
            inside = index_ < e[:, None]
            out[a:a + s.size] = np.where(inside, self.buffer[np.minimum(index_, self.buffer.size - 1)], 0)
        return out.view(f"S{width}").ravel()

    def field(self, row: int, index: int) -> bytes:
        """Field ``index`` of line ``row``."""
        i = self.first[row] + index
        return self.buffer[self.starts[i]:self.ends[i]].tobytes()

    def line(self, row: int) -> str:
        """The fields of line ``row`` joined by spaces (for messages)."""
        a, n = self.first[row], self.counts[row]
        return " ".join(shown(self.buffer[self.starts[i]:self.ends[i]].tobytes()) for i in range(a, a + n))

    def line_ends(self, row: int) -> str:
        """What a refusal of line ``row`` adds when carriage returns end lines inside it (a file whose lines end
        with CR alone, as on classic Mac OS: trec_eval ends lines at LF only and reads them as one line), else
        ``""``."""
        a, n = self.first[row], self.counts[row]
        if n < 2 or not (self.buffer[self.starts[a]:self.ends[a + n - 1]] == 13).any():
            return ""
        return ("; the line runs on over carriage returns: the file's lines end with CR alone (as on classic Mac "
                "OS), which trec_eval does not take as line ends (convert them to LF, e.g. tr '\\r' '\\n')")


def run_on_note(fields: Fields, used: int | None = None) -> str | None:
    """What a reader says of the lines it read that run on over carriage returns (a file whose lines end with
    CR alone): trec_eval reads each as one line, and so do the readers (``used``: the fields a line's reader
    takes, the rest ignored, as of a run's line past its sixth); None when there is none."""
    buffer = fields.buffer
    if re.search(rb"\r(?!\n)", buffer.data) is None:  # the common case, without a pass of numpy masks
        return None
    lone = np.flatnonzero((buffer[:-1] == 13) & (buffer[1:] != 10))
    if buffer[-1:].tobytes() == b"\r":
        lone = np.append(lone, buffer.size - 1)
    if not lone.size:
        return None
    begin = fields.starts[fields.first]
    end = fields.ends[fields.first + fields.counts - 1]
    rows = np.flatnonzero(np.searchsorted(lone, begin) < np.searchsorted(lone, end)).tolist()
    if not rows:
        return None
    shown_rows = ", ".join(str(fields.numbers[row]) for row in rows[:3]) + (", …" if len(rows) > 3 else "")
    ignored = sum(max(int(fields.counts[row]) - used, 0) for row in rows) if used else 0
    reading = (f"it reads the first {used} fields of such a line and ignores the other {ignored:,}" if ignored else
               f"it reads such a line as one ({fields.line(rows[0])!r})")
    return (f"line {shown_rows} run{'s' if len(rows) == 1 else ''} on over carriage returns: the file's lines end "
            f"with CR alone (as on classic Mac OS), which trec_eval does not take as line ends; {reading}, and so "
            "does this reader (convert the line ends to LF, e.g. tr '\\r' '\\n')")


def bom_note(raw: FileBytes, codec: str) -> str | None:
    """What a reader says of a file that starts with a UTF-8 byte-order mark, which trec_eval reads as part of
    the first field (and so do the readers): the first field as read in ``codec``; None without one."""
    if raw[:3] != codecs.BOM_UTF8:
        return None
    first = re.match(rb"[^ \t\n\v\f\r]*", raw).group()  # type: ignore[union-attr]  # "*" matches, maybe empty
    return (f"starts with a UTF-8 byte-order mark (bytes EF BB BF), which trec_eval reads as part of the first "
            f"field, and so does this reader: its first topic is {first.decode(codec, errors='backslashreplace')!r}")


def _bounds(buffer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each field starts and ends, and where each newline is."""
    starts, ends, newlines = [], [], []
    before = np.ones(1, dtype=bool)  # the byte before the block is a separator (or the file's start)
    for at in range(0, buffer.size, BLOCK):
        block = buffer[at:at + BLOCK]
        space = ((block - np.uint8(9)) < 5) | (block == 32)  # \t..\r as unsigned bytes, and space
        previous = np.concatenate((before, space[:-1]))
        starts.append(np.flatnonzero(previous > space) + at)
        ends.append(np.flatnonzero(space > previous) + at)
        newlines.append(np.flatnonzero(block == 10) + at)
        before = space[-1:]
    if not before[0]:  # the last field runs to the end of the file
        ends.append(np.array([buffer.size]))
    return np.concatenate(starts), np.concatenate(ends), np.concatenate(newlines)


def split_fields(raw: FileBytes) -> Fields:
    """The fields of the file's data lines (bytes or any buffer), blank and ``#`` lines left out."""
    buffer = np.frombuffer(raw, dtype=np.uint8)
    starts, ends, newlines = _bounds(buffer)
    n_lines = newlines.size + (0 if buffer[-1:].tobytes() == b"\n" else 1)
    counts = np.diff(np.concatenate(([0], np.searchsorted(starts, newlines), [starts.size])))[:n_lines]
    first = np.concatenate(([0], np.cumsum(counts)[:-1]))
    kept = counts > 0
    if starts.size and (buffer == ord("#")).any():
        opening = buffer[starts[np.minimum(first, starts.size - 1)]]
        kept &= opening != ord("#")
    return Fields(buffer, starts, ends, first[kept], counts[kept], np.flatnonzero(kept) + 1)


def check_counts(fields: Fields, kind: str, path: str | PathLike | None) -> None:
    """Refuse the first line with the wrong number of fields for ``kind`` (trec_eval's "Malformed line")."""
    bad = fields.counts != 4 if kind == "qrels" else fields.counts < 6
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        rule = "4 fields (qid iter docno rel)" if kind == "qrels" else "6 fields (qid iter docno rank sim run_id)"
        raise TrecFormatError(f"a {kind} line has {rule}, this one {fields.counts[row]}{fields.line_ends(row)}",
                              path=path, line=int(fields.numbers[row]), text=fields.line(row))
