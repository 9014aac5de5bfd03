"""Runs and qrels in ranx's files, read and written so that each reads back equal, in the workbench and in ranx
(``Run.from_file`` / ``Run.from_parquet`` / ``Run.save``, the same for ``Qrels``; ranx 0.3):

* **JSON**: ``{query: {doc: score}}`` (a run) or ``{query: {doc: grade}}`` (qrels);
* **Parquet**: the columns ``q_id``, ``doc_id``, ``score`` (ranx's ``to_dataframe``), other columns ignored;
* **LZ4**: ranx's ``.lz4`` runs, an LZ4 frame holding an LZ4 frame of the JSON's mapping in CBOR, read and
  written where the ``lz4`` and ``cbor2`` libraries are installed (ranx brings them; qrels are read and written so
  too, which ranx itself does not).

Reading sniffs the format from the first bytes (``PAR1``, an LZ4 frame, else JSON) through the reading layer
(:mod:`workbench.reading`: JSON within its limits, Parquet through pyarrow, LZ4 within the input limit); a file that
is none of them, a value that is not a mapping of mappings, a score that is not a number, a grade that is infinite
are refused with a :class:`RanxFormatError` naming the file (and the query, the document or the row). The values
become the workbench's judgements and runs as :meth:`Campaign.from_dicts <workbench.data.Campaign.from_dicts>` reads
ranx's dicts, ranked as trec_eval ranks them::

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_ranx_qrels({"q1": {"d1": 2, "d2": 0}}, folder / "qrels.json")
    >>> write_ranx_run({"q1": {"d2": 0.9, "d1": 0.5}}, folder / "bm25.parquet")
    >>> qrels, runs = read_ranx_qrels(folder / "qrels.json"), read_ranx_run(folder / "bm25.parquet")
    >>> qrels.grades_of("q1"), runs["bm25"].documents("q1")
    ({'d1': 2.0, 'd2': 0.0}, ['d2', 'd1'])

Writing takes the workbench's judgements and runs (:class:`~workbench.data.trec.ranked.Judgements`,
:class:`~workbench.data.trec.ranked.RankedRun`: documents in rank order with their scores) or ranx's dicts; the
format comes from the name (``.parquet``/``.parq``, ``.lz4``, else JSON) or ``format=``. A value JSON cannot carry
(NaN, an infinite score) is refused with :class:`RanxWriteError` before anything is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any, cast

from workbench.data.files import write_whole
from workbench.data.trec.memory import judgements_from_dicts, runs_from_dicts
from workbench.data.trec.ranked import MAX_DOCS, SCORE_PRECISION, TIES, Identifier, Judgements, RankedRun
from workbench.errors import InputError, OutputError, WorkbenchError, quoted
from workbench.extras import needs_extra
from workbench.reading import json_input
from workbench.reading.binary import LZ4_MAGIC, PARQUET_MAGIC, cbor, lz4_frame, parquet_table
from workbench.reading.sources import file_path, read_input
from workbench.reading.text import decode
from workbench.validation import AnyOf, Choices, FilePath, Instance, MappingOf, validate

__all__ = ["FORMATS", "COLUMNS", "RanxFormatError", "RanxWriteError", "read_ranx_qrels", "read_ranx_run",
           "write_ranx_qrels", "write_ranx_run", "format_of"]

FORMATS = ("auto", "json", "parquet", "lz4")
"""ranx's file formats (``auto``: sniffed from the bytes when reading, from the name when writing)."""
COLUMNS = ("q_id", "doc_id", "score")
"""The columns of ranx's Parquet files, runs and qrels alike."""
_FORMAT = Choices(FORMATS)
_QRELS = AnyOf(Instance((Judgements,), "Judgements"), MappingOf(values=Instance((Mapping,), "a mapping {doc: grade}"),
                                                                 what="a mapping {query: {doc: grade}}"),
               what="Judgements or qrels {query: {doc: grade}}")
_RUN = AnyOf(Instance((RankedRun,), "a RankedRun"), MappingOf(values=Instance((Mapping,), "a mapping {doc: score}"),
                                                               what="a run {query: {doc: score}}"),
             what="a RankedRun or a run {query: {doc: score}}")


class RanxFormatError(InputError):
    """A file that is not one of ranx's runs or qrels, or holds a value they cannot: named by file (and query,
    document or row)."""


