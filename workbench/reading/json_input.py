"""JSON from users within limits, read alike by every reader (PyEvALL's records and hierarchies, the widget's
import): nesting at most :data:`MAX_DEPTH` deep (found in one vectorised pass over the bytes before parsing, so
that a file nested 100,000 deep is refused at the bracket that goes too deep, never with a ``RecursionError``), a
number literal at most :data:`MAX_NUMBER` characters long and within a double's range (``1e999``, ``NaN`` and
``Infinity`` are refused; JSON has no infinities), and every failure the reader's located error::

    >>> from workbench.reading.text import decode
    >>> load(decode(b'{"n": 10, "wn": 0.8}', "tables.json"))
    {'n': 10, 'wn': 0.8}
    >>> load(decode(b'{"n": 10,\\n "wn": 1e999}', "t.json"))
    Traceback (most recent call last):
    ...
    workbench.errors.InputError: t.json, line 2, column 8: the number 1e999 is beyond a double's range: ' "wn": 1e999}'
    >>> load(decode(b"[" * 100_000, "deep.json"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.errors.InputError: deep.json, line 1, column 201: JSON nested deeper than 200 levels: ...

:func:`items` reads a JSON array one element at a time with the line each starts on (PyEvALL's records), in time
proportional to the file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import numpy as np

from workbench.reading.text import Text

__all__ = ["MAX_DEPTH", "MAX_NUMBER", "load", "items", "deepest"]

MAX_DEPTH = 200
"""The deepest nesting of arrays and objects read (PyEvALL's files nest 3 deep, a class hierarchy a few more)."""
MAX_NUMBER = 1000
"""The longest number literal read, in characters (a double needs 17 significant digits)."""

_SPACE = re.compile(r"[ \t\n\r]*")


class _Refused(Exception):
    """A number literal the limits refuse, raised from inside :mod:`json`'s parser."""

    def __init__(self, literal: str, why: str) -> None:
        super().__init__(why)
        self.literal, self.why = literal, why


def _integer(literal: str) -> int:
    if len(literal) > MAX_NUMBER:
        raise _Refused(literal, f"a number of {len(literal):,} characters (at most {MAX_NUMBER:,} are read)")
    return int(literal)


def _float(literal: str) -> float:
    if len(literal) > MAX_NUMBER:
        raise _Refused(literal, f"a number of {len(literal):,} characters (at most {MAX_NUMBER:,} are read)")
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _Refused(literal, f"the number {literal} is beyond a double's range")
    return value


def _constant(literal: str) -> float:
    raise _Refused(literal, f"{literal} is not JSON (JSON has no NaN or infinities)")


_DECODER = json.JSONDecoder(parse_int=_integer, parse_float=_float, parse_constant=_constant)


def _structure(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The byte offsets of the brackets and braces outside strings in UTF-8 JSON ``data``, and the depth after
    each (one pass of numpy over the bytes: a quote escaped by an odd run of backslashes does not end a string)."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    opening = (buffer == 91) | (buffer == 123)
    structure = np.flatnonzero(opening | (buffer == 93) | (buffer == 125))
    quotes = np.flatnonzero(buffer == 34)
    backslashes = np.flatnonzero(buffer == 92)
    if quotes.size and backslashes.size:
        run_starts = backslashes[np.concatenate(([True], np.diff(backslashes) != 1))]
        escaped = np.isin(quotes - 1, backslashes)
        last = quotes[escaped] - 1  # the backslash right before each such quote
        run = last - run_starts[np.searchsorted(run_starts, last, side="right") - 1] + 1
        keep = np.ones(quotes.size, dtype=bool)
        keep[np.flatnonzero(escaped)[run % 2 == 1]] = False
        quotes = quotes[keep]
    structure = structure[np.searchsorted(quotes, structure) % 2 == 0]
    return structure, np.cumsum(np.where(opening[structure], 1, -1))


def deepest(data: bytes | bytearray | memoryview, limit: int = MAX_DEPTH) -> int | None:
    """The byte offset of the first ``[`` or ``{`` (outside strings) nested deeper than ``limit`` in UTF-8 JSON
    ``data``, or None.

    >>> deepest(b'[["[[[", 1]]', limit=2), deepest(b'[[[1]]]', limit=2)
    (None, 2)
    """
    structure, depth = _structure(bytes(data))
    beyond = np.flatnonzero(depth > limit)
    return int(structure[beyond[0]]) if beyond.size else None


def _character(data: bytes, offset: int) -> int:
    """The character offset of byte ``offset`` of UTF-8 ``data``."""
    return len(data[:offset].decode("utf-8", errors="replace"))


def _checked_structure(text: Text) -> tuple[bytes, np.ndarray, np.ndarray]:
    """The text's UTF-8 bytes and :func:`_structure`, refused when nested deeper than :data:`MAX_DEPTH`."""
    data = text.content.encode("utf-8", errors="surrogatepass")
    structure, depth = _structure(data)
    beyond = np.flatnonzero(depth > MAX_DEPTH)
    if beyond.size:
        raise text.fail(f"JSON nested deeper than {MAX_DEPTH} levels",
                        offset=_character(data, int(structure[beyond[0]])))
    return data, structure, depth


def _offset_of(content: str, literal: str, start: int = 0) -> int | None:
    """Where the refused literal stands (its first occurrence outside a word or a string's quotes)."""
    found = re.compile(r'(?<![\w."])' + re.escape(literal) + r'(?![\w.])').search(content, start)
    return found.start() if found else None


def load(text: Text) -> Any:
    """The JSON value of the whole text, within the limits; the reader's located error otherwise."""
    _checked_structure(text)
    try:
        return _DECODER.decode(text.content)
    except json.JSONDecodeError as problem:
        raise text.fail(f"not JSON: {problem.msg}", offset=problem.pos) from None
    except _Refused as refused:
        raise text.fail(refused.why, offset=_offset_of(text.content, refused.literal)) from None


def items(text: Text, what: str = "an array [...]") -> Iterator[tuple[int, Any]]:
    """``(line, value)`` of each element of the JSON array the text holds, in order, ``line`` where the element
    starts; ``what`` names the array in the refusal of anything else. An array of arrays and objects (PyEvALL's
    records) is parsed at once and each element's line read from where its bracket opens; any other is read one
    element at a time, so that an error names the element's line."""
    data, structure, depth = _checked_structure(text)
    content = text.content
    position = _SPACE.match(content).end()  # type: ignore[union-attr]  # "*" always matches
    if not content.startswith("[", position):
        raise text.fail(f"expected {what}", offset=min(position, max(len(content) - 1, 0)))
    opened = structure[(depth == 2) & (np.concatenate(([0], depth[:-1])) == 1)]  # where each container element opens
    try:
        values = _DECODER.decode(content)
    except (json.JSONDecodeError, _Refused):
        values = None
    if isinstance(values, list) and len(values) == opened.size and all(isinstance(v, dict | list) for v in values):
        ascii_only = len(data) == len(content)
        offsets = opened if ascii_only else [_character(data, int(at)) for at in opened.tolist()]
        yield from zip(text.index.lines(offsets).tolist(), values, strict=True)
        return
    yield from _one_by_one(text, position)


def _one_by_one(text: Text, position: int) -> Iterator[tuple[int, Any]]:
    """:func:`items` from the ``[`` at ``position``, one element at a time."""
    content = text.content
    position = _SPACE.match(content, position + 1).end()  # type: ignore[union-attr]
    starts = text.index.starts
    first = True
    while not content.startswith("]", position):
        if position >= len(content):
            raise text.fail("the array is never closed with ']'", offset=len(content) - 1)
        if not first:
            if not content.startswith(",", position):
                raise text.fail("expected ',' or ']' between the elements of the array",
                                offset=min(position, len(content) - 1))
            position = _SPACE.match(content, position + 1).end()  # type: ignore[union-attr]
        first = False
        if position >= len(content):
            raise text.fail("the array is never closed with ']'", offset=len(content) - 1)
        line = int(np.searchsorted(starts, position, side="right"))
        try:
            value, position = _DECODER.raw_decode(content, position)
        except json.JSONDecodeError as problem:
            raise text.fail(f"not JSON: {problem.msg}", offset=problem.pos) from None
        except _Refused as refused:
            raise text.fail(refused.why, offset=_offset_of(content, refused.literal, position)) from None
        yield line, value
        position = _SPACE.match(content, position).end()  # type: ignore[union-attr]
    rest = _SPACE.match(content, position + 1).end()  # type: ignore[union-attr]
    if rest < len(content):
        raise text.fail("text after the closing ']'", offset=rest)
