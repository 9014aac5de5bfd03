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

from workbench.model import Organization, OrganizationError, natural_key
from workbench.reading import json_input
from workbench.reading.text import Text, decode
from workbench.widgets.errors import WorkbenchFormatError
from workbench.widgets.tables import GOLD, Table, Tables, checked_names, checked_weights

__all__ = ["to_text", "read_text", "to_json", "read_json"]

_SECTION = "## "
_WEIGHTS = "# workbench tables, weights:"
_TOP_KEYS = ("n", "wn", "gold", "outputs")
_TABLE_KEYS = ("name", "text", "levels", "rest", "error")


def to_text(tables: Tables) -> str:
    """The tables in the notation, one ``## name`` section each (gold first), the weights in a comment. A table
    holding an edit in progress is written as the organization in force (the notation has no place for a text
    that does not parse: JSON keeps it)."""
    weights = "uniform" if tables.n is None else f"n={tables.n} wn={tables.wn!r}"
    parts = [f"{_WEIGHTS} {weights}"]
    for table in (tables.gold, *tables.outputs):
        parts += [f"{_SECTION}{table.name}", table.organization.format() if table.error else table.text]
    return "\n".join(parts) + "\n"


def read_text(text: str) -> Tables:
    """Inverse of :func:`to_text`."""
    if not isinstance(text, str):
        raise WorkbenchFormatError(f"expected the tables as text, got {type(text).__name__}")
    weights: tuple = (10, 0.8)
    sections: dict[str, list[str]] = {}
    starts: dict[str, int] = {}  # section → the line number of its first line of notation
    current = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.startswith(_SECTION):
            current = line[len(_SECTION):].strip()
            if not current or current in sections:
                raise WorkbenchFormatError(f"line {line_no}: section name {current!r} is empty or repeated")
            sections[current], starts[current] = [], line_no + 1
        elif current is None:
            if line.startswith(_WEIGHTS):
                weights = _read_weights(line[len(_WEIGHTS):].strip(), line_no)
            elif line.strip():
                raise WorkbenchFormatError(f"line {line_no}: text before the first '## gold' section: "
                                           f"{line.strip()!r}")
        else:
            sections[current].append(line)
    if GOLD not in sections or next(iter(sections)) != GOLD or len(sections) < 2:
        raise WorkbenchFormatError("expected a '## gold' section first, then one '## <name>' per output")
    tables = [_section(name, "\n".join(lines), starts[name]) for name, lines in sections.items()]
    checked_names([table.name for table in tables[1:]])
    return Tables(tables[0], tuple(tables[1:]), *checked_weights(*weights))


def _section(name: str, body: str, first_line: int) -> Table:
    """The table of one ``## name`` section whose notation starts at line ``first_line`` of the text; a body
    that does not parse is refused, naming the line of the whole text."""
    try:
        return Table(name, body, Organization.parse(body))
    except OrganizationError as problem:
        line = None if problem.line is None else first_line + problem.line - 1
        where = OrganizationError(problem.message, line=line, column=problem.column, token=problem.token)
        raise WorkbenchFormatError(f"{where} (section {name!r})") from None


def _read_weights(text: str, line_no: int) -> tuple:
    if text == "uniform":
        return None, None
    try:
        fields = dict(item.split("=", 1) for item in text.split())
        if set(fields) != {"n", "wn"}:
            raise ValueError
        return int(fields["n"]), float(fields["wn"])
    except ValueError:
        raise WorkbenchFormatError(f"line {line_no}: weights must read 'uniform' or 'n=10 wn=0.8', "
                                   f"got {text!r}") from None


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
    ``levels`` and ``rest`` give; without them such a text is refused."""
    if isinstance(text, bytes | bytearray):
        data = json_input.load(decode(text, None, "utf-8", WorkbenchFormatError))
    elif isinstance(text, str):
        data = json_input.load(Text(text, error=WorkbenchFormatError))
    else:
        raise WorkbenchFormatError(f"expected the tables as JSON text, got {type(text).__name__}")
    if not isinstance(data, dict) or GOLD not in data or not isinstance(data.get("outputs"), list):
        raise WorkbenchFormatError("expected a JSON object with 'gold' and a list 'outputs'")
    _known_keys(data, _TOP_KEYS, "the tables")
    weights = []
    for key, kinds, what in (("n", (int,), "a whole number"), ("wn", (int, float), "a number")):
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, kinds)):
            raise WorkbenchFormatError(f"{key}: expected {what} or null, got {value!r}")
        weights.append(value)
    gold = _table(data[GOLD], GOLD, GOLD)
    items = data["outputs"]
    names = [item.get("name", f"output {i}") if isinstance(item, dict) else f"output {i}"
             for i, item in enumerate(items, start=1)]
    checked_names(names)
    outputs = tuple(_table(item, name, f"outputs[{i}]") for i, (item, name) in enumerate(zip(items, names,
                                                                                              strict=True)))
    return Tables(gold, outputs, *checked_weights(*weights))


def _known_keys(data: dict, keys: tuple[str, ...], where: str) -> None:
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise WorkbenchFormatError(f"{where}: unknown key {unknown[0]!r} (the keys are {', '.join(keys)})")


def _table(item, name: str, where: str) -> Table:
    if not isinstance(item, dict):
        raise WorkbenchFormatError(f"{where}: expected an object with 'text' or 'levels'")
    _known_keys(item, _TABLE_KEYS, where)
    text, levels = item.get("text"), item.get("levels")
    if text is not None and not isinstance(text, str):
        raise WorkbenchFormatError(f"{where}.text: expected notation text, got {text!r}")
    if levels is None and item.get("rest") is None:
        if text is None:
            raise WorkbenchFormatError(f"{where}: expected 'text' (notation) or 'levels' (lists of clusters)")
        try:
            return Table(name, text, Organization.parse(text))
        except OrganizationError as problem:
            raise WorkbenchFormatError(f"{where}.text: {problem}") from None
    organization = _organization(item, where)
    if text is None:
        return Table(name, organization.format(), organization)
    table = Table.read(name, text, organization)
    if not table.error and (organization.levels, organization.rest) != (
            table.organization.levels, table.organization.rest):
        raise WorkbenchFormatError(f"{where}: 'text' and 'levels'/'rest' state different organizations")
    return table


def _organization(item: dict, where: str) -> Organization:
    levels, rest = item.get("levels", []), item.get("rest")
    if not isinstance(levels, list) or not all(isinstance(level, list) and all(
            isinstance(cluster, list) and all(isinstance(d, str) for d in cluster) for cluster in level)
            for level in levels):
        raise WorkbenchFormatError(f"{where}.levels: expected a list of levels, each a list of clusters, each a "
                                   "list of document ids (strings)")
    if rest is not None and not (isinstance(rest, list) and all(isinstance(d, str) for d in rest)):
        raise WorkbenchFormatError(f"{where}.rest: expected a list of document ids or null, got {rest!r}")
    for i, level in enumerate(levels, start=1):
        for cluster in level:
            if len(set(cluster)) != len(cluster):
                raise WorkbenchFormatError(f"{where}.levels: level {i} has a cluster naming a document twice: "
                                           f"{cluster}")
    if rest is not None and len(set(rest)) != len(rest):
        raise WorkbenchFormatError(f"{where}.rest: a document is named twice: {rest}")
    try:
        return Organization(tuple(tuple(frozenset(c) for c in level) for level in levels),
                            None if rest is None else frozenset(rest))
    except OrganizationError as problem:
        raise WorkbenchFormatError(f"{where}: {problem}") from None
