"""One reading of a written parameter value, shared by measure names (``RBP(p=0.8)``, ``P@10``) and the
``@params`` lines of the examples (``n=10 wn=0.8``): an int if it reads as one, else a float, else the bare
word (surrounding whitespace and quotes removed).

    >>> parse_scalar("10"), parse_scalar(" 0.8 "), parse_scalar("'exp'"), parse_scalar("1e-3")
    (10, 0.8, 'exp', 0.001)
"""

from __future__ import annotations


def parse_scalar(text: str) -> int | float | str:
    """``text`` as an int, else a float, else the word itself, after stripping whitespace and quotes."""
    text = text.strip().strip("'\"")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
