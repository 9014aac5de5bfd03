"""trec_eval's output (``measure  topic|all  value``, with or without ``-q``), read into a tidy frame and written
back in its layout::

    >>> import pandas as pd, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> write_trec_eval_output(pd.DataFrame({"measure": ["map"], "topic": ["all"], "value": [0.25]}), path)
    >>> read_trec_eval_output(path).to_dict("records")
    [{'measure': 'map', 'topic': 'all', 'value': 0.25, 'text': '0.2500'}]
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from os import PathLike

import pandas as pd

from workbench.data.trec.errors import TrecEncodingError, TrecFormatError
from workbench.data.trec.writers import write_text
from workbench.reading.sources import file_path, read_input
from workbench.reading.text import Text, decode
from workbench.validation import DATAFRAME, ENCODING, FilePath, validate

__all__ = ["read_trec_eval_output", "write_trec_eval_output"]


def _rows(path: str | PathLike, encoding: str) -> Iterator[tuple[Text, int, list[str]]]:
    text = decode(read_input(path, TrecFormatError), path, encoding, TrecFormatError, TrecEncodingError)
    for number, line in enumerate(text.content.split("\n"), start=1):
        fields = line.split()
        if fields:
            yield text, number, fields


@validate(path=FilePath(), encoding=ENCODING)
def read_trec_eval_output(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """trec_eval's output (``measure  topic|all  value``, with or without ``-q``) as a tidy frame
    ``measure, topic, value, text``: ``value`` is the number (NaN for text values such as ``runid`` or
    ``relstring``), ``text`` the value as printed."""
    rows = []
    for text, number, fields in _rows(file_path(path), encoding):
        if len(fields) != 3:
            raise text.fail(f"a trec_eval output line has 3 fields (measure topic value), this one {len(fields)}",
                            line=number)
        measure, topic, printed = fields
        try:
            value = float(printed)
        except ValueError:
            value = math.nan
        rows.append((measure, topic, value, printed))
    return pd.DataFrame(rows, columns=["measure", "topic", "value", "text"])


@validate(frame=DATAFRAME, path=FilePath())
def write_trec_eval_output(frame: pd.DataFrame, path: str | PathLike) -> None:
    """Write a frame of ``measure, topic, value[, text]`` in trec_eval's layout (``%-22s\\t%s\\t%s``); the
    printed ``text`` is used where present, else the value with 4 decimals as trec_eval prints."""
    path = file_path(path)
    lines = []
    has_text = "text" in frame.columns
    for row in frame.itertuples(index=False):
        printed = row.text if has_text and isinstance(row.text, str) else f"{row.value:.4f}"
        lines.append(f"{row.measure:<22}\t{row.topic}\t{printed}\n")
    write_text(path, lines)
