"""Reliability and Sensitivity (Amigó et al., SIGIR 2013, §3): the paper's examples, the subsumed tasks, the brute
force."""

from __future__ import annotations

import contextlib
import csv
import itertools
import math
import os
import random
import re
import threading
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests import rs_bruteforce
from tests.conftest import TABLE9_GOLD, TABLE9_OUTPUTS, shared_dataset
from tests.strategies import organizations
from workbench import Organization, RSScores, evaluate, reliability_sensitivity
from workbench.errors import ParameterError, ParameterTypeError
from workbench.metrics import relations
from workbench.metrics.reliability import position_weights

# ------------------------------------------------------------------------------------------ Table 9
# Computed under ../shared/design/RS-SEMANTICS.md ("Table 9 under this reading"), R≺ S≺ R∼ S∼.
TABLE9_COMPUTED = [
    (1, 1, 1, 0.9722),
    (1, 1, 1, 31 / 39),
    (1, 0.7752, 1, 0.7436),
    (0.9902, 0.7752, 0.9649, 0.7436),
    (0.6386, 0.5897, 1, 1),
]
# As printed in Amigó et al., SIGIR 2013, Table 9 (two decimals).
TABLE9_PRINTED = [
    (1, 1, 1, 0.97),
    (1, 1, 1, 0.8),
    (1, 0.86, 1, 0.74),
    (0.95, 0.85, 0.96, 0.74),
    (0.64, 0.59, 1, 1),
]
# The printed values no reading of the text reproduces at two decimals: (output, measure). Output 2's S∼
# (31/39 = 0.7949) matches only if "0.8" is read with one decimal; S≺ of outputs 3 and 4 must be equal under
# the paper's own formulas (d8 sits in the gold's tail) yet print 0.86 and 0.85 (RS-SEMANTICS.md, last part).
TABLE9_ERRATA = {(2, "S∼"), (3, "S≺"), (4, "R≺"), (4, "S≺")}


def _scores(text: str) -> RSScores:
    return reliability_sensitivity(Organization.parse(TABLE9_GOLD), Organization.parse(text), n=10, wn=0.8)


def _four(s: RSScores) -> tuple[float, float, float, float]:
    return s.r_priority, s.s_priority, s.r_relatedness, s.s_relatedness


@pytest.mark.parametrize("number", range(1, 6))
def test_table9_of_seed000_under_the_rs_semantics_reading(number):
    computed = _four(_scores(TABLE9_OUTPUTS[number - 1]))
    assert computed == pytest.approx(TABLE9_COMPUTED[number - 1], abs=1e-4)


def test_table9_sixteen_printed_values_round_to_the_computed_and_four_are_errata():
    mismatches = set()
    for number, (text, printed) in enumerate(zip(TABLE9_OUTPUTS, TABLE9_PRINTED, strict=True), start=1):
        for name, value, shown in zip(("R≺", "S≺", "R∼", "S∼"), _four(_scores(text)), printed, strict=True):
            if round(value, 2) != shown:
                mismatches.add((number, name))
    assert mismatches == TABLE9_ERRATA
    assert round(_scores(TABLE9_OUTPUTS[1]).s_relatedness, 1) == 0.8


def test_the_gold_scores_itself_perfectly():
    assert _four(reliability_sensitivity(Organization.parse(TABLE9_GOLD), Organization.parse(TABLE9_GOLD),
                                         n=10, wn=0.8)) == pytest.approx((1, 1, 1, 1), abs=1e-12)


def test_weights_follow_eq2_and_the_first_n_positions_weigh_wn():
    # c = (1 − 0.8)·10/0.8 = 2.5 (Amigó et al., SIGIR 2013, §3.1); ten singleton levels then carry exactly W_10 = 0.8.
    weights, tail = position_weights([1] * 10, c=2.5)
    assert weights.sum() == pytest.approx(0.8) and tail == pytest.approx(0.2)
    # A level of three shares the interval of three positions equally.
    shared, _ = position_weights([3], c=2.5)
    assert 3 * shared[0] == pytest.approx(1 - 2.5 / 5.5)


