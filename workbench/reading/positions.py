"""Line and column of any position of a text, in linear total time: where each line starts is found once (numpy over
bytes, C's ``split`` over a string), then each position is a binary search, so that a reader naming the lines of
a million records never rescans the text from its start.

    >>> index = LineIndex("a,b\\nc,d\\n\\ne")
    >>> index.locate(5), index.line(2), len(index)
    ((2, 2), 'c,d', 4)
    >>> index.lines([0, 4, 9]).tolist()
    [1, 2, 4]
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

__all__ = ["LineIndex"]


class LineIndex:
    """Where each line of ``text`` (a ``str``, or bytes: then columns count bytes) starts; lines end at ``\\n``
    (a ``\\r`` before it is the line's last character, which :meth:`line` drops)."""

    def __init__(self, text: str | bytes | bytearray | memoryview) -> None:
        self.text = text

    @cached_property
    def starts(self) -> np.ndarray:
        """The offset at which each line starts (the first is 0)."""
        if isinstance(self.text, str):
            lengths = np.fromiter(map(len, self.text.split("\n")), dtype=np.int64)
            return np.concatenate(([0], np.cumsum(lengths[:-1] + 1))).astype(np.int64)
        newlines = np.flatnonzero(np.frombuffer(self.text, dtype=np.uint8) == 10)
        return np.concatenate(([0], newlines + 1)).astype(np.int64)

    def __len__(self) -> int:
        return int(self.starts.size)

    def lines(self, offsets: np.ndarray | list[int]) -> np.ndarray:
        """The 1-based line of each offset."""
        return np.searchsorted(self.starts, np.asarray(offsets, dtype=np.int64), side="right")

    def locate(self, offset: int) -> tuple[int, int]:
        """``(line, column)`` of ``offset``, both 1-based."""
        line = int(np.searchsorted(self.starts, offset, side="right"))
        return line, int(offset - self.starts[line - 1]) + 1

    def line(self, number: int) -> str:
        """Line ``number`` (1-based) without its end (bytes shown as UTF-8 where they are)."""
        start = int(self.starts[number - 1])
        stop = int(self.starts[number]) - 1 if number < self.starts.size else len(self.text)
        piece = self.text[start:stop]
        shown = piece if isinstance(piece, str) else bytes(piece).decode("utf-8", errors="replace")
        return shown.removesuffix("\r")
