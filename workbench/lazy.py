"""Names a package exports but imports only when first read (PEP 562), so that ``import workbench`` or
``import workbench.data`` loads neither pandas, ipywidgets nor altair until a name that needs them is used.

    >>> import types
    >>> package = types.ModuleType("pkg")
    >>> package.__getattr__, package.__dir__ = lazy_exports("pkg", {"sqrt": "math", "root": "math:sqrt"})
    >>> package.sqrt(4.0), package.root(9.0)
    (2.0, 3.0)

A third-party module that another library imports only to have a function at hand can be deferred likewise
(:func:`defer_module`): jsonschema, which altair imports, compiles rfc3987_syntax's IRI grammars at import, about
two CPU-seconds of the three altair takes to import, for a format check the charts never make.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports", "resolve", "defer_module", "DEFERRED"]


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
