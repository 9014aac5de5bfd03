"""Numbers Python will not convert (issue 31, class 4): digits past Python's integer-string limit (4,300) in a
file or on the command line are read as C's atol/atof read them (trec_eval 10.0's reading: a long past 64 bits is
clamped), and numbers no double can hold (a Python integer of 5,000 digits) are refused in one line naming where
they are; never a ValueError or OverflowError traceback."""

import ctypes
import ctypes.util
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.cli import main
from workbench.data import Campaign, read_trec_qrels, read_trec_run
from workbench.data.trec.judgement_groups import read_judgement_groups
from workbench.data.trec.preferences import read_preferences
from workbench.data.trec.writers import write_trec_qrels, write_trec_run
from workbench.data.trec.zscores import read_zscores
from workbench.errors import WorkbenchError, quoted
from workbench.reading.numbers import atof, atol, read_integers

LONG_MAX, LONG_MIN = 2**63 - 1, -(2**63)
PAST_PYTHON = "9" * 5000  # past sys.get_int_max_str_digits() (4,300 by default)

_LIBC = ctypes.CDLL(ctypes.util.find_library("c") or None)
_LIBC.atol.restype, _LIBC.atol.argtypes = ctypes.c_long, [ctypes.c_char_p]
_LIBC.atof.restype, _LIBC.atof.argtypes = ctypes.c_double, [ctypes.c_char_p]
_GLIBC = "libc.so.6" in (ctypes.util.find_library("c") or "")


def test_the_limit_is_there():
    """The cases below are past Python's limit (else they would test nothing)."""
    assert sys.get_int_max_str_digits() < len(PAST_PYTHON)
    with pytest.raises(ValueError, match="integer string conversion"):
        int(PAST_PYTHON)


# ------------------------------------------------------------------------------------------------ atol, atof
_LONG_TEXT = st.builds(lambda space, sign, zeros, digits, tail: (space + sign + "0" * zeros + digits + tail).encode(),
                       st.sampled_from(["", " ", "\t "]), st.sampled_from(["", "+", "-"]), st.integers(0, 30),
                       st.one_of(st.text("0123456789", min_size=1, max_size=30),
                                 st.text("0123456789", min_size=4300, max_size=6000)),
                       st.sampled_from(["", ".5", "x", "e3"]))


@pytest.mark.skipif(not _GLIBC, reason="the reference is glibc's atol/atof, which trec_eval is built with here")
@settings(max_examples=300, deadline=None)
@given(text=_LONG_TEXT)
def test_numbers_of_any_length_read_as_glibc_reads_them(text):
    assert atol(text) == _LIBC.atol(text)
    assert atof(text) == _LIBC.atof(text)
    values, odd = read_integers(np.array([text], dtype="S"))
    assert values[0] == _LIBC.atol(text)
    assert bool(odd[0]) == (not LONG_MIN <= _python_int(text) <= LONG_MAX if _plain(text) else True)


def _plain(text: bytes) -> bool:
    return text.strip(b" \t").lstrip(b"+-").isdigit() and text == text.strip(b" \t")


def _python_int(text: bytes) -> int:
    digits = text.lstrip(b"+-").lstrip(b"0") or b"0"
    if len(digits) > 19:
        return LONG_MAX + 1
    return -int(digits) if text.startswith(b"-") else int(digits)


# ------------------------------------------------------------------------------------------------ every reader
def _write(path, text: str):
    path.write_text(text)
    return path


