"""Declared parameter domains: every parameter of every registered measure has one, a value outside it is
refused when the name is parsed (naming the measure and the parameter), and inside it every measure stays
within its declared range — NaN only where its docstring says a value can be undefined."""

from __future__ import annotations

import math
import re
import sys
import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import workbench as wb
from tests.strategies import FLAT_CLASSES, contexts_of, labelling_pairs, organizations, pairs_of
from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.metrics import registry
from workbench.metrics.classification import pair as labelled_pair
from workbench.metrics.ranking.cwl_columns import DEPTH_LIMIT
from workbench.metrics.registry import (
    Choices,
    Interval,
    Levels,
    LevelsValue,
    MappingValue,
    Measure,
    MeasureParameterError,
    Pairs,
    Words,
    parse,
)
from workbench.model import Organization

SPECS = registry.specs()
SCORED = [spec for spec in SPECS if spec.reads == "organizations" and spec.returns == "number"]
"""The measures scored on a gold and an output (not trec_eval's relstring text, nor its measures over preference
judgements and judgement groups, which only the drop-in reads)."""
DOCS = [f"d{i}" for i in range(1, 9)]


def test_every_parameter_declares_its_domain():
    undeclared = [f"{spec.name}: {key}" for spec in SPECS for key in spec.params if key not in spec.domains]
    assert not undeclared


@pytest.mark.parametrize(("name", "parameter"), [
    ("nDCG@-1", "k"), ("nDCG@0", "k"), ("P@2.5", "k"), ("AP(rel=0)", "rel"), ("RBP(p=1)", "p"),
    ("WAcc(lam=-5)", "lam"), ("WAcc(lam=-1)", "lam"), ("Utility(alpha=-1)", "alpha"), ("Utility(alpha=0)", "alpha"),
    ("F(alpha=1.5)", "alpha"), ("BCubed-F(alpha=-0.1)", "alpha"), ("R≺(n=0.5, wn=0.8)", "n"),
    ("S∼(n=10, wn=1)", "wn"), ("LinearUtility(a3=-1)", "a3"), ("E_abs(beta=0)", "beta"), ("Q-measure(beta=-1)", "beta"),
    ("nDCG(gains={-1:1})", "gains"), ("RBP(gains={0:1})", "gains"), ("nDCG(gains={1:-2, 2:3})", "gains"),
    ("nDCG(gains=3)", "gains"), ("INST(T=0.4, max_rel=3)", "T"), ("Compat(p=0.995)", "p"),
    ("NERR10(p=1, max_rel=3)", "p"), ("INSQ(max_rel=3, depth=0)", "depth"),
    ("SDCG(min_rel=-1, max_rel=3)@5", "min_rel"),
])
def test_out_of_domain_values_fail_when_parsed_naming_measure_and_parameter(name, parameter):
    with pytest.raises(MeasureParameterError, match=rf"^'{re.escape(name)}': parameter {parameter} .*must"):
        parse(name)


def _values(domain: Interval | Choices, default):
    """A strategy over the values a domain allows (infinite ends cut at ±1000)."""
    if isinstance(domain, Words):  # a class the labelling strategies use, or an order of all of them
        words = st.permutations(FLAT_CLASSES).map("<".join) if "order" in domain.what else st.sampled_from(
            FLAT_CLASSES)
        return st.none() | words if domain.optional else words
    if isinstance(domain, Choices):
        return st.sampled_from(domain.values)
    if isinstance(domain, Levels):
        return st.lists(st.floats(domain.low, domain.high), min_size=1, max_size=5).map(LevelsValue)
    if isinstance(domain, Pairs):
        pairs = st.dictionaries(_values(domain.keys, None), _values(domain.values, None), max_size=4)
        return st.none() | pairs.map(MappingValue) if domain.optional else pairs.map(MappingValue)
    low, high = max(domain.low, -1000.0), min(domain.high, 1000.0)
    if domain.integer:
        low_int = math.floor(low) + 1 if domain.low_open or low != math.floor(low) else int(low)
        values = st.integers(low_int, int(high))
    else:
        values = st.floats(low, high, exclude_min=domain.low_open, exclude_max=domain.high_open,
                           allow_nan=False)
    return st.none() | values if domain.optional else values


def _params(spec) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({key: _values(spec.domains[key], default) for key, default in spec.params.items()})