class RanxWriteError(OutputError):
    """A value ranx's files cannot carry so that it reads back equal (NaN, an infinite score); nothing was
    written."""


def _sniff(data: bytes) -> str:
    """``parquet``, ``lz4`` or ``json``, from a file's first bytes."""
    return "parquet" if data[:4] == PARQUET_MAGIC else "lz4" if data[:4] == LZ4_MAGIC else "json"


def format_of(path: str | PathLike, format: str = "auto") -> str:
    """The format a file is written in: ``format``, or from its name as ranx infers it (``.parquet``/``.parq``,
    ``.lz4``, else JSON).

    >>> format_of("run.parq"), format_of("run.json"), format_of("qrels.txt", "lz4")
    ('parquet', 'json', 'lz4')
    """
    if format != "auto":
        return format
    suffix = Path(file_path(path)).suffix.lower()
    return {".parquet": "parquet", ".parq": "parquet", ".lz4": "lz4"}.get(suffix, "json")


def _nested(path: str | PathLike, what: str, format: str) -> tuple[dict[str, dict[str, Any]] | None, Any]:
    """The file's ``{query: {doc: value}}`` (JSON, LZ4) or its Parquet table (the other slot), checked for shape."""
    data = read_input(file_path(path), RanxFormatError)
    kind = _sniff(data) if format == "auto" else format
    if kind == "parquet":
        return None, parquet_table(data, path, {"q_id": "string", "doc_id": "string", "score": "number"},
                                   RanxFormatError)
    if kind == "lz4":
        with needs_extra("lz4", "reading ranx's .lz4 files"):
            value = cbor(lz4_frame(lz4_frame(data, path, RanxFormatError), path, RanxFormatError), path,
                         RanxFormatError)
        return _checked_shape(value, path, what, lambda message, **where: RanxFormatError(message, path=path,
                                                                                          **where)), None
    text = decode(data, path, "utf-8", RanxFormatError)
    if not text.content.strip():
        raise text.fail("empty file: ranx's JSON is {query: {doc: value}}")
    value = json_input.load(text)
    return _checked_shape(value, path, what, lambda message, **where: text.fail(message, **where)), None


def _checked_shape(value: Any, path: object, what: str, fail: Any) -> dict[str, dict[str, Any]]:
    """``value`` if it is ``{query: {doc: value}}`` with text keys, else the located refusal."""
    if not isinstance(value, dict):
        raise fail(f"ranx's {what} is a mapping {{query: {{doc: value}}}}, got {type(value).__name__}")
    for query, documents in value.items():
        if not isinstance(query, str) or not isinstance(documents, dict):
            shown = type(documents).__name__ if isinstance(query, str) else f"a {type(query).__name__} key"
            raise fail(f"query {quoted(query)}: ranx's {what} maps each query to {{doc: value}}, got {shown}",
                       where=f"query {quoted(query)}")
        for document in documents:
            if not isinstance(document, str):
                raise fail(f"query {quoted(query)}: a document id is text, got {quoted(document)}",
                           where=f"query {quoted(query)}")
    return value


def _located(error: WorkbenchError, path: object) -> RanxFormatError:
    """A refusal of the values read, with the file named."""
    return RanxFormatError(error.message if isinstance(error, InputError) else str(error), path=path,
                           where=getattr(error, "where", ""))


@validate(path=FilePath(), format=_FORMAT)
def read_ranx_qrels(path: str | PathLike, format: str = "auto") -> Judgements:
    """Judgements from ranx's qrels file (JSON, Parquet or LZ4: the module docstring), grades as given."""
    nested, table = _nested(path, "qrels", format)
    try:
        if nested is not None:
            return judgements_from_dicts(nested)
        from workbench.data.trec.frames import judgements_from_frame

        return judgements_from_frame(table.to_pandas(), query="q_id", document="doc_id", relevance="score")
    except WorkbenchError as error:
        raise _located(error, path) from None


