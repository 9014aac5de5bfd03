"""Names a package exports but imports only when first read (PEP 562), so that ``import workbench`` or
``import workbench.data`` loads neither pandas, ipywidgets nor altair until a name that needs them is used.

    >>> import types
    >>> package = types.ModuleType("pkg")
    >>> package.__getattr__, package.__dir__ = lazy_exports("pkg", {"sqrt": "math", "root": "math:sqrt"})
    >>> package.sqrt(4.0), package.root(9.0)
    (2.0, 3.0)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["lazy_exports", "resolve"]


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
