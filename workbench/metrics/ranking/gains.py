"""trec_eval's gain mapping (``gain_init.c``): graded measures given ``rel=gain`` pairs, as trec_eval's
``-m ndcg.1=3,2=9`` and ir_measures' ``nDCG(gains={1:3,2:9})``.

    >>> from workbench.metrics.ranking.table import GainTable
    >>> t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    >>> values, ideal = gain_tables(t, {1: 3, 2: 9})
    >>> values.tolist(), ideal.tolist()
    ([[0.0, 9.0, 3.0]], [[9.0, 3.0, 3.0]])
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import numpy as np

from workbench.metrics.ranking.table import GainTable

__all__ = ["level_counts", "gain_tables", "rescaled_gains"]


def _c_gain_order(entries: list[tuple[float, float, int]]) -> list[tuple[float, float, int]]:
    """trec_eval's gain table sorted as its qsort comparator does: by (int)(gain₁ − gain₂)."""
    return sorted(entries, key=functools.cmp_to_key(_c_gain_compare))


def _c_gain_compare(x: tuple[float, float, int], y: tuple[float, float, int]) -> int:
    return int(x[1] - y[1])


def level_counts(table: GainTable, row: int) -> dict[float, int]:
    """{grade: number of judged documents} of one row, grade 0 included."""
    positive = table.ideal[row][table.ideal[row] > 0]
    levels, counts = np.unique(positive, return_counts=True)
    found = dict(zip(levels.tolist(), counts.tolist(), strict=True))
    found[0.0] = int(table.n_judged[row]) - int(positive.size)
    return found


def gain_tables(table: GainTable, gains: Mapping[float, float] | Iterable[tuple[float, float]] | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """The retrieved gains and the ideal gain sequence after trec_eval's ``rel=gain`` mapping
    (``gain_init.c``): every grade present keeps its value as gain unless mapped; the ideal repeats each
    grade's gain as often as it is judged, highest gain first, up to the first gain ≤ 0. Grades outside the
    qrels (not pooled, or negative) have gain 0 unless ``gains`` maps -1 or -2 as trec_eval does."""
    if not gains:
        return table.gains, table.ideal
    pairs = gains.items() if isinstance(gains, Mapping) else gains  # pairs in the order given, as trec_eval's
    mapping = {float(level): float(gain) for level, gain in pairs}
    mapped = np.where(table.judged, table.gains, np.nan)
    retrieved = np.zeros_like(table.gains)
    ideal_rows: list[list[float]] = []
    for row in range(table.gains.shape[0]):
        counts = level_counts(table, row)
        top = max((lv for lv, n in counts.items() if n > 0), default=0.0)
        entries = [(lv, g, 0) for lv, g in mapping.items()]
        for level in sorted(set(range(int(top) + 1)) | set(counts)):
            level = float(level)
            if level in mapping:
                entries = [(lv, g, counts.get(level, 0) if lv == level else n) for lv, g, n in entries]
            else:
                entries.append((level, level, counts.get(level, 0)))
        lookup = {lv: g for lv, g, _ in entries}
        sequence: list[float] = []
        order = _c_gain_order(entries)
        if order and order[-1][1] <= 0:  # trec_eval walks the ideal only from a positive last entry, counted or not
            order = []
        for _, gain, count in reversed(order):
            if count == 0:
                continue
            if gain <= 0:
                break
            sequence.extend([gain] * count)
        ideal_rows.append(sequence)
        values = mapped[row]
        judged_gain = np.array([lookup.get(v, 0.0) if not np.isnan(v) else 0.0 for v in values.tolist()])
        outside = np.where(table.pooled[row], mapping.get(-2.0, 0.0), mapping.get(-1.0, 0.0))
        retrieved[row] = np.where(table.judged[row], judged_gain,
                                  np.where(np.arange(values.size) < table.num_ret[row], outside, 0.0))
    width = max((len(r) for r in ideal_rows), default=0)
    ideal = np.zeros((len(ideal_rows), width))
    for i, sequence in enumerate(ideal_rows):
        ideal[i, :len(sequence)] = sequence
    return retrieved, ideal



def rescaled_gains(table: GainTable, gains: Mapping[float, float]) -> np.ndarray:
    """The retrieved gains after trec_eval's ``rel=gain`` mapping, rescaled as trec_eval's ``rbp`` rescales them
    (``m_rbp.c``): when some level's gain (every grade 0 … the highest judged keeps its own unless mapped) lies
    outside [0, 1], each non-zero gain g becomes (g − min) / (max − min) over those levels' gains."""
    values, _ = gain_tables(table, gains)
    out = np.array(values, dtype=float)
    for row in range(values.shape[0]):
        counts = level_counts(table, row)
        top = max((level for level, n in counts.items() if n > 0), default=0.0)
        levels = {float(level): float(level) for level in range(int(top) + 1)}
        levels.update({float(level): float(gain) for level, gain in gains.items()})
        low, high = min(levels.values()), max(levels.values())
        if low < 0 or high > 1:
            out[row] = np.where(values[row] != 0, (values[row] - low) / (high - low), 0.0)
    return out
