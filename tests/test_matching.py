"""The one matcher (issue 39 item 2): read ids (hashed), names given by hand (coded exactly) and the subtopic
table's documents all meet their judgements through workbench.metrics.ranking.matching, and who sits where is
built once (``seated``). Every test compares against a plain dict lookup of (row, document), the rule itself."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench.threads as threads_module
from tests.strategies import document_ids, organizations
from workbench.data.trec.join import JUDGED_SIDES, gain_table, subtopic_table
from workbench.data.trec.memory import judgements_from_dicts, runs_from_dicts
from workbench.ids import DocumentIds
from workbench.metrics.ranking.diversity import SubtopicTable
from workbench.metrics.ranking.matching import BLOCK, Judged, entries, keys, match, match_names, seated, with_groups
from workbench.metrics.ranking.table import GainTable, judgements_of, organization_table, ranked_documents
from workbench.model import Organization
from workbench.threads import THREADS_VARIABLE

rows_of_documents = st.lists(st.lists(document_ids, unique=True, max_size=6), min_size=1, max_size=4)


def _by_dict(judged: list[dict[str, float]], ranked: list[list[str]]) -> list[int]:
    """The rule: each ranked (row, document)'s position among the judgements, in their order, -1 when none."""
    place = {(row, doc): j for j, (row, doc) in enumerate((row, doc) for row, grades in enumerate(judged)
                                                            for doc in grades)}
    return [place.get((row, doc), -1) for row, ranking in enumerate(ranked) for doc in ranking]


@settings(max_examples=20, deadline=None)
@given(rows_of_documents, rows_of_documents, st.data())
def test_hashed_and_named_matches_find_exactly_the_judged_pairs(judged_docs, ranked, data):
    n = max(len(judged_docs), len(ranked))
    judged_docs += [[]] * (n - len(judged_docs))
    ranked = ranked + [[]] * (n - len(ranked))
    for row, docs in enumerate(judged_docs):  # some judged documents retrieved
        if docs:
            extra = data.draw(st.lists(st.sampled_from(docs), unique=True))
            ranked[row] = ranked[row] + [doc for doc in extra if doc not in ranked[row]]
    judged = [{doc: float(i) for i, doc in enumerate(docs)} for docs in judged_docs]
    expected = _by_dict(judged, ranked)
    named, rows, positions = match_names(judged, ranked)
    assert positions.tolist() == expected
    assert rows.tolist() == [row for row, ranking in enumerate(ranked) for _ in ranking]
    hashed = Judged.of(*entries([list(grades) for grades in judged]), named.grades, n)
    assert match([entries(ranked)], hashed, n)[0].tolist() == expected


def test_colliding_hashes_fall_back_to_exact_codes(monkeypatch):
    """Every id hashed alike (its length): the matcher still matches only equal ids, by exact codes."""
    monkeypatch.setattr(DocumentIds, "hashes", lambda self, part=slice(None): self.lengths[part].astype(np.uint64))
    judged = [{"ab": 1.0, "cd": 2.0}, {"ab": 3.0}]
    ranked = [["cd", "ef", "ab"], ["xy", "ab"]]
    hashed = Judged.of(*entries([list(grades) for grades in judged]), np.array([1.0, 2.0, 3.0]), 2)
    assert match([entries(ranked)], hashed, 2)[0].tolist() == _by_dict(judged, ranked) == [1, -1, 0, -1, 2]



def test_three_equal_keys_fall_back_to_exact_codes_whatever_the_sort_puts_between_them(monkeypatch):
    """Every id hashed to 0: one judged key and three ranked ones are equal (the keys are sorted without a stable
    order, so a judged key may sit between two ranked ones); the match is still the exact one."""
    monkeypatch.setattr(DocumentIds, "hashes", lambda self, part=slice(None): np.zeros(len(self), np.uint64)[part])
    judged = [{"a": 1.0}]
    ranked = [["b", "a", "c"]]
    hashed = Judged.of(*entries([list(grades) for grades in judged]), np.array([1.0]), 1)
    assert match([entries(ranked)], hashed, 1)[0].tolist() == _by_dict(judged, ranked) == [-1, 0, -1]

@settings(max_examples=8, deadline=None)
@given(rows_of_documents, rows_of_documents)
def test_blocks_shared_among_two_threads_match_as_one_pass(judged_docs, ranked):
    """Issue 42: the entries' blocks and the check of the matched pairs are cut among two threads (blocks of 2
    entries here, so that even a few entries are cut): the positions are the rule's, a collision in any block is
    still found."""
    import workbench.metrics.ranking.matching as matching

    n = max(len(judged_docs), len(ranked))
    judged_docs, ranked = judged_docs + [[]] * (n - len(judged_docs)), ranked + [[]] * (n - len(ranked))
    ranked = [ranking + [doc for doc in docs[::2] if doc not in ranking]  # every other judged one retrieved
              for ranking, docs in zip(ranked, judged_docs, strict=True)]
    judged = [{doc: float(i) for i, doc in enumerate(docs)} for docs in judged_docs]
    hashed = Judged.of(*entries([list(grades) for grades in judged]), np.arange(sum(map(len, judged)), dtype=float),
                       n)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(THREADS_VARIABLE, "2")
        patch.setattr(matching, "BLOCK", 2)
        patch.setattr(threads_module, "threads", lambda: 2)  # two threads on a machine of one core too
        assert match([entries(ranked)], hashed, n)[0].tolist() == _by_dict(judged, ranked)
        patch.setattr(DocumentIds, "hashes",
                      lambda self, part=None: self.lengths[slice(None) if part is None else part].astype(np.uint64))
        collided = Judged.of(*entries([list(grades) for grades in judged]), hashed.grades, n)
        assert match([entries(ranked)], collided, n)[0].tolist() == _by_dict(judged, ranked)


