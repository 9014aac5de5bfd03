"""An input file's bytes for the readers: gzip-compressed files are read through, and an unreadable file or
broken gzip data becomes the reader's own named error (never an ``OSError`` or ``zlib.error``).

    >>> import gzip, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "gold.tsv.gz"
    >>> _ = path.write_bytes(gzip.compress(b"entity_id"))
    >>> read_input(path, ValueError), is_gzip(path)
    (b'entity_id', True)
    >>> head(path)
    b'entity_id'
"""

from __future__ import annotations

import gzip
import zlib
from os import PathLike
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"


def is_gzip(path: str | PathLike) -> bool:
    """True when the file starts with gzip's magic bytes (whatever its name)."""
    try:
        with Path(path).open("rb") as f:
            return f.read(2) == GZIP_MAGIC
    except OSError:
        return False


def read_input(path: str | PathLike, error: type[Exception]) -> bytes:
    """The file's bytes, decompressed when gzip-compressed; problems raise ``error(message, path=path)``."""
    try:
        data = Path(path).read_bytes()
    except OSError as problem:
        raise error(f"cannot read the file ({problem.strerror or problem})", path=path) from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as problem:
            raise error(f"broken gzip data ({problem})", path=path) from None
    return data


def head(path: str | PathLike, size: int = 4096) -> bytes:
    """The first ``size`` bytes of the file's content (decompressed when gzip-compressed), to sniff its format.
    Raises ``OSError`` when the file cannot be read, ``zlib.error`` when its gzip data is corrupt or cut short."""
    with Path(path).open("rb") as f:
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