# ------------------------------------------------------------------------------- fast == brute force
_brute = rs_bruteforce.reliability_sensitivity


@settings(max_examples=300, deadline=None)
@given(organizations(), organizations(), st.sampled_from([1.0, 10.0, 1e6]) | st.floats(1, 1e6),
       st.sampled_from([1e-6, 1 - 2e-6, 1 - 1e-6]) | st.floats(1e-6, 1 - 1e-6))
def test_fast_engine_equals_brute_force_anywhere_in_the_domain(gold, output, n, wn):
    """Across the whole (n, W_n) domain, to 1e-9: with W_n near 1 the first level holds nearly all the mass and
    the engine's prefix-sum differences round by epsilon times that mass against the tiny mass of the rest
    (the oracle weighs positions in exact arithmetic); in [0.05, 0.95] the test above holds 1e-12."""
    fast = _four(reliability_sensitivity(gold, output, n=n, wn=wn))
    assert fast == pytest.approx(_brute(gold, output, n, wn, "tail"), abs=1e-9)


@settings(max_examples=600, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95),
       st.sampled_from(["tail", "singleton", "replab"]))
def test_fast_engine_equals_brute_force_with_tails(gold, output, n, wn, missing):
    fast = _four(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing))
    assert fast == pytest.approx(_brute(gold, output, n, wn, missing), abs=1e-12)


@settings(max_examples=400, deadline=None)
@given(organizations(finite=True), organizations(finite=True), st.sampled_from(["tail", "singleton", "replab"]))
def test_fast_engine_equals_brute_force_with_uniform_weights(gold, output, missing):
    fast = _four(reliability_sensitivity(gold, output, missing=missing))
    assert fast == pytest.approx(_brute(gold, output, missing=missing), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95), st.booleans(),
       st.sampled_from(["tail", "singleton", "replab"]))
def test_pairwise_paths_equal_the_general_kernels_to_a_few_ulps(gold, output, n, wn, weighted, missing):
    """The organizations drawn in this file are small: they go through the pairwise paths (a paper's example),
    the general kernels' computation in another order of summation (the knobs above set
    ``_PAIRWISE_OCCURRENCES = 0`` to reach the general paths). The four scores agree to 1e-14 (measured on 1,500
    draws: at most 1.8e-15 for R≺ S≺ and 3.3e-16 for R∼ S∼, the brute force's error no larger on one path than
    on the other)."""
    n, wn = (n, wn) if weighted or not (gold.finite and output.finite) else (None, None)
    pairwise = _four(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing))
    with mock.patch.object(relations, "_PAIRWISE_OCCURRENCES", 0):
        general = _four(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing))
    assert pairwise == pytest.approx(general, abs=1e-14)


def _overlapping(*levels: list[list[str]], rest: list[str]) -> Organization:
    return Organization(tuple(tuple(frozenset(cluster) for cluster in level) for level in levels), frozenset(rest))


_GRID_GOLD = _overlapping([["d2", "d3", "d5", "d6"], ["d2", "d3", "d5", "d9"], ["d2", "d3", "d4", "d5"]],
                          [["d2", "d3", "d5", "d7"], ["d3"], ["d2", "d3", "d4", "d8"]], [["d3", "d9"]], rest=["d1"])


