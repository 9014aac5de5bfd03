"""The classification family: PyEvALL's published test cases against the legacy EvALL values, hand-computed cases,
ICM's closed form against PyEvALL's recursion over deepest common ancestors, the readers of PyEvALL's JSON, TSV and
CSV with every refusal named (file, line, id), campaigns, explanations, and the analyses over the measures
(constraint checker, UIR). Equality with ``pyevall`` itself: tests/test_classification_pyevall.py."""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from tests.strategies import TREE, labelling_pairs
from workbench import datasets, evaluate
from workbench.analysis import check_constraints, uir
from workbench.data.campaign import CampaignError
from workbench.data.pyevall import PyEvALLFormatError, read_hierarchy, read_pyevall, read_pyevall_campaign
from workbench.errors import ParameterError
from workbench.metrics.classification import ClassificationInputError, pair
from workbench.metrics.classification import icm as icm_kernels
from workbench.model import Organization
from workbench.model.labelling import (
    ClassTree,
    EmptyLabelError,
    HierarchyError,
    Labelling,
    LabellingError,
    LabelNotInHierarchyError,
    MixedKindsError,
    ProbabilityError,
    RepeatedIdError,
)

LOG = math.log2


def mono(text: str, gold: bool = False, **options) -> Labelling:
    return Labelling.parse(text, gold=gold, **options)


# ------------------------------------------------------------------------------- PyEvALL's published test cases
def published_cases() -> dict[int, tuple[Labelling, Labelling]]:
    cases = datasets.load("pyevall-classification-cases").astype(str)
    out = {}
    for number, rows in cases.groupby(cases.test_case.astype(int)):
        sides = {side: dict(zip(part.id, part.value, strict=True)) for side, part in rows.groupby("side")}
        out[number] = Labelling.of(sides["gold"], gold=True), Labelling.of(sides["output"])
    return out


def test_pyevalls_published_cases_equal_the_legacy_evall_values():
    """PyEvALL's double implementation: its 25 classification test cases and the values of the legacy EvALL tool
    (Double_imp_2.txt, three decimals; UNK: undefined). All 175 numbers agree."""
    reference = datasets.load("pyevall-classification-reference")
    cases = published_cases()
    checked = 0
    for number, legacy, measure, printed in reference.itertuples(index=False):
        gold, output = cases[number]
        value = evaluate(gold, output, measure)[measure]
        if printed == "UNK":
            assert math.isnan(value), (number, legacy, value)
        else:
            assert abs(value - float(printed)) <= 0.0005 + 1e-12, (number, legacy, value, printed)
        checked += 1
    assert checked == 175 and len(cases) == 25


def test_the_published_cases_as_pyevalls_tsv_files_read_into_a_campaign(tmp_path):
    """The same cases written as PyEvALL's files are (TSV with a header, one file per side) give the same values
    through the reader and the campaign."""
    cases = datasets.load("pyevall-classification-cases").astype(str)
    for side in ("gold", "output"):
        rows = cases[cases.side == side][["test_case", "id", "value"]]
        rows.to_csv(tmp_path / f"{side}.txt", sep="\t", index=False)
    campaign = read_pyevall_campaign(tmp_path / "gold.txt", {"SYS": tmp_path / "output.txt"})
    assert list(campaign.gold) == [str(i) for i in range(1, 26)]
    scores = campaign.evaluate(["Acc", "ICM"], progress=False).pivot(index="topic", columns="measure", values="value")
    for number, (gold, output) in published_cases().items():
        assert scores.loc[str(number), "ICM"] == evaluate(gold, output, "ICM")["ICM"]


# ------------------------------------------------------------------------------------------------ hand cases
def test_flat_mono_label_icm_by_hand():
    """IC(A) = log2(4/2), IC(B) = IC(C) = log2 4; a hit earns IC, a miss loses IC(out) + IC(gold) (α = 2, β = 3),
    an unanswered item loses IC(gold)."""
    gold = mono("1: A\n2: A\n3: B\n4: C", gold=True)
    output = mono("1: A\n2: B\n3: B")
    expected = (1 + (-2 - 1) + 2 + (0 + 2 * 2 - 3 * 2)) / 4
    assert evaluate(gold, output, "ICM")["ICM"] == expected == -0.5
    assert evaluate(gold, gold, "ICM")["ICM"] == (1 + 1 + 2 + 2) / 4
    assert evaluate(gold, output, "ICM-Norm")["ICM-Norm"] == pytest.approx((-0.5 + 1.5) / 3)


