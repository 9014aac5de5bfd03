"""One reading of a written parameter value, shared by measure names (``RBP(p=0.8)``, ``P@10``) and the
``@params`` lines of the examples (``n=10 wn=0.8``): an int if it reads as one, else a float, else the bare
word (surrounding whitespace and quotes removed); and one reading of a number given from Python
(:func:`plain_number`: numpy's scalars are numbers too).

    >>> parse_scalar("10"), parse_scalar(" 0.8 "), parse_scalar("'exp'"), parse_scalar("1e-3")
    (10, 0.8, 'exp', 0.001)
"""

from __future__ import annotations

import numbers

__all__ = ["parse_scalar", "plain_number"]


def parse_scalar(text: str) -> int | float | str:
    """``text`` as an int, else a float, else the word itself, after stripping whitespace and quotes."""
    text = text.strip().strip("'\"")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def plain_number(value):
    """numpy's scalars as the Python number they hold, so that they are valid wherever a number is asked for:
    an integer as ``int``, a narrow float as the float it was written as (``np.float32(0.8)`` → 0.8, not
    0.800000011920929); anything else unchanged.

    >>> import numpy as np
    >>> plain_number(np.int64(10)), plain_number(np.float32(0.8)), plain_number("exp")
    (10, 0.8, 'exp')
    """
    if isinstance(value, bool) or type(value) in (int, float) or not isinstance(value, numbers.Real):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(str(value)) if hasattr(value, "dtype") else float(value)
