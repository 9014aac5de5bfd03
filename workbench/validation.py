"""One validator for the arguments of every public function and method, built on the domains measures declare
their parameters with (:class:`Interval`, :class:`Choices`, ...), so that every door refuses a bad argument alike:
a :class:`~workbench.errors.ParameterError` naming the function, the parameter, the value and the domain
(:class:`~workbench.errors.ParameterTypeError`, also a ``TypeError``, for a value of the wrong type).

A public function declares a domain for each of its parameters with :func:`validate`; a check that depends on the
data (a number of folds up to the number of topics) calls :func:`check`. Domains bound what would allocate without
limit (a count of segments of at most a million), and :class:`Numbers` takes arrays of finite numbers, of the same
length as another argument where it says so (``like=``), naming the first element that is not::

    >>> @validate(alpha=Interval(0, 1, low_open=True, high_open=True), test=Choices(("t", "wilcoxon")))
    ... def significance(results, alpha=0.05, test="t"):
    ...     return alpha
    >>> significance(None, alpha=2)
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: significance: alpha must be in (0, 1), got 2
    >>> @validate(x=Numbers(), y=Numbers(like="x"))
    ... def correlation(x, y):
    ...     return 0.0
    >>> correlation([1, 2, float("nan")], [1, 2, 3])
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: correlation: x must be finite numbers (element 2 is nan), got [1, 2, nan]

Kernels behind a validated door trust what it declares and do not check again.
"""

from __future__ import annotations

import codecs
import functools
import inspect
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from workbench.errors import ParameterError, ParameterTypeError, quoted

__all__ = ["Domain", "Interval", "Choices", "LevelsValue", "Levels", "MappingValue", "Pairs", "Instance", "Text",
           "Flag", "FilePath", "Encoding", "ENCODING", "ListOf", "MappingOf", "AnyOf", "Numbers", "Elementwise",
           "Anything", "LazyInstance", "DATAFRAME", "Switch", "environment_switch", "Function", "SEED", "format_value",
           "is_number", "DeclarationError", "validate", "check", "declared", "parameter_error"]

