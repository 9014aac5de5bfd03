"""The command line as a Unix tool: a closed pipe ends it quietly (status 141, as SIGPIPE ends a C program), a full
disk or a closed standard output gives one line and status 1, Ctrl-C one line and status 130; every subcommand,
the trec_eval drop-in included."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import shared_dataset

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> dict[str, list[str]]:
    qrels = str(shared_dataset("trec_eval_test", "qrels.test"))
    run = str(shared_dataset("trec_eval_test", "results.test"))
    robust = [str(shared_dataset("trec_robust2003", *parts)) for parts in
              (("qrels.txt",), ("runs", "input.aplrob03a.gz"), ("runs", "input.humR03dc.gz"))]
    return {"eval": ["eval", "--gold", qrels, "--run", run, "-m", "AP", "P@10", "--per-topic", "-q"],
            "eval json": ["eval", "--gold", qrels, "--run", run, "-m", "AP", "-q", "--format", "json"],
            "compare": ["compare", "--gold", robust[0], "--run", *robust[1:], "-m", "AP", "-q"],
            "demo": ["demo"], "help": ["--help"], "trec_eval": ["trec_eval", "-q", "-m", "all_trec", qrels, run],
            "trec_eval help": ["trec_eval", "-h"]}


COMMANDS = ["eval", "eval json", "compare", "demo", "help", "trec_eval", "trec_eval help"]


def _run(arguments: list[str], **keywords) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *arguments], cwd=ROOT, stderr=subprocess.PIPE,
                          timeout=120, **keywords)


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.slow
def test_a_closed_pipe_ends_quietly(name):
    """As ``... | head -1`` once head has gone: the reading end is closed before anything is written."""
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = _run(_commands()[name], stdout=writing)
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (141, b"")


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.slow
def test_a_full_disk_is_one_line_and_status_1(name):
    with open("/dev/full", "wb") as full:
        done = _run(_commands()[name], stdout=full)
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == ["workbench: error: cannot write the output (No space left on device)"]


@pytest.mark.parametrize("name", COMMANDS)
@pytest.mark.slow
def test_a_closed_standard_output_is_one_line_and_status_1(name):
    done = _run(_commands()[name], stdout=None, pass_fds=(), preexec_fn=lambda: os.close(1))
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == ["workbench: error: cannot write the output: standard output is "
                                                 "closed"]


def _wait_for_standard_input(pid: int, deadline: float = 60.0) -> None:
    """Until the process waits on its standard input (a pipe), or the deadline fails the test."""
    wchan = Path(f"/proc/{pid}/wchan")
    if not wchan.exists():
        pytest.skip("no /proc/PID/wchan here to see when the process waits on its input")
    start = time.monotonic()
    while "pipe_read" not in wchan.read_text():
        if time.monotonic() - start > deadline:
            pytest.fail(f"the process did not come to read its standard input within {deadline:.0f} s")
        time.sleep(0.05)


@pytest.mark.parametrize("command", [["eval", "--gold", "-", "--run", "RUN", "-m", "AP", "-q"],
                                     ["trec_eval", "QRELS", "-"]])
def test_ctrl_c_is_one_line_and_status_130(command):
    """Interrupted while it waits for standard input: one line, status 130, no traceback."""
    files = {"RUN": str(shared_dataset("trec_eval_test", "results.test")),
             "QRELS": str(shared_dataset("trec_eval_test", "qrels.test"))}
    process = subprocess.Popen([sys.executable, "-m", "workbench", *(files.get(a, a) for a in command)], cwd=ROOT,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _wait_for_standard_input(process.pid)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert err.decode().splitlines() == ["workbench: interrupted"]