@pytest.mark.parametrize("knobs", [  # small organizations: the general kernel only when told (_PAIRWISE_OCCURRENCES)
    {"_PAIRWISE_OCCURRENCES": 0, "_GRID_CELLS": 0},  # overlapping classes compared pair by pair
    {"_PAIRWISE_OCCURRENCES": 0, "_GRID_CELLS": 0, "_PAIR_BLOCK": 1},  # pair by pair, one class at a time
    {"_PAIRWISE_OCCURRENCES": 0, "_GATHER_STEPS": 0},  # overlapping classes through grids wherever one fits
    {"_PAIRWISE_OCCURRENCES": 0, "_GATHER_STEPS": 0, "_BLOCK": 1},  # grids read one class at a time
    {"_PAIRWISE_OCCURRENCES": 0, "_DENSE_GRID_CELLS": 0},  # single-occurrence partners through dominance sums
])
@settings(max_examples=150, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95), st.booleans())
@example(_GRID_GOLD, _overlapping([["d2", "d3", "d5", "d6"], ["d2", "d3", "d6", "d9"], ["d2", "d3", "d4", "d5"]],
                                  [["d2", "d5", "d7", "d8"], ["d7"], ["d3", "d4", "d5", "d8"]], [["d7", "d9"]],
                                  rest=["d1"]), 1, 0.3896683573695726, True)
@example(_GRID_GOLD, _overlapping([["d2", "d3", "d5", "d6"], ["d2", "d3", "d6", "d9"], ["d1", "d2", "d4", "d7"]],
                                  [["d1", "d2", "d9"]], [["d4"]], rest=["d8"]), 2, 0.8963188888944132, False)
def test_every_path_of_the_overlap_kernel_equals_brute_force(knobs, gold, output, n, wn, weighted):
    """Every path to 1e-12 (the two examples: partner grids read in doubles were off by 1.8e-12 and 1.3e-12;
    they are read in extended precision where the machine has it)."""
    with mock.patch.multiple(relations, **knobs):
        if weighted or not (gold.finite and output.finite):
            fast = _four(reliability_sensitivity(gold, output, n=n, wn=wn))
            assert fast == pytest.approx(_brute(gold, output, n, wn), abs=1e-12)
        else:
            fast = _four(reliability_sensitivity(gold, output))
            assert fast == pytest.approx(_brute(gold, output), abs=1e-12)


# Many levels on both sides, overlap on both sides (issue 22): every document placed 0–3 times at random levels,
# so that signatures (the sorted levels of a document) are many and pair up across (gold level, output level).
@st.composite
def placed_organizations(draw, n_docs=14, max_levels=12, clusters_per_level=3):
    n_levels = draw(st.integers(1, max_levels))
    clusters: dict[tuple[int, int], set[str]] = {}
    for d in range(n_docs):
        for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 2, 3]))):
            at = (draw(st.integers(0, n_levels - 1)), draw(st.integers(0, clusters_per_level - 1)))
            clusters.setdefault(at, set()).add(f"d{d}")
    levels = [tuple(frozenset(c) for (level, _), c in sorted(clusters.items()) if level == i) for i in range(n_levels)]
    levels = tuple(level for level in levels if level)
    if draw(st.booleans()):
        return Organization(levels)
    placed = {d for level in levels for c in level for d in c}
    return Organization(levels, frozenset(f"d{d}" for d in range(n_docs) if f"d{d}" not in placed
                                          and draw(st.booleans())))


_OVERLAP_PATHS = [  # small organizations: the general kernel only when told (_PAIRWISE_OCCURRENCES)
    {},  # as chosen by size and cost (the pairwise path for most of these)
    {"_PAIRWISE_OCCURRENCES": 0, "_GRID_CELLS": 0},  # overlapping classes compared pair by pair
    {"_PAIRWISE_OCCURRENCES": 0, "_GATHER_STEPS": 0},  # overlapping classes through grids wherever one fits
    {"_PAIRWISE_OCCURRENCES": 0, "_GATHER_STEPS": 0, "_BLOCK": 1, "_PAIR_BLOCK": 1},  # one class at a time
    {"_PAIRWISE_OCCURRENCES": 0},  # the general kernel as chosen by cost
]


