"""Fusion methods declared as measures are: each parameter a :class:`~workbench.metrics.registry.Param` (default,
domain, description) with the ``grid`` :func:`~workbench.fusion.optimize.optimize_fusion` tries, whether the method
takes one weight per run, and where it comes from. The doors check what they are given against the declaration
(:meth:`Declared.arguments`, :class:`Weights`) through :func:`~workbench.validation.check`; the kernels trust it.

    >>> rbc = Declared(params={"phi": MethodParam(0.8, Interval(0, 1, low_open=True, high_open=True), "persistence")})
    >>> rbc.arguments("rbc", {}, "fuse")
    {'phi': 0.8}
    >>> rbc.arguments("rbc", {"phi": 1}, "fuse")
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: fuse: phi must be in (0, 1), got 1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workbench.errors import quoted
from workbench.metrics.registry import Param
from workbench.validation import Choices, Domain, Interval, Numbers, check, is_number

__all__ = ["MethodParam", "Declared", "Keywords", "NotedChoices", "Weights"]


@dataclass(frozen=True)
class MethodParam(Param):
    """A parameter of a fusion method: a measure's :class:`~workbench.metrics.registry.Param` and the values
    :func:`~workbench.fusion.optimize.optimize_fusion` tries for it (``grid``, each inside the domain)."""

    grid: tuple = ()


@dataclass(frozen=True, kw_only=True)
class Declared:
    """What every fusion method declares: its parameters (:class:`MethodParam`, by name), whether it takes one
    weight per run, where it comes from, and the normalisations it reads."""

    params: Mapping[str, MethodParam] = field(default_factory=dict)
    weighted: bool = False
    source: str = ""

    @property
    def norms(self) -> Domain:  # pragma: no cover - each kind of method says its own
        """The normalisations the method reads (``norm``)."""
        raise NotImplementedError

    @property
    def auto(self) -> str | None:  # pragma: no cover - each kind of method says its own
        """What ``norm="auto"`` means for the method."""
        raise NotImplementedError

    def arguments(self, method: str, given: Mapping[str, Any], function: str) -> dict[str, Any]:
        """Each parameter of ``method``: the value ``given`` (else its default) inside its declared domain, an
        integer one as an ``int``; a :class:`~workbench.errors.ParameterError` naming ``function`` otherwise,
        or for a name the method does not declare."""
        check(given, Keywords(method, tuple(self.params)), "params", function)
        values = {}
        for name, param in self.params.items():
            domain: Domain = param.domain  # type: ignore[assignment]  # a method's parameter always declares one
            value = check(given.get(name, param.default), domain, name, function)
            values[name] = int(value) if getattr(domain, "integer", False) else value
        return values


@dataclass(frozen=True)
class Keywords(Domain):
    """The keyword arguments of a method: those it declares (``names``), no other.

    >>> Keywords("rrf", ("k",)).reason({"phi": 0.5})
    'must name parameters of rrf (k), not phi'
    """

    method: str
    names: tuple[str, ...]

    def __str__(self) -> str:
        return f"parameters of {self.method} ({', '.join(self.names) or 'it takes none'})"

    def reason(self, value: Any) -> str | None:
        unknown = [str(name) for name in value if name not in self.names]
        return f"must name {self}, not {', '.join(unknown)}" if unknown else None


@dataclass(frozen=True)
class NotedChoices(Choices):
    """:class:`~workbench.validation.Choices` with a ``note`` saying why the others are left out.

    >>> NotedChoices((None,), "rrf takes no weights").reason([1, 2])
    'must be one of None (rrf takes no weights)'
    """

    note: str = ""

    def __str__(self) -> str:
        return f"{super().__str__()} ({self.note})" if self.note else super().__str__()


@dataclass(frozen=True)
class Weights(Domain):
    """One finite number per run, as a list in the runs' order or ``{system: weight}``, or None (1 each); given the
    runs' ``names``, as many as they are (a mapping naming each). The reason names the weight that is not.

    >>> Weights().reason([1.0, float("nan")])
    'must be finite numbers (element 1 is nan)'
    >>> Weights(("a", "b")).reason({"a": 1.0})
    "must be one finite number per run (a, b), as a list in their order or {system: weight} (it names 'a')"
    """

    names: tuple[str, ...] | None = None

    def __str__(self) -> str:
        runs = f" ({', '.join(self.names)})" if self.names is not None else ""
        return f"one finite number per run{runs}, as a list in their order or {{system: weight}}"

    def reason(self, value: Any) -> str | None:
        if value is None:
            return None
        if isinstance(value, Mapping):
            for key, weight in value.items():
                if Interval().reason(weight) is not None:
                    return f"must be {self} (the weight of {quoted(key)} is {quoted(weight)})"
            given = [str(key) for key in value]
            if self.names is not None and sorted(given) != sorted(self.names):
                return f"must be {self} (it names {', '.join(map(repr, given))})"
            return None
        why = Numbers().reason(value)
        if why is not None:
            return why
        size = Numbers().array(value).size
        return f"must be {self} ({size} given)" if self.names is not None and size != len(self.names) else None

    def wrong_type(self, value: Any) -> bool:
        if isinstance(value, Mapping):
            return not all(is_number(weight) for weight in value.values())
        return value is not None and Numbers().wrong_type(value)

    def outside(self) -> tuple:
        return ("text", [1.0, float("nan")], {"a": float("inf")})
