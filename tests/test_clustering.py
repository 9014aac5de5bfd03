"""Clustering measures: WePS scorer reference values, scikit-learn, the bcubed package, PyEvALL's formula."""

import csv
import math
import random

import bcubed as bcubed_pkg
import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import shared_dataset
from workbench import evaluate
from workbench.data.weps import read_weps_clustering, read_weps_runs
from workbench.errors import ParameterError
from workbench.metrics import clustering as C
from workbench.metrics.registry import MeasureParameterError, parse
from workbench.metrics.reliability import reliability_sensitivity
from workbench.model import Organization

WEPS_MEASURES = ("P", "IP", "FMeasure_0.5_P-IP", "BEP", "BER", "FMeasure_0.5_BEP-BER")
WEPS_NAMES = {"P": "Purity", "IP": "InversePurity", "FMeasure_0.5_P-IP": "F(P,IP)", "BEP": "BCubed-P",
              "BER": "BCubed-R", "FMeasure_0.5_BEP-BER": "BCubed-F", "PJ": "Jaccard", "PR": "Rand",
              "PM": "FM"}
WEPS_PARAMS = {"PM": "convention=weps, "}


def org(*clusters):
    return Organization.from_clustering([list(c) for c in clusters])


def read_eval(path):
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    return {r[0]: dict(zip(rows[0][1:], map(float, r[1:]), strict=True)) for r in rows[1:]}


def baseline(kind, gold):
    docs = sorted(gold.prioritised)
    clusters = {"ALL_IN_ONE": [docs], "ONE_IN_ONE": [[d] for d in docs],
                "COMBINED": [docs] + [[d] for d in docs]}[kind]
    return Organization.from_clustering(clusters)


def weps_scores(gold, output, unmatched="weps"):
    names = [f"{WEPS_NAMES[m]}({WEPS_PARAMS.get(m, '')}unmatched={unmatched})" for m in WEPS_NAMES]
    values = evaluate(gold, output, names)
    return dict(zip(WEPS_NAMES, values.values(), strict=True))


def agrees(value, reference):
    """The scorer prints 2 decimals (half up)."""
    return abs(math.floor(value * 100 + 0.5 + 1e-9) / 100 - reference) < 1e-9


# ------------------------------------------------------------------------------ WePS reference values
@pytest.mark.parametrize("kind", ["ALL_IN_ONE", "ONE_IN_ONE", "COMBINED"])
def test_weps2007_baselines_equal_the_official_scorer(kind):
    """weps2007/reference_<kind>_BASELINE_per_topic.eval: P, IP, F_0.5(P,IP), BEP, BER, F_0.5(BEP,BER), PJ,
    PR, PM to 2 decimals on the five names (Michael_Howard overlaps: IP normalised by gold occurrences)."""
    gold = read_weps_clustering(shared_dataset("weps2007", "truth_files"))
    reference = read_eval(shared_dataset("weps2007", f"reference_{kind}_BASELINE_per_topic.eval"))
    for topic, g in gold.items():
        scores = weps_scores(g, baseline(kind, g))
        for measure, value in scores.items():
            assert agrees(value, reference[topic][measure]), (topic, measure, value)


@pytest.mark.parametrize("kind", ["ALL_IN_ONE", "ONE_IN_ONE", "COMBINED"])
def test_weps2_baselines_equal_the_official_scorer(kind):
    """weps2/reference_scores/<kind>_BASELINE.eval, for the two names whose gold is here."""
    gold = read_weps_clustering(shared_dataset("weps2", "gold_standard"))
    reference = read_eval(shared_dataset("weps2", "reference_scores", f"{kind}_BASELINE.eval"))
    assert set(gold) == {"AMANDA_LENTZ", "HELEN_THOMAS"}
    for topic, g in gold.items():
        for measure, value in weps_scores(g, baseline(kind, g)).items():
            assert agrees(value, reference[topic][measure]), (topic, measure, value)


