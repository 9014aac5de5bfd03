"""DocumentIds: byte order, equality and hashes on words equal to the same on Python bytes and strings."""

import numpy as np
import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import ids as ids_module
from workbench.ids import DocumentIds
from workbench.metrics.ranking import trec_eval_order

ID_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=30)


def _all_ways(values: list[str]) -> list[DocumentIds]:
    encoded = [value.encode("utf-8") for value in values]
    return [DocumentIds.from_strings(values), DocumentIds.from_arrow(pa.array(values, pa.string())),
            DocumentIds.from_arrow(pa.chunked_array([pa.array(encoded[:2], pa.binary()),
                                                     pa.array(encoded[2:], pa.large_binary()).cast(pa.binary())])),
            DocumentIds.from_bytes(np.array(encoded, dtype="S") if encoded else np.zeros(0, "S1"), "utf-8")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(ID_TEXT, st.sampled_from(["a", "ab", "b", "é", "a" * 8, "a" * 9, "a" * 16])),
                min_size=0, max_size=40))
def test_codes_equality_hashes_and_strings_agree_with_python(values):
    ranks = {value: i for i, value in enumerate(sorted(set(v.encode("utf-8") for v in values)))}
    expected = [ranks[value.encode("utf-8")] for value in values]
    first = _all_ways(values)[0]
    for ids in _all_ways(values):
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
@given(values=st.lists(st.binary(max_size=20), max_size=30), block=st.integers(1, 7))
def test_words_are_the_ids_bytes_whatever_the_block(values, block, monkeypatch):
    """Ids are cut into words a block of ids at a time: each row of words is the id's bytes, zero-padded,
    whatever the blocks' bounds."""
    with monkeypatch.context() as patch:
        patch.setattr(ids_module, "WORDS_BLOCK", block)
        ids = DocumentIds.from_arrow(pa.array(values, pa.binary()))
    width = 8 * ids.words.shape[1]
    assert [b"".join(int(word).to_bytes(8, "big") for word in row) for row in ids.words.tolist()] == \
        [value + bytes(width - len(value)) for value in values]
    assert ids.lengths.tolist() == [len(value) for value in values]


def test_hashes_do_not_depend_on_the_other_ids_widths():
    """An id hashes the same in a column of short ids as beside a long one (two files' ids are joined by
    hash)."""
    short = DocumentIds.from_strings(["d1", "", "a" * 8])
    wide = DocumentIds.from_bytes(np.array([b"d1", b"", b"a" * 8, b"document-id-longer-than-a-word"], dtype="S"))
    assert short.words.shape[1] < wide.words.shape[1]
    assert short.hashes().tolist() == wide.hashes()[:3].tolist()


def test_a_binary_source_decodes_with_its_encoding():
    ids = DocumentIds.from_arrow(pa.array([b"caf\xe9", b"x"], pa.binary()), encoding="latin-1")
    assert ids.strings().tolist() == ["café", "x"]
    assert ids.codes().tolist() == [0, 1]


def test_ids_longer_than_a_word_and_prefixes():
    values = ["doc-000000001", "doc-000000001x", "doc-00000000", "doc-000000002", ""]
    ids = DocumentIds.from_strings(values)
    assert ids.codes().tolist() == [2, 3, 1, 4, 0]
    assert ids.words.shape == (5, 2)
    assert not ids.equal(0, ids, 1)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(ID_TEXT, st.sampled_from([0.5, 0.25, 1.0, 0.30000001, 0.3]), st.integers(0, 2)),
                min_size=1, max_size=30, unique_by=lambda entry: (entry[0], entry[2])))
def test_trec_eval_order_breaks_ties_on_words_as_on_strings(entries):
    docs, scores, groups = (list(column) for column in zip(*entries, strict=True))
    expected = trec_eval_order(scores, docs, groups=np.array(groups)).tolist()
    assert trec_eval_order(scores, DocumentIds.from_strings(docs), groups=np.array(groups)).tolist() == expected
