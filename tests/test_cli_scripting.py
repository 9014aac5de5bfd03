"""The command line for scripts (issue 13): one missing-topic default shared with Campaign.evaluate, ``-`` for
standard input, ``--format json`` / ``jsonl``."""

import contextlib
import gzip
import io
import json
import subprocess
import sys
import warnings

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import example, given, settings

from tests.conftest import ROOT
from workbench.analysis import uir_matrix
from workbench.cli import build_parser, main
from workbench.data import Campaign, MissingTopicsWarning, means, read_trec_qrels, read_trec_run
from workbench.reading.sources import STDIN_NAME, StandardInputError, with_stdin

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d4 2\n"
# sysA: q1 finds d1 at rank 2, q3 at rank 1, q2 missing; sysB: every topic, d3 at rank 1
RUN_A = "q1 Q0 d2 1 2.0 sysA\nq1 Q0 d1 2 1.0 sysA\nq3 Q0 d4 1 5 sysA\n"
RUN_B = "q1 Q0 d9 1 3 sysB\nq1 Q0 d1 2 2 sysB\nq2 Q0 d3 1 1 sysB\nq3 Q0 d5 1 1 sysB\n"


@pytest.fixture
def files(tmp_path):
    paths = {name: tmp_path / name for name in ("qrels", "run_a", "run_b")}
    for path, text in zip(paths.values(), (QRELS, RUN_A, RUN_B), strict=True):
        path.write_text(text)
    return paths


def run_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=ROOT, input=stdin, capture_output=True,
                          timeout=120)


def run_main(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``main(args)`` in this process with ``stdin`` as standard input: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(args)
    finally:
        sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------- missing topics
def test_python_and_the_shell_give_the_same_rr_on_a_campaign_with_a_missing_topic(files):
    """sysA lacks q2: scored without credit (0) by default on both sides, so RR = (1/2 + 0 + 1)/3; ``skip`` is a
    flag away."""
    campaign = Campaign(read_trec_qrels(files["qrels"]), read_trec_run(files["run_a"]))
    with pytest.warns(MissingTopicsWarning,
                      match=r"system 'sysA' lacks 1 gold topic\(s\) \('q2'\): scored without credit"):
        python = means(campaign.evaluate("RR", progress=False), wide=True).loc["sysA", "RR"]
    shell = run_cli("eval", "--gold", str(files["qrels"]), "--run", str(files["run_a"]), "-m", "RR",
                    "--format", "json")
    assert shell.returncode == 0, shell.stderr
    assert python == json.loads(shell.stdout)["means"]["sysA"]["RR"] == pytest.approx(0.5)
    assert "system 'sysA' lacks 1 gold topic(s) ('q2'): scored without credit" in shell.stderr.decode()

    with pytest.warns(MissingTopicsWarning, match="skipped"):
        skipped = means(campaign.evaluate("RR", missing_topics="skip", progress=False), wide=True)
    status, out, err = run_main(["eval", "--gold", str(files["qrels"]), "--run", str(files["run_a"]), "-m", "RR",
                                 "--format", "json", "--missing", "skip"])
    assert status == 0 and "skipped" in err
    assert skipped.loc["sysA", "RR"] == json.loads(out)["means"]["sysA"]["RR"] == pytest.approx(0.75)


def test_both_help_texts_say_the_default():
    assert '``"zero"`` (the default' in Campaign.evaluate.__doc__
    parser = build_parser()
    for command in ("eval", "compare"):
        with contextlib.redirect_stdout(io.StringIO()) as out, pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        assert "scored without credit (zero, the default" in " ".join(out.getvalue().split())


# -------------------------------------------------------------------------------------------- JSON
def test_json_is_one_object_and_jsonl_the_tidy_rows_at_full_precision(files):
    args = ["eval", "--gold", str(files["qrels"]), "--run", str(files["run_a"]), str(files["run_b"]), "-m", "RR",
            "AP", "nDCG@10", "--per-topic", "-q"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        runs = {**read_trec_run(files["run_a"]), **read_trec_run(files["run_b"])}
        results = Campaign(read_trec_qrels(files["qrels"]), runs).evaluate(["RR", "AP", "nDCG@10"],
                                                                             progress=False)
    status, out, _ = run_main([*args, "--format", "jsonl"])
    assert status == 0
    rows = pd.DataFrame([json.loads(line) for line in out.splitlines()])
    assert list(rows.columns) == ["system", "topic", "measure", "value"]
    expected = pd.concat([results, means(results)], ignore_index=True)
    pd.testing.assert_frame_equal(rows, expected, check_exact=True)

    status, out, _ = run_main([*args, "--format", "json"])
    document = json.loads(out)
    assert document["systems"] == ["sysA", "sysB"] and document["measures"] == ["RR", "AP", "nDCG@10"]
    wide = means(results, wide=True)
    assert document["means"] == {s: wide.loc[s].to_dict() for s in wide.index}
    assert document["per_topic"]["sysB"]["q1"]["RR"] == 0.5 and document["per_topic"]["sysA"]["q2"]["AP"] == 0
    assert document["missing_topics"] == {"policy": "zero", "topics": {"sysA": ["q2"]}}


def test_compare_jsonl_rows_name_their_table(files):
    status, out, _ = run_main(["compare", "--gold", str(files["qrels"]), "--run", str(files["run_a"]),
                               str(files["run_b"]), "-m", "RR", "P@1", "--format", "jsonl", "-q"])
    assert status == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["table"] for r in rows] == ["means"] * 4 + ["uir"] * 4 + ["significance"] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        runs = {**read_trec_run(files["run_a"]), **read_trec_run(files["run_b"])}
        results = Campaign(read_trec_qrels(files["qrels"]), runs).evaluate(["RR", "P@1"], progress=False)
    matrix = uir_matrix(results, ["RR", "P@1"])
    assert {(r["system_a"], r["system_b"]): r["uir"] for r in rows if r["table"] == "uir"} == {
        (a, b): matrix.loc[a, b] for a in matrix.index for b in matrix.columns}
    status, out, _ = run_main(["compare", "--gold", str(files["qrels"]), "--run", str(files["run_a"]),
                               str(files["run_b"]), "-m", "RR", "P@1", "--format", "json", "-q"])
    document = json.loads(out)
    assert set(document) == {"means", "uir", "significance", "report"} and "t-test" in document["report"]
    assert [r for r in rows if r["table"] == "significance"] == [{"table": "significance", **r}
                                                                 for r in document["significance"]]


# ---------------------------------------------------------------------------------- standard input
def test_gold_or_run_on_standard_input_equals_the_file(files):
    by_file = run_main(["eval", "--gold", str(files["qrels"]), "--run", str(files["run_a"]), "-m", "RR", "AP",
                        "--per-topic", "--format", "jsonl"])
    gold_in = run_main(["eval", "--gold", "-", "--run", str(files["run_a"]), "-m", "RR", "AP", "--per-topic",
                        "--format", "jsonl"], stdin=QRELS.encode())
    run_in = run_main(["eval", "--gold", str(files["qrels"]), "--run", "-", "-m", "RR", "AP", "--per-topic",
                       "--format", "jsonl"], stdin=gzip.compress(RUN_A.encode()))
    assert by_file[0] == gold_in[0] == run_in[0] == 0
    assert by_file[1] == gold_in[1] == run_in[1]


def test_standard_input_through_a_real_pipe(files):
    shell = run_cli("eval", "--gold", str(files["qrels"]), "--run", str(files["run_b"]), "-", "-m", "RR",
                    "--format", "jsonl", stdin=RUN_A.encode())
    assert shell.returncode == 0, shell.stderr
    rows = [json.loads(line) for line in shell.stdout.decode().splitlines()]
    assert [(r["system"], r["topic"], r["measure"]) for r in rows] == [("sysB", "all", "RR"), ("sysA", "all", "RR")]
    assert [r["value"] for r in rows] == [pytest.approx((0.5 + 1 + 0) / 3), pytest.approx((0.5 + 0 + 1) / 3)]


def _same_messages(files, tmp_path, data: bytes, role: str, extra: tuple[str, ...] = ()):
    """The error a file holding ``data`` gets, and the one standard input holding it gets."""
    bad = tmp_path / "bad-input"
    bad.write_bytes(data)
    gold, run = (str(bad), str(files["run_a"])) if role == "gold" else (str(files["qrels"]), str(bad))
    as_file = run_main(["eval", "--gold", gold, "--run", run, "-m", "RR", *extra])
    gold, run = ("-", str(files["run_a"])) if role == "gold" else (str(files["qrels"]), "-")
    as_stdin = run_main(["eval", "--gold", gold, "--run", run, "-m", "RR", *extra], stdin=data)
    return as_file, as_stdin, str(bad)


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"# only a comment\n", b"\x00\xff\xfe\x01binary\x80\n",
                                  b"\x1f\x8b\x08broken gzip", gzip.compress(b"", mtime=0), b"q1 0 d1\n"])
