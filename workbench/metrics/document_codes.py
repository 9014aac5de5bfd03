"""Document ids as integer codes: what the R&S engines join the two sides of a pair (and a campaign's
organizations) on.

:func:`document_codes` is ``pandas.factorize`` of arrays of ids one after the other (codes in order of first
appearance, the ids themselves as the uniques) hashed by Arrow in C over the ids' UTF-8 bytes, about half of
pandas' time on a million distinct ids (issue 42: it was 40% of R&S on the 10⁶-occurrence shapes). Ids Arrow
cannot hold as UTF-8 (lone surrogates) are hashed by a Python dict, with the same result. :func:`document_index` is
the same codes without the ids: what the scores alone read.
"""

from __future__ import annotations

import numpy as np

__all__ = ["document_index", "document_codes"]


def document_index(*parts: np.ndarray) -> tuple[np.ndarray, int]:
    """The codes of :func:`document_codes` and the number of distinct ids, without the ids themselves: they cost a
    pass over the ids' objects (50 ms of R&S on issue 22's hardest shape, 2.5M ids) that the scores do not read.

    >>> codes, n_ids = document_index(np.array(["d2", "d1"], dtype=object), np.array(["d2", "d3"], dtype=object))
    >>> codes.tolist(), n_ids
    ([0, 1, 0, 2], 3)
    """
    import pyarrow as pa  # here, not at import: the registry loads the measure modules for every measure name
    import pyarrow.compute as pc

    # malloc's pool, not Arrow's default (mimalloc): 2.5M ids of issue 22's hardest shape coded in 0.46-0.49 against
    # 0.51-0.54 user seconds, peak 620 against 680 MB, and none of mimalloc's fresh segments (0.04-1.3 s of system
    # time where the kernel compacts memory; 3 fresh processes each, interleaved).
    pool = pa.system_memory_pool()
    try:
        encoded = pc.dictionary_encode(pa.chunked_array([pa.array(part, type=pa.large_string(), memory_pool=pool)
                                                         for part in parts], type=pa.large_string()),
                                       memory_pool=pool)
        # One hash table for every chunk, its final dictionary given to each (Arrow's DictEncodeFinalize): codes
        # of one space; faster than encoding the parts joined (0.42 against 0.56 CPU-s on 2.5M ids).
        codes = np.concatenate([np.zeros(0, dtype=np.int64)]
                               + [chunk.indices.to_numpy().astype(np.int64) for chunk in encoded.chunks])
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 bytes to hash
        ids = [doc for part in parts for doc in part.tolist()]
        index = {doc: code for code, doc in enumerate(dict.fromkeys(ids))}
        codes = np.fromiter(map(index.__getitem__, ids), dtype=np.int64, count=len(ids))
    return codes, int(codes.max(initial=-1)) + 1


def document_codes(*parts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The code (int64) of each id of the parts (object arrays) one after the other, numbering the distinct ids in
    order of first appearance, and those ids (an object array: the first occurrence of each):
    ``pandas.factorize(np.concatenate(parts))``, without concatenating them.

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
        part[first[end - len(part):end]] for part, end in zip(parts, ends.tolist(), strict=True)])