def test_hierarchical_icm_by_hand():
    """Tree P → {S1, S2}, Q. Gold S1, S1, S2, Q: P(S1) = 2/4, P(S2) = 1/4, P(P) = 3/4, P(Q) = 1/4. A class stands for
    its ancestors: IC({S1, S2}) = IC(S1) + IC(S2) − IC(P); IC({P, S2}) = IC(S2)."""
    tree = {"P": ["S1", "S2"], "Q": []}
    gold = mono("1: S1\n2: S1\n3: S2\n4: Q", gold=True, hierarchy=tree)
    output = mono("1: S1\n2: S2\n3: P\n4: S1", hierarchy=tree)
    s1, s2, p, q = LOG(4 / 2), LOG(4), LOG(4 / 3), LOG(4)
    items = [4 * s1 - 3 * s1,                                # right
             2 * s2 + 2 * s1 - 3 * (s1 + s2 - p),            # a sibling: the parent is shared
             2 * p + 2 * s2 - 3 * s2,                        # the parent of the gold's class
             2 * s1 + 2 * q - 3 * (s1 + q)]                  # another branch: nothing shared
    assert evaluate(gold, output, "ICM")["ICM"] == pytest.approx(sum(items) / 4, abs=1e-12)
    e = wb.explain(gold, output, "ICM")
    assert e.contributions["IC(union)"].tolist() == pytest.approx([s1, s1 + s2 - p, s2, s1 + q])


def test_cem_by_hand():
    """Amigó et al., ACL 2020: prox(a, b) = −log2((n_a/2 + Σ_{between} n_c + n_b)/N), CEM = Σ prox(out, gold) /
    Σ prox(gold, gold). Gold neg, neu, neu, pos (N = 4)."""
    gold = mono("1: neg\n2: neu\n3: neu\n4: pos", gold=True, classes=["neg", "neu", "pos"])
    own = 3 + 2 + 2 + 3  # −log2(0.5/4), −log2(1/4) twice, −log2(0.5/4)
    assert evaluate(gold, mono("1: neu\n2: neu\n3: neu\n4: pos"), "CEM")["CEM"] == (1 + 2 + 2 + 3) / own
    far = -LOG((0.5 + 2 + 1) / 4)  # pos for neg: half of pos, all of neu in between, and neg
    assert evaluate(gold, mono("1: pos\n2: neu\n3: neu"), "CEM")["CEM"] == pytest.approx((far + 2 + 2) / own)
    assert evaluate(gold, gold, "CEM(order=pos<neu<neg)")["CEM(order=pos<neu<neg)"] == 1.0
    with pytest.raises(ClassificationInputError, match="CEM needs the order of the classes"):
        evaluate(mono("1: a\n2: b", gold=True), mono("1: a"), "CEM")
    assert evaluate(mono("1: 1\n2: 3", gold=True), mono("1: 3\n2: 3"), "CEM")["CEM"] == pytest.approx(
        (-LOG((0.5 + 1) / 2) + 2) / 4)  # numeric labels order themselves; the miss keeps prox(3, 1), the hit 2 bits


def brute_force_cem(gold: dict, output: dict, order: list[str]) -> float:
    """CEM^ORD item by item, counting the gold's items between two classes one by one (the reading of the
    public implementation hovinh/closeness-evaluation-measure, src/CEM.py: half the output's class, every class
    strictly between, all of the gold's)."""
    n = len(gold)
    count = {c: sum(v == c for v in gold.values()) for c in order}

    def prox(a: str, b: str) -> float:
        low, high = sorted((order.index(a), order.index(b)))
        between = sum(count[c] for c in order[low + 1:high])
        mass = count[a] / 2 + (between + count[b] if a != b else 0)
        return -LOG(mass / n)

    kept = sum(prox(output[item], gold[item]) for item in gold if output.get(item))
    return kept / sum(prox(gold[item], gold[item]) for item in gold)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_cem_equals_the_item_by_item_reading(data):
    order = ["vneg", "neg", "neu", "pos", "vpos"]
    items = [f"i{k}" for k in range(data.draw(st.integers(1, 9)))]
    gold = {item: data.draw(st.sampled_from(order)) for item in items}
    output = {item: data.draw(st.sampled_from(order + [""])) for item in items}
    value = evaluate(Labelling.of(gold, gold=True, classes=order), Labelling.of(output), "CEM")["CEM"]
    assert value == pytest.approx(brute_force_cem(gold, output, order), abs=1e-12)