F = TypeVar("F", bound=Callable[..., Any])


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (Python's or numpy's), not a truth value.

    >>> import numpy as np
    >>> is_number(2), is_number(np.float32(0.5)), is_number(True), is_number("2")
    (True, True, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and type(value).__name__ != "bool_"


def format_value(value: Any) -> str:
    """A parameter value as a measure name writes it (``0.8``, ``[0.25,0.5]``, ``{1:1,2:3}``, ``exp``)."""
    if isinstance(value, tuple) and not isinstance(value, MappingValue):
        return str(LevelsValue(value))
    return repr(value) if isinstance(value, float) else str(value)


class Domain:
    """What a parameter may take: :meth:`reason` says why a value is outside (None when it is inside),
    :meth:`wrong_type` whether that is a matter of type, and :meth:`outside` gives values outside, with which
    a test walks every validated function."""

    def reason(self, value: Any) -> str | None:  # pragma: no cover - every domain says its own
        raise NotImplementedError

    def wrong_type(self, value: Any) -> bool:
        return False

    def outside(self) -> tuple:
        return ()


@dataclass(frozen=True)
class Interval(Domain):
    """The domain of a numeric parameter: ``low ≤ value ≤ high`` (either end open, or integers only).

    An infinite end is open unless ``infinite`` says the value is defined there: ``Interval(0)`` is ``[0, inf)``
    and refuses ``inf``; ``Interval(0, infinite=True)`` is ``[0, inf]``. NaN is never inside. A count that would
    allocate memory declares its bound as ``high``.

    >>> Interval(0, 1, low_open=True).reason(0)
    'must be in (0, 1]'
    >>> Interval(1, integer=True).reason(3) is None, Interval(0).reason(float("inf"))
    (True, 'must be in [0, inf)')
    """

    low: float = float("-inf")
    high: float = float("inf")
    low_open: bool = False
    high_open: bool = False
    integer: bool = False
    optional: bool = False  # None (the parameter's "not given") is allowed
    infinite: bool = False  # an infinite end belongs to the domain

    def _open(self) -> tuple[bool, bool]:
        """Whether each end is open: as declared, and always at infinity unless ``infinite``."""
        return (self.low_open or (math.isinf(self.low) and not self.infinite),
                self.high_open or (math.isinf(self.high) and not self.infinite))

    def __str__(self) -> str:
        low_open, high_open = self._open()
        if self.integer and self.high == float("inf") and not self.infinite:
            return f"an integer ≥ {self.low:g}" if not low_open else f"an integer > {self.low:g}"
        high = f"{self.high:,}" if self.integer and self.high >= 1e4 and math.isfinite(self.high) else f"{self.high:g}"
        text = f"{'(' if low_open else '['}{self.low:g}, {high}{')' if high_open else ']'}"
        return ("an integer in " if self.integer else "in ") + text

    def reason(self, value: Any) -> str | None:
        """Why ``value`` is outside the domain, or None when it is inside."""
        if value is None:
            return None if self.optional else f"must be given ({self})"
        if not is_number(value):
            return f"must be {self}" if self.integer else f"must be a number {self}"
        if self.integer and not (isinstance(value, numbers.Integral) or float(value).is_integer()):
            return f"must be {self}"
        low_open, high_open = self._open()
        try:
            inside = ((value > self.low if low_open else value >= self.low)
                      and (value < self.high if high_open else value <= self.high))
        except OverflowError:  # an integer past a double, against a finite end
            inside = False
        return None if inside else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return value is not None and not is_number(value)

    def outside(self) -> tuple:
        found: list[Any] = ["a word", float("nan")]
        if not self.optional:
            found.append(None)
        if math.isfinite(self.low):
            found.append(self.low - 1 if not self.integer else int(self.low) - 1)
        if math.isfinite(self.high):
            found.append(self.high + 1 if not self.integer else int(self.high) + 1)
        elif not self.infinite:
            found.append(float("inf"))
        if self.integer:
            found.append(max(self.low, 0) + 0.5 if math.isfinite(self.low) else 0.5)
        return tuple(found)


@dataclass(frozen=True)
class Choices(Domain):
    """The domain of a parameter that takes one of a few values (None among them when it may be left out).

    >>> Choices(("linear", "exp")).reason("log")
    'must be one of linear, exp'
    """

    values: tuple

    def __str__(self) -> str:
        return "one of " + ", ".join(map(str, self.values))

    def reason(self, value: Any) -> str | None:
        try:
            inside = any(value is choice or (type(value) is type(choice) and value == choice)
                         or (is_number(value) and is_number(choice) and value == choice) for choice in self.values)
        except (TypeError, ValueError):  # an array, whose == is element-wise
            inside = False
        return None if inside else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        kinds = {type(choice) for choice in self.values if choice is not None}
        return value is not None and bool(kinds) and not any(isinstance(value, kind) for kind in kinds)

    def outside(self) -> tuple:
        return ("not-a-choice", object())


class LevelsValue(tuple):
    """A parameter written ``[a,b,...]``: several numbers in the order given (11ptAvg's recall levels).

    >>> str(LevelsValue([0.25, 0.5]))
    '[0.25,0.5]'
    """

    def __str__(self) -> str:
        return "[" + ",".join(format_value(v) for v in self) + "]"

    __repr__ = __str__


class MappingValue(tuple):
    """A parameter written ``{key:value,...}`` (ir_measures' ``nDCG(gains={1:1,2:3})``): hashable
    ``(key, value)`` pairs sorted by key, written back as given.

    >>> str(MappingValue({2: 3, 1: 1})), dict(MappingValue({2: 3}))
    ('{1:1,2:3}', {2: 3})
    """

    def __new__(cls, pairs: Mapping[Any, Any] | Iterable[tuple[Any, Any]]) -> MappingValue:
        return super().__new__(cls, sorted(dict(pairs).items()))

    def __str__(self) -> str:
        return "{" + ",".join(f"{format_value(k)}:{format_value(v)}" for k, v in self) + "}"

    __repr__ = __str__


@dataclass(frozen=True)
class Levels(Domain):
    """The domain of a :class:`LevelsValue` parameter: one or more numbers, each in ``[low, high]``.

    >>> Levels().reason(LevelsValue([0.5, 2.0]))
    'level 2.0 must be in [0, 1]'
    """

    low: float = 0.0
    high: float = 1.0

    def __str__(self) -> str:
        return f"a list [a,b,...] of numbers in [{self.low:g}, {self.high:g}]"

    def reason(self, value: Any) -> str | None:
        if not isinstance(value, tuple) or not value or isinstance(value, MappingValue):
            return f"must be {self}"
        for level in value:
            why = Interval(self.low, self.high).reason(level)
            if why is not None:
                return f"level {level!r} {why}"
        return None

    def outside(self) -> tuple:
        return (LevelsValue(()), LevelsValue([self.high + 1]))


@dataclass(frozen=True)
class Pairs(Domain):
    """The domain of a :class:`MappingValue` parameter: every key in ``keys``, every value in ``values``.

    >>> Pairs(Interval(1), Interval(0)).reason(MappingValue({0: 2}))
    'key 0 must be in [1, inf)'
    """

    keys: Interval
    values: Interval
    optional: bool = True

    def __str__(self) -> str:
        return f"a mapping {{key:value,...}} with keys {self.keys} and values {self.values}"

    def reason(self, value: Any) -> str | None:
        if value is None:
            return None if self.optional else f"must be given ({self})"
        if not isinstance(value, MappingValue):
            return f"must be {self}"
        for key, item in value:
            for what, domain, x in (("key", self.keys, key), ("value", self.values, item)):
                why = domain.reason(x)
                if why is not None:
                    return f"{what} {x!r} {why}"
        return None

    def outside(self) -> tuple:
        return ("a word",)


@dataclass(frozen=True)
class Instance(Domain):
    """A value of one of ``types`` (``what`` says it in words), or None when ``optional``.

    >>> Instance((int,), "a count").reason("3")
    'must be a count'
    """

    types: tuple[Any, ...]
    what: str
    optional: bool = False

    def __str__(self) -> str:
        return self.what + (" or None" if self.optional else "")

    def loaded(self) -> tuple[type, ...]:
        """The types a value is checked against."""
        return self.types

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        return None if isinstance(value, self.loaded()) else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return True

    def outside(self) -> tuple:
        return (object(),) if self.optional else (object(), None)


@dataclass(frozen=True)
class Text(Domain):
    """A string (not empty unless ``empty``; at most ``longest`` characters), or None when ``optional``.

    >>> Text().reason(""), Text().reason(3)
    ('must be a non-empty string', 'must be a non-empty string')
    """

    empty: bool = False
    optional: bool = False
    longest: int | None = None

    def __str__(self) -> str:
        what = "a string" if self.empty else "a non-empty string"
        if self.longest is not None:
            what += f" of at most {self.longest:,} characters"
        return what + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if not isinstance(value, str) or (not value and not self.empty) or (
                self.longest is not None and len(value) > self.longest):
            return f"must be {self}"
        return None

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str) and not (value is None and self.optional)

    def outside(self) -> tuple:
        found: tuple = (3, b"bytes") + (() if self.empty else ("",)) + (() if self.optional else (None,))
        return found + (("x" * (self.longest + 1),) if self.longest is not None else ())


