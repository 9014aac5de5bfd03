"""The trec_eval drop-in: trec_eval 10.0's whole quicktest (15 command lines) byte for byte, every measure against
pytrec_eval (trec_eval's C code) on random campaigns with ties, trec_eval's order and its bad input. The
preference, judgement-group and z-score parts are tested in test_trec_eval_formats.py."""

import math
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import (
    QUICKTEST,
    TREC_EVAL_SPELLINGS,
    quicktest_paths,
    reference_module,
    rounds_as_trec_eval_9,
    shared_dataset,
    write_trec,
)
from tests.strategies import trec_campaigns
from workbench.cli import main as cli_main
from workbench.data import evaluate_run
from workbench.data.trec import TrecFormatError
from workbench.data.trec.ranked import MAX_DOCS
from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.metrics.ranking import GainTable, trec_eval_order
from workbench.metrics.summary import summarize
from workbench.threads import THREADS_VARIABLE
from workbench.trec_eval import Options, TrecEvalError, evaluate, main, render, select_measures


@pytest.mark.parametrize("reference, args", QUICKTEST, ids=[f"{r}:{a[-2]}" for r, a in QUICKTEST])
def test_quicktest_byte_for_byte(reference, args, capsys):
    expected = shared_dataset("trec_eval_test", reference).read_bytes()
    assert cli_main(["trec_eval", *quicktest_paths(args)]) == 0
    captured = capsys.readouterr()
    assert captured.out.encode("latin-1") == expected
    # qrels.rel_level grades 304 documents -1: trec_eval's "pooled but unjudged", said on stderr
    assert ("negative grade" in captured.err) == ("qrels.rel_level" in args)


# ------------------------------------------------------------------------------- pytrec_eval, random
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=trec_campaigns(), level=st.integers(1, 3), judged_only=st.booleans())
def test_every_measure_equals_pytrec_eval(data, level, judged_only):
    """Every all_trec measure pytrec_eval computes, per topic, to 1e-9 and as printed (4 decimals)."""
    pytrec_eval = reference_module("pytrec_eval")
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures, relevance_level=level,
                                            judged_docs_only_flag=judged_only).evaluate(run)
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)  # run topics without judgements, negative grades
        mine = evaluate(*write_trec(Path(folder), qrels, {"tag": run}), ["all_trec"],
                        Options(rel=level, judged_only=judged_only))
    assert set(mine.topics) == set(theirs)
    checked = 0
    for measure, names, columns in mine.rows:
        if measure.name in ("runid", "relstring", "num_q", "unj", "rbp", "rbp_resid"):
            continue  # text, a count, and measures newer than pytrec_eval's trec_eval
        for name, column in zip(names, columns, strict=True):
            for topic, value in zip(mine.topics, column, strict=True):
                if measure.name in ("iprec_at_recall", "11pt_avg") and \
                        not rounds_as_trec_eval_9(theirs[topic]["num_rel"]):
                    continue  # pytrec_eval bundles trec_eval 9: ⌊rR + 0.9⌋ where version 10 rounds rR
                expected = theirs[topic][name]
                if measure.aggregate == "gmean":  # pytrec_eval keeps a topic's log(max(value, 0.00001))
                    value = math.log(max(value, 1e-5))
                if math.isnan(expected):
                    assert math.isnan(value), (name, topic)
                    continue
                assert value == pytest.approx(expected, abs=1e-9), (name, topic)
                assert f"{value:6.4f}" == f"{expected:6.4f}", (name, topic)
                checked += 1
    assert checked > 0


@settings(max_examples=120, deadline=None)
@given(data=trec_campaigns(), level=st.integers(1, 3))
def test_registered_measures_equal_pytrec_eval(data, level):
    """The registry's spellings of trec_eval's measures through the API (one vectorised pass), to 1e-9."""
    pytrec_eval = reference_module("pytrec_eval")
    qrels, run = data
    wanted = {"bpref", "infAP", "set_P", "set_recall", "set_F", "set_map", "set_relative_P", "num_rel",
              "num_ret", "num_rel_ret", "num_nonrel_judged_ret", "recall.7", "relative_P.7", "iprec_at_recall",
              "Rprec_mult", "11pt_avg", "binG", "utility", "G", "ndcg_rel", "Rndcg", "map", "ndcg"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level).evaluate(run)
    names = {k: v.format(L=level) for k, v in TREC_EVAL_SPELLINGS.items()}
    mine = evaluate_run(qrels, run, names.values())
    for topic, values in theirs.items():
        for measure, registered in names.items():
            if measure in ("iprec_at_recall_0.30", "11pt_avg") and not rounds_as_trec_eval_9(values["num_rel"]):
                continue  # pytrec_eval bundles trec_eval 9's rounding of r·R (see above)
            assert mine[registered][topic] == pytest.approx(values[measure], abs=1e-9), (measure, topic)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=trec_campaigns(), block=st.sampled_from([1 << 19, 1, 2, 3, 5, 9]), parts=st.booleans(),
       threads=st.sampled_from(["1", "2"]), level=st.integers(1, 3), complete=st.booleans(), judged_only=st.booleans())
def test_blocks_and_parts_on_threads_print_what_one_pass_prints(data, block, parts, threads, level, complete,
                                                               judged_only, monkeypatch, tmp_path_factory):
    """Every measure of the qrels format, the run joined and scored a block of whole topics at a time
    (JOINED_BLOCK entries, a topic the run lacks counting one: -c's placeholder), each block's table scored in
    parts of its rows (as large tables are), on one thread or two: the lines one join of every topic scored whole
    prints, to the byte, and the same values."""
    from workbench import trec_eval
    from workbench.data import engines

    qrels, run = data
    requests = [m.name for m in trec_eval.MEASURES if m.reads in ("qrels", "any")]
    files = write_trec(tmp_path_factory.mktemp("blocks"), qrels, {"tag": run})
    options = Options(rel=level, complete=complete, judged_only=judged_only)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        try:
            whole = evaluate(*files, requests, options)
        except TrecEvalError:  # no topic with both results and judgements
            return
        with monkeypatch.context() as patch:
            patch.setattr(trec_eval, "JOINED_BLOCK", block)
            patch.setattr(engines, "PARALLEL_CELLS", 0 if parts else engines.PARALLEL_CELLS)
            patch.setenv(THREADS_VARIABLE, threads)
            split = evaluate(*files, requests, options)
    assert render(split, per_topic=True) == render(whole, per_topic=True)
    assert repr([columns for _, _, columns in split.rows]) == repr([columns for _, _, columns in whole.rows])


@pytest.mark.parametrize("qrels_text, line", [("1 0 a 1\n2 0 a 1\n3 0 a 1\n3 0 a 0\n", 4),
                                              ("1 0 a 1\n2 0 a 1\n3 0 a 1\n", 6)])