def test_soft_measures_by_hand():
    gold = Labelling.parse("1: {A: 1, B: 0}\n2: {A: 0.5, B: 0.5}", gold=True)
    output = Labelling.parse("1: {A: 0.75, B: 0.25}")
    g1 = np.array([1, 0.001]) / 1.001
    ce = -(g1 * np.log2([0.75, 0.25])).sum() - (0.5 * np.log2([0.5, 0.5])).sum()  # item 2 unanswered: uniform
    assert evaluate(gold, output, "CrossEntropy")["CrossEntropy"] == pytest.approx(ce / 2, abs=1e-12)
    assert evaluate(gold, output, "MAE")["MAE"] == pytest.approx(((0.25 + 0.25) / 2 + (0.5 + 0.5) / 2) / 2)


def test_macro_and_per_class_precision_recall_f():
    gold = mono("1: A\n2: A\n3: B\n4: C", gold=True)
    output = mono("1: A\n2: B\n3: B\n5: C")  # item 5 is not in the gold: a prediction, and a wrong one
    values = evaluate(gold, output, ["Pr", "Re", "FMeasure", "Pr(label=C)", "Re(label=A)", "FMeasure(label=B)",
                                     "FMeasure(alpha=1)", "SP"])
    assert values["Pr"] == pytest.approx((1 + 0.5 + 0) / 3) and values["Re"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert values["Pr(label=C)"] == 0 and values["Re(label=A)"] == 0.5
    assert values["FMeasure(label=B)"] == pytest.approx(2 / 3) and values["FMeasure(alpha=1)"] == values["Pr"]
    assert values["SP"] == 2 / 4


@pytest.mark.parametrize("measure", ["Pr", "Re", "FMeasure"])
def test_a_label_no_class_of_the_topic_has_is_refused_naming_the_classes(measure):
    """Audit (issue 38): ``Pr(label=Z)`` of a class neither side names, nor the gold declares, scored NaN, as a
    typo would; it is refused, naming the label and the classes the topic knows. A declared class the topic lacks
    is a class: NaN where the measure is undefined for it (Pr: the output never says it)."""
    gold = mono("1: A\n2: A\n3: B", gold=True)
    output = mono("1: A\n2: B\n5: C")
    with pytest.raises(ParameterError, match=rf"^{measure}: label must be one of A, B, C, got 'Z'$"):
        evaluate(gold, output, f"{measure}(label=Z)")
    declared = mono("1: A\n2: A\n3: B", gold=True, classes=["A", "B", "D"])
    assert math.isnan(evaluate(declared, output, f"{measure}(label=D)")[f"{measure}(label=D)"])
    with pytest.raises(ParameterError, match=rf"^{measure}: label must be one of A, B, C, D, got 'Z'$"):
        wb.explain(declared, output, f"{measure}(label=Z)")


def test_multi_label_icm_without_a_hierarchy_is_refused_as_pyevall_reports_none():
    """Audit (issue 38): PyEvALL reports no value for multi-label ICM without a hierarchy (its precondition: not
    implemented), where the workbench used to compute the flat tree's; now it refuses, saying what to give. Given
    the flat tree {c: []} it is ICM over independent classes (tests/test_classification_pyevall.py: PyEvALL's)."""
    gold = Labelling.parse("1: [A, B]\n2: [A]", gold=True)
    output = Labelling.parse("1: [A]\n2: [B]")
    for measure in ("ICM", "ICM-Norm"):
        with pytest.raises(ClassificationInputError, match="ICM of multi-label classes needs a class hierarchy, as "
                                                           "in PyEvALL"):
            evaluate(gold, output, measure)
    flat = {"A": [], "B": []}
    a, b = LOG(2 / 2), LOG(2 / 1)
    value = evaluate(Labelling.parse("1: [A, B]\n2: [A]", gold=True, hierarchy=flat),
                     Labelling.parse("1: [A]\n2: [B]", hierarchy=flat), "ICM")["ICM"]
    assert value == pytest.approx(((2 * a + 2 * (a + b) - 3 * (a + b)) + (2 * b + 2 * a - 3 * (a + b))) / 2)


def test_soft_icm_of_a_class_whose_gold_weight_never_varies_is_the_normals_limit():
    """σ = 0 (PyEvALL's NormalDist raises): below μ the class is certain (0 bits), at μ half (1 bit), above it
    impossible (log2 |G|, as PyEvALL gives an unknown class)."""
    gold = Labelling.parse("1: {A: 0.5, B: 0.5}\n2: {A: 0.5, B: 0.5}", gold=True)
    stats = icm_kernels.weight_statistics(pair(gold, gold))
    weights = np.array([[0.25, 0.5, 0.75]])
    assert icm_kernels.soft_information(np.zeros_like(weights, dtype=int), weights, stats).tolist() == [[0, 1, 1]]
    stats_four = icm_kernels.WeightStatistics(stats.mean, stats.deviation, 4)
    assert icm_kernels.soft_information(np.zeros((1, 1), dtype=int), np.array([[0.9]]), stats_four)[0, 0] == 2


def test_an_organization_reads_as_labels_of_its_levels():
    gold = Organization.from_filtering(["d1", "d2"], ["d3", "d4"])
    output = Organization.from_filtering(["d1", "d3"], ["d2", "d4"])
    as_labels = Labelling.from_organization(gold, gold=True), Labelling.from_organization(output)
    assert as_labels[0].format() == "d1: 1\nd2: 1\nd3: rest\nd4: rest" and as_labels[0].classes == ("1", "rest")
    assert evaluate(gold, output, ["ICM", "Acc", "CEM"]) == evaluate(*as_labels, ["ICM", "Acc", "CEM"])
    with pytest.raises(ClassificationInputError, match="unlimited tail"):
        evaluate(Organization.from_ranking(["d1"]), output, "Acc")


# ------------------------------------------------------------------------- ICM's closed form against the recursion
TREES = [{"P": ["S1", "S2"], "Q": []}, TREE.to_nested(), {"A": [], "B": [], "C": []},
         {"R": {"A": {"A1": ["A11", "A12"], "A2": []}, "B": ["B1"]}}]


def _paths(tree: ClassTree) -> dict[str, list[str]]:
    return {c: list(reversed(tree.ancestors(c))) for c in tree.classes}


def recursive_ic(items: list, ic, paths, soft: bool) -> float:
    """PyEvALL's IC of a class set: IC(c₁) + IC(rest) − IC(deepest common ancestors of c₁ with the rest), the
    common ancestor of two weighted classes carrying the smaller weight, a union of weighted classes the larger."""
    if not items:
        return 0.0
    head, rest = items[0], items[1:]
    common: dict[str, float] = {}
    for other in rest:
        a, b = (head[0], other[0]) if soft else (head, other)
        shared = [x for x in paths[a] if x in paths[b]]
        if shared:
            weight = min(head[1], other[1]) if soft else 1.0
            common[shared[-1]] = max(common.get(shared[-1], 0.0), weight)
    below = list(common.items()) if soft else list(common)
    return ic(head) + recursive_ic(rest, ic, paths, soft) - recursive_ic(below, ic, paths, soft)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TREES), st.data())
