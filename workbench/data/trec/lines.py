"""A TREC qrels or run file read into columns, the one way every entry point reads one (the readers, campaigns,
``eval``, ``compare`` and the ``trec_eval`` drop-in).

:func:`read_lines` takes the file's bytes (gzip-compressed or not, ``-`` for standard input), cuts them as
trec_eval 10.0 cuts them (:mod:`~workbench.data.trec.arrow` for plain files, else
:mod:`~workbench.data.trec.scan`) and reads numbers as it reads them (:mod:`~workbench.reading.numbers`: grades
by ``atol``, scores by ``atof``). What it reads otherwise than the text says — a score ``1_000`` as 1, a grade
``2.5`` as 2, a non-breaking space kept inside an id, bytes the encoding cannot decode — it reads as trec_eval
does and says in one :class:`~workbench.data.trec.errors.TrecReadingWarning` per kind of value, naming the file,
the first lines and each reading. What trec_eval refuses raises :class:`~workbench.data.trec.errors.TrecFormatError`
with the file, line and text.

    >>> import pathlib, tempfile, warnings
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = path.write_bytes(b"q1 Q0 d1 1 1_000 sys\\nq1 Q0 d2 2 0x10 sys\\n")
    >>> with warnings.catch_warnings(record=True) as notes:
    ...     warnings.simplefilter("always")
    ...     lines = read_lines(path, "run")
    >>> lines.values.tolist(), lines.topics.names, lines.systems.names
    ([1.0, 16.0], ('q1',), ('sys',))
    >>> print(str(notes[0].message).split(": ", 2)[2])
    line 1 '1_000' as 1.0; line 2 '0x10' as 16.0
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from workbench.data.trec.arrow import read_plain
from workbench.data.trec.errors import (
    DuplicateEntryError,
    TrecDuplicateError,
    TrecEncodingError,
    TrecFormatError,
    TrecReadingWarning,
)
from workbench.data.trec.scan import FIELDS, bom_note, check_counts, run_on_note, split_fields
from workbench.errors import warn
from workbench.heap import release_freed
from workbench.ids import DocumentIds
from workbench.reading.numbers import read_numbers, reading_note
from workbench.reading.positions import LineIndex
from workbench.reading.sources import STDIN, STDIN_NAME, FileBytes, read_buffer
from workbench.threads import in_threads
from workbench.validation import ENCODING, Choices, FilePath, Flag, Instance, Interval, ListOf, check, validate

__all__ = ["KINDS", "LineNumbers", "Labels", "TrecLines", "read_lines", "lines_at_once"]

KINDS = Choices(tuple(FIELDS))
"""The TREC files :func:`read_lines` reads (``kind=``): ``qrels`` and ``run``."""
OTHER_FIELDS = {"qrels": ListOf(Choices(("iteration",)), optional=True, what="a list of fields"),
                "run": ListOf(Choices(("iteration", "rank")), optional=True, what="a list of fields")}
"""The fields trec_eval ignores that :func:`read_lines` reads as text when asked (``wanted=``), by kind."""

# What Python's str.split() cuts at but C's isspace does not: kept inside fields (UTF-8 and 8-bit spellings)
_OTHER_SPACES = {"utf-8": re.compile(rb"[\x1c-\x1f]|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]"
                                     rb"|\xe2\x81\x9f|\xe3\x80\x80"),
                 "8-bit": re.compile(rb"[\x1c-\x1f\x85\xa0]")}


class LineNumbers(Sequence[int]):
    """The line numbers 1..n of a file whose every line is a data line: indexed as the array of them, without
    holding it (``numbers[i]`` is ``i + 1``, ``numbers[-1]`` is ``n``; past either end, IndexError)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    # indexed as the array it stands for: a number for an index, an array for a slice or positions (Any: the
    # signature Sequence[int] declares has no array, and an np.int64 is no int)
    def __getitem__(self, index: SupportsIndex | slice | np.ndarray) -> Any:
        positions = np.asarray(index)
        if isinstance(index, slice) or positions.dtype == bool:
            return np.arange(1, self.size + 1)[index]
        if positions.dtype.kind not in "iu" or ((positions < -self.size) | (positions >= self.size)).any():
            raise IndexError(f"index {index!r} is out of range for {self.size} lines")  # what ends an iteration
        return np.where(positions < 0, positions + self.size, positions) + 1

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        return np.arange(1, self.size + 1, dtype=dtype)

    def tolist(self) -> list[int]:
        return list(range(1, self.size + 1))


