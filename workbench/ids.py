"""Document ids as bytes held in numpy words: equality, hashing and C's ``strcmp`` order of millions of ids
without one Python object per id.

Each id's bytes (UTF-8 for ``str`` ids) are cut into big-endian 64-bit words, zero-padded, one column per word
position: comparing the columns in turn compares the ids byte by byte, as trec_eval's ``strcmp`` does (and,
on UTF-8, as Python compares ``str`` by code point). The ids keep their source (an Arrow array read from a
file, or the given strings), from which Python strings are built only when someone asks for them::

    >>> ids = DocumentIds.from_strings(["b", "ab", "a", "b"])
    >>> ids.codes().tolist(), ids.equal(0, ids, 3), ids.equal(0, ids, 1)
    ([2, 1, 0, 2], True, False)
    >>> ids.take([2, 0]).strings().tolist()
    ['a', 'b']

Words are built from Arrow's offsets and data buffers by one strided gather per word position (about 0.1 s
for 2M ids of 16 bytes), where Python's ``hash`` over the same ids first needs 2M ``str`` objects.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio (Fibonacci hashing)
# the mask keeping a word's first k bytes (big-endian), k = 0..8
_KEPT_BYTES = np.array([0, *((2**64 - 1) << (64 - 8 * k) & (2**64 - 1) for k in range(1, 9))], dtype=np.uint64)


class DocumentIds:
    """A column of ``n`` ids: ``words`` (``n × w`` uint64, big-endian, zero-padded), ``lengths`` in bytes, and
    the source the ids came from (an Arrow binary or string array, or an object array of ``str``/``bytes``),
    rows ``index`` of it (None: all, in order). Build with :meth:`from_arrow`, :meth:`from_strings` or
    :meth:`from_bytes`."""

    __slots__ = ("words", "lengths", "_source", "_index", "_encoding", "_strings", "_hashes", "_arrow")

    def __init__(self, words: np.ndarray, lengths: np.ndarray, source, index: np.ndarray | None = None,
                 encoding: str = "utf-8") -> None:
        self.words, self.lengths = words, lengths
        self._source, self._index, self._encoding = source, index, encoding
        self._strings: np.ndarray | None = None
        self._hashes: np.ndarray | None = None
        self._arrow = None

    # ------------------------------------------------------------------------------------------ building
    @classmethod
    def from_arrow(cls, array, encoding: str = "utf-8") -> DocumentIds:
        """Ids from an Arrow ``binary``/``string`` array (or chunked array) without nulls; ``encoding`` decodes
        a binary array's bytes into :meth:`strings` (a string array is UTF-8)."""
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        _, offsets_buffer, data_buffer = array.buffers()
        wide = pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32, count=len(array) + 1,
                                offset=array.offset * (8 if wide else 4)).astype(np.int64)
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
        words, lengths = _words(data[offsets[0]:offsets[-1]], offsets - offsets[0])
        return cls(words, lengths, array, encoding=encoding)

    @classmethod
    def from_strings(cls, values: Sequence[str] | np.ndarray, encoding: str = "utf-8") -> DocumentIds:
        """Ids from ``str`` (encoded in ``encoding``) or ``bytes`` values, kept as the strings to give back."""
        source = np.asarray(values, dtype=object)
        encoded = [value.encode(encoding) if isinstance(value, str) else bytes(value) for value in source.tolist()]
        lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
        offsets = np.concatenate(([0], np.cumsum(lengths)))
        words, lengths = _words(np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets)
        ids = cls(words, lengths, source, encoding=encoding)
        ids._strings = source
        return ids

    @classmethod
    def from_bytes(cls, values: np.ndarray, encoding: str = "latin-1") -> DocumentIds:
        """Ids from a numpy fixed-width bytes array (``S``; trailing NUL bytes are not part of an id)."""
        values = np.asarray(values, dtype=bytes)
        n, width = values.size, max(values.dtype.itemsize, 1)
        padded = np.zeros((n, -(-width // 8) * 8), dtype=np.uint8)
        padded[:, :values.dtype.itemsize] = values.reshape(-1).view(np.uint8).reshape(n, values.dtype.itemsize)
        return cls(padded.view(">u8").astype(np.uint64), np.char.str_len(values).astype(np.int64).reshape(-1),
                   values.reshape(-1), encoding=encoding)

    # ------------------------------------------------------------------------------------------- reading
    @classmethod
    def concatenate(cls, parts: Sequence[DocumentIds]) -> DocumentIds:
        """The ids of ``parts`` one after the other (words widened to the widest part); strings come from the
        parts' sources, joined as Arrow arrays when every part reads one of the same type and encoding.

        >>> parts = [DocumentIds.from_strings(["a"]), DocumentIds.from_strings(["bcdefghij"])]
        >>> DocumentIds.concatenate(parts).strings().tolist()
        ['a', 'bcdefghij']
        """
        parts = list(parts)
        if not parts:
            return cls.from_strings([])
        if len(parts) == 1:
            return parts[0]
        width = max(part.words.shape[1] for part in parts)
        words = np.concatenate([_widened(part.words, width) for part in parts])
        lengths = np.concatenate([part.lengths for part in parts])
        arrow = [part for part in parts if hasattr(part._source, "to_pylist") and part._strings is None]
        if len(arrow) == len(parts) and len({(p._source.type, p._encoding) for p in parts}) == 1:
            import pyarrow as pa

            source = pa.concat_arrays([p._source if p._index is None else p._source.take(p._index) for p in parts])
            return cls(words, lengths, source, encoding=parts[0]._encoding)
        strings = np.concatenate([part.strings() for part in parts])
        ids = cls(words, lengths, strings)
        ids._strings = strings
        return ids

    def __len__(self) -> int:
        return self.lengths.size

    def __repr__(self) -> str:
        return f"<DocumentIds: {len(self)} ids, {self.words.shape[1] * 8} bytes wide>"

    def take(self, positions) -> DocumentIds:
        """The ids at ``positions`` (integers or a boolean mask), same source; these very ids when ``positions``
        are all of them in order (nothing is copied)."""
        positions = np.asarray(positions)
        if positions.dtype == bool:
            positions = np.flatnonzero(positions)
        if positions.size == len(self) and positions.size and positions[0] == 0 and \
                (np.diff(positions) == 1).all():
            return self
        index = positions if self._index is None else self._index[positions]
        taken = DocumentIds(self.words[positions], self.lengths[positions], self._source, index, self._encoding)
        if self._strings is not None:
            taken._strings = self._strings[positions]
        if self._hashes is not None:
            taken._hashes = self._hashes[positions]
        return taken

    def hashes(self) -> np.ndarray:
        """A 64-bit hash (uint64) of each id, the same in every process and whatever the other ids' widths:
        equal ids hash equally, so integer keys built from them find every repeat and every match; a match is
        then checked with :meth:`equal`."""
        if self._hashes is None:
            hashes = self.lengths.astype(np.uint64) * _MULTIPLIER
            for j, column in enumerate(self.words.T):
                mixed = (hashes ^ column) * _MULTIPLIER
                mixed ^= mixed >> np.uint64(29)
                hashes = np.where(self.lengths > 8 * j, mixed, hashes)  # an id's padding words are not mixed
            self._hashes = hashes
        return self._hashes

    def equal(self, positions, other: DocumentIds, other_positions) -> np.ndarray | bool:
        """Whether the ids at ``positions`` equal ``other``'s at ``other_positions``, pairwise."""
        width = max(self.words.shape[1], other.words.shape[1])
        mine, theirs = _widened(self.words[positions], width), _widened(other.words[other_positions], width)
        same = (mine == theirs).all(axis=-1) & (self.lengths[positions] == other.lengths[other_positions])
        return same if isinstance(same, np.ndarray) else bool(same)

    def codes(self) -> np.ndarray:
        """Integer codes (int64, from 0) that sort as the ids sort byte by byte (``strcmp``); equal ids get
        equal codes."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        keys = [self.lengths, *self.words.T[::-1]]  # np.lexsort: the last key is the primary one
        order = np.lexsort(keys)
        new = np.zeros(n, dtype=bool)  # where a sorted id differs from the one before it
        for key in keys:
            ranked = key[order]
            new[1:] |= ranked[1:] != ranked[:-1]
        codes = np.empty(n, dtype=np.int64)
        codes[order] = np.cumsum(new)
        return codes

    def strings(self) -> np.ndarray:
        """The ids as an object array of ``str`` (built once from the source; bytes invalid in the encoding
        are shown as escapes, ``\\xe9``, Python's ``backslashreplace``)."""
        if self._strings is None:
            arrow = hasattr(self._source, "to_pylist")
            source = self._source
            if self._index is not None:
                source = source.take(self._index) if arrow else source[self._index]
            values = source.to_pylist() if arrow else source.tolist()
            if values and isinstance(values[0], bytes):
                values = [value.decode(self._encoding, errors="backslashreplace") for value in values]
            self._strings = np.asarray(values, dtype=object) if values else np.zeros(0, dtype=object)
        return self._strings

    def arrow(self):
        """The ids as an Arrow ``string`` array (built once), taken from the source without a Python object per id
        (an Arrow array or a numpy bytes array in UTF-8); from :meth:`strings` otherwise (another encoding, invalid
        UTF-8). What a pandas column of millions of ids is built from (``pd.arrays.ArrowExtensionArray``)."""
        if self._arrow is None:
            self._arrow = self._arrow_array()
        return self._arrow

    def _arrow_array(self):
        import pyarrow as pa

        source = self._source
        if self._strings is None and isinstance(source, np.ndarray) and source.dtype.kind == "S":
            source = pa.array(source)
        if hasattr(source, "to_pylist") and self._encoding.lower().replace("-", "") == "utf8":
            taken = source if self._index is None else source.take(pa.array(self._index, type=pa.int64()))
            try:
                return taken.cast(pa.string())
            except pa.ArrowInvalid:  # bytes that are not UTF-8: the escapes of strings()
                pass
        return pa.array(self.strings().tolist(), type=pa.string())

    def __getitem__(self, position: int) -> str:
        """One id as a ``str``."""
        if self._strings is not None:
            return self._strings[position]
        return self.take([position]).strings()[0]


def _words(data: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(words, lengths)`` of the ids ``data[offsets[i]:offsets[i + 1]]``: for each word position, the 8 bytes
    from each id's start read at once through a strided view (one window per byte), the bytes past the id's
    end masked to zero (skipped where every id fills the word). Done :data:`WORDS_BLOCK` ids at a time, so that
    the temporaries stay small and are reused: fresh pages of large temporaries cost a page fault each (2M ids
    of 10 bytes: 32k page faults and 0.1-0.3 s in one pass, 16k, mostly the result's, and 0.07 s in blocks)."""
    lengths = np.diff(offsets)
    n = lengths.size
    width = -(-int(lengths.max(initial=0)) // 8)
    shortest = int(lengths.min(initial=0))
    words = np.empty((n, width), dtype=np.uint64)
    for low in range(0, n, WORDS_BLOCK):
        high = min(low + WORDS_BLOCK, n)
        first, last = int(offsets[low]), int(offsets[high])
        padded = np.zeros(last - first + 8, dtype=np.uint8)  # the block's bytes and 8 zero bytes after them
        padded[:last - first] = data[first:last]
        windows = np.ndarray(shape=(padded.size - 7,), dtype=">u8", buffer=padded, strides=(1,))
        starts = offsets[low:high] - first
        for j in range(width):
            if j:
                starts += 8
                np.minimum(starts, windows.size - 1, out=starts)
            words[low:high, j] = windows[starts]
            if shortest < 8 * (j + 1):
                words[low:high, j] &= _KEPT_BYTES[np.clip(lengths[low:high] - 8 * j, 0, 8)]
    return words, lengths


WORDS_BLOCK = 1 << 16  # ids per block in _words: its temporaries (about 0.5 MB each) stay in cache


def _widened(words: np.ndarray, width: int) -> np.ndarray:
    """``words`` padded with zero columns to ``width`` (ids of different widths compare as zero-padded)."""
    missing = width - words.shape[-1]
    return words if missing == 0 else np.pad(words, [(0, 0)] * (words.ndim - 1) + [(0, missing)])