def test_icm_closed_form_equals_pyevalls_recursion_in_any_order(nested, data):
    tree = ClassTree.from_nested(nested)
    classes = list(tree.classes)
    gold = {f"i{k}": data.draw(st.lists(st.sampled_from(classes), unique=True, min_size=1, max_size=3))
            for k in range(data.draw(st.integers(1, 5)))}
    chosen = data.draw(st.lists(st.sampled_from(classes), unique=True, min_size=1, max_size=4))
    p = pair(Labelling.of(gold, gold=True, hierarchy=tree), Labelling.of({"x": chosen}, hierarchy=tree))
    information = icm_kernels.class_information(p)
    row = np.zeros((1, len(p.classes)), dtype=bool)
    row[0, [p.classes.index(c) for c in chosen]] = True
    closed = icm_kernels.set_information(row, information, p.parent)[0]
    paths = _paths(tree)
    for order in itertools.islice(itertools.permutations(chosen), 6):
        assert recursive_ic(list(order), lambda c: information[p.classes.index(c)], paths, False) == \
            pytest.approx(closed, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TREES), st.data())
def test_soft_icm_closed_form_equals_pyevalls_recursion_in_any_order(nested, data):
    tree = ClassTree.from_nested(nested)
    classes = list(tree.classes)
    weight = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])
    gold = {f"i{k}": data.draw(st.dictionaries(st.sampled_from(classes), weight, min_size=1, max_size=3))
            for k in range(data.draw(st.integers(2, 6)))}
    chosen = data.draw(st.dictionaries(st.sampled_from(classes), weight, min_size=1, max_size=4))
    options = dict(hierarchy=tree, distribution=False)
    p = pair(Labelling.of(gold, gold=True, **options), Labelling.of({"x": chosen}, **options))
    stats = icm_kernels.weight_statistics(p)
    involved = {a for c in chosen for a in tree.ancestors(c)}
    if any(stats.deviation[p.classes.index(c)] == 0 for c in involved):
        return  # PyEvALL's NormalDist raises there: the limit is tested above

    def ic(entry):  # PyEvALL's get_prob_class, through statistics.NormalDist
        label, w = entry
        column = p.classes.index(label)
        if w == 0:
            return 0.0
        chance = 1 - NormalDist(stats.mean[column], stats.deviation[column]).cdf(w)
        return -LOG(1 / stats.n) if chance == 0 else -LOG(chance)

    row = np.zeros((1, len(p.classes)))
    for label, w in chosen.items():
        row[0, p.classes.index(label)] = w
    closed = icm_kernels.soft_set_information(row, stats, p.parent)[0]
    for order in itertools.islice(itertools.permutations(chosen.items()), 6):
        assert recursive_ic(list(order), ic, _paths(tree), True) == pytest.approx(closed, abs=1e-9)