def test_team_a_reproduced_by_the_weps_policy():
    """weps2007/reference_TEAM_A_per_topic.eval: TEAM_A clusters documents the gold discards and leaves
    gold documents out. unmatched='weps' reproduces all 30 required values (6 measures × 5 names), and the
    15 of the pair measures PJ, PR, PM too; the other policies do not."""
    gold = read_weps_clustering(shared_dataset("weps2007", "truth_files"))
    run = read_weps_runs(shared_dataset("weps2007", "systemsDir"))["TEAM_A"]
    reference = read_eval(shared_dataset("weps2007", "reference_TEAM_A_per_topic.eval"))
    counts = {}
    for policy in ("weps", "singletons"):
        counts[policy] = sum(
            agrees(weps_scores(g, run[topic], policy)[m], reference[topic][m])
            for topic, g in gold.items() for m in WEPS_MEASURES)
    assert counts["weps"] == 30
    assert counts["singletons"] < 30
    pairs = sum(agrees(weps_scores(g, run[t])[m], reference[t][m])
                for t, g in gold.items() for m in ("PJ", "PR", "PM"))
    assert pairs == 15
    with pytest.raises(C.ClusteringInputError, match="in the output but not in the gold"):
        C.contingency(gold["Abby_Watkins"], run["Abby_Watkins"], unmatched="strict")


# ----------------------------------------------------------------------------------- hand examples
def test_hand_computed_example():
    """gold {d1 d2} {d3}, output {d1 d2 d3}: P = 2/3, IP = 1; BCubed P = (2/3 + 2/3 + 1/3)/3 = 5/9, R = 1;
    pairs: tp 1, fp 2, fn 0, tn 0."""
    c = C.contingency(org(["d1", "d2"], ["d3"]), org(["d1", "d2", "d3"]))
    assert C.purity(c) == pytest.approx(2 / 3)
    assert C.inverse_purity(c) == 1.0
    b = C.bcubed(c)
    assert (b["precision"], b["recall"]) == (pytest.approx(5 / 9), 1.0)
    assert b["f"] == pytest.approx(1 / (0.5 / (5 / 9) + 0.5))
    assert C.pair_counts(c) == {"tp": 1, "fp": 2, "fn": 0, "tn": 0}
    assert C.rand(c) == pytest.approx(1 / 3)


def test_seed000_table3_clustering_example():
    """Amigó et al., SIGIR 2013, Table 3: gold {d1 d2 d3} {d4 d5 d6} d7, output {d1 d2} d3 {d4 d5 d6 d7}. By hand:
    BCubed P = (1 + 1 + 1 + 3·3/4 + 1/4)/7 = 5.5/7, R = (2/3 + 2/3 + 1/3 + 1 + 1 + 1 + 1)/7 = (17/3)/7,
    Purity = (2 + 1 + 3)/7, Inverse Purity = (2 + 3 + 1)/7."""
    gold = Organization.parse("{d1 d2 d3} {d4 d5 d6} d7\nrest:")
    out = Organization.parse("{d1 d2} d3 {d4 d5 d6 d7}\nrest:")
    c = C.contingency(gold, out)
    assert C.bcubed(c)["precision"] == pytest.approx(5.5 / 7)
    assert C.bcubed(c)["recall"] == pytest.approx(17 / 21)
    assert C.purity(c) == pytest.approx(6 / 7) and C.inverse_purity(c) == pytest.approx(6 / 7)


def test_seed000_table4_overlapping_example():
    """Amigó et al., SIGIR 2013, Table 4 (overlap: d4 in two gold classes, d6 and d7 in two output clusters): the item
    variant equals the bcubed package, the occurrence variant PyEvALL's formula; they differ here."""
    gold = Organization.parse("{d1 d2 d3} {d4 d5 d6} {d4 d7}\nrest:")
    out = Organization.parse("{d1 d2} d3 {d4 d5 d6 d7} {d6 d7}\nrest:")
    c = C.contingency(gold, out)
    item, occ = C.bcubed(c, "item"), C.bcubed(c, "occurrence")
    assert (item["precision"], item["recall"]) == pytest.approx(brute_item(gold, out))
    assert (occ["precision"], occ["recall"]) == pytest.approx(brute_occurrence(gold, out))
    assert item["precision"] != pytest.approx(occ["precision"])


def test_overlap_variants_differ_as_seed000_says():
    """Amigó et al., SIGIR 2013, §4.2: the item variant counts a document's relations once, the occurrence variant once
    per cluster. d1 and d2 together in two output clusters, once in the gold: every pair (self-pairs too) has min(cX=2,
    cG=1)/cX = 1/2, so both variants give precision 1/2, and recall min(2, 1)/1 = 1."""
    gold = org(["d1", "d2"])
    out = org(["d1", "d2"], ["d1", "d2"])
    item = C.bcubed(C.contingency(gold, out), variant="item")
    occ = C.bcubed(C.contingency(gold, out), variant="occurrence")
    assert item == occ == {"precision": 0.5, "recall": 1.0, "f": pytest.approx(2 / 3)}
    # A document in a large and a small cluster: the variants part.
    gold = org(["a", "b", "c"], ["x"])
    out = org(["a", "b", "c", "x"], ["x"])
    item = C.bcubed(C.contingency(gold, out), variant="item")["precision"]
    occ = C.bcubed(C.contingency(gold, out), variant="occurrence")["precision"]
    assert item == pytest.approx(brute_item(gold, out)[0])
    assert occ == pytest.approx(brute_occurrence(gold, out)[0])
    assert item != pytest.approx(occ)