def test_who_sits_where_keeps_rows_in_rank_order_and_lists_the_missed_relevant_ones():
    """Hand-computed: row 1's entries come first in the input; the judged relevant documents not retrieved are
    listed row by row, in the judgements' order (by grade, then by id, for an Organization's)."""
    judged = Judged.of(np.array([0, 0, 0, 1]), DocumentIds.from_strings(["z", "a", "m", "q"]),
                       np.array([1.0, 2.0, 0.0, 1.0]), 2)
    rows, documents = np.array([1, 0, 0]), DocumentIds.from_strings(["q", "m", "x"])
    positions = match([(rows, documents)], judged, 2)[0]
    assert positions.tolist() == [3, 2, -1]
    seen = seated(rows, documents, judged, positions)
    assert seen.retrieved.strings().tolist() == ["m", "x", "q"]
    assert (seen.missing_rows.tolist(), seen.missing_documents.strings().tolist(), seen.missing_grades.tolist()) \
        == ([0, 0], ["z", "a"], [1.0, 2.0])
    by_grade = seated(rows, documents, judged, positions, by_grade=True)
    assert by_grade.missing_documents.strings().tolist() == ["a", "z"]


@settings(max_examples=20, deadline=None)
@given(organizations(), organizations())
def test_organizations_and_read_arrays_make_the_same_table_and_seats(gold, output):
    """The same topic as Organizations (names coded exactly) and as read arrays (hashed ids): one table, and the
    same documents in the same seats (an Organization's misses by grade then id, the arrays' in qrels order)."""
    table, seats = organization_table(gold, output, documents=True)
    grades, ranked = judgements_of(gold), ranked_documents(output)
    if not ranked or not grades:  # a read run or qrels of no entry holds no topic
        return
    qrels = judgements_from_dicts({"q": grades})
    run = runs_from_dicts({"s": {"q": {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}}})["s"]
    read, read_seats = gain_table(qrels, run, ["q"], documents=True)
    for field in ("gains", "ideal", "judged", "pooled", "num_ret", "n_judged"):
        assert getattr(read, field).tolist() == getattr(table, field).tolist(), field
    assert read_seats.retrieved.strings().tolist() == seats.retrieved.tolist() == ranked
    assert sorted(read_seats.missing_documents.strings().tolist()) == sorted(seats.missing_documents.tolist())


