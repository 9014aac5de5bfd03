"""mypy against a recorded baseline that may only shrink (./wb check runs it; CI runs ./wb check).

    python .ci/mypy_baseline.py            fail on an error the baseline lacks, or on one it still lists after it
                                           was fixed (then run with --shrink, which only removes lines)
    python .ci/mypy_baseline.py --shrink   drop the fixed errors from the baseline (it never adds one)

Errors are compared as ``path: message  [code]`` without line numbers, counted, so that moving code does not
change them; the baseline (.ci/mypy-baseline.txt) holds one line per error.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
_ERROR = re.compile(r"^(?P<path>[^:]+):\d+: error: (?P<message>.*)$")


def current() -> collections.Counter[str]:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):  # 2: mypy itself failed (a crash, a bad configuration)
        sys.exit(f"mypy failed (status {done.returncode}):\n{done.stdout}{done.stderr}")
    errors = (_ERROR.match(line) for line in done.stdout.splitlines())
    return collections.Counter(f"{m['path']}: {m['message']}" for m in errors if m)


def recorded() -> collections.Counter[str]:
    lines = BASELINE.read_text(encoding="utf-8").splitlines() if BASELINE.exists() else []
    return collections.Counter(line for line in lines if line.strip())


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
    return 1 if new or fixed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
