"""Moving one occurrence of a document in an organization: the pure edit a drag (or a keyboard move) on the
board asks for. Emptied clusters and levels disappear; the editor turns the result back into notation text.

    >>> move_document(Organization.parse("d1 {d6 d7 d8}"), "d8", (0, 1), (0, None)).format()
    'd1 {d6 d7} d8'
"""

from __future__ import annotations

from workbench.model import Organization, OrganizationError

__all__ = ["TAIL", "MoveError", "move_document"]

# Where an occurrence sits or goes: (level, cluster) with 0-based indices into ``Organization.levels``
# (``cluster`` None: a new singleton cluster in that level; ``level == len(levels)``: a new level at the
# bottom), or ``"tail"`` (below the levels: the unlimited tail, or the finite rest).
Place = tuple[int, int | None] | str
TAIL = "tail"


class MoveError(OrganizationError):
    """A drop that names no occurrence of the document, or a place the organization does not have."""


def move_document(organization: Organization, document: str, source: Place, target: Place) -> Organization:
    """The organization with the occurrence of ``document`` at ``source`` moved to ``target``.

    Emptied clusters and levels disappear; dropping into a cluster that already holds the document only
    removes the moved occurrence (overlap is kept, never doubled). Dropping on the tail of an organization with
    a finite rest puts the document in the rest (unless another occurrence keeps it in a level).
    """
    levels = [[set(cluster) for cluster in level] for level in organization.levels]
    rest = None if organization.rest is None else set(organization.rest)
    if source == TAIL:
        if document in organization.prioritised and document not in (rest or ()):
            raise MoveError(f"{document!r} is not in the tail: it occurs in a level")
        if rest is not None:
            rest.discard(document)
    else:
        level, cluster = _place(levels, source, "source")
        if cluster is None or document not in levels[level][cluster]:
            raise MoveError(f"{document!r} is not in cluster {cluster} of level {level + 1}")
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
    if not isinstance(place, tuple | list) or len(place) != 2:
        raise MoveError(f"{what} {place!r}: expected (level, cluster) or 'tail'")
    level, cluster = place
    if not isinstance(level, int) or not 0 <= level <= len(levels) or (
            cluster is not None and (level == len(levels) or not 0 <= cluster < len(levels[level]))):
        raise MoveError(f"{what} {place!r}: no such level/cluster among {len(levels)} levels")
    return level, cluster
