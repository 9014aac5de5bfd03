"""Binary containers users' tables come in, opened within limits with every failure the reader's located error:
Parquet through pyarrow (:func:`parquet_table`: the file, and the column at fault) and LZ4 frames (:func:`lz4_frame`,
ranx's ``.lz4``: decompressed to at most :func:`~workbench.reading.sources.input_limit` bytes, so that an LZ4 bomb
stops with an error), and CBOR within the JSON reader's nesting limit (:func:`cbor`)::

    >>> import io, pyarrow as pa, pyarrow.parquet as pq
    >>> buffer = io.BytesIO()
    >>> pq.write_table(pa.table({"q_id": ["q1"], "score": [1.5]}), buffer)
    >>> parquet_table(buffer.getvalue(), "run.parquet", {"q_id": "string", "score": "number"}).num_rows
    1
    >>> parquet_table(buffer.getvalue(), "run.parquet", {"q_id": "string", "doc_id": "string"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.errors.InputError: run.parquet: the table lacks the column 'doc_id' (it needs q_id, doc_id; it has ...
"""

from __future__ import annotations

from typing import Any

from workbench.errors import InputError, quoted
from workbench.reading.json_input import MAX_DEPTH
from workbench.reading.sources import input_limit

__all__ = ["PARQUET_MAGIC", "LZ4_MAGIC", "COLUMN_KINDS", "parquet_table", "lz4_frame", "cbor"]

PARQUET_MAGIC = b"PAR1"
"""The first (and last) four bytes of a Parquet file."""
LZ4_MAGIC = b"\x04\x22\x4d\x18"
"""The first four bytes of an LZ4 frame."""
COLUMN_KINDS = ("string", "number", "integer")
"""What a column of a table read here must hold (:func:`parquet_table`)."""


def parquet_table(data: bytes, path: object, columns: dict[str, str], error: type[InputError] = InputError) -> Any:
    """The Parquet file's table (a ``pyarrow.Table`` of ``columns``, in their order), each column checked to hold
    its kind (:data:`COLUMN_KINDS`: text, numbers, whole numbers) and no nulls; refusals name ``path`` and the
    column (and the row of a null)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError, IndexError, MemoryError) as problem:
        raise error(f"not a Parquet file pyarrow can read ({str(problem)[:200]})", path=path) from None
    for name, kind in columns.items():
        if name not in table.column_names:
            raise error(f"the table lacks the column {name!r} (it needs {', '.join(columns)}; it has "
                        f"{', '.join(map(repr, table.column_names)) or 'none'})", path=path)
        column = table.column(name)
        fits = {"string": pa.types.is_string(column.type) or pa.types.is_large_string(column.type),
                "number": pa.types.is_integer(column.type) or pa.types.is_floating(column.type),
                "integer": pa.types.is_integer(column.type)}[kind]
        if not fits:
            raise error(f"column {name!r} holds {column.type}, not {'text' if kind == 'string' else kind + 's'}",
                        path=path, where=f"column {name!r}")
        if column.null_count:
            row = pc.index(pc.is_null(column), True).as_py()
            raise error(f"column {name!r} has no value in row {row + 1}", path=path, where=f"row {row + 1}")
    return table.select(list(columns))


def lz4_frame(data: bytes, path: object, error: type[InputError] = InputError) -> bytes:
    """An LZ4 frame's content, at most :func:`~workbench.reading.sources.input_limit` bytes (needs the ``lz4``
    library: the caller imports it under :func:`~workbench.extras.needs_extra`)."""
    import lz4.frame

    limit = input_limit()
    try:
        decompressor = lz4.frame.LZ4FrameDecompressor()
        content = decompressor.decompress(data, max_length=limit)
    except RuntimeError as problem:
        raise error(f"broken LZ4 data ({str(problem)[:200]})", path=path) from None
    if not decompressor.eof:
        grows = len(content) >= limit
        raise error(f"its LZ4 data goes on past {limit / (1 << 30):.1f} GiB, a quarter of this machine's memory"
                    if grows else "its LZ4 data ends before the frame does (a truncated file?)", path=path)
    return content


def cbor(data: bytes, path: object, error: type[InputError] = InputError) -> Any:
    """A CBOR document (needs ``cbor2``), refused when it nests deeper than the JSON reader's
    :data:`~workbench.reading.json_input.MAX_DEPTH` or cannot be decoded."""
    import cbor2

    try:
        value = cbor2.loads(data)
    except (cbor2.CBORDecodeError, RecursionError, MemoryError, ValueError, OverflowError) as problem:
        raise error(f"not CBOR data ({type(problem).__name__}: {str(problem)[:200]})", path=path) from None
    _check_depth(value, path, error)
    return value


def _check_depth(value: Any, path: object, error: type[InputError]) -> None:
    """Refuse a decoded value nested deeper than :data:`MAX_DEPTH` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth > MAX_DEPTH:
                raise error(f"nested deeper than {MAX_DEPTH} levels", path=path)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple))
        elif not isinstance(item, str | int | float | bool | bytes) and item is not None:
            raise error(f"holds a {type(item).__name__} ({quoted(item)}), which no table of ids and numbers holds",
                        path=path)
