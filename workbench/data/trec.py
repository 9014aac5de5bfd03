"""TREC files: qrels (``qid iter docno rel``), runs (``qid Q0 docno rank score tag``), trec_eval output.

Readers give arrays-backed mappings (:mod:`workbench.data.ranked`): ``read_trec_qrels`` graded gold per
topic (:class:`~workbench.data.ranked.Judgements`), ``read_trec_run`` each system's rankings in trec_eval's
order (:class:`~workbench.data.ranked.RankedRun`: 32-bit scores, ties by document id descending, ``-M``,
duplicate documents refused as trec_eval refuses them); an Organization per topic is built only when asked
for. The ``*_frame`` readers give the raw table; writers go back to each format. A file is parsed in one
pass by Arrow's C++ CSV reader (one space between fields), else by pandas' C parser (other whitespace); a
file neither can take (odd whitespace, encodings, any bad line) is read line by line, and every malformed
line raises :class:`TrecFormatError` naming the file, the line number and the offending text::

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 2\\nq1 0 d2 0\\nq1 0 d3 1\\n")
    >>> read_trec_qrels(path)["q1"].format()
    '[2] d1\\n[1] d3'
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import math
import re
import warnings
import zlib
from collections.abc import Iterator, Mapping
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.data.ranked import TIES, DuplicateEntryError, Judgements, RankedRun, judgements, rank_runs
from workbench.data.trec_errors import TrecEncodingError, TrecFormatError
from workbench.errors import ParameterError
from workbench.ids import DocumentIds
from workbench.metrics.ranking import ranked_documents
from workbench.model import Organization, natural_key


# ------------------------------------------------------------------------------------------ lines
def _read_bytes(path: str | PathLike) -> bytes:
    """The file's bytes, gunzipped when they are gzip data."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise TrecFormatError(f"cannot read the file ({error.strerror or error})", path=path) from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            raise TrecFormatError(f"broken gzip data ({error})", path=path) from None
    return raw


def _lines(path: str | PathLike, encoding: str, raw: bytes | None = None) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, text, fields) of every non-blank line that is not a ``#`` comment; ``.gz`` read too."""
    raw = _read_bytes(path) if raw is None else raw
    empty = True
    for number, chunk in enumerate(raw.splitlines(), start=1):
        try:
            text = chunk.decode(encoding)
        except UnicodeDecodeError as error:
            shown = chunk.decode("latin-1")  # every byte shown (some codecs cannot 'replace')
            raise TrecEncodingError(f"not valid {encoding} at byte {error.start} (give encoding=...)",
                                    path=path, line=number, text=shown) from None
        except UnicodeError as error:  # a codec that fails otherwise ('idna', say)
            raise TrecEncodingError(f"cannot decode as {encoding}: {error}", path=path, line=number) from None
        except LookupError:
            raise TrecFormatError(f"unknown encoding {encoding!r}", path=path) from None
        if number == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark is not part of the first topic id
        stripped = text.strip()
        if stripped and not stripped.startswith("#"):
            empty = False
            yield number, text, stripped.split()
    if empty:
        raise TrecFormatError("the file holds no data lines", path=path)


def _write(path: str | PathLike, lines: list[str]) -> None:
    """Write UTF-8 text, gzip-compressed when the name ends in ``.gz``."""
    data = "".join(lines).encode("utf-8")
    Path(path).write_bytes(gzip.compress(data) if str(path).endswith(".gz") else data)


def _number(field: str, what: str, path, number: int, text: str) -> float:
    try:
        value = float(field)
    except ValueError:
        raise TrecFormatError(f"{what} {field!r} is not a number", path=path, line=number,
                              text=text) from None
    if math.isnan(value):
        raise TrecFormatError(f"{what} is NaN", path=path, line=number, text=text)
    return value


# ------------------------------------------------------------------------------------ one-pass parsing
_FIELDS = {"qrels": ("topic", "iteration", "document", "relevance"),
           "run": ("topic", "q0", "document", "rank", "score", "system")}
_FAST_CODECS = ("utf-8", "ascii", "iso8859-1", "cp1252")
# What pandas' C parser reads otherwise than ``str.split`` and ``float``: such files go line by line.
_PLAIN_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r"
_ODD_CONTROLS = b"\x00\x0b\x0c\x1c\x1d\x1e\x1f"
_ODD_SPACES = {"utf-8": (b"\xc2\x85", b"\xc2\xa0", b"\xe1\x9a\x80", b"\xe2\x80", b"\xe2\x81\x9f", b"\xe3\x80\x80"),
               "8-bit": (b"\x85", b"\xa0")}
