"""DocumentIds: byte order, equality and hashes on a byte buffer equal to the same on Python bytes and strings."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from workbench import ids as ids_module
from workbench.ids import DocumentIds
from workbench.metrics.ranking import trec_eval_order
from workbench.threads import THREADS_VARIABLE

ID_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)


def _all_ways(values: list[str]) -> list[DocumentIds]:
    encoded = [value.encode("utf-8") for value in values]
    return [DocumentIds.from_strings(values), DocumentIds.from_arrow(pa.array(values, pa.string())),
            DocumentIds.from_arrow(pa.chunked_array([pa.array(encoded[:2], pa.binary()),
                                                     pa.array(encoded[2:], pa.large_binary()).cast(pa.binary())])),
            DocumentIds.from_bytes(np.array(encoded, dtype="S") if encoded else np.zeros(0, "S1"), "utf-8")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.one_of(ID_TEXT, st.sampled_from(["a", "ab", "b", "é", "a" * 8, "a" * 9, "a" * 16,
                                                           "a\0b"])), min_size=0, max_size=40),
       short=st.sampled_from([0, 1, 4]))
def test_codes_equality_hashes_and_strings_agree_with_python(values, short, monkeypatch):
    """Codes are the byte order whichever way they are found (words for short ids, Arrow for long ones)."""
    ranks = {value: i for i, value in enumerate(sorted(set(v.encode("utf-8") for v in values)))}
    expected = [ranks[value.encode("utf-8")] for value in values]
    first = _all_ways(values)[0]
    for ids in _all_ways(values):
        with monkeypatch.context() as patch:
            patch.setattr(ids_module, "SHORT_WORDS", short)
            assert ids.codes().tolist() == expected  # strcmp order = code point order on UTF-8
        assert ids.strings().tolist() == values
        assert (ids.hashes() == first.hashes()).all()  # the same hash whatever the source
        if values:
            i, j = np.meshgrid(np.arange(len(values)), np.arange(len(values)))
            same = np.array([[a == b for a in values] for b in values])
            assert (ids.equal(i.ravel(), first, j.ravel()) == same.ravel()).all()
            picked = np.arange(len(values))[::-2]
            assert ids.take(picked).strings().tolist() == [values[k] for k in picked]
            assert ids.take(picked)[0] == values[picked[0]]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.binary(max_size=40), max_size=30), block=st.integers(1, 7),
       gather=st.integers(1, 40), short=st.integers(0, 5), threaded=st.integers(1, 8), picked=st.data())
def test_words_and_copies_whatever_the_blocks(values, block, gather, short, threaded, picked, monkeypatch):
    """Ids are read a block of words at a time (their first words a word position at a time) and copied a block
    of bytes at a time (an id longer than a block over several blocks), and hashed in parts of whole ids on two
    threads: hashes, equality, order and the bytes copied are the same whatever the blocks' bounds and the parts,
    on the ids in place and on any selection of them."""
    ids = DocumentIds.from_arrow(pa.array(values, pa.binary()))
    expected = ids.hashes().copy()
    positions = picked.draw(st.lists(st.integers(0, max(len(values) - 1, 0)), max_size=len(values) * 2)) \
        if values else []
    with monkeypatch.context() as patch:
        patch.setattr(ids_module, "WORDS_BLOCK", block)
        patch.setattr(ids_module, "GATHER_BYTES", gather)
        patch.setattr(ids_module, "SHORT_WORDS", short)
        patch.setattr(ids_module, "THREADED_IDS", threaded)
        patch.setenv(THREADS_VARIABLE, "2")
        again = DocumentIds.from_arrow(pa.array(values, pa.binary()))
        assert (again.hashes() == expected).all()
        taken = again.take(np.array(positions, dtype=np.int64))
        assert taken.arrow().to_pylist() == [values[k].decode("utf-8", "backslashreplace") for k in positions] \
            or taken.strings().tolist() == [values[k].decode("utf-8", "backslashreplace") for k in positions]
        data, offsets = ids_module._gather(taken.data, taken.starts, taken.lengths)
        assert [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(len(positions))] == \
            [values[k] for k in positions]
        if positions:
            assert (taken.equal(np.arange(len(positions)), again, np.array(positions))).all()
    assert ids.lengths.tolist() == [len(value) for value in values]


def test_hashes_do_not_depend_on_the_buffer():
    """An id hashes the same in a column of short ids as beside a long one, and at the end of its buffer (two
    files' ids are joined by hash)."""
    short = DocumentIds.from_strings(["d1", "", "a" * 8])
    wide = DocumentIds.from_bytes(np.array([b"d1", b"", b"a" * 8, b"document-id-longer-than-a-word"], dtype="S"))
    tail = DocumentIds.from_buffer(b"xxd1", [2], [4])
    assert short.hashes().tolist() == wide.hashes()[:3].tolist()
    assert tail.hashes()[0] == short.hashes()[0] and tail.equal(0, short, 0)


def test_the_hashes_of_a_part_are_those_of_its_ids_and_are_not_kept():
    """A part's hashes (what the join reads a block at a time) are the whole column's at those places, made
    without keeping a hash of every id; once the column's are kept, a part reads them."""
    ids = DocumentIds.from_strings(["", "a", "é", "d1", "a" * 8, "a" * 9, "document-id-longer-than-a-word", "d1"])
    parts = [slice(0, 8), slice(2, 7), slice(5, 20), slice(8, 8), slice(3, 1)]
    made = [ids.hashes(part) for part in parts]
    assert ids._hashes is None
    assert [hashes.tolist() for hashes in made] == [ids.hashes()[part].tolist() for part in parts] == \
        [ids.hashes(part).tolist() for part in parts]


def test_a_very_long_id_costs_its_bytes():
    """One id of 20 MB among 100,000 short ones: the ids take their bytes (no column as wide as the longest id),
    and hashing, order and equality read each byte a few times."""
    short = [f"d{i}" for i in range(100_000)]
    long_id = "L" * (20 << 20)
    ids = DocumentIds.from_strings([*short[:50_000], long_id, *short[50_000:], long_id])
    assert ids.data.nbytes < 2 * (20 << 20) + 10 * len(short)
    assert ids.starts.nbytes + ids.lengths.nbytes == 8 * len(ids)  # int32 starts and lengths in a buffer < 2 GiB
    codes = ids.codes()
    assert codes[50_000] == codes[-1] == 0 and ids.equal(50_000, ids, len(ids) - 1)  # "L" sorts before "d"
    assert ids.hashes()[50_000] == ids.hashes()[-1] and len(set(ids.hashes().tolist())) == len(short) + 1


def test_a_binary_source_decodes_with_its_encoding():
    ids = DocumentIds.from_arrow(pa.array([b"caf\xe9", b"x"], pa.binary()), encoding="latin-1")
    assert ids.strings().tolist() == ["café", "x"]
    assert ids.codes().tolist() == [0, 1]


def test_ids_longer_than_a_word_and_prefixes():
    values = ["doc-000000001", "doc-000000001x", "doc-00000000", "doc-000000002", ""]
    ids = DocumentIds.from_strings(values)
    assert ids.codes().tolist() == [2, 3, 1, 4, 0]
    assert not ids.equal(0, ids, 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ID_TEXT, st.sampled_from([0.5, 0.25, 1.0, 0.30000001, 0.3]), st.integers(0, 2)),
                min_size=1, max_size=30, unique_by=lambda entry: (entry[0], entry[2])))
