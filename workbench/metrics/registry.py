"""Measures by name: ``"P@10"``, ``"nDCG(gain=exp)@10"``, ``"RBP(p=0.8)"``, ``"R≺(n=10, wn=0.8)"``.

Every metric module registers its measures here with :func:`register`; :func:`parse` turns a name into a
callable :class:`Measure` whose ``str()`` parses back to an equal measure; :func:`evaluate` scores one topic.

    >>> m = parse("RBP(p=0.8)")
    >>> str(m), m.params["p"]
    ('RBP(p=0.8)', 0.8)

Grammar: ``NAME [ "(" key=value, ... ")" ] [ "@" cutoff ]`` (the two suffixes in either order), where NAME
is a registered name or alias and may itself hold parentheses (``F(R,S)``). Values are ints, floats or bare
words.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from workbench.scalars import parse_scalar

# The modules whose import registers measures; loaded on first use so that they may import this one.
_MODULES = (
    "workbench.metrics.reliability",
    "workbench.metrics.ranking",
    "workbench.metrics.clustering",
    "workbench.metrics.filtering",
    "workbench.metrics.baselines",
)


class UnknownMeasureError(ValueError):
    """A measure name or parameter the registry does not know; the message lists what it knows."""


@dataclass(frozen=True)
class MeasureSpec:
    """What the registry knows about one measure.

    ``compute(gold, output, **params)`` returns a float, or a mapping from which ``field`` is taken (so that
    measures computed together, like R≺ S≺ R∼ S∼, are computed once per :func:`evaluate` call).
    """

    name: str
    compute: Callable[..., Any]
    task: str
    source: str
    params: Mapping[str, Any] = field(default_factory=dict)
    choices: Mapping[str, tuple] = field(default_factory=dict)
    range: tuple[float, float] = (0.0, 1.0)
    field: str | None = None
    cutoff: str | None = None
    aliases: tuple[str, ...] = ()
    description: str = ""


_REGISTRY: dict[str, MeasureSpec] = {}
_BY_NAME: dict[str, MeasureSpec] = {}
_loaded = False


def register(name: str, compute: Callable[..., Any], *, task: str, source: str,
             params: Mapping[str, Any] | None = None, choices: Mapping[str, tuple] | None = None,
             range: tuple[float, float] = (0.0, 1.0), field: str | None = None, cutoff: str | None = None,
             aliases: Iterable[str] = (), description: str = "") -> MeasureSpec:
    """Add a measure to the registry (called by the metric modules at import time)."""
    spec = MeasureSpec(name, compute, task, source, MappingProxyType(dict(params or {})),
                       MappingProxyType(dict(choices or {})), range, field, cutoff, tuple(aliases),
                       description)
    if cutoff is not None and cutoff not in spec.params:
        raise ValueError(f"measure {name}: cutoff parameter {cutoff!r} is not among its parameters")
    for key in (name, *spec.aliases):
        if key in _BY_NAME and _BY_NAME[key].name != name:
            raise ValueError(f"measure name {key!r} registered twice")
        _BY_NAME[key] = spec
    _REGISTRY[name] = spec
    return spec


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in _MODULES:
            importlib.import_module(module)


def _parameters(spec: MeasureSpec) -> str:
    """The parameters with their defaults, e.g. ``n, wn, missing=tail`` (a bare key has no default)."""
    return ", ".join(k if v is None else f"{k}={_format_value(v)}" for k, v in spec.params.items()
                     if k != spec.cutoff)


def _spelling(spec: MeasureSpec, with_parameters: bool = True) -> str:
    """How a user writes the measure, e.g. ``P@k`` or ``RBP(p=0.8)``."""
    text = spec.name
    if with_parameters and _parameters(spec):
        text += f"({_parameters(spec)})"
    if spec.cutoff:
        text += f"@{spec.cutoff}"
    return text


def known_names() -> list[str]:
    """Every registered spelling, for error messages and listings."""
    _load()
    return [_spelling(spec) for spec in _REGISTRY.values()]


@dataclass(frozen=True)
class Measure:
    """A registered measure with its parameters bound; call it as ``measure(gold, output) → float``."""

    spec: MeasureSpec
    bound: tuple[tuple[str, Any], ...]

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.bound)

    @property
    def name(self) -> str:
        return self.spec.name

    def __str__(self) -> str:
        params = self.params
        shown = [(k, v) for k, v in params.items() if k != self.spec.cutoff and v != self.spec.params[k]]
        text = self.spec.name
        if shown:
            text += "(" + ", ".join(f"{k}={_format_value(v)}" for k, v in shown) + ")"
        if self.spec.cutoff and params[self.spec.cutoff] is not None:
            text += f"@{_format_value(params[self.spec.cutoff])}"
        return text

    def compute(self, gold, output):
        """The raw result of the spec's compute function (a float or a mapping)."""
        return self.spec.compute(gold, output, **self.params)

    def pick(self, result) -> float:
        return float(result[self.spec.field] if self.spec.field else result)

    def __call__(self, gold, output) -> float:
        return self.pick(self.compute(gold, output))


