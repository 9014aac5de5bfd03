"""One reading of TREC files for every entry point (workbench.data.trec): odd lines read as trec_eval 10.0 reads
them, through the readers, Campaign, read_campaign, ``eval`` and the ``trec_eval`` drop-in alike; C's atof/atol;
the scanner and Arrow's fast path reading the same; encodings, NUL bytes, gzip and standard input."""

import ctypes
import ctypes.util
import gzip
import io
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from tests.conftest import shared_dataset
from workbench.cli import main as cli_main
from workbench.data import (
    Campaign,
    TrecFormatError,
    read_campaign,
    read_trec_qrels,
    read_trec_run,
    read_trec_run_frame,
)
from workbench.data.trec import TrecReadingWarning, arrow, read_lines, scan
from workbench.data.trec.lines import LineNumbers
from workbench.data.trec.readers import read_trec_qrels_and_run
from workbench.errors import ParameterError, WorkbenchError
from workbench.ids import DocumentIds
from workbench.reading.numbers import atof, atol, read_floats, read_integers
from workbench.threads import THREADS_VARIABLE
from workbench.trec_eval import Options, evaluate, render

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------------------------------- odd lines
# Each case: a qrels file, a run file, and what trec_eval 10.0 (usnistgov/trec_eval f425365, built with its
# Makefile) printed for them with `-q -m num_ret -m num_rel -m map -m recip_rank -m relstring`, per topic:
# (num_ret, num_rel, map, recip_rank, relstring). The rules: fields are cut at C's isspace (get_qrels.c,
# get_trec_results.c parse_*_line), scores read by atof and compared as doubles, ties by docno descending
# (form_res_rels.c comp_sim_docno), grades read by atol (get_qrels.c), relstring per m_relstring.c.
ODD_LINES = {
    "underscore score": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 1_000 s\n1 Q0 d2 2 2 s\n",
                         {"1": (2, 1, 0.5, 0.5, "01")}),
    "fullwidth digits": (b"1 0 d1 1\n1 0 d2 0\n", "1 Q0 d1 1 １２ s\n1 Q0 d2 2 1 s\n".encode(),
                         {"1": (2, 1, 0.5, 0.5, "01")}),
    "arabic-indic digits": (b"1 0 d1 1\n1 0 d2 0\n", "1 Q0 d1 1 ١٢ s\n1 Q0 d2 2 1 s\n".encode(),
                            {"1": (2, 1, 0.5, 0.5, "01")}),
    "hex score": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 0x10 s\n1 Q0 d2 2 15 s\n", {"1": (2, 1, 1.0, 1.0, "10")}),
    "hex float score": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 0x1.8p1 s\n1 Q0 d2 2 2.9 s\n",
                        {"1": (2, 1, 1.0, 1.0, "10")}),
    "trailing garbage": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 2.5abc s\n1 Q0 d2 2 2.4 s\n",
                         {"1": (2, 1, 1.0, 1.0, "10")}),
    "incomplete exponent": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 1e s\n1 Q0 d2 2 2 s\n",
                            {"1": (2, 1, 0.5, 0.5, "01")}),
    "infinities": (b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n", b"1 Q0 d1 1 -Infinity s\n1 Q0 d2 2 inf s\n1 Q0 d3 3 1e400 s\n",
                   {"1": (3, 2, 0.8333, 1.0, "201")}),
    "fractional grades": (b"1 0 d1 2.5\n1 0 d2 1_0\n1 0 d3 0x10\n1 0 d4 +3\n1 0 d5 03\n",
                          b"1 Q0 d1 1 5 s\n1 Q0 d2 2 4 s\n1 Q0 d3 3 3 s\n1 Q0 d4 4 2 s\n1 Q0 d5 5 1 s\n",
                          {"1": (5, 4, 0.8875, 1.0, "21033")}),
    "no-break space in an id": ("1 0 d1\u00a0x 1\n1 0 d2 0\n".encode(),
                                "1 Q0 d1\u00a0x 1 1 s\n1 Q0 d2 2 2 s\n".encode(), {"1": (2, 1, 0.5, 0.5, "01")}),
    "CRLF": (b"1 0 d1 1\r\n1 0 d2 0\r\n", b"1 Q0 d1 1 1 s\r\n1 Q0 d2 2 2 s\r\n", {"1": (2, 1, 0.5, 0.5, "01")}),
    "tabs": (b"1\t0\td1\t1\n1\t0\td2\t0\n", b"1\tQ0\td1\t1\t1\ts\n1\tQ0\td2\t2\t2\ts\n", {"1": (2, 1, 0.5, 0.5, "01")}),
    "vertical tab and form feed": (b"1 0\x0bd1 1\n1\x0c0 d2 0\n", b"1 Q0 d1\x0b1 1 s\n1 Q0 d2 2 2\x0cs\n",
                                   {"1": (2, 1, 0.5, 0.5, "01")}),
    "fields after the run id": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 3 s extra fields\n1 Q0 d2 2 2 s x\n",
                                {"1": (2, 1, 1.0, 1.0, "10")}),
    "comments and blank lines": (b"# judged\n1 0 d1 1\n1 0 d2 0\n",
                                 b"# header\n\n1 Q0 d1 1 1 s\n  # indented\n1 Q0 d2 2 2 s\n",
                                 {"1": (2, 1, 0.5, 0.5, "01")}),
    "near-tied scores": (b"1 0 d1 1\n1 0 d2 0\n", b"1 Q0 d1 1 1.00000001 s\n1 Q0 d2 2 1.0 s\n",
                         {"1": (2, 1, 1.0, 1.0, "10")}),
    "several topics": (b"1 0 d1 1\n2 0 d2 1\n10 0 d3 1\n2 0 d4 0\n",
                       b"2 Q0 d4 1 2 s\n2 Q0 d2 2 1 s\n10 Q0 d3 1 1 s\n1 Q0 d9 1 1 s\n",
                       {"1": (1, 1, 0.0, 0.0, "-"), "10": (1, 1, 1.0, 1.0, "1"), "2": (2, 1, 0.5, 0.5, "01")}),
}