@validate(path=FilePath(), format=_FORMAT, name=Identifier(optional=True, what="a system name"), ties=TIES,
          score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
def read_ranx_run(path: str | PathLike, format: str = "auto", name: str | None = None, *, ties: str = "trec_eval",
                  score_precision: str = "float64", max_docs: int | None = None) -> dict[str, RankedRun]:
    """``{system: RankedRun}`` of ranx's run file (JSON, Parquet or LZ4), the system named ``name`` or by the
    file's stem (ranx's files carry no name), ranked as trec_eval ranks a run file
    (:func:`~workbench.data.trec.readers.read_trec_run`'s ``ties``, ``score_precision`` and ``max_docs``)."""
    system = name if name is not None else Path(file_path(path)).name.split(".")[0] or "run"
    nested, table = _nested(path, "run", format)
    try:
        if nested is not None:
            return runs_from_dicts({system: nested}, ties=ties, score_precision=score_precision, max_docs=max_docs)
        from workbench.data.trec.frames import runs_from_frames

        return runs_from_frames({system: table.to_pandas()}, query="q_id", document="doc_id", score="score",
                                ties=ties, score_precision=score_precision, max_docs=max_docs)
    except WorkbenchError as error:
        raise _located(error, path) from None


def _number(value: float, what: str, grade: bool) -> int | float:
    """A score or grade as ranx's files hold it: a whole grade as an integer; NaN and an infinite value refused."""
    if math.isnan(value) or math.isinf(value):
        raise RanxWriteError(f"{what} is {value}, which ranx's files cannot carry (JSON has no NaN or infinity)")
    return int(value) if grade and float(value).is_integer() else float(value)


def _qrels_dicts(qrels: Judgements | Mapping) -> dict[str, dict[str, int | float]]:
    if isinstance(qrels, Judgements):
        nested: Mapping = {topic: qrels.grades_of(topic) for topic in qrels.topics}
    else:
        nested = qrels
    return {str(q): {str(d): _number(float(g), f"query {quoted(q)}, document {quoted(d)}: the grade", True)
                     for d, g in docs.items()} for q, docs in nested.items()}


def _run_dicts(run: RankedRun | Mapping) -> dict[str, dict[str, float]]:
    if isinstance(run, RankedRun):
        return {str(q): {d: _number(float(s), f"query {quoted(q)}, document {quoted(d)}: the score", False)
                         for d, s in zip(run.documents(q), run.scores(q).tolist(), strict=True)} for q in run.topics}
    plain = cast(Mapping[str, Mapping[str, float]], run)
    return {str(q): {str(d): _number(float(s), f"query {quoted(q)}, document {quoted(d)}: the score", False)
                     for d, s in docs.items()} for q, docs in plain.items()}


def _write(nested: dict[str, dict[str, Any]], path: str | PathLike, format: str, grades: bool) -> None:
    kind = format_of(path, format)
    if kind == "parquet":
        import io

        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = [(q, d, v) for q, docs in nested.items() for d, v in docs.items()]
        integers = grades and all(isinstance(v, int) for _, _, v in rows)
        table = pa.table({"q_id": pa.array([r[0] for r in rows], pa.string()),
                          "doc_id": pa.array([r[1] for r in rows], pa.string()),
                          "score": pa.array([r[2] for r in rows], pa.int64() if integers else pa.float64())})
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        data = buffer.getvalue()
    elif kind == "lz4":
        with needs_extra("lz4", "writing ranx's .lz4 files"):
            import cbor2
            import lz4.frame
        data = lz4.frame.compress(lz4.frame.compress(cbor2.dumps(nested), compression_level=16))
    else:
        data = json.dumps(nested, indent=2, ensure_ascii=False, allow_nan=False).encode("utf-8")
    write_whole(file_path(path), data)


@validate(qrels=_QRELS, path=FilePath(), format=_FORMAT)
def write_ranx_qrels(qrels: Judgements | Mapping[str, Mapping[str, float]], path: str | PathLike,
                     format: str = "auto") -> None:
    """Write judgements (read ones, or ``{query: {doc: grade}}``) as ranx's qrels file; whole grades as integers
    (ranx's qrels hold integers), written whole or not at all."""
    _write(_qrels_dicts(qrels), path, format, grades=True)


@validate(run=_RUN, path=FilePath(), format=_FORMAT)
def write_ranx_run(run: RankedRun | Mapping[str, Mapping[str, float]], path: str | PathLike,
                   format: str = "auto") -> None:
    """Write one run (a :class:`~workbench.data.trec.ranked.RankedRun`, in its rank order with its scores, or
    ``{query: {doc: score}}``) as ranx's run file, written whole or not at all."""
    _write(_run_dicts(run), path, format, grades=False)