@dataclass(frozen=True)
class Flag(Domain):
    """True or False (numpy's truth values too; not 1 or ``"yes"``)."""

    optional: bool = False

    def __str__(self) -> str:
        return "True or False" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        return None if isinstance(value, bool) or type(value).__name__ == "bool_" else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return True

    def outside(self) -> tuple:
        return ("yes", 2)


@dataclass(frozen=True)
class FilePath(Domain):
    """A file name: a ``str`` or ``os.PathLike`` (``bytes`` too, decoded as the file system decodes them), ``-``
    for standard input where the reader says so; never an integer, which ``open()`` would take as a file
    descriptor. None when ``optional``."""

    optional: bool = False

    def __str__(self) -> str:
        return "a file name (str or os.PathLike)" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if isinstance(value, str | bytes | os.PathLike) and not (isinstance(value, str | bytes) and not value):
            return None
        hint = " (open() would take an integer as a file descriptor)" if is_number(value) else ""
        return f"must be {self}{hint}"

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str | bytes | os.PathLike)

    def outside(self) -> tuple:
        return (1, 2.5) + (() if self.optional else (None,))


def _is_collection(value: Any) -> bool:
    """A sized, iterable collection that iterating does not consume (a list, tuple, set, array, Series), not text."""
    return (hasattr(value, "__len__") and hasattr(value, "__iter__") and not isinstance(value, str | bytes | Mapping)
            and not inspect.isgenerator(value) and not hasattr(value, "__next__"))


