"""The workbench's tables as text to save, paste and share: the notation (one ``## name`` section per table, the
weights in a comment) or JSON (each table's text as typed, with the levels and rest of the organization in
force). Reading either checks every field before anything is built and raises
:class:`~workbench.widgets.errors.WorkbenchFormatError` naming the line or key at fault: a table whose text does
not parse is refused (JSON may carry an edit in progress: an invalid ``text`` beside the ``levels`` in force).

    >>> tables = read_text("# workbench tables, weights: n=10 wn=0.8\\n## gold\\nd1 {d2 d3}\\n## run\\nd1 d2 d3")
    >>> tables.names, tables.n, tables.outputs[0].text
    (['run'], 10, 'd1 d2 d3')
    >>> read_json(to_json(tables)) == tables
    True
"""

from __future__ import annotations

import json
import re
from typing import Any

from workbench.errors import excerpt, quoted
from workbench.model import Organization, OrganizationError, natural_key
from workbench.model.organization import LEVELS, DocumentIds
from workbench.reading import json_input
from workbench.reading.text import Text, decode, lines
from workbench.validation import Domain
from workbench.widgets.errors import WorkbenchFormatError
from workbench.widgets.tables import GOLD, NAME, WN, N, Table, Tables

__all__ = ["LONGEST_ID", "to_text", "read_text", "to_json", "read_json"]

LONGEST_ID = 1_000
"""The longest document id an import holds (an id is drawn as a token)."""
_SECTION = "## "
_WEIGHTS = "# workbench tables, weights:"
_WEIGHTS_LINE = re.compile(r"n=([0-9]+) wn=([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)")
_TOP_KEYS = ("n", "wn", "gold", "outputs")
_TABLE_KEYS = ("name", "text", "levels", "rest", "error")
_REST = DocumentIds(optional=True)


def to_text(tables: Tables) -> str:
    """The tables in the notation, one ``## name`` section each (gold first), the weights in a comment. A table
    holding an edit in progress is written as the organization in force (the notation has no place for a text
    that does not parse: JSON keeps it)."""
    weights = "uniform" if tables.n is None else f"n={tables.n} wn={tables.wn!r}"
    parts = [f"{_WEIGHTS} {weights}"]
    for table in (tables.gold, *tables.outputs):
        parts += [f"{_SECTION}{table.name}", table.organization.format() if table.error else table.text]
    return "\n".join(parts) + "\n"


def _checked(value: Any, domain: Domain, what: str, line: int | None = None, where: str = "") -> Any:
    """``value`` read from an import when ``domain`` takes it, else :class:`WorkbenchFormatError` naming
    ``what`` and its place (the text's ``line``, or ``where`` in the JSON; the domains are those of the arguments:
    a file is checked as a call is)."""
    why = domain.reason(value)
    if why is not None:
        raise WorkbenchFormatError(f"{what} {why}, got {quoted(value)}", line=line, where=where)
    return value


def _short_ids(table: Table, where: str) -> None:
    """:class:`WorkbenchFormatError` when a document id in force is longer than :data:`LONGEST_ID` characters."""
    long = next((doc for doc in table.organization.documents if len(doc) > LONGEST_ID), None)
    if long is not None:
        raise WorkbenchFormatError(f"a document id of {len(long):,} characters, {excerpt(long, 20)} (the workbench "
                                   f"takes ids of at most {LONGEST_ID:,})", where=where)


def _tables(gold: Table, outputs: list[Table], n: Any, wn: Any, where: list[str]) -> Tables:
    """The tables of an import, checked: names differ, ids are short, weights are both given (in their
    domains) or both left out; ``where`` names each output's place in the import."""
    if not outputs:
        raise WorkbenchFormatError("the workbench needs at least one output to score against the gold")
    seen: dict[str, str] = {}
    for table, place in zip(outputs, where, strict=True):
        if table.name in seen:
            raise WorkbenchFormatError(f"output names must differ: {quoted(table.name)} is also the name of "
                                       f"{seen[table.name]}", where=place)
        seen[table.name] = place
    for table, place in zip((gold, *outputs), (GOLD, *where), strict=True):
        _short_ids(table, place)
    if (n is None) != (wn is None):
        raise WorkbenchFormatError(f"give both n and W_n, or neither (uniform weights): got n={quoted(n)}, "
                                   f"W_n={quoted(wn)}")
    _checked(n, N, "n", where="weights")
    _checked(wn, WN, "wn", where="weights")
    return Tables(gold, tuple(outputs), None if n is None else int(n), None if wn is None else float(wn))


