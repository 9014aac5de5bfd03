"""The Organization model and the papers' notation (Amigó et al., SIGIR 2013, Tables 1–5 and 9)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.conftest import TABLE9_GOLD
from tests.strategies import ANY_CHARACTER, constructed_organizations, document_ids, organizations
from workbench import Organization, OrganizationError, ParameterError


def test_table9_gold_in_the_notation():
    gold = Organization.parse(TABLE9_GOLD)
    assert gold.levels == (
        (frozenset({"d1"}), frozenset({"d2", "d3", "d4"})),
        (frozenset({"d4", "d5"}), frozenset({"d6", "d7"})),
        (frozenset({"d6", "d7"}),),
    )
    assert gold.rest is None and not gold.finite
    assert gold.n_occurrences == 10
    assert gold.format() == TABLE9_GOLD


def test_comments_blank_lines_commas_and_a_finite_rest():
    org = Organization.parse("# Table 2 of Amigó et al., SIGIR 2013: filtering\n\nd1, d2   # relevant\n\nrest: d3 d4\n")
    assert org == Organization.from_filtering(["d1", "d2"], ["d3", "d4"])
    assert org.format() == "d1 d2\nrest: d3 d4"
    assert Organization.parse("{a b}\nrest:").rest == frozenset()


def test_organizations_are_immutable_and_hashable():
    org = Organization.parse(TABLE9_GOLD)
    assert hash(org) == hash(Organization.parse(TABLE9_GOLD))
    assert len({org, Organization.parse(TABLE9_GOLD)}) == 1
    with pytest.raises(AttributeError):
        org.rest = frozenset()  # type: ignore[misc]


@settings(max_examples=200)
@given(organizations())
def test_format_parses_back_to_the_same_organization(org):
    assert Organization.parse(org.format()) == org


@settings(max_examples=100)
@given(organizations(), st.lists(st.floats(-5, 5, allow_nan=False), min_size=6, max_size=6))
def test_graded_levels_round_trip_through_the_notation(org, grades):
    graded = Organization(org.levels, org.rest, tuple(grades[: len(org.levels)]) if org.levels else None)
    assert Organization.parse(graded.format()) == graded


@settings(max_examples=100)
@given(organizations())
def test_frames_round_trip(org):
    frame = org.to_frame()
    assert list(frame.columns) == ["document", "level", "cluster"]
    assert Organization.from_frame(frame) == org


@pytest.mark.parametrize(("text", "line", "column", "token", "message"), [
    ("d1 {d2 {d3}}", 1, 8, "{", "nested"),
    ("d1\nd2 }", 2, 4, "}", "unbalanced '}'"),
    ("{d1 d2", 1, 1, "{", "never closed"),
    ("d1 {}", 1, 4, "{}", "empty cluster"),
    ("{d1 d2 d1}", 1, 8, "d1", "twice in one cluster"),
    ("d1 d2\nrest: d3 d2", 2, 10, "d2", "both in a level"),
    ("rest: d1\nd2", 2, 1, "d2", "must be the last line"),
    ("rest: d1 {d2}", 1, 10, "{", "bare documents"),
    ("[x] d1", 1, 2, "[x]", "a level's grade is a number, as in"),
    ("d1 [2] d2", 1, 4, "[2]", "only write a level's grade at the start"),
])
def test_parse_errors_name_line_column_and_token(text, line, column, token, message):
    with pytest.raises(OrganizationError, match=message) as caught:
        Organization.parse(text)
    error = caught.value
    assert (error.line, error.column, error.token) == (line, column, token)
    assert f"line {line}, column {column}" in str(error)
    assert isinstance(error, ValueError)


@settings(max_examples=300)
@given(st.text(alphabet="d12{} \n#,[]rest:", max_size=40))
def test_any_text_parses_or_raises_an_organization_error(text):
    try:
        org = Organization.parse(text)
    except OrganizationError:
        return
    assert Organization.parse(org.format()) == org


def test_from_ranking_puts_one_document_per_level_over_a_tail():
    ranking = Organization.from_ranking(["d3", "d1", "d2"])
    assert ranking.format() == "d3\nd1\nd2" and not ranking.finite
    with pytest.raises(OrganizationError, match="'d1' occurs twice in the ranking"):
        Organization.from_ranking(["d1", "d1"])


@given(st.lists(document_ids, unique=True, max_size=8),
       st.sampled_from([list, tuple, lambda ids: np.array(ids, dtype=object), lambda ids: dict.fromkeys(ids).keys()]))
def test_a_ranking_holds_the_occurrences_its_levels_give(ids, collection):
    """from_ranking stores them from its ids, for a campaign's scoring (issue 42)."""
    ranking = Organization.from_ranking(collection(ids))
    from_levels = Organization(ranking.levels).occurrences  # computed from the levels
    for given_arrays, computed in zip(ranking.occurrences, from_levels, strict=True):
        assert given_arrays.dtype == computed.dtype and given_arrays.tolist() == computed.tolist()


