"""The mypy baseline may only shrink (.ci/mypy_baseline.py, run by ./wb check): no new error, no fixed error left
listed, and never more entries than at a commit of the first-parent history since the ratchet began."""

from __future__ import annotations

import collections
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "mypy_baseline.py"


def _load(root: Path):
    spec = importlib.util.spec_from_file_location("mypy_baseline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ROOT, module.BASELINE = root, root / ".ci" / "mypy-baseline.txt"
    module.BASELINE.parent.mkdir(parents=True, exist_ok=True)
    return module


@pytest.fixture(autouse=True)
def no_outer_repository(tmp_path, monkeypatch):
    """git looks no further up than tmp_path: a repository around the temporary folder is not read."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))


@pytest.fixture
def baseline(tmp_path):
    module = _load(tmp_path / "copy")  # a copy outside git: the ratchet cannot check, and says so
    module.BASELINE.write_text("a.py: one  [x]\na.py: one  [x]\nb.py: two  [y]\n")
    return module


def _now(module, monkeypatch, *lines):
    monkeypatch.setattr(module, "current", lambda: collections.Counter(lines))


def test_the_recorded_errors_pass(baseline, monkeypatch, capsys):
    _now(baseline, monkeypatch, "a.py: one  [x]", "a.py: one  [x]", "b.py: two  [y]")
    assert baseline.main([]) == 0
    assert "cannot check that the baseline never grew (not a git checkout); passing unchecked" in \
        capsys.readouterr().out


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


# ------------------------------------------------------------------------------------------ the ratchet
def _git(root: Path, *args: str, date: str = "2026-11-28T12:00:00Z") -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _record(module, entries: int) -> list[str]:
    lines = [f"m.py: error {i}  [x]" for i in range(entries)]
    module.BASELINE.write_text("".join(f"{line}\n" for line in lines))
    return lines


def _commit(module, entries: int, date: str) -> str:
    _record(module, entries)
    _git(module.ROOT, "add", "-A", date=date)
    _git(module.ROOT, "commit", "-q", "-m", f"{entries} entries", date=date)
    return _git(module.ROOT, "rev-parse", "HEAD")


@pytest.fixture
def repository(tmp_path):
    module = _load(tmp_path / "repo")
    _git(module.ROOT, "init", "-q", "-b", "main")
    return module


def _check(module, monkeypatch, entries: int) -> int:
    """./wb check's verdict with the working tree's baseline at ``entries``, every one a known error."""
    _now(module, monkeypatch, *_record(module, entries))
    return module.main([])


def test_a_baseline_grown_past_an_earlier_commit_fails_and_a_shrunk_one_passes(repository, monkeypatch, capsys):
    _commit(repository, 1, "2026-11-20T12:00:00Z")  # before the ratchet began: not read
    fewest = _commit(repository, 3, "2026-11-28T12:00:00Z")
    _commit(repository, 5, "2026-11-29T12:00:00Z")  # re-recorded, grown: committed, and still refused
    assert _check(repository, monkeypatch, 5) == 1
    out = capsys.readouterr().out
    assert f"5 entries, but it had 3 at commit {fewest[:12]} (2026-11-28): the baseline may not grow" in out
    assert _check(repository, monkeypatch, 4) == 1  # fewer than the last commit's, more than the fewest
    assert _check(repository, monkeypatch, 3) == 0
    assert _check(repository, monkeypatch, 2) == 0  # shrunk, not yet committed
    _commit(repository, 2, "2026-11-30T12:00:00Z")
    assert _check(repository, monkeypatch, 3) == 1  # the new floor
    assert "3 entries, but it had 2 at commit" in capsys.readouterr().out


def test_the_ratchet_reads_the_first_parent_history_only(repository, monkeypatch):
    """A side branch's own commits are not main's history: main's merge of it is (here a resolution that keeps
    3 entries of main's 4 and the side's 1)."""
    _commit(repository, 4, "2026-11-28T12:00:00Z")
    _git(repository.ROOT, "checkout", "-q", "-b", "side")
    _commit(repository, 1, "2026-11-28T13:00:00Z")
    _git(repository.ROOT, "checkout", "-q", "main")
    _git(repository.ROOT, "merge", "-q", "-s", "ours", "--no-commit", "side", date="2026-11-28T14:00:00Z")
    _commit(repository, 3, "2026-11-28T14:00:00Z")
    assert _git(repository.ROOT, "rev-list", "--parents", "-n", "1", "HEAD").count(" ") == 2  # a merge
    assert _check(repository, monkeypatch, 3) == 0
    assert _check(repository, monkeypatch, 4) == 1


def test_a_shallow_clone_says_it_cannot_check_and_passes(repository, tmp_path, monkeypatch, capsys):
    _commit(repository, 3, "2026-11-28T12:00:00Z")
    _commit(repository, 5, "2026-11-29T12:00:00Z")
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repository.ROOT}", str(tmp_path / "shallow")],
                   check=True, capture_output=True)
    clone = _load(tmp_path / "shallow")
    _now(clone, monkeypatch, *clone.BASELINE.read_text().splitlines())
    assert clone.main([]) == 0
    assert "cannot check that the baseline never grew (a shallow clone (git fetch --unshallow gives it the " \
           "history)); passing unchecked" in capsys.readouterr().out
    assert _check(repository, monkeypatch, 5) == 1  # the whole history refuses it
