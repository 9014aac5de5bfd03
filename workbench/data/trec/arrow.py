"""The fast path for plain TREC files: Arrow's multi-threaded C++ CSV reader, where it reads what the scanner
(:mod:`workbench.data.trec.scan`) reads.

A file is plain when trec_eval and Arrow cut it alike: one kind of separator (single spaces or single tabs)
between exactly the kind's fields on every line (none leading, trailing or doubled), no empty line, no ``#``
line, no byte ``\\0 \\v \\f``, no ``\\r`` but in CRLF line ends and no byte-order mark (Arrow drops it, trec_eval
reads it as part of the first topic); grades are plain integers (read by the scanner's own
:func:`~workbench.reading.numbers.read_numbers`) and scores numbers Arrow reads (it reads them as ``atof``
does, correctly rounded). Any other file, or any value Arrow refuses, makes :func:`read_plain` return None and
the scanner reads the file (and names what is wrong). The bytes are checked where they are parsed, a piece at a
time on the pieces' threads (:func:`_ascii_text`): a file of ASCII with no control byte but its line feeds and
one separator between fields needs no pass of its own over the whole file (:func:`separator` checks any other).
Nothing here imports ``pyarrow.compute`` (0.15 s of CPU to import). Ids stay bytes (no Python object per line):
document ids as :class:`~workbench.ids.DocumentIds`, topics and systems as codes into their few distinct
values.

Arrow's reading threads let go of the file's buffer a moment after the table is returned, and need the
interpreter to do it; if the interpreter is shutting down by then, the thread is ended and the process aborts
("terminate called without an active exception", status 134: 5 of 180 drop-in runs under load). The buffers lent
to Arrow are followed, and the interpreter waits for them at exit (:func:`_lend`).
"""

from __future__ import annotations

import atexit
import mmap
import threading
import time
import weakref
from typing import TYPE_CHECKING

import numpy as np

from workbench.data.trec.scan import FIELDS, WIDE_FACTOR
from workbench.ids import DocumentIds
from workbench.reading.numbers import read_numbers
from workbench.reading.sources import FileBytes
from workbench.threads import in_threads

if TYPE_CHECKING:  # pyarrow is imported where a file is read
    import pyarrow as pa

__all__ = ["separator", "HEAD", "PIECE", "RETURN_WAIT", "read_plain"]


def separator(raw: FileBytes, last_field: bool = False) -> bytes | None:
    """The one separator of a file that may be plain (``b" "`` or ``b"\\t"``), or None when it is not; single bytes
    are searched for with ``memchr`` and a doubled separator as byte pairs (milliseconds for 100 MB). A leading or
    trailing separator shows after reading, as a field count Arrow refuses or an empty first or last field;
    ``last_field``: the last field will not be read, so a separator before a line end (an empty last field) is
    looked for here, in the same pass over the pairs."""
    if any(raw.find(byte) >= 0 for byte in (b"\0", b"\v", b"\f")) or raw[:3] == b"\xef\xbb\xbf":
        return None
    if raw.find(b"#") >= 0 and (raw[:1] == b"#" or raw.find(b"\n#") >= 0):
        return None
    crlf = raw.find(b"\r") >= 0
    if crlf:  # only in CRLF line ends
        buffer = np.frombuffer(raw, dtype=np.uint8)
        carriage = np.flatnonzero(buffer == 13)
        if (carriage + 1 >= buffer.size).any() or (buffer[np.minimum(carriage + 1, buffer.size - 1)] != 10).any():
            return None
    tab, space = raw.find(b"\t") >= 0, raw.find(b" ") >= 0
    if tab and space:
        return None
    delimiter = b"\t" if tab else b" "
    line_ends = (delimiter + b"\n", delimiter + b"\r") if crlf else (delimiter + b"\n",)  # no \r, no pair of it
    pairs = (delimiter * 2, *line_ends) if last_field else (delimiter * 2,)
    return None if _has_pair(raw, *pairs) or (last_field and raw[-1:] == delimiter) else delimiter


def _has_pair(raw: FileBytes | memoryview, *pairs: bytes) -> bool:
    """Whether the two bytes of one of ``pairs`` follow one another: the bytes read two by two as 16-bit words,
    from each parity, a megabyte at a time into one reused mask. On 79 MB: 13 ms a pair; a mask of the whole file
    touches as many fresh pages as the file has (19k page faults, 50-90 ms), and ``bytes.find`` takes 70 ms where
    the pair's first byte is frequent."""
    buffer = np.frombuffer(raw, dtype=np.uint8)
    words = [np.frombuffer(pair, dtype=np.uint16)[0] for pair in pairs]
    mask = np.empty(_PAIR_BLOCK, dtype=bool)
    for start in (0, 1):
        count = (buffer.size - start) // 2
        stream = buffer[start:start + 2 * count].view(np.uint16)
        for low in range(0, count, _PAIR_BLOCK):
            block = stream[low:low + _PAIR_BLOCK]
            if any(np.equal(block, word, out=mask[:block.size]).any() for word in words):
                return True
    return False


