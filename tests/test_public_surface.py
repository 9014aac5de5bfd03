"""The public surface (issue 21 item 5): what ``dir`` shows, one lazy-export style, one spelling per function,
every error under WorkbenchError and every warning under WorkbenchWarning, custom measures added and removed
through the registry's public functions."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import workbench
from workbench.errors import WorkbenchError, WorkbenchWarning
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
