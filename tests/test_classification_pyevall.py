"""The classification measures equal ``pyevall``'s on random inputs of every context: mono-label, multi-label and
soft labels, flat and hierarchical, with random ICM and F parameters, outputs that leave items unanswered (left
out, or written empty) and label items the gold lacks.

Two ways, one generator (:func:`random_case`): live against the installed ``pyevall`` (Hypothesis draws the seed;
skipped where PyEvALL is not installed — see tests/pyevall_oracle.py for why it is not in the dev extra), and
against PyEvALL's values recorded in tests/data/pyevall-recorded.json, which always runs (and whose recording is
checked against the live PyEvALL where it is installed). ``python -m tests.test_classification_pyevall``
records them again.

The inputs keep to where PyEvALL's definitions are the workbench's (the module docstrings of
:mod:`workbench.metrics.classification` list the departures): every class of a soft label written (a dense dict),
the output's soft classes among the gold's, no class whose gold weight never varies (PyEvALL's NormalDist raises),
and multi-label ICM given a hierarchy (without one PyEvALL reports no value and the workbench refuses it: both get
the flat tree ``{c: []}``). Where an item
is unanswered, PyEvALL's Cross Entropy counts it 0 and the workbench's as the uniform distribution: the test
checks that PyEvALL's value is the workbench's terms of the answered items over |G|, and that it is lower.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from workbench import evaluate
from workbench.model.labelling import ClassTree, Labelling

RECORDED = Path(__file__).with_name("data") / "pyevall-recorded.json"
TREE = {"P": ["P1", "P2"], "Q": {"Q1": ["Q11", "Q12"], "Q2": ["Q21"]}, "R": []}
FLAT = ["A", "B", "C", "D", "E"]
CONTEXTS = ("mono", "mono-tree", "multi", "multi-tree", "soft", "soft-tree")
# PyEvALL's metric → the workbench's measure, and whether PyEvALL reports it per class
METRICS = {"mono": {"Accuracy": "Acc", "SystemPrecision": "SP", "Kappa": "CohenKappa", "Precision": "Pr",
                    "Recall": "Re", "FMeasure": "FMeasure", "ICM": "ICM", "ICMNorm": "ICM-Norm"},
           "multi": {"Precision": "Pr", "Recall": "Re", "FMeasure": "FMeasure", "ICM": "ICM", "ICMNorm": "ICM-Norm"},
           "soft": {"CrossEntropy": "CrossEntropy", "MAE": "MAE", "ICMSoft": "ICM-Soft",
                    "ICMSoftNorm": "ICM-Soft-Norm"},
           # sparse independent probabilities: CE and MAE read the classes a dict leaves out differently (departures)
           "soft-tree": {"ICMSoft": "ICM-Soft", "ICMSoftNorm": "ICM-Soft-Norm"}}
PER_CLASS = {"Precision", "Recall", "FMeasure"}
WEIGHTS = [0.5, 1.0, 2.0, 3.0]

# pyevall 0.2.11 (the oracle) calls DataFrame.from_dict with a list, which pandas deprecates, once per evaluation
pytestmark = pytest.mark.filterwarnings("ignore:Passing a list to DataFrame.from_dict is deprecated")


def random_case(rng: np.random.Generator, context: str) -> dict:
    """Gold and output values, the hierarchy and the parameters of one test case of ``context``."""
    kind, tree = context.split("-")[0], context.endswith("-tree")
    classes = list(ClassTree.from_nested(TREE).classes) if tree else FLAT[:int(rng.integers(2, 6))]
    n = int(rng.integers(1, 8))

    def labels(size: int) -> list[str]:
        return [str(c) for c in rng.choice(classes, size=min(size, len(classes)), replace=False)]

    def value(answered: bool):
        if kind == "mono":
            return labels(1)[0] if answered else ""
        if kind == "multi":
            return labels(int(rng.integers(1, 4))) if answered else []
        if not answered:
            return {}
        if tree:  # independent probabilities of a few classes
            return {c: float(rng.integers(0, 5)) / 4 for c in labels(int(rng.integers(1, 4)))}
        weights = rng.integers(0, 5, size=len(classes)).astype(float)
        weights[int(rng.integers(len(classes)))] += 1
        return {c: float(w) for c, w in zip(classes, weights / weights.sum(), strict=True)}  # every class written

    gold = {f"i{k}": value(True) for k in range(n)}
    output = {}
    for item in gold:
        draw = rng.random()
        if draw < 0.75:
            output[item] = value(True)
        elif draw < 0.85:
            output[item] = value(False)  # written empty: unanswered
    if kind != "soft" and rng.random() < 0.4:
        output["extra"] = value(True)
    if not output:
        output["i0"] = value(False)
    alpha_1, alpha_2, beta = (float(rng.choice(WEIGHTS)) for _ in range(3))
    if alpha_1 + alpha_2 == beta:  # ICM(g, g) = 0: PyEvALL's ICM-Norm divides by zero (tested apart)
        beta += 0.5
    return {"context": context, "hierarchy": TREE if tree else None, "gold": gold, "output": output,
            "params": {"alpha_1": alpha_1, "alpha_2": alpha_2, "beta": beta,
                       "alfa_param": float(rng.choice([0.0, 0.25, 0.5, 1.0]))}}


def pyevall_values(case: dict) -> dict | None:
    """PyEvALL's values of a case (None where PyEvALL raises: a soft class whose gold weight never varies). Where
    its ICM-Norm divides by zero (a gold without information, ICM(g, g) = 0), that measure has no value (None)."""
    from tests.pyevall_oracle import scores

    kind = case["context"] if case["context"] == "soft-tree" else case["context"].split("-")[0]
    hierarchy = case["hierarchy"]
    if kind == "multi" and hierarchy is None:  # PyEvALL's multi-label ICM needs a tree: the flat one
        hierarchy = {c: [] for c in sorted({c for v in case["gold"].values() for c in v})}
    metrics = list(METRICS[kind])
    try:
        try:
            return scores(case["gold"], case["output"], metrics, hierarchy=hierarchy, params=case["params"])
        except ZeroDivisionError:
            kept = [m for m in metrics if not m.endswith("Norm")]
            values = scores(case["gold"], case["output"], kept, hierarchy=hierarchy, params=case["params"])
            return values | {m: {"average": None, "classes": {}} for m in metrics if m not in kept}
    except statistics.StatisticsError:
        return None


def labellings(case: dict) -> tuple[Labelling, Labelling]:
    """The case's gold and output (soft labels over a tree are independent per-class probabilities; flat multi-label
    classes in the flat tree, as PyEvALL's ICM gets them)."""
    hierarchy = case["hierarchy"]
    if case["context"] == "multi":
        hierarchy = {c: [] for side in ("gold", "output") for v in case[side].values() for c in v}
    tree = ClassTree.from_nested(hierarchy) if hierarchy else None
    options = dict(hierarchy=tree, distribution=case["context"] != "soft-tree")
    return Labelling.of(case["gold"], gold=True, **options), Labelling.of(case["output"], **options)