@st.composite
def _pair(draw, spec) -> tuple:
    """A gold and an output of the shape the measure's task reads."""
    task = spec.task
    if task == "classification":
        return draw(labelling_pairs(contexts_of(spec)))
    if task == "ranking":
        grades = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 4), max_size=6))
        ranking = draw(st.lists(st.sampled_from(DOCS + ["x1", "x2"]), unique=True, max_size=8))
        return Organization.from_graded(grades), Organization.from_ranking(ranking)
    if task in ("filtering", "baselines"):
        gold_pos = draw(st.sets(st.sampled_from(DOCS), min_size=1 if task == "baselines" else 0))
        out_pos = draw(st.sets(st.sampled_from(DOCS), min_size=1 if task == "baselines" else 0))
        gold = Organization.from_filtering(sorted(gold_pos), sorted(set(DOCS) - gold_pos))
        if task == "baselines":  # the output's clusters are what it retrieves
            return gold, Organization.from_clustering([sorted(out_pos)])
        return gold, Organization.from_filtering(sorted(out_pos), sorted(set(DOCS) - out_pos))
    if task == "clustering":
        def clusters():
            return st.lists(st.sets(st.sampled_from(DOCS), min_size=1, max_size=4), min_size=1, max_size=4)
        return (Organization.from_clustering([sorted(c) for c in draw(clusters())]),
                Organization.from_clustering([sorted(c) for c in draw(clusters())]))
    return draw(organizations()), draw(organizations())


def _documents_nan(spec) -> bool:
    """Whether the measure's docstring (or its module's) says it can be undefined (NaN)."""
    compute = spec.compute
    module = sys.modules[getattr(compute, "__module__", type(compute).__module__)]
    return "NaN" in (compute.__doc__ or "") + (module.__doc__ or "")


@pytest.mark.parametrize("spec", SCORED, ids=[spec.name for spec in SCORED])
def test_measures_stay_in_their_range_over_their_declared_domains(spec):
    nan_documented = _documents_nan(spec)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(params=_params(spec), pair=_pair(spec), data=st.data())
    def check(params, pair, data):
        if spec.task == "organization":  # n and wn go together; without them both sides must be finite
            if (params["n"] is None) != (params["wn"] is None):
                params["wn"] = None if params["n"] is None else 0.5
            if params["n"] is None and not (pair[0].finite and pair[1].finite):
                params["n"], params["wn"] = 10, 0.8
        if params.get("unmatched") == "strict":  # both sides over the same documents, as strict demands
            docs = sorted(pair[0].documents)
            labels = data.draw(st.lists(st.integers(0, 3), min_size=len(docs), max_size=len(docs)))
            pair = pair[0], Organization.from_clustering(
                [[d for d, label in zip(docs, labels, strict=True) if label == k] for k in set(labels)])
        if spec.task == "baselines" and params["n"] is not None:
            params["n"] = max(params["n"], len(pair[0].documents | pair[1].documents))
        # PyEvALL reports no ICM of multi-label classes without a hierarchy, and the workbench refuses it
        assume(not (spec.name in ("ICM", "ICM-Norm") and pair[0].kind == "multi" and pair[0].hierarchy is None))
        if params.get("label") is not None:  # a class the topic knows (another is refused: test_classification.py)
            params["label"] = data.draw(st.sampled_from(labelled_pair(*pair).known()))
        _gain_scale_below_its_top(params)
        measure = Measure(spec, tuple(params.items()))
        value = measure(*pair)
        if math.isnan(value):
            assert nan_documented, f"{measure} is NaN, which its docstring does not say it can be"
        else:
            low, high = spec.range
            assert low - 1e-9 <= value <= high + 1e-9, f"{measure} = {value} outside [{low}, {high}]"

    check()


def _gain_scale_below_its_top(params: dict) -> None:
    """The C/W/L parameters bound together (each parameter's domain alone allows any): the gain scale needs
    min_rel < max_rel, so max_rel is raised above a min_rel drawn at or over it; cwl_eval's columns other than EU
    count the ranks read, so they need a depth (or cutoff) of at most DEPTH_LIMIT, which a larger one is cut to."""
    if "min_rel" in params and params.get("max_rel") is not None and params["min_rel"] >= params["max_rel"]:
        params["max_rel"] = 2 * params["min_rel"] + 1
    if params.get("column", "EU") != "EU":
        for name in ("depth", "k"):
            if name in params and (params[name] is None or params[name] > DEPTH_LIMIT):
                params[name] = DEPTH_LIMIT


