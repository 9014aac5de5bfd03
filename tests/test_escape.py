"""Names of systems and measures pasted into LaTeX and Markdown show literally (issue 20 item 9)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from workbench.analysis import compare_report
from workbench.cli import render, table_of
from workbench.escape import LATEX_SPECIALS, latex_escape, markdown_escape

NASTY = "a\\b~c^d&e%f$g#h_i{j}k<l>m|n"
LATEX_TOKEN = re.compile("|".join(sorted(map(re.escape, LATEX_SPECIALS.values()), key=len, reverse=True)) + "|.",
                         re.DOTALL)
LATEX_READS = {escaped: plain for plain, escaped in LATEX_SPECIALS.items()}


def latex_reads(text: str) -> str:
    """What LaTeX prints of escaped text: each escape sequence its character; fails on a bare special."""
    out = []
    for token in LATEX_TOKEN.findall(text):
        assert token in LATEX_READS or token not in LATEX_SPECIALS, f"bare {token!r} in {text!r}"
        out.append(LATEX_READS.get(token, token))
    return "".join(out)


def markdown_cells(row: str) -> list[str]:
    """A GFM table row's cells: split on unescaped ``|``, backslash escapes undone."""
    cells, cell, chars = [], [], iter(row.strip()[1:-1])
    for c in chars:
        if c == "\\":
            cell.append(next(chars))
        elif c == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(c)
    return [*cells, "".join(cell).strip()]


@given(st.text())
def test_latex_escape_prints_what_was_typed(text):
    assert latex_reads(latex_escape(text)) == " ".join(text.splitlines())


@given(st.text().filter(lambda t: not t[:1].isspace() and not t[-1:].isspace()))
def test_markdown_escape_keeps_a_cell_one_cell(text):
    assert markdown_cells(f"| {markdown_escape(text)} |") == ["<br>".join(text.splitlines())]


def test_cli_tables_escape_every_special_of_system_and_measure_names():
    table = table_of_rows([(NASTY, "all", "P_10|x", 0.25)])
    latex = render(table, "latex").splitlines()
    assert latex[2:5] == ["system & P\\_10$|$x \\\\", "\\hline", f"{latex_escape(NASTY)} & 0.2500 \\\\"]
    assert latex_reads(latex[4].split(" & ")[0]) == NASTY
    markdown = render(table, "markdown").splitlines()
    assert markdown_cells(markdown[0]) == ["system", "P_10|x"]
    assert markdown_cells(markdown[2]) == [NASTY, "0.2500"]


def test_comparison_report_escapes_names_in_both_formats():
    import pandas as pd

    results = pd.DataFrame({"system": [NASTY] * 3 + ["b|c"] * 3, "topic": ["1", "2", "3"] * 2,
                            "measure": ["P_10|x"] * 6, "value": [0.1, 0.2, 0.3, 0.3, 0.4, 0.5]})
    report = compare_report(results)
    markdown = report.to_markdown().splitlines()
    assert markdown_cells(markdown[0]) == ["system", "P_10|x"]
    assert markdown_cells(markdown[2])[0] == f"{NASTY} (baseline)" and markdown_cells(markdown[3])[0] == "b|c"
    latex = report.to_latex().splitlines()
    assert latex_reads(latex[2].split(" & ")[1].removesuffix(" \\\\")) == "P_10|x"
    assert latex_reads(latex[4].split(" & ")[0]) == f"{NASTY} (baseline)"


def table_of_rows(rows):
    import pandas as pd

    return table_of(pd.DataFrame(rows, columns=["system", "topic", "measure", "value"]))