@dataclass(frozen=True)
class ListOf(Domain):
    """A collection (list, tuple, set, array; not a string) of ``shortest``.. ``longest`` items, each in ``items``;
    None when ``optional``.

    >>> ListOf(Text(), shortest=1).reason(["a", 3])
    'item 1 must be a non-empty string'
    """

    items: Domain | None = None
    shortest: int = 0
    longest: int | None = None
    optional: bool = False
    what: str = "a list"

    def __str__(self) -> str:
        items = f" of {self.items}" if self.items is not None and not isinstance(self.items, Anything) else ""
        size = f" ({self.shortest:,} at least)" if self.shortest else ""
        if self.longest is not None:
            size = f" ({self.shortest:,} to {self.longest:,})" if self.shortest else f" (at most {self.longest:,})"
        return f"{self.what}{items}{size}" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if not _is_collection(value):
            return f"must be {self}"
        size = len(value)
        if size < self.shortest or (self.longest is not None and size > self.longest):
            return f"must be {self}"
        if self.items is not None:
            for i, item in enumerate(value):
                why = self.items.reason(item)
                if why is not None:
                    return f"item {i} {why}"
        return None

    def wrong_type(self, value: Any) -> bool:
        if value is None and self.optional:
            return False
        if not _is_collection(value):
            return True
        if self.items is None:
            return False
        failing = [item for item in value if self.items.reason(item) is not None][:1]  # None may be the one
        return bool(failing) and self.items.wrong_type(failing[0])

    def outside(self) -> tuple:
        found: list[Any] = ["text", 3] + ([] if self.optional else [None])
        if self.shortest:
            found.append([])
        if self.items is not None and self.items.outside():
            found.append([self.items.outside()[0]] * max(self.shortest, 1))
        return tuple(found)


@dataclass(frozen=True)
class MappingOf(Domain):
    """A mapping whose keys are in ``keys`` and values in ``values`` (None: any), at least ``shortest`` entries; None
    when ``optional``.

    >>> MappingOf(Text(), Interval(0)).reason({"a": -1})
    "value of 'a' must be in [0, inf)"
    """

    keys: Domain | None = None
    values: Domain | None = None
    shortest: int = 0
    optional: bool = False
    what: str = "a mapping"

    def __str__(self) -> str:
        return self.what + (f" ({self.shortest} entries at least)" if self.shortest > 1 else
                            " (not empty)" if self.shortest else "") + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if not isinstance(value, Mapping) or len(value) < self.shortest:
            return f"must be {self}"
        if self.keys is None and self.values is None:  # nothing to look at inside (a lazy mapping stays lazy)
            return None
        for key, item in value.items():
            why = self.keys.reason(key) if self.keys is not None else None
            if why is not None:
                return f"key {quoted(key)} {why}"
            why = self.values.reason(item) if self.values is not None else None
            if why is not None:
                return f"value of {quoted(key)} {why}"
        return None

    def wrong_type(self, value: Any) -> bool:
        if value is None and self.optional:
            return False
        if not isinstance(value, Mapping):
            return True
        for key, item in value.items() if self.keys is not None or self.values is not None else ():
            if self.keys is not None and self.keys.reason(key) is not None:
                return self.keys.wrong_type(key)
            if self.values is not None and self.values.reason(item) is not None:
                return self.values.wrong_type(item)
        return False

    def outside(self) -> tuple:
        return ("text", [1, 2]) + (() if self.optional else (None,))


