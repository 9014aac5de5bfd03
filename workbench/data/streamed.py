"""Runs larger than memory: a TREC run file read and scored one block of whole topics at a time.

Every ranking measure is a value per topic, and every summary (means, sums, trec_eval's ``all`` line) is computed
from those values, so a run can be scored a block of topics at a time, each block through the in-memory path as it
is (:func:`~workbench.data.trec.lines.read_lines`, :func:`~workbench.data.trec.ranked.rank_runs`, the engines), and
the summaries computed once at the end: the result equals the in-memory result to the bit. :func:`stream_run` cuts
the file and hands each block to its caller; :func:`evaluate_files` is ``Campaign.evaluate`` of TREC files this
way (the ``eval`` command's ``--stream``), and the ``trec_eval`` drop-in streams with its own printing.

A run **grouped by topic** (every topic's lines together, as search engines write them) is read in blocks of about
``block_bytes`` (:data:`BLOCK_BYTES`), each cut before the topic running over it and held in memory (the next one
read while it is scored), so that the memory is that of a block's work, whatever the file's size. A run **not
grouped** (a topic coming back after another began) is said in a :class:`StreamWarning` naming the line, and
partitioned to disk first. A plain file is first sampled (:data:`SAMPLES` lines at even steps,
:func:`_scattered`): a topic seen on both sides of another, more than a block apart, proves it not grouped before
any block is scored; otherwise the grouped pass finds a topic that comes back in a later block, and its blocks'
scores are dropped. Partitioned, each line is copied, as bytes, into one of ``1.25 × size / block_bytes`` bucket
files by a hash of its topic (temporary space: the file's size, in :func:`tempfile.gettempdir`, said in the
warning), then the buckets are streamed. Errors and notes
name the run file and its own line numbers (a side table of each block's lines), never a block's; temporary files
are removed when the work ends, on success and on error.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("q1 0 d1 1\\nq2 0 d3 1\\n")
    >>> _ = (folder / "run").write_text("q1 Q0 d2 1 0.9 bm25\\nq1 Q0 d1 2 0.5 bm25\\nq2 Q0 d3 1 0.1 bm25\\n")
    >>> evaluate_files(folder / "qrels", [folder / "run"], "RR", block_bytes=20, progress=False).value.tolist()
    [0.5, 1.0]
"""

from __future__ import annotations

import bisect
import collections
import gzip
import io
import itertools
import os
import re
import stat
import tempfile
import warnings
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from workbench.data.campaign import Campaign, Scores
from workbench.data.read import CampaignFileError, read_gold
from workbench.data.scoring import MEASURES, measure_names
from workbench.data.topic_policies import EXTRA_TOPICS, MISSING_TOPICS, MissingTopicsWarning, TopicPolicy
from workbench.data.trec.errors import TrecFormatError
from workbench.data.trec.lines import TrecLines, read_lines
from workbench.data.trec.ranked import MAX_DOCS, SCORE_PRECISION, Judgements, RankedRun, rank_runs
from workbench.errors import InputError, WorkbenchError, WorkbenchWarning, located, warn
from workbench.progress import byte_progress
from workbench.reading.sources import GZIP_MAGIC, STDIN, file_path
from workbench.threads import threads
from workbench.validation import ENCODING, FilePath, Flag, Function, Interval, ListOf, validate

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BLOCK_BYTES", "BLOCK_SIZES", "StreamWarning", "LineMap", "Block", "Streamed",
           "stream_run", "should_stream", "stream_scores", "evaluate_files"]

BLOCK_BYTES = 64 << 20
"""The bytes of run file read at a time (then cut at a topic boundary): a block's work takes a few times this."""
BLOCK_SIZES = Interval(1, 1 << 40, integer=True)
"""The domain of ``block_bytes`` (any size gives the same result; tiny ones are for tests)."""
MEMORY_FACTOR = 4
"""The in-memory path takes about this many times a plain run file's bytes at its peak (``bench_ranking.py``:
302 MB for an 80 MB file); gzip data about five times more again."""
PIECE_BYTES = 1 << 20
"""The bytes partitioned at a time (a piece's arrays stay in the processor's cache: 3 times faster than a block's
on a 56 MB run, 0.16 against 0.49 CPU-s)."""
KEY_BYTES = 16  # a topic's first bytes choose its bucket (equal topics share them; others may too)
_HASH = np.uint64(1099511628211)  # FNV's 64-bit prime


class StreamWarning(WorkbenchWarning):
    """A streamed run that is not grouped by topic, partitioned to disk first (the line, the space used)."""


