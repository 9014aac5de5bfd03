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
from typing import Any

from workbench.metrics.reliability import DISCOUNT_DOMAINS
from workbench.model import Organization, OrganizationError
from workbench.scalars import plain_number
from workbench.validation import AnyOf, Choices, Domain, Instance, Interval, ListOf, MappingOf, Text, parameter_error
from workbench.widgets.errors import WorkbenchFormatError

__all__ = ["GOLD", "LONGEST_NAME", "N", "WN", "OutputName", "NAME", "TABLE", "OUTPUTS", "OPTIONAL_TABLE",
           "OPTIONAL_OUTPUTS", "Table", "Tables", "table_text", "weights"]

GOLD = "gold"
LONGEST_NAME = 200
"""The longest name of an output (a name is shown on a card, a row and a chart's legend)."""
N = Interval(1, 1_000_000, integer=True, optional=True)
"""The domain of n: a whole number of positions, where the weights are exact (None: uniform weights)."""
WN = DISCOUNT_DOMAINS["wn"]
"""The domain of W_n (None: uniform weights)."""


@dataclass(frozen=True)
class OutputName(Domain):
    """An output's name: a string of 1 to :data:`LONGEST_NAME` characters, not blank, other than ``"gold"``.

    >>> NAME.reason("run 1"), NAME.reason("gold")
    (None, 'must be a name (1 to 200 characters, not blank, not "gold")')
    """

    optional: bool = False

    def __str__(self) -> str:
        return f'a name (1 to {LONGEST_NAME} characters, not blank, not "{GOLD}")' + (" or None" if self.optional
                                                                                      else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if not isinstance(value, str) or not value.strip() or len(value) > LONGEST_NAME or value == GOLD:
            return f"must be {self}"
        return None

    def wrong_type(self, value: Any) -> bool:
        return not isinstance(value, str) and not (value is None and self.optional)

    def outside(self) -> tuple:
        return (3, "", " ", GOLD, "x" * (LONGEST_NAME + 1)) + (() if self.optional else (None,))


NAME = OutputName()
"""The domain of an output's name."""
TABLE = AnyOf(Instance((Organization,), "an Organization"), Text(empty=True), what="an Organization or notation text")
"""The domain of a table given from Python."""
OUTPUTS = AnyOf(ListOf(TABLE, shortest=1), MappingOf(NAME, TABLE, shortest=1), TABLE,
                what="tables: a list, a dict name → table (an Organization or notation text), or one table")
"""The domain of the outputs given from Python."""
OPTIONAL_TABLE = AnyOf(TABLE, Choices((None,)), what=f"{TABLE} or None")
"""The domain of a gold that may be left out (the workbench then opens on an example, or on an empty gold)."""
OPTIONAL_OUTPUTS = AnyOf(OUTPUTS, Choices((None,)), what=f"{OUTPUTS} or None")
"""The domain of outputs that may be left out (one output then starts as a copy of the gold)."""


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


def table_text(value: Organization | str) -> str:
    """The notation of a :data:`TABLE`."""
    return value.format() if isinstance(value, Organization) else value


def weights(n: int | None, wn: float | None, function: str) -> tuple[int | None, float | None]:
    """``(n, wn)``, each inside :data:`N` and :data:`WN`, as ``(int, float)`` (numpy numbers are numbers), or
    ``(None, None)`` for uniform weights; one of them alone is refused in the validator's shape, naming
    ``function``."""
    if (n is None) != (wn is None):
        name, domain = ("n", N) if n is None else ("wn", WN)
        raise parameter_error(function, name, None, domain, "must be given with the other weight (or both None: "
                                                              "uniform weights)")
    return (None, None) if n is None or wn is None else (int(n), float(plain_number(wn)))