class AnyOf(Domain):
    """A value any of ``domains`` takes (``what`` says the union in words, else their descriptions joined by or).

    >>> AnyOf(Interval(2, integer=True), MappingOf()).reason("x")
    'must be an integer ≥ 2 or a mapping'
    """

    def __init__(self, *domains: Domain, what: str | None = None) -> None:
        self.domains, self.what = domains, what

    def __str__(self) -> str:
        return self.what or " or ".join(map(str, self.domains))

    def __repr__(self) -> str:
        return f"AnyOf({', '.join(map(repr, self.domains))})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyOf) and (self.domains, self.what) == (other.domains, other.what)

    def __hash__(self) -> int:
        return hash((self.domains, self.what))

    def reason(self, value: Any) -> str | None:
        reasons = []
        for domain in self.domains:  # the first that takes it ends the look (the others may be costly)
            why = domain.reason(value)
            if why is None:
                return None
            reasons.append(why)
        fitting = [why for domain, why in zip(self.domains, reasons, strict=True) if not domain.wrong_type(value)]
        return fitting[0] if len(fitting) == 1 else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return all(domain.wrong_type(value) for domain in self.domains)

    def outside(self) -> tuple:
        return tuple(value for domain in self.domains for value in domain.outside() if self.reason(value) is not None)


@dataclass(frozen=True)
class Numbers(Domain):
    """An array of numbers (a list, tuple or numpy array) of ``ndim`` dimensions, finite unless ``finite`` is
    False (NaN then allowed, infinities never), each in ``[low, high]``, of ``shortest`` entries at least and of the
    same length as the argument named ``like``; the reason names the first element that is not.

    >>> Numbers().reason([1.0, float("inf")]), Numbers(low=0).reason([0.5, -1])
    ('must be finite numbers (element 1 is inf)', 'must be finite numbers ≥ 0 (element 1 is -1)')
    """

    ndim: int = 1
    finite: bool = True
    low: float | None = None
    high: float | None = None
    shortest: int = 0
    like: str | None = None
    optional: bool = False

    def __str__(self) -> str:
        bounds = ""
        if self.low is not None and self.high is not None:
            bounds = f" in [{self.low:g}, {self.high:g}]"
        elif self.low is not None:
            bounds = f" ≥ {self.low:g}"
        elif self.high is not None:
            bounds = f" ≤ {self.high:g}"
        shape = "" if self.ndim == 1 else f" ({self.ndim}-dimensional)"
        return ("finite numbers" if self.finite else "numbers") + bounds + shape

    def array(self, value: Any) -> Any:
        """``value`` as a float array, or None when it is not one of numbers."""
        import numpy as np

        if isinstance(value, str | bytes | Mapping) or value is None:
            return None
        try:
            array = np.asarray(value)
            if array.dtype.kind not in "iufb" or array.dtype.kind == "b":
                return None
            return array.astype(float)
        except (TypeError, ValueError, OverflowError):
            return None

    def reason(self, value: Any) -> str | None:
        import numpy as np

        if value is None and self.optional:
            return None
        array = self.array(value)
        if array is None or array.ndim != self.ndim:
            return f"must be {'an array' if self.ndim == 1 else f'a {self.ndim}-dimensional array'} of {self}"
        if array.shape[0] < self.shortest:
            return f"must hold {self.shortest} entries at least, not {array.shape[0]}"
        bad = ~np.isfinite(array) if self.finite else np.isinf(array)
        if self.low is not None:
            bad |= array < self.low
        if self.high is not None:
            bad |= array > self.high
        if bad.any():
            where = np.unravel_index(int(np.argmax(bad)), array.shape)
            index = where[0] if self.ndim == 1 else tuple(int(i) for i in where)
            element = float(array[where])
            shown = str(int(element)) if element.is_integer() and abs(element) < 1e16 else repr(element)
            return f"must be {self} (element {index} is {shown})"
        return None

    def relate(self, value: Any, arguments: Mapping[str, Any]) -> str | None:
        """Why ``value`` does not fit the argument it is declared ``like`` (its length), or None."""
        if self.like is None or self.like not in arguments or value is None:
            return None
        mine, other = self.array(value), self.array(arguments[self.like])
        if mine is None or other is None or mine.shape[:1] == other.shape[:1]:
            return None
        return f"must hold as many entries as {self.like} ({other.shape[0]}), not {mine.shape[0]}"

    def wrong_type(self, value: Any) -> bool:
        return self.array(value) is None and not (value is None and self.optional)

    def outside(self) -> tuple:
        shape_wrong = [[1.0]] if self.ndim == 1 else [1.0]
        found: list[Any] = ["text", shape_wrong]
        if self.finite:
            found.append([[0.0, float("nan")]] if self.ndim == 2 else [0.0, float("nan")])
        return tuple(found)


