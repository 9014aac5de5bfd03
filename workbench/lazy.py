"""Names a package exports but imports only when first read (PEP 562), so that ``import workbench`` or
``import workbench.data`` loads neither pandas, ipywidgets nor altair until a name that needs them is used.

    >>> import types
    >>> package = types.ModuleType("pkg")
    >>> package.__getattr__, package.__dir__ = lazy_exports("pkg", {"sqrt": "math", "root": "math:sqrt"})
    >>> package.sqrt(4.0), package.root(9.0)
    (2.0, 3.0)

A name renamed or made private keeps working for one release under its old name, with a
:class:`~workbench.errors.WorkbenchDeprecationWarning` naming what replaces it: a module's names through
:func:`deprecated_names`, a method through :func:`deprecated_method`; every such name is listed in
:data:`DEPRECATED` (a test uses each and checks the warning and the value).

A third-party module that another library imports only to have a function at hand can be deferred likewise
(:func:`defer_module`): jsonschema, which altair imports, compiles rfc3987_syntax's IRI grammars at import, about
two CPU-seconds of the three altair takes to import, for a format check the charts never make.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports", "resolve", "defer_module", "DEFERRED", "DEPRECATED", "deprecated_names", "deprecated_method",
           "warn_deprecated"]

DEPRECATED: dict[str, str] = {}
"""Every name kept for one release, by its old qualified name (``"workbench.data.campaign.Campaign.score"``), with
what replaces it; filled as the modules that keep them are imported."""


def warn_deprecated(old: str, replacement: str) -> None:
    """Warn the code that used ``old`` (the first line outside the package: :func:`workbench.errors.warn`) that it
    goes in the next release and ``replacement`` replaces it."""
    from workbench.errors import WorkbenchDeprecationWarning, warn

    warn(f"{old} is deprecated and goes in the next release: use {replacement}", WorkbenchDeprecationWarning)


def deprecated_names(module: str, names: Mapping[str, tuple[str, str]],
                     others: Callable[[str], Any] | None = None) -> Callable[[str], Any]:
    """A module ``__getattr__`` for a module whose old ``names`` still work for one release: each maps to the
    ``"module:attribute"`` that replaces it and the replacement to name in the warning (never cached, so every use
    warns); any other name is asked of ``others`` (a package's :func:`lazy_exports`), if given.

        >>> import math, warnings
        >>> getter = deprecated_names("pkg", {"root": ("math:sqrt", "math.sqrt")})
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     getter("root")(9.0), str(caught[0].message)
        (3.0, 'pkg.root is deprecated and goes in the next release: use math.sqrt')
    """
    for name, (_, replacement) in names.items():
        DEPRECATED[f"{module}.{name}"] = replacement

    def __getattr__(name: str) -> Any:
        if name not in names:
            if others is not None:
                return others(name)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        reference, replacement = names[name]
        warn_deprecated(f"{module}.{name}", replacement)
        return resolve(reference)

    return __getattr__


def deprecated_method(function: Callable[..., Any], old: str, replacement: str) -> Callable[..., Any]:
    """``function`` (a method) kept under its old name ``old`` (``"Class.method"``) for one release, warning on each
    call; it declares ``function``'s domains under the old name, so that a refusal names what the caller wrote."""
    from workbench.validation import declared, validate

    qualified = f"{function.__module__}.{old}"
    DEPRECATED[qualified] = replacement
    domains = declared(function)

    @functools.wraps(function)
    def alias(*args: Any, **kwargs: Any) -> Any:
        warn_deprecated(qualified, replacement)
        return function(*args, **kwargs)

    alias.__qualname__, alias.__name__ = old, old.rpartition(".")[2]
    return validate(**domains)(alias) if domains else alias


def lazy_exports(package: str, names: Mapping[str, str], submodules: Sequence[str] = (),
                 extra: str | None = None) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps each exported name to the module
    that defines it, or to ``module:attribute`` when the package renames it (imported, then the value cached
    in the package); ``submodules`` are the package's own subpackages, imported as ``package.<name>``. With
    ``extra``, the names need that optional extra: importing one without it raises
    :class:`~workbench.extras.MissingExtraError` naming the extra. ``dir(package)`` lists the exports and
    subpackages (and the module's dunder attributes), not the plumbing that loads them."""

    def __getattr__(name: str) -> Any:  # Any: a type checker cannot know what a name loads
        if name in names:
            module, _, attribute = names[name].partition(":")
            if extra is None:
                value = getattr(importlib.import_module(module), attribute or name)
            else:
                from workbench.extras import needs_extra

                with needs_extra(extra, f"{package}.{name}"):
                    value = getattr(importlib.import_module(module), attribute or name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        loaded = sys.modules.get(package)
        if loaded is not None:
            setattr(loaded, name, value)
        return value

    def __dir__() -> list[str]:
        module = sys.modules.get(package)
        dunders = {key for key in (vars(module) if module else ()) if key.startswith("__") and key.endswith("__")}
        return sorted(dunders | set(names) | set(submodules))

    return __getattr__, __dir__


def resolve(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names, imported when asked (a declaration's explainer, which
    loads pandas only when a measure is explained).

    >>> resolve("math:sqrt")(16.0)
    4.0
    """
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


DEFERRED = {"rfc3987_syntax": ("is_valid_syntax",)}
"""The modules :func:`defer_module` defers by default, with the functions their importers bind at import:
rfc3987_syntax builds 38 Earley parsers when imported (jsonschema binds ``is_valid_syntax`` for its ``iri``
format); the charts and widgets defer it before they import altair."""


def defer_module(name: str, functions: Sequence[str]) -> None:
    """Put a stand-in for module ``name`` in ``sys.modules`` that imports the real one only when first used: its
    ``functions`` (which importers bind with ``from name import f``) call the real functions, and reading any other
    attribute replaces the stand-in by the real module. Nothing happens when ``name`` is imported already or not
    installed.

        >>> defer_module("graphlib", ["TopologicalSorter"])
        >>> from graphlib import TopologicalSorter
        >>> list(TopologicalSorter({"b": {"a"}}).static_order()), type(sys.modules["graphlib"]).__name__
        (['a', 'b'], 'module')
    """
    spec = None if name in sys.modules else importlib.util.find_spec(name)
    if spec is not None:
        sys.modules[name] = _Deferred(name, functions, spec.submodule_search_locations)


class _Deferred(types.ModuleType):
    """The stand-in :func:`defer_module` puts in ``sys.modules``."""

    def __init__(self, name: str, functions: Sequence[str], path: Sequence[str] | None) -> None:
        super().__init__(name)
        if path is not None:  # a package: ``from name import f`` asks for it, and submodules load beside
            self.__path__ = list(path)
        for function in functions:
            setattr(self, function, self._calling(function))

    def _real(self) -> types.ModuleType:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return importlib.import_module(self.__name__)

    def _calling(self, function: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            return getattr(self._real(), function)(*args, **kwargs)
        call.__name__ = call.__qualname__ = function
        return call

    def __getattr__(self, attribute: str) -> Any:  # only for what __init__ did not set: the real module's
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return getattr(self._real(), attribute)