class LineMap:
    """A block's line numbers in the run file: segment ``i`` begins at the block's line ``starts[i]`` (1-based),
    which is the file's line ``lines[i]``, and goes on line by line.

    >>> LineMap([1, 4], [10, 50])(5)
    51
    """

    def __init__(self, starts: Sequence[int], lines: Sequence[int]) -> None:
        self.starts, self.lines = list(starts), list(lines)

    def __call__(self, line: int) -> int:
        i = max(bisect.bisect_right(self.starts, line) - 1, 0)
        return self.lines[i] + line - self.starts[i]


@dataclass(frozen=True)
class Block:
    """Whole topics of a run file: their bytes (``data``, a block of a run grouped by topic, held in memory) or a
    temporary file holding them (``path``; with ``data``, the name its reader gives them), its lines' numbers in
    the run file (``numbers``), the topics of the blocks before it (``earlier``) and whether it is the last one.
    A reader reads it with :meth:`lines`."""

    path: Path
    numbers: LineMap
    earlier: frozenset[str] | set[str] = frozenset()
    last: bool = False
    data: bytes | None = field(default=None, repr=False)

    def read_bytes(self) -> bytes:
        """The block's bytes."""
        return self.path.read_bytes() if self.data is None else self.data

    def lines(self, encoding: str = "utf-8", systems: bool = True) -> TrecLines:
        """The block's lines as :func:`~workbench.data.trec.lines.read_lines` reads a run file."""
        return read_lines(self.path, "run", encoding, systems=systems, data=self.data)


Result = TypeVar("Result")


@dataclass
class Streamed(Generic[Result]):
    """What each block gave (in block order), whether the file was partitioned to disk first, and the temporary
    space that took (bytes)."""

    results: list[Result]
    partitioned: bool = False
    temporary_bytes: int = 0
    notes: list[tuple[str, type[Warning]]] = field(default_factory=list)


# ----------------------------------------------------------------------------------------------- reading
def _line_chunks(path: str | PathLike, size: int, advance: Callable[[int], object],
                 cut_at: Callable[[bytes, bytearray], int] | None = None) -> Iterator[bytes]:
    """The file's bytes (gzip data decompressed) in pieces of about ``size`` (at least one line), each ending at a
    line end but the last; ``advance`` told the file's bytes read as they are. ``cut_at(carry, piece)``: where to
    end a piece, counted from the start of ``carry`` (the bytes after the last cut) followed by ``piece`` (the bytes
    just read), 0 to read on; by default after the piece's last line end (:func:`_topic_start`: whole topics). The
    file is read into one buffer, used again for each read, no larger than the data (five times a gzip file's bytes),
    and each byte copied once, into the piece given (a new 64 MB object costs 16,000 page faults)."""
    cut_at = cut_at or _after_line_end
    carry = b""
    with open(path, "rb") as raw:
        packed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        stored = os.fstat(raw.fileno())
        if stat.S_ISREG(stored.st_mode):  # a pipe's size is unknown
            size = min(size, max(stored.st_size * (5 if packed else 1), 1))
        buffer = bytearray(size)
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw) if packed else raw  # type: ignore[assignment]
        where = 0
        while True:
            try:
                count = stream.readinto(buffer)  # type: ignore[attr-defined]
            except (OSError, EOFError, zlib.error) as problem:  # as read_buffer says it of a file read whole
                raise TrecFormatError(f"broken gzip data ({problem})" if packed else
                                      f"cannot read the file ({problem})", path=str(path)) from None
            now = raw.tell()
            advance(now - where)
            where = now
            if not count:
                break
            piece = buffer if count == size else buffer[:count]
            cut = cut_at(carry, piece)
            if cut == 0:
                carry += piece
            elif cut <= len(carry):  # a topic ended where the piece began
                yield carry[:cut]
                carry = carry[cut:] + piece
            else:
                yield b"".join((carry, memoryview(piece)[:cut - len(carry)]))
                carry = bytes(memoryview(piece)[cut - len(carry):])
    if carry:
        yield carry


def _after_line_end(carry: bytes, piece: bytearray) -> int:
    """After the last line end of ``piece`` (0: none), counted from the start of ``carry``."""
    end = piece.rfind(b"\n") + 1
    return len(carry) + end if end else 0


def _topic(line: bytes) -> bytes | None:
    """A line's topic, its first field (C's whitespace), or None for a blank or ``#`` line."""
    fields = line.split(None, 1)
    return None if not fields or fields[0].startswith(b"#") else fields[0]