def test_from_graded_keeps_one_level_per_positive_grade_highest_first():
    graded = Organization.from_graded({"a": 1, "b": 3, "c": 0, "d": -1, "e": 3, "f": 0.5})
    assert [sorted(d for c in level for d in c) for level in graded.levels] == [["b", "e"], ["a"], ["f"]]
    assert graded.grades == (3.0, 1.0, 0.5)
    assert graded.grade_of() == {"b": 3.0, "e": 3.0, "a": 1.0, "f": 0.5}
    assert graded.format() == "[3] b e\n[1] a\n[0.5] f"
    with pytest.raises(ParameterError, match="from_graded: grades value of 'a' must be a number"):
        Organization.from_graded({"a": float("nan")})


def test_from_clustering_and_from_filtering_are_finite():
    clustering = Organization.from_clustering([["a", "b"], ["c"]], rest=["z"])
    assert clustering.format() == "{a b} c\nrest: z" and clustering.finite
    assert Organization.from_clustering([]).format() == "rest:"
    with pytest.raises(ParameterError, match=r"from_clustering: clusters must be .* \(cluster 2 is empty\)"):
        Organization.from_clustering([["a"], []])
    with pytest.raises(OrganizationError, match="'a' occurs twice in the filtering"):
        Organization.from_filtering(["a"], ["a"])


def test_the_constructors_take_any_collection_of_ids_numpy_arrays_too():
    ids = np.array(["d1", "d2", "d3"])
    assert Organization.from_filtering(ids[:1], ids[1:]) == Organization.from_filtering(["d1"], ["d2", "d3"])
    assert Organization.from_clustering([ids[:2], ids[2:]], rest=ids[:0]).format() == "{d1 d2} d3\nrest:"
    assert Organization.from_ranking(ids) == Organization.from_ranking(("d1", "d2", "d3"))
    assert Organization.from_ranking({"d1": 1}.keys()) == Organization.from_ranking(["d1"])


def test_constructor_rejects_a_document_both_in_a_level_and_in_the_rest():
    with pytest.raises(OrganizationError, match="'a' is both in a level and in rest"):
        Organization(((frozenset({"a"}),),), frozenset({"a"}))


def test_grades_without_default_levels_count_from_the_bottom():
    assert Organization.parse("a\nb c").grade_of() == {"a": 2.0, "b": 1.0, "c": 1.0}


def test_from_frame_names_the_bad_row():
    frame = pd.DataFrame({"document": ["a", "a"], "level": [1, 1], "cluster": [1, 1]})
    with pytest.raises(OrganizationError, match="row 2: document 'a' twice in cluster 1 of level 1"):
        Organization.from_frame(frame)
    with pytest.raises(OrganizationError, match="lacks column"):
        Organization.from_frame(pd.DataFrame({"document": ["a"]}))


def test_ids_the_bare_notation_cannot_write_are_quoted_as_json_strings():
    assert Organization(((frozenset({"a b"}),),)).format() == '"a b"'
    assert Organization.from_ranking(["REST:x"]).format() == '"REST:x"'
    assert Organization.parse('"REST:x"') == Organization.from_ranking(["REST:x"])
    odd = Organization.from_clustering([["x#1", "{y}", 'say "hi"'], ["rest"]], rest=["line\nbreak", "[2]"])
    assert odd.format() == '{"say \\"hi\\"" "x#1" "{y}"} "rest"\nrest: "[2]" "line\\nbreak"'
    assert Organization.parse(odd.format()) == odd


def test_a_rest_word_inside_a_level_is_a_document_and_writes_back_quoted():
    org = Organization.parse(",rest: d1")  # the rest: header opens a line; after a comma it is an id
    assert org == Organization(((frozenset({"rest:"}), frozenset({"d1"})),))
    assert org.format() == '"rest:" d1'
    assert Organization.parse(org.format()) == org