@pytest.mark.parametrize("knobs", _OVERLAP_PATHS)
@settings(max_examples=150, deadline=None)
@given(placed_organizations(), placed_organizations(), st.integers(1, 20), st.floats(0.05, 0.95))
def test_fast_engine_equals_brute_force_with_many_levels_and_overlap_on_both_sides(knobs, gold, output, n, wn):
    with mock.patch.multiple(relations, **knobs) if knobs else contextlib.nullcontext():
        fast = _four(reliability_sensitivity(gold, output, n=n, wn=wn))
    assert fast == pytest.approx(_brute(gold, output, n, wn), abs=1e-12)


def _issue22_organization(rng: random.Random, n_docs: int, n_levels: int, share_twice: float, cluster_size: int):
    """The generator of issue 22: documents shuffled into levels of clusters, a share of them placed twice."""
    docs = [f"d{i}" for i in range(n_docs)]
    occurrences = docs + [d for d in docs if rng.random() < share_twice]
    rng.shuffle(occurrences)
    per = len(occurrences) // n_levels + 1
    levels = [occurrences[k * per:(k + 1) * per] for k in range(n_levels)]
    return Organization(tuple(tuple(frozenset(level[i:i + cluster_size]) for i in range(0, len(level), cluster_size))
                              for level in levels if level))