def _topic_start(carry: bytes, piece: bytearray) -> int:
    """Where the lines of the last topic among the whole lines of ``carry`` (the bytes after the last cut: the
    lines of one topic and the start of a line) and ``piece`` (the bytes read after them) begin, counted from the
    start of ``carry``: a block ending there holds whole topics; 0 (read on) when those lines hold one topic, or
    none. Lines are read from the last one back, until the topic changes.

        >>> held = b"q1 Q0 d1 1 0.5 r\\nq1 Q0 d2 1 0."
        >>> _topic_start(held, bytearray(b"4 r\\nq2 Q0 d1 1 0.9 r\\nq2")), _topic_start(held, bytearray(b"4 r\\n"))
        (34, 0)
    """
    end = piece.rfind(b"\n") + 1
    if not end:
        return 0
    first = piece.find(b"\n") + 1  # the piece's first line began in carry
    topic, at = None, end
    while at > first:  # the piece's own whole lines
        start = piece.rfind(b"\n", first, at - 1) + 1 or first
        mine = _topic(bytes(memoryview(piece)[start:at]))
        if topic is None:
            topic = mine
        elif mine is not None and mine != topic:
            return len(carry) + at
        at = start
    held = carry.rfind(b"\n") + 1
    mine = _topic(carry[held:] + memoryview(piece)[:first])  # the line across the two
    if topic is None:
        topic = mine
    elif mine is not None and mine != topic:
        return len(carry) + first
    at = held
    while topic is not None and at > 0:  # carry's whole lines hold one topic: their last data line's
        start = carry.rfind(b"\n", 0, at - 1) + 1
        mine = _topic(carry[start:at])
        if mine is not None:
            return held if mine != topic else 0
        at = start
    return 0


def _grouped_blocks(path: str | PathLike, block_bytes: int,
                    advance: Callable[[int], object]) -> Generator[tuple[bytes, int], None, None]:
    """The run's bytes in blocks of whole topics (a topic running over a block's end is carried to the next), held
    in memory, with the run file's line number of each block's first line; an empty file as one empty block (its
    reader says so). Read a block at a time, each byte copied once: blocks written to files and mapped back cost a
    3 GB run 2.9M page faults and 8.4 CPU-s on the reading thread (now 0.74M and 3.4)."""
    line = 1
    for block in _line_chunks(path, block_bytes, advance, _topic_start):
        yield block, line
        line += block.count(b"\n")
    if line == 1:
        yield b"", line


Item = TypeVar("Item")


def _ahead(items: Iterator[Item]) -> Generator[tuple[Item, bool], None, None]:
    """Each item and whether it is the last, the one after the next read on a thread while the caller works on
    this one (reading, cutting and writing a block lets go of the interpreter for most of its time)."""
    with ThreadPoolExecutor(1) as pool:
        current = next(items, None)
        coming = pool.submit(next, items, None)
        while current is not None:
            following = coming.result()
            if following is not None:
                coming = pool.submit(next, items, None)
            yield current, following is None
            current = following


def _mapped_ahead(function: Callable[[Item], Result], items: Iterator[Item]) -> Generator[tuple[Item, Result], None,
                                                                                          None]:
    """Each item with ``function(item)``, in order, the items taken on the caller's thread and the function computed
    for the next :func:`~workbench.threads.threads` of them on as many threads while the caller works on this one
    (a run's pieces bucketed on two threads while the one before is written: 285 MB partitioned in 0.9–1.3 → 0.7
    s, with :func:`_bucketed`'s shortcut 0.43–0.52 s)."""
    with ThreadPoolExecutor(threads()) as pool:
        coming: collections.deque = collections.deque()
        for item in itertools.islice(items, threads()):
            coming.append((item, pool.submit(function, item)))
        while coming:
            item, future = coming.popleft()
            result = future.result()
            following = next(items, None)
            if following is not None:
                coming.append((following, pool.submit(function, following)))
            yield item, result
            del item, result, future


SAMPLES = 4096
"""Lines read across a plain run file, before the grouped pass, for a proof that it is not grouped by topic."""


LONG_LINE = 1 << 16
"""Longer lines than this are not expected in a run file (if there are, :func:`_scattered` may partition a run
the grouped pass would have read: the same result, more work)."""


