"""A file's bytes as text, read alike by every reader of text formats (RepLab, PyEvALL, trec_eval's output, the
widget's imports): the encoding named by the caller (an unknown one is refused by its domain), a UTF-8 byte-order
mark left out, lines that end with CR LF or CR alone (classic Mac OS; said in a :class:`ReadingWarning`) read as
lines, bytes the encoding cannot decode and NUL characters refused with the line and column where they are. How
the bytes were read is kept in :attr:`Text.notes`, which every error the reader raises through :meth:`Text.fail`
repeats, so that a refused file says what was read otherwise than written::

    >>> text = decode(b"\\xef\\xbb\\xbfa,b\\rc\\r", "gold.csv")
    >>> text.content, len(text.notes)
    ('a,b\\nc\\n', 2)
    >>> print(text.fail("a row has 2 columns, this one 1", line=2))  # doctest: +NORMALIZE_WHITESPACE
    gold.csv, line 2: a row has 2 columns, this one 1 (it starts with a UTF-8 byte-order mark, left out; its lines
    end with CR alone (as on classic Mac OS), read as line ends): 'c'
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from workbench.errors import InputError, WorkbenchWarning, warn
from workbench.reading.positions import LineIndex

__all__ = ["ReadingWarning", "Text", "decode", "lines"]


class ReadingWarning(WorkbenchWarning):
    """A file read otherwise than it is written, as its reader says it reads it (lines that end with CR alone read
    as lines; a TREC file's values read as trec_eval reads them): the message names the file and what was read."""


@dataclass(frozen=True)
class Text:
    """A file's text as its reader reads it: ``content`` (lines end with ``\\n``), the ``path`` it came from (as
    given, for messages), ``notes`` on how its bytes were read, and ``error``, the reader's error class (an
    :class:`~workbench.errors.InputError`) that :meth:`fail` raises."""

    content: str
    path: object = None
    notes: tuple[str, ...] = ()
    error: type[InputError] = InputError

    @cached_property
    def index(self) -> LineIndex:
        """Line and column of any offset (built once, on the first error or the first record that needs it)."""
        return LineIndex(self.content)

    def fail(self, message: str, *, offset: int | None = None, line: int | None = None, column: int | None = None,
             where: str = "", error: type[InputError] | None = None, **extra: Any) -> InputError:
        """The reader's error (``error``, else :attr:`error`) naming the file, the line (and column) of ``offset``
        or as given, the line's text, and the notes; raise it."""
        if offset is not None:
            line, column = self.index.locate(offset)
        shown = self.index.line(line) if line is not None and 0 < line <= len(self.index) else None
        said = f" ({'; '.join(self.notes)})" if self.notes else ""
        return (error or self.error)(message + said, path=self.path, line=line, column=column, text=shown,
                                     where=where, **extra)


def decode(raw: bytes | bytearray | memoryview, path: object = None, encoding: str = "utf-8",
           error: type[InputError] = InputError, encoding_error: type[InputError] | None = None) -> Text:
    """``raw`` read as text in ``encoding`` (see the module docstring); problems raise ``error`` naming ``path``,
    the line and the column (``encoding_error`` for bytes the encoding cannot decode, the line shown one
    character per byte)."""
    encoding_error = encoding_error or error
    codec = codecs.lookup(encoding).name
    data = bytes(raw)
    notes = []
    if codec in ("utf-8", "utf-8-sig") and data.startswith(codecs.BOM_UTF8):
        data, codec = data[3:], "utf-8"
        notes.append("it starts with a UTF-8 byte-order mark, left out")
    try:
        content = data.decode(codec)
    except UnicodeDecodeError as problem:
        lines = LineIndex(data)
        line, column = lines.locate(problem.start)
        shown = data[lines.starts[line - 1]:problem.end + 40].split(b"\n", 1)[0].decode("latin-1")  # as bytes
        hint = " (the file is in another encoding: give encoding=..., e.g. 'latin-1')" if codec == "utf-8" else ""
        raise encoding_error(f"byte 0x{data[problem.start]:02x} is not valid {codec}{hint}", path=path, line=line,
                             column=column, text=shown) from None
    except UnicodeError as problem:  # a codec that fails otherwise ('idna', say)
        raise encoding_error(f"cannot decode the file as {codec}: {problem}", path=path) from None
    if "\r" in content:
        if "\n" not in content:
            content = content.replace("\r", "\n")
            notes.append("its lines end with CR alone (as on classic Mac OS), read as line ends")
            warn(f"{path}: {notes[-1]}", ReadingWarning)
        else:
            content = content.replace("\r\n", "\n")
    text = Text(content, path, tuple(notes), error)
    nul = content.find("\0")
    if nul >= 0:
        hint = " (a UTF-16 file read as UTF-8? give encoding='utf-16')" if codec == "utf-8" else ""
        raise text.fail(f"a NUL character: not a text file{hint}", offset=nul)
    return text


def lines(text: str) -> Iterator[tuple[int, str]]:
    """A user's text given as a string (a widget's field, a notation) as numbered lines (from 1), a leading
    byte-order mark left out as :func:`decode` leaves it out of a file, so that it never joins the first id.

    >>> list(lines("\\ufeffd1 d2\\nd3"))
    [(1, 'd1 d2'), (2, 'd3')]
    """
    return enumerate(text.removeprefix("\ufeff").splitlines(), start=1)