def _repeated_ranking(rng: random.Random, docs: list[str]) -> Organization:
    placed = docs + rng.sample(docs, len(docs) // 2)
    rng.shuffle(placed)
    return Organization(tuple((frozenset([d]),) for d in placed))


@pytest.mark.parametrize("knobs", _OVERLAP_PATHS[1:3])
@pytest.mark.parametrize("seed", range(12))
def test_issue22_shapes_equal_brute_force_through_each_overlap_path(knobs, seed):
    # Small versions of the benchmark's shapes: many levels on both sides with documents placed twice, and
    # rankings in which half of the documents sit at two ranks (against such a ranking, or a plain one).
    rng = random.Random(seed)
    n_levels, share, size = rng.choice([5, 10, 25]), rng.choice([0.25, 0.5]), rng.choice([1, 2, 3])
    pairs = [tuple(_issue22_organization(rng, 40, n_levels, share, size) for _ in "go")]
    docs = [f"d{i}" for i in range(16)]
    pairs.append((_repeated_ranking(rng, docs), _repeated_ranking(rng, docs)))
    pairs.append((Organization.from_ranking(rng.sample(docs, len(docs))), _repeated_ranking(rng, docs)))
    grids = mock.patch.object(relations._PartnerGrid, "agreement", autospec=True,
                              side_effect=relations._PartnerGrid.agreement)
    by_pairs = mock.patch.object(relations, "_pairs_agreement", wraps=relations._pairs_agreement)
    with mock.patch.multiple(relations, **knobs), grids as grid_reads, by_pairs as pair_runs:
        for gold, output in pairs:
            fast = _four(reliability_sensitivity(gold, output, n=10, wn=0.8))
            assert fast == pytest.approx(_brute(gold, output, 10, 0.8), abs=1e-12)
    # The knobs send the overlapping classes down the path they name, and only that one.
    assert (grid_reads.called, pair_runs.called) == ((False, True) if "_GRID_CELLS" in knobs else (True, False))


@settings(max_examples=3000, deadline=None)
@given(organizations(docs=[f"d{i}" for i in range(1, 16)], max_levels=6, max_clusters=4),
       organizations(docs=[f"d{i}" for i in range(1, 16)], max_levels=6, max_clusters=4),
       st.integers(1, 30), st.floats(0.05, 0.95))
def test_fast_engine_equals_brute_force_on_thousands_of_larger_organizations(gold, output, n, wn):
    fast = _four(reliability_sensitivity(gold, output, n=n, wn=wn))
    assert fast == pytest.approx(_brute(gold, output, n, wn), abs=1e-12)


# ---------------------------------------------------------------------------------- subsumed tasks
def _random_split(rng, docs):
    positive = [d for d in docs if rng.random() < 0.4]
    return positive, [d for d in docs if d not in positive]


@pytest.mark.parametrize("seed", range(40))
def test_filtering_is_the_product_of_precisions_and_of_recalls(seed):
    # Amigó et al., filtering metrics comparison, §4.4 / Amigó et al., SIGIR 2013, §4.3.1: R = P(G|S)·P(¬G|¬S), S =
    # P(S|G)·P(¬S|¬G) with uniform weights.
    rng = random.Random(seed)
    docs = [f"t{i}" for i in range(rng.randint(2, 30))]
    gold_pos, gold_neg = _random_split(rng, docs)
    out_pos, out_neg = _random_split(rng, docs)
    tp = len(set(gold_pos) & set(out_pos))
    tn = len(set(gold_neg) & set(out_neg))

    def ratio(a, b):
        return a / b if b else 0.0

    expected_r = ratio(tp, len(out_pos)) * ratio(tn, len(out_neg))
    expected_s = ratio(tp, len(gold_pos)) * ratio(tn, len(gold_neg))
    s = reliability_sensitivity(Organization.from_filtering(gold_pos, gold_neg),
                                Organization.from_filtering(out_pos, out_neg))
    assert (s.r_priority, s.s_priority) == pytest.approx((expected_r, expected_s), abs=1e-12)


def test_all_positive_and_all_negative_filtering_outputs_score_zero():
    # Amigó et al., SIGIR 2013, §4.3.1: R*S gives zero to the all-relevant and all-irrelevant baselines.
    gold = Organization.from_filtering(["a", "b"], ["c", "d"])
    for output in (Organization.from_filtering(list("abcd"), []), Organization.from_filtering([], list("abcd"))):
        s = reliability_sensitivity(gold, output)
        assert s.r_priority == 0 and s.f_priority == 0


def _bcubed(clusters_of: dict[str, set[int]], classes_of: dict[str, set[int]]) -> tuple[float, float]:
    """Textbook BCubed over items (Amigó et al. 2009, flat case): averages of per-item precision/recall."""
    items = list(clusters_of)

    def avg(a, b):
        return sum(
            sum(1 for e in items if a[d] & a[e] and b[d] & b[e]) / sum(1 for e in items if a[d] & a[e])
            for d in items) / len(items)

    return avg(clusters_of, classes_of), avg(classes_of, clusters_of)


@pytest.mark.parametrize("seed", range(30))
def test_flat_clustering_with_uniform_weights_is_bcubed(seed):
    # Amigó et al., SIGIR 2013, §4.2: without overlap and with equal weights, R∼ and S∼ are BCubed precision and recall.
    rng = random.Random(seed)
    docs = [f"x{i}" for i in range(rng.randint(1, 25))]
    out_label = {d: rng.randrange(4) for d in docs}
    gold_label = {d: rng.randrange(3) for d in docs}

    def org(labels):
        groups = {}
        for d, label in labels.items():
            groups.setdefault(label, []).append(d)
        return Organization.from_clustering(groups.values())

    s = reliability_sensitivity(org(gold_label), org(out_label))
    expected = _bcubed({d: {v} for d, v in out_label.items()}, {d: {v} for d, v in gold_label.items()})
    assert (s.r_relatedness, s.s_relatedness) == pytest.approx(expected, abs=1e-12)


def test_overlapping_clustering_is_the_occurrence_level_extended_bcubed():
    # Amigó et al., SIGIR 2013, §4.2: each document in each cluster counts as a separate item. Gold {a b} {a c}; output
    # {a b c}. Output items a, b, c: a's related b, c each share one gold cluster with a (P = 1), b∼c is
    # in no gold cluster (P = 0): precision = (1 + 2/3 + 2/3)/3 = 7/9. Gold items a₁ (with b), b, a₂ (with c),
    # c: a∼a holds in two gold clusters but in one output cluster, P = min(1, 2)/2 = 1/2 (RS-SEMANTICS
    # points 4, 6): a₁ and a₂ score (1/2 + 1)/2 each, b and c score 1: recall = (3/4 + 3/4 + 1 + 1)/4 = 7/8.
    gold = Organization.from_clustering([["a", "b"], ["a", "c"]])
    s = reliability_sensitivity(gold, Organization.from_clustering([["a", "b", "c"]]))
    assert (s.r_relatedness, s.s_relatedness) == pytest.approx((7 / 9, 7 / 8), abs=1e-12)


def test_replab_2013_topic_detection_official_scores():
    # ../shared/datasets/replab2013_topic_detection/reference_RS_per_entity.tsv: the official RepLab script.
    folder = shared_dataset("replab2013_topic_detection")

    def read(path):
        groups = {}
        with open(path, encoding="latin-1", newline="") as handle:
            rows = csv.reader(handle, delimiter="\t")
            next(rows)
            for entity, tweet, topic in rows:
                groups.setdefault(entity, {}).setdefault(topic, []).append(tweet)
        return {entity: Organization.from_clustering(topics.values()) for entity, topics in groups.items()}

    gold = read(folder / "replab2013_topic_detection_goldstandard.dat")
    with open(folder / "reference_RS_per_entity.tsv", newline="") as handle:
        reference = list(csv.DictReader(handle, delimiter="\t"))
    assert len(reference) == 6
    for row in reference:
        output = read(folder / "system-outputs" / row["system"].rsplit("/", 1)[-1])[row["entity"]]
        s = reliability_sensitivity(gold[row["entity"]], output, missing="replab")
        assert s.r_relatedness == pytest.approx(float(row["Reliability"]), abs=1e-9)
        assert s.s_relatedness == pytest.approx(float(row["Sensitivity"]), abs=1e-9)
        assert s.f_relatedness == pytest.approx(float(row["F measure"]), abs=1e-9)


def test_missing_policies_differ_as_documented():
    # Gold {a b} {c} over rest r; the output lacks c.
    gold = Organization.from_clustering([["a", "b"], ["c"]], rest=["r"])
    output = Organization.from_clustering([["a", "b"]], rest=["r"])
    # singleton: c becomes its own cluster beside {a b}: the output equals the gold.
    singleton = reliability_sensitivity(gold, output, missing="singleton")
    assert _four(singleton) == pytest.approx((1, 1, 1, 1))
    # tail: c joins the rest with r. Output pairs a≻c, b≻c are wrong (same gold level), a≻r, b≻r right:
    # a, b score 1/2; c (related to a, b) scores 0; r scores 1 → R≺ = (1/2 + 1/2 + 0 + 1)/4 = 1/2.
    tail = reliability_sensitivity(gold, output, missing="tail")
    assert tail.r_priority == pytest.approx(0.5) and tail.r_relatedness == pytest.approx(1)
    # replab: c counts as a correct singleton for Reliability and matches nothing for Sensitivity:
    # S∼ = (1 + 1 + 0 + 1)/4 over a, b, c, r.
    replab = reliability_sensitivity(gold, output, missing="replab")
    assert (replab.r_relatedness, replab.s_relatedness) == pytest.approx((1, 3 / 4))


def test_output_documents_the_gold_lacks_join_its_rest_or_are_ignored_by_replab():
    gold = Organization.from_clustering([["a", "b"]])
    output = Organization.from_clustering([["a", "b", "z"]])
    # z joins the gold's rest as a singleton: a, b see 2 of 3 related right, z 1 of 3 (itself).
    assert reliability_sensitivity(gold, output).r_relatedness == pytest.approx((2 / 3 + 2 / 3 + 1 / 3) / 3)
    assert reliability_sensitivity(gold, output, missing="replab").r_relatedness == 1


# ------------------------------------------------------------------------------------- properties
@settings(max_examples=200, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95))
def test_scores_lie_in_the_unit_interval_and_exchange_swaps_r_and_s(gold, output, n, wn):
    forward = reliability_sensitivity(gold, output, n=n, wn=wn)
    backward = reliability_sensitivity(output, gold, n=n, wn=wn)
    assert all(-1e-12 <= v <= 1 + 1e-12 for v in forward.to_dict().values())
    assert (forward.r_priority, forward.r_relatedness) == pytest.approx(
        (backward.s_priority, backward.s_relatedness), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(organizations(), st.integers(1, 20), st.floats(0.05, 0.95))
def test_the_gold_itself_scores_one_where_relations_exist(gold, n, wn):
    s = reliability_sensitivity(gold, gold, n=n, wn=wn)
    expected_relatedness = 1.0 if gold.documents or not gold.finite else 0.0  # an empty closed set: none
    assert (s.r_relatedness, s.s_relatedness) == pytest.approx((expected_relatedness,) * 2, abs=1e-12)
    levels = len(gold.levels) + (1 if gold.rest or not gold.finite else 0)
    expected_priority = 1.0 if levels >= 2 and gold.prioritised else 0.0  # RS-SEMANTICS point 8
    assert (s.r_priority, s.s_priority) == pytest.approx((expected_priority,) * 2, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(organizations(), organizations(), st.randoms(use_true_random=False))
def test_invariant_to_renaming_documents_and_reordering_clusters(gold, output, rnd):
    names = sorted(gold.documents | output.documents)
    renamed = dict(zip(names, rnd.sample([f"z{i}" for i in range(100)], len(names)), strict=True))

    def transform(org):
        levels = tuple(tuple(rnd.sample([frozenset(renamed[d] for d in c) for c in level], len(level)))
                       for level in org.levels)
        rest = None if org.rest is None else frozenset(renamed[d] for d in org.rest)
        return Organization(levels, rest)

    before = _four(reliability_sensitivity(gold, output, n=10, wn=0.8))
    after = _four(reliability_sensitivity(transform(gold), transform(output), n=10, wn=0.8))
    assert after == pytest.approx(before, abs=1e-12)


def test_no_priority_relation_at_all_scores_zero_priority():
    flat = Organization.from_clustering([["a", "b"], ["c"]])
    s = reliability_sensitivity(flat, flat)
    assert (s.r_priority, s.s_priority, s.f_priority) == (0, 0, 0)
    assert (s.r_relatedness, s.s_relatedness) == (1, 1)


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "n and wn are required"),
    ({"n": 10}, "give both n and wn"),
    ({"n": 10, "wn": 1.5}, "reliability_sensitivity: wn must be in [1e-06, 0.999999], got 1.5"),
    ({"n": -1, "wn": 0.5}, "reliability_sensitivity: n must be in [1, 1e+06], got -1"),
    ({"n": 1e308, "wn": 0.1}, "reliability_sensitivity: n must be in [1, 1e+06], got 1e+308"),  # c overflowed
    ({"n": 10, "wn": 1e-320}, "reliability_sensitivity: wn must be in [1e-06, 0.999999], got 1e-320"),
    ({"n": float("nan"), "wn": 0.5}, "reliability_sensitivity: n must be in [1, 1e+06], got nan"),
    ({"n": 10, "wn": 0.8, "missing": "ignore"}, "reliability_sensitivity: missing must be one of tail, singleton, "
                                                "replab"),
])
def test_bad_parameters_say_what_is_wrong(kwargs, message):
    gold = Organization.parse(TABLE9_GOLD)
    with pytest.raises(ParameterError, match=re.escape(message)):
        reliability_sensitivity(gold, gold, **kwargs)


