"""explain: the R&S scores decomposed by occurrence and by relation, checked against the brute force."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import rs_bruteforce
from tests.conftest import TABLE9_GOLD, TABLE9_OUTPUTS
from tests.strategies import organizations
from workbench import ExplainError, Organization, ParameterError, WorkbenchError, explain, reliability_sensitivity
from workbench.metrics.explain import MEASURES

POLICIES = st.sampled_from(["tail", "singleton", "replab"])


def _label(org: Organization, level) -> object:
    return level if level == "tail" else (level + 1 if level < len(org.levels) else "rest")


def _brute_views(gold, output, missing):
    (r_out, r_gold), (s_gold, s_out) = rs_bruteforce.aligned_views(gold, output, missing)
    return {"R≺": (r_out, r_gold), "R∼": (r_out, r_gold), "S≺": (s_gold, s_out), "S∼": (s_gold, s_out)}


def _brute_contributions(x, other, kind, n, wn):
    """{(document, level): sorted [(weight, holds)]} of x's occurrences, and the tail's (weight, holds)."""
    per_occurrence = defaultdict(float)
    share = {}
    for occurrence, weight, row_kind, _, _, _, relation_weight, holds in rs_bruteforce.relation_rows(x, other, n, wn):
        share[occurrence] = weight
        if row_kind == kind:
            per_occurrence[occurrence] += relation_weight * holds
    w, tail_weight = rs_bruteforce.weights(x, n, wn)
    total = sum(w) + tail_weight
    rows = defaultdict(list)
    for i, occurrence in enumerate(rs_bruteforce.occurrences(x)):
        rows[(occurrence.doc, _label(x, occurrence.level))].append((w[i] / total, per_occurrence[occurrence]))
    tail = None
    if not x.finite and total > 0:
        tail = rs_bruteforce.tail_share(x, other, n, wn) if kind == "≺" else (tail_weight / total, 1.0)
    return {key: sorted(v) for key, v in rows.items()}, tail


def _check_against_brute_force(gold, output, n, wn, missing):
    e = explain(gold, output, n=n, wn=wn, missing=missing)
    assert e.scores == reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing)
    frame = e.contributions
    assert frame.holds.between(-1e-12, 1 + 1e-12).all()
    views = _brute_views(gold, output, missing)
    for measure, score in zip(MEASURES, (e.scores.r_priority, e.scores.s_priority, e.scores.r_relatedness,
                                         e.scores.s_relatedness), strict=True):
        rows = frame[frame.measure == measure]
        assert rows.contribution.sum() == pytest.approx(score, abs=1e-12)
        assert (rows.side == ("output" if measure[0] == "R" else "gold")).all()
        expected, expected_tail = _brute_contributions(*views[measure], measure[1], n, wn)
        occurrences = rows[rows.level != "tail"]
        got = defaultdict(list)
        for doc, level, weight, holds in zip(occurrences.document, occurrences.level, occurrences.weight,
                                             occurrences.holds, strict=True):
            got[(doc, level)].append((weight, holds))
        assert set(got) == set(expected)
        for key, values in got.items():
            flat = [v for pair in sorted(values) for v in pair]
            assert flat == pytest.approx([v for pair in expected[key] for v in pair], abs=1e-12)
        tail = rows[rows.level == "tail"]
        if expected_tail is None or expected_tail[0] == 0:
            assert tail.empty or tail.weight.iloc[0] == 0
        else:
            assert (tail.weight.iloc[0], tail.holds.iloc[0]) == pytest.approx(expected_tail, abs=1e-12)
    return e


# ------------------------------------------------------------------------ contributions = brute force
@settings(max_examples=300, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95), POLICIES)
def test_contributions_equal_the_brute_force_and_sum_to_the_scores_with_tails(gold, output, n, wn, missing):
    _check_against_brute_force(gold, output, n, wn, missing)


@settings(max_examples=200, deadline=None)
@given(organizations(finite=True), organizations(finite=True), POLICIES)
def test_contributions_equal_the_brute_force_with_finite_rests(gold, output, missing):
    _check_against_brute_force(gold, output, None, None, missing)


@settings(max_examples=600, deadline=None)
@given(organizations(docs=[f"d{i}" for i in range(1, 16)], max_levels=6, max_clusters=4),
       organizations(docs=[f"d{i}" for i in range(1, 16)], max_levels=6, max_clusters=4),
       st.integers(1, 30), st.floats(0.05, 0.95), POLICIES)
def test_contributions_equal_the_brute_force_on_larger_organizations(gold, output, n, wn, missing):
    _check_against_brute_force(gold, output, n, wn, missing)


# -------------------------------------------------------------------------- relations = brute force
@settings(max_examples=150, deadline=None)
@given(organizations(), organizations(), st.integers(1, 20), st.floats(0.05, 0.95), POLICIES,
       st.sampled_from(MEASURES), st.randoms(use_true_random=False))
def test_relations_equal_a_brute_force_enumeration(gold, output, n, wn, missing, measure, rnd):
    e = explain(gold, output, n=n, wn=wn, missing=missing)
    x, other = _brute_views(gold, output, missing)[measure]
    documents = sorted({o.doc for o in rs_bruteforce.occurrences(x)})
    if not documents:
        return
    document = rnd.choice(documents)
    expected = sorted(
        (_label(x, occurrence.level), partner, _label(x, partner_level), relation, weight, holds)
        for occurrence, _, kind, partner, partner_level, relation, weight, holds
        in rs_bruteforce.relation_rows(x, other, n, wn) if occurrence.doc == document and kind == measure[1])
    frame = e.relations(document, measure)
    got = sorted(zip(frame.level, frame.partner, frame.partner_level, frame.relation, frame.weight, frame.holds,
                     strict=True))
    assert [row[:4] for row in got] == [row[:4] for row in expected]
    assert [v for row in got for v in row[4:]] == pytest.approx([v for row in expected for v in row[4:]],
                                                                abs=1e-12)
    # Each occurrence's relations add up to its share in the contributions, and mass = its weight × weight.
    rows = e.contributions[(e.contributions.measure == measure) & (e.contributions.document == document)]
    by_occurrence = (frame.weight * frame.holds).groupby(frame.occurrence).sum()
    assert sorted(by_occurrence.reindex(range(1, len(rows) + 1), fill_value=0.0)) == pytest.approx(
        sorted(rows.holds), abs=1e-12)
    share = dict(zip(rows.level, rows.weight, strict=True))
    assert frame.mass.tolist() == pytest.approx([share[level] * w for level, w in zip(frame.level, frame.weight,
                                                                                       strict=True)], abs=1e-12)
    # The mass a relation keeps is what holds of it; the rest is lost.
    assert frame.kept.tolist() == pytest.approx((frame.mass * frame.holds).tolist(), abs=1e-15)
    assert (frame.kept + frame.lost).tolist() == pytest.approx(frame.mass.tolist(), abs=1e-15)


# -------------------------------------------------------------------------------------- Table 9
def test_table9_output4_d8_fails_its_relatedness_with_d6_and_d7_and_holds_once_it_leaves():
    gold = Organization.parse(TABLE9_GOLD)
    e = explain(gold, Organization.parse(TABLE9_OUTPUTS[3]), n=10, wn=0.8)
    assert e.scores.r_relatedness == pytest.approx(0.9649, abs=1e-4)
    d8 = e.relations("d8", "R∼").set_index("partner")
    assert d8.loc[["d6", "d7"], "holds"].tolist() == [0, 0]
    d6 = e.relations("d6", "R∼")
    in_that_cluster = d6[d6.level == 3].set_index("partner")
    assert in_that_cluster.loc["d8", "holds"] == 0 and in_that_cluster.loc["d7", "holds"] == 1
    # The occurrences losing most R∼ mass are those of {d6 d7 d8}.
    worst = e.lost().query("measure == 'R∼'").head(3)
    assert set(worst.document) == {"d6", "d7", "d8"} and (worst.lost > 0).all()

    moved = explain(gold, Organization.parse("d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7} d8"), n=10, wn=0.8)
    for doc in ("d6", "d7"):
        relations = moved.relations(doc, "R∼")
        assert "d8" not in set(relations.partner) and (relations.holds == 1).all()
    assert set(moved.relations("d8", "R∼").partner) == {"d8"}
    assert moved.scores.r_relatedness > e.scores.r_relatedness


def test_lost_sorts_by_the_mass_each_row_loses():
    e = explain(Organization.parse(TABLE9_GOLD), Organization.parse(TABLE9_OUTPUTS[4]), n=10, wn=0.8)
    lost = e.lost()
    assert lost.lost.tolist() == pytest.approx((lost.weight * (1 - lost.holds)).tolist())
    assert lost.lost.is_monotonic_decreasing
    assert len(lost) == len(e.contributions)
    # Per measure the lost mass is what the score misses of 1 (weights sum to 1).
    for measure, value in (("R≺", e.scores.r_priority), ("S≺", e.scores.s_priority)):
        assert lost[lost.measure == measure].lost.sum() == pytest.approx(1 - value, abs=1e-12)


# -------------------------------------------------------------------------------- special cases
@pytest.mark.parametrize("seed", range(10))
def test_filtering_rows_read_as_true_and_false_positives_and_negatives(seed):
    rng = random.Random(seed)
    docs = [f"t{i}" for i in range(rng.randint(3, 20))]
    gold_pos = {d for d in docs if rng.random() < 0.4}
    out_pos = {d for d in docs if rng.random() < 0.5}
    e = explain(Organization.from_filtering(sorted(gold_pos), sorted(set(docs) - gold_pos)),
                Organization.from_filtering(sorted(out_pos), sorted(set(docs) - out_pos)))
    rows = e.contributions.query("measure == 'R≺'").set_index("document")
    has_partners = 0 < len(out_pos) < len(docs)
    for d in docs:
        correct = (d in gold_pos) == (d in out_pos)
        assert rows.loc[d, "level"] == (1 if d in out_pos else "rest")
        if not correct:
            assert rows.loc[d, "holds"] == 0  # a false positive or a false negative
        elif has_partners:
            assert rows.loc[d, "holds"] >= 0


def test_flat_clustering_rows_are_per_item_bcubed_precision_and_recall():
    gold = Organization.from_clustering([["a", "b", "c"], ["d"]])
    output = Organization.from_clustering([["a", "b"], ["c", "d"]])
    e = explain(gold, output)
    precision = e.contributions.query("measure == 'R∼'").set_index("document").holds
    recall = e.contributions.query("measure == 'S∼'").set_index("document").holds
    # BCubed (Amigó et al. 2009): a: 2/2 right in its cluster, c: 1/2; recall a: 2/3, d: 1.
    assert precision.to_dict() == pytest.approx({"a": 1, "b": 1, "c": 0.5, "d": 0.5})
    assert recall.to_dict() == pytest.approx({"a": 2 / 3, "b": 2 / 3, "c": 1 / 3, "d": 1})


# ------------------------------------------------------------------------------------ bad input
def test_bad_questions_raise_named_errors():
    e = explain(Organization.parse(TABLE9_GOLD), Organization.parse(TABLE9_OUTPUTS[3]), n=10, wn=0.8)
    with pytest.raises(ExplainError, match="'d99' is not in the output that R∼ reads"):
        e.relations("d99", "R∼")
    with pytest.raises(ExplainError, match="'d8' is not in the gold that S≺ reads"):
        e.relations("d8", "S≺")
    with pytest.raises(ParameterError, match="^Explanation.relations: measure must be one of R≺, S≺, R∼, S∼, got 'F≺'"):
        e.relations("d1", "F≺")
    assert issubclass(ExplainError, WorkbenchError)
    with pytest.raises(ValueError, match="n and wn are required"):
        explain(Organization.parse(TABLE9_GOLD), Organization.parse(TABLE9_GOLD))
