"""TREC qrels, runs and trec_eval output: trec_eval's own test files, round trips, named errors, fuzzing."""

import gzip
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import shared_dataset
from workbench.data import (
    TrecFormatError,
    TrecReadingWarning,
    TrecWriteError,
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_qrels_frame,
    read_trec_run,
    read_trec_run_frame,
    write_trec_eval_output,
    write_trec_qrels,
    write_trec_run,
)
from workbench.errors import ParameterError
from workbench.metrics.ranking import ranked_documents
from workbench.model import Organization


# ------------------------------------------------------------------------------ trec_eval's files
def test_qrels_test_file():
    """qrels.test: 3,681 judgements; num_rel per topic 474, 77, 10 (trec_eval out.test.aq)."""
    path = shared_dataset("trec_eval_test", "qrels.test")
    frame = read_trec_qrels_frame(path)
    assert len(frame) == 3681
    assert list(frame.columns) == ["topic", "iteration", "document", "relevance"]
    gold = read_trec_qrels(path)
    assert {t: len(g.prioritised) for t, g in gold.items()} == {"301": 474, "302": 77, "303": 10}
    assert all(g.grades == (1.0,) for g in gold.values())


def test_graded_qrels_keep_grades_and_negative_judgements():
    """qrels.rel_level: grades −1..4; the gold keeps the positive grades as levels (highest first), the
    frame keeps all 304 judgements of −1 and the non-relevant ones."""
    path = shared_dataset("trec_eval_test", "qrels.rel_level")
    frame = read_trec_qrels_frame(path)
    assert (frame.relevance == -1).sum() == 304
    assert (frame.relevance == 0).sum() == 2818
    gold = read_trec_qrels(path)
    assert gold["301"].grades == (4.0, 2.0, 1.0)  # 6, 6 and 462 documents (awk over the file)
    assert [len(level) for level in gold["301"].levels] == [6, 6, 462]
    assert gold["301"].grade_of()["CR93E-5799"] == 4.0
    assert sum(len(g.prioritised) for g in gold.values()) == 462 + 14 + 77 + 6


def test_run_files_tie_policy_and_trailing_columns():
    """results.test: 3 topics × 500 documents, tag STANDARD, ordered by score (rank column ignored);
    results.trunc has extra trailing columns ('more junk at end of lines.')."""
    run = read_trec_run(shared_dataset("trec_eval_test", "results.test"))
    assert list(run) == ["STANDARD"]
    assert {t: len(o.levels) for t, o in run["STANDARD"].items()} == {"301": 500, "302": 500, "303": 500}
    frame = read_trec_run_frame(shared_dataset("trec_eval_test", "results.test"))
    top = frame[frame.topic == "301"].sort_values(["score", "document"], ascending=False)
    assert ranked_documents(run["STANDARD"]["301"]) == top.document.tolist()
    trunc = read_trec_run_frame(shared_dataset("trec_eval_test", "results.trunc"))
    assert len(trunc) == 584


def test_gzipped_files(tmp_path):
    """``.gz`` runs are read; writers compress when the name ends in ``.gz``."""
    source = shared_dataset("trec_eval_test", "results.test")
    packed = tmp_path / "results.test.gz"
    packed.write_bytes(gzip.compress(source.read_bytes()))
    assert read_trec_run(packed) == read_trec_run(source)
    write_trec_run(read_trec_run_frame(source), tmp_path / "again.run.gz")
    assert gzip.decompress((tmp_path / "again.run.gz").read_bytes()).startswith(b"301 Q0 ")
    assert read_trec_run(tmp_path / "again.run.gz") == read_trec_run(source)
    qrels = shared_dataset("trec_eval_test", "qrels.test")
    write_trec_qrels(read_trec_qrels_frame(qrels), tmp_path / "qrels.gz")
    assert read_trec_qrels(tmp_path / "qrels.gz") == read_trec_qrels(qrels)


