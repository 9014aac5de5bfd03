"""Issue 29 items 1 and 3: every measure is declared once, and everything reads the declaration.

The walk over the registry: each declaration is documented (source, description, every parameter's default, domain
and description), spelled (its trec_eval and ir_measures names lead back to it; every trec_eval measure the drop-in
prints names a declared measure), aggregated and scored on a missing topic as it says; the drop-in calls no kernel
itself; and what ``Campaign.evaluate`` scores on a topic a run lacks is what ``Campaign.explain`` explains and the
Inspector shows, for every measure and every ``missing_topics`` policy.
"""

from __future__ import annotations

import ast
import math
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench
from tests.conftest import reference_module
from workbench.data import Campaign
from workbench.errors import WorkbenchError
from workbench.metrics import registry
from workbench.metrics.registry import MISSING_VALUES, READS, Interval, missing_value, parse, spec_of, worst
from workbench.metrics.summary import AGGREGATES
from workbench.model import Organization
from workbench.model.labelling import Labelling
from workbench.trec_eval import MEASURES as TREC_MEASURES

SPECS = registry.specs()
SCORED = [spec for spec in SPECS if spec.reads == "organizations" and spec.returns == "number"]


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_declaration_is_documented(spec):
    assert spec.source and spec.description, spec.name
    for key, param in spec.parameters.items():
        assert param.domain is not None and param.description, (spec.name, key)
        assert param.domain.reason(param.default) is None or param.default is None, (spec.name, key)
    assert spec.aggregate in AGGREGATES and spec.missing in MISSING_VALUES and spec.reads in READS


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_spelling_leads_back_to_its_declaration(spec):
    for name in spec.spellings.get("trec_eval", ()):
        assert spec_of(name, "trec_eval") is spec
    for name in spec.spellings.get("ir_measures", ()):
        if " (" in name:  # a note: ir_measures' name is another measure's here (Accuracy, ir_measures' ranking one)
            bare = name.partition(" (")[0]
            assert spec_of(bare) is not spec and bare in name.partition(" (")[2], name
            continue
        assert spec_of(name) is spec, name  # ir_measures' names are the workbench's
    for alias in spec.aliases:
        assert spec_of(alias) is spec


def test_every_measure_the_drop_in_prints_is_declared_once():
    """runid and num_q's count are trec_eval's own lines; every other name is a declared measure's trec_eval
    spelling, and trec_eval.py imports no kernel: it scores through the declarations."""
    for measure in TREC_MEASURES:
        if measure.summary == "runid":
            continue
        assert measure.name in measure.spec.spellings["trec_eval"]
    source = Path(workbench.__file__).with_name("trec_eval.py").read_text(encoding="utf-8")
    imported = {node.module for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)}
    kernels = {"workbench.metrics.ranking.kernels", "workbench.metrics.ranking.trec",
               "workbench.metrics.ranking.preferences", "workbench.metrics.ranking.judgement_groups",
               "workbench.metrics.ranking.cutoffs", "workbench.metrics.ranking"}
    assert not imported & kernels


@pytest.mark.parametrize("spec", SCORED, ids=[spec.name for spec in SCORED])
def test_the_missing_value_is_the_declared_one(spec):
    """A measure declared "worst" scores its worst value on a topic the run lacks; one declared "empty" scores
    what its kernel gives an output that retrieves nothing (trec_eval -c's placeholder for a gain table)."""
    name = _written(spec)
    if spec.missing == "worst":
        expected = float(spec.range[1] if spec.direction == "lower" else spec.range[0])
        assert missing_value(name) == worst(name) == expected
    else:
        assert missing_value(name) is None and spec.task == "ranking"


def _written(spec) -> str:
    """The measure with its required parameters given (at their domains' low ends), as a name."""
    needed = {key: _inside(param.domain) for key, param in spec.parameters.items()
              if param.domain.reason(param.default) is not None}
    return str(registry.bind(spec, needed))


def _inside(domain) -> float:
    if isinstance(domain, Interval):
        low = 1.0 if math.isinf(domain.low) else domain.low
        return int(low) + (1 if domain.low_open else 0) if domain.integer else low + (0.5 if domain.low_open else 0)
    raise AssertionError(f"no default for {domain}")


# ------------------------------------------------------------------------------ one missing-value rule
_GOLDS = {
    "ranking": lambda: {"q1": Organization.from_graded({"a": 2, "b": 1, "c": 0}),
                        "q2": Organization.from_graded({"d": 1, "e": 1})},
    "filtering": lambda: {"q1": Organization.from_filtering(["a", "b"], ["c", "d"]),
                          "q2": Organization.from_filtering(["e"], ["f", "g"])},
    "baselines": lambda: {"q1": Organization.from_filtering(["a", "b"], ["c", "d"]),
                          "q2": Organization.from_filtering(["e"], ["f", "g"])},
    "clustering": lambda: {"q1": Organization.from_clustering([["a", "b"], ["c"]]),
                           "q2": Organization.from_clustering([["d"], ["e", "f"]])},
    "organization": lambda: {"q1": Organization.parse("a {b c}\nd"), "q2": Organization.parse("{e f}\ng")},
}
_SOFT = ("ICM-Soft", "ICM-Soft-Norm", "CrossEntropy", "MAE")
_GOLDS["classification"] = lambda: {"q1": Labelling.parse("1: A\n2: B\n3: C", gold=True),
                                    "q2": Labelling.parse("4: A\n5: A", gold=True)}
