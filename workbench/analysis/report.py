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

from workbench.analysis.paired_tests import CORRECTION, RESAMPLES, TESTS, adjust, paired_test
from workbench.analysis.rank_tests import POSTHOCS, posthoc_pairs
from workbench.analysis.results import ALPHA, BASELINE, MEASURES, MISSING, RESULTS, SYSTEMS, ResultsError, score_cube
from workbench.analysis.tukey import tukey_pairs
from workbench.escape import html_escape, latex_escape, markdown_escape
from workbench.validation import SEED, Choices, Flag, Interval, validate

__all__ = ["MARKS", "LATEX_MARKS", "REPORT_TESTS", "ComparisonReport", "compare_report"]

MARKS = {"better": "▲", "worse": "▼", "": ""}
LATEX_MARKS = {"better": r"$^{\blacktriangle}$", "worse": r"$^{\blacktriangledown}$", "": ""}
REPORT_TESTS = Choices((*TESTS, "tukey", *POSTHOCS))
"""The domain of :func:`compare_report`'s ``test``: a paired test against the baseline, Tukey's HSD or Friedman's
post-hoc over every pair."""


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
    win_tie_loss: pd.DataFrame | None = None  # "wins/ties/losses" against the baseline per system and measure

    def _cells(self, bold: str, marks: dict[str, str]) -> pd.DataFrame:
        """The means as text: ``digits`` decimals, the best wrapped in ``bold`` (a format), marks appended."""
        def cell(system, measure) -> str:
            text = f"{self.means.loc[system, measure]:.{self.digits}f}"
            if self.best.loc[system, measure]:
                text = bold.format(text)
            return text + marks[self.versus.loc[system, measure]]

        columns = {}
        for m in self.means.columns:
            columns[m] = [cell(s, m) for s in self.means.index]
            if self.win_tie_loss is not None:
                columns[f"{m} W/T/L"] = self.win_tie_loss[m].tolist()
        return pd.DataFrame(columns, index=self._labels())

    def _labels(self) -> list[str]:
        return [f"{s} (baseline)" if s == self.baseline else str(s) for s in self.means.index]

    def to_markdown(self) -> str:
        """A Markdown table (best in ``**bold**``, ▲/▼ marks) and its footnote."""
        cells = self._cells("**{}**", MARKS)
        lines = ["| system | " + " | ".join(markdown_escape(str(c)) for c in cells.columns) + " |",
                 "|" + "|".join("---" for _ in range(len(cells.columns) + 1)) + "|"]
        lines += [f"| {markdown_escape(label)} | " + " | ".join(row) + " |"
                  for label, row in zip(cells.index, cells.values, strict=True)]
        return "\n".join(lines) + "\n\n" + markdown_escape(self.footnote) + "\n"

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
        if self.win_tie_loss is not None:
            counts = [cell.split("/") if cell else [None] * 3 for cell in self.win_tie_loss.to_numpy().ravel()]
            for i, name in enumerate(("wins", "ties", "losses")):
                frame[name] = pd.array([None if c[i] is None else int(c[i]) for c in counts], dtype="Int64")
        return frame

    def to_csv(self) -> str:
        """:meth:`to_frame` as CSV at full precision (the footnote is in :attr:`footnote`)."""
        buffer = io.StringIO()
        self.to_frame().to_csv(buffer, index=False, lineterminator="\n")
        return buffer.getvalue()

    def style(self):
        """A pandas Styler for notebooks: the best in bold, ▲/▼ marks, the footnote as caption; names shown as
        text (HTML-escaped, as every cell)."""
        cells = self._cells("{}", MARKS)
        best = pd.DataFrame(False, index=cells.index, columns=cells.columns)
        best[list(self.means.columns)] = self.best.to_numpy()
        return (cells.style.apply(lambda _: np.where(best, "font-weight: bold", ""), axis=None)
                .format(escape="html").format_index(escape="html", axis=0).format_index(escape="html", axis=1)
                .set_caption(html_escape(self.footnote)))

    def _repr_html_(self) -> str:
        return self.style().to_html()

    def __str__(self) -> str:
        return self.to_markdown()


@validate(results=RESULTS, measures=MEASURES, baseline=BASELINE, test=REPORT_TESTS, correction=CORRECTION, alpha=ALPHA,
          n_resamples=RESAMPLES, seed=SEED, systems=SYSTEMS, missing=MISSING, digits=Interval(0, 17, integer=True),
          win_tie_loss=Flag())