def _scattered(path: str | PathLike, size: int, block_bytes: int) -> tuple[bytes, int] | None:
    """A topic seen, in :data:`SAMPLES` lines read at even steps across the plain file ``path``, before and after
    another topic farther from its return than ``block_bytes`` and a :data:`LONG_LINE` (a grouped pass's block is
    one topic's lines and then at most that: no block could hold all three, and the pass would find the topic
    again after scoring up to there), and the byte where it comes again; None when the samples prove nothing (the
    grouped pass finds any topic that comes back). Only work is saved: both passes give the same."""
    count = min(SAMPLES, size // 16)
    if count < 3 or size <= block_bytes + LONG_LINE:
        return None
    reach = block_bytes + LONG_LINE
    last: dict[bytes, int] = {}
    offsets: list[int] = []
    with open(path, "rb") as file:
        if file.read(2) == GZIP_MAGIC:
            return None
        for step in range(1, count):
            at = size * step // count
            data = os.pread(file.fileno(), 1024, at - 1)
            begin = data.find(b"\n") + 1
            end = data.find(b"\n", begin)
            topic = _topic(data[begin:end]) if begin and end > 0 else None
            if topic is None:
                continue
            where = at - 1 + begin
            before = last.get(topic)
            if before is not None and before + 1 < len(offsets) and where - offsets[before + 1] > reach:
                return topic, where
            last[topic] = len(offsets)
            offsets.append(where)
    return None


# ----------------------------------------------------------------------------------------------- buckets
_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)  # a word's first k bytes