EDGES = {"n": [1.0, 1 + 1e-9, 10, 1e6 - 1, 1e6], "wn": [1e-6, 2e-6, 0.5, 1 - 2e-6, 1 - 1e-6]}


@settings(max_examples=60, deadline=None)
@given(gold=organizations(), output=organizations(), n=st.sampled_from(EDGES["n"]) | st.floats(1, 1e6),
       wn=st.sampled_from(EDGES["wn"]) | st.floats(1e-6, 1 - 1e-6))
def test_n_and_wn_anywhere_in_their_domain_give_scores_never_nan(gold, output, n, wn):
    """Issue 20 item 4: at the domain's edges (n = 1e6 with wn = 1e-6 puts c near 1e12) every score is a number
    in [0, 1], and numpy's scalars are the numbers they hold."""
    scores = reliability_sensitivity(gold, output, n=n, wn=wn).to_dict()
    assert all(-1e-12 <= value <= 1 + 1e-12 for value in scores.values()), scores  # no NaN, rounding only
    as_numpy = np.int64(n) if float(n).is_integer() else np.float64(n)
    assert reliability_sensitivity(gold, output, n=as_numpy, wn=np.float64(wn)).to_dict() == scores


def test_not_an_organization_is_a_named_type_error():
    with pytest.raises(ParameterTypeError, match="output must be an Organization") as caught:
        reliability_sensitivity(Organization.parse("a"), "a", n=10, wn=0.8)
    assert caught.value.parameter == "output" and isinstance(caught.value, TypeError)