@dataclass(frozen=True)
class Labels:
    """One label per line as codes (int32 or int64: widen them before arithmetic) into its distinct values
    (``names``, in order of first appearance), and the names of those given as integers (``integers``: ids are
    strings, or integers read as their text), so that a door that reads several inputs refuses one id given as
    ``1`` in one and ``"1"`` in another (:func:`~workbench.data.trec.ranked.check_given_ids`)."""

    codes: np.ndarray
    names: tuple[str, ...]
    integers: frozenset[str] = frozenset()

    def firsts(self) -> np.ndarray:
        """Each name's first line (an index into ``codes``), names in order: where a code passes every code before
        it, since codes number the names in order of first appearance (``np.unique(codes, return_index=True)``'s
        indices without its sort: 1.7M lines, 28 → 10 ms).

        >>> Labels(np.array([0, 1, 0, 2, 1]), ("a", "b", "c")).firsts().tolist()
        [0, 1, 3]
        """
        if len(self.names) < 2:
            return np.zeros(min(len(self.names), self.codes.size), dtype=np.int64)
        new = np.empty(self.codes.size, dtype=bool)
        new[0] = True
        np.greater(self.codes[1:], np.maximum.accumulate(self.codes)[:-1], out=new[1:])
        return np.flatnonzero(new)


@dataclass(frozen=True)
class TrecLines:
    """The data lines of a qrels or run file as columns, in file order: ``topics``, ``documents``
    (:class:`~workbench.ids.DocumentIds`, decoded in the file's encoding when strings are asked for), ``values``
    (qrels grades as int64, run scores as float64, both as trec_eval reads them), ``systems`` (a run's tags;
    None for qrels, or when only ``runid`` was asked for), each line's 1-based number, the other fields asked
    for (``iteration``, ``rank``: bytes), the codec the names were decoded with, and ``runid``, a run's last
    tag (what trec_eval prints as ``runid``)."""

    path: str
    kind: str
    topics: Labels
    documents: DocumentIds
    values: np.ndarray
    systems: Labels | None
    numbers: np.ndarray | LineNumbers
    other: Mapping[str, np.ndarray] = field(default_factory=dict)
    codec: str = "utf-8"
    raw: FileBytes = field(default=b"", repr=False)
    runid: str | None = None

    @validate(error=Instance((DuplicateEntryError,), "a DuplicateEntryError"))
    def located(self, error: DuplicateEntryError) -> TrecDuplicateError:
        """A :class:`~workbench.data.trec.errors.DuplicateEntryError` (entry positions) as the error naming both
        lines of this file."""
        owner = f" of system {error.system!r}" if error.system else ""
        return TrecDuplicateError(f"document {error.document!r} of topic {error.topic!r}{owner} is already on "
                                  f"line {self.numbers[error.first]} (trec_eval: duplicate docs)", path=self.path,
                                  line=int(self.numbers[error.again]), text=self.text(error.again))

    @validate(row=Interval(0, integer=True))
    def text(self, row: int) -> str:
        """Data line ``row`` (0-based, among the data lines) as it is in the file (for messages)."""
        check(row, Interval(0, len(self.numbers) - 1, integer=True), "row", "TrecLines.text")
        return _line_text(self.raw, int(self.numbers[row]))