def test_a_gain_scale_upside_down_is_refused_by_name():
    measure = parse("SDCG(min_rel=3, max_rel=2)@5")
    with pytest.raises(WorkbenchError, match="min_rel must be below max_rel"):
        measure(Organization.from_graded({"d1": 1}), Organization.from_ranking(["d1"]))


def _edges(domain) -> list:
    """The values at a domain's ends: a closed end itself, the nearest value inside an open one, and a huge
    finite value at an infinite end (infinity itself only where the domain says it belongs)."""
    if not isinstance(domain, Interval):
        return []
    low_open, high_open = domain._open()
    edges = []
    for end, is_open, inward in ((domain.low, low_open, math.inf), (domain.high, high_open, -math.inf)):
        if math.isinf(end):
            huge = (2**62 if domain.integer else 1e300) * (1 if end > 0 else -1)
            edges += [huge, end] if domain.infinite else [huge]
        elif domain.integer:
            edges.append(int(end) + (0 if not is_open else 1 if inward > 0 else -1))
        else:
            edges.append(math.nextafter(end, inward) if is_open else end)
    return edges


def _edge_values(domain) -> list:
    """:func:`_edges`, every choice of a domain of a few values (nDCG's ``gain=exp`` among them), and a mapping of
    two grades to the top of its values' domain (nDCG's ``gains``)."""
    if isinstance(domain, Words):
        return []
    if isinstance(domain, Choices):
        return list(domain.values)
    if isinstance(domain, Pairs):
        return [MappingValue({1: max(_edges(domain.values)), 2: max(_edges(domain.values))})]
    return _edges(domain)


OVERFLOWING = (Organization.from_graded({"d1": 2000, "d2": 1500, "d3": 1, "d4": 0}),
               Organization.from_ranking(["d3", "x1", "d1", "d2", "d4"]))
"""A topic graded past 1024, whose exponential gains 2^g − 1 overflow a double (nDCG(gain=exp) was inf/inf = NaN,
Q-measure(beta=1e300) too: the audit of issue 38)."""


def _documents_infinity(spec) -> bool:
    """Whether the measure's docstring says it can be infinite (Odds: +inf when only its denominator is 0)."""
    return "inf" in (spec.compute.__doc__ or "")


EDGE_CASES = [(spec, key, value) for spec in SCORED for key in spec.params
              for value in _edge_values(spec.domains[key])]


@pytest.mark.parametrize(("spec", "key", "value"), EDGE_CASES,
                         ids=[f"{spec.name}-{key}={value!r}" for spec, key, value in EDGE_CASES])
def test_measures_at_their_domains_edges_stay_in_range(spec, key, value):
    """Issue 20 item 3: at each end of each parameter's domain, and at each of its choices (other parameters at
    their defaults, or at n=10, wn=0.8 for R&S), every measure on a few fixed pairs (a ranking measure also on a
    topic graded past 1024: :data:`OVERFLOWING`) is in its declared range, a number (inf only where its docstring
    says so), or a documented NaN."""
    params = {k: v if spec.domains[k].reason(v) is None else _edges(spec.domains[k])[0] for k, v in spec.params.items()}
    if spec.task == "organization":
        params.update(n=10, wn=0.8)
    params[key] = value
    if spec.task == "baselines" and params.get("n") is not None:
        params["n"] = max(params["n"], len(DOCS) + 2)
    if params.get("unmatched") == "strict":
        return  # strict needs both sides over the same documents; the range test covers it
    _gain_scale_below_its_top(params)
    measure = Measure(spec, tuple(params.items()))
    assert parse(str(measure)) == measure
    for pair in pairs_of(spec) + ([OVERFLOWING] if spec.task == "ranking" else []):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WorkbenchWarning)  # grades above max_grade count as max_grade
            result = measure(*pair)
        if math.isnan(result):
            assert _documents_nan(spec), f"{measure} is NaN, which its docstring does not say it can be"
        else:
            low, high = spec.range
            assert low - 1e-9 <= result <= high + 1e-9, f"{measure} = {result} outside [{low}, {high}]"
            assert not math.isinf(result) or _documents_infinity(spec), f"{measure} = {result}"