def test_a_campaign_of_organizations_joins_by_names_with_trec_eval_s_placeholder():
    gold = {"q1": Organization.from_graded({"a": 2, "b": 1}), "q2": Organization.from_graded({"c": 1})}
    run = {"q1": Organization.parse("b a\nx")}
    table, seats = gain_table(gold, run, ["q1", "q2"], placeholders=True, documents=True)
    assert table.gains.tolist() == [[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]  # a tied level: the greatest id first
    assert table.tied.tolist() == [[False, True, False], [False, False, False]]
    assert table.placeholder.tolist() == [False, True]
    assert seats.retrieved.tolist() == ["b", "a", "x", "ceci_nest_pas_un_docno"]
    assert (seats.missing_rows.tolist(), seats.missing_documents.tolist()) == ([1], ["c"])


def test_the_join_s_cache_is_its_own_object_not_an_attribute_of_the_judgements():
    qrels = judgements_from_dicts({"q": {"a": 1.0}})
    run = runs_from_dicts({"s": {"q": {"a": 1.0}}})["s"]
    before = dict(getattr(qrels, "__dict__", {}))
    first = gain_table(qrels, run, ["q"])
    assert dict(getattr(qrels, "__dict__", {})) == before
    side = JUDGED_SIDES.side(qrels, ["q"], lambda: None)
    assert isinstance(side, Judged) and side.documents.strings().tolist() == ["a"]
    assert gain_table(qrels, run, ["q"]).gains.tolist() == first.gains.tolist()


def test_judged_sides_are_kept_disjoint_and_shared_by_threads():
    """The join's cache keeps the sides of disjoint sets of topics (a run's blocks), lets go of those a new side
    overlaps, at most SIDES_KEPT of them; threads asking for overlapping sets at once each get their own topics'
    side (no error from a cache changed under another thread)."""
    import sys
    import threading

    from workbench.data.trec.join import SIDES_KEPT, JudgedSides

    sides, gold, built = JudgedSides(), type("Gold", (), {})(), []

    def side(topics):
        return sides.side(gold, topics, lambda: built.append(tuple(topics)) or tuple(topics))

    blocks = [[f"q{2 * k}", f"q{2 * k + 1}"] for k in range(SIDES_KEPT + 1)]
    assert [side(block) for block in blocks[:SIDES_KEPT]] == [side(block) for block in blocks[:SIDES_KEPT]]
    assert len(built) == SIDES_KEPT  # every block's side found again
    side(blocks[SIDES_KEPT])  # one more: the least recently used, the first block's, let go
    side(blocks[0])
    side(["q3", "q4"])  # overlaps the second and third blocks: both let go
    assert len(built) == SIDES_KEPT + 3 and side(blocks[3]) == tuple(blocks[3]) and len(built) == SIDES_KEPT + 3
    side(blocks[1])
    assert len(built) == SIDES_KEPT + 4
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch as often as they can
    failures: list[object] = []

    def ask(seed: int) -> None:
        for k in range(1000):
            topics = [f"t{(seed * 7 + k * j) % 23}" for j in range(1, 4)]
            topics = list(dict.fromkeys(topics))
            try:
                if side(topics) != tuple(topics):
                    failures.append(topics)
            except Exception as error:  # noqa: BLE001  # a cache changed under this thread
                failures.append(error)

    try:
        workers = [threading.Thread(target=ask, args=(seed,)) for seed in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []


def test_the_subtopic_table_finds_ranked_documents_through_the_matcher():
    """Hand-computed: b is judged for subtopics 1 and 2, a for 1; x is not judged; b ranked twice keeps its
    grades at both ranks (the dict rule)."""
    table = SubtopicTable.from_rows([({"1": {"a": 1, "b": 2}, "2": {"b": 1}}, ["x", "b", "a", "b"])])
    assert table.grades[0].tolist() == [[0.0, 0.0], [2.0, 1.0], [1.0, 0.0], [2.0, 1.0]]
    assert table.documents == [("b", "a")]


def test_a_table_from_dicts_is_the_matcher_s():
    table = GainTable.from_judged_rankings([({"a": 1.0, "b": 0.0}, ["b", "c", "a"]), ({}, ["d"])], ["q1", "q2"])
    assert table.gains.tolist() == [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    assert table.judged.tolist() == [[True, False, True], [False, False, False]]
    assert table.n_judged.tolist() == [2, 0]


def test_the_subtopic_table_seats_each_row_s_documents_in_the_order_its_measures_rank_them():
    """Hand-computed: ndeval ranks equal scores by id ascending (a, b after c); an Organization as every ranking
    measure reads it; a topic the run lacks has no seat. Read runs keep the seats only when asked."""
    qrels = judgements_from_dicts({"q": {"a": 1.0, "c": 1.0}, "r": {"d": 1.0}})
    run = runs_from_dicts({"s": {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}})["s"]
    assert subtopic_table(qrels, run, ["q", "r"], placeholders=True, documents=True).ranked == [["c", "a", "b"], []]
    assert subtopic_table(qrels, run, ["q"]).ranked is None
    gold = {"q": Organization.parse("{a} {c}")}
    assert subtopic_table(gold, {"q": Organization.parse("a b\nc")}, ["q"]).ranked == [["b", "a", "c"]]


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 3 * BLOCK), st.integers(1, 40), st.integers(0, 2**32))
def test_groups_joined_a_block_at_a_time_equal_the_whole_array_expression(n, shift, seed):
    """with_groups (issue 42: the ranking's and the matcher's keys built without a second array of the entries)
    equals ``key | groups << shift`` computed on whole arrays, across block bounds; keys() equals its formula."""
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 2**63, n, dtype=np.uint64) >> np.uint64(shift)
    groups = rng.integers(0, 2**min(64 - shift, 31), n).astype(np.int32)
    expected = key | (groups.astype(np.uint64) << np.uint64(shift))
    assert np.array_equal(with_groups(key.copy(), groups, shift), expected)
    hashes = rng.integers(0, 2**63, n, dtype=np.uint64)
    n_groups = int(groups.max(initial=0)) + 1
    bits = np.uint64(max((n_groups - 1).bit_length(), 1))
    assert np.array_equal(keys(groups, hashes, n_groups),
                          (groups.astype(np.uint64) << (np.uint64(64) - bits)) | (hashes >> bits))


def test_a_match_over_several_blocks_of_entries_equals_the_dict_rule():
    """The ranked entries' keys are made a block at a time (issue 42): a run longer than three blocks, its
    judged entries spread over every block, matches as the dict lookup says, positions as int32."""
    rng = np.random.default_rng(7)
    n = 3 * BLOCK + 123
    rows = np.sort(rng.integers(0, 3, n))
    docs = [f"d{i}" for i in range(n)]
    judged_at = np.sort(rng.choice(n, 500, replace=False))
    judged = Judged.of(rows[judged_at], DocumentIds.from_strings([docs[i] for i in judged_at]),
                       rng.integers(0, 3, 500).astype(float), 3)
    (positions,) = match([(rows, DocumentIds.from_strings(docs))], judged, 3)
    expected = np.full(n, -1)
    expected[judged_at] = np.arange(500)
    assert positions.dtype == np.int32 and np.array_equal(positions, expected)