def test_every_file_reader_reads_a_grade_past_python_as_a_long(tmp_path):
    """A grade of 5,000 digits is trec_eval's LONG_MAX (atol clamps), with the note naming its line."""
    qrels = _write(tmp_path / "qrels", f"1 0 d1 {PAST_PYTHON}\n1 0 d2 0\n")
    run = _write(tmp_path / "run", f"1 Q0 d1 1 {PAST_PYTHON} r\n1 Q0 d2 2 0.5 r\n")
    with pytest.warns(wb.WorkbenchWarning, match=r"line 1 '9999.*…' as 9223372036854775807"):
        assert read_trec_qrels(qrels).grades_of("1")["d1"] == float(LONG_MAX)
    assert read_trec_run(run)["r"].documents("1") == ["d1", "d2"]  # atof: inf, above 0.5
    jg = _write(tmp_path / "jg", f"1 g d1 {PAST_PYTHON}\n1 g d2 0\n")
    prefs = _write(tmp_path / "prefs", f"1 g s d1 {PAST_PYTHON}\n1 g s d2 0\n")
    zscores = _write(tmp_path / "z", f"1 map {PAST_PYTHON} 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read_judgement_groups(jg) is not None
        assert read_preferences(prefs) is not None
        assert read_zscores(zscores) is not None
        table = Campaign(read_trec_qrels(qrels), read_trec_run(run)).evaluate(["AP"], progress=False)
    assert table["value"].tolist() == [1.0]


def test_the_drop_in_and_eval_read_long_options_as_atol(tmp_path, capsys):
    """-M, -l, -N and cutoffs or gain levels of 5,000 digits are read by atol as trec_eval reads them; eval's -M
    and -l read digits of any length too."""
    qrels = _write(tmp_path / "qrels", "1 0 d1 1\n1 0 d2 2\n")
    run = _write(tmp_path / "run", "1 Q0 d1 1 0.9 r\n1 Q0 d2 2 0.5 r\n")
    args = [str(qrels), str(run)]
    for options, same_as in ((["-M" + PAST_PYTHON], []), (["-N" + PAST_PYTHON], ["-N" + str(LONG_MAX)]),
                             (["-m", "P." + PAST_PYTHON], ["-m", f"P.{LONG_MAX}"]),
                             (["-m", f"ndcg.{PAST_PYTHON}=2"], ["-m", f"ndcg.{LONG_MAX}=2"]),
                             (["-l" + PAST_PYTHON, "-m", "num_rel_ret"], ["-l" + str(LONG_MAX), "-m", "num_rel_ret"])):
        assert main(["trec_eval", *options, *args]) == 0
        printed = capsys.readouterr().out
        assert main(["trec_eval", *same_as, *args]) == 0
        same = capsys.readouterr().out  # names print the long (P_9223...) or the text typed (ndcg_999...)
        assert _fields(printed) == _fields(same)
    for option in ("-M", "-l"):
        assert main(["eval", "--gold", str(qrels), "--run", str(run), "-m", "AP", option, PAST_PYTHON, "-q"]) == 0
        capsys.readouterr()
    assert main(["eval", "--gold", str(qrels), "--run", str(run), "-m", "AP", "-M", "-" + PAST_PYTHON]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "expected an integer ≥ 0, got '-999" in error and len(error) < 200


def _fields(printed: str) -> list[list[str]]:
    return [line.replace(PAST_PYTHON, "N").replace(str(LONG_MAX), "N").split() for line in printed.splitlines()]


@settings(max_examples=20, deadline=None)
@given(digits=st.text("0123456789", min_size=4000, max_size=6000), sign=st.sampled_from(["", "-", "+"]),
       option=st.sampled_from(["-M", "-l", "-N", "-mP.", "-mndcg_cut.", "-mndcg.1="]))
def test_long_options_read_or_refuse_in_one_line(digits, sign, option, tmp_path_factory):
    """Any digits after any numeric option: a result, or a refusal (a WorkbenchError: one line, status 2)."""
    folder = tmp_path_factory.mktemp("long")
    qrels = _write(folder / "qrels", "1 0 d1 1\n")
    run = _write(folder / "run", "1 Q0 d1 1 0.9 r\n")
    assert main(["trec_eval", option + sign + digits, str(qrels), str(run)]) in (0, 2)


# --------------------------------------------------------------------------------- numbers no double can hold
def test_integers_past_a_double_are_refused_naming_where(tmp_path):
    huge = 10**5000
    cases = [
        (lambda: Campaign.from_dicts({"1": {"d1": huge}}, {"r": {"1": {"d1": 1.0}}}), "query '1', document 'd1'"),
        (lambda: Campaign.from_dicts({"1": {"d1": 1}}, {"r": {"1": {"d1": huge}}}), "run 'r': query '1'"),
        (lambda: Campaign.from_frames(pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "relevance": [huge]}),
                                      {"r": pd.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "score": [1.0]})}),
         "column 'relevance' is too large for a double at row 0"),
        (lambda: wb.Organization.from_graded({"d1": huge}), "from_graded: grades value of 'd1'"),
        (lambda: write_trec_qrels(pd.DataFrame({"topic": ["1"], "iteration": ["0"], "document": ["d1"],
                                                "relevance": [huge]}), tmp_path / "q"), "topic '1', document 'd1'"),
        (lambda: write_trec_run(pd.DataFrame({"topic": ["1"], "q0": ["Q0"], "document": ["d1"], "rank": [1],
                                              "score": [huge], "system": ["s"]}), tmp_path / "r"), "document 'd1'"),
    ]
    for make, where in cases:
        with pytest.raises(WorkbenchError, match="too large for a double") as caught:
            make()
        message = str(caught.value)
        assert where in message and "about 5,000 digits" in message and len(message) < 300
    assert not (tmp_path / "q").exists() and not (tmp_path / "r").exists()


def test_text_past_pythons_integer_limit_in_a_frame_is_read_as_python_reads_it():
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "score": ["0.5", PAST_PYTHON]})
    assert Campaign.from_frames(qrels, {"r": run}).runs["r"].documents("1") == ["d2", "d1"]  # float(): inf
    with pytest.raises(WorkbenchError, match=r"column 'relevance' is infinite at row 0: '9999"):
        Campaign.from_frames(qrels.assign(relevance=[PAST_PYTHON, "0"]), {"r": run})


def test_quoted_names_long_integers_by_their_size():
    assert quoted(10**5000) == "<an integer of about 5,000 digits>"
    assert quoted(-(10**4400)) == "<an integer of about 4,400 digits>"
    assert quoted("x" * 100).endswith("…") and len(quoted("x" * 100)) == 60