@pytest.mark.parametrize(("text", "column", "message"), [
    ('d1 "d2', 4, "never closed"),
    ('d1 "bad \\q"', 4, "a quoted id is a JSON string: Invalid"),
    ('d1 ""', 4, "cannot be empty"),
    ("[nan] d1", 2, "grade is NaN"),
])
def test_quoted_ids_and_grades_fail_with_their_column(text, column, message):
    with pytest.raises(OrganizationError, match=message) as caught:
        Organization.parse(text)
    assert (caught.value.line, caught.value.column) == (1, column)


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Organization(((frozenset({"a"}),),), grades=(float("nan"),)), r"grades must be .* \(grade 1 is nan\)"),
    (lambda: Organization(((frozenset({"a"}),), (frozenset({"b"}),)), grades=(1, "x")),
     r"grades must be .* \(grade 2 is 'x'\)"),
    (lambda: Organization(((frozenset({"a"}),),), grades=(1, 2)), "grades must hold one grade per level"),
    (lambda: Organization("d1 d2"), "levels must be a list of levels"),
    (lambda: Organization((("d1", "d2"),)), r"\(level 1, cluster 1 is 'd1', not a collection"),
    (lambda: Organization(((frozenset({"a"}), frozenset()),)), r"\(level 1, cluster 2 is empty\)"),
    (lambda: Organization((frozenset({"a"}),)), r"\(level 1, cluster 1 is 'a', not a collection"),
    (lambda: Organization.from_filtering(["a"], [""]), r"negative must be .* \(id 1 is ''\)"),
    (lambda: Organization.from_filtering(["a"], [3]), r"negative must be .* \(id 1 is 3\)"),
    (lambda: Organization.from_ranking(["a", 2]), r"ids must be .* \(id 2 is 2\)"),
    (lambda: Organization.from_ranking(None), "ids must be a list of document ids"),
    (lambda: Organization.from_frame([("a", 1, 1)]), "frame must be a DataFrame"),
])
def test_the_constructors_declare_their_arguments(build, message):
    """Issue 38: a bad argument is the validator's ParameterError (function, parameter, value, domain), raised
    before anything is built; a malformed organization stated by good arguments stays an OrganizationError."""
    with pytest.raises(ParameterError, match=message) as caught:
        build()
    assert str(caught.value).startswith("Organization.") and len(str(caught.value)) < 400


def test_no_level_carries_no_grade():
    assert Organization.from_graded({"a": 0, "b": -1}) == Organization()
    assert Organization.parse(Organization.from_graded({"a": 0}).format()) == Organization.from_graded({"a": 0})


def test_natural_order_sorts_numbers_by_value_and_accepts_any_unicode_digit():
    assert Organization.parse("{d10 d9 d1}").format() == "{d1 d9 d10}"
    # '²' and '٣' count as digits for str.isdigit() but int() refuses '²': the order must not crash.
    assert Organization.parse("{a² a٣ a1}").format() == "{a1 a٣ a²}"


# ------------------------------------------------------------------------------------- the round trip
# The rule (workbench/model/notation.py): an id that is not a plain word, or would read as the rest: header,
# is written as a JSON string; so every organization the constructors build writes and reads back unchanged,
# and every text that parses reads back from what it formats to.
def check_round_trip(org):
    assert Organization.parse(org.format()) == org


def check_text_round_trip(text):
    try:
        org = Organization.parse(text)
    except OrganizationError:
        return
    check_round_trip(org)


NOTATION_TEXT = st.text(alphabet='d12{} \n#,[]rEst:"\\\u2028\t', max_size=40)


@settings(max_examples=300)
@given(constructed_organizations())
def test_every_constructed_organization_round_trips(org):
    check_round_trip(org)


@settings(max_examples=300)
@given(NOTATION_TEXT)
def test_every_text_that_parses_round_trips(text):
    check_text_round_trip(text)


@settings(max_examples=10_000, deadline=None)
@given(constructed_organizations())
def test_every_constructed_organization_round_trips_10000(org):
    check_round_trip(org)


@settings(max_examples=10_000, deadline=None)
@given(NOTATION_TEXT)
def test_every_text_that_parses_round_trips_10000(text):
    check_text_round_trip(text)


@settings(max_examples=300)
@given(st.text(ANY_CHARACTER, max_size=60))
def test_any_unicode_text_parses_or_raises_an_organization_error(text):
    check_text_round_trip(text)  # any other exception fails the test


@pytest.mark.parametrize("ids", [["\ud83d\ude00 x"], ["\ud83d\ude00", "\ud83d\ude00 x", "😀 x"],
                                 ["a\ud800 b", "{\udfff"]])
