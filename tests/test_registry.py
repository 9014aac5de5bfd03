"""The measure registry: names with parameters, round trips, clear errors, evaluate."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import Organization, UnknownMeasureError, evaluate, measures, parse_measure
from workbench.metrics import registry
from workbench.metrics.registry import known_names

GOLD = Organization.parse("d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}")


@pytest.mark.parametrize("name", ["R≺(n=10, wn=0.8)", "S∼(missing=replab)", "R_priority", "F∼(n=5, wn=0.5)"])
def test_str_parses_back_to_an_equal_measure(name):
    measure = parse_measure(name)
    assert parse_measure(str(measure)) == measure


def test_aliases_and_parameter_order_denote_the_same_measure():
    assert parse_measure("R_priority(wn=0.8, n=10)") == parse_measure("R≺(n=10, wn=0.8)")
    assert str(parse_measure("R_priority(wn=0.8, n=10)")) == "R≺(n=10, wn=0.8)"


def test_unknown_names_are_answered_from_the_registry(register_measure):
    """The nearest names are the registry's (a measure registered now among them), and the count is all of it."""
    register_measure("MAPPING-test", lambda gold, output: 0.0)
    with pytest.raises(UnknownMeasureError) as caught:
        parse_measure("MAPPING-tst@7")
    message = str(caught.value)
    assert message.startswith("unknown measure 'MAPPING-tst@7' (did you mean 'MAPPING-test'?)")
    assert message.endswith(f"workbench.measures() lists all {len(known_names())}")


@pytest.mark.parametrize(("name", "message"), [
    ("R≺(k=3)", "unknown parameter 'k' for R≺"),
    ("R≺(missing=none)", "missing must be one of tail, singleton, replab"),
    ("R≺ extra", "cannot read"),
    ("R≺@10", "cannot read"),
])
def test_bad_parameters_are_named(name, message):
    with pytest.raises(UnknownMeasureError, match=message):
        parse_measure(name)


def test_evaluate_keys_results_by_the_names_as_given():
    output = Organization.parse("{d6 d7}\n{d4 d5} {d6 d7}\nd1 {d2 d3 d4}")
    result = evaluate(GOLD, output, ["R∼(n=10, wn=0.8)", "R≺(n=10,wn=0.8)"])
    assert list(result) == ["R∼(n=10, wn=0.8)", "R≺(n=10,wn=0.8)"]
    assert result["R≺(n=10,wn=0.8)"] == pytest.approx(0.6386, abs=1e-4)  # Amigó et al., SIGIR 2013, Table 9, output 5


def test_measures_lists_task_parameters_range_and_source():
    table = measures()
    row = table.set_index("name").loc["R≺"]
    assert row["task"] == "organization" and row["range"] == "[0, 1]" and "SIGIR 2013" in row["source"]
    assert row["parameters"] == "n, wn, missing=tail" and row["aliases"] == "R_priority, R<"
    assert {"name", "aliases", "task", "parameters", "range", "source"} <= set(table.columns)


def test_every_named_error_is_a_workbench_error():
    import workbench.analysis.constraints as constraints
    import workbench.analysis.results as results
    import workbench.charts.builders as builders
    import workbench.cli as cli
    import workbench.data as data
    import workbench.datasets as datasets
    import workbench.metrics.baselines as baselines
    import workbench.metrics.clustering as clustering
    import workbench.metrics.filtering as filtering
    import workbench.metrics.ranking as ranking
    import workbench.widgets.workbench as widget
    from workbench import OrganizationError, UnknownMeasureError, WorkbenchError

    errors = [OrganizationError, UnknownMeasureError, constraints.ConstraintCheckError, results.ResultsError,
              builders.ChartDataError, cli.CliError, data.TrecFormatError, data.WepsFormatError,
              data.ReplabFormatError, data.CampaignError, datasets.DatasetError, baselines.BaselineInputError,
              clustering.ClusteringInputError, filtering.FilteringInputError, ranking.RankingInputError,
              widget.WorkbenchFormatError]
    assert all(issubclass(error, WorkbenchError) and issubclass(error, ValueError) for error in errors)


def test_declared_domains_are_checked_when_a_name_is_parsed():
    from workbench.metrics.registry import Choices, Interval, MeasureParameterError

    assert Interval(0, 1, low_open=True).reason(0) == "must be in (0, 1]"
    assert Interval(0, 1, low_open=True).reason(0.5) is None
    assert Interval(1, integer=True).reason(2.5) == "must be an integer ≥ 1"
    assert Interval(1, integer=True, optional=True).reason(None) is None
    assert Choices(("a", "b")).reason("c") == "must be one of a, b"
    with pytest.raises(MeasureParameterError, match="parameter gain must be one of linear, exp, got 'log'"):
        parse_measure("nDCG(gain=log)")


