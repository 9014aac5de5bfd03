"""One validator at every door (issue 38 item 2), walked as scikit-learn's ``test_public_functions`` walks its
metrics: every public function and method declares a domain for each of its parameters (:func:`validate`), every
default lies inside its domain, and a value outside any domain is refused before the function runs, with the one
error shape (:class:`ParameterError`: function, parameter, value, domain). A public function added without its
declaration fails :func:`test_every_public_function_declares_every_parameter`.

Besides, no module raises a bare ``ValueError`` or ``TypeError`` or checks a domain by hand ("must be one of"):
those checks live in :mod:`workbench.validation` (:func:`test_no_hand_written_domain_checks`)."""

from __future__ import annotations

import ast
import importlib
import inspect
import math
from pathlib import Path

import numpy as np
import pytest

from workbench.errors import ParameterError, ParameterTypeError
from workbench.validation import (
    AnyOf,
    Choices,
    FilePath,
    Flag,
    Instance,
    Interval,
    ListOf,
    MappingOf,
    Numbers,
    Text,
    check,
    declared,
    validate,
)

PACKAGES = ["workbench", "workbench.analysis", "workbench.charts", "workbench.data", "workbench.data.trec",
            "workbench.fusion", "workbench.metrics", "workbench.widgets", "workbench.datasets"]
EXTRA = ["workbench.datasets:fetch", "workbench.datasets:fetchable"]

# Classes the package builds and hands back (results, records, read data): their constructors are no door, their
# fields are what the package wrote. Their methods are doors and are walked.
RESULTS = {"Explanation", "Measure", "MeasureExplanation", "RSScores", "Agreement", "ComparisonReport", "ScoreCube",
           "Judgements", "RankedRun", "SubtopicJudgements", "Labels", "TrecLines", "FusionSearch", "TrainedFusion",
           "Example", "AssessorAgreement", "Pool"}


def _public() -> dict[str, object]:
    """Every public function and method, by qualified name."""
    found: dict[str, object] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        for export in package.__all__:
            value = getattr(package, export)
            if inspect.isclass(value) and issubclass(value, BaseException) or not callable(value):
                continue
            if not inspect.isclass(value):
                found[f"{value.__module__}.{value.__qualname__}"] = value
                continue
            if value.__name__ not in RESULTS:
                found[f"{value.__module__}.{value.__qualname__}"] = value.__init__
            for attribute, member in vars(value).items():
                if attribute.startswith("_") or isinstance(member, property):
                    continue
                member = member.__func__ if isinstance(member, classmethod | staticmethod) else member
                if callable(member) and getattr(member, "__qualname__", "").startswith(value.__qualname__):
                    found[f"{value.__module__}.{member.__qualname__}"] = member
    for spec in EXTRA:
        module, _, name = spec.partition(":")
        value = getattr(importlib.import_module(module), name)
        found[f"{value.__module__}.{value.__qualname__}"] = value
    return found


PUBLIC = _public()


def _parameters(function) -> list[inspect.Parameter]:
    """The parameters a caller gives (``self`` and ``cls`` aside)."""
    parameters = list(inspect.signature(function).parameters.values())
    if parameters and parameters[0].name in ("self", "cls"):
        parameters = parameters[1:]
    return parameters


def test_the_walk_finds_the_doors():
    assert len(PUBLIC) > 150
    assert "workbench.data.campaign.Campaign.evaluate" in PUBLIC
    assert "workbench.widgets.state.WorkbenchState.edit" in PUBLIC
    assert "workbench.data.samples.fetch" in PUBLIC


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_public_function_declares_every_parameter(name):
    function = PUBLIC[name]
    wanted = {p.name for p in _parameters(function)}
    if not wanted:
        return
    domains = declared(function)
    assert domains is not None, f"{name} is not validated: declare its parameters with @validate"
    assert wanted - set(domains) == set(), f"{name} declares no domain for {sorted(wanted - set(domains))}"


def _defaults(function):
    for parameter in _parameters(function):
        if parameter.default is not inspect.Parameter.empty:
            yield parameter.name, parameter.default


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_default_lies_in_its_domain(name):
    domains = declared(PUBLIC[name]) or {}
    outside = {key: value for key, value in _defaults(PUBLIC[name])
               if key in domains and domains[key].reason(value) is not None}
    assert outside == {}


def _outside_cases():
    for name in sorted(PUBLIC):
        function = PUBLIC[name]
        domains = declared(function) or {}
        kinds = {p.name: p.kind for p in inspect.signature(function).parameters.values()}
        for parameter, domain in domains.items():
            if kinds.get(parameter) is inspect.Parameter.POSITIONAL_ONLY:
                continue
            for i, value in enumerate(domain.outside()):
                yield pytest.param(name, parameter, value, id=f"{name}-{parameter}-{i}")


@pytest.mark.parametrize(("name", "parameter", "value"), list(_outside_cases()))
def test_a_value_outside_its_domain_is_refused_before_the_function_runs(name, parameter, value):
    function = PUBLIC[name]
    first = next(iter(inspect.signature(function).parameters), None)
    arguments = (None,) if first in ("self", "cls") else ()  # the wrapper refuses before self is used
    with pytest.raises(ParameterError) as caught:
        function(*arguments, **{parameter: value})
    error = caught.value
    assert (error.parameter, error.function) == (parameter, function.__qualname__)
    assert str(error).startswith(f"{function.__qualname__}: {parameter} ")
    assert len(str(error)) < 400 and "\n" not in str(error)