def _line_text(raw: FileBytes, number: int) -> str:
    """Line ``number`` (1-based) of the bytes, as a message shows it."""
    return LineIndex(memoryview(raw)).line(number)


def _ascii_compatible(codec: str) -> bool:
    probe = "\t\n\r #+-.0123456789eExXazAZ_"
    try:
        return probe.encode(codec) == probe.encode("ascii")
    except (UnicodeError, LookupError):
        return False


def _line_of(raw: FileBytes, offset: int) -> int:
    return LineIndex(memoryview(raw)[:offset + 1]).locate(offset)[0]


def _is_ascii(raw: FileBytes) -> bool:
    """Whether no byte has its high bit set (a buffer read eight bytes at a time, its high bits or-ed together)."""
    if isinstance(raw, bytes):
        return raw.isascii()
    buffer = np.frombuffer(raw, dtype=np.uint8)
    whole = buffer.size // 8 * 8
    high = int(np.bitwise_or.reduce(buffer[:whole].view(np.uint64))) if whole else 0
    return not (high & 0x8080808080808080 or (buffer[whole:] >= 128).any())


def _recoded(raw: FileBytes, codec: str, path: str) -> tuple[FileBytes, str, bool | None]:
    """The bytes to cut (UTF-8 where the encoding is not ASCII-compatible; a byte-order mark dropped where
    ``utf-8-sig`` asks for it), the codec to decode ids with, and whether the bytes are all ASCII where the
    re-encoding found it (else None: :func:`_decoding_notes` finds it when needed)."""
    if codec == "utf-8-sig":  # asked for: a byte-order mark is dropped
        raw, codec = (raw[3:] if raw[:3] == codecs.BOM_UTF8 else raw), "utf-8"
    if not _ascii_compatible(codec):  # UTF-16, UTF-32...: read as text, cut as UTF-8
        try:
            text = bytes(raw).decode(codec)
        except UnicodeDecodeError as error:
            shown_line = bytes(raw)[:error.start].decode(codec, errors="replace").count("\n") + 1
            raise TrecEncodingError(f"not valid {codec} at byte {error.start} (give encoding=...)", path=path,
                                    line=shown_line) from None
        return text.encode("utf-8", errors="surrogatepass"), "utf-8", text.isascii()
    return raw, codec, None


def _decoding_notes(raw: FileBytes, codec: str) -> tuple[list[str], bool]:
    """Notes on the bytes of an ASCII-compatible encoding (a byte-order mark, what cannot be decoded) and whether
    they are all ASCII (:func:`_is_ascii`, one pass over them that :func:`_spaces_note` reuses)."""
    notes: list[str] = []
    note = bom_note(raw, codec)
    if note:
        notes.append(note + (" (encoding='utf-8-sig' drops it)" if codec == "utf-8" else ""))
    plain = _is_ascii(raw)
    if not plain:
        try:
            bytes(raw).decode(codec)
        except UnicodeDecodeError as error:
            notes.append(f"not valid {codec} from line {_line_of(raw, error.start)} (byte {error.start}): ids "
                         "keep the bytes as they are, shown as escapes (give encoding=..., on the command "
                         "line --encoding latin-1)")
    return notes, plain


def _scanned(raw: FileBytes, kind: str, wanted: tuple[str, ...], path: str, encoding: str
             ) -> tuple[dict, np.ndarray, str | None]:
    """The columns of a file the scanner cuts: ids and values read in place from the file's bytes (memory as the
    fields' bytes), topics and tags dictionary-encoded, other fields as short byte columns; and a note on a run
    whose lines ran on (CR-only line endings read as trec_eval reads them)."""
    fields = split_fields(raw)
    if not fields.numbers.size:
        raise TrecFormatError("the file holds no data lines", path=path)
    check_counts(fields, kind, path)
    columns: dict = {}
    for name in wanted:
        index = FIELDS[kind].index(name)
        if name in ("document", "grade", "score"):
            columns[name] = fields.ids(index, encoding)
        elif name in ("topic", "system"):
            columns[name] = fields.ids(index).labels()
        else:
            columns[name] = fields.column(index, path)
    return columns, fields.numbers, run_on_note(fields, 6 if kind == "run" else None)


