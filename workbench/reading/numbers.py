"""Numbers as trec_eval reads them: C's ``atof`` for run scores (``get_trec_results.c``) and ``atol`` for qrels
grades (``get_qrels.c``), glibc's ``strtod``/``strtol`` in the C locale. Both read the longest number at the
start of the text and ignore the rest; a text with no number at its start reads as 0. So ``1_000`` is 1,
``2.5`` as a grade is 2, ``0x10`` is 16 as a score (a hexadecimal float) but 0 as a grade, and digits other than
ASCII ``0-9`` (fullwidth, Arabic-Indic) are no digits at all::

    >>> atof(b"1_000"), atof(b"0x10"), atof(b"1e"), atof("١٢".encode()), atof(b"-Infinity")
    (1.0, 16.0, 1.0, 0.0, -inf)
    >>> atol(b"2.5"), atol(b"1_0"), atol(b"0x10"), atol(b"99999999999999999999"), atol(b"-" + b"9" * 5000)
    (2, 1, 0, 9223372036854775807, -9223372036854775808)

Numbers of any length are read: past 19 digits the value is clamped, as glibc clamps it, without Python's
conversion of the digits (which stops at 4,300 of them).

:func:`read_floats` and :func:`read_integers` read a whole column at once and say which values are not plain
numbers (``odd``: read here otherwise than Python's ``float``/``int`` would read them, or not at all), so that
readers can say how they read them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from workbench.errors import excerpt
from workbench.ids import DocumentIds

__all__ = ["atol", "atof", "read_floats", "read_integers", "NUMBER_WIDTH", "read_numbers", "reading_note"]

_LONG = np.iinfo(np.int64)
_LONG_DIGITS = len(str(_LONG.max))  # 19: a longer number (leading zeros aside) is past a C long
_ATOL = re.compile(rb"[ \t\n\v\f\r]*([+-]?)0*([0-9]+)")
_HEX = rb"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
_DECIMAL = rb"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_SPECIAL = rb"inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?"
_ATOF = re.compile(rb"[ \t\n\v\f\r]*([+-]?)(?:(" + _HEX + rb")|(" + _DECIMAL + rb")|(" + _SPECIAL + rb"))",
                   re.IGNORECASE)
_PLAIN_FLOAT = re.compile(rb"[+-]?(?:" + _DECIMAL + rb"|inf(?:inity)?)", re.IGNORECASE)
_PLAIN_INTEGER = re.compile(rb"[+-]?[0-9]+")
# the bytes of plain decimal numbers (and NUL, numpy's padding of short values in a fixed-width column)
_FLOAT_BYTES = np.zeros(256, dtype=bool)
_FLOAT_BYTES[list(b"\x000123456789.eE+-")] = True
_INTEGER_BYTES = np.zeros(256, dtype=bool)
_INTEGER_BYTES[list(b"\x000123456789+-")] = True


def atol(text: bytes) -> int:
    """C's ``atol``: the leading base-10 integer after optional whitespace and sign, clamped to a 64-bit long
    as glibc clamps it; 0 when the text does not start with one."""
    match = _ATOL.match(text)
    if not match:
        return 0
    sign, digits = match.groups()
    if len(digits) > _LONG_DIGITS:  # past a C long whatever the digits: clamped without converting them
        return int(_LONG.min) if sign == b"-" else int(_LONG.max)
    value = -int(digits) if sign == b"-" else int(digits)
    return min(max(value, int(_LONG.min)), int(_LONG.max))


def atof(text: bytes) -> float:
    """C's ``atof`` (glibc ``strtod``): the leading decimal or hexadecimal float, ``inf``/``infinity`` or
    ``nan`` (case-insensitive) after optional whitespace and sign; 0.0 when the text does not start with one.
    Decimal and hexadecimal values are rounded to the nearest double, as glibc rounds them."""
    match = _ATOF.match(text)
    if not match:
        return 0.0
    sign, hexadecimal, decimal, special = match.groups()
    negative = sign == b"-"
    if hexadecimal:
        mantissa = hexadecimal[2:]
        value = float.fromhex(("0x" + mantissa.decode()) if not mantissa.startswith(b".") else
                              "0x0" + mantissa.decode())
    elif decimal:
        value = float(decimal)
    else:
        value = float("nan") if special[:1] in (b"n", b"N") else float("inf")
    return -value if negative else value


def _padded_bytes(tokens: np.ndarray) -> np.ndarray:
    """The fixed-width bytes column as a (rows × width) uint8 matrix."""
    width = tokens.dtype.itemsize
    return tokens.view(np.uint8).reshape(tokens.size, width) if width else np.zeros((tokens.size, 0), np.uint8)


def read_floats(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, odd)`` of a fixed-width bytes column (numpy ``S``) read by :func:`atof`: ``odd`` marks the
    values that are not plain decimal numbers (or ``inf``), whose reading may surprise. Plain columns are read
    by numpy in one call (correctly rounded, as glibc reads them)."""
    plain = _FLOAT_BYTES[_padded_bytes(tokens)].all(axis=1)
    values = np.empty(tokens.size, dtype=np.float64)
    odd = ~plain
    try:
        values[plain] = tokens[plain].astype(np.float64)
    except ValueError:  # spelled with number bytes, yet not a number ("1e", "1-2"): each one on its own
        odd = np.ones(tokens.size, dtype=bool)
    for i in np.flatnonzero(odd).tolist():
        text = tokens[i]
        values[i] = atof(text)
        odd[i] = _PLAIN_FLOAT.fullmatch(text) is None
    return values, odd