_GOLDS["soft"] = lambda: {"q1": Labelling.parse("1: {A: 0.8, B: 0.2}\n2: {A: 0.3, B: 0.7}", gold=True),
                          "q2": Labelling.parse("3: {A: 0.5, B: 0.5}\n4: {A: 0.1, B: 0.9}", gold=True)}
_OUTPUTS = {
    "classification": lambda: Labelling.parse("1: A\n2: C\n3: C"),
    "soft": lambda: Labelling.parse("1: {A: 0.6, B: 0.4}\n2: {A: 0.5, B: 0.5}"),
    "ranking": lambda: Organization.from_ranking(["b", "x", "a"]),
    "filtering": lambda: Organization.from_filtering(["a", "c"], ["b", "d"]),
    "baselines": lambda: Organization.from_clustering([["a", "c"]]),
    "clustering": lambda: Organization.from_clustering([["a"], ["b", "c"]]),
    "organization": lambda: Organization.parse("{b c}\na\nd"),
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from(SCORED), policy=st.sampled_from(["zero", "skip", "error"]))
def test_evaluate_explain_and_the_inspector_agree_on_a_topic_the_run_lacks(spec, policy):
    """A property over the registry: for a run that answers q1 only, the value ``evaluate`` gives each topic (or
    its refusal) is the score ``explain`` gives it, and the Inspector shows the campaign's values."""
    task = "soft" if spec.name in _SOFT else spec.task
    gold = _GOLDS[task]()
    if spec.name in ("alpha_nDCG", "ERR_IA", "NRBP", "P_IA", "StRecall"):  # subtopics: the gold's clusters
        gold = {"q1": Organization.parse("{a b} {c}"), "q2": Organization.parse("{d} {e}")}
    runs = {"A": {"q1": _OUTPUTS[task]()}, "B": {"q1": _OUTPUTS[task](), "q2": _OUTPUTS[task]()}}
    campaign = Campaign(gold, runs)
    name = _written(spec) if spec.name != "CEM" else "CEM(order=A<B<C)"
    parameters = {"n": 10, "wn": 0.8} if spec.task == "organization" else {}
    if parameters:
        name = str(registry.bind(spec, parameters))
    elif spec.task == "baselines":
        name = str(registry.bind(spec, {"n": 12}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scored = campaign.evaluate([name], missing_topics=policy, progress=False)
        except WorkbenchError as refused:
            with pytest.raises(type(refused)):
                campaign.explain("A", None, name, missing_topics=policy)
            return
        explained = campaign.explain("A", None, name, missing_topics=policy)
    values = scored[scored["system"] == "A"].set_index("topic")["value"]
    assert list(values.index) == list(explained.scores.index)
    for topic, value in values.items():
        shown = explained.scores[topic]
        assert (math.isnan(value) and math.isnan(shown)) or value == pytest.approx(shown, abs=1e-12), \
            (name, policy, topic, value, shown)
    if policy == "zero":
        assert "q2" in values.index
        if spec.missing == "worst":
            assert values["q2"] == worst(name)


def test_the_inspector_shows_lam_and_vi_as_evaluate_scores_them():
    """The examples of issue 29: Lam% scores 1 (its worst) on a topic a run lacks in evaluate, explain and the
    Inspector alike; VI, unbounded, is refused in both doors."""
    reference_module("ipywidgets")
    from workbench.widgets.inspector_state import InspectorState

    gold = _GOLDS["filtering"]()
    output, other = _OUTPUTS["filtering"](), Organization.from_filtering(["e", "f"], ["g"])
    campaign = Campaign(gold, {"A": {"q1": output}, "B": {"q1": output, "q2": other}})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = InspectorState(campaign, ["A", "B"], "Lam%")
        state.topic = "q2"
        assert state.scores["A"] == 1.0
        assert state.explanation["A"].scores["q2"] == 1.0
        assert float(state.rows("A")["contribution"].sum()) == 1.0
    clustering = Campaign(_GOLDS["clustering"](), {"A": {"q1": _OUTPUTS["clustering"]()}})
    with pytest.raises(WorkbenchError, match="no worst value"):
        clustering.evaluate(["VI"], progress=False)
    with pytest.raises(WorkbenchError, match="no worst value"):
        clustering.explain("A", None, "VI")


def test_a_declared_measure_is_one_declaration():
    """The names every door reads come from one table: parse, spec_of and wb.measures() agree on each."""
    table = workbench.measures().set_index("name")
    assert len(table) == len(SPECS)
    for spec in SPECS:
        shown = registry._spelling(spec, with_parameters=False)
        assert table.loc[shown, "task"] == spec.task and table.loc[shown, "missing"] == spec.missing
        assert parse(_written(spec)).spec is spec


def test_what_only_the_drop_in_prints_is_refused_by_a_campaign_in_one_line():
    """relstring is text and prefs_simp reads preference judgements: a campaign names them and the command that
    prints them; evaluate gives relstring's text for one topic."""
    gold, output = Organization.from_graded({"a": 2, "b": 1}), Organization.from_ranking(["b", "x", "a"])
    assert workbench.evaluate(gold, output, "RelString") == {"RelString": "1-2"}
    campaign = Campaign({"q": gold}, {"s": {"q": output}})
    for name, says in (("RelString", "is text"), ("prefs_simp", "is scored from trec_eval's preferences")):
        with pytest.raises(WorkbenchError, match=f"'{name}' {says}.*trec_eval"):
            campaign.evaluate(name, progress=False)