@dataclass(frozen=True)
class Encoding(Domain):
    """The name of an encoding Python knows (``utf-8``, ``latin-1``, ``utf-16``...)."""

    def __str__(self) -> str:
        return "an encoding Python knows (utf-8, latin-1, utf-16, ...)"

    def reason(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be {self}"
        try:
            codecs.lookup(value)
        except LookupError:
            return f"must be {self}"
        return None

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str)

    def outside(self) -> tuple:
        return (None, "no-such-encoding", 8)


ENCODING = Encoding()
"""The domain of every reader's ``encoding``."""


@dataclass(frozen=True)
class Elementwise(Domain):
    """A number, or an array of numbers of any shape (what an elementwise numpy function broadcasts), each in
    ``[low, high]`` (None: unbounded); NaN allowed where ``nan`` says (an undefined value, passed through),
    infinities never. The reason names the first element that is not.

    >>> Elementwise(0, 1).reason(0.5), Elementwise(0, 1).reason([[0.5, 2]])
    (None, 'must be a number or an array of numbers in [0, 1] (element (0, 1) is 2)')
    >>> Elementwise(0, nan=True).reason(float("nan")), Elementwise(0, nan=True).reason(-1.0)
    (None, 'must be a number or an array of numbers ≥ 0, NaN where undefined')
    """

    low: float | None = None
    high: float | None = None
    nan: bool = False

    def __str__(self) -> str:
        bounds = ""
        if self.low is not None and self.high is not None:
            bounds = f" in [{self.low:g}, {self.high:g}]"
        elif self.low is not None:
            bounds = f" ≥ {self.low:g}"
        elif self.high is not None:
            bounds = f" ≤ {self.high:g}"
        return f"a number or an array of numbers{bounds}" + (", NaN where undefined" if self.nan else "")

    def reason(self, value: Any) -> str | None:
        import numpy as np

        if is_number(value):  # the common case, without an array
            inside = (math.isnan(value) and self.nan) or (
                math.isfinite(value) and (self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))
            return None if inside else f"must be {self}"
        array = Numbers().array(value)
        if array is None:
            return f"must be {self}"
        bad = np.isinf(array) if self.nan else ~np.isfinite(array)
        if self.low is not None:
            bad |= array < self.low
        if self.high is not None:
            bad |= array > self.high
        if not bad.any():
            return None
        where = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), array.shape))
        element = float(array[where])
        shown = str(int(element)) if element.is_integer() and abs(element) < 1e16 else repr(element)
        return f"must be {self}" + (f" (element {where[0] if len(where) == 1 else where} is {shown})" if where else "")

    def wrong_type(self, value: Any) -> bool:
        return not is_number(value) and Numbers().array(value) is None

    def outside(self) -> tuple:
        found: list[Any] = ["text", float("inf"), [0.0, float("-inf")]]
        if not self.nan:
            found.append(float("nan"))
        if self.low is not None:
            found.append([self.low, self.low - 1])
        if self.high is not None:
            found.append(self.high + 1)
        return tuple(found)