def _words(buffer: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The 8 bytes from each of ``starts`` (ascending) as a little-endian word, zeros past the buffer's end.

        >>> words = _words(np.frombuffer(b"q1 Q0 d1\\nq2", dtype=np.uint8), np.array([0, 9]))
        >>> [word.to_bytes(8, "little").rstrip(b"\\0") for word in words.tolist()]
        [b'q1 Q0 d1', b'q2']
    """
    words = np.zeros(starts.size, dtype="<u8")
    fit = int(np.searchsorted(starts, buffer.size - 8, side="right"))
    if fit:
        at = np.ndarray((buffer.size - 7,), dtype="<u8", buffer=buffer, strides=(1,))  # a word at every byte
        words[:fit] = at[starts[:fit]]
    for row, start in enumerate(starts[fit:].tolist(), fit):
        words[row] = int.from_bytes(buffer[start:start + 8].tobytes(), "little")
    return words


def _windows(buffer: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The :data:`KEY_BYTES` (16) bytes from each of ``starts`` (ascending; zeros past the buffer's end), a row each:
    two of :func:`_words`.

        >>> windows = _windows(np.frombuffer(b"q1 Q0 d1\\nq2 Q0", dtype=np.uint8), np.array([0, 9]))
        >>> windows[0].tobytes(), windows[1].tobytes().rstrip(b"\\0")
        (b'q1 Q0 d1\\nq2 Q0\\x00\\x00', b'q2 Q0')
    """
    words = np.empty((starts.size, 2), dtype="<u8")
    words[:, 0] = _words(buffer, starts)
    words[:, 1] = _words(buffer, starts + 8)
    return words.view(np.uint8)


def _key_hashes(windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A hash of each row's first field (its bytes up to C's whitespace or a NUL, :data:`KEY_BYTES` at most: the
    two little-endian words, cut to it, mixed), and the field's width there."""
    widths = _first_marked(((windows - np.uint8(9)) < 5) | (windows == 32) | (windows == 0))
    words = windows.view("<u8")
    low = words[:, 0] & _MASKS[np.minimum(widths, 8)]
    high = words[:, 1] & _MASKS[np.clip(widths - 8, 0, 8)]
    mixed = (low * _HASH) ^ ((high ^ (high >> np.uint64(29))) * np.uint64(0x9E3779B97F4A7C15))
    return mixed ^ (mixed >> np.uint64(31)), widths


def _first_marked(marks: np.ndarray) -> np.ndarray:
    """Each row's first True among its :data:`KEY_BYTES` (16) booleans, KEY_BYTES where none: the row read as two
    little-endian words, the lowest set bit isolated (``w & -w``) and its exponent read by ``frexp`` (exact: a power
    of two), rather than numpy's ``argmax`` along a short axis (40,000 rows: 1.0 → 0.3 ms).

        >>> _first_marked(np.array([[False] * 16, [False] * 9 + [True] * 7, [True] * 16])).tolist()
        [16, 9, 0]
    """
    words = marks.view("<u8")
    low, high = words[:, 0], words[:, 1]
    word = np.where(low != 0, low, high)
    lowest = word & (~word + np.uint64(1))
    byte = (np.frexp(lowest.astype(np.float64))[1] - 1) // 8 + np.where(low != 0, 0, 8)
    return np.where(word == 0, KEY_BYTES, byte)


def _key_hash(topic: bytes) -> np.uint64:
    """:func:`_key_hashes` of one topic."""
    return _key_hashes(_windows(np.frombuffer(topic[:KEY_BYTES] + b" ", dtype=np.uint8), np.zeros(1, np.int64)))[0][0]


_ONES, _HIGHS = np.uint64(0x0101010101010101), np.uint64(0x8080808080808080)


def _holds(words: np.ndarray, byte: int) -> np.ndarray:
    """Whether each word holds ``byte`` (a zero byte of ``word ^ byte…``, found by the usual bit trick)."""
    spread = words ^ np.uint64(byte * 0x0101010101010101)
    return ((spread - _ONES) & ~spread & _HIGHS) != 0


def _bucketed(chunk: bytes, buckets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each line's start and end in ``chunk`` and its bucket (-1: a blank or ``#`` line, left out). A line whose
    first 8 bytes are its predecessor's, begin with no whitespace and hold a space or a tab has its predecessor's
    topic (it ends inside them) and bucket; the others' topics are hashed (a run's lines of one topic come
    together: 1 MB of lines bucketed in 3.4 → 0.95 ms)."""
    buffer = np.frombuffer(chunk, dtype=np.uint8)
    ends = np.flatnonzero(buffer == 10) + 1
    if not chunk.endswith(b"\n"):
        ends = np.append(ends, buffer.size)
    starts = np.concatenate(([0], ends[:-1]))
    first = _words(buffer, starts)
    lead = (first & np.uint64(0xFF)).astype(np.uint8)
    same = np.zeros(starts.size, dtype=bool)
    np.equal(first[1:], first[:-1], out=same[1:])
    same &= (_holds(first, 32) | _holds(first, 9)) & (lead != 32) & ((lead - np.uint8(9)) >= 5) & (lead != 0)
    heads = np.flatnonzero(~same)
    windows = _windows(buffer, starts[heads])
    hashes, widths = _key_hashes(windows)
    which = (hashes % np.uint64(buckets)).astype(np.int64)
    which[windows[:, 0] == ord("#")] = -1
    for i in np.flatnonzero(widths == 0).tolist():  # indented or blank: the topic is further on, or none
        topic = _topic(chunk[starts[heads[i]]:ends[heads[i]]])
        which[i] = -1 if topic is None else int(_key_hash(topic) % np.uint64(buckets))
    return starts, ends, which[np.cumsum(~same) - 1]


def _partition(path: str | PathLike, folder: Path, block_bytes: int, size: int, advance: Callable[[int], object],
               locate: int = -1) -> tuple[list[tuple[Path, LineMap]], int, int]:
    """The run's data lines copied into bucket files by their topic's hash, each with its line map, the bytes
    written and the line at byte ``locate`` (0 if none). The file is read in pieces of :data:`PIECE_BYTES`, the
    next pieces' buckets found on :func:`~workbench.threads.threads` threads while one is written
    (:func:`_mapped_ahead`)."""
    count = max(2, -(-5 * size // (4 * block_bytes)))
    paths = [folder / f"bucket{i}" for i in range(count)]
    maps: list[tuple[list[int], list[int]]] = [([], []) for _ in range(count)]
    lines_in = [0] * count
    written = located_line = 0
    files = [p.open("wb") for p in paths]
    try:
        line = 1
        at = 0
        chunks = _line_chunks(path, min(block_bytes, PIECE_BYTES), advance)
        with closing(_mapped_ahead(lambda chunk: _bucketed(chunk, count), chunks)) as walk:
            for chunk, (starts, ends, which) in walk:
                if at <= locate < at + len(chunk):
                    located_line = line + chunk.count(b"\n", 0, locate - at)
                at += len(chunk)
                view = memoryview(chunk)
                cuts = np.flatnonzero(which[1:] != which[:-1]) + 1
                for a, b in zip(np.concatenate(([0], cuts)).tolist(),
                                np.concatenate((cuts, [which.size])).tolist(), strict=True):
                    bucket = int(which[a])
                    if bucket < 0:
                        continue
                    piece = view[starts[a]:ends[b - 1]]  # no copy
                    files[bucket].write(piece)
                    if piece[-1:] != b"\n":
                        files[bucket].write(b"\n")
                    written += len(piece)
                    maps[bucket][0].append(lines_in[bucket] + 1)
                    maps[bucket][1].append(line + a)
                    lines_in[bucket] += b - a
                line += int(which.size)
    finally:
        for file in files:
            file.close()
    return [(p, LineMap(*m)) for p, m, n in zip(paths, maps, lines_in, strict=True) if n], written, located_line


# ------------------------------------------------------------------------------------------- the driver
_LINES = re.compile(r"\b(lines? )(\d+(?:, \d+)*)")


def _relocated(text: str, block: Path, path: str, numbers: LineMap) -> str:
    """``text`` naming the run file and its lines where it named the block's."""
    text = text.replace(str(block), path)
    return _LINES.sub(lambda m: m.group(1) + ", ".join(str(numbers(int(n))) for n in m.group(2).split(", ")), text)


def _read_block(read: Callable[[Block], tuple[Iterable[str], Result]], block: Block, path: str,
                notes: dict[str, type[Warning]]) -> tuple[list[str], Result]:
    """``read(block)`` with its errors and notes naming the run file and its lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            topics, result = read(block)
        except WorkbenchError as error:
            if isinstance(error, InputError):
                if str(error.path) == str(block.path):
                    error.path = path
                    error.line = None if error.line is None else block.numbers(error.line)
                error.message = _relocated(error.message, block.path, path, block.numbers)
                error.args = (located(error.message, path=error.path, line=error.line, column=error.column,
                                      text=error.text, where=error.where),)
            elif len(error.args) == 1 and isinstance(error.args[0], str):
                error.args = (_relocated(error.args[0], block.path, path, block.numbers),)
            raise
    for said in caught:
        notes.setdefault(_relocated(str(said.message), block.path, path, block.numbers), said.category)
    return list(topics), result


def _again(block: Block, topic: str) -> int:
    """The file's line where ``topic`` (seen in an earlier block) comes again in ``block``."""
    spellings = {topic.encode(codec, "replace") for codec in ("utf-8", "latin-1")}  # as the readers decode ids
    with io.BytesIO(block.read_bytes()) as file:
        for number, line in enumerate(file, 1):
            if _topic(line) in spellings:
                return block.numbers(number)
    return block.numbers(1)


def _size(path: str | PathLike) -> int:
    """The run's bytes as read (gzip data counted five times its size)."""
    size = os.path.getsize(path)
    with open(path, "rb") as file:
        return size * 5 if file.read(2) == GZIP_MAGIC else size


@validate(path=FilePath(), read=Function(), block_bytes=BLOCK_SIZES, progress=Flag())
def stream_run(path: str | PathLike, read: Callable[[Block], tuple[Iterable[str], Result]], *,
               block_bytes: int = BLOCK_BYTES, progress: bool = True) -> Streamed[Result]:
    """``read(block)`` for each :class:`Block` of whole topics of the run file ``path`` (plain or gzip), which
    gives the block's topics and its result; the results in order (:class:`Streamed`). A topic found in two
    blocks (a run not grouped by topic) starts the work again on the file partitioned to disk, with a
    :class:`StreamWarning` (the module docstring). ``read``'s errors and notes name ``path`` and its lines.
    ``progress``: a bar over the bytes read (:func:`~workbench.progress.byte_progress`)."""
    name = str(file_path(path))
    if name == STDIN:
        raise CampaignFileError("a streamed run is read from a file (standard input is read whole)", path=name)
    try:
        size, stored = _size(path), os.path.getsize(path)
    except OSError as error:
        raise TrecFormatError(f"cannot read the file ({error.strerror or error})", path=name) from None
    notes: dict[str, type[Warning]] = {}
    with tempfile.TemporaryDirectory(prefix="workbench-stream-") as folder:
        seen: set[str] = set()
        results: list[Result] = []
        again = None
        sampled = _scattered(path, size, block_bytes) if size == stored else None  # then no block is scored
        if sampled is None:
            with byte_progress(stored, desc=f"{Path(name).name}: scoring", shown=progress) as advance:
                blocks = _grouped_blocks(path, block_bytes, advance)
                with closing(blocks), closing(_ahead(blocks)) as walk:  # the thread done before the folder goes
                    for number, ((data, first), last) in enumerate(walk, 1):
                        unit = Block(Path(folder) / f"block{number}", LineMap([1], [first]), seen, last, data)
                        del data
                        topics, result = _read_block(read, unit, name, notes)
                        repeated = seen.intersection(topics)
                        if repeated:
                            again = (min(repeated), _again(unit, min(repeated)))
                            break
                        seen.update(topics)
                        results.append(result)
                        del unit
        if again is None and sampled is None:
            return Streamed(results, notes=list(notes.items()))
        notes.clear()
        with byte_progress(stored, desc=f"{Path(name).name}: partitioning", shown=progress) as advance:
            buckets, written, line = _partition(path, Path(folder), block_bytes, size, advance,
                                                -1 if sampled is None else sampled[1])
        if sampled is not None:
            again = (sampled[0].decode("utf-8", "replace"), line)
        assert again is not None
        warn(f"{name}: not grouped by topic (topic {again[0]!r} comes again on line {again[1]}, after "
             f"other topics): partitioned to disk first, about {size:,} bytes in {folder}", StreamWarning)
        results, seen = [], set()
        with byte_progress(written, desc=f"{Path(name).name}: scoring", shown=progress) as advance:
            for i, (bucket, numbers) in enumerate(buckets):
                topics, result = _read_block(read, Block(bucket, numbers, seen, i == len(buckets) - 1), name,
                                             notes)
                seen.update(topics)
                results.append(result)
                advance(bucket.stat().st_size)
                bucket.unlink()
        return Streamed(results, True, written, list(notes.items()))


@validate(path=FilePath(), available=Interval(0, integer=True, optional=True))
def should_stream(path: str | PathLike, available: int | None = None) -> bool:
    """Whether to stream the run file ``path``: when the in-memory path would take more than half the memory
    ``available`` (default: what the system says is available, ``MemAvailable``), at about
    :data:`MEMORY_FACTOR` times the file's bytes. Standard input is read whole."""
    if str(file_path(path)) == STDIN or not os.path.isfile(path):
        return False
    if available is None:
        available = _available_memory()
    return _size(path) * MEMORY_FACTOR > available // 2


def _available_memory() -> int:
    try:
        with open("/proc/meminfo", encoding="ascii") as file:
            for line in file:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


# ------------------------------------------------------------------------------------ a campaign's scores
@dataclass
class _BlockScores:
    """A block's rows (system, topic, measure, value), each system's first line (run file, line), its topics and
    an empty run of its kind (to score the topics it lacks on)."""

    rows: list[tuple[str, str, str, float]]
    firsts: dict[str, tuple[int, int]]
    topics: dict[str, list[str]]
    empty: dict[str, RankedRun]
    first_lines: dict[str, int]


def _scored_block(block: Block, gold: Judgements, names: list[str], encoding: str, max_docs: int | None,
                  score_precision: str) -> tuple[list[str], _BlockScores]:
    """A block's runs read, ranked and scored as a campaign scores them (topics the gold lacks left out)."""
    lines = block.lines(encoding)
    runs = rank_runs(lines.systems, lines.topics, lines.documents, lines.values, score_precision=score_precision,
                     max_docs=max_docs, locate=lines.located)
    assert lines.systems is not None  # a run's lines are read with their systems
    firsts = {system: (0, block.numbers(int(lines.numbers[i])))
              for system, i in zip(lines.systems.names, lines.systems.firsts().tolist(), strict=True)}
    topics = list(lines.topics.names)
    first_lines = {topic: block.numbers(int(lines.numbers[i]))
                   for topic, i in zip(topics, lines.topics.firsts().tolist(), strict=True)}
    del lines
    judged = {t for t in topics if t in gold}
    rows: list[tuple[str, str, str, float]] = []
    if judged:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingTopicsWarning)
            rows = Campaign(gold.restricted(judged), runs)._score(names, "skip", "ignore", progress=False).rows
    return topics, _BlockScores(rows, firsts, {s: list(run) for s, run in runs.items()},
                                {s: run.restricted(()) for s, run in runs.items()}, first_lines)


