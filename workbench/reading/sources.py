"""Where every reader's bytes come from: ``-`` is standard input, gzip-compressed data (any name) is read through,
and an unreadable file or broken gzip data becomes the reader's own named error (never an ``OSError`` or
``zlib.error``).
A path is a ``str`` or an ``os.PathLike`` (``bytes`` are decoded as the file system decodes them); anything else
— an integer, which ``open()`` would take as a file descriptor (``read_trec_qrels(1)`` would read, then close,
standard output), a bool, None — is refused by :func:`file_path` before anything is opened.

    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gold.tsv.gz"
    >>> _ = path.write_bytes(gzip.compress(b"entity_id"))
    >>> read_input(path, InputError), head(path)
    (b'entity_id', b'entity_id')
"""

from __future__ import annotations

import gzip
import io
import mmap
import os
import sys
import tempfile
import warnings
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import IO

from workbench.errors import InputError, ParameterTypeError, WorkbenchError, quoted
from workbench.validation import FilePath, check

__all__ = ["FileBytes", "GZIP_MAGIC", "STDIN", "STDIN_NAME", "StandardInputError", "file_path", "read_buffer", "CHUNK",
           "input_limit", "chunks", "read_input", "head", "with_stdin", "rename_copy"]

GZIP_MAGIC = b"\x1f\x8b"
# a file's content as the readers hold it: mapped (no copy), or read whole (gzip, standard input, re-encoded)
FileBytes = bytes | bytearray | mmap.mmap
STDIN = "-"
STDIN_NAME = "<stdin>"


class StandardInputError(InputError):
    """Standard input asked for twice, read from a terminal, or endless."""


def file_path(path: object, parameter: str = "path", function: str = "") -> str | PathLike:
    """``path`` if it names a file (:class:`~workbench.validation.FilePath`: a ``str`` or ``os.PathLike``;
    ``bytes`` decoded with :func:`os.fsdecode`), else :class:`~workbench.errors.ParameterTypeError` naming
    ``parameter`` (and ``function``) and what was given.

    >>> file_path("qrels.txt"), file_path(b"-")
    ('qrels.txt', '-')
    >>> file_path(1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterTypeError: path must be a file name ... (open() would take an integer as a file ...
    """
    check(path, FilePath(), parameter, function)
    return os.fsdecode(path) if isinstance(path, bytes) else path  # type: ignore[return-value]


def read_buffer(path: str | PathLike, error: type[InputError]) -> FileBytes:
    """The file's content: a plain file mapped into memory (no copy), gzip data decompressed, ``-`` read from
    standard input. Problems raise ``error(message, path=path)``; a path that is not one,
    :class:`~workbench.errors.ParameterTypeError` (:func:`file_path`)."""
    path = file_path(path)
    try:
        if str(path) == STDIN:
            if sys.stdin is None:
                raise error("there is no standard input to read '-' from", path=STDIN_NAME)
            data: FileBytes = _gather(chunks(sys.stdin.buffer, error, STDIN_NAME))
        else:
            with open(path, "rb") as file:
                try:
                    data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                except (ValueError, OSError):  # an empty file, a pipe or a device
                    data = _gather(chunks(file, error, path))
    except OSError as problem:
        raise error(f"cannot read the file ({problem.strerror or problem})", path=path) from None
    if data[:2] == GZIP_MAGIC:
        try:
            with gzip.GzipFile(fileobj=data if isinstance(data, mmap.mmap) else io.BytesIO(data)) as unzipped:
                data = _gather(chunks(unzipped, error, path))
        except (OSError, EOFError, zlib.error) as problem:
            raise error(f"broken gzip data ({problem})", path=path) from None
    return data


CHUNK = 1 << 20


