"""A ranking measure's terms: what each rank adds to the score, the pure numpy half of its explanation.

Every ranking measure is a sum over ranks (or combines such sums); its declaration carries a ``terms(table,
**params)`` function returning :class:`Terms`, and :mod:`workbench.metrics.explanations.ranking` turns them into
one row per document (pandas is only needed there). The terms of a row sum to the kernel's value:

    >>> from workbench.metrics.ranking.table import GainTable
    >>> t = GainTable.from_gains([[1, 0, 1]], [[1, 1]])
    >>> contribution = t.relevant(1) * reciprocal(t.n_relevant(1))[:, None]   # R = Σ relevant(r) · 1/R
    >>> contribution.tolist()
    [[0.5, 0.0, 0.5]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from workbench.metrics.ranking.table import GainTable, safe_divide

__all__ = ["Terms", "reciprocal", "placed", "cleaned", "grades_reach", "discounts"]


@dataclass
class Terms:
    """A kernel's terms on a table: ``contribution[row, rank]`` (0-based ranks; as wide as the ranks the measure
    reads), the named ``factors`` of each term (matrices of the same shape, or one column per row), and what
    documents outside the ranking carry: ``missing(rows, grades)`` for the judged relevant documents a ranking
    misses (per part, for a measure of parts), ``rest[row]`` (named ``rest_label``) for what no document carries.
    ``parts`` (SetF, yaap): the contribution matrices of the parts and the function combining them."""

    contribution: np.ndarray
    formula: str
    factors: dict[str, np.ndarray] = field(default_factory=dict)
    missing: Callable[[np.ndarray, np.ndarray], np.ndarray] | Mapping[str, Callable] | None = None
    rest: np.ndarray | None = None
    rest_label: str = ""
    parts: dict[str, np.ndarray] | None = None
    combine: Callable[[Mapping[str, float]], float] | None = None


def reciprocal(values) -> np.ndarray:
    """1/value per row (0 where the value is 0), a factor shared by every rank of the row."""
    values = np.asarray(values, dtype=float)
    return safe_divide(np.ones_like(values), values)


def placed(positions: np.ndarray, found: np.ndarray, values, width: int) -> np.ndarray:
    """A rows × width matrix holding ``values[row]`` at ``positions[row]`` where ``found[row]``, 0 elsewhere."""
    out = np.zeros((len(positions), width))
    rows = np.flatnonzero(found)
    out[rows, positions[rows]] = np.asarray(values, dtype=float)[rows] if np.ndim(values) else values
    return out


def cleaned(table: GainTable, matrix: np.ndarray) -> np.ndarray:
    """0 on the rows of topics the run lacks, for the kernels trec_eval cleans up there (``trec._cleaned``)."""
    return np.where(table.placeholder[:, None], 0.0, matrix)


def grades_reach(level: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``missing``: 1 for each missed judged document whose grade reaches ``level`` (a count's term)."""
    return lambda _rows, grades: (grades >= level).astype(float)


def discounts(width: int) -> np.ndarray:
    """1/log2(r + 1) at ranks r = 1..width."""
    return 1.0 / np.log2(np.arange(width, dtype=float) + 2.0)
