"""Long library calls show a progress bar (issue 30: notebook 01's Table 6 cell ran 78 s with no sign of life);
short ones and finished ones leave nothing behind."""

from __future__ import annotations

import time

from workbench.analysis.constraints import tables
from workbench.progress import progress


def slowly(items: int, seconds: float):
    for item in range(items):
        time.sleep(seconds)
        yield item


def test_work_longer_than_a_second_shows_a_bar_and_short_work_none(capsys):
    assert list(progress(slowly(3, 0.45), desc="checking", unit="case")) == [0, 1, 2]
    assert "checking" in capsys.readouterr().err
    assert list(progress(range(3), desc="quick", unit="case")) == [0, 1, 2]
    assert list(progress(slowly(3, 0.45), desc="hidden", unit="case", shown=False)) == [0, 1, 2]
    assert capsys.readouterr().err == ""


def test_the_papers_tables_show_their_progress_measure_by_measure(monkeypatch):
    seen = []
    monkeypatch.setattr(tables, "progressed", lambda work, **shown: seen.append((len(work), shown)) or iter(work))
    report = tables.table6_report(random_cases=1, families=["Edit distance", "P10"])
    assert seen == [(2, {"desc": "Table 6", "unit": "measure", "shown": True})] and len(report) == 9
    tables.filtering_report(random_cases=1, progress=False)
    assert seen[1][1] == {"desc": "Tables 3 and 5", "unit": "measure", "shown": False}
