"""Input that never ends or is no text stops with a named error instead of filling memory (issue 20 item 6):
``/dev/zero`` or an endless stream given as qrels or run, through every door, and gzip data that inflates
without end."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.data.trec.errors import TrecFormatError
from workbench.reading import sources as files

ROOT = Path(__file__).resolve().parent.parent
QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"
RUN = b"q1 Q0 d1 1 2 s\nq1 Q0 d2 2 1 s\n"
ZERO = Path("/dev/zero")


class Endless(io.RawIOBase):
    """A stream of run lines that never ends (``yes 'q1 Q0 d1 1 2 s' |``), counting what was read."""

    def __init__(self) -> None:
        self.given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        line = RUN[:15] * (len(buffer) // 15)
        buffer[:len(line)] = line
        self.given += len(line)
        return len(line)


def cli(*args: str, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *args], cwd=ROOT, stdin=stdin, capture_output=True,
                          timeout=120, text=True)


@pytest.fixture
def trec_files(tmp_path):
    (tmp_path / "qrels").write_bytes(QRELS)
    (tmp_path / "run").write_bytes(RUN)
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.skipif(not ZERO.exists(), reason="no /dev/zero on this system")
@pytest.mark.parametrize("door", ["eval gold", "eval run", "trec_eval qrels", "trec_eval run", "eval stdin",
                                  "trec_eval stdin", "compare run"])
def test_dev_zero_through_every_door_is_refused_at_once(door, trec_files):
    qrels, run = map(str, trec_files)
    zero = "-" if door.endswith("stdin") else str(ZERO)
    args = {"eval gold": ["eval", "--gold", zero, "--run", run, "-m", "AP"],
            "eval run": ["eval", "--gold", qrels, "--run", zero, "-m", "AP"],
            "eval stdin": ["eval", "--gold", zero, "--run", run, "-m", "AP"],
            "compare run": ["compare", "--gold", qrels, "--run", run, zero, "-m", "AP"],
            "trec_eval qrels": ["trec_eval", zero, run],
            "trec_eval run": ["trec_eval", qrels, zero],
            "trec_eval stdin": ["trec_eval", qrels, zero]}[door]
    with ZERO.open("rb") as stdin:
        done = cli(*args, stdin=stdin)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and ("all NUL" in done.stderr or "a NUL byte" in done.stderr)


def test_an_endless_stream_stops_at_the_input_limit(monkeypatch):
    monkeypatch.setattr(files, "input_limit", lambda: 10 << 20)
    stream = Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    with pytest.raises(TrecFormatError, match=r"<stdin>: it goes on past 0.0 GiB, a quarter of this machine's "
                                              r"memory \(an endless stream\?\)"):
        files.read_buffer("-", TrecFormatError)
    assert stream.given <= (10 << 20) + 2 * files.CHUNK


def test_the_copy_of_standard_input_stops_at_the_limit_too(monkeypatch):
    monkeypatch.setattr(files, "input_limit", lambda: 4 << 20)
    with pytest.raises(files.StandardInputError, match="<stdin>: it goes on past"), \
            files.with_stdin(["-"], io.BufferedReader(Endless())):
        pass


def test_gzip_data_that_inflates_too_far_or_to_zeros_is_refused(tmp_path, monkeypatch):
    zeros = tmp_path / "zeros.gz"
    zeros.write_bytes(gzip.compress(bytes(8 << 20)))  # 8 MiB of NUL in a few kB
    with pytest.raises(TrecFormatError, match="all NUL"):
        files.read_buffer(zeros, TrecFormatError)
    monkeypatch.setattr(files, "input_limit", lambda: 2 << 20)
    big = tmp_path / "big.gz"
    big.write_bytes(gzip.compress(RUN * (1 << 17)))  # 4 MiB of run lines
    with pytest.raises(TrecFormatError, match="it goes on past"):
        files.read_buffer(big, TrecFormatError)
    monkeypatch.undo()
    assert bytes(files.read_buffer(big, TrecFormatError)) == RUN * (1 << 17)  # below the real limit: read whole