_STREAMED = {"gold": FilePath(), "runs": ListOf(FilePath(), what="a list of file names"), "measures": MEASURES,
             "missing_topics": MISSING_TOPICS, "extra_topics": EXTRA_TOPICS, "progress": Flag(),
             "encoding": ENCODING, "gold_encoding": ENCODING, "max_docs": MAX_DOCS,
             "score_precision": SCORE_PRECISION, "block_bytes": BLOCK_SIZES}
"""The parameters of :func:`stream_scores` and :func:`evaluate_files`, declared once."""


@validate(**_STREAMED)
def stream_scores(gold: str | PathLike, runs: Sequence[str | PathLike], measures: Any, *,
                  missing_topics: str = "zero", extra_topics: str = "error", progress: bool = True,
                  encoding: str = "utf-8", gold_encoding: str = "utf-8", max_docs: int | None = None,
                  score_precision: str = "float64", block_bytes: int = BLOCK_BYTES) -> Scores:
    """:func:`evaluate_files`'s scores as plain columns (:class:`~workbench.data.campaign.Scores`): what the command
    line prints from."""
    names = measure_names(measures)
    truth = read_gold(gold, "trec", encoding=gold_encoding)
    if not isinstance(truth, Judgements):  # subtopic qrels are Judgements too; anything else is not streamed
        raise CampaignFileError("a streamed campaign reads TREC qrels", path=str(gold))
    blocks: list[_BlockScores] = []
    notes: dict[str, type[Warning]] = {}
    for number, path in enumerate(runs):
        streamed = stream_run(path, lambda block: _scored_block(block, truth, names, encoding, max_docs,
                                                                score_precision),
                              block_bytes=block_bytes, progress=progress)
        notes.update(dict(streamed.notes))
        earlier = {system for part in blocks for system in part.firsts}
        for part in streamed.results:
            repeated = earlier.intersection(part.firsts)
            if repeated:
                raise CampaignFileError(f"system {min(repeated)!r} is already in an earlier run file",
                                        path=str(path))
            part.firsts = {system: (number, line) for system, (_, line) in part.firsts.items()}
        blocks.extend(streamed.results)
    for message, category in notes.items():
        warn(message, category)
    return _assembled(truth, names, blocks, missing_topics, extra_topics)