def workbench_values(case: dict) -> dict:
    kind = case["context"] if case["context"] == "soft-tree" else case["context"].split("-")[0]
    gold, output = labellings(case)
    p = case["params"]
    icm = f"(alpha_1={p['alpha_1']}, alpha_2={p['alpha_2']}, beta={p['beta']})"
    out = {}
    for metric, name in METRICS[kind].items():
        written = name + (icm if name.startswith("ICM") else f"(alpha={p['alfa_param']})" if name == "FMeasure" else "")
        classes = {}
        if metric in PER_CLASS:
            for label in dict.fromkeys(c for v in case["gold"].values() for c in ([v] if isinstance(v, str) else v)):
                spelled = written[:-1] + f", label={label})" if written.endswith(")") else f"{written}(label={label})"
                classes[label] = evaluate(gold, output, spelled)[spelled]
        out[metric] = {"average": evaluate(gold, output, written)[written], "classes": classes}
    return out


def same(a, b) -> bool:
    a = math.nan if a is None else float(a)
    b = math.nan if b is None else float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def pyevalls_cross_entropy(case: dict) -> float:
    """Cross Entropy as PyEvALL averages it: an unanswered item counts 0 (here: the uniform distribution)."""
    from workbench.metrics.classification import pair
    from workbench.metrics.classification.soft import cross_entropy_terms

    p = pair(*labellings(case))
    return float(np.where(p.answered[:p.n_gold], cross_entropy_terms(p), 0.0).sum() / p.n_gold)


def assert_equal(case: dict, expected: dict) -> None:
    mine = workbench_values(case)
    if "CrossEntropy" in mine:  # the one departure left in these inputs: how an unanswered item counts
        answered_all = all(case["output"].get(item) for item in case["gold"])
        if not answered_all:
            assert mine["CrossEntropy"]["average"] > pyevalls_cross_entropy(case)
            mine["CrossEntropy"]["average"] = pyevalls_cross_entropy(case)
    for metric, values in expected.items():
        assert same(mine[metric]["average"], values["average"]), (metric, mine[metric], values, case)
        for label, value in values["classes"].items():
            assert same(mine[metric]["classes"][label], value), (metric, label, mine[metric], values, case)