@dataclass(frozen=True)
class LazyInstance(Instance):
    """A value of one of ``types``, each written ``"module:Name"`` (``"pandas:DataFrame"``), checked without
    importing the module: a value of such a type exists only once its module is loaded, so that a door of a
    module that does not load pandas (the command line's readers) declares a DataFrame without loading it. None
    when ``optional``.

    >>> LazyInstance(("pandas:DataFrame",), "a DataFrame").reason([1, 2])
    'must be a DataFrame'
    """

    def loaded(self) -> tuple[type, ...]:
        """The types whose modules are loaded (no value of the others can exist yet)."""
        found = (getattr(sys.modules.get(module), name, None)
                 for module, _, name in (spelled.partition(":") for spelled in self.types))
        return tuple(kind for kind in found if isinstance(kind, type))


DATAFRAME = LazyInstance(("pandas:DataFrame",), "a DataFrame")
"""The domain of a pandas DataFrame argument, declared without loading pandas."""


@dataclass(frozen=True)
class Switch(Domain):
    """The text of an on/off environment variable: ``1``, ``true``, ``yes``, ``on`` (on) or ``0``, ``false``,
    ``no``, ``off``, empty (off), in any case; :func:`environment_switch` reads one.

    >>> Switch().reason("maybe")
    'must be 1, true, yes or on (on), or 0, false, no, off or empty (off)'
    """

    ON = ("1", "true", "yes", "on")
    OFF = ("0", "false", "no", "off", "")

    def __str__(self) -> str:
        return "1, true, yes or on (on), or 0, false, no, off or empty (off)"

    def reason(self, value: Any) -> str | None:
        inside = isinstance(value, str) and value.strip().lower() in self.ON + self.OFF
        return None if inside else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str)

    def outside(self) -> tuple:
        return ("maybe", 1)


def environment_switch(variable: str) -> bool:
    """Whether the environment variable ``variable`` is on (unset: off), read as :class:`Switch` reads it; any
    other text is refused, naming the variable (``WORKBENCH_OFFLINE=false`` is off, not on).

    >>> os.environ["WORKBENCH_EXAMPLE"] = "Off"
    >>> environment_switch("WORKBENCH_EXAMPLE"), environment_switch("WORKBENCH_NOT_SET")
    (False, False)
    >>> os.environ["WORKBENCH_EXAMPLE"] = "maybe"
    >>> environment_switch("WORKBENCH_EXAMPLE")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: the environment: WORKBENCH_EXAMPLE must be 1, true, yes or on ..., got 'maybe'
    >>> del os.environ["WORKBENCH_EXAMPLE"]
    """
    text = check(os.environ.get(variable, ""), Switch(), variable, "the environment")
    return text.strip().lower() in Switch.ON


@dataclass(frozen=True)
class Function(Domain):
    """A callable (None when ``optional``)."""

    optional: bool = False

    def __str__(self) -> str:
        return "a function" + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        return None if callable(value) or (value is None and self.optional) else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return True

    def outside(self) -> tuple:
        return ("text",)


@dataclass(frozen=True)
class Anything(Domain):
    """Any value, checked where ``why`` says (a file, whose reader names the line at fault; a results frame,
    checked with the system and topic named), so that every parameter is declared."""

    why: str

    def __str__(self) -> str:
        return f"anything ({self.why})"

    def reason(self, value: Any) -> str | None:
        return None


@dataclass(frozen=True)
class _Seed(Domain):
    """What :func:`numpy.random.default_rng` takes: an integer ≥ 0, a numpy ``Generator``, or None."""

    def __str__(self) -> str:
        return "a seed (an integer ≥ 0), a numpy Generator or None"

    def reason(self, value: Any) -> str | None:
        import numpy as np

        if value is None or isinstance(value, np.random.Generator) or (
                isinstance(value, numbers.Integral) and is_number(value) and int(value) >= 0):
            return None
        return f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not is_number(value)

    def outside(self) -> tuple:
        return ("text", -1, 0.5)