def test_trec_eval_output_and_byte_exact_round_trip(tmp_path):
    """out.test.aq: 387 lines; runid and relstring are text; writing it back gives the same bytes."""
    path = shared_dataset("trec_eval_test", "out.test.aq")
    frame = read_trec_eval_output(path)
    assert len(frame) == 387
    runid = frame[frame.measure == "runid"].iloc[0]
    assert runid.text == "STANDARD" and pd.isna(runid.value)
    assert frame.query("measure == 'map' and topic == 'all'").value.item() == 0.1785
    write_trec_eval_output(frame, tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == path.read_bytes()
    aql = shared_dataset("trec_eval_test", "out.test.aql")
    write_trec_eval_output(read_trec_eval_output(aql), tmp_path / "aql")
    assert (tmp_path / "aql").read_bytes() == aql.read_bytes()


# ------------------------------------------------------------------------------------ round trips
@pytest.mark.parametrize(("name", "read_frame", "read", "write"), [
    ("qrels.rel_level", read_trec_qrels_frame, read_trec_qrels, write_trec_qrels),
    ("results.trunc", read_trec_run_frame, read_trec_run, write_trec_run),
])
def test_files_round_trip_as_frames_and_as_organizations(tmp_path, name, read_frame, read, write):
    path = shared_dataset("trec_eval_test", name)
    frame = read_frame(path)
    write(frame, tmp_path / "frame")
    pd.testing.assert_frame_equal(read_frame(tmp_path / "frame"), frame)
    organizations = read(path)
    write(organizations, tmp_path / "organizations")
    assert read(tmp_path / "organizations") == organizations


def test_tied_scores_as_levels(tmp_path):
    """ties="levels": equal scores share a level (ids descending inside); written back with one score per
    level, it reads back the same, and the default policy reads it as trec_eval's order (the rank column,
    which here contradicts the scores, is ignored)."""
    path = tmp_path / "tied.run"
    path.write_text("q1 Q0 d1 1 0.5 sys\nq1 Q0 d3 2 0.5 sys\nq1 Q0 d2 3 0.9 sys\nq1 Q0 d4 4 0.1 sys\n")
    tied = read_trec_run(path, ties="levels")["sys"]["q1"]
    assert [sorted(set().union(*level)) for level in tied.levels] == [["d2"], ["d1", "d3"], ["d4"]]
    assert ranked_documents(read_trec_run(path)["sys"]["q1"]) == ["d2", "d3", "d1", "d4"]
    write_trec_run({"sys": {"q1": tied}}, tmp_path / "again.run")
    assert read_trec_run(tmp_path / "again.run", ties="levels") == {"sys": {"q1": tied}}
    with pytest.raises(ParameterError, match="ties must be one of"):
        read_trec_run(path, ties="random")


# Ids of any text: the writers refuse what a TREC file cannot carry so that it reads back equal
ANY_ID = st.text(st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.one_of(st.sampled_from(["q1", "q2", "301"]), ANY_ID),
                       st.dictionaries(st.one_of(st.from_regex(r"[A-Za-z0-9_.-]{1,8}", fullmatch=True),
                                                 ANY_ID.filter(bool)),
                                       st.sampled_from([1, 2, 3, 1.5, -1, 10**19]), min_size=1, max_size=6),
                       min_size=1),
       st.one_of(st.just("tag"), ANY_ID), st.integers(0, 10**6))
def test_writers_write_what_reads_back_equal_or_nothing(tmp_path, judged, system, salt):
    """Any gold and any ranking the writers accept read back equal; what they refuse (an id, topic or system
    with a space, tab or line end, an empty one, a topic starting with '#', a grade not a whole 64-bit number)
    raises TrecWriteError and leaves the target as it was."""
    gold = {t: Organization.from_graded(g) for t, g in judged.items()}
    run = {system: {t: Organization.from_ranking(sorted(g, reverse=salt % 2 == 0)) for t, g in judged.items()}}
    for write, read, value, name in ((write_trec_qrels, read_trec_qrels, gold, "qrels"),
                                     (write_trec_run, read_trec_run, run, "run")):
        target = tmp_path / f"{salt}.{name}"
        target.write_bytes(b"before")
        try:
            write(value, target)
        except TrecWriteError:
            assert target.read_bytes() == b"before"
            assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(f".{salt}")) == []
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrecReadingWarning)  # a no-break space kept in an id, say
            assert read(target) == value


@pytest.mark.parametrize(("value", "message"), [
    ({"q 1": Organization.from_graded({"d": 1})}, "topic 'q 1' holds a space"),
    ({"#q": Organization.from_graded({"d": 1})}, "topic '#q' starts with '#'"),
    ({"q": Organization.from_graded({"d\n2": 1})}, "holds a line feed"),
    ({"": Organization.from_graded({"d": 1})}, "topic '' is empty"),
    ({"q": Organization.from_graded({"d": 2.5})}, "has grade 2.5: trec_eval reads grades as whole numbers"),
])
def test_qrels_a_file_cannot_hold_are_refused_by_name(tmp_path, value, message):
    with pytest.raises(TrecWriteError, match=message):
        write_trec_qrels(value, tmp_path / "qrels")
    assert not (tmp_path / "qrels").exists()


def test_runs_a_file_cannot_hold_are_refused_by_name(tmp_path):
    ranking = Organization.from_ranking(["d1"])
    for run, message in (({"my sys": {"q": ranking}}, "system 'my sys' holds a space"),
                         ({"s": {"q\t1": ranking}}, r"topic 'q\\t1' holds a tab"),
                         ({"s": {"q": Organization.from_ranking(["a b"])}}, "document 'a b' of topic 'q' holds")):
        with pytest.raises(TrecWriteError, match=message):
            write_trec_run(run, tmp_path / "run")
    frame = pd.DataFrame({"topic": ["q"], "q0": ["Q0"], "document": ["d"], "rank": [1.5], "score": [0.5],
                          "system": ["s"]})
    with pytest.raises(TrecWriteError, match="rank 1.5, not an integer"):
        write_trec_run(frame, tmp_path / "run")
    with pytest.raises(TrecWriteError, match="score NaN"):
        write_trec_run(frame.assign(rank=1, score=float("nan")), tmp_path / "run")
    assert not (tmp_path / "run").exists()