_PAIR_BLOCK = 1 << 19  # 16-bit words per block of _has_pair
_BYTE_BLOCK = 1 << 16  # bytes per block of _ascii_text's count


def _first_separator(raw: FileBytes) -> bytes:
    """The separator a plain file's first line shows: a tab if it holds one, else a space (a plain file holds one
    kind: :func:`_ascii_text` checks the others' lines against it)."""
    end = raw.find(b"\n")
    return b"\t" if raw.find(b"\t", 0, len(raw) if end < 0 else end) >= 0 else b" "


def _head(raw: FileBytes) -> FileBytes:
    """The first :data:`HEAD` bytes or so, to a line end (the whole of a shorter file): what :func:`separator`
    refuses there it refuses in the file (each of its checks finds a byte or a pair, or a byte-order mark)."""
    end = raw.find(b"\n", HEAD)
    return raw if end < 0 else raw[:end + 1]


HEAD = 1 << 16  # bytes of a file checked whole before its pieces are parsed (_head)


def _ascii_text(raw: FileBytes, low: int, high: int, delimiter: bytes, rows: int, fields: int, last_field: bool
               ) -> bool:
    """Whether bytes ``low:high``, which Arrow cut into ``rows`` lines of ``fields`` fields at ``delimiter``,
    are ASCII with no byte below 32 but the line feeds and the separators between fields, as :func:`separator`
    would find: the bytes below 32 or above 127 (read as int8: one comparison, a block at a time) are as many as
    the line feeds and tabs Arrow cut at (so no NUL, ``\\v``, ``\\f``, carriage return counted, byte-order mark
    or other byte); no lone carriage return (Arrow cuts lines at it too), no ``#`` line, no space in a tab file,
    no doubled separator (nor one before a line end, with ``last_field``). 16 MB: about 4 ms."""
    buffer = np.frombuffer(raw, dtype=np.int8, count=high - low, offset=low)
    mask = np.empty(min(buffer.size, _BYTE_BLOCK), dtype=bool)
    controls = 0
    for start in range(0, buffer.size, mask.size):
        block = buffer[start:start + mask.size]
        controls += int(np.count_nonzero(np.less(block, 32, out=mask[:block.size])))
    line_feeds = rows - (raw[high - 1:high] != b"\n")
    if controls != line_feeds + (rows * (fields - 1) if delimiter == b"\t" else 0) or raw.find(b"\r", low, high) >= 0:
        return False
    if raw.find(b"#", low, high) >= 0 and (raw[low:low + 1] == b"#" or raw.find(b"\n#", low, high) >= 0):
        return False
    if delimiter == b"\t" and raw.find(b" ", low, high) >= 0:
        return False
    return not _has_pair(memoryview(raw)[low:high], delimiter * 2, *((delimiter + b"\n",) if last_field else ()))


def _lengths(array: pa.Array) -> np.ndarray:
    """The lengths of a binary Arrow array's values, from its offsets."""
    return np.diff(np.frombuffer(array.buffers()[1], dtype=np.int32, count=len(array) + 1, offset=array.offset * 4))


def _numbers(array: pa.Array, dtype: type[np.number]) -> np.ndarray:
    """A numeric Arrow array without nulls as numpy, read from its buffer (pyarrow's ``to_numpy`` imports
    pandas)."""
    item = np.dtype(dtype)
    return np.frombuffer(array.buffers()[1], dtype=item, count=len(array), offset=array.offset * item.itemsize)


PIECE = 1 << 22  # bytes of the file parsed at a time (cut at a line end): Arrow's tables stay that small, and
# two threads share a file's pieces evenly (79 MB: 20 pieces, not 5 of which one thread parsed 3)