def _spaces_note(raw: FileBytes, plain: bool) -> str | None:
    """Where fields hold what Python's ``str.split`` would cut at (UTF-8 spaces where the bytes are UTF-8, else
    Latin-1's), whatever the encoding the ids are decoded with, so that every entry point says the same
    (``plain``: whether the bytes are all ASCII, as :func:`_recoded` or :func:`_decoding_notes` found)."""
    if plain and all(raw.find(byte) < 0 for byte in (b"\x1c", b"\x1d", b"\x1e", b"\x1f")):
        return None
    try:
        bytes(raw).decode("utf-8")
        pattern = _OTHER_SPACES["utf-8"]
    except UnicodeDecodeError:
        pattern = _OTHER_SPACES["8-bit"]
    found = [match.start() for _, match in zip(range(4), pattern.finditer(raw), strict=False)]
    if not found:
        return None
    lines = sorted({_line_of(raw, offset) for offset in found[:3]})
    return (f"a field holds a space character that trec_eval does not split at (it splits at ASCII spaces, "
            f"tabs and line ends only), kept inside the field as trec_eval keeps it: line "
            f"{', '.join(map(str, lines))}{', …' if len(found) > 3 else ''}")


@validate(path=FilePath(), kind=KINDS, encoding=ENCODING, wanted=OTHER_FIELDS["run"], systems=Flag(),
          notes=Instance((list,), "a list the notes are added to", optional=True),
          data=Instance((bytes,), "the file's bytes (bytes)", optional=True))
def read_lines(path: str | PathLike, kind: str, encoding: str = "utf-8",
               wanted: tuple[str, ...] | None = None, systems: bool = True, *,
               notes: list[str] | None = None, data: bytes | None = None) -> TrecLines:
    """The data lines of a qrels (``kind="qrels"``) or run (``"run"``) file: see the module docstring.
    ``wanted`` adds fields trec_eval ignores (``iteration``, ``rank``) as text; ``encoding`` decodes ids,
    topics and systems (the fields are cut on bytes, as trec_eval cuts them). ``systems=False``: a run's tags
    are not read but the last (``runid``; every line still needs one), as trec_eval reads them. ``notes``: a
    list the notes on the file (``"path: note"``) are added to instead of being warned
    (:class:`~workbench.data.trec.errors.TrecReadingWarning`), for a caller that reads files on threads and
    warns their notes in its own order. ``data``: the file's bytes, already read (a block of a streamed run, held in
    memory), which ``path`` then names."""
    check(wanted, OTHER_FIELDS[kind], "wanted", "read_lines")
    name = STDIN_NAME if str(path) == STDIN else str(path)
    value = "grade" if kind == "qrels" else "score"
    wanted = ("topic", "document", value, *(("system",) if kind == "run" and systems else ()), *(wanted or ()))
    raw = read_buffer(path, TrecFormatError) if data is None else data
    if not len(raw):
        raise TrecFormatError("the file is empty", path=name)
    raw, codec, plain = _recoded(raw, codecs.lookup(encoding).name, name)
    columns = read_plain(raw, kind, wanted, codec)
    said: list[str] = []
    spaces = None
    if columns is None or not columns.pop("ASCII text"):  # else nothing to say: the pieces' threads checked
        if plain is None:
            said, plain = _decoding_notes(raw, codec)
        nul = raw.find(b"\0")
        if nul >= 0:
            raise TrecFormatError(f"a NUL byte at offset {nul}: not a TREC text file (trec_eval reads a line only "
                                  "up to it)", path=name, line=_line_of(raw, nul))
        spaces = _spaces_note(raw, plain)
    if columns is not None:
        numbers: np.ndarray | LineNumbers = LineNumbers(len(columns[value]))
    else:  # the scanner cuts every field anyway: a run's tags are read
        columns, numbers, run_on = _scanned(raw, kind, (*wanted, "system") if kind == "run" and not systems
                                            else wanted, name, codec)
        if run_on:
            said.append(run_on)
        tokens = columns[value]
        values, odd = read_numbers(tokens, "atol" if kind == "qrels" else "atof")
        columns[value] = values
        note = reading_note(("relevance grade is not a plain integer", "relevance grades are not plain integers")
                             if kind == "qrels" else ("score is not a plain decimal number",
                                                      "scores are not plain decimal numbers"),
                             "atol" if kind == "qrels" else "atof", tokens, values, odd, numbers)
        if note:
            said.append(note)
    if kind == "run":
        nan = np.isnan(columns[value])
        if nan.any():
            number = int(numbers[np.flatnonzero(nan)[0]])
            raise TrecFormatError("score is NaN (trec_eval's order of such documents is undefined)", path=name,
                                  line=number, text=_line_text(raw, number))
    if spaces:
        said.append(spaces)
    if notes is not None:
        notes += [f"{name}: {note}" for note in said]
    else:
        for note in said:
            warn(f"{name}: {note}", TrecReadingWarning)

    def labels(key: str) -> Labels:
        codes, names = columns[key]
        return Labels(codes, tuple(value.decode(codec, errors="backslashreplace") for value in names))

    other = {key: columns[key] for key in wanted if key in ("iteration", "rank")}
    tags = labels("system") if "system" in columns else None
    runid = None if kind == "qrels" else tags.names[tags.codes[-1]] if tags else \
        columns["last system"].decode(codec, errors="backslashreplace")
    release_freed(len(columns[value]))  # a large file's temporaries
    return TrecLines(name, kind, labels("topic"), columns["document"], columns[value],
                     tags if systems else None, numbers, other, codec, raw, runid)