# --------------------------------------------------------------------------------------------------- readers
def write_json(path, records) -> None:
    path.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n", encoding="utf-8")


def write_delimited(path, records, delimiter: str, header: bool = True) -> None:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    if header:
        writer.writerow(["test_case", "id", "value"])
    for r in records:
        value = r["value"] if isinstance(r["value"], str) else json.dumps(r["value"])
        writer.writerow([r["test_case"], r["id"], value])
    path.write_text(out.getvalue(), encoding="utf-8")


RECORDS = [{"test_case": "T1", "id": "a", "value": ["A", "B"]}, {"test_case": "T1", "id": "b", "value": ["B"]},
           {"test_case": "T2", "id": "a", "value": ["A"]}]


@pytest.mark.parametrize("form", ["json", "tsv", "csv", "tsv-no-header"])
def test_json_tsv_and_csv_read_alike(tmp_path, form):
    path = tmp_path / f"gold.{form}"
    if form == "json":
        write_json(path, RECORDS)
    else:
        write_delimited(path, RECORDS, "\t" if form.startswith("tsv") else ",", header=form != "tsv-no-header")
    topics = read_pyevall(path, gold=True)
    assert list(topics) == ["T1", "T2"] and topics["T1"].kind == "multi"
    assert topics["T1"].format() == "a: [A, B]\nb: [B]" and topics["T2"].format() == "a: [A]"


@st.composite
def record_files(draw):
    kind = draw(st.sampled_from(["mono", "multi", "soft"]))
    names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1,
                    max_size=4).filter(lambda t: t.strip() == t and t.lower() not in ("nan", "none", "null"))
    records = []
    for topic in draw(st.lists(names, unique=True, min_size=1, max_size=3)):
        for item in draw(st.lists(names, unique=True, min_size=1, max_size=4)):
            labels = draw(st.lists(names.filter(lambda t: t[0] not in "[{"), unique=True, min_size=1, max_size=3))
            value = labels[0] if kind == "mono" else labels if kind == "multi" else {
                label: 1 / len(labels) for label in labels}
            records.append({"test_case": topic, "id": item, "value": value})
    return records


@settings(max_examples=60, deadline=None)
@given(record_files(), st.sampled_from(["json", "tsv", "csv"]))
def test_any_records_read_back_as_written(records, form):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gold"
        if form == "json":
            write_json(path, records)
        else:
            write_delimited(path, records, "\t" if form == "tsv" else ",")
        topics = read_pyevall(path, gold=True, format=form)
    read = [(topic, item, labelling[item]) for topic, labelling in topics.items() for item in labelling]
    expected = [(r["test_case"], r["id"], tuple(r["value"]) if isinstance(r["value"], list) else r["value"])
                for r in records]
    assert read == expected


