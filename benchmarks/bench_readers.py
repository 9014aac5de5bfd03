"""Time the PyEvALL readers against PyEvALL's own parser (``pyevall.comparators.comparators.PyEvALLFormat``, which
every ``PyEvALLEvaluation.evaluate`` runs first) on the same files: a gold standard and a system output of N records
each, as JSON arrays and as TSV, read into per-test-case data by both (the workbench: ``read_pyevall_campaign``;
PyEvALL: its format object, which reads both files and splits them by test case into DataFrames).

    python benchmarks/bench_readers.py [--quick] [--records 400000]

Prints the load average, sizes, best-of-N wall and CPU seconds, records per second and the ratio workbench/peer
(< 1: the workbench is faster), and the work per record at two sizes (the readers are linear: 4× the records,
about 4× the time). Issue 38 asks that the JSON reader read 400,000 records in time proportional to the file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.data.pyevall import read_pyevall_campaign  # noqa: E402


def records(count: int, seed: int) -> list[dict]:
    """``count`` mono-label records over 100 test cases, the value drawn from 4 classes."""
    return [{"test_case": f"T{i % 100}", "id": f"item{i}", "value": "ABCD"[(i * 7 + seed) % 4]}
            for i in range(count)]


def write(folder: Path, name: str, rows: list[dict], kind: str) -> Path:
    path = folder / f"{name}.{kind}"
    if kind == "json":
        path.write_text(json.dumps(rows, indent=0), encoding="utf-8")
    else:
        path.write_text("".join(f"{r['test_case']}\t{r['id']}\t{r['value']}\n" for r in rows), encoding="utf-8")
    return path


def best(function, repeat: int) -> tuple[float, float, object]:
    """The best wall and CPU seconds over ``repeat`` runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def peer(gold: Path, output: Path):
    from pyevall.comparators.comparators import PyEvALLFormat
    from pyevall.reports.reports import PyEvALLReport
    from pyevall.utils.utils import PyEvALLUtils

    evaluation = str(uuid.uuid4())
    PyEvALLUtils.load_configuration(evaluation)
    report = PyEvALLReport()
    report.init_report()
    try:
        parsed = PyEvALLFormat(report, str(output), str(gold), evaluation)
        assert parsed.valid_execution
        return parsed
    finally:
        PyEvALLUtils.remove_active_configuration(evaluation)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="40,000 records, one run each")
    parser.add_argument("--records", type=int, default=400_000)
    arguments = parser.parse_args()
    count = 40_000 if arguments.quick else arguments.records
    repeat = 1 if arguments.quick else 3
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print(f"{'reader':<34} {'records':>9} {'wall s':>8} {'CPU s':>8} {'records/s':>11} {'vs PyEvALL':>11}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for kind in ("json", "tsv"):
            for size in (count // 4, count):
                gold = write(folder, f"gold{size}", records(size, 0), kind)
                output = write(folder, f"run{size}", records(size, 1), kind)
                ours_wall, ours_cpu, campaign = best(lambda g=gold, o=output: read_pyevall_campaign(g, [o]), repeat)
                peer_wall, peer_cpu, parsed = best(lambda g=gold, o=output: peer(g, o), repeat)
                assert sorted(campaign.gold) == sorted(parsed.gold_df), "the two readers disagree on the test cases"
                assert sum(len(t.items) for t in campaign.gold.values()) == sum(len(f) for f in
                                                                                 parsed.gold_df.values())
                for label, wall, cpu in ((f"workbench {kind}", ours_wall, ours_cpu),
                                         (f"PyEvALL {kind}", peer_wall, peer_cpu)):
                    ratio = f"{ours_wall / peer_wall:>10.2f}x" if label.startswith("workbench") else ""
                    print(f"{label:<34} {2 * size:>9,} {wall:>8.2f} {cpu:>8.2f} {2 * size / wall:>11,.0f} {ratio:>11}")


if __name__ == "__main__":
    main()