def test_trec_eval_order_breaks_ties_on_words_as_on_strings(entries):
    docs, scores, groups = (list(column) for column in zip(*entries, strict=True))
    expected = trec_eval_order(scores, docs, groups=np.array(groups)).tolist()
    assert trec_eval_order(scores, DocumentIds.from_strings(docs), groups=np.array(groups)).tolist() == expected
    ascending = trec_eval_order(scores, docs, groups=np.array(groups), ids="ascending").tolist()
    assert trec_eval_order(scores, DocumentIds.from_strings(docs), groups=np.array(groups),
                           ids="ascending").tolist() == ascending


@settings(max_examples=20, deadline=None)
@given(st.lists(st.one_of(ID_TEXT, st.sampled_from(["a", "ab", "abcdefgh", "abcdefghi", "b", ""])), min_size=1,
                max_size=20), st.data())
def test_compare_orders_pairs_as_codes_do(values, data):
    """Pairwise byte order (-1, 0, 1) is the sign of the codes' difference; None past SHORT_WORDS words."""
    ids = DocumentIds.from_strings(values)
    left = data.draw(st.lists(st.integers(0, len(values) - 1), min_size=1, max_size=10))
    right = data.draw(st.lists(st.integers(0, len(values) - 1), min_size=len(left), max_size=len(left)))
    compared = ids.compare(left, ids, right)
    if max(len(values[i].encode()) for i in left + right) > 8 * ids_module.SHORT_WORDS:
        assert compared is None
    else:
        codes = ids.codes()
        assert compared.tolist() == np.sign(codes[left] - codes[right]).tolist()


