"""The comparison table of a paper: mean of each system on each measure, the best in bold, and marks where a
system differs significantly from a baseline — as a pandas Styler, Markdown, LaTeX or CSV.

Each system is tested against the baseline on the per-topic scores (paired; :data:`TESTS`, a t-test by
default) and the p-values are Holm-corrected over the systems compared with the baseline, per measure.
▲ marks a significantly better mean, ▼ a significantly worse one, "better" following each measure's
registered direction (lower for Lam%); the footnote names the test, the correction, α and the topics.

    >>> import pandas as pd
    >>> rows = [(s, t, "AP", v) for s, vs in {"base": [.2, .3, .25, .4], "new": [.3, .45, .35, .5]}.items()
    ...         for t, v in enumerate(vs)]
    >>> report = compare_report(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]))
    >>> table, footnote = report.to_markdown().split("\\n\\n")
    >>> print(table)
    | system | AP |
    |---|---|
    | base (baseline) | 0.2875 |
    | new | **0.4000**▲ |
    >>> footnote[:93]
    'Bold: the best mean of each measure. ▲/▼: significantly better/worse than base (paired t-test'
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.analysis.paired_tests import CORRECTIONS, TESTS, adjust, paired_test
from workbench.analysis.results import ResultsError, score_cube
from workbench.escape import latex_escape, markdown_escape

MARKS = {"better": "▲", "worse": "▼", "": ""}
LATEX_MARKS = {"better": r"$^{\blacktriangle}$", "worse": r"$^{\blacktriangledown}$", "": ""}


@dataclass(frozen=True)
class ComparisonReport:
    """Means (systems × measures, systems in the order given, the baseline first), whether each is the best
    of its measure, the adjusted p-value against the baseline, and ``versus`` = ``"better"``, ``"worse"`` or
    ``""`` (not significant, or the baseline itself); ``footnote`` says how."""

    means: pd.DataFrame
    best: pd.DataFrame
    p_adjusted: pd.DataFrame
    versus: pd.DataFrame
    baseline: str
    footnote: str
    digits: int = 4

    def _cells(self, bold: str, marks: dict[str, str]) -> pd.DataFrame:
        """The means as text: ``digits`` decimals, the best wrapped in ``bold`` (a format), marks appended."""
        def cell(system, measure) -> str:
            text = f"{self.means.loc[system, measure]:.{self.digits}f}"
            if self.best.loc[system, measure]:
                text = bold.format(text)
            return text + marks[self.versus.loc[system, measure]]

        return pd.DataFrame({m: [cell(s, m) for s in self.means.index] for m in self.means.columns},
                            index=self._labels())

    def _labels(self) -> list[str]:
        return [f"{s} (baseline)" if s == self.baseline else str(s) for s in self.means.index]

    def to_markdown(self) -> str:
        """A Markdown table (best in ``**bold**``, ▲/▼ marks) and its footnote."""
        cells = self._cells("**{}**", MARKS)
        lines = ["| system | " + " | ".join(markdown_escape(str(c)) for c in cells.columns) + " |",
                 "|" + "|".join("---" for _ in range(len(cells.columns) + 1)) + "|"]
        lines += [f"| {markdown_escape(label)} | " + " | ".join(row) + " |"
                  for label, row in zip(cells.index, cells.values, strict=True)]
        return "\n".join(lines) + "\n\n" + self.footnote + "\n"

    def to_latex(self) -> str:
        """A ``tabular`` (``\\textbf`` for the best; the marks need ``amssymb``) with the footnote as last row."""
        cells = self._cells(r"\textbf{{{}}}", LATEX_MARKS)
        width = len(cells.columns) + 1
        lines = [r"\begin{tabular}{l" + "r" * len(cells.columns) + "}", r"\hline",
                 " & ".join(["system", *map(latex_escape, map(str, cells.columns))]) + r" \\", r"\hline"]
        lines += [" & ".join([latex_escape(label), *row]) + r" \\" for label, row in zip(cells.index, cells.values,
                                                                                  strict=True)]
        note = latex_escape(self.footnote).replace("▲", LATEX_MARKS["better"]).replace("▼", LATEX_MARKS["worse"])
        lines += [r"\hline", rf"\multicolumn{{{width}}}{{p{{0.9\linewidth}}}}{{\footnotesize {note}}} \\",
                  r"\end{tabular}"]
        return "\n".join(lines) + "\n"

    def to_frame(self) -> pd.DataFrame:
        """Tidy: ``system, measure, mean, best, baseline, p_adjusted, versus`` (one row per cell)."""
        frame = pd.DataFrame({
            "system": np.repeat(self.means.index.to_numpy(dtype=object), len(self.means.columns)),
            "measure": np.tile(self.means.columns.to_numpy(dtype=object), len(self.means.index)),
            "mean": self.means.to_numpy().ravel(),
            "best": self.best.to_numpy().ravel(),
            "p_adjusted": self.p_adjusted.to_numpy().ravel(),
            "versus": self.versus.to_numpy().ravel(),
        })
        frame.insert(4, "baseline", frame["system"] == self.baseline)
        return frame

    def to_csv(self) -> str:
        """:meth:`to_frame` as CSV at full precision (the footnote is in :attr:`footnote`)."""
        buffer = io.StringIO()
        self.to_frame().to_csv(buffer, index=False, lineterminator="\n")
        return buffer.getvalue()

    def style(self):
        """A pandas Styler for notebooks: the best in bold, ▲/▼ marks, the footnote as caption."""
        cells = self._cells("{}", MARKS)
        best = pd.DataFrame(self.best.to_numpy(), index=cells.index, columns=cells.columns)
        return (cells.style.apply(lambda _: np.where(best, "font-weight: bold", ""), axis=None)
                .set_caption(self.footnote))

    def _repr_html_(self) -> str:
        return self.style().to_html()

    def __str__(self) -> str:
        return self.to_markdown()


def compare_report(results: pd.DataFrame, measures: Sequence[str] | None = None, *, baseline=None,
                   test: str = "t", correction: str = "holm", alpha: float = 0.05, n_resamples: int = 10_000,
                   seed: int | None = 0, systems: Sequence | None = None, missing: str = "error",
                   digits: int = 4) -> ComparisonReport:
    """The comparison report of tidy results (``system, topic, measure, value``): per system and measure the
    summary trec_eval prints in its ``all`` row (the mean, the sum of counts, the geometric mean of ``GMAP``:
    :func:`workbench.metrics.registry.aggregate`), the best in bold, the test against a baseline.

    ``baseline`` is a system (default: the first); ``test`` one of :data:`TESTS` (``"t"``, ``"randomization"``
    …), ``correction`` one of ``holm``, ``bonferroni``, ``none`` over the systems compared with the baseline,
    per measure; ``missing`` as in :func:`~workbench.analysis.results.score_cube` (2 topics at least).
    """
    from workbench.metrics.registry import aggregate, direction
    from workbench.metrics.summary import summarize, trec_order

    if test not in TESTS:
        raise ResultsError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if correction not in CORRECTIONS:
        raise ResultsError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    if not 0 < alpha < 1:
        raise ResultsError(f"alpha must lie in (0, 1), got {alpha!r}")
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=2)
    if baseline is None:
        baseline = cube.systems[0]
    if baseline not in cube.systems:
        raise ResultsError(f"baseline {baseline!r} is not among the systems {cube.systems}", system=baseline)
    order = [baseline, *(s for s in cube.systems if s != baseline)]
    values = cube.values[[cube.systems.index(s) for s in order]]  # systems × topics × measures
    in_order = values[:, trec_order([str(t) for t in cube.topics])]  # topics as trec_eval adds them
    means = np.stack([summarize(in_order[:, :, k], aggregate(str(m))) for k, m in enumerate(cube.measures)], axis=1)
    oriented = means * cube.signs()
    best = np.isclose(oriented, oriented.max(axis=0), rtol=0, atol=1e-12)
    p_adjusted = np.full(means.shape, np.nan)
    versus = np.full(means.shape, "", dtype=object)
    rng = np.random.default_rng(seed)
    others = len(order) - 1
    for k in range(len(cube.measures)):
        if not others:
            break
        d = values[1:, :, k] - values[0, :, k]
        _, p = paired_test(d, test, n_resamples=n_resamples, rng=rng)
        p_adjusted[1:, k] = adjust(p, correction)
        gain = (means[1:, k] - means[0, k]) * cube.signs()[k]
        versus[1:, k] = np.where(p_adjusted[1:, k] < alpha, np.where(gain > 0, "better", "worse"), "")
    lower = [str(m) for m in cube.measures if direction(str(m)) == "lower"]
    corrected = ("no correction" if correction == "none" else
                 f"{correction.capitalize()} correction over the {others} system{'s' * (others != 1)} compared "
                 "with it per measure")
    lower_note = f" (lower is better for {', '.join(lower)})" if lower else ""
    footnote = (f"Bold: the best mean of each measure{lower_note}. "
                f"▲/▼: significantly better/worse than {baseline} ({TESTS[test]}, {corrected}, p < {alpha:g}; "
                f"{len(cube.topics)} topics).")

    def frame(array):
        return pd.DataFrame(array, index=pd.Index(order, name="system"), columns=list(cube.measures))

    return ComparisonReport(frame(means), frame(best), frame(p_adjusted), frame(versus), baseline, footnote,
                            digits)