def _files(tmp_path: Path, name: str) -> tuple[Path, Path, dict]:
    qrels_bytes, run_bytes, expected = ODD_LINES[name]
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(qrels_bytes)
    run.write_bytes(run_bytes)
    return qrels, run, expected


def _relstring(grades: dict[str, float], ranking: list[str]) -> str:
    """trec_eval's relstring of a ranking (m_relstring.c): a judged document's grade, '-' outside the qrels."""
    return "".join(str(int(grades[d])) if d in grades else "-" for d in ranking[:10])


@pytest.mark.parametrize("name", list(ODD_LINES))
def test_every_entry_point_reads_odd_lines_as_trec_eval_10(name, tmp_path, capsys):
    qrels, run, expected = _files(tmp_path, name)
    measures = ["NumRet", "NumRel", "AP", "RR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold, systems = read_trec_qrels(qrels), read_trec_run(run)
        table = Campaign(gold, systems).evaluate(measures, progress=False)
        through_files = read_campaign(qrels, [run]).evaluate(measures, progress=False)
    (system,) = systems
    for topic, (num_ret, num_rel, ap, rr, relstring) in expected.items():
        got = table[table.topic == topic].set_index("measure")["value"]
        assert (got["NumRet"], got["NumRel"], round(got["AP"], 4), round(got["RR"], 4)) == (num_ret, num_rel, ap, rr)
        assert _relstring(gold.grades_of(topic), systems[system].documents(topic)) == relstring
    assert through_files.equals(table)
    # eval --per-topic prints the same values; the drop-in prints what trec_eval 10.0 printed
    assert cli_main(["eval", "--gold", str(qrels), "--run", str(run), "-m", *measures, "--per-topic", "--format",
                     "csv", "-q"]) == 0
    printed = capsys.readouterr().out
    for topic, (num_ret, num_rel, ap, rr, _) in expected.items():
        for measure, value in zip(measures, (num_ret, num_rel, ap, rr), strict=True):
            row = next(line for line in printed.splitlines() if line.split(",")[1:3] == [topic, measure])
            assert round(float(row.split(",")[3]), 4) == value
    assert cli_main(["trec_eval", "-q", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "recip_rank", "-m",
                     "relstring", str(qrels), str(run)]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    for topic, (num_ret, num_rel, ap, rr, relstring) in expected.items():
        values = {m.strip(): v for m, t, v in lines if t == topic}
        assert values == {"num_ret": str(num_ret), "num_rel": str(num_rel), "map": f"{ap:6.4f}",
                          "recip_rank": f"{rr:6.4f}", "relstring": f"'{relstring}'"}


@pytest.mark.parametrize("name", ["underscore score", "fractional grades", "no-break space in an id", "hex score"])
def test_every_entry_point_says_the_same_note(name, tmp_path, capsys):
    qrels, run, _ = _files(tmp_path, name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_trec_qrels(qrels), read_trec_run(run)
    readers = sorted(str(w.message) for w in caught if issubclass(w.category, TrecReadingWarning))
    assert readers and all(str(qrels) in text or str(run) in text for text in readers)
    assert cli_main(["eval", "--gold", str(qrels), "--run", str(run), "-m", "AP", "-q"]) == 0
    shell = sorted(line.removeprefix("workbench: note: ") for line in capsys.readouterr().err.splitlines()
                   if "trec_eval reads" in line or "does not split" in line)
    assert cli_main(["trec_eval", str(qrels), str(run)]) == 0
    drop_in = sorted(line.removeprefix("workbench trec_eval: note: ") for line in capsys.readouterr().err.splitlines()
                     if "trec_eval reads" in line or "does not split" in line)
    assert readers == shell == drop_in



def test_qrels_and_run_read_at_once_say_and_refuse_as_one_after_the_other(tmp_path):
    """read_trec_qrels_and_run (read_campaign's path for TREC files: both read on two threads) gives the judgements
    and rankings of read_trec_qrels and read_trec_run, their notes in the same order (the qrels' first) and, when
    both files are wrong, the qrels' error."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"1 0 d1 2.5\n1 0 d2 0\n")
    run.write_bytes(b"1 Q0 d1 1 1_000 s\n1 Q0 d2 2 0x10 s\n")

    def said(read):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = read()
        return found, [str(warning.message) for warning in caught]

    (gold, systems), at_once = said(lambda: read_trec_qrels_and_run(qrels, run))
    (alone, runs), one_by_one = said(lambda: (read_trec_qrels(qrels), read_trec_run(run)))
    assert at_once == one_by_one and len(at_once) == 2 and at_once[0].startswith(str(qrels))
    assert gold.grades_of("1") == alone.grades_of("1") == {"d1": 2.0, "d2": 0.0}
    assert systems["s"].documents("1") == runs["s"].documents("1") == ["d2", "d1"]  # 16 above 1 (0x10, 1_000)
    bad_qrels, bad_run = tmp_path / "bad-qrels", tmp_path / "bad-run"
    bad_qrels.write_bytes(b"1 0 d1\n")
    bad_run.write_bytes(b"1 Q0 d1 1\n")
    with pytest.raises(TrecFormatError, match=re.escape(str(bad_qrels))):
        read_trec_qrels_and_run(bad_qrels, bad_run)
    with pytest.raises(TrecFormatError, match=re.escape(str(bad_run))), \
            pytest.warns(TrecReadingWarning, match="relevance grade"):  # the qrels' note, then the run's error
        read_trec_qrels_and_run(qrels, bad_run)

def test_a_non_breaking_space_stays_inside_the_id(tmp_path):
    qrels, run, _ = _files(tmp_path, "no-break space in an id")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read_trec_run(run)["s"].documents("1") == ["d2", "d1\u00a0x"]
        assert set(read_trec_qrels(qrels).grades_of("1")) == {"d1\u00a0x", "d2"}


# --------------------------------------------------------------------------------- C's atof and atol
_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)
_LIBC.atof.restype, _LIBC.atof.argtypes = ctypes.c_double, [ctypes.c_char_p]
_LIBC.atol.restype, _LIBC.atol.argtypes = ctypes.c_long, [ctypes.c_char_p]
_GLIBC = ctypes.util.find_library("c") is not None and "libc.so.6" in (ctypes.util.find_library("c") or "")
_NUMBER_TEXT = st.text(alphabet=st.sampled_from(list("0123456789+-.eExXpPaAfFiInNtTyY_ ()१２٣\u00a0")), min_size=1,
                       max_size=14).map(lambda text: text.encode("utf-8"))


@pytest.mark.skipif(not _GLIBC, reason="the reference is glibc's atof/atol, which trec_eval is built with here")
@settings(max_examples=3000, deadline=None)
@given(text=st.one_of(_NUMBER_TEXT, st.from_regex(rb"\A[+-]?(0[xX])?[0-9a-fA-F]{0,6}(\.[0-9a-fA-F]{0,4})?"
                                                 rb"([eEpP][+-]?[0-9]{0,3})?\Z")))
def test_atof_and_atol_are_glibcs(text):
    """The readers' numbers equal C's atof/atol on the same bytes (glibc, called through ctypes)."""
    expected = _LIBC.atof(text)
    got = atof(text)
    assert got == expected or (np.isnan(got) and np.isnan(expected)), text
    assert atol(text) == _LIBC.atol(text), text


def test_numbers_read_whole_columns_and_say_which_are_odd():
    values, odd = read_floats(np.array([b"1", b"2.5", b"1_000", b"0x10", b"inf", b"1e"], dtype="S"))
    assert values.tolist() == [1.0, 2.5, 1.0, 16.0, float("inf"), 1.0]
    assert odd.tolist() == [False, False, True, True, False, True]
    grades, odd = read_integers(np.array([b"1", b"-2", b"2.5", b"+3", b"99999999999999999999"], dtype="S"))
    assert grades.tolist() == [1, -2, 2, 3, 2**63 - 1] and odd.tolist() == [False, False, True, False, True]


@settings(max_examples=100, deadline=None)
@given(tokens=st.lists(st.one_of(st.from_regex(rb"\A[+-]?[0-9]{1,20}\Z"),
                                 st.from_regex(rb"\A[+-]{0,2}[0-9]{0,3}[-. x\x00]?[0-9]{0,2}\Z")),
                       min_size=1, max_size=8), simple=st.booleans())
def test_a_column_of_grades_is_read_as_each_grade_by_atol(tokens, simple):
    """Issue 42: a column of short plain integers is read digit by digit (numpy's conversion of bytes took 15 ms
    of 240,000 grades); whatever the column, each value is atol's, and odd exactly when it is not a plain integer
    within 64 bits."""
    if simple:  # every grade a sign or none and 1 to 18 digits: the digit-by-digit path
        tokens = [token for token in tokens if re.fullmatch(rb"[+-]?[0-9]{1,18}", token)] or [b"-007"]
    values, odd = read_integers(np.array(tokens, dtype="S"))
    column = [token.rstrip(b"\x00") for token in tokens]  # a fixed-width column holds no trailing NUL
    assert values.tolist() == [atol(token) for token in column]
    assert odd.tolist() == [re.fullmatch(rb"[+-]?[0-9]+", token) is None or not -2**63 <= int(token) < 2**63
                            for token in column]


# ------------------------------------------------------------------- the scanner and the Arrow fast path
ISSPACE_AND_OTHERS = b" \t\n\x0b\x0c\rab#\x85"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.sampled_from(ISSPACE_AND_OTHERS), min_size=1, max_size=40).map(bytes),
       block=st.integers(1, 9))
def test_fields_are_found_across_block_bounds(data, block, monkeypatch):
    """The block-by-block scan finds every run of non-isspace bytes (C's isspace: space, \\t..\\r), whatever
    the block size, and every newline."""
    expected = [(m.start(), m.end()) for m in re.finditer(rb"[^ \t\n\x0b\x0c\r]+", data)]
    with monkeypatch.context() as patch:
        patch.setattr(scan, "BLOCK", block)
        starts, ends, newlines = scan._bounds(np.frombuffer(data, dtype=np.uint8))
    assert list(zip(starts.tolist(), ends.tolist(), strict=True)) == expected
    assert newlines.tolist() == [i for i, byte in enumerate(data) if byte == 10]


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.binary(min_size=1, max_size=20).filter(lambda b: not b.endswith(b"\0")), min_size=1,
                    max_size=30))
def test_id_codes_rank_ids_as_strcmp(ids):
    """Codes equal where the ids are equal and ordered as the bytes compare (trec_eval's strcmp)."""
    ranks = {value: rank for rank, value in enumerate(sorted(set(ids)))}
    assert DocumentIds.from_bytes(np.array(ids, dtype="S")).codes().tolist() == [ranks[value] for value in ids]


_TOPICS = [b"1", b"2", b"10", b"q\xe9", b"a"]
_DOCS = [b"d1", b"D1", b"d2", b"d\xff", b"0x1F", b"NA", b"nan", b"document-id-longer-than-eight-bytes", b"d1\x85"]
_GRADES = [b"0", b"1", b"2", b"-1", b"01", b"+1", b"0x1F", b"1.5", b"3e2", b"x", b"99999999999999999999", b"nan"]
_SCORES = [b"1", b"+1", b"01", b"1.0", b"1e5", b".5", b"5.", b"inf", b"-inf", b"Infinity", b"-0", b"1e400",
           b"1e-400", b"0.30000001", b"0.3", b"0x1p3", b"1_0", b"abc", b"1e", b"-.5e-3", b"nan"]
_SEPARATORS = [b" "] * 12 + [b"  ", b"\t", b" \x0b"]


def _trec_file(draw, fields: list[list[bytes]]) -> bytes:
    """Lines of random fields, mostly plain (one space, or one tab, between fields); now and then a doubled or
    other whitespace separator, a leading or trailing space, a blank, comment or short line, a CRLF ending."""
    tabs = draw(st.integers(0, 5)) == 0
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        values = [draw(st.sampled_from(choices)) for choices in fields]
        if draw(st.integers(0, 15)) == 0:
            values = values[:draw(st.integers(0, len(values) + 1))] + [b"extra"] * draw(st.integers(0, 1))
        line = values[0] if values else b""
        for value in values[1:]:
            line += (b"\t" if tabs else draw(st.sampled_from(_SEPARATORS))) + value
        odd = draw(st.integers(0, 30))
        line = {0: b" " + line, 1: line + b" ", 2: b"#" + line, 3: b"", 4: line + b"\r"}.get(odd, line)
        lines.append(line)
    return (b"\r\n" if draw(st.integers(0, 6)) == 0 else b"\n").join(lines) + draw(st.sampled_from([b"\n", b"",
                                                                                                      b"\n\n"]))


def _read(path: Path, kind: str, fast: bool, monkeypatch) -> tuple:
    """What read_lines gives (or raises) with the Arrow reader on or off."""
    from workbench.data.trec import lines as lines_module

    with monkeypatch.context() as patch, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if not fast:
            patch.setattr(lines_module, "read_plain", lambda *args: None)
        try:
            lines = read_lines(path, kind)
        except WorkbenchError as error:
            return (type(error), str(error)), []
        if kind == "run":  # the tags left unread but the last: the same lines, the same last tag
            untagged = read_lines(path, kind, systems=False)
            assert untagged.systems is None and untagged.numbers.tolist() == lines.numbers.tolist()
            assert untagged.runid == lines.runid == lines.systems.names[lines.systems.codes[-1]]
    values = (lines.topics.names, lines.topics.codes.tolist(), lines.documents.strings().tolist(),
              lines.values.dtype, lines.values.tolist(), lines.numbers.tolist(),
              lines.systems and (lines.systems.names, lines.systems.codes.tolist()))
    return values, sorted(str(w.message) for w in caught)


def _outcome(qrels, run, plain: bool, colliding: bool, monkeypatch) -> tuple:
    """What the drop-in gives (output, warnings) or raises (type, message), with the Arrow reader on or off, and
    every id hash colliding or not."""
    from workbench.data.trec import lines as lines_module

    with monkeypatch.context() as patch:
        if not plain:
            patch.setattr(lines_module, "read_plain", lambda *args: None)
        if colliding:  # every id of one length shares a hash: the exact keys must take over
            patch.setattr(DocumentIds, "hashes", lambda self, part=slice(None): self.lengths[part].astype(np.uint64))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = render(evaluate(qrels, run, ["all_trec"], Options(complete=True)), per_topic=True)
            except WorkbenchError as error:
                result = (type(error), str(error))
    return result, sorted(str(w.message) for w in caught)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_arrow_reads_exactly_what_the_scanner_reads(data, tmp_path, monkeypatch):
    """On random files (odd spellings of numbers and ids, odd spacing, blank and comment lines, duplicates), the
    Arrow path either declines or reads the very lines, topics, ids and values the scanner reads, with the same
    notes; the drop-in's output, notes and errors are the same with it, without it, and with every id hash
    colliding."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(_trec_file(data.draw, [_TOPICS, [b"0"], _DOCS, _GRADES]))
    run.write_bytes(_trec_file(data.draw, [_TOPICS, [b"Q0"], _DOCS, [b"1", b"x"], _SCORES, [b"r", b"run"]]))
    note(f"qrels {qrels.read_bytes()!r}\nrun {run.read_bytes()!r}")
    for path, kind in ((qrels, "qrels"), (run, "run")):
        assert _read(path, kind, True, monkeypatch) == _read(path, kind, False, monkeypatch)
    expected = _outcome(qrels, run, plain=False, colliding=False, monkeypatch=monkeypatch)
    assert _outcome(qrels, run, plain=True, colliding=False, monkeypatch=monkeypatch) == expected
    assert _outcome(qrels, run, plain=True, colliding=True, monkeypatch=monkeypatch) == expected


@pytest.mark.parametrize("text, plain", [
    (b"1 Q0 d1 1 0.5 r\n1 Q0 d2 2 1e-3 r", True),
    (b"1 Q0 d1 1 0.5 r\n2 Q0 d1 1 -inf r\n", True),
    (b"1\tQ0\td1\t1\t0.5\tr\n", True),  # one tab between fields
    (b"1 Q0 d1 1 0.5 r\r\n", True),  # CRLF: the carriage return is a space before the newline
    (b"1 Q0 d1 1 0.5 r\t\n", False),  # a space and a tab
    (b"1 Q0 d1 1 0.5 r\r1 Q0 d2 1 0.5 r\n", False),  # a lone carriage return
    (b"1 Q0 d1 1 0.5 r\n# a comment\n", False),
    (b"1 Q0 d1  1 0.5\n", False),  # a doubled space: six fields for Arrow, five for trec_eval
    (b" 1 Q0 d1 1 0.5\n", False),
    (b"1 Q0 d1 1 0.5 \n", False),
    (b"1 Q0 d1 1 0.5 r\n\n1 Q0 d2 1 0.5 r\n", False),
    (b"1 Q0 d1 1 0.5 r extra\n", False),
    (b"1 Q0 d1 1 nan r\n", False),
    (b"1 Q0 d1 1 0x1p3 r\n", False),
])
def test_arrow_takes_plain_runs_only(text, plain):
    assert (arrow.read_plain(text, "run", ("topic", "document", "score", "system"), "utf-8") is not None) == plain
    untagged = arrow.read_plain(text, "run", ("topic", "document", "score"), "utf-8")  # the last tag only
    assert (untagged is not None) == plain
    if plain:
        assert "system" not in untagged and untagged["last system"] == text.split()[-1]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.lists(st.sampled_from(b" \t\n\rab"), max_size=60).map(bytes), pair=st.sampled_from(
    [b"  ", b"\t\t", b" \n", b"\t\r"]), block=st.integers(1, 8))
def test_byte_pairs_are_found_whatever_the_block(raw, pair, block, monkeypatch):
    monkeypatch.setattr(arrow, "_PAIR_BLOCK", block)
    assert arrow._has_pair(raw, pair) == (pair in raw)


@settings(max_examples=200, deadline=None)
@given(size=st.integers(0, 6), index=st.integers(-9, 9), start=st.none() | st.integers(-9, 9),
       stop=st.none() | st.integers(-9, 9), step=st.none() | st.integers(-3, 3).filter(bool),
       positions=st.lists(st.integers(-9, 9), max_size=4))
def test_line_numbers_are_indexed_as_the_array_of_them(size, index, start, stop, step, positions):
    """A plain file's line numbers (1..n, not held) answer as ``np.arange(1, n + 1)``: negative indexes from the
    end, IndexError past either end (so that iterating them ends, as a Sequence's iteration stops at it)."""
    numbers, array = LineNumbers(size), np.arange(1, size + 1)
    for key in (index, np.int64(index), np.array(positions, dtype=np.int64)):
        try:
            expected = array[key]
        except IndexError:
            with pytest.raises(IndexError):
                numbers[key]
        else:
            assert np.array_equal(numbers[key], expected) and np.ndim(numbers[key]) == np.ndim(expected)
    assert numbers[start:stop:step].tolist() == array[start:stop:step].tolist()
    assert list(numbers) == array.tolist() == numbers.tolist() and np.array_equal(np.asarray(numbers), array)
    assert (index + 1 in numbers) == (index + 1 in array.tolist())


def _columns(columns: dict | None) -> object:
    """read_plain's columns as plain lists, to compare two readings."""
    if columns is None:
        return None
    return {name: (value[0].tolist(), value[1]) if isinstance(value, tuple) else
            value.strings().tolist() if isinstance(value, DocumentIds) else
            value.tolist() if isinstance(value, np.ndarray) else value for name, value in columns.items()}


_PLAIN_SCORES = [b"1", b"-0", b"0.3", b"1e5", b".5", b"-inf", b"1e-400", b"0.30000001"]
_NOT_PLAIN = [b"1 Q0 d1 1 abc r", b"1 Q0 d1 1 nan r", b"1 Q0  d1 1 0.5 r", b"1 Q0 d1 1 0.5", b"1 0 d1 1.5",
              b"1 0 d1 x", b"1 0 d1"]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), piece=st.integers(1, 80))
def test_pieces_read_on_two_threads_are_the_file_read_whole(data, piece):
    """A plain file cut into pieces of a few bytes (at line ends), the pieces parsed on two threads and joined in
    order, gives the columns of one piece on one thread: the same lines, values, ids, and topic and tag codes
    numbered in order of first appearance; a file one line of which is not plain (in any piece) is not plain."""
    def lines(fields: list[list[bytes]]) -> bytes:
        drawn = [b" ".join(data.draw(st.sampled_from(choices)) for choices in fields)
                 for _ in range(data.draw(st.integers(1, 30)))]
        if data.draw(st.integers(0, 4)) == 0:
            drawn.insert(data.draw(st.integers(0, len(drawn))), data.draw(st.sampled_from(_NOT_PLAIN)))
        return b"\n".join(drawn) + data.draw(st.sampled_from([b"\n", b""]))

    run = lines([_TOPICS, [b"Q0"], _DOCS, [b"1", b"22"], _PLAIN_SCORES, [b"r", b"run"]])
    qrels = lines([_TOPICS, [b"0"], _DOCS, [b"0", b"1", b"-1", b"007"]])
    for text, kind, wanted in ((run, "run", ("topic", "document", "score", "system")),
                               (run, "run", ("topic", "document", "score", "rank")),
                               (qrels, "qrels", ("topic", "document", "grade"))):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(THREADS_VARIABLE, "1")
            whole = _columns(arrow.read_plain(text, kind, wanted, "utf-8"))
            patch.setenv(THREADS_VARIABLE, "2")
            patch.setattr(arrow, "PIECE", piece)
            assert _columns(arrow.read_plain(text, kind, wanted, "utf-8")) == whole
            note(f"{kind} {'plain' if whole else 'not plain'}: {text!r}")


_FIELD_BYTES = [b"a", b"1", b"#", b"\xc3\xa9", b"\x85", b"\x00", b"\x0b", b"\x0c", b"\x1c", b"\x7f", b"\r"]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), piece=st.integers(1, 40), head=st.integers(0, 40), tags=st.booleans())
def test_a_plain_file_is_ascii_text_exactly_when_its_pieces_find_it(data, piece, head, tags):
    """Issue 42: read_plain checks each piece's bytes on the piece's thread instead of a pass over the whole file
    first. Whatever the pieces, a file it takes is one the whole file's separator check takes, with the separator
    of the first line; and it says the file is ASCII text exactly when every byte is ASCII and none below 32 but
    the line feeds and that separator (so that read_lines says nothing of NUL bytes, byte-order marks or other
    spaces)."""
    delimiter = data.draw(st.sampled_from([b" ", b"\t"]))
    lines = []
    for _ in range(data.draw(st.integers(1, 5))):
        fields = [b"1", b"Q0", b"d" + data.draw(st.sampled_from([b"1"] * 8 + _FIELD_BYTES)),
                  b"1", b"0.5", b"r"]
        separators = [data.draw(st.sampled_from([delimiter] * 60 + [b" ", b"\t", delimiter * 2])) for _ in fields]
        lines.append(b"".join(field + separator for field, separator in zip(fields, separators, strict=True))[:-1]
                     + data.draw(st.sampled_from([b""] * 12 + [b" ", b"\t"])))
    ends = data.draw(st.sampled_from([b"\n"] * 4 + [b"\r\n", b"\r"]))
    raw = data.draw(st.sampled_from([b""] * 6 + [b"\xef\xbb\xbf", b"#"])) + ends.join(lines) + \
        data.draw(st.sampled_from([b"\n", b"", ends]))
    wanted = ("topic", "document", "score") if tags else ("topic", "document", "score", "system")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrow, "PIECE", piece)
        patch.setattr(arrow, "HEAD", head)  # the first lines checked whole, the rest by the pieces
        columns = arrow.read_plain(raw, "run", wanted, "utf-8")
    note(repr(raw))
    if columns is None:
        return
    first = b"\t" if b"\t" in raw.split(b"\n")[0] else b" "
    assert arrow.separator(raw, last_field=tags) == first
    assert columns["ASCII text"] == all(32 <= byte < 128 or bytes([byte]) in (b"\n", first) for byte in raw)


@pytest.mark.parametrize("text", [b"\xef\xbb\xbf1 Q0 d1 1 0.5 r\n", b"# run\n1 Q0 d1 1 0.5 r\n",
                                  b"1 Q0 d1  1 0.5 r\n", b"1\tQ0 d1 1 0.5 r\n", b"1 Q0 d1 1 0.5 r\r1 Q0 d2 1 0.4 r\n"])
def test_a_file_whose_first_lines_are_not_plain_is_declined_unparsed(text, monkeypatch):
    """A file whose first lines the whole-file check refuses (a byte-order mark, a comment, a doubled separator,
    a tab and a space, a lone carriage return) goes to the scanner without Arrow parsing its pieces first."""
    monkeypatch.setattr(arrow, "HEAD", 4)
    monkeypatch.setattr(arrow, "_lend", lambda raw: pytest.fail("parsed"))
    assert arrow.read_plain(text + b"1 Q0 d3 1 0.3 r\n" * 10, "run", ("topic", "document", "score"), "utf-8") is None


def test_a_labels_column_counts_its_lines_while_it_holds_one_value_and_codes_them_once_it_holds_two():
    """Issue 42: a run's one tag is counted chunk by chunk, not looked up line by line; a second value met later
    gives the lines before it code 0, in the file's order, numbered in order of first appearance."""
    column = arrow._Labels()
    column.add([b"r"], np.array([0, 0], dtype=np.int32))
    column.add([b"r"], np.array([0], dtype=np.int32))
    codes, names = column.labels()
    assert (codes.tolist(), names) == ([0, 0, 0], [b"r"])
    column.add([b"x", b"r"], np.array([1, 0, 1], dtype=np.int32))
    codes, names = column.labels()
    assert (codes.tolist(), names, codes.dtype) == ([0, 0, 0, 0, 1, 0], [b"r", b"x"], np.int32)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(topics=st.lists(st.sampled_from(["1", "2", "q3", "10"]), min_size=1, max_size=40),
       tags=st.lists(st.sampled_from(["r", "s"]), min_size=1, max_size=40), plain=st.booleans())
def test_each_labels_first_line_is_np_uniques_first_index(topics, tags, plain, tmp_path):
    """Issue 42: a streamed block finds each topic's and tag's first line from the codes (numbered in order of
    first appearance, as either reader numbers them: Arrow's pieces or the scanner), without np.unique's sort: the
    indices np.unique(codes, return_index=True) gives, a run of one tag (codes held as one broadcast 0) too."""
    path = tmp_path / "run"
    gap = b" " if plain else b"  "  # a doubled space: not plain, read by the scanner
    path.write_bytes(b"".join(f"{topic} Q0 d{i} 1 0.5".encode() + gap + tag.encode() + b"\n"
                              for i, (topic, tag) in enumerate(zip(topics, tags * len(topics), strict=False))))
    lines = read_lines(path, "run")
    for labels in (lines.topics, lines.systems):
        assert labels.firsts().tolist() == np.unique(np.asarray(labels.codes), return_index=True)[1].tolist()
        assert [labels.names[labels.codes[i]] for i in labels.firsts()] == list(labels.names)


@pytest.mark.parametrize("grade, plain", [(b"2", True), (b"-1", True), (b"007", True), (b"0x1F", False),
                                          (b"+1", True), (b"1.0", False), (b"99999999999999999999", False)])
def test_arrow_takes_plain_grades_only(grade, plain):
    """The fast path reads grades with the scanner's own reader and takes the file only where every grade is a
    plain integer to it (read as C's atol reads it, without a note); 0x1F (0 to atol), 1.0 and a grade past 64
    bits go to the scanner, which says how it reads them."""
    columns = arrow.read_plain(b"1 0 d1 " + grade + b"\n", "qrels", ("topic", "document", "grade"), "utf-8")
    assert (columns is not None) == plain
    if plain:
        assert columns["grade"].tolist() == read_integers(np.array([grade]))[0].tolist()


# ------------------------------------------------------------------------------------- one very long id
_MEASURED = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=sys.stdout)
_, status, usage = os.wait4(child.pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, sys.argv[1:]
sys.stderr.write(str(usage.ru_maxrss))
"""


def _peak_of(command: list[str]) -> tuple[int, bytes]:
    """The peak resident memory (bytes) of one process running ``command``, and its output. It is started by a
    small Python process that reports its child's usage: one started from this test process would count this
    process's memory, which it shares until it runs the command."""
    done = subprocess.run([sys.executable, "-c", _MEASURED, *command], capture_output=True, check=True, cwd=ROOT)
    return int(done.stderr) * 1024, done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("plain", [False, True], ids=["scanner", "arrow"])
def test_a_very_long_id_costs_its_bytes_not_lines_times_its_length(tmp_path, plain):
    """trec_eval's results.test and qrels.test with one judged, retrieved document id of 20 MB (issue 31: the
    drop-in asked for 28 GiB, eval took 4.8 GB for a 1 MB id): the drop-in and eval read it within a few times the
    file's size and print what they print for a short id in its place ("LL" sorts where the long one does)."""
    run_lines = shared_dataset("trec_eval_test", "results.test").read_bytes().splitlines(keepends=True)
    qrels = shared_dataset("trec_eval_test", "qrels.test").read_bytes()
    fields = run_lines[0].split()
    outputs = {}
    for name, document in (("long", b"L" * (20 << 20)), ("short", b"LL")):
        lines = [b" ".join([fields[0], fields[1], document, *fields[3:]]) + b"\n", *run_lines[1:]]
        if plain:  # single spaces: the Arrow reader's file
            lines = [b" ".join(line.split()) + b"\n" for line in lines]
        (tmp_path / f"run.{name}").write_bytes(b"".join(lines))
        (tmp_path / f"qrels.{name}").write_bytes(qrels + b" ".join([fields[0], b"0", document, b"1"]) + b"\n")
        files = [str(tmp_path / f"qrels.{name}"), str(tmp_path / f"run.{name}")]
        drop_in = _peak_of([sys.executable, "-m", "workbench", "trec_eval", "-q", "-m", "all_trec", *files])
        cli = _peak_of([sys.executable, "-m", "workbench", "eval", "--gold", files[0], "--run", files[1], "-m",
                        "AP", "P@10", "--per-topic", "--format", "csv"])
        outputs[name] = (drop_in, cli)
    (long_drop_in, long_cli), (short_drop_in, short_cli) = outputs["long"], outputs["short"]
    assert long_drop_in[1] == short_drop_in[1] and long_cli[1] == short_cli[1]
    for long, short in ((long_drop_in, short_drop_in), (long_cli, short_cli)):
        assert long[0] < short[0] + 8 * (20 << 20), "the 20 MB id takes more than 8 times its bytes"


def test_a_field_too_long_for_a_column_is_refused_naming_its_line(tmp_path):
    """Fields kept in fixed-width columns (a run's Q0 and rank, as read_trec_run_frame gives them) are refused,
    naming the line, where one of them would make its column many times the file's size; ids and numbers of any
    length are read."""
    run = tmp_path / "run"
    run.write_bytes(b"".join(b"q1 Q0 d%d 1 0.5 s\n" % i for i in range(1000)) + b"q1 " + b"Q" * (1 << 20)
                    + b" long 2 0.4 s\n")
    with pytest.raises(TrecFormatError, match=r"line 1001: field 2 is 1,048,576 bytes long"):
        read_trec_run_frame(run)
    assert read_trec_run(run)["s"].documents("q1")[-1] == "long"  # what trec_eval reads of it


# --------------------------------------------------------------------------- encodings, bytes, streams
def test_a_nul_byte_is_refused_with_its_line(tmp_path):
    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 d1 1 1 r\n1 Q0 d\x002 2 1 r\n")
    with pytest.raises(TrecFormatError, match="NUL byte") as caught:
        read_trec_run(run)
    assert caught.value.line == 2


def test_bytes_the_encoding_cannot_decode_are_kept_and_said(tmp_path):
    run = tmp_path / "run"
    run.write_bytes(b"1 Q0 d\xe91 1 2 r\n1 Q0 d2 2 1 r\n")
    with pytest.warns(TrecReadingWarning, match=r"not valid utf-8 from line 1 .*--encoding latin-1"):
        ranking = read_trec_run(run)["r"]
    assert ranking.documents("1") == ["d\\xe91", "d2"]  # the byte kept, shown as an escape
    assert read_trec_run(run, encoding="latin-1")["r"].documents("1") == ["d\xe91", "d2"]


def test_a_byte_order_mark_is_read_as_trec_eval_reads_it(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"\xef\xbb\xbf1 0 d1 1\n2 0 d2 1\n")
    with pytest.warns(TrecReadingWarning, match="byte-order mark"):
        assert list(read_trec_qrels(qrels)) == ["\ufeff1", "2"]
    assert list(read_trec_qrels(qrels, encoding="utf-8-sig")) == ["1", "2"]


def test_encodings_that_are_not_ascii_compatible_are_read(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes("1 0 dé 1\n1 0 d2 0\n".encode("utf-16"))
    assert read_trec_qrels(qrels, encoding="utf-16").grades_of("1") == {"dé": 1.0, "d2": 0.0}
    with pytest.raises(ParameterError, match="read_trec_qrels: encoding must be an encoding Python knows"):
        read_trec_qrels(qrels, encoding="nope")


def test_gzip_and_standard_input_everywhere(tmp_path):
    """The drop-in reads gzip-compressed files and '-' (standard input) as the readers do; plain files stay byte
    for byte."""
    qrels, run, _ = _files(tmp_path, "several topics")
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(run.read_bytes()))
    command = [sys.executable, "-m", "workbench", "trec_eval", "-q", str(qrels)]
    plain = subprocess.run([*command, str(run)], capture_output=True, check=True, cwd=ROOT).stdout
    assert subprocess.run([*command, str(packed)], capture_output=True, check=True, cwd=ROOT).stdout == plain
    assert subprocess.run([*command, "-"], input=run.read_bytes(), capture_output=True, check=True,
                          cwd=ROOT).stdout == plain
    with io.BytesIO(gzip.compress(run.read_bytes())) as stream:
        assert subprocess.run([*command, "-"], input=stream.read(), capture_output=True, check=True,
                              cwd=ROOT).stdout == plain


# ---------------------------------------------------------------------------- the public front door
def test_read_campaign_is_what_eval_prints_per_topic(capsys):
    """``wb.read_campaign(...).evaluate(...)`` equals ``eval --per-topic`` value for value (full precision),
    ``all`` rows included; ``wb.Campaign`` is the campaign class."""
    import workbench as wb
    from workbench.data.campaign import Campaign as CampaignClass
    from workbench.data.campaign import means

    assert wb.Campaign is CampaignClass
    qrels = str(shared_dataset("trec_eval_test", "qrels.rel_level"))
    runs = [str(shared_dataset("trec_eval_test", name)) for name in ("results.test", "results.trunc")]
    measures = ["AP", "nDCG@10", "P@5", "NumRel", "NumRet", "GMAP", "Bpref(rel_level=2)"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(WorkbenchError, match="already in an earlier run file"):  # both runs are STANDARD
            wb.read_campaign(qrels, runs)
        results = wb.read_campaign(qrels, runs[:1]).evaluate(measures, progress=False)
    assert cli_main(["eval", "--gold", qrels, "--run", runs[0], "-m", *measures, "--per-topic", "--format", "csv",
                     "-q"]) == 0
    printed = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    expected = [[s, str(t), m, repr(v)] for s, t, m, v in
                pd.concat([results, means(results)], ignore_index=True).itertuples(index=False)]
    assert [row[:3] for row in printed] == [row[:3] for row in expected]
    assert [float(row[3]) for row in printed] == [float(row[3]) for row in expected]


@pytest.mark.parametrize("raw, plain", [
    (b"a b\nc d\n", b" "),
    (b"a b\nc d \n", None),  # a separator before a line end: an empty last field
    (b"a b\r\nc d\r\n", b" "),
    (b"a b\r\nc d \r\n", None),
    (b"a b\r\nc d \n", None),  # CRLF and LF line ends mixed: the separator before the LF is found too
    (b"a\tb\nc\t\td\n", None),
])
def test_a_separator_before_a_line_end_is_found_whatever_the_line_ends(raw, plain):
    """The last field unread (the drop-in's run): a file is plain only without a separator before a line end; a
    pair of a separator and a carriage return is looked for only in a file holding one."""
    assert arrow.separator(raw, last_field=True) == plain