class _Labels:
    """Codes of a dictionary-encoded column gathered piece by piece, in the file's order, numbered in order of first
    appearance (int32: half the memory of int64, 8 MB for 2M lines). While the column has held one value, a chunk's
    codes (all 0) are counted, not gathered: a run's one tag costs no lookup per line (2M: 7 ms)."""

    def __init__(self) -> None:
        self.code_of: dict[bytes, int] = {}
        self.parts: list[np.ndarray | int] = []  # a chunk's codes, or how many lines of code 0

    def add(self, values: list[bytes], indices: np.ndarray) -> None:
        """Add the codes of one chunk of an Arrow dictionary column: its ``values`` and ``indices``."""
        codes = np.array([self.code_of.setdefault(value, len(self.code_of)) for value in values],
                         dtype=np.int32 if len(self.code_of) + len(values) < 2**31 else np.int64)
        self.parts.append(indices.size if len(self.code_of) == 1 else codes[indices])

    def labels(self) -> tuple[np.ndarray, list[bytes]]:
        """The codes and the distinct values; one value (a run's one tag) as one broadcast 0, no array."""
        if len(self.code_of) == 1:
            size = sum(part if isinstance(part, int) else part.size for part in self.parts)
            return np.broadcast_to(np.int32(0), (size,)), list(self.code_of)
        return np.concatenate([np.zeros(part, dtype=np.int32) if isinstance(part, int) else part
                               for part in self.parts]), list(self.code_of)


def _pieces(raw: FileBytes) -> list[tuple[int, int]]:
    """``(start, end)`` of pieces of about :data:`PIECE` bytes, each ending at a line end (or the file's end)."""
    bounds, low = [], 0
    while low < len(raw):
        cut = raw.find(b"\n", min(low + PIECE, len(raw)) - 1)
        high = len(raw) if cut < 0 else cut + 1
        bounds.append((low, high))
        low = high
    return bounds