def test_a_repeat_in_a_later_block_is_the_error_one_join_raises(tmp_path, monkeypatch, qrels_text, line):
    """Joined a block of topics at a time, the error is the one joining every topic at once raises first, wherever
    the blocks fall: the judgements' repeat (topic 3, line 4 of the qrels) before the run's; without it, the run's
    first repeat in its order (topic 2, line 6; topic 3 repeats too, line 8)."""
    from workbench import trec_eval

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(qrels_text)
    run.write_text("1 Q0 a 1 1 r\n1 Q0 b 2 0.5 r\n2 Q0 a 1 1 r\n2 Q0 b 1 0.2 r\n2 Q0 c 1 0.1 r\n2 Q0 a 1 0.1 r\n"
                   "3 Q0 b 1 1 r\n3 Q0 b 2 0.5 r\n")
    raised = []
    for block in (1 << 19, 1, 2, 3):
        monkeypatch.setattr(trec_eval, "JOINED_BLOCK", block)
        with pytest.raises(TrecFormatError, match="already on line") as caught:
            evaluate(qrels, run)
        raised.append((caught.value.path, caught.value.line, str(caught.value)))
    assert raised == [(str(qrels if line == 4 else run), line, raised[0][2])] * 4


# ---------------------------------------------------------------------------------------- trec_eval's order
def test_scores_compare_as_doubles_then_docno_descending_or_as_32_bit_floats():
    """trec_eval 10.0 keeps scores as doubles (trec_format.h, form_res_rels.c); 9.x, pytrec_eval and ir_measures
    as 32-bit floats, where 0.1000000001 and 0.1 are one value and "b" ranks before "a"."""
    assert trec_eval_order([0.1000000001, 0.1, 0.05], ["a", "b", "c"]).tolist() == [0, 1, 2]
    assert trec_eval_order([0.1, 0.1, 0.05], ["a", "b", "c"]).tolist() == [1, 0, 2]
    assert trec_eval_order([0.1000000001, 0.1, 0.05], ["a", "b", "c"], score_precision="float32").tolist() == \
        [1, 0, 2]
    assert trec_eval_order([0.1000001, 0.1], ["a", "b"], score_precision="float32").tolist() == [0, 1]


def test_near_tied_scores_in_the_command(tmp_path, capsys):
    """The issue's case: a relevant document scored 1.00000001 above a non-relevant one scored 1.0 gives RR 1.0
    in trec_eval 10.0 (recorded from its binary) and 0.5 as trec_eval 9.x ranks them."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1.00000001 r\n1 Q0 b 2 1.0 r\n")
    assert evaluate(qrels, run, ["recip_rank"]).rows[0][2][0] == [1.0]
    assert evaluate(qrels, run, ["recip_rank"], Options(score_precision="float32")).rows[0][2][0] == [0.5]
    assert main(["-m", "recip_rank", "--score-precision", "float32", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == "recip_rank            \tall\t0.5000\n"


def test_max_docs_and_judged_only(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 1\n1 0 c 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 x 1 9 r\n1 Q0 a 2 8 r\n1 Q0 c 3 7 r\n1 Q0 b 4 6 r\n")
    assert evaluate(qrels, run, ["num_ret"], Options(max_docs=2)).rows[0][2][0] == [2.0]
    judged = evaluate(qrels, run, ["P.1", "num_ret"], Options(judged_only=True))
    assert [columns[0][0] for _, _, columns in judged.rows] == [3.0, 1.0]  # x is unjudged: a, c, b remain


@pytest.mark.parametrize("max_docs", [-1, 2**63, 2.5, "3", True])
def test_max_docs_outside_its_domain_is_the_validators_refusal_with_trec_evals_status(tmp_path, max_docs):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 9 r\n")
    with pytest.raises(TrecEvalError) as refused:
        evaluate(qrels, run, ["num_ret"], Options(max_docs=max_docs))
    error = refused.value
    assert (error.exit_status, error.function, error.parameter, error.value) == (2, "trec_eval", "-M", max_docs)
    assert error.domain is MAX_DOCS
    assert str(error) == f"trec_eval: -M must be an integer in [0, 9,223,372,036,854,775,807], got {max_docs!r}"
    assert evaluate(qrels, run, ["num_ret"], Options(max_docs=0)).rows[0][2][0] == [0.0]


def test_a_negative_minus_M_ends_the_command_line_with_status_2_and_one_line(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 9 r\n")
    assert cli_main(["trec_eval", "-M-1", str(qrels), str(run)]) == 2
    assert capsys.readouterr().err == ("workbench: error: trec_eval: -M must be an integer in "
                                       "[0, 9,223,372,036,854,775,807], got -1\n")


def test_complete_scores_missing_topics_on_the_placeholder(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 1 r\n")
    out = render(evaluate(qrels, run, ["map", "num_ret", "num_q"], Options(complete=True)), per_topic=True)
    assert "num_ret               \t2\t0\n" in out and "map                   \tall\t0.5000\n" in out
    assert "num_q                 \tall\t2\n" in out
    with pytest.warns(WorkbenchWarning, match=r"1 qrels topic\(s\) have no results and are skipped, as trec_eval "
                                              r"9.x skips them \(2\); trec_eval 10.0 stops here with status 4"):
        assert "num_q                 \tall\t1\n" in render(evaluate(qrels, run, ["num_q"]))



def test_values_follow_their_topics_whatever_the_order_the_run_holds_them_in(tmp_path):
    """The gain table's rows follow the run's topic order (2, 10, 1 here), not trec_eval's strcmp order (1, 10, 2,
    then -c's placeholder 3): each value is printed on its own topic's line, as for the same run sorted by topic.
    By hand: topic 2's relevant document is ranked 1st (AP 1), topic 10's 2nd (AP 0.5), topic 1's not at all."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n10 0 b 1\n2 0 c 1\n3 0 d 1\n")
    lines = ["2 Q0 c 1 9 r\n", "2 Q0 x 2 8 r\n", "10 Q0 y 1 9 r\n", "10 Q0 b 2 8 r\n", "1 Q0 z 1 9 r\n"]
    shuffled, sorted_run = tmp_path / "shuffled", tmp_path / "sorted"
    shuffled.write_text("".join(lines))
    sorted_run.write_text("".join(sorted(lines, key=lambda line: line.split()[0])))
    out = render(evaluate(qrels, shuffled, ["all_trec"], Options(complete=True)), per_topic=True)
    assert out == render(evaluate(qrels, sorted_run, ["all_trec"], Options(complete=True)), per_topic=True)
    assert [line for line in out.splitlines() if line.startswith("map ")] == [
        f"map                   \t{topic}\t{value}" for topic, value in
        [("1", "0.0000"), ("10", "0.5000"), ("2", "1.0000"), ("3", "0.0000"), ("all", "0.3750")]]

