"""Document ids as integer codes: what the R&S engines join the two sides of a pair (and a campaign's
organizations) on.

:func:`document_codes` is ``pandas.factorize`` of arrays of ids one after the other (codes in order of first
appearance, the ids themselves as the uniques) hashed by Arrow in C over the ids' UTF-8 bytes, about half of
pandas' time on a million distinct ids (issue 42: it was 40% of R&S on the 10⁶-occurrence shapes). A part is an
object array of ids, or an Arrow string array (a read run's ids, :meth:`~workbench.ids.DocumentIds.arrow`: hashed
from their bytes, with no Python string made per id). Ids Arrow cannot hold as UTF-8 (lone surrogates) are hashed
by a Python dict, with the same result. :func:`document_index` is the same codes without the ids: what the scores
alone read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["document_index", "document_codes"]


def document_index(*parts: Any) -> tuple[np.ndarray, int]:
    """The codes of :func:`document_codes` and the number of distinct ids, without the ids themselves: they cost a
    pass over the ids' objects (50 ms of R&S on issue 22's hardest shape, 2.5M ids) that the scores do not read.

    >>> import pyarrow as pa
    >>> codes, n_ids = document_index(np.array(["d2", "d1"], dtype=object), pa.array(["d2", "d3"]))
    >>> codes.tolist(), n_ids
    ([0, 1, 0, 2], 3)
    """
    try:
        encoded = _dictionary_encoded(parts)
        # One hash table for every chunk, its final dictionary given to each (Arrow's DictEncodeFinalize): codes
        # of one space; faster than encoding the parts joined (0.42 against 0.56 CPU-s on 2.5M ids).
        codes = np.concatenate([np.zeros(0, dtype=np.int64)]
                               + [chunk.indices.to_numpy().astype(np.int64) for chunk in encoded.chunks])
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 bytes to hash
        ids = [doc for part in parts for doc in _listed(part)]
        index = {doc: code for code, doc in enumerate(dict.fromkeys(ids))}
        codes = np.fromiter(map(index.__getitem__, ids), dtype=np.int64, count=len(ids))
    return codes, int(codes.max(initial=-1)) + 1


def document_codes(*parts: Any) -> tuple[np.ndarray, np.ndarray]:
    """The code (int64) of each id of the parts (object arrays, or Arrow string arrays) one after the other,
    numbering the distinct ids in order of first appearance, and those ids (an object array: the first occurrence
    of each, the given object where an object array holds it): ``pandas.factorize(np.concatenate(parts))``,
    without concatenating them.

    >>> codes, names = document_codes(np.array(["d2", "d1"], dtype=object), np.array(["d2", "d3"], dtype=object))
    >>> codes.tolist(), names.tolist()
    ([0, 1, 0, 2], ['d2', 'd1', 'd3'])
    """
    codes, _ = document_index(*parts)
    # An id appears first where its code exceeds every code before it (codes count up from 0 in that order).
    first = np.ones(len(codes), dtype=bool)
    first[1:] = codes[1:] > np.maximum.accumulate(codes)[:-1]
    ends = np.cumsum([len(part) for part in parts], dtype=np.int64)
    return codes, np.concatenate([np.zeros(0, dtype=object)] + [
        _firsts(part, first[end - len(part):end]) for part, end in zip(parts, ends.tolist(), strict=True)])


def _dictionary_encoded(parts: tuple[Any, ...]) -> Any:
    """The parts one after the other dictionary-encoded by Arrow, as one chunked array: of ``string`` when the
    Arrow parts are (a read run's ids: no cast of each part, 40 µs apiece), else of ``large_string``; the former
    again as the latter when its distinct ids pass 2 GiB."""
    import pyarrow as pa  # here, not at import: the registry loads the measure modules for every measure name
    import pyarrow.compute as pc

    # malloc's pool, not Arrow's default (mimalloc): 2.5M ids of issue 22's hardest shape coded in 0.46-0.49 against
    # 0.51-0.54 user seconds, peak 620 against 680 MB, and none of mimalloc's fresh segments (0.04-1.3 s of system
    # time where the kernel compacts memory; 3 fresh processes each, interleaved).
    pool = pa.system_memory_pool()
    read = [part.type for part in parts if isinstance(part, pa.Array)]
    kind = pa.string() if read and all(one == pa.string() for one in read) else pa.large_string()

    def encoded(kind: Any) -> Any:
        chunks = [chunk for part in parts for chunk in _arrow_chunks(part, kind, pool)]
        return pc.dictionary_encode(pa.chunked_array(chunks, type=kind), memory_pool=pool)

    try:
        return encoded(kind)
    except pa.ArrowCapacityError:  # 32-bit offsets overflowed
        if kind == pa.large_string():
            raise
        return encoded(pa.large_string())


def _arrow_chunks(part: Any, kind: Any, pool: Any) -> list[Any]:
    """A part as Arrow arrays of ``kind`` (one, or more where an object array's ids pass 2 GiB)."""
    import pyarrow as pa

    if isinstance(part, pa.Array):
        return [part if part.type == kind else part.cast(kind)]
    made = pa.array(part, type=kind, memory_pool=pool)
    return made.chunks if isinstance(made, pa.ChunkedArray) else [made]


def _listed(part: Any) -> list:
    """A part's ids as a list of Python objects."""
    return part.tolist() if isinstance(part, np.ndarray) else part.to_pylist()


def _firsts(part: Any, mask: np.ndarray) -> np.ndarray:
    """The ids of a part where ``mask`` holds, as an object array (an object array's own objects)."""
    import pyarrow as pa

    if isinstance(part, np.ndarray):
        return part[mask]
    if not mask.any():  # the common case past a campaign's first runs: no Arrow call
        return np.zeros(0, dtype=object)
    return part.filter(pa.array(mask)).to_numpy(zero_copy_only=False).astype(object, copy=False)
