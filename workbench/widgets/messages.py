"""What the front end sends (the JavaScript of the anywidgets, a file upload, a chart's selection), checked where
it arrives, one place per view: a message is acted on only when it has the shape the view expects, each field in
its domain (:mod:`workbench.validation`'s); anything else (a front end of another version, a script on the page)
is ignored with a warning in the ``workbench.widgets`` log naming the view and what is wrong, so that a comm
handler never raises.

    >>> from workbench.validation import Text
    >>> SHAPES = {"select": {"document": Text()}}
    >>> received({"kind": "select", "document": "d1"}, SHAPES, "the board")
    ('select', {'document': 'd1'})
    >>> received({"kind": "select", "document": 3}, SHAPES, "the board") is None  # logged, not raised
    True
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from workbench.errors import quoted
from workbench.validation import Choices, Domain

__all__ = ["LOG", "fields", "received"]

LOG = logging.getLogger("workbench.widgets")


def fields(content: Any, shape: Mapping[str, Domain], view: str) -> dict[str, Any] | None:
    """The fields ``shape`` names of the object ``content``, when each is present and in its domain; else None,
    and a warning in the log naming ``view`` and the first field at fault."""
    problem = "" if isinstance(content, Mapping) else f"expected an object, got {quoted(content)}"
    for name, domain in shape.items() if not problem else ():
        why = domain.reason(content[name]) if name in content else "is missing"
        if why is not None:
            problem = f"{name} {why}" + (f", got {quoted(content[name])}" if name in content else "")
            break
    if problem:
        LOG.warning("%s: a message from the front end was ignored: %s", view, problem)
        return None
    return {name: content[name] for name in shape}


def received(content: Any, shapes: Mapping[str, Mapping[str, Domain]], view: str) -> tuple[str, dict] | None:
    """``(kind, its fields)`` of a message ``{"kind": k, ...}`` whose kind is one of ``shapes`` (kind → the
    fields it carries, each with its domain), checked as :func:`fields` checks them; None otherwise."""
    found = fields(content, {"kind": Choices(tuple(shapes))}, view)
    if found is None:
        return None
    kind = found["kind"]
    carried = fields(content, shapes[kind], view)
    return None if carried is None else (kind, carried)