def read_text(text: str) -> Tables:
    """Inverse of :func:`to_text`."""
    weights: tuple[Any, Any] = (10, 0.8)
    sections: dict[str, list[str]] = {}
    starts: dict[str, int] = {}  # section → the line number of its first line of notation
    current = None
    for line_no, line in lines(text):
        if line.startswith(_SECTION):
            current = line[len(_SECTION):].strip()
            if current in sections:
                raise WorkbenchFormatError(f"section {quoted(current)} is repeated", line=line_no)
            if current != GOLD or sections:
                _checked(current, NAME, "the section's name", line_no)
            sections[current], starts[current] = [], line_no + 1
        elif current is None:
            if line.startswith(_WEIGHTS):
                weights = _read_weights(line[len(_WEIGHTS):].strip(), line_no)
            elif line.strip():
                raise WorkbenchFormatError(f"text before the first '## gold' section: {excerpt(line.strip())}",
                                           line=line_no)
        else:
            sections[current].append(line)
    if GOLD not in sections or next(iter(sections)) != GOLD:
        raise WorkbenchFormatError("expected a '## gold' section first, then one '## <name>' per output")
    tables = [_section(name, "\n".join(body), starts[name]) for name, body in sections.items()]
    return _tables(tables[0], tables[1:], *weights, [f"section {quoted(t.name)}" for t in tables[1:]])


def _section(name: str, body: str, first_line: int) -> Table:
    """The table of one ``## name`` section whose notation starts at line ``first_line`` of the text; a body
    that does not parse is refused, naming the line of the whole text."""
    try:
        return Table(name, body, Organization.parse(body))
    except OrganizationError as problem:
        line = None if problem.line is None else first_line + problem.line - 1
        raise WorkbenchFormatError(problem.message, line=line, column=problem.column,
                                   where=f"section {quoted(name)}, at {excerpt(problem.token or '')}") from None


def _read_weights(text: str, line_no: int) -> tuple[Any, Any]:
    """``uniform`` or ``n=10 wn=0.8`` (n's digits, W_n a decimal number), each inside its domain."""
    if text == "uniform":
        return None, None
    found = _WEIGHTS_LINE.fullmatch(text)
    if found is None:
        raise WorkbenchFormatError(f"weights must read 'uniform' or 'n=10 wn=0.8', got {excerpt(text)}",
                                   line=line_no)
    digits, number = found.groups()
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(int(N.high))):  # beyond n's domain: not converted (Python stops at 4,300 digits)
        raise WorkbenchFormatError(f"the weights' n must be {N}, got a number of {len(digits):,} digits",
                                   line=line_no)
    return (_checked(int(digits), N, "the weights' n", line_no), _checked(float(number), WN, "the weights' wn",
                                                                           line_no))


def to_json(tables: Tables) -> str:
    """The tables as JSON: each table's notation as typed, the levels and rest of the organization in force
    and, while the text is invalid, the ``error`` that makes it so."""
    def table(item: Table) -> dict:
        organization = item.organization
        data = {"name": item.name, "text": item.text,
                "levels": [[sorted(c, key=natural_key) for c in level] for level in organization.levels],
                "rest": None if organization.rest is None else sorted(organization.rest, key=natural_key)}
        return {**data, "error": item.error} if item.error else data
    return json.dumps({"n": tables.n, "wn": tables.wn, "gold": table(tables.gold),
                       "outputs": [table(t) for t in tables.outputs]}, ensure_ascii=False, indent=1)