@validate(files=ListOf(Instance((tuple,), "a tuple (path, kind, read_lines' keyword arguments)"),
                       what="a list of (path, kind, keywords) tuples"))
def lines_at_once(files: Sequence[tuple[str | PathLike, str, Mapping[str, Any]]]) -> list[Callable[[], TrecLines]]:
    """The files ``(path, kind, keywords)`` read by :func:`read_lines` at once, on
    :func:`~workbench.threads.threads` threads (Arrow and numpy let go of the interpreter while they read; each file's
    own pieces shared among them again, so that a large run does not parse on one core beside a small qrels); for each
    file, a function to call once that gives its lines, warning its notes
    (:class:`~workbench.data.trec.errors.TrecReadingWarning`) or raising the error that stopped its reading when it
    is called: the caller says and raises them in its own order, as reading the files one after the other would
    (trec_eval's: the qrels' first).

        >>> import pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
        >>> _ = path.write_text("q1 0 d1 1\\n")
        >>> [lines().values.tolist() for lines in lines_at_once([(path, "qrels", {}), (path, "qrels", {})])]
        [[1], [1]]
    """
    def read(file: tuple) -> tuple[TrecLines | Exception, list[str]]:
        path, kind, keywords = file
        notes: list[str] = []
        try:
            return read_lines(path, kind, **keywords, notes=notes), notes
        except Exception as error:  # raised when its lines are asked for
            return error, notes

    def given(read: tuple[TrecLines | Exception, list[str]]) -> Callable[[], TrecLines]:
        held = [read]  # given once, then let go: the caller frees the lines when it is done with them

        def lines() -> TrecLines:
            found, notes = held.pop()
            if isinstance(found, Exception):
                raise found
            for note in notes:
                warn(note, TrecReadingWarning)
            return found
        return lines

    return [given(each) for each in in_threads(read, files, nested=True)]
