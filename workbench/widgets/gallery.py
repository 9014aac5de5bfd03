"""The papers' worked examples in the notation, for the workbench's gallery (seed 000, Tables 1–5 and 9).

Read off the tables of seed 000; ``d4 … dn`` tails become an unlimited tail (no ``rest:`` line) and the
closed collections of filtering and clustering a finite ``rest:``. To be replaced by
``workbench.datasets.load(...)`` once the data helper ships these examples as data files.

    >>> EXAMPLES["Table 9 (document organization)"].outputs["output 5"].splitlines()[0]
    '{d6 d7}'
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Example:
    """One gold standard and its system outputs, as notation texts; ``weights`` is (n, W_n) or None for
    uniform weights (closed collections); ``printed`` the (R≺, S≺, R∼, S∼) the paper prints per output."""

    source: str
    gold: str
    outputs: dict[str, str] = field(default_factory=dict)
    weights: tuple[int, float] | None = (10, 0.8)
    printed: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)


_TABLE9_GOLD = "d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}"

EXAMPLES: dict[str, Example] = {
    "Table 9 (document organization)": Example(
        "seed 000, Table 9 (n = 10, W_n = 0.8)",
        _TABLE9_GOLD,
        {
            "output 1": "d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\nd6 d7",
            "output 2": "d1 {d2 d3} d4\n{d4 d5} {d6 d7}\n{d6 d7}",
            "output 3": "d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}",
            "output 4": "d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7 d8}",
            "output 5": "{d6 d7}\n{d4 d5} {d6 d7}\nd1 {d2 d3 d4}",
        },
        printed={
            "output 1": (1, 1, 1, 0.97),
            "output 2": (1, 1, 1, 0.8),
            "output 3": (1, 0.86, 1, 0.74),
            "output 4": (0.95, 0.85, 0.96, 0.74),
            "output 5": (0.64, 0.59, 1, 1),
        },
    ),
    "Table 1 (ranking)": Example(
        "seed 000, Table 1",
        "d1 d2 d3",
        {"output": "d1\nd2\nd6\nd3\nd14"},
    ),
    "Table 2 (filtering)": Example(
        "seed 000, Table 2",
        "d1 d2 d3\nrest: d4 d5 d6 d7 d8",
        {"output": "d1 d2 d4\nrest: d3 d5 d6 d7 d8"},
        None,
    ),
    "Table 3 (clustering)": Example(
        "seed 000, Table 3",
        "{d1 d2 d3} {d4 d5 d6} d7\nrest:",
        {"output": "{d1 d2} d3 {d4 d5 d6 d7}\nrest:"},
        None,
    ),
    "Table 4 (overlapping clustering)": Example(
        "seed 000, Table 4",
        "{d1 d2 d3} {d4 d5 d6} {d4 d7}\nrest:",
        {"output": "{d1 d2} d3 {d4 d5 d6 d7} {d6 d7}\nrest:"},
        None,
    ),
    "Table 5 (search results organization)": Example(
        "seed 000, Table 5",
        "{d1 d2}\n{d3 d4} {d5 d6}\nd7\n{d5 d8 d9}\nd10",
        {"output": "d1\nd2\n{d3 d4} {d5 d6}\n{d5 d7 d9}\nd8\nd12"},
    ),
}