# ------------------------------------------------------------------------------------ named errors
BAD_FILES = [
    ("qrels", "q1 0 d1 1\nq1 0 d2\n", 2, "4 fields"),
    ("qrels", "q1 0 d1 1\n# comment\nq1 0 d1 2\n", 3, "already on line 1"),
    ("qrels", "", None, "the file is empty"),
    ("qrels", "# only a comment\n\n", None, "no data lines"),
    ("run", "q1 Q0 d1 1 0.5\n", 1, "6 fields"),
    ("run", "q1 Q0 d1 1 NaN sys\n", 1, "score is NaN"),
    ("run", "q1 Q0 d1 1 0.5 sys\nq1 Q0 d1 2 0.4 sys\n", 2, "already on line 1"),
    ("eval", "map all\n", 1, "3 fields"),
]


def _use(mapping):
    """Read every topic (a topic repeating a document raises when it is used, as trec_eval stops on it)."""
    for value in mapping.values():
        dict(value) if isinstance(value, dict) else [value[t] for t in value] if hasattr(value, "topics") else None
    return mapping


READERS = {"qrels": lambda path: _use({t: g for t, g in read_trec_qrels(path).items()}),
           "run": lambda path: {s: _use({t: r[t] for t in r}) for s, r in read_trec_run(path).items()},
           "run-frame": read_trec_run_frame, "eval": read_trec_eval_output}


@pytest.mark.parametrize(("kind", "content", "line", "message"), BAD_FILES)
def test_named_errors_say_file_line_and_text(tmp_path, kind, content, line, message):
    path = tmp_path / f"bad.{kind}"
    path.write_text(content)
    with pytest.raises(TrecFormatError, match=message) as error:
        READERS[kind](path)
    assert error.value.line == line and str(path) in str(error.value)
    if line is not None:
        assert error.value.text == content.splitlines()[line - 1]


def test_values_read_otherwise_than_written_are_said(tmp_path):
    """What trec_eval accepts is read as it reads it, with a note naming the file and lines: a grade 'high' is
    0 (atol), a rank 'first' too; Latin-1 bytes read as UTF-8 keep their bytes; encoding= reads them."""
    path = tmp_path / "latin.qrels"
    path.write_bytes("q1 0 d1 high\nq1 0 caf\u00e9 0\n".encode("latin-1"))
    with pytest.warns(TrecReadingWarning) as notes:
        frame = read_trec_qrels_frame(path)
    said = " ".join(str(n.message) for n in notes)
    assert "line 1 'high' as 0" in said and "not valid utf-8 from line 2" in said and str(path) in said
    assert frame.relevance.tolist() == [0, 0] and frame.document.tolist() == ["d1", "caf\\xe9"]
    with pytest.warns(TrecReadingWarning):
        assert read_trec_qrels_frame(path, encoding="latin-1").document.tolist() == ["d1", "caf\u00e9"]
    with pytest.raises(ParameterError, match="read_trec_qrels: encoding must be an encoding Python knows"):
        read_trec_qrels(path, encoding="klingon")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 first 0.5 sys\n")
    with pytest.warns(TrecReadingWarning, match="line 1 'first' as 0"):
        assert read_trec_run_frame(run)["rank"].tolist() == [0]


def test_byte_order_mark_and_crlf(tmp_path):
    """A UTF-8 byte-order mark is part of the first topic, as trec_eval reads it (said in a note);
    encoding='utf-8-sig' drops it."""
    path = tmp_path / "bom.qrels"
    path.write_bytes("\ufeffq1 0 d1 1\r\nq1 0 d2 0\r\n".encode())
    with pytest.warns(TrecReadingWarning, match="byte-order mark"):
        assert read_trec_qrels_frame(path).topic.tolist() == ["\ufeffq1", "q1"]
    assert read_trec_qrels_frame(path, encoding="utf-8-sig").topic.tolist() == ["q1", "q1"]


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(TrecFormatError, match="cannot read"):
        read_trec_run(tmp_path / "absent.run")
    broken = tmp_path / "broken.run.gz"
    broken.write_bytes(gzip.compress(b"q1 Q0 d1 1 0.5 sys\n")[:12])
    with pytest.raises(TrecFormatError, match="broken gzip"):
        read_trec_run(broken)


# -------------------------------------------------------------------------------------- fuzzing
FIELD = st.one_of(st.sampled_from(["q1", "Q0", "0", "1", "-1", "2.5", "nan", "inf", "d1", "d2", "#", "x"]),
                  st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=6))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.lists(FIELD, max_size=8).map(" ".join), max_size=6),
       kind=st.sampled_from(sorted(READERS)))
def test_fuzzed_lines_parse_or_raise_named_errors(tmp_path, lines, kind):
    """Random lines: every reader returns or raises TrecFormatError, never another exception."""
    path = tmp_path / f"fuzz.{kind}"
    path.write_text("\n".join(lines), encoding="utf-8")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TrecReadingWarning)
            READERS[kind](path)
    except TrecFormatError as error:
        assert str(path) in str(error)
