"""Rows of a delimited text (TSV, CSV), cut alike for every reader: one row per non-blank line, fields split at the
delimiter; a field whose first character (spaces aside) is a double quote is quoted: it may hold the delimiter and
doubled quotes (``""``), and it ends on its own line. A quote opened and never closed on its line is an error
naming that line and the quote's column — never a field that swallows the rest of the file — and so is text after
a closing quote. A quote inside an unquoted field is kept as written (``["A","B"]`` in a TSV file), or refused
where the format says every quote is a field's (``strict``)::

    >>> from workbench.reading.text import decode
    >>> list(rows(decode(b'T1,i1,"A, B"\\n\\nT1,i2,"say ""hi"" now"\\n', "gold.csv"), ","))
    [(1, ['T1', 'i1', 'A, B']), (3, ['T1', 'i2', 'say "hi" now'])]
    >>> list(rows(decode(b'T1,i1,"A\\nT1,i2,B\\n', "gold.csv"), ","))
    Traceback (most recent call last):
    ...
    workbench.errors.InputError: gold.csv, line 1, column 7: a quoted field is never closed on its line: 'T1,i1,"A'
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from workbench.reading.text import Text

__all__ = ["rows"]

_QUOTED = {blanks: re.compile(f'[{blanks}]*"((?:[^"]|"")*)"[{blanks}]*') for blanks in (" \t", " ")}


def rows(text: Text, delimiter: str, *, strict: bool = False, strip: bool = False) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of each non-blank line of ``text``, cut at ``delimiter`` (see the module
    docstring); ``strict``: a quote inside an unquoted field is refused; ``strip``: an unquoted field loses the
    blanks around it (a quoted one keeps what is inside its quotes)."""
    blanks = " " if "\t" in delimiter else " \t"
    for number, line in enumerate(text.content.split("\n"), start=1):
        if not line.strip():
            continue
        if '"' not in line:
            fields = line.split(delimiter)
            yield number, [field.strip(blanks) for field in fields] if strip else fields
        else:
            yield number, _quoted(text, line, number, delimiter, strict, strip)


def _quoted(text: Text, line: str, number: int, delimiter: str, strict: bool, strip: bool) -> list[str]:
    """The fields of one line that holds a quote."""
    blanks = " " if "\t" in delimiter else " \t"  # what may stand around a quoted field
    quoted = _QUOTED[blanks]
    fields = []
    position = 0
    while True:
        opening = len(line) - len(line[position:].lstrip(blanks))
        if line.startswith('"', opening):
            match = quoted.match(line, position)
            if match is None:
                raise text.fail("a quoted field is never closed on its line", line=number, column=opening + 1)
            end = match.end()
            if end < len(line) and not line.startswith(delimiter, end):
                raise text.fail("text after the closing quote of a field (a quote inside a quoted field is written "
                                "twice: \"\")", line=number, column=end + 1)
            fields.append(match.group(1).replace('""', '"'))
        else:
            end = line.find(delimiter, position)
            end = len(line) if end < 0 else end
            field = line[position:end]
            if strict and '"' in field:
                raise text.fail("a double quote inside an unquoted field (quote the field, and write the quote "
                                "twice: \"\")", line=number, column=position + field.index('"') + 1)
            fields.append(field.strip(blanks) if strip else field)
        if end >= len(line):
            return fields
        position = end + len(delimiter)
