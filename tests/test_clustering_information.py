"""AMI, NMI with the normalisation named, variation of information and V-measure with β (issue 13): equal to
scikit-learn on random partitions, through the kernels and through the registry."""

import math

import hypothesis.strategies as st
import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from scipy.stats import entropy
from sklearn.metrics.cluster._expected_mutual_info_fast import expected_mutual_information

from workbench import Organization, evaluate
from workbench.errors import ParameterError
from workbench.metrics import clustering as C
from workbench.metrics.registry import MeasureParameterError, measures, parse

METHODS = C.AVERAGE_METHODS

label_pairs = st.integers(1, 60).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 6), min_size=n, max_size=n),
                        st.lists(st.integers(0, 6), min_size=n, max_size=n)))


def sklearn_vi(true, pred) -> float:
    """H(C) + H(K) − 2·MI from scikit-learn's MI and scipy's entropy of the label counts."""
    h_true = entropy(np.unique(true, return_counts=True)[1])
    h_pred = entropy(np.unique(pred, return_counts=True)[1])
    return h_true + h_pred - 2 * skm.mutual_info_score(true, pred)


def sklearn_ami(true, pred, method: str) -> float:
    """scikit-learn's AMI, except where E[MI] equals both MI and the normaliser (0/0): there scikit-learn
    means 1 ("expectation equals maximum, a perfect match") but returns ±1 as its rounding falls."""
    h = [entropy(np.unique(x, return_counts=True)[1]) for x in (true, pred)]
    normaliser = {"min": min(h), "max": max(h), "geometric": math.sqrt(h[0] * h[1]), "arithmetic": sum(h) / 2}
    table = skm.cluster.contingency_matrix(true, pred, sparse=True)
    emi, mi = expected_mutual_information(table, len(true)), skm.mutual_info_score(true, pred)
    if min(len(set(true)), len(set(pred))) > 1 and abs(mi - emi) < 1e-12 and abs(normaliser[method] - emi) < 1e-12:
        return 1.0
    return skm.adjusted_mutual_info_score(true, pred, average_method=method)


@settings(max_examples=200, deadline=None)
@given(label_pairs, st.floats(0.01, 5))
def test_equal_scikit_learn_on_random_partitions(labels, beta):
    true, pred = labels
    c = C.contingency_from_labels(true, pred)
    for method in METHODS:
        assert C.nmi(c, method) == pytest.approx(
            skm.normalized_mutual_info_score(true, pred, average_method=method), abs=1e-12), method
        assert C.adjusted_mutual_information(c, method) == pytest.approx(sklearn_ami(true, pred, method),
                                                                          abs=1e-10), method
    assert C.homogeneity_completeness_v(c, beta)["v"] == pytest.approx(
        skm.v_measure_score(true, pred, beta=beta), abs=1e-12)
    assert C.variation_of_information(c) == pytest.approx(max(sklearn_vi(true, pred), 0.0), abs=1e-12)


@pytest.mark.parametrize("n, k_true, k_pred", [(2000, 40, 25), (500, 2, 300), (300, 1, 7)])
def test_ami_equals_scikit_learn_on_large_random_partitions(n, k_true, k_pred):
    rng = np.random.default_rng(n + k_true)
    true, pred = rng.integers(0, k_true, n), rng.integers(0, k_pred, n)
    c = C.contingency_from_labels(true, pred)
    for method in METHODS:
        assert C.adjusted_mutual_information(c, method) == pytest.approx(
            skm.adjusted_mutual_info_score(true, pred, average_method=method), abs=1e-9)


def as_organization(labels: list, docs: list[str]) -> Organization:
    clusters: dict = {}
    for doc, label in zip(docs, labels, strict=True):
        clusters.setdefault(label, []).append(doc)
    return Organization.from_clustering(clusters.values())


@settings(max_examples=80, deadline=None)
@given(label_pairs, st.sampled_from(METHODS), st.sampled_from([0.5, 1.0, 2.0]))
def test_the_registry_names_equal_scikit_learn_on_organizations(labels, method, beta):
    true, pred = labels
    docs = [f"d{i}" for i in range(len(true))]
    names = [f"NMI(average_method={method})", f"AMI(average_method={method})", "VI", f"V-measure(beta={beta})"]
    scores = evaluate(as_organization(true, docs), as_organization(pred, docs), names)
    assert scores == pytest.approx({
        names[0]: skm.normalized_mutual_info_score(true, pred, average_method=method),
        names[1]: sklearn_ami(true, pred, method),
        names[2]: max(sklearn_vi(true, pred), 0.0),
        names[3]: skm.v_measure_score(true, pred, beta=beta)}, abs=1e-10)


def test_hand_computed_variation_of_information_and_expected_mi():
    """Gold {a b} {c}, output {a} {b c}: H(C|K) = H(K|C) = (2/3)·ln 2, so VI = (4/3)·ln 2. Two 2-document
    clusters of N = 4: E[MI] = Σ over n_ij ∈ {1, 2} of four cells = 4·(2/3)·(1/4)·ln 1 + 4·(1/6)·(2/4)·ln 2."""
    gold = Organization.from_clustering([["a", "b"], ["c"]])
    out = Organization.from_clustering([["a"], ["b", "c"]])
    assert C.variation_of_information(C.contingency(gold, out)) == pytest.approx(4 / 3 * math.log(2))
    assert C.expected_mutual_information(np.array([[2, 0], [0, 2]])) == pytest.approx(math.log(2) / 3)
    assert C.variation_of_information(C.contingency(gold, gold)) == 0.0


def test_limits_overlap_and_declared_domains():
    one = C.contingency_from_labels([0, 0, 0], [1, 1, 1])
    assert C.adjusted_mutual_information(one) == 1.0 and C.nmi(one, "min") == 1.0
    assert C.adjusted_mutual_information(C.contingency_from_labels([0, 0, 0], [0, 1, 2])) == 0.0
    overlap = C.contingency(Organization.parse("{a b} {b c}"), Organization.parse("{a b c}"))
    assert math.isnan(C.adjusted_mutual_information(overlap)) and math.isnan(C.variation_of_information(overlap))
    with pytest.raises(ParameterError, match="^nmi: average_method must be one of arithmetic, geometric, min, max"):
        C.nmi(one, "median")
    with pytest.raises(MeasureParameterError, match="average_method must be one of arithmetic, geometric"):
        parse("AMI(average_method=median)")
    for beta in (-1, 0):
        with pytest.raises(MeasureParameterError, match=r"beta must be in \(0, inf\)"):
            parse(f"V-measure(beta={beta})")
    with pytest.raises(ParameterError, match=r"^homogeneity_completeness_v: beta must be in \(0, inf\), got 0.0"):
        C.homogeneity_completeness_v(one, 0.0)
    all_singletons = C.contingency_from_labels([0, 0, 1], [0, 1, 2])  # E[MI] = MI = H(C) = min(H(C), H(K))
    assert C.adjusted_mutual_information(all_singletons, "min") == 1.0
    table = measures().set_index("name")
    assert table.loc["VI", "direction"] == "lower" and table.loc["AMI", "direction"] == "higher"
    assert "average_method=arithmetic" in table.loc["NMI", "parameters"]
    assert str(parse("NMI(average_method=geometric)")) == "NMI(average_method=geometric)"
    assert str(parse("V-measure(beta=2)")) == "V-measure(beta=2.0)"
