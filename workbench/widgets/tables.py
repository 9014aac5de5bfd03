"""What the workbench scores, as immutable data: each table's notation as typed with the organization in force,
and one snapshot of all of them with the weights (one step of the edit history).

A table whose text does not parse keeps the last valid organization (an edit in progress) and says why in
``error``; an import has no last valid organization, so there such a text is refused (:meth:`Table.parsed`).

    >>> table = Table.read("output 1", "d1 {d2 d3")
    >>> table.error, table.organization
    ("line 1, column 4, at '{': unbalanced '{' is never closed", Organization.parse(''))
    >>> sorted(Table.read("output 1", "d1 {d2 d3}", last=table.organization).organization.levels[0][1])
    ['d2', 'd3']
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from workbench.metrics.reliability import DISCOUNT_DOMAINS
from workbench.model import Organization, OrganizationError
from workbench.scalars import plain_number
from workbench.widgets.errors import WeightsError, WorkbenchFormatError

__all__ = ["GOLD", "Table", "Tables", "table_text", "checked_names", "checked_weights"]

GOLD = "gold"


@dataclass(frozen=True)
class Table:
    """``text`` as typed; ``organization`` the last valid one (the text's own when ``error`` is "")."""

    name: str
    text: str
    organization: Organization
    error: str = ""

    @classmethod
    def read(cls, name: str, text: str, last: Organization | None = None) -> Table:
        """The table of ``text``; while it does not parse, ``last`` (else an empty organization) stays in
        force."""
        try:
            return cls(name, text, Organization.parse(text))
        except OrganizationError as problem:
            return cls(name, text, last if last is not None else Organization(), str(problem))

    @classmethod
    def parsed(cls, name: str, text: str) -> Table:
        """The table of ``text``, which must parse (an import): else :class:`WorkbenchFormatError` naming the
        table, the line and the column."""
        try:
            return cls(name, text, Organization.parse(text))
        except OrganizationError as problem:
            raise WorkbenchFormatError(f"{name}: {problem}") from None

    def edited(self, text: str) -> Table:
        return Table.read(self.name, text, self.organization)


@dataclass(frozen=True)
class Tables:
    """The gold, the outputs in order, and the weights: ``(n, wn)``, or ``(None, None)`` for uniform weights
    (closed collections)."""

    gold: Table
    outputs: tuple[Table, ...]
    n: int | None = 10
    wn: float | None = 0.8

    @property
    def names(self) -> list[str]:
        return [table.name for table in self.outputs]

    def scored(self) -> tuple:
        """What the scores depend on: the organizations in force, the names and the weights."""
        return (self.gold.organization, tuple((t.name, t.organization) for t in self.outputs), self.n, self.wn)

    def with_output(self, index: int, table: Table) -> Tables:
        outputs = list(self.outputs)
        outputs[index] = table
        return replace(self, outputs=tuple(outputs))


def table_text(value, where: str) -> str:
    """The notation of ``value`` (an Organization or notation text)."""
    if isinstance(value, Organization):
        return value.format()
    if isinstance(value, str):
        return value
    raise WorkbenchFormatError(f"{where}: expected an Organization or notation text, got {type(value).__name__}")


def checked_names(names: list) -> list[str]:
    """``names`` if each is a non-empty string and none repeats, else :class:`WorkbenchFormatError`."""
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise WorkbenchFormatError(f"an output's name must be a non-empty string, got {name!r}")
        if name == GOLD:
            raise WorkbenchFormatError(f"{GOLD!r} names the gold standard, not an output")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise WorkbenchFormatError(f"output names must differ: {', '.join(map(repr, repeated))} repeated")
    if not names:
        raise WorkbenchFormatError("the workbench needs at least one output to score against the gold")
    return list(names)


def checked_weights(n, wn) -> tuple[int | None, float | None]:
    """``(n, wn)`` as ``(int, float)``, or ``(None, None)`` for uniform weights; :class:`WeightsError` for
    anything else (numpy numbers are numbers)."""
    if n is None and wn is None:
        return None, None
    if n is None or wn is None:
        raise WeightsError(f"give both n and W_n, or neither (uniform weights): got n={n!r}, W_n={wn!r}")
    n, wn = plain_number(n), plain_number(wn)
    if isinstance(n, bool) or not isinstance(n, int) or DISCOUNT_DOMAINS["n"].reason(n):
        raise WeightsError(f"n must be a whole number of positions from 1 to 1,000,000, got {n!r}")
    if DISCOUNT_DOMAINS["wn"].reason(wn):
        raise WeightsError(f"W_n must be a number {DISCOUNT_DOMAINS['wn']}, got {wn!r}")
    return n, float(wn)