# ------------------------------------------------------------------------------------- registry
def test_registered_names_and_ascii_aliases_evaluate_the_engine():
    gold, output = Organization.parse(TABLE9_GOLD), Organization.parse(TABLE9_OUTPUTS[4])
    names = ["R≺(n=10, wn=0.8)", "S_priority(n=10, wn=0.8)", "R∼(n=10, wn=0.8)", "S_relatedness(wn=0.8, n=10)"]
    values = evaluate(gold, output, names)
    assert list(values) == names
    assert list(values.values()) == pytest.approx(TABLE9_COMPUTED[4], abs=1e-4)


def test_all_sixty_orderings_of_a_small_ranking_agree_with_the_brute_force():
    gold = Organization.from_graded({"a": 2, "b": 1, "c": 1})
    for perm in itertools.permutations("abcde"):
        output = Organization.from_ranking(perm[:3])
        fast = _four(reliability_sensitivity(gold, output, n=3, wn=0.6))
        assert fast == pytest.approx(_brute(gold, output, 3, 0.6), abs=1e-12)
        assert not any(math.isnan(v) for v in fast)


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
def test_the_relations_on_two_threads_give_the_bits_of_one_thread(missing, monkeypatch):
    # Issue 42: from reliability._TWO_THREADS occurrences, priority and relatedness are scored on two threads;
    # each value is the one thread's, bit for bit, and the two relations ran at once (each waits for the other to
    # start: on one thread the wait would time out) on two threads, not this one.
    from workbench.metrics import reliability
    rng = random.Random(len(missing))
    gold, output = (_issue22_organization(rng, 300, 10, 0.25, 4) for _ in "go")
    if missing != "tail":
        gold, output = (Organization(org.levels, rest=frozenset()) for org in (gold, output))
    monkeypatch.setenv("WORKBENCH_THREADS", "1")
    one = reliability_sensitivity(gold, output, n=10, wn=0.8, missing=missing)
    threads = {}
    both_started = threading.Barrier(2, timeout=10)

    def recorded(kernel):
        def run(x, other):
            if kernel.__name__ not in threads:
                threads[kernel.__name__] = threading.get_ident()
                both_started.wait()
            return kernel(x, other)
        return run

    monkeypatch.setenv("WORKBENCH_THREADS", "2")
    monkeypatch.setattr(reliability, "_TWO_THREADS", 0)
    monkeypatch.setattr(relations, "priority", recorded(relations.priority))
    monkeypatch.setattr(relations, "relatedness", recorded(relations.relatedness))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    two = reliability_sensitivity(gold, output, n=10, wn=0.8, missing=missing)
    assert repr(two) == repr(one)
    assert threading.get_ident() not in threads.values()
    assert threads["priority"] != threads["relatedness"]
