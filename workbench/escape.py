"""Text as LaTeX, Markdown and HTML show it literally: the names of systems and measures in tables to paste."""

from __future__ import annotations

import html
import re

__all__ = ["LATEX_SPECIALS", "latex_escape", "MARKDOWN_SPECIALS", "markdown_escape", "html_escape"]

LATEX_SPECIALS = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": "$<$", ">": "$>$", "|": "$|$", **{c: "\\" + c for c in "&%$#_{}"}}


def latex_escape(text: str) -> str:
    r"""``text`` as LaTeX typesets it literally: every special character (``\ ~ ^ & % $ # _ { } < > |``) escaped,
    line breaks as spaces.

    >>> print(latex_escape("P_10 & {x}"))
    P\_10 \& \{x\}
    """
    return "".join(LATEX_SPECIALS.get(c, c) for c in " ".join(text.splitlines()))


MARKDOWN_SPECIALS = re.compile(r"[\\`*_\[\]~|]|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
"""What Markdown (CommonMark and GitHub's tables) reads otherwise than as text: emphasis, code, links and images
(``[``), strikethrough, the cell separator and backslashes; ``<`` where it opens a tag or autolink, ``&`` where it
opens an entity. Each is escaped with a backslash, which Markdown reads as the character itself."""


def markdown_escape(text: str) -> str:
    r"""``text`` as Markdown shows it literally, in a table cell or a line of prose: every character of
    :data:`MARKDOWN_SPECIALS` backslash-escaped (no emphasis, code, link, tag, autolink or entity of the text's
    own), line breaks as ``<br>``. A bare URL stays a URL where a renderer links bare URLs (its text is the
    name itself).

    >>> print(markdown_escape("a|b"), markdown_escape("[x](http://y)"), markdown_escape("<b>*z*</b> p < 1"))
    a\|b \[x\](http://y) \<b>\*z\*\</b> p < 1
    """
    return "<br>".join(MARKDOWN_SPECIALS.sub(lambda found: "\\" + found.group(), line) for line in text.splitlines())


def html_escape(text: str) -> str:
    """``text`` as HTML shows it literally (``& < > " '`` as entities).

    >>> print(html_escape("<script>x</script>"))
    &lt;script&gt;x&lt;/script&gt;
    """
    return html.escape(text, quote=True)
