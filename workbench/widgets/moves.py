"""Moving one occurrence of a document in an organization: the pure edit a drag (or a keyboard move) on the
board asks for. Emptied clusters and levels disappear; the editor turns the result back into notation text.

    >>> move_document(Organization.parse("d1 {d6 d7 d8}"), "d8", (0, 1), (0, None)).format()
    'd1 {d6 d7} d8'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workbench.errors import quoted
from workbench.model import Organization, OrganizationError
from workbench.validation import Domain, Interval

__all__ = ["TAIL", "PlaceDomain", "PLACE", "MoveError", "move_document"]

# Where an occurrence sits or goes: (level, cluster) with 0-based indices into ``Organization.levels``
# (``cluster`` None: a new singleton cluster in that level; ``level == len(levels)``: a new level at the
# bottom), or ``"tail"`` (below the levels: the unlimited tail, or the finite rest).
Place = tuple[int, int | None] | str
TAIL = "tail"
_INDEX = Interval(0, integer=True)


@dataclass(frozen=True)
class PlaceDomain(Domain):
    """A :data:`Place`: ``"tail"``, or ``(level, cluster)``, a level index ≥ 0 and a cluster index ≥ 0 or None (a
    list of two too, as JSON brings it). Whether the organization has that place depends on it
    (:class:`MoveError`).

    >>> PLACE.reason((0, None)), PLACE.reason([1, 2]), PLACE.reason("tail"), PLACE.reason((0, "x")) is None
    (None, None, None, False)
    """

    def __str__(self) -> str:
        return "'tail' or (level, cluster): a level index ≥ 0 and a cluster index ≥ 0 or None"

    def reason(self, value: Any) -> str | None:
        if isinstance(value, str) and value == TAIL:
            return None
        if (isinstance(value, tuple | list) and len(value) == 2 and _INDEX.reason(value[0]) is None
                and (value[1] is None or _INDEX.reason(value[1]) is None)):
            return None
        return f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str | tuple | list)

    def outside(self) -> tuple:
        return ("top", (0, "x"), (-1, None), (0,), 3)


PLACE = PlaceDomain()
"""The domain of a place a document is moved from or to."""


class MoveError(OrganizationError):
    """A drop that names no occurrence of the document, or a place the organization does not have."""


def move_document(organization: Organization, document: str, source: Place, target: Place) -> Organization:
    """The organization with the occurrence of ``document`` at ``source`` moved to ``target`` (places inside
    :data:`PLACE`, which the doors that call this declare).

    Emptied clusters and levels disappear; dropping into a cluster that already holds the document only
    removes the moved occurrence (overlap is kept, never doubled). Dropping on the tail of an organization with
    a finite rest puts the document in the rest (unless another occurrence keeps it in a level).
    """
    levels = [[set(cluster) for cluster in level] for level in organization.levels]
    rest = None if organization.rest is None else set(organization.rest)
    if source == TAIL:
        if document in organization.prioritised and document not in (rest or ()):
            raise MoveError(f"{quoted(document)} is not in the tail: it occurs in a level")
        if rest is not None:
            rest.discard(document)
    else:
        level, cluster = _place(levels, source, "source")
        if cluster is None or document not in levels[level][cluster]:
            raise MoveError(f"{quoted(document)} is not in cluster {cluster} of level {level + 1}")
        levels[level][cluster].discard(document)
    if target == TAIL:
        if rest is not None:
            rest.add(document)
    else:
        level, cluster = _place(levels, target, "target")
        if level == len(levels):
            levels.append([])
        if cluster is None:
            levels[level].append({document})
        else:
            levels[level][cluster].add(document)
    kept = [[c for c in level if c] for level in levels]
    kept = [level for level in kept if level]
    if rest is not None:
        rest -= {d for level in kept for c in level for d in c}
    same_levels = len(kept) == len(levels) == len(organization.levels)
    grades = organization.grades if same_levels else None
    return Organization(tuple(tuple(frozenset(c) for c in level) for level in kept),
                        None if rest is None else frozenset(rest), grades)


def _place(levels: list, place: Place, what: str) -> tuple[int, int | None]:
    """The place, inside :data:`PLACE`, as indices of ``levels``; :class:`MoveError` when it has no such place."""
    level, cluster = int(place[0]), None if place[1] is None else int(place[1])
    if level > len(levels) or (cluster is not None and (level == len(levels) or cluster >= len(levels[level]))):
        raise MoveError(f"{what} {quoted(place)}: no such level/cluster among {len(levels)} levels")
    return level, cluster
