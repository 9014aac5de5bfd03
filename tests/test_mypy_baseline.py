"""The mypy baseline may only shrink (.ci/mypy_baseline.py, run by ./wb check)."""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "mypy_baseline.py"


@pytest.fixture
def baseline(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("mypy_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "BASELINE", tmp_path / "baseline.txt")
    module.BASELINE.write_text("a.py: one  [x]\na.py: one  [x]\nb.py: two  [y]\n")
    return module


def _now(module, monkeypatch, *lines):
    monkeypatch.setattr(module, "current", lambda: collections.Counter(lines))


def test_the_recorded_errors_pass(baseline, monkeypatch, capsys):
    _now(baseline, monkeypatch, "a.py: one  [x]", "a.py: one  [x]", "b.py: two  [y]")
    assert baseline.main([]) == 0


def test_a_new_error_fails_even_with_a_known_message_once_more(baseline, monkeypatch, capsys):
    _now(baseline, monkeypatch, "a.py: one  [x]", "a.py: one  [x]", "a.py: one  [x]", "b.py: two  [y]")
    assert baseline.main([]) == 1
    assert "new mypy error: a.py: one  [x]" in capsys.readouterr().out


def test_a_fixed_error_still_listed_fails_until_shrunk_and_shrinking_never_adds(baseline, monkeypatch, capsys):
    _now(baseline, monkeypatch, "a.py: one  [x]", "c.py: three  [z]")
    assert baseline.main([]) == 1
    assert "2 errors of the baseline are fixed" in capsys.readouterr().out
    assert baseline.main(["--shrink"]) == 1  # the new c.py error is not added, and still fails
    assert baseline.BASELINE.read_text() == "a.py: one  [x]\n"
