"""What every explanation of a measure holds: the score, its rows and, for a measure that is not a sum, its parts.

A measure that is a sum over documents (AP, nDCG, P@k, BCubed precision, Accuracy...) is explained by one row per
document (per occurrence, per item, per outcome: whatever it sums over) whose ``contribution`` column adds up to
the score. A measure that combines sums (F of precision and recall, NMI, Kappa, ARI...) is explained through its
``parts``: each part is such a sum, its rows carry the part's name in the ``part`` column, and :attr:`formula`
says how the parts combine (:meth:`MeasureExplanation.combine` applies the measure's own combining kernel).

Every row also says what it ``lost``: the contribution it would have in a perfect output (the ideal ranking,
the gold clustering, a correct decision) minus the one it has (turned around for a measure where lower is
better), so that :meth:`MeasureExplanation.lost` lists the rows that cost the most first.

    >>> import pandas as pd
    >>> rows = pd.DataFrame({"document": ["d1", "d2"], "contribution": [0.5, 0.25], "lost": [0.0, 0.25]})
    >>> e = MeasureExplanation("AP", 0.75, rows, {"AP": 0.75}, "AP = Σ contribution", "per document")
    >>> e.lost().document.tolist(), e.is_sum
    (['d2', 'd1'], True)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.metrics.explain import ExplainError
from workbench.validation import Choices, Instance, MappingOf, Text, check, validate

__all__ = ["DocumentNotExplainedError", "PartNotFoundError", "MeasureExplanation"]

if TYPE_CHECKING:
    import pandas as pd


class DocumentNotExplainedError(ExplainError):
    """A document asked about that the explanation has no row for (not in the output, nor in the gold)."""


class PartNotFoundError(ExplainError):
    """A part asked about that the explanation of the measure does not have."""


_NUMBER = Instance((numbers.Real,), "a number")


def _sum(values: Mapping[str, float]) -> float:
    (value,) = values.values()
    return value


@dataclass(frozen=True, eq=False)
class MeasureExplanation:
    """One measure of one output against one gold (or of every topic of a run), decomposed.

    * :attr:`measure`: the measure as written (``str`` of :class:`~workbench.metrics.registry.Measure`);
    * :attr:`score`: the value :func:`workbench.evaluate` gives (per topic: :attr:`scores`);
    * :attr:`contributions`: the rows (their columns depend on the family, see :func:`workbench.explain`), with
      ``contribution`` and ``lost`` last and, for a measure explained through parts, ``part`` before them;
    * :attr:`parts`: ``{part: value}``, each the sum of its rows' contributions (``{measure: score}`` for a sum);
    * :attr:`formula`: how the parts make the score, in words and symbols;
    * :attr:`how`: ``"per document"``, ``"per occurrence"``, ``"per item"``, ``"per outcome"`` or
      ``"through its parts: ..."`` (what the registry records).
    """

    measure: str
    score: float
    contributions: pd.DataFrame
    parts: dict[str, float]
    formula: str
    how: str
    combiner: Callable[[Mapping[str, float]], float] = field(default=_sum, repr=False)
    scores: pd.Series | None = field(default=None, repr=False)  # per topic, for a run's explanation

    def __post_init__(self) -> None:  # the columns of every family end with part, contribution, lost
        import pandas as pd

        rows = self.contributions
        last = [c for c in ("part", "contribution", "lost") if c in rows.columns]
        ordered = [c for c in rows.columns if c not in last] + last
        if ordered != list(rows.columns):
            rows = rows[ordered]
        if not rows.index.equals(pd.RangeIndex(len(rows))):
            rows = rows.reset_index(drop=True)
        object.__setattr__(self, "contributions", rows)

    @property
    def is_sum(self) -> bool:
        """True when the rows' contributions add up to the score (no parts to combine)."""
        return "part" not in self.contributions.columns

    @validate(parts=MappingOf(Text(), _NUMBER, optional=True, what="a mapping {part: value}"))
    def combine(self, parts: Mapping[str, float] | None = None) -> float:
        """The score from ``parts`` (default: :attr:`parts`: every part, by name) through the measure's own combining
        function."""
        if parts is not None:  # a value for each of the measure's parts, and nothing else
            check(parts, MappingOf(Choices(tuple(self.parts)), shortest=len(self.parts),
                                   what=f"a mapping {{part: value}} of its parts {', '.join(self.parts)}"),
                  "parts", "MeasureExplanation.combine")
        return float(self.combiner(self.parts if parts is None else parts))

    @validate(name=Text())
    def part(self, name: str) -> pd.DataFrame:
        """The rows of one part (every row for a sum)."""
        if self.is_sum and name in (self.measure, *self.parts):
            return self.contributions
        if name not in self.parts:
            raise PartNotFoundError(f"{self.measure} has no part {name!r}; its parts: {', '.join(self.parts)}")
        return self.contributions[self.contributions["part"] == name]

    def lost(self) -> pd.DataFrame:
        """The rows sorted by what they lost, largest first (ties keep their order): where to look first."""
        return self.contributions.sort_values("lost", ascending=False, kind="stable").reset_index(drop=True)

    @validate(document=Text())
    def document(self, document: str) -> pd.DataFrame:
        """The rows of one document; :class:`DocumentNotExplainedError` when there are none."""
        if "document" not in self.contributions.columns:
            raise DocumentNotExplainedError(f"{self.measure} is not explained per document")
        rows = self.contributions[self.contributions["document"] == document]
        if rows.empty:
            known = self.contributions["document"].dropna().astype(str).unique().tolist()
            shown = ", ".join(map(repr, known[:10])) + (f" and {len(known) - 10} more" if len(known) > 10 else "")
            raise DocumentNotExplainedError(f"document {document!r} is neither in the output nor in the gold that "
                                            f"{self.measure} reads; its documents: {shown}")
        return rows

    def __repr__(self) -> str:
        parts = "" if self.is_sum else " from " + ", ".join(f"{k} = {v:.4g}" for k, v in self.parts.items())
        score = "nan" if isinstance(self.score, float) and math.isnan(self.score) else f"{self.score:.6g}"
        return (f"<MeasureExplanation {self.measure} = {score}{parts}: {len(self.contributions)} rows "
                f"{self.how}; {self.formula}>")