_BOOLEANS = (b"true", b"false")  # pandas reads True, TRUE, true as 1.0 and the falses as 0.0
_COMMENT = re.compile(rb"(?m)^[ \t]*#[^\n]*")


def _plain(raw: bytes, codec: str) -> bool:
    """Whether pandas' C parser splits these bytes into the fields ``str.split`` finds."""
    if raw.isascii():
        return not any(byte in raw for byte in _ODD_CONTROLS)
    other = raw.translate(None, _PLAIN_BYTES)
    if any(byte in other for byte in _ODD_CONTROLS):
        return False
    return not any(mark in raw for mark in _ODD_SPACES["utf-8" if codec == "utf-8" else "8-bit"])


def _fast_columns(raw: bytes, encoding: str, kind: str, wanted: tuple[str, ...]) -> dict | None:
    """The columns ``wanted`` of every data line through Arrow's or pandas' C parser, with the values the
    line-by-line reader gives; None when the file needs that reader
    (unusual bytes, or any line it would reject, which it then names)."""
    try:
        codec = codecs.lookup(encoding).name
    except LookupError:
        return None
    if codec not in _FAST_CODECS or not _plain(raw, codec):
        return None
    if codec == "utf-8":
        raw = raw.removeprefix(b"\xef\xbb\xbf")
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if b"#" in raw:
        raw = _COMMENT.sub(b"", raw)
    if b"\t" not in raw and (codec == "utf-8" or raw.isascii()):
        columns = _arrow_columns(raw, kind, wanted)
        if columns is not None:
            return columns
    names = [*_FIELDS[kind], "extra"] if kind == "qrels" else list(_FIELDS[kind])
    kinds = {"relevance": "float64", "score": "float64"}
    try:
        with warnings.catch_warnings():  # fields after the last named one are dropped on purpose
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            frame = pd.read_csv(io.BytesIO(raw), sep=" " if _single_spaced(raw) else r"\s+", header=None,
                                names=names, engine="c", index_col=False,
                                usecols=None if kind == "qrels" else [names.index(name) for name in wanted],
                                quoting=csv.QUOTE_NONE, na_filter=False, encoding=codec,
                                dtype={name: kinds.get(name, object) for name in names})
    except (ValueError, OverflowError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if len(frame) == 0 or (kind == "qrels" and (frame["extra"] != "").any()):
        return None
    if kind == "run" and "" in set(pd.unique(frame["system"].to_numpy())):  # a short line
        return None
    columns = {name: frame[name].to_numpy() for name in wanted}
    lowered = raw.lower()
    for name in {"relevance", "score"} & set(wanted):
        values = columns[name]
        if np.isnan(values).any() or (name == "relevance" and np.isinf(values).any()):
            return None
        if ((values == 0) | (values == 1)).any() and any(word in lowered for word in _BOOLEANS):
            return None
    if "rank" in columns:
        columns["rank"] = _integers(columns["rank"])
        if columns["rank"] is None:
            return None
    return columns


def _single_spaced(raw: bytes) -> bool:
    """Whether every field is followed by one space or the line's end (then a one-byte separator reads
    the file, faster than the whitespace rule)."""
    return b"\t" not in raw and raw[:1] != b" " and raw[-1:] != b" " and b"  " not in raw.replace(b"\n", b" ")


def _arrow_columns(raw: bytes, kind: str, wanted: tuple[str, ...]) -> dict | None:
    """The columns ``wanted`` of a UTF-8 file without tabs through Arrow's multi-threaded C++ CSV reader,
    one space between fields (every line exactly the kind's fields, none empty: no stray space; numbers as
    ``float`` reads them, which Arrow's parser does on every spelling it accepts); None when it refuses the
    file or a value the line-by-line reader would reject (NaN, an infinite grade, a rank not an integer).
    Document ids stay bytes (:class:`~workbench.ids.DocumentIds`), topics, systems and other labels are
    codes into their few distinct names (a Categorical): no Python string per line."""
    import pyarrow as pa
    from pyarrow import compute
    from pyarrow import csv as arrow_csv

    names = _FIELDS[kind]
    numeric = {"relevance", "score"}
    types = {name: pa.float64() if name in numeric else pa.string() for name in names}
    try:
        table = arrow_csv.read_csv(
            pa.py_buffer(raw), read_options=arrow_csv.ReadOptions(column_names=names),
            parse_options=arrow_csv.ParseOptions(delimiter=" ", quote_char=False, double_quote=False,
                                                 escape_char=False, ignore_empty_lines=True),
            convert_options=arrow_csv.ConvertOptions(column_types=types, null_values=[],
                                                     strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows == 0:
        return None
    columns = {}
    for name in names:
        column = table.column(name)  # chunks, combined where the values are needed
        if name in numeric:
            values = column.combine_chunks().to_numpy()
            if np.isnan(values).any() or (name == "relevance" and np.isinf(values).any()):
                return None
        elif name == "document":  # many distinct values: bytes in numpy words, no Python string per id
            values = DocumentIds.from_arrow(column)
            if values.lengths.min() == 0:  # two spaces in a row
                return None
        elif name in wanted and name != "rank":  # few distinct values: codes and one Python string each
            encoded = column.dictionary_encode().combine_chunks()
            categories = encoded.dictionary.to_pylist()
            if "" in categories:
                return None
            values = pd.Categorical.from_codes(encoded.indices.to_numpy(), categories, validate=False)
        else:
            if compute.min(compute.binary_length(column)).as_py() == 0:  # two spaces in a row
                return None
            values = column.combine_chunks().to_numpy(zero_copy_only=False) if name in wanted else None
        if name in wanted:
            columns[name] = values
    if "rank" in columns:
        columns["rank"] = _integers(columns["rank"])
        if columns["rank"] is None:
            return None
    return columns


def _frame(columns: dict) -> pd.DataFrame:
    """The columns as a frame of plain values (ids as ``str``, topics and systems as ``str``)."""
    return pd.DataFrame({name: values.strings() if isinstance(values, DocumentIds)
                         else np.asarray(values, dtype=object) if isinstance(values, pd.Categorical)
                         else values for name, values in columns.items()})


def _integers(texts: np.ndarray) -> np.ndarray | None:
    """Ranks as int64 through Python's ``int`` on each distinct spelling; None if one is not an integer
    (or beyond int64)."""
    codes, spellings = pd.factorize(texts)
    try:
        values = np.array([int(text) for text in spellings], dtype=np.int64)
    except (ValueError, OverflowError):
        return None
    return values[codes]


def _slow_columns(path, raw: bytes, encoding: str, kind: str,
                  wanted: tuple[str, ...]) -> tuple[dict, list[int], list[str]]:
    """Every data line read one by one: the columns, and each row's line number and text (to name it)."""
    fields = _FIELDS[kind]
    rows, numbers, texts = [], [], []
    for number, text, parts in _lines(path, encoding, raw):
        if kind == "qrels":
            if len(parts) != 4:
                raise TrecFormatError(f"a qrels line has 4 fields (qid iter docno rel), this one {len(parts)}",
                                      path=path, line=number, text=text)
            grade = _number(parts[3], "relevance", path, number, text)
            if math.isinf(grade):
                raise TrecFormatError("relevance is infinite", path=path, line=number, text=text)
            rows.append((*parts[:3], grade))
        else:
            if len(parts) < 6:
                raise TrecFormatError(f"a run line has 6 fields (qid Q0 docno rank score tag), this one "
                                      f"{len(parts)}", path=path, line=number, text=text)
            try:
                rank = int(parts[3]) if "rank" in wanted else parts[3]
            except ValueError:
                raise TrecFormatError(f"rank {parts[3]!r} is not an integer", path=path, line=number,
                                      text=text) from None
            rows.append((*parts[:3], rank, _number(parts[4], "score", path, number, text), parts[5]))
        numbers.append(number)
        texts.append(text)
    columns = {name: np.array([row[i] for row in rows], dtype=object if name not in ("relevance", "score")
                              else float) for i, name in enumerate(fields) if name in wanted}
    if "rank" in columns:
        columns["rank"] = np.array(columns["rank"].tolist())
    return columns, numbers, texts


def _columns(path, encoding: str, kind: str, wanted: tuple[str, ...] | None = None):
    """``(columns, located)``: the file's columns in one pass when it can (else line by line, raising on the
    first bad line), and a function that turns a duplicate entry into the error naming its lines."""
    raw, wanted = _read_bytes(path), wanted or _FIELDS[kind]
    columns = _fast_columns(raw, encoding, kind, wanted)
    lines = None
    if columns is None:
        columns, *lines = _slow_columns(path, raw, encoding, kind, wanted)

    def located(error: DuplicateEntryError) -> TrecFormatError:
        numbers, texts = lines or _slow_columns(path, raw, encoding, kind, wanted)[1:]
        return TrecFormatError(f"document {error.document!r} of topic {error.topic!r} already on line "
                               f"{numbers[error.first]}", path=path, line=numbers[error.again],
                               text=texts[error.again])

    return columns, located


# ------------------------------------------------------------------------------------------ qrels
def read_trec_qrels_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every judgement line as a row: ``topic, iteration, document, relevance`` (float; negative, zero and
    fractional grades kept). ``#`` lines are comments. Raises :class:`TrecFormatError`."""
    columns, _ = _read_qrels(path, encoding, _FIELDS["qrels"])
    return _frame(columns)


def _read_qrels(path, encoding: str, wanted: tuple[str, ...]) -> tuple[dict, Judgements]:
    columns, located = _columns(path, encoding, "qrels", wanted)
    try:
        return columns, judgements(columns["topic"], columns["document"], columns["relevance"])
    except DuplicateEntryError as error:
        raise located(error) from None


def qrels_grades(frame: pd.DataFrame) -> dict[str, dict[str, float]]:
    """``{topic: {document: relevance}}`` from a qrels frame (judged non-relevant documents included)."""
    grades: dict[str, dict[str, float]] = {}
    for topic, doc, rel in frame[["topic", "document", "relevance"]].itertuples(index=False):
        grades.setdefault(topic, {})[doc] = rel
    return grades


def read_trec_qrels(path: str | PathLike, encoding: str = "utf-8") -> Judgements:
    """Graded gold per topic (:class:`~workbench.data.ranked.Judgements`, a mapping topic → Organization):
    one level per positive grade, highest first, grades kept (:meth:`Organization.from_graded`), built when a
    topic is first asked for. Judged non-relevant documents are in :func:`read_trec_qrels_frame`."""
    return _read_qrels(path, encoding, ("topic", "document", "relevance"))[1]


def write_trec_qrels(qrels: pd.DataFrame | Mapping[str, Organization], path: str | PathLike) -> None:
    """Write a qrels frame (lossless) or ``{topic: Organization}`` (each prioritised document with its gain
    from ``grade_of()``, in level order; a finite rest as grade 0)."""
    if isinstance(qrels, pd.DataFrame):
        rows = qrels[["topic", "iteration", "document", "relevance"]].itertuples(index=False)
    else:
        rows = [(topic, "0", doc, grade) for topic, gold in qrels.items() for doc, grade in _gold_rows(gold)]
    lines = [f"{t} {i} {d} {_format_number(r)}\n" for t, i, d, r in rows]
    _write(path, lines)


def _gold_rows(gold: Organization) -> list[tuple[str, float]]:
    grade = gold.grade_of()
    rows, seen = [], set()
    for level in gold.levels:
        for cluster in level:
            for doc in sorted(cluster, key=natural_key):
                if doc not in seen:
                    seen.add(doc)
                    rows.append((doc, grade[doc]))
    return rows + [(doc, 0.0) for doc in sorted(gold.rest or (), key=natural_key)]


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


# ------------------------------------------------------------------------------------------- runs
def read_trec_run_frame(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """Every run line as a row: ``topic, q0, document, rank, score, system`` (fields after the sixth are
    ignored). Raises :class:`TrecFormatError` on short lines, non-numeric or NaN scores, a non-integer rank
    (checked here only: :func:`read_trec_run` ignores the rank as trec_eval does), and a document twice in
    one topic of one system."""
    columns, located = _columns(path, encoding, "run")
    try:
        rank_runs(columns["system"], columns["topic"], columns["document"], columns["score"])
    except DuplicateEntryError as error:
        raise located(error) from None
    return _frame(columns)


def run_scores(frame: pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    """``{system: {topic: {document: score}}}`` from a run frame (file order kept)."""
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for system, topic, doc, score in frame[["system", "topic", "document", "score"]].itertuples(index=False):
        scores.setdefault(system, {}).setdefault(topic, {})[doc] = score
    return scores


def read_trec_run(path: str | PathLike, encoding: str = "utf-8", ties: str = "trec_eval",
                  score_precision: str = "float32", max_docs: int | None = None) -> dict[str, RankedRun]:
    """``{system (the tag): {topic: ranking}}`` as trec_eval ranks it (:func:`~workbench.data.ranked.rank_runs`):
    score descending compared as 32-bit floats (``score_precision="float64"``: full precision), then
    document id descending. The rank column is ignored, not even checked, as trec_eval does. ``max_docs``
    keeps the first documents of each topic (``trec_eval -M``); a document given twice among them is an
    error naming both lines, as trec_eval stops on it.

    Each run is a :class:`~workbench.data.ranked.RankedRun`: its Organizations are built on first access.
    ``ties="trec_eval"``: one document per level; ``ties="levels"``: documents with equal scores share one
    level (a tie).
    """
    if ties not in TIES:
        raise ParameterError(f"ties must be one of {', '.join(TIES)}, got {ties!r}", parameter="ties")
    columns, located = _columns(path, encoding, "run", ("topic", "document", "score", "system"))
    try:
        return rank_runs(columns["system"], columns["topic"], columns["document"], columns["score"], ties=ties,
                         score_precision=score_precision, max_docs=max_docs)
    except DuplicateEntryError as error:
        raise located(error) from None


def write_trec_run(run: pd.DataFrame | Mapping[str, Mapping[str, Organization]],
                   path: str | PathLike) -> None:
    """Write a run frame (lossless) or ``{system: {topic: Organization}}``: documents in
    :func:`~workbench.metrics.ranking.ranked_documents` order, rank 1, 2, ..., and a score per level
    (levels − index) so that a tied level keeps one score and reading back with the default tie policy
    gives the same order."""
    if isinstance(run, pd.DataFrame):
        rows = run[["topic", "q0", "document", "rank", "score", "system"]].itertuples(index=False)
    else:
        rows = [row for system, topics in run.items() for topic, output in topics.items()
                for row in _run_rows(system, topic, output)]
    _write(path, [f"{t} {q} {d} {r} {float(s)!r} {tag}\n" for t, q, d, r, s, tag in rows])


def _run_rows(system: str, topic: str, output: Organization) -> list[tuple]:
    level_of: dict[str, int] = {}
    for index, level in enumerate(output.levels):
        for cluster in level:
            for doc in cluster:
                level_of.setdefault(doc, index)
    top = len(output.levels)
    return [(topic, "Q0", doc, rank, float(top - level_of[doc]), system)
            for rank, doc in enumerate(ranked_documents(output), start=1)]


# ------------------------------------------------------------------------------- trec_eval output
def read_trec_eval_output(path: str | PathLike, encoding: str = "utf-8") -> pd.DataFrame:
    """trec_eval's output (``measure  topic|all  value``, with or without ``-q``) as a tidy frame
    ``measure, topic, value, text``: ``value`` is the number (NaN for text values such as ``runid`` or
    ``relstring``), ``text`` the value as printed."""
    rows = []
    for number, text, fields in _lines(path, encoding):
        if len(fields) != 3:
            raise TrecFormatError(f"a trec_eval output line has 3 fields (measure topic value), this one "
                                  f"{len(fields)}", path=path, line=number, text=text)
        measure, topic, printed = fields
        try:
            value = float(printed)
        except ValueError:
            value = math.nan
        rows.append((measure, topic, value, printed))
    return pd.DataFrame(rows, columns=["measure", "topic", "value", "text"])


def write_trec_eval_output(frame: pd.DataFrame, path: str | PathLike) -> None:
    """Write a frame of ``measure, topic, value[, text]`` in trec_eval's layout (``%-22s\\t%s\\t%s``); the
    printed ``text`` is used where present, else the value with 4 decimals as trec_eval prints."""
    lines = []
    has_text = "text" in frame.columns
    for row in frame.itertuples(index=False):
        printed = row.text if has_text and isinstance(row.text, str) else f"{row.value:.4f}"
        lines.append(f"{row.measure:<22}\t{row.topic}\t{printed}\n")
    _write(path, lines)