# ------------------------------------------------------------------------------------------ the validator itself
@validate(alpha=Interval(0, 1, low_open=True, high_open=True), test=Choices(("t", "wilcoxon")),
          x=Numbers(), y=Numbers(like="x"), name=Text(optional=True), files=ListOf(FilePath(), shortest=1),
          weights=MappingOf(Text(), Interval(0)), flag=Flag(), count=Interval(1, 10 ** 6, integer=True),
          either=AnyOf(Interval(2, integer=True), MappingOf()))
def _example(alpha=0.5, test="t", x=(), y=(), name=None, files=("a",), weights=None, flag=False, count=1,
             either=2):
    return "ran"


@pytest.mark.parametrize(("arguments", "message", "kind"), [
    ({"alpha": 1}, "_example: alpha must be in (0, 1), got 1", ParameterError),
    ({"alpha": "x"}, "_example: alpha must be a number in (0, 1), got 'x'", ParameterTypeError),
    ({"alpha": math.nan}, "alpha must be in (0, 1), got nan", ParameterError),
    ({"test": "z"}, "test must be one of t, wilcoxon, got 'z'", ParameterError),
    ({"test": 3}, "test must be one of t, wilcoxon, got 3", ParameterTypeError),
    ({"x": [1, math.nan]}, "x must be finite numbers (element 1 is nan)", ParameterError),
    ({"x": [1, 2], "y": [1]}, "y must hold as many entries as x (2), not 1", ParameterError),
    ({"x": "12"}, "x must be an array of finite numbers", ParameterTypeError),
    ({"name": ""}, "name must be a non-empty string or None", ParameterError),
    ({"files": [1]}, "files item 0 must be a file name", ParameterTypeError),
    ({"files": "a"}, "files must be a list of a file name", ParameterTypeError),
    ({"weights": {"a": -1}}, "weights value of 'a' must be in [0, inf)", ParameterError),
    ({"flag": 1}, "flag must be True or False, got 1", ParameterTypeError),
    ({"count": 10 ** 9}, "count must be an integer in [1, 1,000,000], got 1000000000", ParameterError),
    ({"count": 10 ** 5000}, "count must be an integer in [1, 1,000,000], got <an integer of about 5,000 digits>",
     ParameterError),
    ({"count": np.int64(3)}, None, None),
    ({"either": "x"}, "either must be an integer ≥ 2 or a mapping", ParameterTypeError),
    ({"either": 1}, "either must be an integer ≥ 2, got 1", ParameterError),
])
def test_the_one_error_shape(arguments, message, kind):
    if message is None:
        assert _example(**arguments) == "ran"
        return
    with pytest.raises(kind) as caught:
        _example(**arguments)
    assert message in str(caught.value)
    assert caught.value.function == "_example" and caught.value.parameter in arguments


def test_positional_arguments_are_checked_and_defaults_are_not():
    with pytest.raises(ParameterError, match="alpha"):
        _example(2.0)
    assert _example() == "ran"


def test_check_names_the_function_and_the_parameter():
    assert check(3, Interval(2, 5, integer=True), "folds", "optimize_fusion") == 3
    with pytest.raises(ParameterError) as caught:
        check(9, Interval(2, 5, integer=True), "folds", "optimize_fusion")
    assert (caught.value.function, caught.value.parameter, caught.value.value) == ("optimize_fusion", "folds", 9)


def test_an_instance_domain_refuses_by_type():
    with pytest.raises(ParameterTypeError, match="must be a dict"):
        check([], Instance((dict,), "a dict"), "x")


# ------------------------------------------------------------------------------------------ no hand-written checks
PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
# phrases of a domain check written by hand; the validator's domains say them
HAND_WRITTEN = ("must be one of", "must be a positive", "must be an integer", "must be a whole number",
                "must be a number", "must be finite", "must be in [", "must be in (")


def _hand_checks(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        called = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        name = getattr(called, "id", None) or getattr(called, "attr", None)
        if name in ("ValueError", "TypeError"):
            found.append(f"{path.name}:{node.lineno} raise {name}")
        text = " ".join(piece.value for piece in ast.walk(node.exc)
                        if isinstance(piece, ast.Constant) and isinstance(piece.value, str))
        if any(phrase in text for phrase in HAND_WRITTEN):
            found.append(f"{path.name}:{node.lineno} {text[:60]!r}")
    return found


def test_no_hand_written_domain_checks():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path.name != "validation.py"
             for hit in _hand_checks(path)]
    assert found == []


def test_the_hand_check_finder_finds_one():
    probe = PACKAGE.parent / "tests" / "data" / "hand_check_probe.py"
    probe.write_text('def f(x):\n    if x not in ("a", "b"):\n        raise ValueError(f"x must be one of a, b")\n')
    try:
        assert len(_hand_checks(probe)) == 2
    finally:
        probe.unlink()