def input_limit() -> int:
    """The most bytes a stream or gzip data may hold once read (a plain file is mapped, not read): a quarter of
    this machine's memory, so that an endless stream (``yes | …``) or a gzip bomb stops with an error while
    the readers still have room to work."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def _gather(pieces: Iterator[bytes]) -> bytearray:
    """The pieces in one buffer, grown in place (joining them at the end would need twice the memory)."""
    data = bytearray()
    for piece in pieces:
        data += piece
    return data


def chunks(stream: IO[bytes] | io.BufferedIOBase, error: type[InputError], path: str | PathLike) -> Iterator[bytes]:
    """The stream's bytes in pieces, stopped with ``error(message, path=path)`` when its first whole piece is
    nothing but NUL bytes (a device such as ``/dev/zero``) or it grows past :func:`input_limit`. A shorter input
    is read to its end and judged by the readers, as the same bytes in a file are."""
    limit, total = input_limit(), 0
    while chunk := stream.read(CHUNK):
        if total == 0 and len(chunk) == CHUNK and chunk.count(0) == len(chunk):
            raise error(f"its first {len(chunk):,} bytes are all NUL (a device such as /dev/zero?): not a text "
                        "file", path=path)
        total += len(chunk)
        if total > limit:
            raise error(f"it goes on past {limit / (1 << 30):.1f} GiB, a quarter of this machine's memory (an "
                        "endless stream?): give a file of a readable size", path=path)
        yield chunk


def read_input(path: str | PathLike, error: type[InputError]) -> bytes:
    """The file's bytes (:func:`read_buffer` as ``bytes``)."""
    data = read_buffer(path, error)
    return data if isinstance(data, bytes) else bytes(data)


def head(path: str | PathLike, size: int = 4096) -> bytes:
    """The first ``size`` bytes of the file's content (decompressed when gzip-compressed), to sniff its format.
    Raises ``OSError`` when the file cannot be read, ``zlib.error`` when its gzip data is corrupt or cut short."""
    with Path(file_path(path)).open("rb") as f:
        start = f.read(size)
        if start[:2] != GZIP_MAGIC:
            return start
        compressed = start + f.read(1 << 16)
        whole = not f.read(1)
    inflate = zlib.decompressobj(wbits=31)
    data = inflate.decompress(compressed, size)
    if len(data) < size and whole and not inflate.eof:
        raise zlib.error("the gzip data is cut short")
    return data


@contextmanager
def with_stdin(paths: Sequence[str | PathLike], stream: IO[bytes] | None = None) -> Iterator[list[Path]]:
    """``paths`` as Paths, the one ``-`` among them standing for a temporary copy of standard input (``stream``,
    default ``sys.stdin.buffer``), so that readers which look at a file first (format sniffing, directories)
    take it as a file. A WorkbenchError raised inside that names the copy is re-raised naming ``<stdin>``, and so
    are the warnings; the copy is removed on exit."""
    if isinstance(paths, str | bytes | PathLike) or not isinstance(paths, Sequence):
        raise ParameterTypeError(f"paths must be a list of file names, got {type(paths).__name__} {quoted(paths)}",
                                 parameter="paths")
    paths = [file_path(p) for p in paths]
    texts = [str(p) for p in paths]
    if texts.count(STDIN) > 1:
        raise StandardInputError("standard input ('-') can be read once: give it to the gold or to one run")
    if STDIN not in texts:
        yield [Path(p) for p in paths]
        return
    if stream is None:
        if sys.stdin is None or sys.stdin.isatty():
            raise StandardInputError("'-' reads standard input, which is a terminal here: pipe a file in "
                                     "(... --run - < run.txt)")
        stream = sys.stdin.buffer
    with tempfile.TemporaryDirectory(prefix="workbench-stdin-") as folder:
        copy = Path(folder) / "stdin"
        with copy.open("wb") as file:
            for chunk in chunks(stream, StandardInputError, STDIN_NAME):
                file.write(chunk)
        caught: list[warnings.WarningMessage] = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                yield [copy if p == STDIN else Path(p) for p in texts]
        except WorkbenchError as error:
            rename_copy(error, copy)
            raise
        finally:  # what the readers said, said again naming <stdin>
            for said in caught:
                warnings.warn_explicit(str(said.message).replace(str(copy), STDIN_NAME), said.category,
                                       said.filename, said.lineno)


def rename_copy(error: WorkbenchError, copy: Path) -> None:
    """Replace the temporary copy's path by ``<stdin>`` in ``error``'s message and ``path`` attribute (for errors
    kept to be raised later, such as a duplicate document raised when its topic is scored)."""
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (error.args[0].replace(str(copy), STDIN_NAME),)
    if isinstance(error, InputError) and str(error.path) == str(copy):
        error.path = STDIN_NAME


