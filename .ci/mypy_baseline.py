"""mypy against a recorded baseline that may only shrink (./wb check runs it; CI runs ./wb check).

    python .ci/mypy_baseline.py            fail on an error the baseline lacks, on one it still lists after it
                                           was fixed (then run with --shrink, which only removes lines), or when
                                           the baseline has more entries than at an earlier commit (the ratchet)
    python .ci/mypy_baseline.py --shrink   drop the fixed errors from the baseline (it never adds one)

Errors are compared as ``path: message  [code]`` without line numbers, counted, so that moving code does not
change them; the baseline (.ci/mypy-baseline.txt) holds one line per error.

The ratchet reads the baseline at every commit of the first-parent history that changed it since
:data:`RATCHET_SINCE` (the merges on main, one's own commits on a branch): re-recording it with more entries than
any of them had fails, even when each entry is a known error. A shallow clone, or a copy outside git, lacks that
history: the ratchet says it cannot check and passes.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+: error: (?P<message>.*)$")
RATCHET_SINCE = datetime(2026, 11, 28, tzinfo=UTC)
"""The ratchet reads the commits from this date on (committer date): the baseline it began with (issue 33)."""


def current() -> collections.Counter[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a crash, a bad configuration)
        sys.exit(f"mypy failed (status {done.returncode}):\n{done.stdout}{done.stderr}")
    errors = (_ERROR.match(line) for line in done.stdout.splitlines())
    return collections.Counter(f"{m['path']}: {m['message']}" for m in errors if m)


def _entries(text: str) -> collections.Counter[str]:
    return collections.Counter(line for line in text.splitlines() if line.strip())


def recorded() -> collections.Counter[str]:
    return _entries(BASELINE.read_text(encoding="utf-8") if BASELINE.exists() else "")


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def history() -> list[tuple[str, datetime, int]] | str:
    """(commit, committer date, entries) of the baseline at each commit of the first-parent history since
    :data:`RATCHET_SINCE` that changed it, newest first; or why the history cannot be read."""
    try:
        shallow = _git("rev-parse", "--is-shallow-repository")
    except FileNotFoundError:
        return "git is not installed"
    if shallow.returncode != 0:
        return "not a git checkout"
    if shallow.stdout.strip() == "true":
        return "a shallow clone (git fetch --unshallow gives it the history)"
    path = BASELINE.relative_to(ROOT).as_posix()
    log = _git("log", "--first-parent", "--format=%H %ct", "--", path)
    if log.returncode != 0:
        return f"git log failed: {log.stderr.strip()}"
    found = []
    for commit, stamp in (line.split() for line in log.stdout.splitlines() if line.strip()):
        when = datetime.fromtimestamp(int(stamp), UTC)
        if when < RATCHET_SINCE:
            continue  # before the ratchet (not a break: committer dates need not be monotonic)
        shown = _git("show", f"{commit}:{path}")
        if shown.returncode == 0:  # else the commit deleted the file
            found.append((commit, when, sum(_entries(shown.stdout).values())))
    return found


def ratchet(entries: int) -> bool:
    """Whether the baseline's ``entries`` are at most the fewest it had at a commit since the ratchet began
    (printing why not; printing, and passing, when there is no history to read)."""
    past = history()
    if isinstance(past, str):
        print(f"mypy baseline ratchet: cannot check that the baseline never grew ({past}); passing unchecked")
        return True
    if not past:
        return True
    commit, when, fewest = min(past, key=lambda item: item[2])
    if entries <= fewest:
        return True
    print(f"mypy baseline ratchet: {entries} entries, but it had {fewest} at commit {commit[:12]} "
          f"({when:%Y-%m-%d}): the baseline may not grow; fix the new errors instead of recording them")
    return False


def main(argv: list[str]) -> int:
    now, baseline = current(), recorded()
    new, fixed = now - baseline, baseline - now
    if "--shrink" in argv:
        kept = baseline - fixed
        BASELINE.write_text("".join(f"{line}\n" for line in sorted(kept.elements())), encoding="utf-8")
        print(f"mypy baseline: {sum(fixed.values())} fixed errors removed, {sum(kept.values())} left")
        return 1 if new else 0
    for line in sorted(new.elements()):
        print(f"new mypy error: {line}")
    if fixed:
        print(f"{sum(fixed.values())} errors of the baseline are fixed: run python .ci/mypy_baseline.py --shrink")
    print(f"mypy: {sum(now.values())} errors, baseline {sum(baseline.values())}, new {sum(new.values())}")
    held = ratchet(sum(baseline.values()))
    return 1 if new or fixed or not held else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