def test_complete_num_rel_counts_every_positive_judgement(tmp_path, capsys):
    """trec_eval 10.0 (binary, recorded): with -c the num_rel summary counts the judgements graded above 0 in every
    qrels topic, whatever -l says (m_num_rel.c te_calc_avg_num_rel), while per topic it counts those reaching -l."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 2\n2 0 c 1\n2 0 d 0\n")
    run.write_text("1 Q0 a 1 1 r\n")
    assert main(["-q", "-c", "-l2", "-m", "num_rel", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == ("num_rel               \t1\t1\nnum_rel               \t2\t0\n"
                                       "num_rel               \tall\t3\n")


def test_geometric_mean_uses_trec_evals_floor():
    assert summarize([0.0, 1.0], "gmean") == pytest.approx(math.sqrt(1e-5))


def test_measure_parameters_read_as_trec_eval_reads_them():
    (p, params, names), = select_measures(["P.20,5,7.9"])
    assert params == (5, 7, 20) and names == ["P_5", "P_7", "P_20"]
    (ndcg, pairs, names), = select_measures(["ndcg.1=3,2=9"])
    assert pairs == (("1", 3.0), ("2", 9.0)) and names == ["ndcg_1=3,2=9"]
    (_, first, _), = select_measures(["P.5", "P.10"])  # the first parameters of a measure count
    assert first == (5,)
    assert [m.name for m, _, _ in select_measures([])][:3] == ["runid", "num_q", "num_ret"]


@pytest.mark.parametrize("request_, message", [("nosuch", "illegal measure"), ("P.0,5", "not positive"),
                                               ("P.5,5", "duplicate"), ("ndcg.1==2", "malformed"),
                                               ("ndcg.x", "malformed"), ("P.", "improper")])
def test_bad_measures_are_named_errors(request_, message):
    with pytest.raises(TrecEvalError, match=message):
        select_measures([request_])


# As trec_eval 10.0 printed them (-q, the qrels and run below): odd parameter texts it reads without undefined
# behaviour, read the same way; the printed name carries the typed bytes, one character per byte.
_ODD_QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 a 0\nq2 0 b 1\n"
_ODD_RUN = "q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\nq2 Q0 a 1 2 r\nq2 Q0 b 2 1 r\n"
RECORDED_FROM_TREC_EVAL_10 = {
    "relstring.3.7": ["relstring_3.7         \tq1\t'10'", "relstring_3.7         \tq2\t'01'"],
    "relstring.-5": ["relstring_-5          \tq1\t''", "relstring_-5          \tq2\t''"],
    "relstring.0": ["relstring_0           \tq1\t''", "relstring_0           \tq2\t''"],
    "relstring.1e18": ["relstring_1e18        \tq1\t'10'", "relstring_1e18        \tq2\t'01'"],
    "ndcg.1=ż": ["ndcg_1=ż             \tq1\t0.0000", "ndcg_1=ż             \tq2\t0.0000",
                 "ndcg_1=ż             \tall\t0.0000"],
    "ndcg.ż=2": ["ndcg_ż=2             \tq1\t1.0000", "ndcg_ż=2             \tq2\t0.6309",
                 "ndcg_ż=2             \tall\t0.8155"],
}


def _drop_in(tmp_path, *args) -> str:
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(_ODD_QRELS)
    run.write_text(_ODD_RUN)
    assert main([*args, str(qrels), str(run)]) == 0
    return qrels, run


@pytest.mark.parametrize("request_", sorted(RECORDED_FROM_TREC_EVAL_10))
def test_odd_parameter_texts_read_as_trec_eval_reads_them(request_, tmp_path, capsysbinary):
    """Issue 20 item 2: the drop-in prints what the binary printed, the name in the typed bytes."""
    _drop_in(tmp_path, "-q", "-m", request_)
    printed = capsysbinary.readouterr().out.decode("utf-8")  # latin-1 per byte, as typed: UTF-8 back
    assert printed.splitlines() == RECORDED_FROM_TREC_EVAL_10[request_]


@pytest.mark.parametrize("request_, typed, reading", [
    ("relstring.inf", "'inf'", "inf"), ("relstring.nan", "'nan'", "nan"), ("relstring.1e400", "'1e400'", "inf"),
    ("ndcg.1=nan", "'nan'", "nan"), ("11pt_avg.nan", "'nan'", "nan"), ("iprec_at_recall.nan", "'nan'", "nan"),
    ("rbp.p=inf", "'inf'", "inf"), ("Rprec_mult.-inf", "'-inf'", "-inf"), ("utility.1,nan,0,0", "'nan'", "nan"),
    ("set_F.infinity", "'infinity'", "inf"),
])
def test_parameters_trec_eval_would_make_undefined_are_refused_quoting_the_text(request_, typed, reading):
    """Where trec_eval 10.0 computes with inf or NaN (relstring.inf prints '', ndcg.1=nan 0, rbp.p=inf -inf,
    11pt_avg.nan 0.75: casts C leaves undefined), the drop-in refuses in one line quoting what was typed."""
    with pytest.raises(TrecEvalError) as caught:
        select_measures([request_])
    assert str(caught.value) == (f"-m {request_}: {typed} reads as {reading}; the workbench takes finite numbers "
                                 "only (trec_eval's result would be undefined)")


def test_a_relstring_length_past_a_c_long_is_refused():
    with pytest.raises(TrecEvalError, match=r"^-m relstring\.-1e30: the length -1e\+30 is past a C long"):
        select_measures(["relstring.-1e30"])


_MEASURES_WITH_TEXT = ["P", "relstring", "iprec_at_recall", "ndcg", "rbp", "11pt_avg", "utility", "Rprec_mult",
                       "success", "G", "set_F"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(measure=st.sampled_from(_MEASURES_WITH_TEXT),
       text=st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=12)
       | st.sampled_from(["inf", "nan", "-inf", "1e400", "0x10", "1=inf", "p=nan", "ż", "1=ż", "日本", "1e30"]))
def test_any_parameter_text_gives_scores_or_one_named_line(measure, text, tmp_path, capsysbinary):
    """Whatever follows the dot, the drop-in prints scores or raises a TrecEvalError quoting the text typed."""
    request_ = f"{measure}.{text}"
    try:
        _drop_in(tmp_path, "-q", "-m", request_)
    except TrecEvalError as error:
        message = str(error)
        assert "\n" not in message and "\r" not in message
        if text.isprintable():  # control characters are escaped, the rest quoted as typed
            assert message.startswith(f"-m {request_}: ")
        else:
            assert message.startswith(f"-m {measure}.")
    else:
        printed = capsysbinary.readouterr().out
        assert printed.endswith(b"\n") and b"\tq1\t" in printed


# --------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("qrels_text, run_text, line, message", [
    ("1 0 a\n", "1 Q0 a 1 1 r\n", 1, "4 fields"),
    ("1 0 a 1\n\n1 0 b\n", "1 Q0 a 1 1 r\n", 3, "4 fields"),
    ("1 0 a 1 extra\n", "1 Q0 a 1 1 r\n", 1, "4 fields"),
    ("1 0 a 1\n", "1 Q0 a 1 1\n", 1, "6 fields"),
    ("1 0 a 1\n", "1 Q0 a 1 1 r\n1 Q0 a 2 0.5 r\n", 2, "already on line 1 \\(trec_eval: duplicate docs\\)"),
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 r\n", 2, "already on line 1"),
    ("1 0 a 1\n", "1 Q0 a 1 nan r\n", 1, "NaN"),
])
def test_what_trec_eval_rejects_names_file_and_line(tmp_path, qrels_text, run_text, line, message):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    with pytest.raises(TrecFormatError, match=message) as caught:
        evaluate(qrels, run)
    assert caught.value.line == line and caught.value.path in (str(qrels), str(run))
    assert isinstance(caught.value, WorkbenchError)


def test_what_trec_eval_accepts_silently_warns(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1.7\n1 0 b -1\n1 0 c 0\n")
    run.write_text("1 Q0 a 1 1x r\n1 Q0 b 2 0.5 r\n9 Q0 a 1 1 r\n")
    with pytest.warns(WorkbenchWarning) as caught:
        result = evaluate(qrels, run, ["num_rel", "relstring", "num_ret"], Options())
    text = " ".join(str(w.message) for w in caught)
    assert "atol" in text and "atof" in text and "negative grade" in text and "no judgements" in text
    columns = {m.name: c[0] for m, _, c in result.rows}
    assert columns == {"num_rel": [1.0], "relstring": ["1."], "num_ret": [2.0]}  # 1.7 → 1, -1 → '.'


@pytest.mark.parametrize("complete, counted", [(False, 3), (True, 4)])
def test_the_negative_grades_counted_are_those_of_the_topics_evaluated(tmp_path, complete, counted):
    """The note counts the negative grades of the topics evaluated: topic 3, which the run lacks, only with -c;
    without a negative grade there is no note."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a -1\n1 0 b -2\n1 0 c 1\n2 0 a -1\n2 0 b 0\n3 0 a -1\n")
    run.write_text("1 Q0 a 1 1 r\n2 Q0 a 1 1 r\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        evaluate(qrels, run, ["num_rel"], Options(complete=complete))
    assert [str(w.message).split(": ")[1].split(" judgement")[0] for w in caught
            if "negative grade" in str(w.message)] == [str(counted)]
    qrels.write_text("1 0 a 0\n1 0 c 1\n2 0 a 2\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        evaluate(qrels, run, ["num_rel"], Options(complete=complete))
    assert not [w for w in caught if "negative grade" in str(w.message)]


def _per_topic_lines_one_by_one(evaluation) -> str:
    """-q's lines written value by value (the drop-in's former render), the reference of the one below."""
    from workbench.trec_eval import _number

    z, printed = "Z" if evaluation.zscored else "", []
    for measure, names, columns in evaluation.rows:
        for name, column in zip(names, columns, strict=True) if measure.per_topic else ():
            if measure.spec.returns == "text":
                printed.append((f"{name:<22}\t", [f"'{value}'" for value in column]))
            else:
                printed.append((f"{z}{name:<22}\t", [str(int(value)) for value in column] if measure.kind == "long"
                                and not z else [_number(value) for value in column]))
    return "".join(f"{head}{topic}\t{texts[row]}\n" for row, topic in enumerate(evaluation.topics)
                   for head, texts in printed)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.tuples(st.sampled_from([0.0, -0.0, 0.12345, 1 / 3, 2.5e-5, 7.0, 1e300, math.inf, -math.inf,
                                                  math.nan]), st.integers(0, 10**20), st.text("01>-.", max_size=4),
                                 st.text("q1%s\t", min_size=1, max_size=4)), min_size=1, max_size=6),
       names=st.sampled_from([("map", "num_ret", "relstring"), ("P_5%d", "num%s", "rel%%")]), zscored=st.booleans())