def test_surrogate_code_points_round_trip_in_quoted_ids(ids):
    """Issue 20 item 7: a quoted id holding a high and a low surrogate was written as two JSON escapes, which
    read back as one character (😀); surrogates are now written as they are."""
    check_round_trip(Organization.from_ranking(ids))


# ------------------------------------------------------------------------------ untrusted text (issue 38)
LONG = "x" * 200_000


@pytest.mark.parametrize(("text", "expected"), [
    (LONG, Organization.from_ranking([LONG])),                                   # a 200,000-character id
    (f'"{LONG}" d1', Organization(((frozenset({LONG}), frozenset({"d1"})),))),   # quoted too
    ("[1e999] d1", Organization(((frozenset({"d1"}),),), grades=(float("inf"),))),  # beyond a double: infinite
    ("[" + "9" * 5000 + "] d1", Organization(((frozenset({"d1"}),),), grades=(float("inf"),))),
    ("[-" + "9" * 5000 + ".5] d1", Organization(((frozenset({"d1"}),),), grades=(float("-inf"),))),
    ("d\x00 \x00", Organization(((frozenset({"d\x00"}), frozenset({"\x00"})),))),       # NUL is a character
    ("\ud800 {a\udfff b}", Organization(((frozenset({"\ud800"}), frozenset({"a\udfff", "b"})),))),
    ('"\\ud800" "\\u0000"', Organization(((frozenset({"\ud800"}), frozenset({"\x00"})),))),
])
def test_hostile_notation_is_read_and_round_trips(text, expected):
    org = Organization.parse(text)
    assert org == expected
    check_round_trip(org)


def test_a_hundred_thousand_levels_are_read():
    org = Organization.parse("\n".join(f"d{i}" for i in range(100_000, 0, -1)))
    assert len(org.levels) == 100_000 and org.levels[-1] == (frozenset({"d1"}),)


@pytest.mark.parametrize(("text", "line", "column", "message"), [
    ("d1\n[nan] d2", 2, 2, "grade is NaN"),
    ("[" + "9" * 5000 + "x] d1", 1, 2, "a level's grade is a number"),
    ('d1 "' + "y" * 200_000, 1, 4, "never closed"),
    ("{" + LONG, 1, 1, "never closed"),
    ("d1\n" * 100_000 + "}", 100_001, 1, "unbalanced '}'"),
    ('"\\ud800\\" d1', 1, 1, "never closed"),
    ("d1\n[0]", 2, 1, "a level's grade comes before its documents"),                 # found by the property below
    ("[1] d1\n# a comment\n\nd2", 4, None, r"either every level has a \[grade\] or none has"),
])
def test_hostile_notation_is_refused_with_a_short_located_error(text, line, column, message):
    with pytest.raises(OrganizationError, match=message) as caught:
        Organization.parse(text)
    assert (caught.value.line, caught.value.column) == (line, column) and len(str(caught.value)) < 400


HOSTILE = st.one_of(st.text(ANY_CHARACTER, max_size=30),
                    st.text(alphabet='[]{}"\\ #,\n\x00\ud800\udfffe9.-+nainf', max_size=40),
                    st.builds(lambda digits, rest: f"[{digits}] {rest}", st.text("0123456789e.-", max_size=400),
                              st.text(ANY_CHARACTER, max_size=10)))


@settings(max_examples=300, deadline=None)
@given(HOSTILE)
@example("[0]")
def test_any_hostile_text_is_read_or_refused_with_an_organization_error(text):
    check_text_round_trip(text)  # any other exception fails the test


def test_a_byte_order_mark_never_joins_the_first_id_of_a_text():
    """A text pasted from a file saved with a UTF-8 byte-order mark reads as without it, in every reader of a
    user's text (the notation, the widget's text export, a labelling), as the file readers leave it out."""
    from workbench.model.labelling import Labelling
    from workbench.widgets.exchange import read_text, to_text
    from workbench.widgets.tables import Table, Tables

    assert Organization.parse("\ufeffd1 d2\nd3") == Organization.parse("d1 d2\nd3")
    assert Labelling.parse("\ufeffd1: A\nd2: B").items == Labelling.parse("d1: A\nd2: B").items
    tables = Tables(Table("gold", "d1 d2\nd3", Organization.parse("d1 d2\nd3")),
                    (Table("run", "d2\nd1", Organization.parse("d2\nd1")),))
    assert read_text("\ufeff" + to_text(tables)) == read_text(to_text(tables))
