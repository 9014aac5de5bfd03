"""Functions people can read (issue 39 item 5): in the explanations and the engines, no function longer than 60
lines or with a McCabe complexity over 12, counted from the source as ruff's C901 counts it (``ruff check
--select C901 --config 'lint.mccabe.max-complexity=12'`` reports the same functions)."""

import ast
import textwrap
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
WATCHED = sorted([*(PACKAGE / "metrics" / "explanations").glob("*.py"), PACKAGE / "data" / "engines.py",
                  PACKAGE / "data" / "explain.py"])
MAX_LINES, MAX_COMPLEXITY = 60, 12


def _branches(body: list[ast.stmt]) -> int:
    """The decision points of ``body``, as ruff's mccabe rule counts them: an ``if`` or ``elif``, a loop, an
    ``except``, a ``try``'s ``else``, a ``case``, and a nested function (with its own), statements only (no
    boolean operator, conditional expression or comprehension)."""
    count = 0
    for node in body:
        if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While):
            count += 1 + _branches(node.body) + _branches(node.orelse)
        elif isinstance(node, ast.Try | ast.TryStar):
            count += (_branches(node.body) + bool(node.orelse) + _branches(node.orelse) + _branches(node.finalbody)
                      + sum(1 + _branches(handler.body) for handler in node.handlers))
        elif isinstance(node, ast.Match):
            count += sum(1 + _branches(case.body) for case in node.cases)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            count += 1 + _branches(node.body)
        elif isinstance(node, ast.With | ast.AsyncWith | ast.ClassDef):
            count += _branches(node.body)
    return count


def measured(source: str) -> dict[str, tuple[int, int]]:
    """Each function of ``source`` (methods and nested functions too, by qualified name): its lines, from its
    ``def`` (or first decorator) to its last line, and its complexity (1 + :func:`_branches`)."""
    found = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found[prefix + child.name] = (child.end_lineno - first + 1, 1 + _branches(child.body))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def test_the_explanations_and_engines_are_made_of_short_simple_functions():
    too_big = {f"{path.relative_to(PACKAGE.parent)}: {name}": size
               for path in WATCHED for name, size in measured(path.read_text(encoding="utf-8")).items()
               if size[0] > MAX_LINES or size[1] > MAX_COMPLEXITY}
    assert too_big == {}, "(lines, complexity) over 60 lines or complexity 12: split into named steps"


def test_the_count_is_ruffs():
    """Small cases counted by hand as ruff's C901 counts them (its docs' example is 3; elif 1 each, else 0)."""
    source = textwrap.dedent("""
        def flat(x):
            return x and x or not x

        def branchy(x):
            if x == 1:
                return 1
            elif x == 2:
                return 2
            else:
                for y in range(x):
                    while y:
                        y -= 1
            try:
                pass
            except ValueError:
                pass
            except TypeError:
                pass
            else:
                pass
            match x:
                case 1:
                    pass
                case _:
                    pass

            def inner():
                return [y for y in range(x) if y]

            return inner

        class Holder:
            @staticmethod
            def method(x):
                with open(x) as f:
                    if f:
                        return 1
                return 0
        """)
    found = measured(source)
    assert found["flat"] == (2, 1)
    assert found["branchy"][1] == 1 + 2 + 2 + 2 + 1 + 2 + 1  # if/elif, for/while, 2 except, else, 2 cases, def
    assert found["branchy.inner"] == (2, 1)
    assert found["Holder.method"] == (6, 2)  # from its decorator