def test_per_topic_lines_formatted_topic_by_topic_are_those_written_value_by_value(values, names, zscored):
    """-q's lines made a topic at a time by one %-format of all its values equal the lines written value by value:
    signed zeros, infinities, NaN (C's -nan), huge counts, texts, topics and names holding '%', z-scores."""
    from workbench.trec_eval import _BY_NAME, Evaluation

    rows = [(_BY_NAME[measure], [name], [column]) for measure, name, column in
            zip(("map", "num_ret", "relstring"), names,
                ([v[0] for v in values], [float(v[1]) for v in values], [v[2] for v in values]), strict=True)]
    evaluation = Evaluation("run", tuple(v[3] for v in values), rows, zscored=zscored)
    assert render(evaluation, per_topic=True, summary=False) == _per_topic_lines_one_by_one(evaluation)


def test_no_shared_topic_and_empty_files_are_named_errors(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("2 Q0 a 1 1 r\n")
    with pytest.raises(TrecEvalError, match="No queries"), pytest.warns(WorkbenchWarning):
        evaluate(qrels, run)
    run.write_text("")
    with pytest.raises(TrecFormatError, match="empty"):
        evaluate(qrels, run)


def test_command_line_syntax(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 1\n")
    run.write_text("1 Q0 a 1 2 r\n1 Q0 x 2 1 r\n1 Q0 b 3 0 r\n")
    assert main(["-mP.1,2", "-M2", "-q", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == ("P_1                   \t1\t1.0000\nP_2                   \t1\t0.5000\n"
                                       "P_1                   \tall\t1.0000\nP_2                   \tall\t0.5000\n")
    assert cli_main(["trec_eval", "--measure=num_ret", "-n", str(qrels), str(run)]) == 0
    assert capsys.readouterr().out == ""
    assert cli_main(["trec_eval", "-x", str(qrels), str(run)]) == 1  # trec_eval 10.0's status for a bad option
    assert "trec_eval" in capsys.readouterr().err


def test_gain_table_derives_judgement_flags():
    table = GainTable(np.array([[1.0, 0.0, 0.0]]), np.array([[1.0]]), num_ret=np.array([2]))
    assert table.judged.tolist() == [[True, True, False]] and table.retrieved().tolist() == [[True, True, False]]
    assert table.n_judged.tolist() == [1]


IR_MEASURES = ["Bpref", "infAP", "NumRel", "NumRet", "NumRelRet", "SetP", "SetR", "SetF", "R@5", "Rprec",
               "Judged@5", "Bpref(rel=2)", "R(rel=2)@3"]
OURS = {"Bpref(rel=2)": "Bpref(rel_level=2)", "R(rel=2)@3": "R(rel_level=2)@3"}


@settings(max_examples=60, deadline=None)
@given(data=trec_campaigns())
def test_ir_measures_spellings_equal_ir_measures(data):
    """ir_measures' names give ir_measures' values (scores made distinct: its Judged@k breaks ties by docno
    ascending where trec_eval breaks them descending)."""
    ir_measures = reference_module("ir_measures")
    qrels, run = data
    run = {t: {d: s + i * 1e-3 for i, (d, s) in enumerate(docs.items())} for t, docs in run.items()}
    parsed = {ir_measures.parse_measure(n): n for n in IR_MEASURES}
    theirs = {(parsed[m.measure], m.query_id): m.value for m in ir_measures.iter_calc(list(parsed), qrels, run)}
    mine = evaluate_run(qrels, run, [OURS.get(n, n) for n in IR_MEASURES])
    for (measure, topic), value in theirs.items():
        if topic not in run:
            continue  # ir_measures scores some judged topics the run lacks; trec_eval skips them
        assert mine[OURS.get(measure, measure)][topic] == pytest.approx(value, abs=1e-9), (measure, topic)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.text("ab\x7f\xe9", max_size=10),
                          st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 0.1000000001, 1e30, -1e-30, float("inf"),
                                           -float("inf"), 2.5, 16777217.0])), max_size=40),
       st.sampled_from(["float64", "float32"]))