def _assembled(truth: Judgements, names: list[str], blocks: list[_BlockScores], missing_topics: str,
               extra_topics: str) -> Scores:
    """The blocks' rows in the in-memory order (systems by their first line, then the gold's topics), the topics
    runs lack scored as :meth:`Campaign.evaluate` scores them, its attributes and its notes."""
    order: dict[str, tuple[int, int]] = {}
    held: dict[str, list[str]] = {}
    empty: dict[str, RankedRun] = {}
    first_lines: dict[str, int] = {}
    scored: dict[tuple[str, str], list[tuple[str, str, str, float]]] = {}
    for part in blocks:
        for system, line in part.firsts.items():
            order[system] = min(line, order.get(system, line))
        for system, topics in part.topics.items():
            held.setdefault(system, []).extend(topics)
        first_lines.update(part.first_lines)
        for system, run in part.empty.items():
            empty.setdefault(system, run)
        for row in part.rows:
            scored.setdefault((row[0], row[1]), []).append(row)
    systems = sorted(order, key=lambda system: (order[system]))
    has = {system: set(held[system]) for system in systems}
    missing = {s: [t for t in truth if t not in has[s]] for s in systems}
    missing = {s: t for s, t in missing.items() if t}
    extra = {s: sorted((t for t in has[s] if t not in truth), key=first_lines.__getitem__) for s in systems}
    extra = {s: t for s, t in extra.items() if t}
    policy = TopicPolicy(missing_topics, extra_topics, missing, extra)
    policy.refuse()
    if missing and missing_topics == "zero":
        lacking = set().union(*missing.values())
        lacking_of = {s: set(t) for s, t in missing.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MissingTopicsWarning)
            placeholders = Campaign(truth.restricted(lacking), {s: empty[s] for s in systems})._score(
                names, "zero", "ignore", progress=False).rows
        for row in placeholders:
            if row[1] in lacking_of[row[0]]:
                scored.setdefault((row[0], row[1]), []).append(row)
    rows = [row for s in systems for t in truth if (s, t) in scored for row in scored[s, t]]
    policy.warn(policy.without_credit(names))
    return Scores.from_rows(rows, policy.attrs("nan"))