def test_exponential_gains_of_grades_past_a_double_stay_numbers():
    """Audit (issue 38): nDCG(gain=exp) of a topic graded 2000 took 2^2000 − 1 = inf, and nDCG = inf/inf = NaN. A
    topic graded past 1000 has its gains counted in units of 2^(top grade), which leaves the ratio as it is: here
    the top grade at rank 3 (1/log2(4) = 0.5 of the ideal's 1), the others 2^-500 and less of it."""
    gold, output = OVERFLOWING
    values = wb.evaluate(gold, output, ["nDCG(gain=exp)", "nDCG(gain=exp)@3", "nDCG(gain=exp)@2",
                                              "ERR(max_grade=None)"])
    assert values["nDCG(gain=exp)"] == pytest.approx(0.5, abs=1e-12)
    assert values["nDCG(gain=exp)@3"] == pytest.approx(0.5, abs=1e-12) and values["nDCG(gain=exp)@2"] == 0.0
    assert values["ERR(max_grade=None)"] == pytest.approx(1 / 3, abs=1e-12)
    explained = wb.explain(gold, output, "nDCG(gain=exp)")
    assert explained.contributions["contribution"].sum() == pytest.approx(0.5, abs=1e-12)


def test_icm_with_every_weight_at_its_domains_top_is_a_number():
    """Audit (issue 38): ICM with α₁, α₂, β near a double's top (PyEvALL takes any number) overflowed α·IC to inf
    and ICM to inf − inf = NaN; the weights' domain ends at 1e100, where every ICM is a number, and a weight past it
    is refused by name."""
    top = registry.spec_of("ICM").domains["beta"].high
    assert top == 1e100
    for name in ("ICM", "ICM-Norm", "ICM-Soft", "ICM-Soft-Norm"):
        measure = parse(f"{name}(alpha_1={top!r}, alpha_2={top!r}, beta={top!r})")
        for pair in pairs_of(measure.spec):
            assert math.isfinite(measure(*pair)), (str(measure), pair)
    with pytest.raises(MeasureParameterError, match=r"'ICM\(beta=1e300\)': parameter beta must be in \[0, 1e\+100\]"):
        parse("ICM(beta=1e300)")


def test_infinity_belongs_to_a_domain_only_where_it_says_so():
    """``AP(rel=inf)``, ``Q-measure(beta=inf)``, ``SetUtility(a=inf)`` were accepted under a domain printed
    ``[0, inf)``; now every domain's printed interval says whether inf belongs, and NaN never does."""
    for spec in SPECS:
        for key, domain in spec.domains.items():
            if not isinstance(domain, Interval):
                continue
            for value in (math.inf, -math.inf, math.nan):
                inside = domain.reason(value) is None
                assert inside == (domain.infinite and value in (domain.low, domain.high)), (spec.name, key, value)
                if not inside:
                    with pytest.raises(MeasureParameterError, match=rf"parameter {re.escape(key)} .*got {value}"):
                        registry._coerce(spec, key, registry._parse_value(str(value)), spec.name)
    assert str(Interval(0)) == "in [0, inf)" and str(Interval(0, infinite=True)) == "in [0, inf]"
    assert str(Interval()) == "in (-inf, inf)"


@pytest.mark.parametrize(("name", "message"), [
    ("RBP(p=0.5, p=0.9)", "parameter p is given twice (0.5 and 0.9)"),
    ("AP(rel=1, rel_level=2)", "parameter rel is given twice (1 and 2)"),
    ("P(k=5)@10", "parameter k is given twice (5 and 10)"),
    ("nDCG(gains={1:1,1:5})", "parameter gains gives key 1 twice"),
    ("nDCG(gains={1:1,2:2,1:5,2:3})", "parameter gains gives keys 1, 2 twice"),
])
def test_a_parameter_written_twice_is_refused(name, message):
    with pytest.raises(registry.UnknownMeasureError, match=re.escape(f"{name!r}: {message}")):
        parse(name)


@given(st.sampled_from([spec for spec in SPECS if any(isinstance(d, Interval) for d in spec.domains.values())]),
       st.data())
def test_any_parameter_written_twice_is_refused(spec, data):
    key = data.draw(st.sampled_from([k for k, d in spec.domains.items() if isinstance(d, Interval)]))
    value = _edges(spec.domains[key])[0]
    written = f"{key}={value!r}"
    name = f"{spec.name}({written})@{value!r}" if key == spec.cutoff else f"{spec.name}({written}, {written})"
    with pytest.raises(registry.UnknownMeasureError, match="given twice"):
        parse(name)