def test_trec_eval_order_is_comp_sim_docno(rows, precision):
    """Against a plain sort with trec_eval's comparator (form_res_rels.c): topic, score descending as a double
    (10.0) or a 32-bit float (9.x), -0.0 == 0.0, document id bytes descending."""
    groups = np.array([g for g, _, _ in rows], dtype=np.int64)
    docs = np.array([d.encode("utf-8") for _, d, _ in rows], dtype=bytes)
    scores = np.array([s for _, _, s in rows], dtype=float)
    kept = scores.astype(precision)
    got = trec_eval_order(scores, docs, groups=groups, score_precision=precision).tolist()
    expected = sorted(range(len(rows)), key=lambda i: (groups[i], -float(kept[i]), [-b for b in docs[i]] + [1]))
    assert [(groups[i], kept[i], docs[i]) for i in got] == [(groups[i], kept[i], docs[i]) for i in expected]


# ------------------------------------------- custom gains: trec_eval's C loops transliterated, per topic
def _c_gains(levels: dict[int, int], pairs: dict[int, float]) -> list[list]:
    """setup_gains (gain_init.c): [level, count, gain] sorted by (int)(gain difference), qsort-style."""
    import functools
    gains = [[lv, 0, float(g)] for lv, g in pairs.items()]
    for lv in range(max(levels, default=-1) + 1):
        entry = next((e for e in gains if e[0] == lv), None)
        if entry:
            entry[1] = levels.get(lv, 0)
        else:
            gains.append([lv, levels.get(lv, 0), float(lv)])
    return sorted(gains, key=functools.cmp_to_key(lambda a, b: int(a[2] - b[2])))


def _log2(x: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.log2(np.float64(x)))


def _div(a: float, b: float) -> float:
    """C's double division: ±inf or NaN instead of an exception."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _c_loops(rels: list[int], levels: dict[int, int], pairs: dict[int, float]) -> dict[str, float]:
    """te_calc_ndcg, te_calc_ndcg_rel, te_calc_Rndcg and te_calc_G of trec_eval 10.0, loop for loop."""
    gains = _c_gains(levels, pairs)
    get = {lv: g for lv, _, g in gains}

    def ideal_walk():
        cur, n_at = len(gains) - 1, 0
        gain = gains[cur][2] if cur >= 0 else 0.0
        while True:
            n_at += 1
            while cur >= 0 and n_at > gains[cur][1]:
                n_at, cur = 1, cur - 1
                gain = gains[cur][2] if cur >= 0 else 0.0
            yield gain

    out = {}
    # ndcg and ndcg_rel
    dcg = idcg = total = 0.0
    num_rel = num_rel_ret = 0
    walk = ideal_walk()
    ideal = gains[-1][2] if gains else 0.0
    i = 0
    while i < len(rels) and ideal > 0:
        g = get.get(rels[i], 0.0)
        dcg += g / math.log2(i + 2) if g else 0.0
        ideal = next(walk)
        if ideal > 0:
            num_rel += 1
            idcg += ideal / math.log2(i + 2)
        if g > 0:
            total += _div(dcg, idcg)
            num_rel_ret += 1
        i += 1
    while i < len(rels):
        g = get.get(rels[i], 0.0)
        dcg += g / math.log2(i + 2) if g else 0.0
        if g > 0:
            total += _div(dcg, idcg)
            num_rel_ret += 1
        i += 1
    while ideal > 0:
        ideal = next(walk)
        if ideal > 0:
            num_rel += 1
            idcg += ideal / math.log2(i + 2)
        i += 1
    out["ndcg"] = dcg / idcg if idcg > 0 else 0.0
    total += _div((num_rel - num_rel_ret) * dcg, idcg)
    out["ndcg_rel"] = _div(total, num_rel) if total > 0 else 0.0
    # G
    walk, ideal, i = ideal_walk(), (gains[-1][2] if gains else 0.0), 0
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    while i < len(rels) and ideal > 0:
        g = get.get(rels[i], 0.0)
        sum_results += g
        ideal = next(walk)
        sum_ideal += ideal if ideal > 0 else 0.0
        sum_cost += ideal if ideal >= 1.0 else 1.0
        results_g += _div(g, _log2(2 + sum_cost - sum_results)) if g else 0.0
        i += 1
    while i < len(rels):
        g = get.get(rels[i], 0.0)
        sum_results += g
        sum_cost += 1.0
        results_g += _div(g, _log2(2 + sum_cost - sum_results)) if g else 0.0
        i += 1
    while ideal > 0:
        ideal = next(walk)
        sum_ideal += ideal if ideal > 0 else 0.0
    out["G"] = _div(results_g, sum_ideal) if sum_ideal > 0 else 0.0
    # Rndcg
    walk, ideal, i = ideal_walk(), (gains[-1][2] if gains else 0.0), 0
    old, dcg, idcg, total, changes = ideal, 0.0, 0.0, 0.0, 0
    while i < len(rels) and ideal > 0:
        g = get.get(rels[i], 0.0)
        ideal = next(walk)
        if old != ideal:
            if idcg > 0:
                total, changes = total + _div(dcg, idcg), changes + 1
            old = ideal
        dcg += g / math.log2(i + 2) if g else 0.0
        idcg += ideal / math.log2(i + 2) if ideal > 0 else 0.0
        i += 1
    if i < len(rels):
        while i < len(rels):
            g = get.get(rels[i], 0.0)
            dcg += g / math.log2(i + 2) if g else 0.0
            i += 1
        if idcg > 0:
            total, changes = total + _div(dcg, idcg), changes + 1
    while ideal > 0:
        ideal = next(walk)
        if old != ideal:
            if idcg > 0:
                total, changes = total + _div(dcg, idcg), changes + 1
            old = ideal
        idcg += ideal / math.log2(i + 2) if ideal > 0 else 0.0
        i += 1
    out["Rndcg"] = total / changes if changes else math.nan
    return out


@pytest.mark.parametrize("request_, printed", [("ndcg.0=0.5,2=0.0", "0.0000"), ("ndcg.2=0.0,0=0.5", "0.6131")])
def test_the_order_of_gain_pairs_matters_as_in_trec_eval(request_, printed, tmp_path, capsys):
    """As trec_eval 10.0 printed it: gain_init.c sorts the pairs with qsort on (int)(gain difference), so equal
    truncated differences keep the order typed, and an ideal ending in a gain ≤ 0 is empty."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 0\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    assert main(["-m", request_, str(qrels), str(run)]) == 0
    assert capsys.readouterr().out.split("\t")[-1].strip() == printed


@settings(max_examples=300, deadline=None)
@given(rels=st.lists(st.sampled_from([-1, 0, 1, 2, 3, 4]), max_size=15),
       extra=st.dictionaries(st.integers(0, 4), st.integers(0, 3), max_size=5),
       pairs=st.dictionaries(st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 4.5, 9.0, -1.0]),
                             max_size=3))