@pytest.mark.parametrize("role", ["gold", "run"])
def test_empty_or_binary_standard_input_gets_the_messages_a_file_gets(files, tmp_path, data, role):
    for extra in ((), (f"--{role}-format", "trec")):
        (status, out, err), (stdin_status, stdin_out, stdin_err), name = _same_messages(files, tmp_path, data,
                                                                                       role, extra)
        assert status == stdin_status == 2 and out == stdin_out == ""
        assert name in err and STDIN_NAME in stdin_err
        assert stdin_err == err.replace(name, STDIN_NAME)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.binary(max_size=60),
                 st.lists(st.sampled_from(["q1 Q0 d1 1 1 s", "q3 Q0 d4 1 2.5 s", "q1 Q0 d2 2 x s", "#", "",
                                           "q1 Q0 d1 1 1", "q1 0 d1 1", "\t", "é"]), max_size=5)
                 .map(lambda lines: "\n".join(lines).encode())))
@example(data=b"\x00")  # found exploring: standard input took one NUL byte for /dev/zero, a file did not
def test_standard_input_behaves_as_a_file_whatever_it_holds(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("stdin")
    qrels, bad = folder / "qrels", folder / "input"
    qrels.write_text(QRELS)
    bad.write_bytes(data)
    as_file = run_main(["eval", "--gold", str(qrels), "--run", str(bad), "-m", "RR", "--format", "jsonl",
                        "--extra", "ignore"])
    as_stdin = run_main(["eval", "--gold", str(qrels), "--run", "-", "-m", "RR", "--format", "jsonl",
                         "--extra", "ignore"], stdin=data)
    assert as_stdin[0] == as_file[0]
    assert as_stdin[1] == as_file[1]
    assert as_stdin[2] == as_file[2].replace(str(bad), STDIN_NAME)


def test_standard_input_is_read_once_and_never_from_a_terminal(monkeypatch):
    with pytest.raises(StandardInputError, match="can be read once"), with_stdin(["-", "-"]):
        pass

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    with pytest.raises(StandardInputError, match="which is a terminal here"), with_stdin(["a", "-"]):
        pass
    with with_stdin(["a", "b"]) as paths:
        assert [p.name for p in paths] == ["a", "b"]
