"""Text as LaTeX and Markdown show it literally: the names of systems and measures in tables to paste."""

from __future__ import annotations

LATEX_SPECIALS = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": "$<$", ">": "$>$", "|": "$|$", **{c: "\\" + c for c in "&%$#_{}"}}


def latex_escape(text: str) -> str:
    r"""``text`` as LaTeX typesets it literally: every special character (``\ ~ ^ & % $ # _ { } < > |``) escaped,
    line breaks as spaces.

    >>> print(latex_escape("P_10 & {x}"))
    P\_10 \& \{x\}
    """
    return "".join(LATEX_SPECIALS.get(c, c) for c in " ".join(text.splitlines()))


def markdown_escape(text: str) -> str:
    r"""``text`` as one Markdown table cell: ``|`` and ``\`` escaped, line breaks as ``<br>``.

    >>> print(markdown_escape("a|b"))
    a\|b
    """
    return "<br>".join(text.splitlines()).replace("\\", "\\\\").replace("|", "\\|")