# ------------------------------------------------------------------- independent implementations
def memberships(o):
    return {d: {i for i, c in enumerate(C._clusters(o)) if d in c} for d in o.prioritised}


def brute_item(gold, out):
    """The bcubed package (Amigó et al. 2009 extended BCubed, multiplicity per document)."""
    cd, ld = memberships(out), memberships(gold)
    return bcubed_pkg.precision(cd, ld), bcubed_pkg.recall(cd, ld)


def brute_occurrence(gold, out):
    """PyEvALL 0.2.11 ReliabilityBCubed / SensitivityBCubed, transcribed from its documented formula
    R = 1/|occ_pred| Σ_i Σ_{c∈C(i)} 1/|c| Σ_{j∈c} min(sX, sG)/sX over output documents the gold has (and S
    with roles swapped over every gold occurrence, a pair with a document the output lacks scoring 0).
    Checked against the installed PyEvALL on random cases outside this suite; PyEvALL additionally skips
    the self-pair inside clusters whose members all overlap, which this formula (and the workbench) does
    not."""
    cd, ld = memberships(out), memberships(gold)
    cd = {d: cs for d, cs in cd.items() if d in ld}
    out_clusters = [c & set(ld) for c in C._clusters(out)]
    gold_clusters = C._clusters(gold)

    def side(first, second, clusters):
        total = n = 0
        for d, cs in first.items():
            for k in cs:
                members = clusters[k]
                s = sum(min(len(first[d] & first[e]), len(second.get(d, set()) & second.get(e, set())))
                        / len(first[d] & first[e]) for e in members)
                total += s / len(members)
                n += 1
        return total / n if n else math.nan

    return side(cd, ld, out_clusters), side(ld, cd, gold_clusters)


def brute_weps(gold, out):
    """The WePS-1 scorer's BCubed as worked out from TEAM_A: averages over gold documents, neighbours among
    gold documents, a gold document the output lacks has precision 1 and recall 0."""
    cd, ld = memberships(out), memberships(gold)
    precision, recall = [], []
    for d in ld:
        if d not in cd:
            precision.append(1.0)
            recall.append(0.0)
            continue
        near = [e for e in ld if e in cd and cd[d] & cd[e]]
        precision.append(sum(min(len(cd[d] & cd[e]), len(ld[d] & ld[e])) / len(cd[d] & cd[e]) for e in near)
                         / len(near))
        near = [e for e in ld if ld[d] & ld[e]]
        recall.append(sum(min(len(cd[d] & cd.get(e, set())), len(ld[d] & ld[e])) / len(ld[d] & ld[e])
                          for e in near) / len(near))
    return sum(precision) / len(precision), sum(recall) / len(recall)


@st.composite
def unmatched_clusterings(draw):
    """Gold and output over different (overlapping) subsets of d0..d9, with overlap."""
    docs = [f"d{i}" for i in range(10)]
    sides = []
    for _ in range(2):
        members = draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
        k = draw(st.integers(1, 4))
        clusters = [set() for _ in range(k)]
        for d in members:
            for i in draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=min(2, k), unique=True)):
                clusters[i].add(d)
        sides.append(org(*[c for c in clusters if c]))
    return sides


@settings(max_examples=150, deadline=None)
@given(unmatched_clusterings())
def test_weps_policy_on_different_document_sets(pair):
    gold, out = pair
    c = C.contingency(gold, out)
    item, occ = C.bcubed(c, "item"), C.bcubed(c, "occurrence")
    assert (item["precision"], item["recall"]) == pytest.approx(brute_weps(gold, out), abs=1e-12)
    assert (occ["precision"], occ["recall"]) == pytest.approx(brute_occurrence(gold, out), abs=1e-12,
                                                              nan_ok=True)


def clusterings(max_docs=12, overlap=True):
    """Pairs of random clusterings of the same documents (with or without overlap)."""
    @st.composite
    def build(draw):
        n = draw(st.integers(1, max_docs))
        docs = [f"d{i}" for i in range(n)]
        sides = []
        for _ in range(2):
            k = draw(st.integers(1, 5))
            clusters = [set() for _ in range(k)]
            for d in docs:
                many = draw(st.integers(1, min(2, k))) if overlap else 1
                for i in draw(st.lists(st.integers(0, k - 1), min_size=many, max_size=many, unique=True)):
                    clusters[i].add(d)
            sides.append(org(*[c for c in clusters if c]))
        return sides
    return build()


