"""The gallery of the workbench: the papers' worked examples (Amigó et al., SIGIR 2013, Tables 1–5 and 9) as editor
texts.

Built from the repository's ``datasets/seed000-table*.org`` (:mod:`workbench.datasets`), so the gallery
shows exactly the data the tests and notebooks read.

    >>> EXAMPLES["Table 9 (document organization)"].outputs["output 5"].splitlines()[0]
    '{d6 d7}'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench import datasets
from workbench.metrics.reliability import RS_MEASURES

__all__ = ["Example", "EXAMPLES"]

# Gallery label → dataset, in the order the dropdown lists them.
_TABLES = {
    "Table 9 (document organization)": "seed000-table9",
    "Table 1 (ranking)": "seed000-table1",
    "Table 2 (filtering)": "seed000-table2",
    "Table 3 (clustering)": "seed000-table3",
    "Table 4 (overlapping clustering)": "seed000-table4",
    "Table 5 (search results organization)": "seed000-table5",
}


@dataclass(frozen=True)
class Example:
    """One gold standard and its system outputs, as notation texts; ``weights`` is (n, W_n) or None for
    uniform weights (closed collections); ``printed`` the (R≺, S≺, R∼, S∼) the paper prints per output."""

    source: str
    gold: str
    outputs: dict[str, str] = field(default_factory=dict)
    weights: tuple[int, float] | None = (10, 0.8)
    printed: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)


def _editor_name(name: str) -> str:
    """``System Output 1`` → ``output 1`` (the editors' captions)."""
    return name.lower().removeprefix("system ").strip()


def _example(dataset: str) -> Example:
    example = datasets.load(dataset)
    closed = example.gold.finite and all(o.finite for o in example.outputs.values())
    params = example.params
    weights = (params["n"], params["wn"]) if "n" in params else (None if closed else (10, 0.8))
    printed = {_editor_name(name): tuple(values[m] for m in RS_MEASURES)
               for name, values in example.printed.items() if name != "gold" and set(RS_MEASURES) <= set(values)}
    return Example(example.title, example.gold.format(),
                   {_editor_name(name): output.format() for name, output in example.outputs.items()},
                   weights, printed)


EXAMPLES: dict[str, Example] = {label: _example(dataset) for label, dataset in _TABLES.items()}
