"""A campaign from files, whatever their format: TREC qrels and runs, RepLab TSV, WePS XML (a file, a folder of
topics, or a ``systemsDir`` of team folders), gzip-compressed or not, ``-`` for standard input. The command
line's ``eval`` and ``compare`` read their files through :func:`read_campaign`::

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels").write_text("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> _ = (folder / "run").write_text("q1 Q0 d2 1 0.9 bm25\\nq1 Q0 d1 2 0.5 bm25\\n")
    >>> campaign = read_campaign(folder / "qrels", [folder / "run"])
    >>> campaign.evaluate("RR", progress=False).value.tolist()
    [0.5]

The format of each file is sniffed (:func:`sniff_format`) unless given: a directory or ``.xml`` is WePS, a
first line starting with ``entity_id`` RepLab, anything else TREC.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path

from workbench.data.campaign import Campaign
from workbench.data.replab import LABEL
from workbench.data.trec.ranked import COSTS, MAX_DOCS, SCORE_PRECISION
from workbench.errors import InputError
from workbench.model import Organization
from workbench.reading.positions import LineIndex
from workbench.reading.sources import STDIN, file_path, head, rename_copy, with_stdin
from workbench.validation import ENCODING, AnyOf, Choices, FilePath, ListOf, MappingOf, validate

__all__ = ["FORMATS", "FORMAT", "FORMAT_OR_NONE", "ENCODING_OR_NONE", "RUN_FILES", "CampaignFileError",
           "sniff_format", "read_gold", "read_runs", "read_campaign"]

FORMATS = ("auto", "trec", "replab", "weps")
FORMAT = Choices(FORMATS)
"""The domain of a file's ``format`` (``auto``: sniffed, :func:`sniff_format`)."""
FORMAT_OR_NONE = Choices((*FORMATS, None))
"""A file's own ``format``, or None for the one of every file."""
ENCODING_OR_NONE = AnyOf(ENCODING, Choices((None,)), what="an encoding Python knows or None")
RUN_FILES = ListOf(FilePath(), what="a list of file names")


class CampaignFileError(InputError):
    """A gold or run file whose format cannot be told, or that two runs name the same system."""


@validate(path=FilePath())
def sniff_format(path: str | PathLike) -> str:
    """A gold or run file's format (``trec``, ``replab`` or ``weps``): a directory or XML is WePS, a header
    ``entity_id`` RepLab, else TREC (a gzip-compressed file by its content)."""
    path = Path(file_path(path))
    if path.is_dir() or path.suffix.lower() == ".xml":
        return "weps"
    try:
        data = head(path)
    except OSError as error:
        raise CampaignFileError(f"cannot read the file ({error.strerror or error})", path=path) from None
    except zlib.error as error:
        raise CampaignFileError(f"broken gzip data ({error})", path=path) from None
    if b"\x00" in data and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        nul_line, nul_column = LineIndex(data).locate(data.index(0))
        raise CampaignFileError("binary data (a NUL byte), not a TREC, RepLab or WePS text file (gzip-compressed "
                                "files are read, other archives are not)", path=path, line=nul_line, column=nul_column)
    for line in data.removeprefix(b"\xef\xbb\xbf").decode("latin-1").splitlines():  # a UTF-8 byte-order mark aside
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("<"):
            return "weps"
        if text.split("\t")[0].strip().strip('"').lower() == "entity_id":
            return "replab"
        return "trec"
    raise CampaignFileError("empty file, cannot tell its format (give its format)", path=path)


def _format(path: Path, fmt: str) -> str:
    return sniff_format(path) if fmt == "auto" else fmt


def _topics(path: Path, topics: Mapping) -> Mapping:
    """A file's topics, refused when there is none (a RepLab file with its header only)."""
    if not topics:
        raise CampaignFileError("holds no topic (only a header line?)", path=path)
    return topics


@validate(path=FilePath(), format=FORMAT, label=LABEL, encoding=ENCODING)
def read_gold(path: str | PathLike, format: str = "auto", *, label: str | None = None,
              encoding: str = "utf-8") -> Mapping[str, Organization]:
    """topic → Organization from a qrels file, a RepLab file (``label``: the column to read) or WePS XML (a file
    or a directory of them)."""
    path = Path(file_path(path))
    fmt = _format(path, format)
    if fmt == "replab":
        from workbench.data.replab import read_replab

        return _topics(path, read_replab(path, label=label, encoding=encoding))
    if fmt == "weps":
        from workbench.data.weps import read_weps_clustering

        return read_weps_clustering(path)
    from workbench.data.trec.readers import read_trec_qrels

    return read_trec_qrels(path, encoding=encoding)


def _weps_runs(path: Path, gold: Mapping[str, Organization]) -> dict:
    """A team folder (``systemsDir/TEAM_A``) or a ``systemsDir`` of them, run topics renamed to the gold's
    spelling where they match it case- and ``_``/space-insensitively (WePS names vary)."""
    from workbench.data.weps import read_weps_clustering, read_weps_runs, topic_key

    if path.is_dir() and not any(path.glob("*.xml*")) and any(p.is_dir() for p in path.iterdir()):
        runs = read_weps_runs(path)
    else:
        runs = {path.name: read_weps_clustering(path)}
    spelling = {topic_key(topic): topic for topic in gold}
    return {system: {spelling.get(topic_key(topic), topic): org for topic, org in run.items()}
            for system, run in runs.items()}


@validate(paths=RUN_FILES, format=FORMAT, gold=MappingOf(optional=True, what="a mapping topic → Organization"),
          label=LABEL, encoding=ENCODING, max_docs=MAX_DOCS, score_precision=SCORE_PRECISION, costs=COSTS)