@validate(**_STREAMED)
def evaluate_files(gold: str | PathLike, runs: Sequence[str | PathLike], measures: Any, *,
                   missing_topics: str = "zero", extra_topics: str = "error", progress: bool = True,
                   encoding: str = "utf-8", gold_encoding: str = "utf-8", max_docs: int | None = None,
                   score_precision: str = "float64", block_bytes: int = BLOCK_BYTES) -> pd.DataFrame:
    """``read_campaign(gold, runs).evaluate(measures, ...)`` for TREC run files larger than memory, equal to it to
    the bit (same rows in the same order, same ``attrs``; the reading notes said per block), without holding the
    runs: each run is scored a block of whole topics at a time (:func:`stream_run`; qrels are read whole). A
    ``Campaign`` holds its runs (to explain them, fuse them, hand them to an executor); this door holds one block
    of one run at a time and keeps the scores only. ``block_bytes`` as :func:`stream_run`; the other parameters as
    :meth:`Campaign.evaluate` and :func:`~workbench.data.read.read_campaign`."""
    return stream_scores(gold, runs, measures, missing_topics=missing_topics, extra_topics=extra_topics,
                         progress=progress, encoding=encoding, gold_encoding=gold_encoding, max_docs=max_docs,
                         score_precision=score_precision, block_bytes=block_bytes).frame()