def record(count: int = 40) -> None:
    """Write PyEvALL's values of ``count`` seeded cases per context to tests/data/pyevall-recorded.json."""
    cases = []
    for index, context in enumerate(CONTEXTS):
        rng = np.random.default_rng([2026, index])
        while sum(c["case"]["context"] == context for c in cases) < count:
            case = random_case(rng, context)
            values = pyevall_values(case)
            if values is not None:
                cases.append({"case": case, "pyevall": jsonable(values)})
    RECORDED.parent.mkdir(exist_ok=True)
    RECORDED.write_text(json.dumps({"pyevall": "0.2.11", "cases": cases}, indent=1) + "\n", encoding="utf-8")


def jsonable(values: dict) -> dict:
    number = (lambda v: None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v))  # noqa: E731
    return {metric: {"average": number(v["average"]), "classes": {c: number(x) for c, x in v["classes"].items()}}
            for metric, v in values.items()}


def recorded() -> list[dict]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]


def test_every_context_equals_pyevalls_recorded_values():
    cases = recorded()
    assert {c["case"]["context"] for c in cases} == set(CONTEXTS) and len(cases) >= 6 * 40
    for entry in cases:
        assert_equal(entry["case"], entry["pyevall"])


def test_the_recorded_values_are_pyevalls():
    reference_module("pyevall")
    for entry in recorded():  # to rounding: PyEvALL sums hierarchical IC in the order of a Python set of strings,
        live = jsonable(pyevall_values(entry["case"]))  # which changes from run to run (hash randomization)
        for metric, values in entry["pyevall"].items():
            assert same(live[metric]["average"], values["average"]), (metric, live[metric], values)
            assert live[metric]["classes"].keys() == values["classes"].keys()
            assert all(same(live[metric]["classes"][c], v) for c, v in values["classes"].items())


@pytest.mark.parametrize("context", CONTEXTS)
def test_every_context_equals_pyevall_on_random_cases(context):
    reference_module("pyevall")

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, 2**32 - 1))
    def check(seed):
        case = random_case(np.random.default_rng(seed), context)
        expected = pyevall_values(case)
        if expected is not None:
            assert_equal(case, expected)

    check()


def test_icm_norm_of_a_gold_without_information_is_undefined_where_pyevall_divides_by_zero():
    pyevall = reference_module("pyevall")
    from tests.pyevall_oracle import scores

    gold, output = {"1": "A", "2": "B"}, {"1": "A"}
    with pytest.raises(ZeroDivisionError):
        scores(gold, output, ["ICMNorm"], params={"alpha_1": 1.0, "alpha_2": 1.0, "beta": 2.0})
    assert pyevall is not None and math.isnan(evaluate(Labelling.of(gold, gold=True), Labelling.of(output),
                                                       "ICM-Norm(alpha_1=1, alpha_2=1, beta=2)")[
        "ICM-Norm(alpha_1=1, alpha_2=1, beta=2)"])


def test_pyevalls_icm_carries_class_probabilities_from_one_test_case_to_the_next(tmp_path):
    """Why the oracle scores one test case at a time: in one PyEvALL file, test case T2's output names A, a class
    of T1's gold only; PyEvALL gives A T1's probability (2/3) instead of T2's 1/|G|. Each topic here reads its own
    gold, as PyEvALL does with the test case alone."""
    reference_module("pyevall")
    from pyevall.evaluation import PyEvALLEvaluation

    from tests.pyevall_oracle import scores

    gold = {"T1": {"1": "A", "2": "A", "3": "B"}, "T2": {"1": "C", "2": "C", "3": "D"}}
    output = {"T1": {"1": "A"}, "T2": {"1": "A"}}
    for name, values in (("gold", gold), ("output", output)):
        (tmp_path / f"{name}.json").write_text(json.dumps([{"test_case": tc, "id": i, "value": v} for tc, items in
                                                           values.items() for i, v in items.items()]))
    report = PyEvALLEvaluation().evaluate(str(tmp_path / "output.json"), str(tmp_path / "gold.json"), ["ICM"],
                                          log_level="none").report
    together = report["metrics"]["ICM"]["results"]["test_cases"][1]["average"]
    alone = scores(gold["T2"], output["T2"], ["ICM"])["ICM"]["average"]
    mine = evaluate(Labelling.of(gold["T2"], gold=True), Labelling.of(output["T2"]), "ICM")["ICM"]
    log = math.log2
    assert alone == pytest.approx(mine) == pytest.approx((-(log(3) + log(1.5)) - log(1.5) - log(3)) / 3)
    assert together == pytest.approx((-(log(1.5) + log(1.5)) - log(1.5) - log(3)) / 3)


if __name__ == "__main__":
    record()