@pytest.mark.parametrize(("variant", "reference"), [("item", brute_item), ("occurrence", brute_occurrence)],
                         ids=["item equals the bcubed package", "occurrence equals the PyEvALL formula"])
@settings(max_examples=150, deadline=None)
@given(pair=clusterings())
def test_extended_bcubed_variants_equal_their_references(variant, reference, pair):
    gold, out = pair
    b = C.bcubed(C.contingency(gold, out), variant=variant)
    p, r = reference(gold, out)
    assert b["precision"] == pytest.approx(p, abs=1e-12)
    assert b["recall"] == pytest.approx(r, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(clusterings())
def test_occurrence_variant_equals_reliability_sensitivity_over_relatedness(pair):
    """Amigó et al., SIGIR 2013, §4.2: with uniform weights (finite rests), R∼ and S∼ are the occurrence-level
    BCubed."""
    gold, out = pair
    rs = reliability_sensitivity(gold, out)
    b = C.bcubed(C.contingency(gold, out), variant="occurrence")
    assert (b["precision"], b["recall"]) == pytest.approx((rs.r_relatedness, rs.s_relatedness), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(clusterings(overlap=False))
def test_variants_agree_without_overlap(pair):
    c = C.contingency(*pair)
    assert C.bcubed(c, "item") == pytest.approx(C.bcubed(c, "occurrence"))


label_pairs = st.integers(1, 40).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 5), min_size=n, max_size=n),
                        st.lists(st.integers(0, 5), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(label_pairs)
def test_flat_measures_equal_scikit_learn(labels):
    true, pred = labels
    c = C.contingency_from_labels(true, pred)
    assert C.nmi(c) == pytest.approx(skm.normalized_mutual_info_score(true, pred), abs=1e-12)
    assert C.mutual_information(c) == pytest.approx(skm.mutual_info_score(true, pred), abs=1e-12)
    assert C.adjusted_rand(c) == pytest.approx(skm.adjusted_rand_score(true, pred), abs=1e-12)
    assert C.rand(c) == pytest.approx(skm.rand_score(true, pred), abs=1e-12)
    assert C.fowlkes_mallows(c) == pytest.approx(skm.fowlkes_mallows_score(true, pred), abs=1e-12)
    h, comp, v = skm.homogeneity_completeness_v_measure(true, pred)
    assert C.homogeneity_completeness_v(c) == pytest.approx({"homogeneity": h, "completeness": comp, "v": v},
                                                            abs=1e-12)
    (tn, fp), (fn, tp) = skm.cluster.pair_confusion_matrix(true, pred) // 2
    assert C.pair_counts(c) == {"tp": tp, "fp": fp, "fn": fn, "tn": tn}


def test_organizations_and_labels_give_the_same_contingency():
    rng = random.Random(3)
    true = [rng.randint(0, 3) for _ in range(30)]
    pred = [rng.randint(0, 4) for _ in range(30)]
    docs = [f"d{i}" for i in range(30)]

    def as_org(labels):
        return org(*[[d for d, lab in zip(docs, labels, strict=True) if lab == k]
                     for k in sorted(set(labels))])

    a = C.contingency(as_org(true), as_org(pred))
    b = C.contingency_from_labels(true, pred)
    assert C.bcubed(a) == pytest.approx(C.bcubed(b))
    assert C.nmi(a) == pytest.approx(C.nmi(b)) and C.purity(a) == pytest.approx(C.purity(b))


# ------------------------------------------------------------------------------------ properties
MEASURES = ["Purity", "InversePurity", "F(P,IP)", "BCubed-P", "BCubed-R", "BCubed-F",
            "BCubed-P(variant=occurrence)", "BCubed-R(variant=occurrence)", "BCubed-F(variant=occurrence)",
            "NMI", "V-measure", "Homogeneity", "Completeness", "ARI", "Rand", "Jaccard", "FM"]


@settings(max_examples=100, deadline=None)
@given(clusterings(max_docs=10))
def test_every_measure_in_range_and_invariant_to_renaming_and_order(pair):
    gold, out = pair
    scores = evaluate(gold, out, MEASURES)
    overlap = C.contingency(gold, out).overlapping
    for name, value in scores.items():
        if name in ("NMI", "V-measure", "Homogeneity", "Completeness") and overlap:
            assert math.isnan(value)  # defined for partitions only
            continue
        low, high = parse(name).spec.range
        assert low - 1e-12 <= value <= high + 1e-12, (name, value)
    rename = {d: f"x{d[::-1]}" for d in gold.prioritised}

    def renamed(o, reverse=False):
        clusters = [[rename[d] for d in c] for c in C._clusters(o)]
        return org(*(clusters[::-1] if reverse else clusters))

    again = evaluate(renamed(gold, True), renamed(out, True), MEASURES)
    assert again == pytest.approx(scores, abs=1e-12, nan_ok=True)


@settings(max_examples=100, deadline=None)
@given(clusterings(max_docs=10))
def test_perfect_output_scores_the_maximum(pair):
    gold, _ = pair
    scores = evaluate(gold, gold, MEASURES)
    for name, value in scores.items():
        if name in ("NMI", "V-measure", "Homogeneity", "Completeness") and C.contingency(gold, gold).overlapping:
            assert math.isnan(value)
            continue
        if name == "FM" and C.pair_counts(C.contingency(gold, gold))["tp"] == 0:
            assert value == 0.0  # scikit-learn's convention: no pair together on either side
            continue
        assert value == pytest.approx(1.0), name


# ------------------------------------------------------------------------------ registry and input
def test_names_parse_distinctly_and_round_trip():
    names = ("F(P,IP)(alpha=0.25)", "BCubed-F(variant=occurrence, alpha=0.8)", "Purity(unmatched=strict)",
             "FM(convention=weps)")
    for name in names:
        assert str(parse(str(parse(name)))) == str(parse(name))
    assert parse("F(P,IP)(alpha=0.25)").params["alpha"] == 0.25
    assert parse("F(P,IP)").name == "F(P,IP)"
    with pytest.raises(MeasureParameterError, match="variant must be one of item, occurrence"):
        parse("BCubed-P(variant=items)")


def test_bad_input_is_named():
    with pytest.raises(ParameterError, match="^contingency: gold must be an Organization"):
        C.contingency({"d1": 1}, org(["d1"]))
    with pytest.raises(C.ClusteringInputError, match="3 items but labels_pred has 2"):
        C.contingency_from_labels([0, 1, 1], [0, 1])
    with pytest.raises(C.ClusteringInputError, match="labels_pred holds NaN at position 1"):
        C.contingency_from_labels([0, 1], [0.0, float("nan")])
    mixed = C.contingency_from_labels(["a", "b", "b"], [1, "x", "x"])
    assert C.rand(mixed) == 1.0
    with pytest.raises(ParameterError, match="^contingency: unmatched must be one of weps, singletons, strict"):
        C.contingency(org(["d1"]), org(["d1"]), unmatched="ignore")


def test_documents_on_one_side_only():
    """An output holding d9 (not in the gold) and missing d3: 'weps' keeps d9 as an impurity for Purity and
    ignores it in BCubed, where d3 has precision 1 and recall 0; 'singletons' drops d9 and adds {d3}."""
    gold = org(["d1", "d2"], ["d3"])
    out = org(["d1", "d2", "d9"])
    weps = C.contingency(gold, out)
    assert C.purity(weps) == pytest.approx(2 / 3)
    assert C.inverse_purity(weps) == pytest.approx(2 / 3)
    assert C.bcubed(weps)["precision"] == pytest.approx(1.0)
    assert C.bcubed(weps)["recall"] == pytest.approx(2 / 3)
    single = C.contingency(gold, out, unmatched="singletons")
    assert C.purity(single) == 1.0 and C.inverse_purity(single) == 1.0
    assert C.bcubed(single)["recall"] == 1.0


def test_empty_sides_give_nan_not_exceptions():
    empty = Organization.from_clustering([])
    some = org(["d1"])
    assert math.isnan(C.purity(C.contingency(some, empty)))
    b = C.bcubed(C.contingency(empty, some))
    assert math.isnan(b["precision"]) and math.isnan(b["recall"]) and math.isnan(b["f"])
    assert C.bcubed(C.contingency(some, empty))["f"] == 0.0  # recall 0 → F 0


def test_contingency_table_is_sparse_and_counts_occurrences():
    c = C.contingency(org(["a", "b"], ["b", "c"]), org(["a", "b", "c"]))
    assert c.overlapping
    assert c.table.toarray().tolist() == [[2, 2]]
    assert np.array_equal(c.gold_sizes, [2, 2]) and np.array_equal(c.output_sizes, [3])