@pytest.mark.parametrize(("text", "error", "message"), [
    ('[{"test_case": "1", "id": "1", "value": "A"},\n {"test_case": "1", "id": "1", "value": "B"}]',
     RepeatedIdError, r"gold\.json, line 2, test case '1', id '1': given again \(first on line 1\)"),
    ('[{"test_case": "1", "id": "1", "value": ""}]', EmptyLabelError, r"gold\.json, line 1, test case '1', id '1': "
                                                                      r"a gold item needs a class"),
    ('[{"test_case": "1", "id": "1", "value": []}]', EmptyLabelError, r"line 1, test case '1', id '1'"),
    ('[{"test_case": "1", "id": "1", "value": "A"},\n\n {"test_case": "1", "id": "2", "value": ["A"]}]',
     MixedKindsError, r"line 3, test case '1', id '2': a multi value where line 1 holds a mono one"),
    ('[{"test_case": "1", "id": "1", "value": {"A": 0.5, "B": 0.6}}]', ProbabilityError,
     r"line 1, test case '1', id '1': the weights sum to 1\.1, not 1 \(tolerance 0\.001\)"),
    ('[{"test_case": "1", "id": "1", "value": {"A": 1.5}}]', ProbabilityError, r"weight of 'A' is 1\.5"),
    ('[{"test_case": "1", "id": "1", "value": null}]', LabellingError, r"id '1': value null is not a class"),
    ('[{"test_case": "1", "id": "1", "value": 3}]', LabellingError, r"PyEvALL's ranking value"),
    ('[{"test_case": "1", "id": "1", "value": ["A", "A"]}]', LabellingError, r"class 'A' given twice"),
    ('[{"test_case": "1", "id": 1, "value": "A"}]', PyEvALLFormatError, r"line 1: id is a non-empty string, got 1"),
    ('[{"test_case": "1", "value": "A"}]', PyEvALLFormatError, r"line 1: a record has exactly .* \(missing id\)"),
    ('[{"test_case": "1", "id": "1", "value": "A"} {"x": 1}]', PyEvALLFormatError, r"expected ',' or ']'"),
    ("[{\"test_case\": \"1\", \"id\": \"1\",\n \"value\": 'A'}]", PyEvALLFormatError,
     r"gold\.json, line 2, column 11: not JSON"),
    ("sasdf\nasdf", PyEvALLFormatError, r"a row has 3 CSV columns .* got 1"),
    ("", PyEvALLFormatError, r"gold\.json: empty file"),
    ("1\t1\tA\n1\t1\tB\n", RepeatedIdError, r"line 2, test case '1', id '1': given again \(first on line 1\)"),
    ("1\t1\tnull\n", EmptyLabelError, r"line 1, test case '1', id '1'"),
    ("1\t1\t[A, B]\n", LabellingError, r"'\[A, B\]' looks like a JSON list or object but is not one"),
    ("1\t1\t{\"A\": 1}\n1\t2\tB\n", MixedKindsError, r"line 2, test case '1', id '2'"),
])
def test_bad_files_are_refused_naming_file_line_and_id(tmp_path, text, error, message):
    path = tmp_path / "gold.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(error, match=message):
        read_pyevall(path, gold=True)


def test_hierarchies_labels_outside_them_and_trees_that_are_not(tmp_path):
    (tmp_path / "tree.json").write_text(json.dumps({"P": ["S1", "S2"], "Q": {"Q1": ["Q11"]}}))
    tree = read_hierarchy(tmp_path / "tree.json")
    assert tree.ancestors("Q11") == ("Q11", "Q1", "Q") and tree.to_nested() == {"P": ["S1", "S2"],
                                                                                 "Q": {"Q1": ["Q11"]}}
    gold = tmp_path / "gold.tsv"
    gold.write_text("1\ta\tS1\n1\tb\tX\n")
    with pytest.raises(LabelNotInHierarchyError, match=r"gold\.tsv, line 2, test case '1', id 'b': class 'X' is not"):
        read_pyevall(gold, gold=True, hierarchy=tree)
    output = tmp_path / "out.tsv"
    output.write_text("1\ta\tZ\n")
    with pytest.raises(LabelNotInHierarchyError, match="output, id 'a': class 'Z' is not in the gold's hierarchy"):
        evaluate(mono("a: S1", gold=True, hierarchy=tree), mono("a: Z"), "ICM")
    for nested, message in (({"P": ["S1"], "Q": ["S1"]}, "class 'S1' is under 'P' and again under 'Q'"),
                            ({"P": {"P": []}}, "class 'P' is at the top and again under 'P'"),
                            (["P"], "expected a dict of classes"), ({"P": [3]}, "a class is a non-empty string")):
        with pytest.raises(HierarchyError, match=message):
            ClassTree.from_nested(nested)
    with pytest.raises(HierarchyError, match="form a cycle"):
        ClassTree({"A": "B", "B": "A"})