def compare_report(results: pd.DataFrame, measures: Sequence[str] | None = None, *, baseline=None,
                   test: str = "t", correction: str = "holm", alpha: float = 0.05, n_resamples: int = 10_000,
                   seed: int | None = 0, systems: Sequence | None = None, missing: str = "error",
                   digits: int = 4, win_tie_loss: bool = False) -> ComparisonReport:
    """The comparison report of tidy results (``system, topic, measure, value``): per system and measure the
    summary trec_eval prints in its ``all`` row (the mean, the sum of counts, the geometric mean of ``GMAP``:
    :func:`workbench.metrics.registry.aggregate`), the best in bold, the test against a baseline.

    ``baseline`` is a system (default: the first); ``test`` one of :data:`TESTS` (``"t"``, ``"randomization"``
    …), ``correction`` one of ``holm``, ``bonferroni``, ``none`` over the systems compared with the baseline,
    per measure, or ``test="tukey"``: Tukey's HSD over every pair of systems (one-way,
    :func:`~workbench.analysis.tukey.tukey_hsd`), which controls the family itself (no correction), or
    ``"nemenyi"`` / ``"conover"``: Friedman's post-hoc over every pair
    (:func:`~workbench.analysis.rank_tests.friedman`; Conover's corrected by ``correction`` over all the pairs);
    ``missing`` as in :func:`~workbench.analysis.results.score_cube` (2 topics at least). ``win_tie_loss`` adds
    a ``W/T/L`` column per measure: the topics each system wins, ties and loses against the baseline; ``digits``
    the decimals the tables show (17 at most: a double's).
    """
    from workbench.metrics.registry import aggregate, direction
    from workbench.metrics.summary import summarize, trec_order

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
        if test == "tukey":  # the baseline's pairs among all pairs: (0, j) come first, in order
            p_adjusted[1:, k] = tukey_pairs(values[:, :, k], alpha=alpha)[3][:others]
        elif test in POSTHOCS:  # Friedman's ranks, higher better by the measure's direction
            oriented_k = values[:, :, k] * cube.signs()[k]
            p_adjusted[1:, k] = posthoc_pairs(oriented_k, test, correction, alpha)[3][:others]
        else:
            d = values[1:, :, k] - values[0, :, k]
            _, p = paired_test(d, test, n_resamples=n_resamples, rng=rng)
            p_adjusted[1:, k] = adjust(p, correction)
        gain = (means[1:, k] - means[0, k]) * cube.signs()[k]
        versus[1:, k] = np.where(p_adjusted[1:, k] < alpha, np.where(gain > 0, "better", "worse"), "")
    lower = [str(m) for m in cube.measures if direction(str(m)) == "lower"]
    corrected = ("no correction" if correction == "none" else
                 f"{correction.capitalize()} correction over the {others} system{'s' * (others != 1)} compared "
                 "with it per measure")
    if test == "tukey":
        pairs = len(order) * (len(order) - 1) // 2
        how = f"Tukey's HSD over the {pairs} pair{'s' * (pairs != 1)} of systems per measure"
    elif test in POSTHOCS:
        pairs = len(order) * (len(order) - 1) // 2
        how = (f"Friedman's test with {POSTHOCS[test]}'s post-hoc over the {pairs} pair{'s' * (pairs != 1)} of "
               f"systems per measure" + (f", {correction} correction" if test == "conover" else ""))
    else:
        how = f"{TESTS[test]}, {corrected}"
    lower_note = f" (lower is better for {', '.join(lower)})" if lower else ""
    footnote = (f"Bold: the best mean of each measure{lower_note}. "
                f"▲/▼: significantly better/worse than {baseline} ({how}, p < {alpha:g}; "
                f"{len(cube.topics)} topics).")
    wtl = None
    if win_tie_loss:
        oriented = values * cube.signs()
        d = oriented - oriented[:1]
        cells = [["" if i == 0 else f"{(d[i, :, k] > 0).sum()}/{(d[i, :, k] == 0).sum()}/{(d[i, :, k] < 0).sum()}"
                  for k in range(len(cube.measures))] for i in range(len(order))]
        wtl = pd.DataFrame(cells, index=pd.Index(order, name="system"), columns=list(cube.measures))
        footnote += f" W/T/L: topics won/tied/lost against {baseline}."

    def frame(array):
        return pd.DataFrame(array, index=pd.Index(order, name="system"), columns=list(cube.measures))

    return ComparisonReport(frame(means), frame(best), frame(p_adjusted), frame(versus), baseline, footnote,
                            digits, wtl)