def read_runs(paths: Sequence[str | PathLike], format: str = "auto", *, gold: Mapping[str, Organization] | None = None,
              label: str | None = None, encoding: str = "utf-8", max_docs: int | None = None,
              score_precision: str = "float64", costs: Mapping[str, float] | None = None
              ) -> dict[str, Mapping[str, Organization]]:
    """system → topic → Organization. TREC runs are named by their tag and ranked as trec_eval ranks them
    (``max_docs`` is ``-M``; ``score_precision="float32"`` compares scores as trec_eval 9.x; ``costs``, cwl_eval's
    cost of each element type, prices their documents by their second column:
    :func:`~workbench.data.trec.readers.read_trec_run`), WePS runs by their team folder (topics matched to
    ``gold``'s spelling), RepLab runs by their file name."""
    return _added({}, paths, format, gold=gold, label=label, encoding=encoding, max_docs=max_docs,
                  score_precision=score_precision, costs=costs)


def _added(runs: dict, paths: Sequence[str | PathLike], format: str, *, gold: Mapping[str, Organization] | None,
           label: str | None, encoding: str, max_docs: int | None, score_precision: str,
           costs: Mapping[str, float] | None) -> dict:
    """``runs`` with the systems of the files ``paths`` (:func:`read_runs`) added; a system named twice is refused."""
    for path in map(Path, map(file_path, paths)):
        kind = _format(path, format)
        if kind == "trec":
            from workbench.data.trec.readers import read_trec_run

            found = read_trec_run(path, encoding=encoding, max_docs=max_docs, score_precision=score_precision,
                                  costs=costs)
        elif costs is not None:
            raise CampaignFileError(f"costs price the element types of a TREC run (its second column); this is a "
                                    f"{kind} run", path=path)
        elif kind == "replab":
            from workbench.data.replab import read_replab

            found = {path.stem: _topics(path, read_replab(path, label=label, encoding=encoding))}
        else:
            found = _weps_runs(path, gold or {})
        for system, run in found.items():
            if system in runs:
                raise CampaignFileError(f"system {system!r} is already in an earlier run file", path=path)
            runs[system] = run
    return runs


def _both_trec(gold: Path, run: Path, gold_format: str, run_format: str) -> bool:
    """Whether the gold and a run are TREC files, read at once on two threads
    (:func:`~workbench.data.trec.readers.read_trec_qrels_and_run`: ``eval -m AP nDCG P@10 RR`` on 2,000 queries ×
    1,000 documents, 10 interleaved runs on a shared 2-core machine, wall median 1.27 → 1.08 s, CPU 1.17 → 1.04 s);
    a file whose format cannot be told is read as before, the gold first, and its error raised in that order."""
    try:
        return _format(gold, gold_format) == "trec" and _format(run, run_format) == "trec"
    except CampaignFileError:
        return False


@validate(gold=FilePath(), runs=AnyOf(FilePath(), RUN_FILES), format=FORMAT, gold_format=FORMAT_OR_NONE,
          run_format=FORMAT_OR_NONE, encoding=ENCODING, gold_encoding=ENCODING_OR_NONE, run_encoding=ENCODING_OR_NONE,
          label=LABEL, max_docs=MAX_DOCS, score_precision=SCORE_PRECISION, costs=COSTS)
def read_campaign(gold: str | PathLike, runs: Sequence[str | PathLike], *, format: str = "auto",
                  gold_format: str | None = None, run_format: str | None = None, encoding: str = "utf-8",
                  gold_encoding: str | None = None, run_encoding: str | None = None, label: str | None = None,
                  max_docs: int | None = None, score_precision: str = "float64",
                  costs: Mapping[str, float] | None = None) -> Campaign:
    """A :class:`~workbench.data.campaign.Campaign` from a gold file and run files (any of them ``-``, standard
    input, once). ``format`` applies to every file unless ``gold_format``/``run_format`` say otherwise, likewise
    ``encoding``; ``label``, ``max_docs``, ``score_precision`` and ``costs`` as :func:`read_gold` and
    :func:`read_runs`."""
    if isinstance(runs, str | bytes | PathLike):
        runs = [runs]
    given = [file_path(gold), *map(file_path, runs)]
    with with_stdin(given) as (gold_path, *run_paths):
        truth: Mapping[str, Organization]
        systems, rest = {}, run_paths
        if run_paths and _both_trec(gold_path, run_paths[0], gold_format or format, run_format or format):
            from workbench.data.trec.readers import read_trec_qrels_and_run

            truth, first = read_trec_qrels_and_run(gold_path, run_paths[0], qrels_encoding=gold_encoding or encoding,
                                                   run_encoding=run_encoding or encoding, max_docs=max_docs,
                                                   score_precision=score_precision, costs=costs)
            systems, rest = dict(first), run_paths[1:]
        else:
            truth = read_gold(gold_path, gold_format or format, label=label, encoding=gold_encoding or encoding)
        systems = _added(systems, rest, run_format or format, gold=truth, label=label,
                         encoding=run_encoding or encoding, max_docs=max_docs, score_precision=score_precision,
                         costs=costs)
        copies = [path for name, path in zip(given, [gold_path, *run_paths], strict=True) if str(name) == STDIN]
        for mapping in (truth, *systems.values()):  # errors kept for later (a duplicate) name <stdin> too
            for error in getattr(mapping, "refused", {}).values():
                for copy in copies:
                    rename_copy(error, copy)
    return Campaign(truth, systems)