SEED = _Seed()
"""The domain of a ``seed``."""


class DeclarationError(ParameterError):
    """A validated function declares a domain for a parameter it does not have (raised when it is defined)."""


def parameter_error(function: str, parameter: str, value: Any, domain: Domain, why: str) -> ParameterError:
    """The one error shape: ``function: parameter <why>, got <value>`` (a :class:`ParameterTypeError` when the
    value's type is wrong)."""
    kind = ParameterTypeError if domain.wrong_type(value) else ParameterError
    where = f"{function}: " if function else ""
    return kind(f"{where}{parameter} {why}, got {quoted(value)}", parameter=parameter, function=function, value=value,
                domain=domain)


def check(value: Any, domain: Domain, parameter: str, function: str = "") -> Any:
    """``value`` when ``domain`` takes it, else the :class:`~workbench.errors.ParameterError` naming ``function``
    and ``parameter`` (for a domain that depends on the data; a fixed one is declared with :func:`validate`).

    >>> check(3, Interval(2, 10, integer=True), "folds", "cross_validate")
    3
    >>> check(11, Interval(2, 10, integer=True), "folds", "cross_validate")
    Traceback (most recent call last):
    ...
    workbench.errors.ParameterError: cross_validate: folds must be an integer in [2, 10], got 11
    """
    why = domain.reason(value)
    if why is not None:
        raise parameter_error(function, parameter, value, domain, why)
    return value


def validate(**domains: Domain) -> Callable[[F], F]:
    """A decorator that checks each argument given to the function against its declared domain before the
    function runs (``*args`` as the tuple given; a default is not checked: a test checks that every default is
    inside its domain). The domains stay on the function as ``__domains__`` (:func:`declared`), read by the docs and
    the walked tests."""
    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        parameters = signature.parameters
        takes_more = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        unknown = [name for name in domains if name not in parameters and not takes_more]
        if unknown:
            raise DeclarationError(f"{function.__qualname__} has no parameter {', '.join(unknown)} to validate")
        order = list(parameters)

        def position(name: str) -> int | slice | None:
            """Where the argument is among the positional ones: an index, ``*args`` as a slice, or None."""
            kind = parameters[name].kind if name in parameters else None
            if kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
                return order.index(name)
            return slice(order.index(name), None) if kind is inspect.Parameter.VAR_POSITIONAL else None

        checks = tuple((name, domain, position(name)) for name, domain in domains.items())
        related = tuple(name for name, domain in domains.items() if getattr(domain, "like", None))
        name = function.__qualname__

        @functools.wraps(function)
        def checked(*args: Any, **kwargs: Any) -> Any:
            given = {}
            for parameter, domain, at in checks:
                if isinstance(at, slice) and parameter not in kwargs or isinstance(at, int) and at < len(args):
                    value = args[at]  # a positional argument, or *args as the tuple given
                elif parameter in kwargs:
                    value = kwargs[parameter]
                else:
                    continue
                why = domain.reason(value)
                if why is not None:
                    raise parameter_error(name, parameter, value, domain, why)
                given[parameter] = value
            for parameter in related:
                if parameter in given:
                    why = domains[parameter].relate(given[parameter], given)  # type: ignore[attr-defined]
                    if why is not None:
                        raise parameter_error(name, parameter, given[parameter], domains[parameter], why)
            return function(*args, **kwargs)

        checked.__domains__ = MappingProxyType(dict(domains))  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]
    return decorate


def declared(function: Callable[..., Any]) -> Mapping[str, Domain] | None:
    """The domains :func:`validate` declared for ``function`` (a method, classmethod or property's function
    too), or None when it declares none."""
    function = getattr(function, "__func__", function)
    return getattr(function, "__domains__", None)