def read_integers(tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, odd)`` of a fixed-width bytes column read by :func:`atol` (int64): ``odd`` marks the values
    that are not plain integers within 64 bits (``2.5``, ``1_0``, ``0x10``, ``1e3``, ...). A column of short
    plain integers only is read digit by digit (:func:`_short_integers`)."""
    short = _short_integers(tokens)
    if short is not None:
        return short, np.zeros(tokens.size, dtype=bool)
    plain = _INTEGER_BYTES[_padded_bytes(tokens)].all(axis=1)
    values = np.empty(tokens.size, dtype=np.int64)
    odd = ~plain
    try:
        values[plain] = tokens[plain].astype(np.int64)
    except (ValueError, OverflowError):
        odd = np.ones(tokens.size, dtype=bool)
    for i in np.flatnonzero(odd).tolist():
        text = tokens[i]
        values[i] = atol(text)
        odd[i] = _PLAIN_INTEGER.fullmatch(text) is None or _clamped(text)
    return values, odd


_SHORT_DIGITS = 18  # digits that always fit an int64


def _short_integers(tokens: np.ndarray) -> np.ndarray | None:
    """The values of a fixed-width bytes column when every value is a sign or none, then 1 to 18 ASCII digits
    (what Python's ``int`` and C's ``atol`` read alike, within 64 bits), read a column of digits at a time
    (240,000 one-digit grades: 2 ms, where numpy's conversion of bytes takes 15 ms); else None.

        >>> _short_integers(np.array([b"3", b"-07", b"+12"])).tolist(), _short_integers(np.array([b"1.5"]))
        ([3, -7, 12], None)
    """
    matrix = _padded_bytes(tokens)
    width = matrix.shape[1]
    if not tokens.size or not 0 < width <= _SHORT_DIGITS:
        return None
    padding = matrix == 0
    length = width - padding.sum(axis=1)  # a value's bytes: the padding must all follow them
    signed = (matrix[:, 0] == ord("+")) | (matrix[:, 0] == ord("-"))
    digit = (matrix >= ord("0")) & (matrix <= ord("9"))
    column = np.arange(width)
    if not ((padding == (column >= length[:, None])) & (digit | padding | ((column == 0) & signed[:, None]))
            ).all() or (length <= signed).any():
        return None
    values = np.zeros(tokens.size, dtype=np.int64)
    for j in range(width):  # a digit shifts the value left; a sign or padding leaves it
        values = np.where(digit[:, j], values * 10 + matrix[:, j] - ord("0"), values)
    return np.negative(values, out=values, where=matrix[:, 0] == ord("-"))


def _clamped(text: bytes) -> bool:
    """Whether a plain integer is past a C long (so that :func:`atol` clamps it)."""
    digits = text.lstrip(b"+-").lstrip(b"0") or b"0"
    if len(digits) > _LONG_DIGITS:
        return True
    value = -int(digits) if text.startswith(b"-") else int(digits)
    return not _LONG.min <= value <= _LONG.max


NUMBER_WIDTH = 40  # fields up to this many bytes are read in one fixed-width column, longer ones one by one


def read_numbers(tokens: DocumentIds, reader: str) -> tuple[np.ndarray, np.ndarray]:
    """``(values, odd)`` of fields of any length read by ``"atof"`` (:func:`read_floats`) or ``"atol"``
    (:func:`read_integers`): the fields up to :data:`NUMBER_WIDTH` bytes in one fixed-width column, each longer
    one on its own (so a 20 MB field costs its bytes, not a column that wide for every line)."""
    short = tokens.lengths <= NUMBER_WIDTH
    column = tokens.take(short).fixed_width(int(tokens.lengths[short].max(initial=1)))
    read, one, plain = (read_floats, atof, _PLAIN_FLOAT) if reader == "atof" else \
        (read_integers, atol, _PLAIN_INTEGER)
    if short.all():
        return read(column)
    values = np.empty(len(tokens), dtype=np.float64 if reader == "atof" else np.int64)
    odd = np.ones(len(tokens), dtype=bool)
    values[short], odd[short] = read(column)
    for i in np.flatnonzero(~short).tolist():
        start = int(tokens.starts[i])
        text = tokens.data[start:start + int(tokens.lengths[i])].tobytes()
        values[i] = one(text)
        odd[i] = plain.fullmatch(text) is None or (reader == "atol" and not _within_long(text, int(values[i])))
    return values, odd


def _within_long(text: bytes, value: int) -> bool:
    """Whether a plain integer's text is ``value`` (not clamped to a 64-bit long), without converting more than
    19 digits."""
    digits = text.lstrip(b"+-").lstrip(b"0") or b"0"
    return len(digits) <= 19 and int(digits) * (-1 if text.startswith(b"-") else 1) == value


def reading_note(what: tuple[str, str], reader: str, tokens: np.ndarray | DocumentIds, values: np.ndarray,
                 odd: np.ndarray, numbers: np.ndarray | Sequence[int]) -> str | None:
    """What a reader says of the values that are not plain numbers (``odd``), e.g. ``2 relevance grades are not
    plain integers and are read as trec_eval reads them (C's atol): line 3 '2.5' as 2; ...``; ``what``: the
    singular and plural phrases; ``tokens``: the fields (a bytes column or DocumentIds); None when every value
    is plain."""
    rows = np.flatnonzero(odd)
    if not rows.size:
        return None
    quoted = "; ".join(f"line {numbers[i]} {excerpt(_text(tokens[i]), 40)} as {values[i].item()!r}"
                       for i in rows[:3].tolist())
    phrase = what[0] if rows.size == 1 else what[1]
    return (f"{rows.size} {phrase} and {'is' if rows.size == 1 else 'are'} read as trec_eval reads "
            f"{'it' if rows.size == 1 else 'them'} (C's {reader}): {quoted}{'; …' if rows.size > 3 else ''}")


def _text(token: bytes | str) -> str:
    """A field as a note quotes it (a long one cut short)."""
    text = token.decode("utf-8", errors="replace") if isinstance(token, bytes) else token
    return text if len(text) <= 60 else text[:60] + "…"