def _release(raw: FileBytes, low: int, high: int) -> None:
    """Let the pages of a mapped file between ``low`` and ``high`` go (they are read back from the page cache if
    touched again): a file read once needs not stay resident while the rest is read and scored."""
    if isinstance(raw, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        start = low - low % mmap.PAGESIZE
        if high > start:
            raw.madvise(mmap.MADV_DONTNEED, start, high - start)


_LENT: list[weakref.ref] = []  # the views of file buffers Arrow may still hold
_LENT_LOCK = threading.Lock()
RETURN_WAIT = 5.0  # seconds the interpreter waits at exit for Arrow's threads to give back what they hold


def _lend(raw: FileBytes | memoryview) -> pa.Buffer:
    """An Arrow buffer over ``raw`` (no copy), followed until Arrow lets go of it; the first one lent makes the
    interpreter wait for all of them at exit (:func:`_wait_for_returns`)."""
    import pyarrow as pa

    view = memoryview(raw)
    with _LENT_LOCK:
        if not _LENT:
            atexit.register(_wait_for_returns)
        _LENT[:] = [ref for ref in _LENT if ref() is not None] + [weakref.ref(view)]
    return pa.py_buffer(view)


def _wait_for_returns(timeout: float = RETURN_WAIT) -> bool:
    """Wait (letting go of the interpreter) until Arrow's threads hold no lent buffer, at most ``timeout``
    seconds; whether they all came back."""
    deadline = time.monotonic() + timeout
    while any(ref() is not None for ref in _LENT):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def read_plain(raw: FileBytes, kind: str, wanted: tuple[str, ...], encoding: str) -> dict | None:
    """The columns ``wanted`` of a plain file: ``topic`` and ``system`` as ``(codes, names)``, ``document`` as
    DocumentIds (bytes, decoded in ``encoding`` when strings are asked for), ``grade`` (int64) and ``score``
    (float64), others as bytes arrays; a run's last tag (``"last system"``, bytes) when its tags are not wanted;
    and ``"ASCII text"``: whether every byte is ASCII and none below 32 but the line feeds and separators
    (:func:`_ascii_text`: then the file holds no NUL, byte-order mark or other space to note); None when the file
    is not plain (then the scanner reads it). Read :data:`PIECE` bytes at a time, the pieces parsed and checked on
    :func:`~workbench.threads.threads` threads (Arrow lets go of the interpreter while it parses) and joined in
    the file's order, the pages of a mapped file let go behind the reading, so that memory holds the columns, not
    the file and Arrow's tables."""
    tags = kind == "run" and "system" not in wanted  # the last field is not read: only the last line's
    delimiter = _first_separator(raw)
    if (tags and raw[-1:] == delimiter) or separator(_head(raw), last_field=tags) is None:
        return None  # a file whose first lines are not plain is not parsed first
    import pyarrow as pa
    from pyarrow import csv as arrow_csv

    names = FIELDS[kind]
    value = "grade" if kind == "qrels" else "score"
    types = {name: pa.float64() if name == "score" else
             pa.dictionary(pa.int32(), pa.binary()) if name in ("topic", "system") else pa.binary() for name in names}
    options = {"read_options": arrow_csv.ReadOptions(column_names=list(names), block_size=1 << 22,
                                                     use_threads=False),  # the pieces are shared among threads
               "parse_options": arrow_csv.ParseOptions(delimiter=delimiter.decode(), quote_char=False,
                                                       double_quote=False, escape_char=False,
                                                       ignore_empty_lines=False),
               "convert_options": arrow_csv.ConvertOptions(column_types=types, null_values=[],
                                                           strings_can_be_null=False,
                                                           include_columns=[name for name in names if name in wanted])}
    pool = pa.system_memory_pool()  # malloc's, whose freed blocks numpy reuses (Arrow's own pool keeps them)
    labels = {name: _Labels() for name in wanted if name in ("topic", "system")}
    view = memoryview(raw)

    def piece(bounds: tuple[int, int]) -> tuple[dict[str, list], bool] | None:
        """One piece's columns as chunks (a dictionary column's as its values and indices) and whether its
        bytes are ASCII text (:func:`_ascii_text`), or None when the piece is not plain."""
        low, high = bounds
        try:
            table = arrow_csv.read_csv(_lend(view[low:high]), memory_pool=pool, **options)
        except pa.ArrowException:  # a field count or a number Arrow refuses: the scanner says what it is
            return None
        if table.num_rows == 0 or any(_lengths(chunk).min(initial=1) == 0 for name in table.column_names
                                      if types[name] == pa.binary() for chunk in table.column(name).chunks):
            return None  # a leading or trailing separator left an empty first or last field: not plain
        found: dict[str, list] = {}
        for name, column in zip(table.column_names, table.columns, strict=True):
            if name in labels:  # an empty value is a leading or trailing separator: not plain
                found[name] = [(chunk.dictionary.to_pylist(), _numbers(chunk.indices, np.int32))
                               for chunk in column.chunks]
                if any(b"" in values for values, _ in found[name]):
                    return None
            elif name == value == "grade":  # read as the scanner reads them; any other than a plain integer to it
                found[name] = []
                for chunk in column.chunks:
                    grades, odd = read_numbers(DocumentIds.from_arrow(chunk), "atol")
                    if odd.any():
                        return None
                    found[name].append(grades)
            elif name == value:
                found[name] = [_numbers(chunk, np.float64) for chunk in column.chunks]
                if any(np.isnan(chunk).any() for chunk in found[name]):
                    return None  # the scanner names the line
            else:
                found[name] = column.chunks
        text = _ascii_text(raw, low, high, delimiter, table.num_rows, len(names), tags)
        del table
        _release(raw, low, high)
        return found, text

    parsed = in_threads(piece, _pieces(raw))
    pieces = [found for found in parsed if found is not None]
    if len(pieces) < len(parsed):
        return None
    del parsed
    text = all(checked for _, checked in pieces)
    if not text:  # the whole file's pass decides
        plain = separator(raw, last_field=tags) == delimiter
        _release(raw, 0, len(raw))
        if not plain:
            return None
    gathered: dict[str, list] = {name: [] for name in wanted if name not in labels}
    for found, _ in pieces:
        for name, chunks in found.items():
            if name in labels:
                for values, indices in chunks:
                    labels[name].add(values, indices)
            else:
                gathered[name] += chunks
    del pieces
    columns: dict = {name: found.labels() for name, found in labels.items()}
    columns["ASCII text"] = text
    for name, chunks in gathered.items():
        if name == value:
            columns[name] = np.concatenate(chunks)
        elif name == "document":
            columns[name] = DocumentIds.from_arrow(pa.chunked_array(chunks, pa.binary()), encoding=encoding)
        else:  # a short field (iteration, rank) as a fixed-width column; one too wide for that goes to the scanner
            column = pa.chunked_array(chunks, pa.binary())
            width = max((int(_lengths(chunk).max(initial=0)) for chunk in chunks), default=0)
            if len(column) * width > max(WIDE_FACTOR * len(raw), 1 << 26):
                return None
            columns[name] = DocumentIds.from_arrow(column).fixed_width(width)  # no Python bytes per line
    if tags:
        end = len(raw) - (2 if raw[-2:] == b"\r\n" else 1 if raw[-1:] == b"\n" else 0)
        columns["last system"] = bytes(raw[raw.rfind(b"\n", 0, end) + 1:end]).split(delimiter)[-1]
    return columns