# ----------------------------------------------------------------------------- ir_measures and trec_eval names
@pytest.mark.parametrize(("spelling", "canonical"), [
    ("map", "AP"), ("map_cut_100", "AP@100"), ("ndcg", "nDCG"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"),
    ("P_5", "P@5"), ("recip_rank", "RR"), ("success_1", "Success@1"), ("RPrec", "Rprec"),
    ("AP(rel_level=2)", "AP(rel=2)"), ("P(rel_level=2)@5", "P(rel=2)@5"), ("RR@10", "RR@10"),
])
def test_trec_eval_spellings_and_old_parameter_names_are_aliases(spelling, canonical):
    assert parse_measure(spelling) == parse_measure(canonical)
    assert str(parse_measure(spelling)) == canonical


@pytest.mark.parametrize(("spelling", "canonical"), [
    ("P(cutoff=5)", "P@5"), ("AP(rel=2, cutoff=100)", "AP(rel=2)@100"), ("nDCG(dcg=exp-log2)@10", "nDCG(gain=exp)@10"),
    ("nDCG(dcg='log2')", "nDCG"), ("ERR(max_grade=None)", "ERR(max_grade=None)"), ("RBP(max_grade=None)", "RBP"),
])
def test_ir_measures_parameter_spellings_and_an_unset_optional_parameter(spelling, canonical):
    """ir_measures writes the cutoff ``cutoff=k`` and nDCG's gain curve ``dcg=log2|exp-log2``; a parameter whose
    domain allows None (unset: ERR's ``max_grade``, the topic's own top grade) is written ``None``."""
    assert parse_measure(spelling) == parse_measure(canonical)
    assert str(parse_measure(spelling)) == canonical
    assert parse_measure("ERR(max_grade=None)").params["max_grade"] is None
    with pytest.raises(UnknownMeasureError, match="parameter k must be an integer"):
        parse_measure("P(k=None)")


def test_a_trec_eval_cutoff_needs_a_measure_with_a_cutoff():
    with pytest.raises(UnknownMeasureError, match="unknown measure 'Rprec_5'"):
        parse_measure("Rprec_5")
    with pytest.raises(UnknownMeasureError, match="did you mean 'nDCG'"):
        parse_measure("nDGC@10")


def test_a_misspelt_measure_is_answered_with_the_few_nearest_names_not_every_one():
    """Issue 41: the message was about 4,000 characters (every known name); now the nearest ones, case aside."""
    with pytest.raises(UnknownMeasureError) as caught:
        parse_measure("Reliabilty")
    message = str(caught.value)
    assert message.startswith("unknown measure 'Reliabilty' (did you mean 'Reliability'?); known measures near it: "
                              "Reliability")
    assert message.endswith(f"; workbench.measures() lists all {len(registry.specs())}") and len(message) < 200
    with pytest.raises(UnknownMeasureError, match=r"\(did you mean 'BCubed-F'\?\)"):  # case aside
        parse_measure("bcubed-f")
    with pytest.raises(UnknownMeasureError) as caught:
        parse_measure("Precison@10")
    nearest = str(caught.value).split("known measures near it: ")[1].split("; ")[0].split(", ")
    assert nearest[0] == "Precision" and len(nearest) <= registry.NEAREST and len(str(caught.value)) < 200
    with pytest.raises(UnknownMeasureError, match="^unknown measure 'nope'; known measures: none near it; "):
        parse_measure("nope")


@given(st.data(), st.integers(1, 10_000))
def test_every_alias_with_a_trec_eval_cutoff_is_the_measure_at_that_cutoff(data, k):
    specs = [spec for spec in registry.specs() if spec.cutoff and spec.domains[spec.cutoff].integer
             and all(spec.domains[key].reason(default) is None for key, default in spec.params.items()
                     if key != spec.cutoff)]  # SDCG also needs max_rel, which a trec_eval spelling cannot write
    spec = data.draw(st.sampled_from(specs))
    spelling = data.draw(st.sampled_from((spec.name, *spec.aliases)))
    assert parse_measure(f"{spelling}_{k}") == parse_measure(f"{spec.name}@{k}")


def test_a_single_name_is_one_measure():
    output = Organization.parse("d4\nd1")
    assert evaluate(GOLD, output, "AP") == evaluate(GOLD, output, ["AP"])
    assert list(evaluate(GOLD, output, parse_measure("nDCG@10"))) == ["nDCG@10"]


def test_measures_lists_aliases_and_direction():
    table = measures().set_index("name")
    assert table.loc["AP@k", "aliases"] == "map, map_cut, MAP" and table.loc["AP@k", "direction"] == "higher"
    assert table.loc["Lam%", "direction"] == "lower"


def test_evaluate_names_what_is_not_an_organization_or_a_measure():
    from workbench import ParameterError

    with pytest.raises(ParameterError, match=r"^evaluate: gold must be an Organization \(.*\) or a Labelling "
                                             r"\(classification\), got 'd1'"):
        evaluate("d1", GOLD, ["AP"])
    with pytest.raises(ParameterError, match="^evaluate: measures must be a measure name, a Measure or a list of them, "
                                             "got 5"):
        evaluate(GOLD, GOLD, 5)
    with pytest.raises(ParameterError, match="^parse: name must be a measure name or a Measure, got 5"):
        parse_measure(5)