def test_gain_measures_follow_trec_evals_loops(rels, extra, pairs):
    """ndcg, ndcg_rel, Rndcg and G with -m NAME.level=gain,... against trec_eval's C loops transliterated."""
    judged_levels: dict[int, int] = {}
    for r in rels:
        if r >= 0:
            judged_levels[r] = judged_levels.get(r, 0) + 1
    for level, count in extra.items():
        if count:  # a grade nobody was given is no level of trec_eval's (qrels 'q1 0 d1 0', 'q1 0 d2 0' with
            judged_levels[level] = judged_levels.get(level, 0) + count  # -m ndcg.0=0.5,2=0.0 print 0.0000)
    judged_levels[0] = judged_levels.get(0, 0) + 1
    ideal = sorted((lv for lv, n in judged_levels.items() for _ in range(n) if lv > 0), reverse=True)
    table = GainTable(np.array([[max(r, 0) for r in rels]], dtype=float).reshape(1, len(rels)),
                      np.array([ideal], dtype=float).reshape(1, len(ideal)), num_ret=np.array([len(rels)]),
                      judged=np.array([[r >= 0 for r in rels]]).reshape(1, len(rels)),
                      n_judged=np.array([sum(judged_levels.values())]))
    c = _c_loops(rels, judged_levels, pairs)
    gains = {float(k): v for k, v in pairs.items()}
    from workbench.metrics.ranking import ndcg
    from workbench.metrics.ranking.trec import g_measure, ndcg_rel, r_ndcg
    assert ndcg(table, gains=gains)[0] == pytest.approx(c["ndcg"], abs=1e-12)
    assert ndcg_rel(table, gains)[0] == pytest.approx(c["ndcg_rel"], abs=1e-12)
    assert g_measure(table, gains)[0] == pytest.approx(c["G"], abs=1e-12)
    if table.n_relevant(1).item() > 0:
        assert r_ndcg(table, gains)[0] == pytest.approx(c["Rndcg"], abs=1e-12, nan_ok=True)


