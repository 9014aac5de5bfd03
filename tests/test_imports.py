"""The package's import graph: no cycle and no upward import, counting every ``import`` statement, those inside
functions too (read from the source, so that a lazy import cannot hide a cycle)."""

import ast
import importlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"

# The layers, lowest first: a module may import its own layer and those below (ARCHITECTURE.md).
LAYERS = [
    ("workbench._version", "workbench.errors", "workbench.escape", "workbench.extras", "workbench.heap",
     "workbench.ids", "workbench.lazy", "workbench.progress", "workbench.reading", "workbench.scalars",
     "workbench.sorting", "workbench.threads", "workbench.validation"),
    ("workbench.model",),
    ("workbench.metrics",),
    ("workbench.data", "workbench.datasets"),
    ("workbench.analysis", "workbench.fusion"),  # fusion reads runs and campaigns (data), as the analyses do
    ("workbench.charts",),
    ("workbench.widgets",),
    ("workbench.cli", "workbench.shell", "workbench.trec_eval", "workbench.catalogue", "workbench.__main__"),
]


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source (``from a import b`` counts ``a.b``
    when ``b`` is a module)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + [node.module or ""])
                    .rstrip(".") if node.level else node.module or "")
            found.update(_target(base, alias.name, known) for alias in node.names)
    return {module for module in found if module in known and module != name}


def _target(base: str, name: str, known: dict[str, Path]) -> str:
    """The module ``from base import name`` loads: a submodule, the module a package exports the name from
    lazily (``workbench.explain`` is :mod:`workbench.metrics.explain`'s), or ``base`` itself."""
    if f"{base}.{name}" in known:
        return f"{base}.{name}"
    exports = getattr(importlib.import_module(base), "_EXPORTS", {}) if base in known else {}
    return exports.get(name, base).partition(":")[0]


def layer(name: str) -> int:
    return next(i for i, heads in enumerate(LAYERS) for head in heads if name == head or name.startswith(head + "."))


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(edges[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    """The measure modules import the registry to register; the registry imports none of them (the package
    workbench.metrics hands it the function that loads them)."""
    assert cycles(graph()) == []


def test_nothing_is_imported_by_its_text():
    """importlib would hide an import from the graph: only the lazy exports use it."""
    users = [name for name, path in modules().items() if "import_module" in path.read_text(encoding="utf-8")]
    assert users == ["workbench.lazy"]


def test_no_upward_imports():
    upward = [(name, other) for name, imported in graph().items() if name != "workbench"
              for other in imported if other == "workbench" or layer(other) > layer(name)]
    assert upward == []


def test_a_cycle_is_found_where_there_is_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_test_module_imports_another():
    """Shared helpers live in tests/conftest.py (and the helper modules beside it), never in a test module."""
    tests = Path(__file__).resolve().parent
    found = []
    for path in tests.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):  # from tests.test_x import y, from tests import test_x
                names = [node.module or "", *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            found += [(path.name, name) for name in names if name.startswith("tests.test_")]
    assert found == []


TABLE_BUILDERS = {"GainTable", "SubtopicTable", "from_gains", "from_judged_rankings", "from_organizations"}


def test_above_the_kernels_a_ranking_meets_its_judgements_only_in_the_join():
    """Issue 29 item 2: curves, explanations, preferences, judgement groups, fusion and the Inspector read
    :func:`workbench.data.trec.join.gain_table`; none builds a gain table itself or spells trec_eval's ``-c``
    placeholder document."""
    known = modules()
    builders = {}
    for name, path in known.items():
        if name in ("workbench", "workbench.data.trec.join") or layer(name) <= layer("workbench.metrics"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            called = node.func if isinstance(node, ast.Call) else None
            spelled = getattr(called, "attr", None) or getattr(called, "id", None)
            if spelled in TABLE_BUILDERS:
                builders.setdefault(name, []).append(f"{spelled} (line {node.lineno})")
            if isinstance(node, ast.Constant) and node.value == "ceci_nest_pas_un_docno":
                builders.setdefault(name, []).append(f"the placeholder (line {node.lineno})")
    assert builders == {}


def _area(name: str) -> str:
    """The part of the package a module belongs to: ``workbench.data``, ``workbench.metrics``, …"""
    return ".".join(name.split(".")[:2])


def test_every_module_says_what_it_exports_and_other_parts_import_only_that():
    """Issue 29 item 4: every module declares ``__all__``; a module of one part of the package (``data``,
    ``metrics``, ``widgets``, …) imports from another part only the names that part exports."""
    known = modules()
    exports = {name: getattr(importlib.import_module(name), "__all__", None) for name in known
               if name != "workbench.__main__"}
    assert [name for name, names in exports.items() if names is None] == []
    reaching = []
    for name, path in known.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = (".".join(package.split(".")[:len(package.split(".")) - node.level + 1] + [node.module or ""])
                    .rstrip(".") if node.level else node.module or "")
            if base not in exports or _area(base) == _area(name):
                continue
            reaching += [f"{name} imports {alias.name} from {base}" for alias in node.names
                         if f"{base}.{alias.name}" not in known and alias.name not in exports[base]]
    assert reaching == []
