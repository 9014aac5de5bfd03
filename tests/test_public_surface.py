"""The public surface (issue 21 item 5): what ``dir`` shows, one lazy-export style, one spelling per function,
every error under WorkbenchError and every warning under WorkbenchWarning, custom measures added and removed
through the registry's public functions. Issue 39 item 3: the public modules export exactly the three doors, the
data model, the errors and the documented adaptors (docs/api.md), every name that scores is classified, and every
name kept for one release warns, naming its replacement."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import workbench
from workbench.errors import WorkbenchDeprecationWarning, WorkbenchError, WorkbenchWarning
from workbench.lazy import DEPRECATED
from workbench.metrics import registry
from workbench.model import Organization

PACKAGES = ["workbench", "workbench.analysis", "workbench.charts", "workbench.data", "workbench.data.trec",
            "workbench.fusion", "workbench.metrics", "workbench.widgets"]
PLUMBING = {"lazy", "lazy_exports", "needs_extra", "_EXPORTS", "_MODULES", "_version", "_export"}


@pytest.mark.parametrize("name", PACKAGES)
def test_dir_shows_the_exports_not_the_plumbing_and_every_export_resolves(name):
    package = importlib.import_module(name)
    shown = set(dir(package))
    assert not shown & PLUMBING, shown & PLUMBING
    assert set(package.__all__) <= shown
    assert {key for key in shown if not key.startswith("__")} - set(package.__all__) <= {
        "analysis", "charts", "data", "datasets", "fusion", "metrics", "widgets", "registry"}
    for export in package.__all__:  # one style: every name comes through the package's lazy __getattr__
        assert getattr(package, export) is not None


@pytest.mark.parametrize("name", PACKAGES)
def test_no_export_is_named_like_a_module_of_its_package(name):
    """An export named like a submodule would be hidden by the module once anything imports it (the import
    system binds the submodule on its package, and a lazy ``__getattr__`` is then never asked)."""
    package = importlib.import_module(name)
    modules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert set(package.__all__) & modules == set()


def test_the_top_level_has_campaign_and_one_spelling_of_parse_measure():
    assert workbench.Campaign.__name__ == "Campaign" and "metrics" in dir(workbench)
    assert workbench.parse_measure("AP@10") == workbench.metrics.parse_measure("AP@10")
    for package in (workbench, workbench.metrics):
        assert "parse" not in dir(package)
        with pytest.raises(AttributeError):
            package.parse  # noqa: B018


def _modules():
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def test_every_public_error_is_a_workbench_error_and_every_warning_a_workbench_warning():
    errors, warnings_ = [], []
    for module in _modules():
        for name, value in vars(module).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == module.__name__
                    and not name.startswith("_")):
                (warnings_ if issubclass(value, Warning) else errors).append(value)
    assert len(errors) > 30 and len(warnings_) >= 3
    assert [e for e in errors if not issubclass(e, WorkbenchError)] == []
    assert [w for w in warnings_ if not issubclass(w, WorkbenchWarning)] == []
    assert issubclass(workbench.widgets.SelectionError, WorkbenchError)


def half(gold, output):
    return 0.5


def test_registered_adds_a_custom_measure_for_a_block_and_removes_it():
    gold = Organization.parse("d1\nd2")
    with registry.registered("half-test", half, task="ranking", source="a notebook", aliases=("H-test",)) as spec:
        assert workbench.evaluate(gold, gold, ["half-test", "H-test"]) == {"half-test": 0.5, "H-test": 0.5}
        assert spec in registry.specs()
    assert spec not in registry.specs()
    with pytest.raises(workbench.UnknownMeasureError):
        workbench.parse_measure("H-test")


def test_registered_removes_the_measure_even_when_the_block_fails():
    with pytest.raises(ZeroDivisionError), registry.registered("half-test", half, task="ranking", source="t"):
        1 / 0  # noqa: B018
    assert "half-test" not in {spec.name for spec in registry.specs()}


def test_registered_refuses_a_taken_name_and_unregister_an_unknown_one():
    with pytest.raises(registry.MeasureRegistrationError, match="'AP' is taken"), \
            registry.registered("AP", half, task="ranking", source="t"):
        pass
    assert workbench.parse_measure("AP").spec.source != "t"  # the real AP is untouched
    with pytest.raises(workbench.UnknownMeasureError, match="no measure named 'no-such-measure'"):
        registry.unregister("no-such-measure")


def test_unregister_returns_the_spec_and_frees_its_names():
    spec = registry.register("half-test", half, task="ranking", source="t", aliases=("H-test",))
    assert registry.unregister("half-test") is spec
    again = registry.register("H-test", half, task="ranking", source="t")  # the alias is free again
    registry.unregister(again.name)


# --------------------------------------------------------------------------------------- one vocabulary
def test_rel_is_the_relevance_level_of_every_measure_and_rel_level_an_alias():
    assert [spec.name for spec in registry.specs() if "rel_level" in spec.params] == []
    for name in ("SetP", "Bpref", "R@5", "IPrec@0.3", "11ptAvg", "AP", "P@10", "NumRel"):
        written = workbench.parse_measure(name.replace("@", "(rel=2)@", 1) if "@" in name else f"{name}(rel=2)")
        assert "rel=2" in str(written) and workbench.parse_measure(str(written)) == written
        alias = str(written).replace("rel=2", "rel_level=2")
        assert workbench.parse_measure(alias) == written
    assert str(workbench.parse_measure("SetP(rel=2)")) == "SetP(rel=2)"


def test_rel_scores_as_rel_level_did_on_trec_evals_kernels():
    gold = Organization.from_graded({"d1": 2, "d2": 1, "d3": 1})
    output = Organization.parse("d2\nd1\nd4")
    # by hand: at rel=2 only d1 is relevant; it is retrieved second of three, under the judged non-relevant d2
    # (SetP 1/3, Bpref 1 − min(1, 1)/min(2, 1) = 0, R@1 0); at rel=1 d1 and d2 are relevant (SetP 2/3)
    scores = workbench.evaluate(gold, output, ["SetP(rel=2)", "Bpref(rel=2)", "R(rel=2)@1", "SetP"])
    assert scores == {"SetP(rel=2)": 1 / 3, "Bpref(rel=2)": 0.0, "R(rel=2)@1": 0.0, "SetP": 2 / 3}


def test_the_rs_names_are_one_table_read_from_the_registrations_with_ascii_aliases():
    from workbench.metrics.reliability import RS_FIELDS, RS_MEASURES

    organization = {spec.name: spec.field for spec in registry.specs() if spec.task == "organization"}
    assert organization == RS_FIELDS and RS_MEASURES == ("R≺", "S≺", "R∼", "S∼")
    for ascii_name, name in (("R<", "R≺"), ("S<", "S≺"), ("R~", "R∼"), ("S~", "S∼"), ("F<", "F≺"), ("F~", "F∼")):
        parse = workbench.parse_measure
        assert parse(f"{ascii_name}(n=10, wn=0.8)") == parse(f"{name}(n=10, wn=0.8)")


def test_the_missing_policies_have_one_name_per_meaning():
    from workbench.analysis import results
    from workbench.data import campaign
    from workbench.metrics import reliability

    assert reliability.MISSING_DOCUMENT_POLICIES == ("tail", "singleton", "replab")
    assert campaign.MISSING_TOPIC_POLICIES == ("zero", "skip", "error")
    assert results.MISSING_RESULT_POLICIES == ("error", "intersection")
    assert not any(hasattr(module, "MISSING_POLICIES") for module in (reliability, campaign, results))


# ------------------------------------------------------------------------------- the public surface (issue 39)
# What the public modules (docs/api.md, "The public surface") export besides their errors and warnings, each name
# a door, part of the data model doors take and give, or a documented adaptor. A name a public module exports
# that is none of these — a scoring function made public by accident — fails test_the_public_surface_is_exactly.
DOORS = {
    "workbench": ("evaluate", "explain", "Campaign", "read_campaign"),
    "workbench.data": ("Campaign", "evaluate_files", "read_campaign"),
}
DATA_MODEL = {
    "workbench": ("Organization", "Measure", "measures", "parse_measure", "Explanation", "MeasureExplanation",
                  "RSScores"),
    "workbench.data": ("Judgements", "RankedRun"),
    "workbench.metrics": ("Measure", "measures", "parse_measure"),
    "workbench.metrics.registry": ("Measure", "measures", "parse", "MeasureSpec", "Param", "TrecEvalName",
                                   "Explainer", "spec_of", "specs", "known_names", "as_spelled", "direction",
                                   "missing_value", "worst", "aggregate", "with_defaults", "bind", "declared_terms",
                                   "explanation_of", "DIRECTIONS", "ENGINE_NAMES", "MISSING_VALUES", "NEAREST",
                                   "PARAMETER_ALIASES", "READS", "SPELLING_TOOLS", "TREC_EVAL_GROUPS",
                                   "TREC_EVAL_KINDS", "MEASURE", "MEASURES", "ORGANIZATION", "SIDE", "TOOL",
                                   "Choices", "Interval", "Levels", "LevelsValue", "MappingValue", "Pairs", "Words"),
}
ADAPTORS = {
    # another tool's or paper's shape: pytrec_eval's evaluate_run, trec_eval's drop-in, the papers' R&S record
    "workbench": ("reliability_sensitivity",),
    "workbench.data": ("evaluate_run", "pyevall_report", "means", "qrels_grades", "run_scores", "sniff_format",
                       "read_cwl_costs", "read_gold", "read_hierarchy", "read_pyevall", "read_pyevall_campaign",
                       "read_ranx_qrels", "read_ranx_run", "read_replab", "read_runs", "read_trec_eval_output",
                       "read_trec_qrels", "read_trec_qrels_frame", "read_trec_run", "read_trec_run_frame",
                       "read_weps_clustering", "read_weps_runs", "write_ranx_qrels", "write_ranx_run", "write_replab",
                       "write_trec_eval_output", "write_trec_qrels", "write_trec_run", "write_weps_clustering"),
    "workbench.trec_eval": ("main", "evaluate", "render", "Options", "Evaluation", "TrecMeasure", "select_measures",
                            "bound", "MEASURES", "NICKNAMES", "ORDER", "EXIT_STATUSES", "JOINED_BLOCK",
                            "PARALLEL_CELLS", "PART_CELLS", "REL_FORMATS", "USAGE"),
    # custom measures
    "workbench.metrics.registry": ("register", "registered", "unregister"),
    # the analyses of results, fusion, charts, widgets and samples
    "workbench.analysis": (
        "Agreement", "AssessorAgreement", "CONSTRAINTS", "ComparisonReport", "FIGURE2_FUZZINESS", "POSTHOCS",
        "POSTHOC_TESTS", "Pool", "ScoreCube", "achieved_significance", "adjust", "aggregate_folds", "as_grid",
        "check_constraints", "compare_report", "curve_summary", "discriminative_power", "f_alpha", "f_alpha_curves",
        "filtering_report", "fleiss_kappa", "friedman", "group_systems", "homogeneous_groups", "kendall_tau_b",
        "make_pool", "measure_trust", "parametric_uir", "pearson_r", "posthoc", "precision_recall",
        "qrels_agreement", "rank_gap_strictness", "ranking_agreement", "reference_systems", "robustness",
        "score_cube", "sign_test", "significance", "stability_method", "swap_rates", "swap_sensitivity",
        "table6_report", "tau_ap", "top_n_strictness", "topic_deltas", "topic_samples", "topic_set_size",
        "topics_for_ci", "topics_for_power", "tukey_hsd", "uir", "uir_matrix", "unanimous_improvements",
        "unanimous_relation", "win_tie_loss"),
    "workbench.fusion": ("FusionSearch", "METHODS", "NORMS", "SUPERVISED", "TrainedFusion", "fuse", "normalize",
                         "optimize_fusion", "train_fusion", "vector_space_fusion"),
    "workbench.charts": (
        "UIR_THRESHOLD", "agreement_chart", "asl_chart", "critical_difference_chart", "enable_offline",
        "f_alpha_chart", "history_chart", "lost_mass_chart", "means_chart", "measure_scatter", "per_topic_chart",
        "precision_recall_chart", "save_chart", "scores_chart", "sensitivity_chart", "sign_plot", "stability_chart",
        "strictness_chart", "swap_chart", "topic_deltas_chart", "topic_set_size_chart", "trust_charts",
        "tukey_chart", "uir_heatmap", "with_data"),
    "workbench.widgets": ("Comparison", "Inspector", "InspectorState", "OrganizationEditor", "Workbench",
                          "WorkbenchState"),
    "workbench.datasets": ("Example", "SUFFIXES", "available", "folder", "load", "names", "parse_example", "path",
                           "shared"),
    # the one boundary every door passes: arguments and files
    "workbench.errors": ("excerpt", "families", "located", "quoted", "warn"),
    "workbench.validation": (
        "AnyOf", "Anything", "Choices", "DATAFRAME", "Domain", "ENCODING", "Elementwise", "Encoding", "FilePath",
        "Flag", "Function", "Instance", "Interval", "LazyInstance", "Levels", "LevelsValue", "ListOf", "MappingOf",
        "MappingValue", "Numbers", "Pairs", "SEED", "Switch", "Text", "check", "declared", "environment_switch",
        "format_value", "is_number", "parameter_error", "validate"),
    "workbench.reading.fields": ("rows",),
    "workbench.reading.json_input": ("MAX_DEPTH", "MAX_NUMBER", "deepest", "items", "load"),
    "workbench.reading.positions": ("LineIndex",),
    "workbench.reading.text": ("Text", "decode", "lines"),
}
API = Path(__file__).resolve().parents[1] / "docs" / "api.md"


def public_modules() -> list[str]:
    """The modules docs/api.md lists as public (its section "The public surface")."""
    section = API.read_text(encoding="utf-8").split("## The public surface", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- `(workbench[\w.]*)`$", section, flags=re.M)


def _is_error(value) -> bool:
    return inspect.isclass(value) and issubclass(value, BaseException)


def test_the_public_modules_are_those_the_api_page_lists_and_documents():
    listed = public_modules()
    assert len(listed) == 17 and listed == sorted(listed)
    named = set(DOORS) | set(DATA_MODEL) | set(ADAPTORS)
    assert named - set(listed) == set(), "a module the lists name is not on the api page"
    documented = re.findall(r"^\.\. automodule:: (\S+)$", API.read_text(encoding="utf-8"), flags=re.M)
    assert set(documented) <= set(listed), set(documented) - set(listed)


@pytest.mark.parametrize("name", public_modules())
def test_the_public_surface_is_exactly_the_doors_the_data_model_the_errors_and_the_adaptors(name):
    module = importlib.import_module(name)
    exported = set(module.__all__)
    errors = {export for export in exported if _is_error(getattr(module, export))}
    listed = [*DOORS.get(name, ()), *DATA_MODEL.get(name, ()), *ADAPTORS.get(name, ())]
    assert len(listed) == len(set(listed)), "a name listed twice"
    assert exported - errors - set(listed) == set(), "exported but neither a door, the data model nor an adaptor"
    assert set(listed) - exported == set(), "listed but not exported"


def test_a_scoring_function_made_public_by_accident_is_caught(monkeypatch):
    import workbench.data

    monkeypatch.setattr(workbench.data, "__all__", [*workbench.data.__all__, "score_topic"])
    monkeypatch.setattr(workbench.data, "score_topic", lambda: None, raising=False)
    with pytest.raises(AssertionError, match="neither a door"):
        test_the_public_surface_is_exactly_the_doors_the_data_model_the_errors_and_the_adaptors("workbench.data")


# Every name that scores or explains, in any module's __all__ (public or internal): the doors and adaptors above,
# or internal — the engines' and kernels' own, reached by users through a door. A new one fails until classified.
SCORING = re.compile(r"(^|_)(score|scores|values|evaluate|explain)(_|$)")
INTERNAL_SCORING = {
    "workbench.data.scoring": ("score_topic", "unanswered_values"),  # the per-topic engine's (system, topic)
    "workbench.data.explain": ("explain_run", "explain_of_nothing"),  # the body of Campaign.explain
    "workbench.data.engines": ("score_pairs", "table_values", "explain_of_nothing"),  # campaigns', the drop-in's
    "workbench.data.one_pair": ("evaluate", "explain"),  # wb.evaluate's and wb.explain's home
    "workbench.data.distributed": ("score_on",),  # a worker's chunk
    "workbench.data.streamed": ("evaluate_files", "stream_scores"),  # the streamed door's home, the CLI's rows
    "workbench.data.trec": ("evaluate_run", "run_scores"),  # the adaptors' homes (workbench.data exports them)
    "workbench.data.trec.memory": ("evaluate_run",),
    "workbench.data.trec.readers": ("run_scores",),
    "workbench.fusion.condorcet": ("copeland_scores",),  # a fusion method's own, reached through fuse
    "workbench.metrics.campaign_rs": ("campaign_scores", "encoded_scores", "measure_values",  # the R&S engine's
                                      "encoded_measure_values"),  # kernel
    "workbench.metrics.explain": ("explain_rs",),  # wb.explain(gold, output) without a measure
    "workbench.metrics.ranking": ("evaluate_table",),  # the kernels of a gain or subtopic table
    "workbench.metrics.ranking.declare": ("evaluate_table",),
    "workbench.metrics.per_topic": ("evaluate_topic",),  # the engines' one-pair value by the declaration
    "workbench.metrics.explanations.baselines": ("explain_baseline",),  # each family's explainer, which a
    "workbench.metrics.explanations.classification": ("explain_classification",),  # declaration names
    "workbench.metrics.explanations.clustering": ("explain_clustering",),
    "workbench.metrics.explanations.diversity": ("explain_subtopic_table", "explain_diversity"),
    "workbench.metrics.explanations.filtering": ("explain_filtering",),
    "workbench.metrics.explanations.organization": ("explain_organization",),
    "workbench.metrics.explanations.ranking": ("explain_table", "explain_ranking"),
    "workbench.analysis.results": ("score_cube",),  # results as a cube, not a score
    "workbench.analysis.meta.stability": ("fuzziness_values",),  # a meta-evaluation's parameter grid
    "workbench.charts.builders": ("scores_chart",),
    "workbench.widgets.labelling": ("scores_html",),
    "workbench.widgets.markup": ("scores_table",),
}


def test_every_name_that_scores_or_explains_is_a_door_an_adaptor_or_internal():
    found = {module.__name__: tuple(sorted(name for name in getattr(module, "__all__", ()) if SCORING.search(name)))
             for module in _modules()}
    found = {module: names for module, names in found.items() if names}
    public = {module: tuple(sorted(name for name in names if name in DOORS.get(module, ()) + ADAPTORS.get(module, ())))
              for module, names in found.items()}
    unclassified = {module: tuple(sorted(set(names) - set(public[module]) - set(INTERNAL_SCORING.get(module, ()))))
                    for module, names in found.items()}
    assert {module: names for module, names in unclassified.items() if names} == {}
    assert set(INTERNAL_SCORING) <= set(found), "an internal scoring name listed here is gone: drop it"
    assert not set(INTERNAL_SCORING) & set(public_modules())


# ---------------------------------------------------------------------- names kept for one release (issue 39)
def _campaign():
    return workbench.Campaign.from_dicts({"q1": {"d1": 1, "d2": 0}}, {"s": {"q1": {"d2": 2.0, "d1": 1.0}}})


def _old_campaign_score():
    return _campaign().score(["RR"], progress=False).rows, [("s", "q1", "RR", 0.5)]


def _old_rs_explain():
    from workbench.metrics import explain as module

    gold, output = Organization.parse("d1 {d2 d3}"), Organization.parse("{d1 d2} d3")
    return module.explain(gold, output, n=10, wn=0.8).scores, workbench.explain(gold, output, n=10, wn=0.8).scores


def _old_metrics_evaluate():
    gold, output = Organization.from_graded({"d1": 1, "d2": 1}), Organization.from_ranking(["d2", "x", "d1"])
    wanted = workbench.evaluate(gold, output, ["AP", "R≺(n=10, wn=0.8)"])
    return workbench.metrics.evaluate(gold, output, ["AP", "R≺(n=10, wn=0.8)"]), wanted


def _old_registry_evaluate():
    gold, output = Organization.parse("d1 {d2 d3}"), Organization.parse("{d1 d2} d3")
    return registry.evaluate(gold, output, "NMI"), workbench.evaluate(gold, output, "NMI")


USES = {  # each deprecated name used, and what its replacement gives
    "workbench.data.campaign.Campaign.score": (_old_campaign_score, "Campaign.evaluate"),
    "workbench.metrics.explain.explain": (_old_rs_explain, "workbench.explain"),
    "workbench.metrics.evaluate": (_old_metrics_evaluate, "workbench.evaluate"),
    "workbench.metrics.registry.evaluate": (_old_registry_evaluate, "workbench.evaluate"),
}


def test_every_deprecated_name_is_used_below():
    list(_modules())  # each module registers the names it keeps as it is imported
    assert {name for name in DEPRECATED if name.startswith("workbench.")} == set(USES)


@pytest.mark.parametrize("old", sorted(USES))
def test_a_deprecated_name_warns_naming_its_replacement_and_gives_the_same_value(old):
    use, replacement = USES[old]
    with pytest.warns(DeprecationWarning) as caught:
        got, wanted = use()
    assert got == wanted
    messages = [str(w.message) for w in caught if issubclass(w.category, WorkbenchDeprecationWarning)]
    assert messages == [f"{old} is deprecated and goes in the next release: use {replacement}"]
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, WorkbenchDeprecationWarning))


def test_a_deprecated_name_is_not_exported_and_an_unknown_one_still_raises():
    from workbench.metrics import explain as module

    assert "explain" not in module.__all__ and "explain" not in dir(module)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        module.nothing  # noqa: B018
    for package in (workbench.metrics, registry):  # a package's lazy exports still load beside its kept names
        assert "evaluate" not in package.__all__ and "evaluate" not in dir(package)
        with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
            package.nothing  # noqa: B018
    assert workbench.metrics.parse_measure("AP") == registry.parse("AP")