def _format_value(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _coerce(spec: MeasureSpec, key: str, value: Any, name: str) -> Any:
    default = spec.params[key]
    if isinstance(default, bool) and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(default, int) and not isinstance(default, bool):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise UnknownMeasureError(f"{name!r}: parameter {key} must be an integer, got {value!r}")
    elif isinstance(default, float) and isinstance(value, int):
        value = float(value)
    if key in spec.choices and value not in spec.choices[key]:
        raise UnknownMeasureError(
            f"{name!r}: parameter {key} must be one of {', '.join(map(str, spec.choices[key]))}, got {value!r}")
    return value


_SUFFIX = re.compile(r"\s*(?:\((?P<params>[^()]*)\)|@(?P<cutoff>[^@()\s]+))")


def parse(name: str | Measure) -> Measure:
    """The :class:`Measure` a name denotes; raises :class:`UnknownMeasureError` listing the known ones."""
    if isinstance(name, Measure):
        return name
    _load()
    if not isinstance(name, str):
        raise UnknownMeasureError(f"a measure name must be a string, got {type(name).__name__}")
    text = name.strip()
    spec = None
    for key in sorted(_BY_NAME, key=len, reverse=True):
        if text.startswith(key) and (len(text) == len(key) or text[len(key)] in "(@ \t"):
            spec, rest = _BY_NAME[key], text[len(key):]
            break
    if spec is None:
        raise UnknownMeasureError(f"unknown measure {name!r}; known measures: {', '.join(known_names())}")
    given: dict[str, Any] = {}
    seen_params = seen_cutoff = False
    while rest.strip():
        match = _SUFFIX.match(rest)
        if not match:
            raise UnknownMeasureError(
                f"cannot read {rest.strip()!r} after {spec.name!r} in {name!r}; write e.g. {_spelling(spec)}")
        if match.group("params") is not None and not seen_params:
            seen_params = True
            for item in filter(None, (p.strip() for p in match.group("params").split(","))):
                key, sep, value = item.partition("=")
                key = key.strip()
                if not sep or key not in spec.params:
                    allowed = ", ".join(spec.params) or "none"
                    raise UnknownMeasureError(
                        f"{name!r}: unknown parameter {key!r} for {spec.name} (its parameters: {allowed})")
                given[key] = parse_scalar(value)
        elif match.group("cutoff") is not None and spec.cutoff and not seen_cutoff:
            seen_cutoff = True
            given[spec.cutoff] = parse_scalar(match.group("cutoff"))
        else:
            raise UnknownMeasureError(f"cannot read {match.group(0).strip()!r} in {name!r}; "
                                      f"write e.g. {_spelling(spec)}")
        rest = rest[match.end():]
    params = {key: _coerce(spec, key, given[key], name) if key in given else default
              for key, default in spec.params.items()}
    return Measure(spec, tuple(params.items()))


def evaluate(gold, output, measures: Iterable[str | Measure]) -> dict[str, float]:
    """Score one topic: ``{name as given: value}``. Measures that share a computation share one call.

    >>> from workbench.model import Organization
    >>> g = Organization.parse("d1 d2\\nd3")
    >>> evaluate(g, g, ["R≺(n=10, wn=0.8)"])
    {'R≺(n=10, wn=0.8)': 1.0}
    """
    results: dict[str, float] = {}
    shared: dict[tuple, Any] = {}
    for given in measures:
        measure = parse(given)
        key = (measure.spec.compute, measure.bound)
        if key not in shared:
            shared[key] = measure.compute(gold, output)
        results[given if isinstance(given, str) else str(given)] = measure.pick(shared[key])
    return results


def measures() -> Any:
    """A DataFrame of every registered measure: name, aliases, task, parameters, range, source."""
    import pandas as pd

    _load()
    return pd.DataFrame(
        [
            {
                "name": _spelling(spec, with_parameters=False),
                "aliases": ", ".join(spec.aliases),
                "task": spec.task,
                "parameters": _parameters(spec),
                "range": f"[{spec.range[0]:g}, {spec.range[1]:g}]",
                "source": spec.source,
                "description": spec.description,
            }
            for spec in _REGISTRY.values()
        ]
    )
