"""The comparison report: means, the best in bold, Holm-corrected significance marks against a baseline, in
Markdown, LaTeX, CSV and a pandas Styler; and `compare --format` from the command line."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.analysis import ResultsError, adjust, compare_report
from workbench.cli import main
from workbench.errors import ParameterError


def campaign(seed: int = 0, topics: int = 20) -> pd.DataFrame:
    """bm25 (baseline), dense (better on AP, lower Lam%), bad (worse), same (= bm25 + tiny noise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(topics):
        base = rng.uniform(0.2, 0.4)
        for system, shift in (("bm25", 0.0), ("dense", 0.1), ("bad", -0.1), ("same", 0.0)):
            noise = rng.normal(0, 0.03)
            rows += [(system, f"q{t}", "AP", base + shift + noise), (system, f"q{t}", "Lam%", 0.5 - shift - noise)]
    return pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])


def test_means_best_and_holm_corrected_t_tests_against_the_baseline():
    results = campaign()
    report = compare_report(results, ["AP", "Lam%"])
    wide = results.pivot_table(index=["system", "topic"], columns="measure", values="value")
    assert report.means.index.tolist() == ["bm25", "dense", "bad", "same"]
    for measure in ("AP", "Lam%"):
        scores = wide[measure].unstack("topic")
        assert report.means[measure].to_dict() == pytest.approx(scores.mean(axis=1).to_dict())
        p = [stats.ttest_rel(scores.loc[s], scores.loc["bm25"]).pvalue for s in ("dense", "bad", "same")]
        assert report.p_adjusted[measure].iloc[1:].tolist() == pytest.approx(adjust(p, "holm").tolist())
    # Lam% is an error rate: dense's lower Lam% is the best, and better than the baseline
    assert report.best.loc["dense"].all() and report.best.sum().tolist() == [1, 1]
    assert report.versus.loc["dense"].tolist() == ["better", "better"]
    assert report.versus.loc["bad"].tolist() == ["worse", "worse"]
    assert report.versus.loc["bm25"].tolist() == ["", ""] and np.isnan(report.p_adjusted.loc["bm25"]).all()


def test_randomization_test_and_another_baseline_are_named_in_the_footnote():
    report = compare_report(campaign(), ["AP"], baseline="dense", test="randomization", n_resamples=2000)
    assert report.means.index[0] == "dense"
    assert "Fisher randomization test" in report.footnote and "than dense" in report.footnote
    assert "Holm correction over the 3 systems" in report.footnote and "20 topics" in report.footnote
    assert set(report.versus.loc[["bm25", "bad", "same"], "AP"]) == {"worse"}


def test_formats_show_bold_marks_and_footnote():
    report = compare_report(campaign(), ["AP", "Lam%"])
    markdown = report.to_markdown()
    assert "| bm25 (baseline) |" in markdown
    assert f"**{report.means.loc['dense', 'AP']:.4f}**▲" in markdown
    assert f"{report.means.loc['bad', 'AP']:.4f}▼" in markdown
    assert markdown.rstrip().endswith(report.footnote) and "paired t-test" in report.footnote
    latex = report.to_latex()
    assert latex.startswith("\\begin{tabular}{lrr}") and latex.rstrip().endswith("\\end{tabular}")
    assert f"\\textbf{{{report.means.loc['dense', 'AP']:.4f}}}$^{{\\blacktriangle}}$" in latex
    assert "Lam\\%" in latex and "p $<$ 0.05" in latex
    frame = pd.read_csv(io.StringIO(report.to_csv()))
    assert list(frame.columns) == ["system", "measure", "mean", "best", "baseline", "p_adjusted", "versus"]
    assert frame["mean"].tolist() == report.means.to_numpy().ravel().tolist()  # full precision
    html = report.style().to_html()
    assert "font-weight: bold" in html and report.footnote.split("(")[0] in html


def test_a_tie_for_the_best_bolds_both_and_nothing_significant_has_no_mark():
    rows = [(s, t, "P@10", v) for s, values in {"a": [0.1, 0.3, 0.2], "b": [0.3, 0.1, 0.2]}.items()
            for t, v in enumerate(values)]
    report = compare_report(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]))
    assert report.best["P@10"].tolist() == [True, True]
    assert report.versus["P@10"].tolist() == ["", ""]


def test_bad_arguments_are_named():
    with pytest.raises(ResultsError, match="baseline 'nope' is not among the systems"):
        compare_report(campaign(), baseline="nope")
    with pytest.raises(ParameterError, match="compare_report: test must be one of t, wilcoxon"):
        compare_report(campaign(), test="z")
    for alpha in ("0.05", True, 1.5):  # a text reached `0 < alpha` and raised a bare TypeError
        with pytest.raises(ParameterError, match=r"compare_report: alpha must be (a number )?in \(0, 1\)"):
            compare_report(campaign(), alpha=alpha)


@pytest.fixture
def trec_files(tmp_path):
    rng = np.random.default_rng(3)
    qrels = "".join(f"{t} 0 d{d} {int(rng.integers(0, 3))}\n" for t in range(1, 9) for d in range(12))
    (tmp_path / "qrels").write_text(qrels)
    runs = []
    for name in ("base", "good"):
        lines = "".join(f"{t} Q0 d{d} {r} {float(rng.uniform())!r} {name}\n" for t in range(1, 9)
                        for r, d in enumerate(rng.permutation(12), 1))
        (tmp_path / name).write_text(lines)
        runs.append(str(tmp_path / name))
    return str(tmp_path / "qrels"), runs


@pytest.mark.parametrize(("fmt", "start"), [("markdown", "| system | AP | P@10 |"),
                                            ("latex", "\\begin{tabular}{lrr}"),
                                            ("csv", "system,measure,mean,best,baseline,p_adjusted,versus")])
def test_cli_compare_format_prints_the_report_first(trec_files, capsys, fmt, start):
    qrels, runs = trec_files
    assert main(["compare", "--gold", qrels, "--run", *runs, "-m", "AP", "P@10", "-q", "--format", fmt,
                 "--test", "randomization", "--baseline", "good"]) == 0
    out = capsys.readouterr().out
    comment = "%" if fmt == "latex" else "#"
    title, body = out.split("\n", 1)
    assert title == f"{comment} means, best in bold, significance against the baseline good"
    assert body.startswith(start)
    assert "Fisher randomization test" in out and f"\n{comment} UIR(a, b)" in out
