"""Odd files read as trec_eval reads them, and said (issue 31, class 9): a UTF-8 byte-order mark is part of the
first topic for trec_eval (``\\ufeff1``; the drop-in, reading one character per byte, ``ï»¿1``), and every reader
keeps that reading with a note naming the file and the topic as read (the drop-in said nothing: the mean fell
from 0.67 to 0.28 with status 0); lines ending with a carriage return alone are no line ends for trec_eval: a qrels
or other fixed-field file is refused naming the line ends (it was refused as "8 fields" only), a run is read as
trec_eval reads it (a line's first 6 fields) with a note."""

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.data import read_trec_qrels, read_trec_run
from workbench.data.replab import ReplabFormatError, read_replab
from workbench.data.trec import TrecFormatError, TrecReadingWarning, read_lines
from workbench.data.trec.judgement_groups import read_judgement_groups
from workbench.data.trec.preferences import read_preferences
from workbench.data.trec.zscores import read_zscores
from workbench.errors import WorkbenchWarning
from workbench.reading.text import ReadingWarning

BOM = b"\xef\xbb\xbf"
QRELS = b"1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d2 1\n3 0 d2 1\n"
RUN = b"1 Q0 d1 1 0.9 r\n1 Q0 d2 2 0.4 r\n2 Q0 d2 1 0.9 r\n2 Q0 d1 2 0.5 r\n3 Q0 d1 1 0.9 r\n3 Q0 d2 2 0.5 r\n"


def _notes(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, WorkbenchWarning)]


