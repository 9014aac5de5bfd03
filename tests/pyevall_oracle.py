"""PyEvALL as an oracle: one test case's gold and output records scored by ``pyevall`` (installed beside the
workbench with ``pip install --no-deps pyevall==0.2.11 jsbeautifier``: its pinned numpy 1.26 and pandas 2.2 would
downgrade the project's, while the library itself runs on the project's versions).

Each call evaluates one test case in a fresh evaluation: PyEvALL reuses one metric object over the test cases of
a file, and ICM's class probabilities (and MAE's class list) of one test case stay for the next.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

TEST_CASE = "T"


def records(values: dict[str, object]) -> list[dict]:
    """PyEvALL's JSON records of one test case from ``{id: value}``."""
    return [{"test_case": TEST_CASE, "id": item, "value": value} for item, value in values.items()]


def scores(gold: dict[str, object], output: dict[str, object], metrics: list[str], *, hierarchy=None,
           params: dict | None = None) -> dict[str, dict]:
    """``{metric: {"average": value or None, "classes": {class: value or None}}}`` as PyEvALL reports the test
    case (None where PyEvALL has no value: a failed precondition, an undefined class)."""
    from pyevall.evaluation import PyEvALLEvaluation
    from pyevall.utils.utils import PyEvALLUtils

    with tempfile.TemporaryDirectory() as folder:
        gold_path, output_path = Path(folder) / "gold.json", Path(folder) / "output.json"
        gold_path.write_text(json.dumps(records(gold)), encoding="utf-8")
        output_path.write_text(json.dumps(records(output)), encoding="utf-8")
        options = {PyEvALLUtils.PARAM_LOG_LEVEL: PyEvALLUtils.PARAM_OPTION_LOG_LEVEL_NONE,
                   "metric_params": {metric: dict(params or {}) for metric in metrics}}
        if hierarchy is not None:
            options[PyEvALLUtils.PARAM_HIERARCHY] = copy.deepcopy(hierarchy)  # PyEvALL adds classes to it
        report = PyEvALLEvaluation().evaluate(str(output_path), str(gold_path), metrics, **options).report
    out = {}
    for metric in metrics:
        cases = report["metrics"][metric]["results"]["test_cases"]
        case = cases[0] if cases else {}
        out[metric] = {"average": case.get("average"), "classes": case.get("classes", {})}
    return out