def test_an_empty_output_value_is_an_unanswered_item(tmp_path):
    """PyEvALL drops an empty output value with a warning: the item is then unanswered, as if left out."""
    (tmp_path / "gold.tsv").write_text("1\ta\tA\n1\tb\tB\n")
    (tmp_path / "empty.tsv").write_text("1\ta\tA\n1\tb\t\n")
    (tmp_path / "short.tsv").write_text("1\ta\tA\n")
    results = read_pyevall_campaign(tmp_path / "gold.tsv", [tmp_path / "empty.tsv", tmp_path / "short.tsv"]).evaluate(
        ["Acc", "SP", "ICM", "Pr"], progress=False)
    table = results.pivot(index="measure", columns="system", values="value")
    assert (table["empty"] == table["short"]).all() and table.loc["SP", "empty"] == 1.0


def test_two_outputs_with_one_name_are_refused(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.tsv").write_text("1\ta\tA\n")
    with pytest.raises(PyEvALLFormatError, match="two outputs are named 'run'"):
        read_pyevall_campaign(tmp_path / "a" / "run.tsv", [tmp_path / "a" / "run.tsv", tmp_path / "b" / "run.tsv"])


# -------------------------------------------------------------------------------------- campaigns and explain
def soft_campaign() -> wb.Campaign:
    gold = {"t1": Labelling.parse("1: {A: 0.8, B: 0.2}\n2: {A: 0.1, B: 0.9}\n3: {A: 0.5, B: 0.5}", gold=True),
            "t2": Labelling.parse("1: {A: 1, B: 0}\n2: {A: 0.3, B: 0.7}", gold=True)}
    good = {"t1": Labelling.parse("1: {A: 0.7, B: 0.3}\n2: {A: 0.2, B: 0.8}\n3: {A: 0.5, B: 0.5}"),
            "t2": Labelling.parse("1: {A: 0.9, B: 0.1}\n2: {A: 0.3, B: 0.7}")}
    bad = {"t1": Labelling.parse("1: {A: 0.2, B: 0.8}\n2: {A: 0.9, B: 0.1}"),
           "t2": Labelling.parse("1: {A: 0, B: 1}\n2: {A: 0.9, B: 0.1}")}
    return wb.Campaign(gold, {"good": good, "bad": bad})


def test_uir_reads_that_lower_cross_entropy_is_better():
    results = soft_campaign().evaluate(["ICM-Soft", "CrossEntropy", "MAE"], progress=False)
    means = results.groupby(["system", "measure"])["value"].mean().unstack()
    assert (means.loc["good", ["CrossEntropy", "MAE"]] < means.loc["bad", ["CrossEntropy", "MAE"]]).all()
    assert uir(results, "good", "bad", ["ICM-Soft", "CrossEntropy", "MAE"]) == 1.0
    assert uir(results, "bad", "good", ["ICM-Soft", "CrossEntropy"]) == -1.0


def test_a_missing_test_case_scores_the_worst_value_or_is_refused():
    campaign = soft_campaign()
    partial = wb.Campaign(campaign.gold, {"good": {"t1": campaign.runs["good"]["t1"]}})
    with pytest.warns(wb.WorkbenchWarning):
        mae = partial.evaluate("MAE", progress=False).set_index("topic")["value"]
    assert mae["t2"] == 1.0
    with pytest.raises(CampaignError, match="'ICM-Soft' has no worst value"):
        partial.evaluate("ICM-Soft", progress=False)
    with pytest.raises(CampaignError, match="system 'good', topic 't1': ClassificationInputError: Acc is defined "
                                            "for mono-label classification"):
        campaign.evaluate("Acc", progress=False)


def test_a_campaign_explains_icm_per_item_with_its_information_terms():
    campaign = read_from_cases()
    e = campaign.explain("SYS", "3", "ICM")
    assert list(e.contributions.columns) == ["topic", "item", "gold", "output", "IC(output)", "IC(gold)",
                                             "IC(union)", "contribution", "lost"]
    assert e.contributions["contribution"].sum() == pytest.approx(e.score)
    whole = campaign.explain("SYS", None, "ICM")
    assert whole.scores.tolist() == pytest.approx(campaign.evaluate("ICM", progress=False)["value"].tolist())


def read_from_cases() -> wb.Campaign:
    cases = published_cases()
    return wb.Campaign({str(n): g for n, (g, _) in cases.items()}, {"SYS": {str(n): o for n, (_, o) in cases.items()}})


@settings(max_examples=40, deadline=None)
@given(labelling_pairs())
def test_explanations_add_up_to_every_classification_measure(pair_):
    gold, output = pair_
    for name in ("ICM", "ICM-Norm", "Acc", "Pr", "Re", "FMeasure", "ICM-Soft", "CrossEntropy", "MAE", "CEM"):
        try:
            value = evaluate(gold, output, name)[name]
        except ClassificationInputError:
            continue
        e = wb.explain(gold, output, name)
        total = e.contributions["contribution"].sum(skipna=False) if e.is_sum else e.combine()
        assert (math.isnan(value) and math.isnan(total)) or total == pytest.approx(value, abs=1e-12), name


# --------------------------------------------------------------------------------------------- the analyses
def test_the_constraint_checker_runs_classification_measures_on_binary_cases():
    """A classification measure is checked against the filtering constraints, its cases read as binary labels:
    ICM and macro recall are strictly monotonic; accuracy fails non-informativeness (the all-majority output wins)."""
    table = check_constraints("ICM", random_cases=10).set_index("constraint")
    assert table.loc["strict monotonicity", "satisfied"] and table["task"].eq("filtering").all()
    accuracy = check_constraints("Acc", "non-informativeness fixed quality", random_cases=10).iloc[0]
    assert not accuracy.satisfied and "two non-informative outputs score differently" in accuracy.counterexample
    assert check_constraints("Re", "non-informativeness fixed quality", random_cases=10).iloc[0].satisfied


def test_measure_listing_and_spellings():
    table = wb.measures().set_index("name")
    classification = table[table.task == "classification"]
    assert list(classification.index) == ["Acc", "SP", "CohenKappa", "Pr", "Re", "FMeasure", "ICM", "ICM-Norm",
                                          "ICM-Soft", "ICM-Soft-Norm", "CrossEntropy", "MAE", "CEM"]
    assert (classification.explained != "").all()
    assert str(wb.parse_measure("ICMNorm(beta=2.5)")) == "ICM-Norm(beta=2.5)"
    assert str(wb.parse_measure("Pr(label=TRUE)")) == "Pr(label=TRUE)"
    with pytest.raises(wb.UnknownMeasureError, match="parameter alpha must be in"):
        wb.parse_measure("FMeasure(alpha=2)")
    assert pd.isna(evaluate(mono("1: A", gold=True), mono("1: A"), "ICM-Norm")["ICM-Norm"])  # ICM(g,g) = 0


# ------------------------------------------------------------------------------------------------- the editor
def test_the_labelling_editor_scores_each_edit_and_keeps_the_last_valid_labelling():
    from workbench.widgets.labelling import LabellingEditor

    editor = LabellingEditor("1: A\n2: A\n3: B", "1: A\n2: B", ["Acc", "ICM", "MAE"])
    assert "<td>0.3333</td>" in editor.scores.value and "MAE is defined for soft-label" in editor.scores.value
    editor.areas["output"].value = "1: A\n2: A\n3: B"  # as the front end sets it
    assert "<td>1.0000</td>" in editor.scores.value and "IC(union)" in editor.rows.value
    editor.areas["gold"].value = "1: A\n1: B"
    assert "given again (first on line 1)" in editor.notes["gold"].value
    assert "<td>1.0000</td>" in editor.scores.value  # the last valid gold stays in force