def test_a_byte_order_mark_is_read_as_trec_eval_reads_it_and_said_by_every_reader(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(BOM + QRELS)
    run.write_bytes(RUN)
    files = {"prefs": b"1 g s d1 1\n1 g s d2 0\n", "jg": b"1 g d1 1\n1 g d2 0\n", "z": b"1 map 0.1 0.2\n"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(BOM + data)
    readers = {
        "read_trec_qrels": (lambda: list(read_trec_qrels(qrels)), "'\\ufeff1'"),
        "read_lines utf-8": (lambda: read_lines(qrels, "qrels").topics.names, "'\\ufeff1'"),
        "read_lines latin-1": (lambda: read_lines(qrels, "qrels", encoding="latin-1").topics.names, "'ï»¿1'"),
        "read_trec_run": (lambda: read_trec_run(tmp_path / "prefs"), None),  # not a run: refused, not noted
        "read_preferences": (lambda: read_preferences(tmp_path / "prefs").topic_names(), "'ï»¿1'"),
        "read_judgement_groups": (lambda: read_judgement_groups(tmp_path / "jg").topic_names(), "'ï»¿1'"),
        "read_zscores": (lambda: read_zscores(tmp_path / "z"), "'ï»¿1'"),
    }
    for name, (read, first) in readers.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                got = read()
            except TrecFormatError:
                assert first is None, name
                continue
        notes = [note for note in _notes(caught) if "byte-order mark" in note]
        assert len(notes) == 1, (name, _notes(caught))
        assert notes[0].startswith(str(tmp_path)) and f"its first topic is {first}" in notes[0], notes[0]
        if name.startswith("read_lines") or name == "read_trec_qrels":
            assert eval(first) in got  # the mark stays in the topic, as trec_eval reads it


def test_the_drop_in_says_what_it_read_of_a_byte_order_mark(tmp_path, capsys):
    """trec_eval 10.0 stops on this file with status 4 ("result qid '\\ufeff1' not found in qrels"); the drop-in
    skips the topic as 9.x does, and now says why the mean falls."""
    (tmp_path / "qrels").write_bytes(BOM + QRELS)
    (tmp_path / "run").write_bytes(RUN)
    assert main(["trec_eval", "-m", "map", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    error = capsys.readouterr().err
    assert "qrels: starts with a UTF-8 byte-order mark (bytes EF BB BF), which trec_eval reads as part of the " \
           "first field, and so does this reader: its first topic is 'ï»¿1'" in error
    assert main(["eval", "--gold", str(tmp_path / "qrels"), "--run", str(tmp_path / "run"), "-m", "AP", "-q"]) == 0
    assert "its first topic is '\\ufeff1' (encoding='utf-8-sig' drops it)" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ CR alone at line ends
# trec_eval 10.0 (f425365, built with its Makefile) on the files below: the qrels file is refused (status 2,
# "trec_eval.get_qrels: Malformed line 1"); the run is read as one line, its first 6 fields ("-m num_ret -m map"
# with QRELS_1: num_ret 1, map 0.0000).
QRELS_1 = b"1 0 d1 1\n1 0 d2 0\n"
RUN_CR = b"1 Q0 d2 1 0.9 r\r1 Q0 d1 2 0.4 r\r"


@pytest.mark.parametrize("reader", ["read_trec_qrels", "eval", "trec_eval", "read_preferences",
                                    "read_judgement_groups", "read_zscores"])
def test_a_file_with_cr_line_ends_is_refused_naming_them(reader, tmp_path, capsys):
    data = {"read_preferences": b"1 g s d1 1\r1 g s d2 0\r", "read_judgement_groups": b"1 g d1 1\r1 g d2 0\r",
            "read_zscores": b"1 map 0.1 0.2\r2 map 0.1 0.2\r",
            "read_replab": b'entity_id\ttweet_id\ttopic\r"e1"\t"t1"\t"a"\r'}.get(reader, b"1 0 d1 1\r1 0 d2 0\r")
    path = tmp_path / "file"
    path.write_bytes(data)
    (tmp_path / "run").write_bytes(RUN)
    calls = {"read_trec_qrels": read_trec_qrels, "read_preferences": read_preferences,
             "read_judgement_groups": read_judgement_groups, "read_zscores": read_zscores, "read_replab": read_replab}
    if reader in calls:
        with pytest.raises(TrecFormatError, match="the file's lines end with CR alone"):
            calls[reader](path)
        return
    argv = (["eval", "--gold", str(path), "--run", str(tmp_path / "run"), "-m", "AP"] if reader == "eval" else
            ["trec_eval", str(path), str(tmp_path / "run")])
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert "line 1: a qrels line has 4 fields" in error and "the file's lines end with CR alone" in error


def test_a_run_with_cr_line_ends_is_read_as_trec_eval_reads_it_and_said(tmp_path, capsys):
    (tmp_path / "qrels").write_bytes(QRELS_1)
    (tmp_path / "run").write_bytes(RUN_CR)
    assert main(["trec_eval", "-m", "num_ret", "-m", "map", str(tmp_path / "qrels"), str(tmp_path / "run")]) == 0
    printed = capsys.readouterr()
    assert printed.out == "num_ret               \tall\t1\nmap                   \tall\t0.0000\n"
    assert ("line 1 runs on over carriage returns: the file's lines end with CR alone (as on classic Mac OS), which "
            "trec_eval does not take as line ends; it reads the first 6 fields of such a line and ignores the other "
            "6") in printed.err
    with pytest.warns(TrecReadingWarning, match="runs on over carriage returns"):
        assert read_trec_run(tmp_path / "run")["r"].documents("1") == ["d2"]


LINE = st.lists(st.text("abc123.", min_size=1, max_size=4), min_size=2, max_size=7).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(LINE, min_size=2, max_size=5), kind=st.sampled_from(["qrels", "run"]))
def test_cr_line_ends_are_refused_or_noted_never_silent(lines, kind, tmp_path_factory):
    """Lines of any fields joined by CR alone: a refusal naming the line ends, or trec_eval's reading (one long
    line) with a note saying it."""
    path = tmp_path_factory.mktemp("cr") / "file"
    path.write_bytes(("\r".join(lines) + "\r").encode())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            read_lines(path, kind)
        except TrecFormatError as error:
            assert "the file's lines end with CR alone" in str(error), str(error)
            return
    assert any("the file's lines end with CR alone" in note for note in _notes(caught)), _notes(caught)


def test_a_text_file_with_cr_line_ends_is_read_line_by_line_and_says_so(tmp_path):
    """RepLab's and PyEvALL's readers read through the reading layer (issue 38): lines that end with CR alone
    are lines there (a warning says so), and an error in such a file says how it was read."""
    path = tmp_path / "gold.tsv"
    path.write_bytes(b'"entity_id"\t"tweet_id"\t"topic"\r"e1"\t"t1"\t"a"\r"e1"\t"t2"\t"b"\r')
    with pytest.warns(ReadingWarning, match="gold.tsv: its lines end with CR alone"):
        assert read_replab(path)["e1"].format() == "t1 t2\nrest:"
    path.write_bytes(b'"entity_id"\t"tweet_id"\t"topic"\r"e1"\t"t1"\r')
    with pytest.warns(ReadingWarning), pytest.raises(ReplabFormatError, match=r"line 2: expected 3 tab-separated "
                                                      r"fields .* \(its lines end with CR alone"):
        read_replab(path)