def test_a_tied_pair_of_one_document_keeps_its_input_order():
    """A document given twice with one score (a run that repeats it: refused when its topic is used), as the
    strings' order puts it: input order, whatever side of the pair it is compared from."""
    for ids in ("descending", "ascending"):
        expected = trec_eval_order([1.0, 1.0, 2.0, 2.0], ["a", "b", "c", "c"], ids=ids).tolist()
        assert expected == [2, 3, 1, 0] if ids == "descending" else [2, 3, 0, 1]
        assert trec_eval_order([1.0, 1.0, 2.0, 2.0], DocumentIds.from_strings(["a", "b", "c", "c"]),
                               ids=ids).tolist() == expected


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.text(max_size=6), max_size=12), block=st.integers(1, 5), nuls=st.integers(-1, 1))
def test_joined_ids_are_cut_at_their_nuls_whatever_the_blocks(values, block, nuls, monkeypatch):
    """Joined ids are cut at their NULs a block of CUT_BYTES bytes at a time (NULs at a block's edge, empty ids,
    non-ASCII): each id's bytes as given; a count that is not the NULs' plus one is refused as an id holding a
    NUL."""
    monkeypatch.setattr(ids_module, "CUT_BYTES", block)
    values = [value.replace("\0", "") for value in values]
    joined = "\0".join(values)
    count = max(len(values) + nuls, 0)
    cut = joined.split("\0") if count else [] if not joined else None  # "" is one empty id, or none
    if cut is not None and len(cut) == count:
        ids = DocumentIds.from_joined(joined, count)
        assert [ids.data[start:start + length].tobytes() for start, length in zip(ids.starts, ids.lengths,
                                                                                   strict=True)] == \
            [value.encode("utf-8", "surrogatepass") for value in cut]
        assert ids.strings().tolist() == cut
    else:
        with pytest.raises(ValueError, match="holds a NUL"):
            DocumentIds.from_joined(joined, count)


@settings(max_examples=15, deadline=None)
@given(st.binary(min_size=0, max_size=40), st.lists(st.tuples(st.integers(0, 45), st.integers(-9, 12)), min_size=1,
                                                    max_size=12))
def test_words_are_read_as_their_bytes_say(data, reads):
    """Issue 42: ``_read_words`` reads each word as the 8 bytes from its position, big-endian, the bytes past
    ``remaining`` zero (a word that keeps a byte lies in the buffer up to it, as an id's does), whether every word
    lies inside the buffer and is whole (read without the clipped copy, the end search and the mask) or not; a
    reference reads them byte by byte."""
    reads = [(p, left) for p, left in reads if p + min(left, 8) <= len(data)]  # none kept: anywhere
    assume(reads)
    buffer = np.frombuffer(data, dtype=np.uint8)
    at = np.array([position for position, _ in reads], dtype=np.int64)
    remaining = np.array([left for _, left in reads], dtype=np.int32)
    inside = at[at + 8 <= max(len(data), 8)]  # a batch of words inside the buffer: the fast path when all are whole
    for positions, lefts in ((at, remaining), (inside, np.full(inside.size, 8, dtype=np.int32))):
        expected = [int.from_bytes((data + bytes(8))[p:p + 8][:max(min(left, 8), 0)].ljust(8, b"\0"), "big")
                    for p, left in zip(positions.tolist(), lefts.tolist(), strict=True)]
        assert ids_module._read_words(buffer, positions, lefts).tolist() == expected