def test_an_empty_ranking_prints_trec_evals_nan(tmp_path):
    """-c -J: the placeholder document of a missing topic is unjudged, the ranking empties, and trec_eval's
    interpolated precision divides 0 by 0 (printed -nan, which poisons the mean)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run.write_text("1 Q0 a 1 1 r\n")
    out = render(evaluate(qrels, run, ["iprec_at_recall.0", "num_ret"], Options(complete=True, judged_only=True)),
                 per_topic=True)
    assert out.splitlines() == ["num_ret               \t1\t1", "iprec_at_recall_0.00  \t1\t1.0000",
                                "num_ret               \t2\t0", "iprec_at_recall_0.00  \t2\t  -nan",
                                "num_ret               \tall\t1", "iprec_at_recall_0.00  \tall\t  -nan"]


def test_ids_are_printed_back_byte_for_byte(tmp_path, capsysbinary):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes("é1 0 dé 1\n".encode())
    run.write_bytes("é1 Q0 dé 1 1 rün\n".encode())
    assert main(["-q", "-m", "num_ret", "-m", "runid", str(qrels), str(run)]) == 0
    assert capsysbinary.readouterr().out == ("num_ret               \té1\t1\nrunid                 \tall\trün\n"
                                             "num_ret               \tall\t1\n").encode()


def test_the_drop_in_imports_no_pandas(tmp_path):
    """The command needs neither pandas nor the readers that use it."""
    import subprocess
    import sys

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    script = ("import sys\nfrom workbench.cli import main\n"
              f"main(['trec_eval', '-m', 'all_trec', {str(qrels)!r}, {str(run)!r}])\n"
              "sys.stdout.flush()\nprint('pandas' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[1])
    assert "map" in done.stdout and done.stderr.strip() == "False"


# trec_eval 10.0 (binary of usnistgov/trec_eval f425365) on the TREC 2003 Robust qrels and five submitted runs
# (../shared/datasets/trec_robust2003, 100 topics x 1,000 documents each): the SHA-256 of what it printed.
ROBUST_2003 = [
    ("-q -m all_trec", "input.UIUC03Rd1", "e5e35b703da46a182b4923d744c1336320efc494a06af804c08454f91361e348"),
    ("-q -m all_trec", "input.aplrob03a", "6a0a1f8afa3603b8ec1584e4cd0548efbc1faa74c444baba40bc7fc996c85f74"),
    ("-q -m all_trec", "input.humR03dc", "cbaea975afb77a5c3219f304bb90e2c92b57779e11f4135f641db66ce8f79f47"),
    ("-q -m all_trec", "input.pircRBa1", "7c6780c35e61237da9daaa1bc0e738255814f80bccfe6d85907a9e40fcf98e7b"),
    ("-q -m all_trec", "input.uwmtCR0", "61c21ae71eb71a9a53d726b24a8c74c6f89ee3ad0d4d2c42890595f519fd13ac"),
    ("-q -c -l2 -m all_trec", "input.UIUC03Rd1", "3b1f3707939d46e868829e96c58853f6406dba9a30483835fc5523a153f62ae5"),
    ("-q -c -l2 -m all_trec", "input.aplrob03a", "5ea9295e1e0e47931334945ae7a30bc7d96c830b6e8aaf3d841b757025042cdf"),
    ("-q -c -l2 -m all_trec", "input.humR03dc", "6e13e524d42751fd27a04febfc01ba8c1692402fe4480a841bd8a275706ffde1"),
    ("-q -c -l2 -m all_trec", "input.pircRBa1", "892f441b970c99be7fb5c339bb6fc55a4475f3f8d3358cfdc7bef56c25dc0197"),
    ("-q -c -l2 -m all_trec", "input.uwmtCR0", "6bdffa5adfa3be37137637acc968b2bfcd5f5ac62cc26b6ba8cdb907901f5b00"),
    ("-q -J -M100 -m all_trec", "input.UIUC03Rd1", "a1471196f160a6e3f3ce7f214942fd33bc6e2a7d0a126ed7ef7e5125970e9542"),
    ("-q -J -M100 -m all_trec", "input.aplrob03a", "0e7543d7f431283eab7420c7f25c82b028dd17405f3a1031699228f3096a7665"),
    ("-q -J -M100 -m all_trec", "input.humR03dc", "40664a8a437160324d68ad390ec1f9a1215e3257036b6ce5fef331c8166b0ead"),
    ("-q -J -M100 -m all_trec", "input.pircRBa1", "d22aceb0938efcc801f357e9b5d4418ed76669954b940861ceffa67f3ec902e2"),
    ("-q -J -M100 -m all_trec", "input.uwmtCR0", "970a85e9ca3d6954e5b976d7d0aefb5bef327e68eeb359f0de8fab39409a1030"),
]


@pytest.mark.parametrize("options, run, digest", ROBUST_2003, ids=[f"{o} {r}" for o, r, _ in ROBUST_2003])
def test_robust_2003_runs_print_what_trec_eval_10_prints(options, run, digest, capsysbinary):
    """Every line of -q -m all_trec, also with -c -l2 and -J -M100, byte for byte (the runs read gzip-compressed,
    as they are stored; trec_eval read them unpacked)."""
    import hashlib

    qrels = shared_dataset("trec_robust2003", "qrels.txt")
    assert main([*options.split(), str(qrels), str(shared_dataset("trec_robust2003", "runs", run + ".gz"))]) == 0
    printed = capsysbinary.readouterr().out
    assert printed.count(b"\n") == 9699
    assert hashlib.sha256(printed).hexdigest() == digest, printed.decode("latin-1")[-3000:]


@pytest.mark.parametrize("threads", ["1", "2"])
def test_the_qrels_and_the_run_read_at_once_say_and_fail_in_trec_evals_order(threads, tmp_path, monkeypatch):
    """The drop-in reads a qrels file and its run on two threads: the qrels' notes come before the run's, and an
    error of the qrels is raised before one of the run's (trec_eval reads the qrels first); with the qrels read
    whole, the run's error comes after the qrels' notes. The same on one thread."""
    monkeypatch.setenv(THREADS_VARIABLE, threads)
    files = {"qrels": "1 0 d1 1.5\n1 0 d2 0\n", "run": "1 Q0 d1 1 0x1p3 r\n1 Q0 d2 2 0.5 r\n",
             "bad qrels": "1 0 d1\n", "bad run": "1 Q0 d1 1 nan r\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(tmp_path / "qrels", tmp_path / "run", ["P.5"])
    said = [str(warning.message) for warning in caught]
    assert [note.split(":")[0] for note in said] == [str(tmp_path / "qrels"), str(tmp_path / "run")]
    assert "grade is not a plain integer" in said[0] and "score is not a plain decimal number" in said[1]
    with pytest.raises(TrecFormatError, match="bad qrels"):
        evaluate(tmp_path / "bad qrels", tmp_path / "bad run", ["P.5"])
    with warnings.catch_warnings(record=True) as caught, pytest.raises(TrecFormatError, match="bad run.*NaN"):
        warnings.simplefilter("always")
        evaluate(tmp_path / "qrels", tmp_path / "bad run", ["P.5"])
    assert [str(warning.message).split(":")[0] for warning in caught] == [str(tmp_path / "qrels")]


@settings(max_examples=30, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0, 3.0]), max_size=12), min_size=1,
                      max_size=5),
       judged=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0])), max_size=12),
       rel=st.sampled_from([0.5, 1.0, 2.0, 3.0]))
def test_infap_bpref_and_bing_at_the_relevant_ranks_are_their_terms_row_sums_bit_for_bit(gains, judged, rel):
    """infAP, bpref and binG computed at the relevant ranks only equal the row sums of their per-rank terms (the
    matrices the explanations show, 0 at the other ranks), added in rank order, to the last bit; not pooled (NaN),
    pooled but unjudged (-1) and empty rankings included."""
    from workbench.metrics.ranking import trec
    from workbench.metrics.ranking.table import row_sums, safe_divide

    rows = np.repeat(np.arange(len(gains)), [len(g) for g in gains])
    table = GainTable.from_entries(rows, np.array([g for row in gains for g in row]),
                                   np.array([min(r, len(gains) - 1) for r, _ in judged], dtype=np.int64),
                                   np.array([g for _, g in judged]), tuple(f"q{i}" for i in range(len(gains))))
    hit, term = trec.infap_terms(table, rel)
    expected = safe_divide(row_sums(np.where(hit, term, 0.0)), table.n_relevant(rel))
    assert trec.inferred_ap(table, rel).tobytes() == expected.tobytes()
    terms, _ = trec.bpref_terms(table, rel)
    assert trec.bpref(table, rel).tobytes() == safe_divide(row_sums(terms), table.n_relevant(rel)).tobytes()
    hit, _, discount = trec.bing_terms(table, rel)
    expected = np.where(hit.any(axis=1), safe_divide(row_sums(np.where(hit, discount, 0.0)), table.n_relevant(rel)),
                        0.0)
    assert trec.binary_g(table, rel).tobytes() == expected.tobytes()


@settings(max_examples=30, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0, 3.0]), max_size=12), min_size=1,
                      max_size=5),
       judged=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0])), max_size=12),
       mapping=st.sampled_from([None, {1.0: 1.5}, {2.0: 4.0, 0.0: 0.0}, {-1.0: 0.5, 3.0: 2.25}]))
def test_g_at_the_ranks_of_a_gain_is_its_terms_row_sums_bit_for_bit(gains, judged, mapping):
    """G computed at the ranks whose gain is not 0 equals the row sums of :func:`g_terms`' matrix (the one the
    explanation shows), added in rank order, to the last bit: whole and fractional gains (the lag past the ideal
    added rank by rank), not pooled (NaN), pooled but unjudged (-1) and empty rankings included."""
    from workbench.metrics.ranking import trec
    from workbench.metrics.ranking.table import row_sums, safe_divide

    rows = np.repeat(np.arange(len(gains)), [len(g) for g in gains])
    table = GainTable.from_entries(rows, np.array([g for row in gains for g in row]),
                                   np.array([min(r, len(gains) - 1) for r, _ in judged], dtype=np.int64),
                                   np.array([g for _, g in judged]), tuple(f"q{i}" for i in range(len(gains))))
    terms, ideal_total = trec.g_terms(table, mapping)
    expected = safe_divide(row_sums(terms), ideal_total)
    assert trec.g_measure(table, mapping).tobytes() == expected.tobytes()


_SIGNED_GAINS = [-0.0, 0.0, 1.0, 2.5, 3.0, 5e-324, 1e300]  # a table's gains are ≥ 0: -0.0 too, and subnormals


@pytest.mark.filterwarnings("ignore:RBP.*above max_grade")
@settings(max_examples=60, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from(_SIGNED_GAINS), max_size=10), min_size=1, max_size=5),
       judged=st.lists(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), max_size=6), min_size=5, max_size=5),
       cutoffs=st.lists(st.integers(1, 12), max_size=3), p=st.sampled_from([0.5, 0.9]),
       max_grade=st.sampled_from([None, 2.0]), gain=st.sampled_from(["scaled", "raw"]))
def test_rbp_and_ndcg_at_the_ranks_of_a_gain_are_their_terms_row_sums_bit_for_bit(gains, judged, cutoffs, p,
                                                                                   max_grade, gain):
    """RBP and nDCG of the grades themselves, added at the ranks of a grade other than 0 only, equal the row sums
    of their terms at every rank (rbp_terms; each grade over log2(r + 1)) to the last bit, the sign of a zero sum
    included (grades of -0.0; subnormal grades, whose terms are zeros), at every cutoff."""
    from workbench.metrics.ranking import kernels
    from workbench.metrics.ranking.table import discounted, row_sums, safe_divide

    def fresh() -> GainTable:  # a table of its own: no values shared with another call
        return GainTable.from_gains(gains, judged[:len(gains)])

    scaled, weights = kernels.rbp_terms(fresh(), p, max_grade, gain=gain)
    expected = (1.0 - p) * row_sums(scaled * weights)
    assert kernels.rbp(fresh(), p, max_grade, gain=gain).tobytes() == expected.tobytes()
    table = fresh()
    for k in [*cutoffs, None]:
        ideal = fresh().running_sum(lambda t, columns: discounted(t.ideal)[:, columns], k, width=table.ideal.shape[1])
        expected = safe_divide(row_sums(discounted(table.gains)[:, :k]), ideal)
        assert kernels.ndcg(table, k).tobytes() == expected.tobytes()


@settings(max_examples=60, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0, 3.0]), max_size=12), min_size=1,
                      max_size=5),
       judged=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0])), max_size=12),
       rel=st.sampled_from([0.5, 1.0, 2.0, 3.0]), multiple=st.sampled_from([0.2, 1.0, 2.0, 1e20, -1.0]),
       tops=st.lists(st.integers(-2, 16), min_size=5, max_size=5))
def test_counts_at_the_relevant_ranks_are_the_running_counts_bit_for_bit(gains, judged, rel, multiple, tops):
    """What Rprec, Rprec_mult, AP and iprec_at_recall read of the relevant ranks (RelevantRanks.in_top, .ordinals)
    is the running count of relevant documents (np.cumsum of the relevant mask) at those ranks, and Rprec and
    Rprec_mult equal their definitions on it to the last bit: cutoffs of 0, negative, inside and past the width."""
    from workbench.metrics.ranking import kernels, trec
    from workbench.metrics.ranking.table import at_rank, relevant_ranks, safe_divide

    rows = np.repeat(np.arange(len(gains)), [len(g) for g in gains])
    table = GainTable.from_entries(rows, np.array([g for row in gains for g in row]),
                                   np.array([min(r, len(gains) - 1) for r, _ in judged], dtype=np.int64),
                                   np.array([g for _, g in judged]), tuple(f"q{i}" for i in range(len(gains))))
    counts, at = np.cumsum(table.relevant(rel), axis=1), relevant_ranks(table, rel)
    width = counts.shape[1]
    k = np.array(tops[:len(gains)])
    expected = np.where(k >= 1, counts[np.arange(len(gains)), np.clip(k, 1, max(width, 1)) - 1], 0) if width else 0 * k
    assert at.in_top(k).tolist() == expected.tolist() and at.ordinals.tolist() == counts[at.rows, at.columns].tolist()
    n_rel = table.n_relevant(rel)
    looked = np.minimum(n_rel, width)
    found = at_rank(counts, looked - 1, looked > 0)
    assert kernels.r_precision(table, rel).tobytes() == safe_divide(found, n_rel).tobytes()
    cutoff = np.trunc(multiple * n_rel + 0.9)
    top = np.minimum(cutoff, width + 1).astype(np.int64)
    found = np.where(top >= 1, counts[np.arange(len(gains)), np.clip(top, 1, width) - 1], 0) if width else \
        np.zeros(len(gains))
    expected = np.where(cutoff > 0, safe_divide(found, cutoff), 0.0)
    assert trec.r_precision_multiple(table, multiple, rel).tobytes() == expected.tobytes()


@settings(max_examples=30, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.0, 3.0]), max_size=12), min_size=1,
                      max_size=5),
       judged=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-1.0, 0.0, 1.0, 2.0, 3.0])), max_size=12),
       rel=st.sampled_from([0.5, 1.0, 2.0, 3.0]), cutoffs=st.lists(st.integers(0, 14), max_size=4))
def test_ap_at_the_relevant_ranks_is_its_terms_row_sums_bit_for_bit(gains, judged, rel, cutoffs):
    """AP read from one running sum at the relevant ranks equals, at every cutoff (0, inside, past the width,
    none) and in any order of the cutoffs, the row sums of its precision terms over the top k (P@r at the relevant
    ranks, 0 elsewhere), added in rank order, to the last bit."""
    from workbench.metrics.ranking import kernels
    from workbench.metrics.ranking.table import ranks, row_sums, safe_divide

    rows = np.repeat(np.arange(len(gains)), [len(g) for g in gains])
    table = GainTable.from_entries(rows, np.array([g for row in gains for g in row]),
                                   np.array([min(r, len(gains) - 1) for r, _ in judged], dtype=np.int64),
                                   np.array([g for _, g in judged]), tuple(f"q{i}" for i in range(len(gains))))
    terms = table.relevant_counts(rel) / ranks(table.gains.shape[1]) * table.relevant(rel)
    for k in [*cutoffs, None]:
        expected = safe_divide(row_sums(terms[:, :k] if k else terms[:, :0] if k == 0 else terms),
                               table.n_relevant(rel))
        assert kernels.average_precision(table, k, rel).tobytes() == expected.tobytes()


@settings(max_examples=30, deadline=None)
@given(gains=st.lists(st.lists(st.sampled_from([np.nan, -1.0, 0.0, 1.0, 2.5, 9.0, 10.0, 12.0]), max_size=12),
                      min_size=1, max_size=5),
       judged=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([-1.0, 0.0, 1.0, 2.5, 9.0, 10.0, 12.0])),
                       max_size=12),
       length=st.sampled_from([0, 1, 3, 10, 2.7, 40]))
def test_relevance_strings_at_once_are_written_as_row_by_row(gains, judged, length):
    """relstring's characters made for every row at once are the ones written row by row, character by character
    (grades past 9, fractions cut, not pooled, pooled but unjudged, negative judged grades, lengths with a
    fraction and past the width)."""
    from workbench.metrics.ranking import trec

    rows = np.repeat(np.arange(len(gains)), [len(g) for g in gains])
    table = GainTable.from_entries(rows, np.array([g for row in gains for g in row]),
                                   np.array([min(r, len(gains) - 1) for r, _ in judged], dtype=np.int64),
                                   np.array([g for _, g in judged]), tuple(f"q{i}" for i in range(len(gains))))
    expected = [trec._relevance_string(table, row, int(length)) for row in range(len(gains))]
    assert trec.relevance_strings(table, length) == expected


def test_the_drop_in_gives_the_run_lines_pages_back_before_the_join(tmp_path, monkeypatch):
    """Issue 42: the run's lines, ranked, are let go and their pages given back before the join takes its own (as
    read_trec_run does for eval), not only after it: the drop-in's peak sat in the join on the lines' freed pages
    (-m all_trec on 2,000 x 1,000, 6 interleaved runs: peak median ~231 -> ~217 MB). The join and the scoring then
    go a block of topics at a time, each block's temporaries reused by the next (no pages given back between)."""
    import workbench.trec_eval as trec_eval_module

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n")
    steps = []

    def recorded(name, function):
        def step(*args, **kwargs):
            steps.append(name)
            return function(*args, **kwargs)
        return step

    for name in ("rank_runs", "gain_table", "release_freed"):
        monkeypatch.setattr(trec_eval_module, name, recorded(name, getattr(trec_eval_module, name)))
    evaluate(qrels, run, ["P.5"])
    assert steps == ["rank_runs", "release_freed", "gain_table"]


def test_the_qrels_lines_go_once_judged(tmp_path, monkeypatch):
    """Issue 42: the drop-in keeps the qrels' path and judgements, not the lines as read (their grades, topic codes,
    ids' positions and hashes: about 7 MB of the benchmark's 240,000 judgements, held through the join's peak)."""
    import gc
    import weakref

    import workbench.trec_eval as trec_eval_module

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    run.write_text("q1 Q0 a 1 2 r\nq1 Q0 b 2 1 r\n")
    read = []
    original = trec_eval_module.lines_at_once

    def kept(files):
        def watched(given):
            def lines():
                found = given()
                read.append(weakref.ref(found))
                return found
            return lines
        return [watched(given) for given in original(files)]

    monkeypatch.setattr(trec_eval_module, "lines_at_once", kept)
    judged, results = trec_eval_module._judged_and_run(qrels, run, "qrels")
    gc.collect()
    assert judged[0] == str(qrels) and sorted(judged[1].topics) == ["q1"]
    assert read[0]() is None and read[1]() is results  # the qrels' lines gone, the run's handed on
