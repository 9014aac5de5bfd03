"""Document ids as bytes in one buffer: equality, hashing and C's ``strcmp`` order of millions of ids without one
Python object per id, in memory and time that grow with the ids' bytes, never with the number of ids times the
longest one.

Each id is a slice of a byte buffer (``data[start:start + length]``; UTF-8 for ``str`` ids): the data buffer of an
Arrow array, a file's bytes, or the given strings encoded once. Hashes and comparisons read the slices eight bytes
at a time, as big-endian 64-bit words zero-padded after each id's end, through one strided window on the buffer:
a pass reads as many words as the ids hold (a 20 MB id among short ones costs its 2.6 million words once, not a
column of that width for every id). Byte order is C's ``strcmp`` (and, on UTF-8, Python's order of ``str`` by
code point); Python strings are built only when someone asks for them::

    >>> ids = DocumentIds.from_strings(["b", "ab", "a", "b"])
    >>> ids.codes().tolist(), ids.equal(0, ids, 3), ids.equal(0, ids, 1)
    ([2, 1, 0, 2], True, False)
    >>> ids.take([2, 0]).strings().tolist()
    ['a', 'b']
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

import numpy as np

from workbench.threads import in_threads, threads

__all__ = ["THREADED_IDS", "WORDS_BLOCK", "SHORT_WORDS", "GATHER_BYTES", "CUT_BYTES", "DocumentIds", "positions",
           "arrow_call"]

_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio (Fibonacci hashing)
_POSITION = np.uint64(0xC2B2AE3D27D4EB4F)  # a word's position, mixed into it (equal words at two places differ)
# the mask keeping a word's first k bytes (big-endian), k = 0..8
_KEPT_BYTES = np.array([0, *((2**64 - 1) << (64 - 8 * k) & (2**64 - 1) for k in range(1, 9))], dtype=np.uint64)
THREADED_IDS = 1 << 18  # ids hashed in parts of whole ids on threads() threads from this many on (each its own)
WORDS_BLOCK = 1 << 14  # words read per block: the temporaries (128 KB each) stay in the core's cache and are reused
SHORT_WORDS = 4  # hashes read the first words of every id a word position at a time, longer ids' rest by blocks
GATHER_BYTES = 1 << 20  # bytes copied per block when ids are gathered into one contiguous buffer
CUT_BYTES = 1 << 20  # bytes searched for NULs per block when joined ids are cut (_cut)
_LITTLE_ENDIAN = sys.byteorder == "little"  # how a uint64 holds its bytes here (_read_words)
_FAST_ENCODINGS = ("utf-8", "latin-1", "ascii", "iso8859-1")  # NUL is the byte 0 and no other character holds one


class _NotInOnePiece(ValueError):
    """Ids that cannot be encoded in one piece cut at NUL bytes (:meth:`DocumentIds.from_texts`): its callers
    encode them one by one."""


class DocumentIds:
    """A column of ``n`` ids: ``data`` (a uint8 buffer), and each id's ``starts`` and ``lengths`` in it (int32
    when the buffer is smaller than 2 GiB, else int64: :func:`positions`). ``encoding`` decodes the bytes into
    :meth:`strings`. Build with :meth:`from_arrow`, :meth:`from_strings` or :meth:`from_buffer`."""

    __slots__ = ("data", "starts", "lengths", "_encoding", "_strings", "_hashes", "_arrow")

    def __init__(self, data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, encoding: str = "utf-8") -> None:
        self.data, self.starts, self.lengths = data, starts, lengths
        self._encoding = encoding
        self._strings: np.ndarray | None = None
        self._hashes: np.ndarray | None = None
        self._arrow = None

    # ------------------------------------------------------------------------------------------ building
    @classmethod
    def from_arrow(cls, array, encoding: str = "utf-8") -> DocumentIds:
        """Ids from an Arrow ``binary``/``string`` array (or chunked array) without nulls, read in place from its
        buffers; ``encoding`` decodes a binary array's bytes into :meth:`strings` (a string array is UTF-8)."""
        import pyarrow as pa

        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
        _, offsets_buffer, data_buffer = array.buffers()
        wide = pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)
        offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32, count=len(array) + 1,
                                offset=array.offset * (8 if wide else 4))
        data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
        ids = cls(data, positions(offsets[:-1], data.size), positions(np.diff(offsets), data.size), encoding)
        if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
            ids._arrow = array
        return ids

    @classmethod
    def from_strings(cls, values: Sequence[str] | np.ndarray, encoding: str = "utf-8") -> DocumentIds:
        """Ids from ``str`` (encoded in ``encoding``; lone surrogates as UTF-8 encodes them with
        ``surrogatepass``) or ``bytes`` values; :meth:`strings` gives them back equal."""
        items = values.tolist() if isinstance(values, np.ndarray) else list(values)
        try:
            return cls.from_texts(items, encoding)
        except (TypeError, ValueError):  # bytes among them, or a NUL inside an id
            pass
        errors = "surrogatepass" if _utf8(encoding) else "strict"
        encoded = [value.encode(encoding, errors) if isinstance(value, str) else bytes(value) for value in items]
        lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if encoded else np.zeros(0, np.int64)
        data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        ids = cls(data, positions(starts, data.size), positions(lengths, data.size), encoding)
        ids._strings = np.asarray(items, dtype=object).reshape(-1) if items else np.zeros(0, dtype=object)
        return ids

    @classmethod
    def from_texts(cls, texts: list[str], encoding: str = "utf-8") -> DocumentIds:
        """Ids from a list of ``str`` in one piece: joined by NUL bytes, encoded once, cut at the NULs (2M ids of
        10 characters: about 60 ms, where one ``encode`` per id takes twice that; :meth:`from_joined`). Raises
        ``TypeError`` when a value is not a ``str`` (``str.join`` finds it) and a ``ValueError`` when one holds a
        NUL or the encoding cannot take NUL as one byte (the callers then encode the ids one by one)."""
        _one_piece(encoding)
        return cls.from_joined("\0".join(texts), len(texts), encoding, texts)

    @classmethod
    def from_joined(cls, joined: str, count: int, encoding: str = "utf-8",
                    texts: list[str] | None = None) -> DocumentIds:
        """Ids from one string holding ``count`` ids separated by NUL characters, encoded once and cut at the NULs:
        what a caller holding the ids in pieces joins without a list of them all (the keys of many dicts: the
        dicts' keys joined each, then the joined). Raises a ``ValueError`` when the string holds another number of
        NULs (an id holds one) or the encoding cannot take NUL as one byte. Strings are kept to give back only
        when they are not all ASCII (ASCII bytes decode to equal strings): ``texts``, the ids as given, or else
        the string cut at its NULs.

        >>> DocumentIds.from_joined("b\\0a\\0é", 3).strings().tolist()
        ['b', 'a', 'é']
        """
        _one_piece(encoding)
        ascii_only = joined.isascii()
        data = np.frombuffer(joined.encode(encoding, "surrogatepass" if _utf8(encoding) else "strict"),
                             dtype=np.uint8)
        strings = None if ascii_only else texts if texts is not None else joined.split("\0")
        del joined  # the caller's string, handed over (a call's argument): its memory goes before the cut's
        ids = cls(data, *_cut(data, count), encoding)
        if strings is not None:
            ids._strings = np.asarray(strings, dtype=object).reshape(-1)
        return ids

    @classmethod
    def from_buffer(cls, buffer, starts: np.ndarray, ends: np.ndarray, encoding: str = "utf-8") -> DocumentIds:
        """Ids that are the slices ``buffer[starts[i]:ends[i]]`` of a byte buffer (a file's bytes), read in place."""
        data = buffer if isinstance(buffer, np.ndarray) else np.frombuffer(buffer, dtype=np.uint8)
        return cls(data, positions(starts, data.size), positions(np.asarray(ends) - starts, data.size), encoding)

    @classmethod
    def from_bytes(cls, values: np.ndarray, encoding: str = "latin-1") -> DocumentIds:
        """Ids from a numpy fixed-width bytes array (``S``; trailing NUL bytes are not part of an id), read in
        place."""
        values = np.ascontiguousarray(values, dtype=bytes).reshape(-1)
        width = values.dtype.itemsize
        data = values.view(np.uint8) if width else np.zeros(0, np.uint8)
        return cls(data, positions(np.arange(values.size, dtype=np.int64) * width, data.size),
                   positions(np.char.str_len(values), data.size), encoding)

    @classmethod
    def concatenate(cls, parts: Sequence[DocumentIds]) -> DocumentIds:
        """The ids of ``parts`` one after the other, their bytes copied into one buffer (strings kept where every
        part has them).

        >>> parts = [DocumentIds.from_strings(["a"]), DocumentIds.from_strings(["bcdefghij"])]
        >>> DocumentIds.concatenate(parts).strings().tolist()
        ['a', 'bcdefghij']
        """
        parts = list(parts)
        if not parts:
            return cls.from_strings([])
        if len(parts) == 1:
            return parts[0]
        gathered = [_gather(part.data, part.starts, part.lengths) for part in parts]
        data = np.concatenate([bytes_ for bytes_, _ in gathered])
        sizes = np.cumsum([0] + [bytes_.size for bytes_, _ in gathered[:-1]])
        starts = np.concatenate([offsets[:-1] + size for (_, offsets), size in zip(gathered, sizes, strict=True)])
        ids = cls(data, positions(starts, data.size),
                  positions(np.concatenate([part.lengths for part in parts]), data.size), parts[0]._encoding)
        if all(part._strings is not None for part in parts):
            ids._strings = np.concatenate([part._strings for part in parts])
        elif len({part._encoding for part in parts}) > 1:  # decoded each in its own encoding
            ids._strings = np.concatenate([part.strings() for part in parts])
        return ids

    # ------------------------------------------------------------------------------------------- reading
    def __len__(self) -> int:
        return self.lengths.size

    def __repr__(self) -> str:
        return f"<DocumentIds: {len(self)} ids, {int(self.lengths.sum())} bytes>"

    def take(self, positions) -> DocumentIds:
        """The ids at ``positions`` (integers, a boolean mask, or a slice of step 1: views of these ids' arrays), on
        the same buffer; these very ids when ``positions`` are all of them in order.

        >>> DocumentIds.from_strings(["a", "bc", "d"]).take(slice(1, 3)).strings().tolist()
        ['bc', 'd']
        """
        positions = slice(*positions.indices(len(self))[:2]) if isinstance(positions, slice) else \
            np.asarray(positions)
        if isinstance(positions, np.ndarray) and positions.dtype == bool:
            positions = np.flatnonzero(positions)
        if isinstance(positions, np.ndarray) and positions.size == len(self) and positions.size and \
                positions[0] == 0 and (np.diff(positions) == 1).all():
            return self
        taken = DocumentIds(self.data, self.starts[positions], self.lengths[positions], self._encoding)
        if self._strings is not None:
            taken._strings = self._strings[positions]
        if self._hashes is not None:
            taken._hashes = self._hashes[positions]
        return taken

    @property
    def reorderable(self) -> bool:
        """Whether :meth:`put_in_order` may reorder these ids: their starts and lengths their own arrays, not views
        of another's (an Arrow array's offsets, a frame's column, the ids a slice was taken from)."""
        return all(array.flags.owndata and array.flags.writeable for array in (self.starts, self.lengths))

    def put_in_order(self, low: int, order: np.ndarray) -> None:
        """The ids from ``low`` on, ``order.size`` of them, put in the order ``order`` (positions among them), in
        place: what :meth:`take` gives, without a second copy of every id's start and length, for ids their owner
        gives up (ranked a block at a time: :func:`~workbench.data.trec.ranked.rank_runs`), when they are
        :attr:`reorderable`.

        >>> ids = DocumentIds.from_strings(["a", "bc", "d", "ef"])
        >>> ids.reorderable, DocumentIds.from_arrow(ids.arrow()).reorderable
        (True, False)
        >>> ids.put_in_order(1, np.array([2, 0, 1]))
        >>> ids.strings().tolist()
        ['a', 'ef', 'bc', 'd']
        """
        part = slice(low, low + order.size)
        for array in (self.starts, self.lengths, self._strings, self._hashes):
            if array is not None:
                array[part] = array[part][order]
        self._arrow = None  # in the former order

    def compacted(self) -> DocumentIds:
        """These ids on a buffer of their own, holding only their bytes (and their hashes, if computed): what a
        piece of a larger column pickles as, rather than with the whole buffer it shares (:meth:`take`).

        >>> ids = DocumentIds.from_strings(["a", "bcd", "ef"]).take([2])
        >>> ids.data.size, ids.compacted().data.size, ids.compacted().strings().tolist()
        (8, 2, ['ef'])
        """
        data, offsets = _gather(self.data, self.starts, self.lengths)
        ids = DocumentIds(data.copy(), positions(offsets[:-1], data.size), positions(self.lengths, data.size).copy(),
                          self._encoding)
        ids._hashes = self._hashes
        return ids

    def hashes(self, part: slice | None = None) -> np.ndarray:
        """A 64-bit hash (uint64) of each id, the same in every process and whatever the buffer it sits in: equal
        ids hash equally, so integer keys built from them find every repeat and every match; a match is then
        checked with :meth:`equal`. Each word, mixed with its position in the id, is added into the id's sum,
        then the length is mixed in. From :data:`THREADED_IDS` ids on, parts of whole ids are hashed on
        :func:`~workbench.threads.threads` threads (2M ids: 66 → 45 ms on two cores), and kept. ``part`` (a slice
        of step 1): the hashes of those ids only, the kept ones if any, else made for them alone and not kept (a
        caller going a block at a time holds no hash of every id: 2M ids, 16 MB).

        >>> ids = DocumentIds.from_strings(["a", "b", "a"])
        >>> bool(ids.hashes(slice(2, 3))[0] == ids.hashes()[0]), ids.hashes(slice(1, 3)).size
        (True, 2)
        """
        if part is not None:
            if self._hashes is not None:
                return self._hashes[part]
            low, high, _ = part.indices(len(self))
            hashes = np.empty(max(high - low, 0), dtype=np.uint64)
            _hash_into(hashes, self.data, self.starts[low:high], self.lengths[low:high])
            return hashes
        if self._hashes is None:
            hashes = np.empty(len(self), dtype=np.uint64)
            count = threads() if len(self) >= THREADED_IDS else 1
            cuts = [len(self) * k // count for k in range(count + 1)]
            in_threads(lambda part: _hash_into(hashes[part], self.data, self.starts[part], self.lengths[part]),
                       [slice(low, high) for low, high in zip(cuts[:-1], cuts[1:], strict=True)])
            self._hashes = hashes
        return self._hashes

    def equal(self, positions, other: DocumentIds, other_positions) -> np.ndarray | bool:
        """Whether the ids at ``positions`` equal ``other``'s at ``other_positions``, pairwise (broadcast)."""
        mine, theirs = np.broadcast_arrays(np.asarray(positions), np.asarray(other_positions))
        scalar = mine.ndim == 0
        mine, theirs = mine.reshape(-1), theirs.reshape(-1)
        lengths = self.lengths[mine]
        same = lengths == other.lengths[theirs]
        candidates = np.flatnonzero(same)
        if candidates.size:
            same[candidates] = _same_bytes(self.data, self.starts[mine[candidates]], other.data,
                                           other.starts[theirs[candidates]], lengths[candidates])
        return bool(same[0]) if scalar else same

    def compare(self, positions, other: DocumentIds, other_positions) -> np.ndarray | None:
        """The byte order of the ids at ``positions`` against ``other``'s at ``other_positions``, pairwise: 1
        (greater), 0 (equal) or -1 (int8), as :meth:`codes` orders them (``strcmp``, a prefix first); None when an
        id is longer than :data:`SHORT_WORDS` words (:meth:`codes` orders those).

        >>> ids = DocumentIds.from_strings(["b", "ab", "a", "b"])
        >>> ids.compare([0, 1, 2], ids, [3, 0, 1]).tolist()
        [0, -1, -1]
        """
        mine, theirs = np.asarray(positions), np.asarray(other_positions)
        lengths, other_lengths = self.lengths[mine], other.lengths[theirs]
        words_at_most = int(_word_counts(np.maximum(lengths, other_lengths)).max(initial=0))
        if words_at_most > SHORT_WORDS:
            return None
        starts, other_starts = self.starts[mine].astype(np.int64), other.starts[theirs].astype(np.int64)
        order = np.sign(lengths.astype(np.int64) - other_lengths).astype(np.int8)  # all words equal: the longer
        decided = np.zeros(mine.size, dtype=bool)
        for j in range(words_at_most):
            words = _read_words(self.data, starts + 8 * j, lengths - 8 * j)
            other_words = _read_words(other.data, other_starts + 8 * j, other_lengths - 8 * j)
            greater, less = ~decided & (words > other_words), ~decided & (words < other_words)
            order[greater], order[less] = 1, -1
            decided |= greater | less
        return order

    def codes(self) -> np.ndarray:
        """Integer codes (int64, from 0) that sort as the ids sort byte by byte (``strcmp``); equal ids get
        equal codes. Ids of up to :data:`SHORT_WORDS` words are sorted by their words, then their lengths (a
        zero-padded prefix comes first); longer ones by Arrow (its binary comparison is ``memcmp``'s: unsigned
        bytes, a prefix first)."""
        n = len(self)
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        width = int(_word_counts(self.lengths).max(initial=0))
        if width <= SHORT_WORDS:
            starts = self.starts.astype(np.int64)
            keys = [self.lengths, *(_read_words(self.data, starts + 8 * j, self.lengths - 8 * j)
                                    for j in reversed(range(width)))]  # np.lexsort: the last key is the first
            order = np.lexsort(keys)
            new = np.zeros(n, dtype=bool)  # where a sorted id differs from the one before it
            for key in keys:
                ranked = key[order]
                new[1:] |= ranked[1:] != ranked[:-1]
        else:
            array = self._binary()
            indices = arrow_call("sort_indices", array)
            order = _numbers(indices, np.uint64).astype(np.int64)
            ordered = arrow_call("take", array, indices)
            new = np.zeros(n, dtype=bool)
            if n > 1:
                new[1:] = ~_booleans(arrow_call("equal", ordered.slice(1), ordered.slice(0, n - 1)))
        codes = np.empty(n, dtype=np.int64)
        codes[order] = np.cumsum(new)
        return codes

    def labels(self) -> tuple[np.ndarray, list[bytes]]:
        """Codes (int64) into the distinct ids, numbered in order of first appearance, and those ids (bytes):
        a column of few distinct values (topics, run tags), dictionary-encoded by Arrow."""
        encoded = arrow_call("dictionary_encode", self._binary())
        return _numbers(encoded.indices, np.int32).astype(np.int64), encoded.dictionary.to_pylist()

    def fixed_width(self, width: int) -> np.ndarray:
        """The ids as a numpy ``S`` array of ``width`` bytes (zero-padded), for ids no longer than that: the caller
        bounds the width (n × width bytes).

        >>> DocumentIds.from_strings(["ab", "c"]).fixed_width(2).tolist()
        [b'ab', b'c']
        """
        if int(self.lengths.max(initial=0)) > width:
            raise RuntimeError(f"an id is longer than {width} bytes: the caller bounds the width")
        data, offsets = _gather(self.data, self.starts, self.lengths)
        out = np.zeros(len(self) * max(width, 1), dtype=np.uint8)
        out[np.repeat(np.arange(len(self)) * max(width, 1) - offsets[:-1], self.lengths) + np.arange(data.size)] = data
        return out.view(f"S{max(width, 1)}")

    def strings(self) -> np.ndarray:
        """The ids as an object array of ``str`` (built once, by Arrow in C where they are UTF-8 text: 2M ids 0.15 →
        0.09 s; bytes invalid in the encoding are shown as escapes, ``\\xe9``, Python's ``backslashreplace``)."""
        if self._strings is None:
            array = self._string_array()
            if array is not None:
                self._strings = array.to_numpy(zero_copy_only=False).astype(object, copy=False)
            else:
                values = [value.decode(self._encoding, errors="backslashreplace")
                          for value in self._binary().to_pylist()]
                self._strings = np.asarray(values, dtype=object) if values else np.zeros(0, dtype=object)
        return self._strings

    def arrow(self):
        """The ids as an Arrow ``string`` array (built once, from the bytes without a Python object per id when
        they are valid UTF-8 in a UTF-8 column; from :meth:`strings` otherwise): what a pandas column of millions
        of ids is built from (``pd.arrays.ArrowExtensionArray``)."""
        import pyarrow as pa

        if self._arrow is None:
            array = self._string_array()
            self._arrow = array if array is not None else pa.array(self.strings().tolist(), type=pa.string())
        return self._arrow

    def _string_array(self):
        """The ids as an Arrow string array read from their bytes, or None when they are not UTF-8 text."""
        import pyarrow as pa

        if self._arrow is not None:
            return self._arrow
        if not _utf8(self._encoding):
            return None
        array = self._binary()
        try:
            return arrow_call("cast", array, target=pa.string() if int(self.lengths.sum()) < 2**31 else
                              pa.large_string())
        except pa.ArrowInvalid:  # bytes that are not UTF-8: the escapes of strings()
            return None

    def _binary(self):
        """The ids as an Arrow ``large_binary`` array over one contiguous copy of their bytes (none is made when
        they already lie one after the other)."""
        import pyarrow as pa

        data, offsets = _gather(self.data, self.starts, self.lengths)
        return pa.Array.from_buffers(pa.large_binary(), len(self), [None, pa.py_buffer(offsets),
                                                                     pa.py_buffer(data)])

    def __getitem__(self, position: int) -> str:
        """One id as a ``str``."""
        if self._strings is not None:
            return self._strings[position]
        return self.take([position]).strings()[0]


def _one_piece(encoding: str) -> None:
    """Refuse an encoding that does not write NUL as one byte (:meth:`DocumentIds.from_joined`)."""
    if encoding.lower().replace("_", "-") not in _FAST_ENCODINGS:
        raise _NotInOnePiece(f"{encoding} does not write NUL as one byte")


def positions(values: np.ndarray, size: int) -> np.ndarray:
    """Starts or lengths of ids in a buffer of ``size`` bytes as int32 when it is smaller than 2 GiB (half the
    memory of int64: 8 MB for 2M ids), else int64."""
    dtype = np.int32 if size < 2**31 else np.int64
    values = np.asarray(values)
    return values if values.dtype == dtype else values.astype(dtype)


def _cut(data: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Starts and lengths of the ``count`` ids of ``data`` separated by NUL bytes, found :data:`CUT_BYTES` bytes at a
    time and written straight in the dtype of :func:`positions` (no mask of every byte nor int64 positions of every
    NUL: 2M ids of 10 bytes, 36 MB less at the cut's peak); another number of NULs (an id holding one) raises
    :class:`_NotInOnePiece`.

    >>> [part.tolist() for part in _cut(np.frombuffer(b"a\\0bcd\\0e", np.uint8), 3)]
    [[0, 2, 6], [1, 3, 1]]
    """
    dtype = np.int32 if data.size < 2**31 else np.int64
    starts, lengths = np.zeros(count, dtype=dtype), np.empty(count, dtype=dtype)
    found = 0
    for low in range(0, data.size if count else 0, CUT_BYTES):
        nuls = np.flatnonzero(data[low:low + CUT_BYTES] == 0)
        if found + nuls.size >= count:
            break
        np.add(nuls, low + 1, out=starts[found + 1:found + 1 + nuls.size], casting="unsafe")
        found += nuls.size
    else:
        if found == max(count - 1, 0) and (count or not data.size):
            np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
            np.subtract(lengths[:-1], 1, out=lengths[:-1])  # the NUL
            if count:
                lengths[-1] = data.size - starts[-1]
            return starts, lengths
    raise _NotInOnePiece("an id holds a NUL")


def _utf8(encoding: str) -> bool:
    return encoding.lower().replace("-", "").replace("_", "") == "utf8"


def arrow_call(function: str, *arguments, target=None):
    """An Arrow compute function called by name (``target``: the type a ``cast`` makes), through
    ``pyarrow._compute``: ``pyarrow.compute``, which ``Array.cast``, ``take`` and ``dictionary_encode`` import,
    builds a wrapper for each of its 280 functions on import (0.15 s of CPU, a sixth of the drop-in's run)."""
    from pyarrow._compute import CastOptions, call_function

    return call_function(function, list(arguments), CastOptions.safe(target) if target is not None else None)


def _numbers(array, dtype) -> np.ndarray:
    """A numeric Arrow array without nulls as numpy, read from its buffer (pyarrow's ``to_numpy`` imports
    pandas)."""
    dtype = np.dtype(dtype)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * dtype.itemsize)


def _booleans(array) -> np.ndarray:
    """An Arrow boolean array without nulls as numpy (its bits unpacked)."""
    bits = np.unpackbits(np.frombuffer(array.buffers()[1], dtype=np.uint8), bitorder="little")
    return bits[array.offset:array.offset + len(array)].astype(bool)


# ------------------------------------------------------------------------------------------------- words
def _word_counts(lengths: np.ndarray) -> np.ndarray:
    return (lengths + 7) // 8


def _word_blocks(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray,
                 block: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The ids' words, :data:`WORDS_BLOCK` at a time in id order: ``(owners, positions, words)``, each word's id,
    its position in the id (0, 1, ...) and its value (big-endian, the bytes past the id's end zero). An id longer
    than a block is read over several blocks; an empty id has no word."""
    block = block or WORDS_BLOCK
    counts = _word_counts(lengths)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if ends.size else 0
    firsts = ends - counts
    for low in range(0, total, block):
        high = min(low + block, total)
        first_owner = int(np.searchsorted(ends, low, side="right"))
        last_owner = int(np.searchsorted(ends, high - 1, side="right"))
        mine = counts[first_owner:last_owner + 1]
        owners = np.repeat(np.arange(first_owner, last_owner + 1), mine)
        skip = low - int(firsts[first_owner])  # words of the first owner read in earlier blocks
        owners = owners[skip:skip + high - low]
        positions = np.arange(low, high) - firsts[owners]
        offsets = 8 * positions
        yield owners, positions, _read_words(data, starts[owners] + offsets, lengths[owners] - offsets)


def _read_words(data: np.ndarray, at: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """The 8 bytes of ``data`` from each of ``at`` as a big-endian uint64, the bytes past ``remaining`` zero (all of
    them where nothing remains), read through a window that starts at every byte; the last 7 bytes' words are
    shifted from the last full window."""
    size = data.size
    if size < 8:  # a tiny buffer: read from a padded copy
        data = np.concatenate((data, np.zeros(8 - size, dtype=np.uint8)))
        size = 8
    if not data.flags.c_contiguous:
        data = np.ascontiguousarray(data)
    windows = np.ndarray(shape=(size - 7,), dtype=">u8", buffer=data, strides=(1,))
    last = size - 8
    inside = at.size == 0 or (int(at.min()) >= 0 and int(at.max()) <= last)  # two reductions, no clipped copy
    words = windows[at if inside else np.clip(at, 0, last)].view(np.uint64)
    if _LITTLE_ENDIAN:  # big-endian read, native held: no second array (a big-endian machine's are native)
        words.byteswap(inplace=True)
    if not inside:
        late = at > last
        if late.any():  # within the buffer's last 7 bytes: the last window shifted, zeros coming in
            words[late] = words[late] << (np.uint64(8) * np.minimum(at[late] - last, 7).astype(np.uint64))
    if remaining.size and int(remaining.min()) < 8:  # a word every byte of which is kept needs no mask
        words &= _KEPT_BYTES[np.clip(remaining, 0, 8)]  # none where nothing remains (past a short id's end)
    return words


def _hash_into(out: np.ndarray, data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
    """:meth:`DocumentIds.hashes` of the ids at ``starts`` (``lengths`` bytes long) in ``data``, written to ``out``."""
    out[:] = 0
    for owners, positions, _, words in _every_word(data, starts, lengths):
        mixed = _mixed(words, positions)
        if isinstance(owners, slice):  # a word position of a block of ids: an id's padding is not mixed in
            past, block_lengths = 8 * int(positions), lengths[owners]  # ids this short end before the word
            if int(block_lengths.min(initial=past + 1)) <= past:
                mixed[block_lengths <= past] = 0
            out[owners] += mixed
        else:
            _add_by_owner(out, owners, mixed)
    for low in range(0, out.size, WORDS_BLOCK):  # the length mixed in a block at a time: no temporary of every id
        block = out[low:low + WORDS_BLOCK]
        block ^= lengths[low:low + WORDS_BLOCK].astype(np.uint64) * _POSITION
        block *= _MULTIPLIER
        block ^= block >> np.uint64(32)


def _mixed(words: np.ndarray, positions) -> np.ndarray:
    """Each word mixed with its position in its id (what :meth:`DocumentIds.hashes` adds up)."""
    mixed = words ^ (np.asarray(positions).astype(np.uint64) * _POSITION)
    mixed *= _MULTIPLIER
    mixed ^= mixed >> np.uint64(29)
    mixed *= _MULTIPLIER
    return mixed


def _add_by_owner(sums: np.ndarray, owners: np.ndarray, values: np.ndarray) -> None:
    """``sums[owner] += value`` for each word (owners ascending; uint64 sums wrap around)."""
    if not owners.size:
        return
    bounds = np.flatnonzero(np.concatenate(([True], owners[1:] != owners[:-1])))
    sums[owners[bounds]] += np.add.reduceat(values, bounds)


def _same_bytes(data: np.ndarray, starts: np.ndarray, other: np.ndarray, other_starts: np.ndarray,
                lengths: np.ndarray) -> np.ndarray:
    """Whether each id of ``data`` equals its partner in ``other`` (both of ``lengths`` bytes)."""
    differ = np.zeros(lengths.size, dtype=bool)
    other_starts = other_starts.astype(np.int64)
    for owners, _, offsets, words in _every_word(data, starts, lengths):
        theirs = _read_words(other, other_starts[owners] + offsets, lengths[owners] - offsets)
        if isinstance(owners, slice):  # past an id's end both words are 0
            differ[owners] |= words != theirs
        else:
            differ[owners[words != theirs]] = True
    return ~differ


def _every_word(data: np.ndarray, starts: np.ndarray,
                lengths: np.ndarray) -> Iterator[tuple[slice | np.ndarray, np.ndarray | int, np.ndarray | int,
                                                       np.ndarray]]:
    """Every word of the ids as ``(owners, positions, offsets, words)``: their first :data:`SHORT_WORDS` words a
    word position at a time over :data:`WORDS_BLOCK` ids (``owners`` a slice, ``positions`` one number, the words
    of ids that end earlier 0), then the rest of longer ids by blocks of words (:func:`_word_blocks`: ``owners``
    and ``positions`` per word). ``offsets``: where each word starts in its id (8 × position)."""
    counts = _word_counts(lengths)
    columns = min(int(counts.max(initial=0)), SHORT_WORDS)
    for low in range(0, lengths.size, WORDS_BLOCK):
        block = slice(low, low + WORDS_BLOCK)
        block_starts = starts[block].astype(np.int64)
        for j in range(columns):
            yield block, j, 8 * j, _read_words(data, block_starts + 8 * j, lengths[block] - 8 * j)
    longer = np.flatnonzero(counts > SHORT_WORDS)
    if longer.size:
        skipped = 8 * SHORT_WORDS
        for owners, positions, words in _word_blocks(data, starts[longer].astype(np.int64) + skipped,
                                                     lengths[longer] - skipped):
            yield longer[owners], positions + SHORT_WORDS, 8 * (positions + SHORT_WORDS), words


def _gather(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ids' bytes one after the other (a view of ``data`` when they already are) and their offsets (int64,
    ``n + 1``); copied :data:`GATHER_BYTES` at a time, an id larger than that as one slice."""
    n = lengths.size
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    first = int(starts[0]) if n else 0
    if total == 0 or (first + total <= data.size and np.array_equal(starts, offsets[:-1] + first)):
        return data[first:first + total], offsets
    out = np.empty(total, dtype=np.uint8)
    low = 0
    while low < n:
        high = max(int(np.searchsorted(offsets, offsets[low] + GATHER_BYTES, side="right")) - 1, low + 1)
        high = min(high, n)
        if high == low + 1:  # one id (perhaps a long one): one slice
            start = int(starts[low])
            out[offsets[low]:offsets[high]] = data[start:start + int(lengths[low])]
        else:
            shift = np.repeat(starts[low:high] - offsets[low:high], lengths[low:high])
            out[offsets[low]:offsets[high]] = data[np.arange(offsets[low], offsets[high]) + shift]
        low = high
    return out, offsets