def read_json(text: str | bytes) -> Tables:
    """Inverse of :func:`to_json`. A table needs ``text`` (notation) or ``levels`` (lists of clusters, each a
    list of document ids) and ``rest`` (a list, or null for an unlimited tail); given both, a valid text must
    state the same organization. A text that does not parse is kept as an edit in progress over the organization
    ``levels`` and ``rest`` give; without them such a text is refused. JSON is read within
    :mod:`workbench.reading.json_input`'s limits (depth, number length and range)."""
    if isinstance(text, bytes | bytearray):
        data = json_input.load(decode(text, None, "utf-8", WorkbenchFormatError))
    else:
        data = json_input.load(Text(text, error=WorkbenchFormatError))
    if not isinstance(data, dict) or GOLD not in data or not isinstance(data.get("outputs"), list):
        raise WorkbenchFormatError("expected a JSON object with 'gold' and a list 'outputs'")
    _known_keys(data, _TOP_KEYS, "the tables")
    gold = _table(data[GOLD], GOLD, GOLD)
    items = data["outputs"]
    where = [f"outputs[{i}]" for i in range(len(items))]
    names = [_checked(item["name"], NAME, f"{place}.name") if isinstance(item, dict) and "name" in item
             else f"output {i}" for i, (item, place) in enumerate(zip(items, where, strict=True), start=1)]
    outputs = [_table(item, name, place) for item, name, place in zip(items, names, where, strict=True)]
    return _tables(gold, outputs, data.get("n"), data.get("wn"), where)


def _known_keys(data: dict, keys: tuple[str, ...], where: str) -> None:
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise WorkbenchFormatError(f"unknown key {quoted(unknown[0])} (the keys are {', '.join(keys)})",
                                   where=where)


def _table(item: Any, name: str, where: str) -> Table:
    if not isinstance(item, dict):
        raise WorkbenchFormatError("expected an object with 'text' or 'levels'", where=where)
    _known_keys(item, _TABLE_KEYS, where)
    text, levels = item.get("text"), item.get("levels")
    if text is not None and not isinstance(text, str):
        raise WorkbenchFormatError(f"expected notation text, got {quoted(text)}", where=f"{where}.text")
    if levels is None and item.get("rest") is None:
        if text is None:
            raise WorkbenchFormatError("expected 'text' (notation) or 'levels' (lists of clusters)", where=where)
        try:
            return Table(name, text, Organization.parse(text))
        except OrganizationError as problem:
            raise WorkbenchFormatError(problem.message, line=problem.line, column=problem.column,
                                       where=f"{where}.text") from None
    organization = _organization(item, where)
    if text is None:
        return Table(name, organization.format(), organization)
    table = Table.read(name, text, organization)
    if not table.error and (organization.levels, organization.rest) != (
            table.organization.levels, table.organization.rest):
        raise WorkbenchFormatError("'text' and 'levels'/'rest' state different organizations", where=where)
    return table


def _organization(item: dict, where: str) -> Organization:
    """The organization ``levels`` and ``rest`` state: checked as the constructor's arguments are, and no
    document named twice in a cluster or in the rest (a set would drop the second silently)."""
    levels = _checked(item.get("levels", []), LEVELS, "levels", where=where)
    rest = _checked(item.get("rest"), _REST, "rest", where=where)
    for i, level in enumerate(levels, start=1):
        for cluster in level:
            if len(set(cluster)) != len(cluster):
                raise WorkbenchFormatError(f"level {i} has a cluster naming a document twice: {quoted(cluster)}",
                                           where=f"{where}.levels")
    if rest is not None and len(set(rest)) != len(rest):
        raise WorkbenchFormatError(f"a document is named twice: {quoted(rest)}", where=f"{where}.rest")
    try:
        return Organization(tuple(tuple(frozenset(c) for c in level) for level in levels),
                            None if rest is None else frozenset(rest))
    except OrganizationError as problem:
        raise WorkbenchFormatError(problem.message, where=where) from None
