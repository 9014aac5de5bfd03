"""``python -m workbench trec_eval``: trec_eval 10.0 as a drop-in, printing exactly what it prints.

    python -m workbench trec_eval [-q] [-c] [-n] [-l N] [-M N] [-J] [-N N] [-R FORMAT] [-Z ZSCORES]
                                  [-m MEASURE[.PARAMS]]... REL_INFO RUN

Options are trec_eval's (``getopt_long``: ``-mP.5,7,3``, ``-M100``, ``-l2`` and their long forms); ``-m``
takes one of its 57 measures or one of the nicknames ``official`` (the default), ``all_trec``, ``set``,
``all_prefs``, ``prefs`` and ``qrels_jg``, with trec_eval's parameters after a dot (``P.5,7,3``,
``ndcg.1=3,2=9,4=4.5``, ``utility.2,-1,0,0``, ``iprec_at_recall..10,.25``), read by C's ``atol``/``atof`` as
trec_eval reads them and printed in the names as the bytes typed. One rule where trec_eval's result is undefined:
a parameter that reads as infinite or NaN (``relstring.inf``, ``ndcg.1=nan``, ``rbp.p=inf``), or a ``relstring``
length past a C long, is refused in one line that quotes what was typed.
It reads, ranks and joins the files the one way the workbench reads them (:mod:`workbench.data.trec`: byte by
byte, ids compared as ``strcmp`` compares them, grades through ``atol``, scores through ``atof``, compared as
doubles, gzip and ``-`` for standard input too) and scores them with the kernels of
:mod:`workbench.metrics.ranking`; this module holds what is trec_eval's own: its options, its printing order
(:data:`ORDER`) and :func:`render` (``%-22s\\t%s\\t%6.4f``). Its measures' names, parameter syntax, default
parameters and groups are their declarations' (:class:`~workbench.metrics.registry.TrecEvalName`); :data:`MEASURES`
and :data:`NICKNAMES` are generated from them.
``--score-precision float32`` compares scores as 32-bit floats, as trec_eval 9.x, pytrec_eval and ir_measures do.
``--stream`` reads the run one block of whole topics at a time (``--stream-block BYTES``, 64 MiB by default;
:mod:`workbench.data.streamed`), the same output to the byte, for runs larger than memory; by default a run is
streamed when reading it whole would take more than half the memory available, ``--no-stream`` never.

``-R`` names the relevance file's format (:data:`REL_FORMATS`): ``qrels`` (the default), ``prefs`` (preference
judgements ``topic group subgroup document level``) or ``qrels_prefs`` (a qrels file read as preferences), for
the ``prefs_*`` measures (:mod:`workbench.data.trec.preferences`, :mod:`workbench.metrics.ranking.preferences`),
and ``qrels_jg`` (qrels whose second field names a judgement group) for ``map_avgjg``, ``P_avgjg`` and
``Rprec_mult_avgjg`` (:mod:`workbench.data.trec.judgement_groups`,
:mod:`workbench.metrics.ranking.judgement_groups`); a measure the format cannot give is refused, as trec_eval
cannot calculate it. ``-Z`` turns every per-topic value into a z-score against a file of ``topic measure mean
stddev`` lines (:mod:`workbench.data.trec.zscores`, :mod:`workbench.metrics.ranking.zscores`), printed with a
``Z`` before the name and averaged (summed, for counts) as trec_eval does.

Topics are the judged topics the run has, in byte order (the run id is its last line's); ``-c`` evaluates every
judged topic, a missing one on trec_eval's one-document placeholder ranking, and averages over all of them.
Without ``-c``, a judged topic the run lacks is skipped with a note, as trec_eval 9.x skips it (trec_eval 10.0
stops there with status 4 and the message "result qid ... not found in qrels", a side effect of its commit
9812815). What trec_eval rejects raises a named error with the file and line; what it accepts silently (run
topics without judgements, negative grades, numbers it reads otherwise than they are written, repeated z-score
lines) gets its result and a note (:class:`~workbench.errors.WorkbenchWarning`). The exit statuses are trec_eval
10.0's (:data:`EXIT_STATUSES`): 1 for the command line (an unknown option or measure, a missing argument), 2
for a file or a measure's parameters, 4 for what cannot be calculated (a measure the ``-R`` format cannot give, a
duplicate document), 255 for a ``-Z`` file. Where trec_eval reads past its
own arrays (a z-score look-up past its table, a ``prefs_avgjg_Rnonrel`` recount of a negative level), its
value is undefined: the note says so and the workbench gives a defined one.
"""

from __future__ import annotations

import getopt
import math
import os
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from workbench._version import __version__
from workbench.data.engines import PARALLEL_CELLS, PART_CELLS, row_parts, run_blocks, table_values
from workbench.data.trec.errors import TrecDuplicateError
from workbench.data.trec.join import gain_table
from workbench.data.trec.judgement_groups import group_table, read_judgement_groups
from workbench.data.trec.lines import TrecLines, lines_at_once
from workbench.data.trec.preferences import count_topics, read_preferences
from workbench.data.trec.ranked import MAX_DOCS, judgements, rank_runs
from workbench.data.trec.zscores import read_zscores
from workbench.errors import ParameterError, WorkbenchError, WorkbenchWarning, excerpt, warn
from workbench.heap import release_freed
from workbench.metrics.ranking.table import SCORE_PRECISIONS
from workbench.metrics.ranking.zscores import zscores
from workbench.metrics.registry import TREC_EVAL_GROUPS, Measure, MeasureSpec, TrecEvalName, bind, specs
from workbench.metrics.summary import MIN_GEO_MEAN, summarize
from workbench.reading.numbers import atof, atol
from workbench.reading.sources import file_path
from workbench.shell import emit, say
from workbench.threads import in_threads
from workbench.validation import check

__all__ = ["TrecEvalError", "EXIT_STATUSES", "Options", "REL_FORMATS", "TrecMeasure", "ORDER", "MEASURES", "NICKNAMES",
           "select_measures", "Evaluation", "evaluate", "JOINED_BLOCK", "PARALLEL_CELLS", "PART_CELLS", "bound",
           "render", "USAGE", "main"]


class TrecEvalError(ParameterError):
    """A trec_eval command line trec_eval itself refuses (illegal measure, bad parameters, no topics...), with
    the exit status trec_eval 10.0 gives it (``exit_status``, :data:`EXIT_STATUSES`)."""

    def __init__(self, message: str, status: int = 2, **declared: Any) -> None:
        super().__init__(message, **declared)
        self.exit_status = status


EXIT_STATUSES = {
    1: "the command line: an unknown option, a missing argument, an illegal measure name (trec_eval.c: usage, "
       "mark_measure)",
    2: "a relevance or run file that cannot be read, an unknown -R format, a measure's parameters that cannot "
       "initialise it (get_qrels.c, get_trec_results.c, meas_init.c: Quit in file, Cannot initialize measure)",
    4: "a measure that cannot be calculated: one the -R format cannot give, a duplicate document, utility's "
       "coefficients; a judged topic the run lacks (trec_eval.c: Can't calculate measure, result qid not found)",
    255: "a -Z file that cannot be read (trec_eval.c returns UNDEF from main)",
}
"""trec_eval 10.0's exit statuses (usnistgov/trec_eval f425365, trec_eval.c), which the drop-in's errors carry
(:attr:`~workbench.errors.WorkbenchError.exit_status`). trec_eval's 7 (no topic with both results and
judgements) is not reached: 10.0 stops with 4 at the first judged topic the run lacks, and the drop-in, which
skips such topics as 9.x does, stops with 4 when none is left."""


@contextmanager
def _exit_status(status: int) -> Iterator[None]:
    """Errors raised inside carry ``status`` (trec_eval's for this phase) unless they carry their own; a
    duplicate document is trec_eval's 4 wherever it is found (trec_eval finds it when it calculates)."""
    try:
        yield
    except WorkbenchError as error:
        if "exit_status" not in vars(error):
            error.exit_status = 4 if isinstance(error, TrecDuplicateError) else status
        raise


# --------------------------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation options: ``-l``, ``-M``, ``-J``, ``-c``, ``-N``, ``-R`` (the relevance file's
    format, one of :data:`REL_FORMATS`), and the workbench's ``--score-precision`` (``float32``: scores compared
    as trec_eval 9.x compares them)."""

    rel: int = 1
    max_docs: int | None = None
    judged_only: bool = False
    complete: bool = False
    num_docs: int = 0
    score_precision: str = "float64"
    rel_format: str = "qrels"


REL_FORMATS = {"qrels": "qrels", "prefs": "prefs", "qrels_prefs": "prefs", "qrels_jg": "qrels_jg"}
"""trec_eval's ``-R`` formats (formats.c), each with what its measures read (:attr:`TrecMeasure.reads`)."""


# -------------------------------------------------------------------------------------------- measures
@dataclass(frozen=True)
class TrecMeasure(TrecEvalName):
    """One of trec_eval's measures as trec_eval prints it: how its declaration names, reads and prints it
    (:class:`~workbench.metrics.registry.TrecEvalName`: its name, ``kind``, ``default`` parameters, ``groups``...)
    and the declaration itself (``declaration``, :mod:`workbench.metrics.ranking.measures`; None for ``runid``,
    the run's tag, which is no measure)."""

    declaration: MeasureSpec | None = None

    @property
    def spec(self) -> MeasureSpec:
        """The declared measure trec_eval's name denotes; ``LookupError`` for ``runid``."""
        if self.declaration is None:
            raise LookupError(f"trec_eval's {self.name} is the run's tag, not a declared measure")
        return self.declaration

    @property
    def reads(self) -> str:
        """What its values are computed from: ``qrels`` (a gain table), ``prefs``, ``qrels_jg``, or ``any``."""
        if self.summary in ("runid", "count"):
            return "any"
        return {"organizations": "qrels", "preferences": "prefs", "judgement groups": "qrels_jg"}[self.spec.reads]

    @property
    def aggregate(self) -> str:
        return self.summary or self.spec.aggregate


ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
         "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
         "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success",
         "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
         "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg",
         "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
         "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap",
         "rbp", "rbp_resid", "unj")
"""trec_eval 10.0's printing order (its ``te_trec_measures`` table, measures.c): a measure declared with a
trec_eval name not here prints after these, in declaration order."""
_RUNID = TrecMeasure("runid", groups=TREC_EVAL_GROUPS, summary="runid", per_topic=False)


def _generated() -> tuple[TrecMeasure, ...]:
    """The drop-in's measures, generated from the declarations' trec_eval names
    (:attr:`~workbench.metrics.registry.MeasureSpec.trec_eval`), with ``runid``, in trec_eval's order."""
    declared = [TrecMeasure(**vars(form), declaration=spec) for spec in specs() for form in spec.trec_eval]
    position = {name: i for i, name in enumerate(ORDER)}
    return tuple(sorted([_RUNID, *declared], key=lambda measure: position.get(measure.name, len(ORDER))))


MEASURES: tuple[TrecMeasure, ...] = _generated()
"""trec_eval's measures in its printing order, each with its declaration."""
_BY_NAME = {m.name: m for m in MEASURES}
NICKNAMES = {group: tuple(m.name for m in MEASURES if group in m.groups) for group in TREC_EVAL_GROUPS}
"""trec_eval's nicknames (``-m official``, ...), each the measures whose declarations put them in its group."""


# -------------------------------------------------------------------------------- -m and its parameters
def _split(text: str) -> list[bytes]:
    return os.fsencode(text).split(b",")


def _typed(name: str, text: str | None) -> str:
    """``-m name.text`` as typed, for a message: control characters escaped, so that it stays one line, and
    cut after 60 characters."""
    if text is None:
        return f"-m {name}"
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return f"-m {name}.{shown if len(shown) <= 60 else shown[:59] + '…'}"


def _finite(measure: TrecMeasure, text: str, piece: bytes) -> float:
    """A double parameter as C's ``atof`` reads it, refused unless finite: trec_eval computes with ``inf`` and
    ``nan`` (and casts them to integers where C leaves the result undefined), the workbench says so instead."""
    value = atof(piece)
    if not math.isfinite(value):
        raise TrecEvalError(f"{_typed(measure.name, text)}: {excerpt(piece)} reads as {value}; the workbench "
                            "takes finite numbers only (trec_eval's result would be undefined)")
    return value


def _parameters(measure: TrecMeasure, text: str | None):
    """(parameter values, printed name or names) of a measure given trec_eval's ``-m name.PARAMS`` text
    (``meas_init.c``: cutoffs sorted, unique and positive; pairs ``name=value``). Every double parameter must
    be finite (:func:`_finite`); printed names carry the text's bytes, one character per byte, as trec_eval
    prints them."""
    kind = measure.kind
    if kind in ("plain", "long"):
        return (), [measure.name]
    if kind == "cut_long":
        values = sorted(atol(v) for v in _split(text)) if text is not None else list(measure.default)
        if values[0] <= 0:
            raise TrecEvalError(f"{_typed(measure.name, text)}: a cutoff is not positive (trec_eval: Negative "
                                "cutoff detected)")
        if len(set(values)) < len(values):
            raise TrecEvalError(f"{_typed(measure.name, text)}: duplicate cutoffs")
        return tuple(values), [f"{measure.name}_{v}" for v in values]
    if kind == "cut_double":
        values = sorted(_finite(measure, text, v) for v in _split(text)) if text is not None else list(measure.default)
        if len(set(values)) < len(values):
            raise TrecEvalError(f"{_typed(measure.name, text)}: duplicate cutoffs")
        return tuple(values), [f"{measure.name}_{v:3.2f}" for v in values]
    name = measure.name if text is None else f"{measure.name}_{os.fsencode(text).decode('latin-1')}"
    if kind == "params":
        coefficients = tuple(_finite(measure, text, v) for v in _split(text)) if text is not None else \
            measure.default
        if measure.count is not None and len(coefficients) != measure.count:
            raise TrecEvalError(f"{_typed(measure.name, text)}: {measure.count} coefficients needed, got "
                                f"{len(coefficients)} (trec_eval: improper number of coefficients)", status=4)
        if measure.cast == "long" and not -(2.0 ** 63) <= coefficients[0] < 2.0 ** 63:  # C's (long) of it
            raise TrecEvalError(f"{_typed(measure.name, text)}: the {measure.takes[0]} {coefficients[0]:g} is past "
                                "a C long (trec_eval's result would be undefined)")
        return coefficients, [name]
    if text is None:
        return (), [name]
    last = ","
    for char in text:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise TrecEvalError(f"{_typed(measure.name, text)}: malformed pair parameters (write name=value,...)")
    pairs = []
    for item in text.split(","):
        key, _, value = item.partition("=")
        pairs.append((key, _finite(measure, text, os.fsencode(value))))
    return tuple(pairs), [name]


def select_measures(requests: Sequence[str]) -> list[tuple[TrecMeasure, object, list[str]]]:
    """The measures trec_eval computes for these ``-m`` arguments, in its order, with their parameters (the
    first ``-m name.PARAMS`` of a measure counts) and printed names; none given means ``official``."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for request in requests or ["official"]:
        name, dot, text = request.partition(".")
        if dot:
            if not text:
                raise TrecEvalError(f"-m {request}: improper measure parameter (nothing after the dot)", status=1)
            params.setdefault(name, text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in _BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(f"illegal measure {name!r}; the workbench's trec_eval knows "
                                f"{', '.join([*NICKNAMES, *_BY_NAME])}", status=1)
    return [(m, *_parameters(m, params.get(m.name))) for m in MEASURES if m.name in marked]


# ------------------------------------------------------------------------------------------ evaluation
@dataclass
class Evaluation:
    """What trec_eval prints: per-topic values (``topics``, then one list per printed name) and summaries
    (``totals``: a summary trec_eval computes otherwise than from the printed values, by printed name)."""

    runid: str
    topics: tuple[str, ...]
    rows: list[tuple[TrecMeasure, list[str], list]]  # measure, printed names, per-name per-topic values
    totals: dict[str, float] = field(default_factory=dict)
    zscored: bool = False  # -Z: the values are z-scores (printed with a Z before the name)


def _shown(topics: Sequence[str]) -> str:
    return ", ".join(topics[:5]) + (", …" if len(topics) > 5 else "")


def _format(rel_format: str) -> str:
    """What the measures read with ``-R rel_format`` (trec_eval: "Illegal rel_format")."""
    reads = REL_FORMATS.get(rel_format)
    if reads is None:
        raise TrecEvalError(f"-R {rel_format}: unknown relevance format (trec_eval: Illegal rel_format); give one "
                            f"of {', '.join(REL_FORMATS)}")
    return reads


def _check_fit(selected, rel_format: str) -> None:
    """Refuse a measure ``-R rel_format`` cannot give (trec_eval: "Can't calculate measure", status 4, once
    its files are read)."""
    reads = REL_FORMATS[rel_format]
    unfit = [m.name for m, _, _ in selected if m.reads not in ("any", reads)]
    if unfit:
        needs = {"qrels": "-R qrels", "prefs": "-R prefs or -R qrels_prefs", "qrels_jg": "-R qrels_jg"}
        wanted = needs[_BY_NAME[unfit[0]].reads]
        raise TrecEvalError(f"-R {rel_format} cannot give {', '.join(unfit)} ({unfit[0]} needs {wanted}; "
                            f"trec_eval: Can't calculate measure '{unfit[0]}')", status=4)


def evaluate(qrels_path: str | os.PathLike, run_path: str | os.PathLike, requests: Sequence[str] = (),
             options: Options = Options(), zscores_path: str | os.PathLike | None = None) -> Evaluation:
    """Read, rank and score as trec_eval does (``zscores_path``: ``-Z``); see the module docstring. Errors carry
    trec_eval 10.0's exit status (:data:`EXIT_STATUSES`) and come in its order: a measure's name, the files, the
    -Z file, the measures' parameters, then what cannot be calculated."""
    qrels_path, run_path = file_path(qrels_path, "qrels_path"), file_path(run_path, "run_path")
    selected, reads, judged, results, zscore_table = _opening(qrels_path, run_path, requests, options, zscores_path)
    with _exit_status(4):
        topics = _topics(judged, results, options)
        _check_fit(selected, options.rel_format)
        runid, handed = results.runid or "", [results]
        del results
        source, totals = _source(judged, handed, topics, reads, options)
        rows = [(measure, names, columns)
                for (measure, _, names), columns in zip(selected, _scored(selected, source, options, topics),
                                                        strict=True)]
    if zscore_table is not None:
        rows = [(measure, names, _zscored(measure, names, columns, topics, zscore_table))
                for measure, names, columns in rows]
    return Evaluation(runid, tuple(topics), rows, totals, zscored=zscore_table is not None)


@dataclass(frozen=True)
class _BlockValues:
    """What one block of a streamed run gives: its topics as read, its run id and last line (in the run file),
    the topics it evaluates, each selected measure's columns over them, and the summaries computed otherwise."""

    names: tuple[str, ...]
    runid: str
    last: int
    topics: tuple[str, ...] = ()
    columns: list = field(default_factory=list)
    totals: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class _RunTopics:
    """A streamed run's path and topics, as :func:`_topics` reads them of a run read whole."""

    path: str
    names: tuple[str, ...]

    @property
    def topics(self) -> _RunTopics:
        return self


def _streamed(qrels_path: str | os.PathLike, run_path: str | os.PathLike, requests: Sequence[str],
              options: Options, zscores_path: str | os.PathLike | None, block_bytes: int,
              progress: bool) -> Evaluation:
    """:func:`evaluate` of a run read a block of whole topics at a time (:func:`workbench.data.streamed.stream_run`;
    ``-R qrels`` only): each block read, ranked, joined and scored as a whole run is, the columns joined in
    trec_eval's topic order and the summaries computed from them, so that what prints is the same to the byte;
    -c's judged topics the run lacks are scored with the last block."""
    from workbench.data.streamed import stream_run

    qrels_path, run_path = file_path(qrels_path, "qrels_path"), file_path(run_path, "run_path")
    selected, reads, judged, _, zscore_table = _opening(qrels_path, None, requests, options, zscores_path)
    _, judged_topics = _judged_topics(judged)
    judged_set = set(judged_topics)

    def read(block) -> tuple[tuple[str, ...], _BlockValues]:
        with _exit_status(2):
            results = block.lines("latin-1", systems=False)
        names, runid, last = results.topics.names, results.runid or "", block.numbers(int(results.numbers[-1]))
        topics = [t for t in sorted(names) if t in judged_set]
        if block.last and options.complete:  # the judged topics no block has: on trec_eval's placeholder
            seen = set(block.earlier).union(names)
            topics = sorted({*topics, *(t for t in judged_topics if t not in seen)})
        if not topics:
            return names, _BlockValues(names, runid, last)
        with _exit_status(4):
            source, totals = _source(judged, [results], topics, reads, options)
            columns = _scored(selected, source, options, topics)
        return names, _BlockValues(names, runid, last, tuple(topics), columns, totals)

    with _exit_status(4):
        _check_fit(selected, options.rel_format)
    streamed = stream_run(run_path, read, block_bytes=block_bytes, progress=progress)
    for message, category in streamed.notes:
        warn(message, category)
    parts = streamed.results
    with _exit_status(4):
        topics = _topics(judged, _RunTopics(str(run_path), tuple(n for part in parts for n in part.names)), options)
    evaluated = [part for part in parts if part.topics]
    joined = [t for part in evaluated for t in part.topics]
    order = sorted(range(len(joined)), key=joined.__getitem__)
    rows = []
    for m, (measure, _, names) in enumerate(selected):
        count = len(evaluated[0].columns[m]) if evaluated else 0  # runid and num_q have none
        columns = [[value for part in evaluated for value in part.columns[m][c]] for c in range(count)]
        for part in evaluated:  # each measure's values held once at a time: the blocks' go as they are joined
            part.columns[m] = []
        rows.append((measure, names, [[column[i] for i in order] for column in columns]))
        del columns
    if zscore_table is not None:
        rows = [(measure, names, _zscored(measure, names, columns, topics, zscore_table))
                for measure, names, columns in rows]
    totals = next((part.totals for part in reversed(evaluated) if part.totals), {})
    runid = max(parts, key=lambda part: part.last).runid
    return Evaluation(runid, tuple(topics), rows, totals, zscored=zscore_table is not None)


def _check_options(options: Options) -> None:
    """Refuse what the workbench takes less of than trec_eval (status 2, as a measure it cannot initialise)."""
    if options.rel < 1:
        raise TrecEvalError(f"-l {options.rel}: the workbench's trec_eval needs a relevance level ≥ 1")
    try:  # -M's domain is every ranking door's (MAX_DOCS): the validator's one refusal, trec_eval's status
        check(options.max_docs, MAX_DOCS, "-M", "trec_eval")
    except ParameterError as error:
        raise TrecEvalError(str(error), parameter=error.parameter, function=error.function, value=error.value,
                            domain=error.domain) from None


def _opening(qrels_path: str | os.PathLike, run_path: str | os.PathLike | None, requests: Sequence[str],
             options: Options, zscores_path: str | os.PathLike | None) -> tuple:
    """The selected measures, what they read, the judgements (:func:`_judged`), the run's lines (None without
    ``run_path``: a streamed run is read later) and the -Z table, read in trec_eval's order: a measure's name
    (status 1), the files (2), the -Z file (255), the measures' parameters (2)."""
    zscores_path = None if zscores_path is None else file_path(zscores_path, "zscores_path")
    refused: TrecEvalError | None = None
    try:  # trec_eval marks the measures as it reads its options, and initialises them after reading the files
        selected = select_measures(requests)
        _check_options(options)
    except TrecEvalError as error:
        if error.exit_status == 1:
            raise
        selected, refused = [], error
    with _exit_status(2):
        reads = _format(options.rel_format)
        judged, results = _judged_and_run(qrels_path, run_path, options.rel_format)
    with _exit_status(255):  # trec_eval prints the run's last tag: its lines are read without the others
        zscore_table = read_zscores(zscores_path) if zscores_path is not None else None
    if refused is not None:
        raise refused
    return selected, reads, judged, results, zscore_table


def _judged_and_run(qrels_path, run_path, rel_format: str) -> tuple[object, TrecLines | None]:
    """The judgements, read as ``-R rel_format`` says (the qrels' path and its
    :class:`~workbench.data.trec.ranked.Judgements`, or preferences, or judgement groups), and the run's lines
    (None without ``run_path``). A qrels file and the run are read at once on two threads (both are Arrow's and
    numpy's work, which lets go of the interpreter), their notes warned and their errors raised in trec_eval's
    order: the qrels' first, then the run's."""
    reads = REL_FORMATS[rel_format]
    if reads == "prefs":
        judged: object = read_preferences(qrels_path, rel_format)
    elif reads == "qrels_jg":
        judged = read_judgement_groups(qrels_path)
    read = lines_at_once([(qrels_path, "qrels", _LATIN_1)] * (reads == "qrels") +
                         [(run_path, "run", {**_LATIN_1, "systems": False})] * (run_path is not None))
    if reads == "qrels":
        qrels = read.pop(0)()  # one character per byte: bytes printed back
        judged = qrels.path, judgements(qrels.topics, qrels.documents, qrels.values.astype(float),
                                        locate=qrels.located)
        del qrels  # the lines as read go once judged, not with the judgements (240,000: about 7 MB)
    return judged, read.pop(0)() if read else None


_LATIN_1 = {"encoding": "latin-1"}  # trec_eval's files read a character per byte


def _judged_topics(judged) -> tuple[str, list[str]]:
    """The judgements' file and topics, in trec_eval's order (strcmp, as latin-1 sorts)."""
    if isinstance(judged, tuple):
        path, gold = judged
        return path, sorted(gold.topics)
    return judged.path, judged.topic_names()


def _topics(judged, results, options: Options) -> list[str]:
    """The topics trec_eval evaluates: the judged ones the run has (every judged one with ``-c``), with notes on
    the others; none is an error."""
    rel_path, judged_topics = _judged_topics(judged)
    in_run = set(results.topics.names)
    judged_set = set(judged_topics)
    extra = [t for t in results.topics.names if t not in judged_set]
    if extra:
        warn(f"{results.path}: {len(extra)} run topic(s) have no judgements in {rel_path} and are "
             f"ignored, as trec_eval ignores them ({_shown(extra)})", WorkbenchWarning)
    lacking = [t for t in judged_topics if t not in in_run]
    if lacking and not options.complete:
        warn(f"{results.path}: {len(lacking)} qrels topic(s) have no results and are skipped, as trec_eval "
             f"9.x skips them ({_shown(lacking)}); trec_eval 10.0 stops here with status 4 (\"result qid "
             f"... not found in qrels\"), and -c scores them on its empty placeholder ranking",
             WorkbenchWarning)
    topics = judged_topics if options.complete else [t for t in judged_topics if t in in_run]
    if not topics:
        raise TrecEvalError("no topic has both results and judgements (trec_eval 10.0: result qid ... not found in "
                            "qrels; 9.x: No queries with both results and relevance info)", status=4)
    return topics


def _source(judged, handed: list, topics: list[str], reads: str, options: Options) -> tuple[object, dict[str, float]]:
    """What the measures read (a gain table, preference counts or judgement-group tables) and the summaries
    trec_eval computes otherwise than from the printed values. The run's lines are ``handed`` over (a list holding
    them, emptied here), so that their memory goes once they are ranked."""
    totals: dict[str, float] = {}
    if reads == "prefs":
        return count_topics(judged, handed.pop(), topics, max_docs=options.max_docs,
                            score_precision=options.score_precision, placeholders=options.complete), totals
    results = handed.pop()
    run = rank_runs(None, results.topics, results.documents, results.values, max_docs=options.max_docs,
                    score_precision=options.score_precision, locate=results.located)[""]
    entries = len(results.values)
    del results  # the lines as read are ranked now: their memory goes before the table's is taken,
    release_freed(entries)  # and their pages back before the join takes its own (as read_trec_run's)
    if reads == "qrels_jg":
        groups = group_table(judged, run, topics, placeholders=options.complete)
        return (replace(groups, table=groups.table.judged_only()) if options.judged_only else groups), totals
    path, gold = judged
    negative = 0  # counted topic by topic (2,000 topics: 8 ms) only where some grade is negative or a topic
    if gold.refused or (gold.grades < 0).any():  # repeats a document (span raises its error, as before)
        negative = sum(int((gold.grades[gold.span(t)] < 0).sum()) for t in topics)
    if negative:
        warn(f"{path}: {negative} judgement(s) have a negative grade; as trec_eval, they count "
             "as pooled but unjudged (infAP, bpref, unj, relstring '.'), not as judged "
             "non-relevant", WorkbenchWarning)
    if options.complete:  # trec_eval's num_rel summary counts every judgement graded above 0 in the
        totals["num_rel"] = float((gold.grades > 0).sum())  # qrels, whatever -l says (m_num_rel.c)
    return _Joins(gold, run, _held_order(run.topics, topics), options.complete, options.judged_only), totals


JOINED_BLOCK = 1 << 19
"""Entries of the run joined and scored at a time (:class:`_Joins`): larger than a campaign's blocks
(:data:`~workbench.data.trec.memory.RUN_BLOCK`), since each block pays every selected measure's calls (``-m
all_trec``, 98 values a topic, on 2,000 queries × 1,000 documents, on two threads: the join and scoring 0.24 s wall
and 0.34 CPU-s in blocks of 2^17 entries, 0.16 / 0.28 at 2^19, 0.19 / 0.31 at 2^20)."""


@dataclass(frozen=True)
class _Joins:
    """A ranked run and its judgements, joined a block of whole topics at a time where the block is scored
    (:func:`~workbench.data.engines.run_blocks`, as a campaign's engine joins a run read as arrays): the blocks'
    joins run on two threads beside each other's scoring, where one join of every topic ran alone before the
    scoring (``-m all_trec`` on 2,000 queries × 1,000 documents: 0.12 s of one core), and only two blocks' tables
    are held at once. ``topics``: the rows, in the order the run holds them (:func:`_held_order`)."""

    gold: Any
    run: Any
    topics: list[str]
    placeholders: bool
    judged_only: bool

    def parts(self) -> list[list[str]]:
        """The blocks of topics (:data:`JOINED_BLOCK` entries), each joined and scored by :meth:`tables`."""
        return run_blocks(self.run, self.topics, JOINED_BLOCK)

    def tables(self, topics: list[str]) -> Iterator[Any]:
        """The gain table of ``topics`` (``-J``: of their judged documents), in parts
        (:func:`~workbench.data.engines.row_parts`)."""
        table = gain_table(self.gold, self.run, topics, placeholders=self.placeholders)
        yield from row_parts(table.judged_only() if self.judged_only else table)


def _held_order(held: Sequence[str], topics: list[str]) -> list[str]:
    """``topics`` in the order the run holds them, those it lacks (``-c``'s placeholders) last: the join then lays
    each ranking into its row of the gain table as it is, where trec_eval's order (``strcmp``) would copy the
    whole table into a second matrix while the first is held (``-m all_trec`` on 2,000 queries × 1,000 documents:
    the peak of the join 146 → 130 MB held, tracemalloc). :func:`_scored` gives the values back in ``topics``' order.

    >>> _held_order(["q2", "q10", "q3"], ["q1", "q10", "q2"])
    ['q2', 'q10', 'q1']
    """
    wanted = set(topics)
    order = [topic for topic in held if topic in wanted]
    found = set(order)
    return order + [topic for topic in topics if topic not in found]


def bound(measure: TrecMeasure, params, options: Options) -> list[Measure]:
    """The declared measure behind each value ``measure`` prints, its parameters set as trec_eval sets them: one
    per cutoff, the ``params`` list on the parameters it ``takes``, ``pairs`` naming a parameter set it and those
    whose name is an integer forming the ``rel=gain`` mapping (``gain_init.c``), and the options ``-l`` (``rel``)
    and ``-N`` (``num_docs``) set wherever the measure has them. Values are bound as trec_eval reads them, outside
    the workbench's domains too (:func:`~workbench.metrics.registry.bind`)."""
    spec = measure.spec
    settings = {**dict(measure.defaults), "rel": options.rel, "num_docs": options.num_docs}
    base = {key: value for key, value in settings.items() if spec.params.get(key, None) is not None}
    if measure.kind in ("cut_long", "cut_double"):
        return [bind(spec, {**base, str(spec.cutoff): value}) for value in params]
    if measure.kind == "params":
        takes = measure.takes
        values = dict(zip(takes, params, strict=False)) if len(takes) > 1 or not isinstance(
            spec.params[takes[0]], tuple) else {takes[0]: tuple(params)}
        return [bind(spec, {**base, **values})]
    if measure.kind == "pairs":
        named = {key: value for key, value in params if key in spec.params}
        gains = tuple((float(atol(os.fsencode(key))), value) for key, value in params  # gain_init.c's valid_int
                      if re.fullmatch(r"[+-]?[0-9]+", key))
        return [bind(spec, {**base, **named, **({"gains": gains} if gains else {})})]  # in the order typed
    return [bind(spec, base)]


def _scored(selected, source, options: Options, topics: Sequence[str]) -> list[list[list]]:
    """Each selected measure's columns (a list of per-topic values per printed name), scored by the engine each
    declaration names (:func:`~workbench.data.engines.table_values`: its ``values`` on the table read here). A ranked
    run and its judgements (:class:`_Joins`) are joined and scored a block of whole topics at a time, the blocks
    shared among two threads where there are two cores; any other large table is scored in parts of its topics
    (:func:`~workbench.data.engines.row_parts`) on the threads. The parts' values are joined: numpy lets go of the
    interpreter in its loops; a part (and the values it shares among measures) goes once scored."""
    work = [[] if measure.summary in ("runid", "count") else bound(measure, params, options)
            for measure, params, _ in selected]

    def score(part) -> list[list]:
        return [[table_values(part, each, _without_judged_only(each)) for each in measures] for measures in work]

    if isinstance(source, _Joins):
        # a block joined and scored on one thread, part after part; the first block's error raised, which is the
        # one join of every topic raises first (the run's topics in its order; the judgements' repeats raise earlier)
        blocks = in_threads(lambda topics: [score(part) for part in source.tables(topics)], source.parts())
        scored = [part for parts in blocks for part in parts]
    else:
        scored = in_threads(score, row_parts(source))
    row = {topic: i for i, topic in enumerate(getattr(source, "topics", topics))}
    order = None if list(row) == list(topics) else np.array([row[topic] for topic in topics], dtype=np.int64)
    return [[_joined([part[m][c] for part in scored], order) for c in range(len(scored[0][m]))]  # rows: _held_order
            for m in range(len(selected))]


def _joined(parts: list, order: np.ndarray | None) -> list:
    """One printed name's values over the parts of the table, in ``order`` (the table's rows; None: as they are),
    as Python values: arrays of one type joined and reordered by numpy (``-m all_trec``'s 98 columns of 2,000
    topics: 10 → 2 ms), others (a text measure's lists) value by value.

    >>> _joined([np.array([0.5, 1.0]), np.array([2.0])], np.array([2, 0, 1])), _joined([["a"], ["b"]], None)
    ([2.0, 0.5, 1.0], ['a', 'b'])
    """
    if all(isinstance(part, np.ndarray) for part in parts) and len({part.dtype for part in parts}) == 1:
        joined = np.concatenate(parts)
        return (joined if order is None else joined[order]).tolist()
    values = [value for part in parts for value in _values(part)]
    return values if order is None else [values[i] for i in order]


def _without_judged_only(measure: Measure) -> dict:
    """The parameters a kernel takes: ``-J`` is applied to the table once, not by each measure."""
    return {key: value for key, value in measure.bound if key != "judged_only"}


def _values(column) -> list:
    return list(np.asarray(column).tolist()) if not isinstance(column, list) else list(column)


def _zscored(measure: TrecMeasure, names: list[str], columns: list, topics: Sequence[str], table) -> list:
    """``-Z``: each topic's values as z-scores (convert_zscores.c); a geometric mean's values are first the
    logarithms trec_eval keeps per topic (text and counts printed as they are stay)."""
    if measure.aggregate in ("runid", "count", "none"):
        return columns
    means, stddevs, found = table.statistics(topics, names)
    out = []
    for j, column in enumerate(columns):
        values = ([math.log(max(value, MIN_GEO_MEAN)) for value in column] if measure.aggregate == "gmean"
                  else column)
        out.append(zscores(np.array(values, dtype=float), means[:, j], stddevs[:, j], found[:, j]).tolist())
    return out


# ---------------------------------------------------------------------------------------------- output
def _number(value: float) -> str:
    return "  -nan" if math.isnan(value) else f"{value:6.4f}"


def _literal(name: str) -> str:
    """A name as a %-format writes it back."""
    return name.replace("%", "%%")


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}\n"


def _summary(measure: TrecMeasure, column: list[float], zscored: bool) -> float:
    """The topics' values combined (in trec_eval's order already); under ``-Z`` a geometric mean's values are
    z-scores of logarithms, combined as trec_eval combines them (``exp`` of their mean)."""
    if zscored and measure.aggregate == "gmean":
        return math.exp(summarize(column, "mean"))
    return float(summarize(column, measure.aggregate))  # a float already: one column


def render(evaluation: Evaluation, per_topic: bool = False, summary: bool = True) -> str:
    """trec_eval's output: with ``per_topic`` (``-q``) every topic's values first, then the summary; z-scores
    (``-Z``) as ``Z`` and the name, every value with 4 decimals (``meas_print_single.c``,
    ``meas_print_final.c``)."""
    z = "Z" if evaluation.zscored else ""
    out: list[str] = []
    if per_topic:  # one topic's lines at a time, each a format of all its values (formatted by C's loop)
        printed: list[tuple[str, list]] = []  # each printed name's line, the topic and value as formats; its values
        for measure, names, columns in evaluation.rows:
            if not measure.per_topic:
                continue
            for name, column in zip(names, columns, strict=True):
                head = _literal(f"{name:<22}") + "\t%s\t"  # the topic, then the value
                if measure.spec.returns == "text":
                    printed.append((f"{head}'%s'\n", column))
                elif measure.kind == "long" and not z:
                    printed.append((f"{head}%s\n", [str(int(value)) for value in column]))
                elif any(map(math.isnan, column)):  # C's -nan, which Python's formats do not write
                    printed.append((f"{z}{head}%s\n", [_number(value) for value in column]))
                else:
                    printed.append((f"{z}{head}%6.4f\n", column))
        lines = "".join(line for line, _ in printed)
        topics = evaluation.topics
        out.extend(lines % values for values in zip(*[part for _, column in printed for part in (topics, column)],
                                                    strict=True))
    if summary:
        count = len(evaluation.topics)
        for measure, names, columns in evaluation.rows:
            if measure.aggregate == "runid":
                out.append(_line("runid", "all", evaluation.runid))
            elif measure.aggregate == "count":
                out.append(f"{z}{names[0]:<22}\tall\t{_number(count) if z else count}\n")
            elif measure.aggregate != "none":
                for name, column in zip(names, columns, strict=True):
                    value = evaluation.totals.get(name, _summary(measure, column, evaluation.zscored))
                    text = str(int(value)) if measure.kind == "long" and not z else _number(value)
                    out.append(f"{z}{name:<22}\tall\t{text}\n")
    return "".join(out)


def _streaming(stream: bool | None, run_path: str, options: Options) -> bool:
    """Whether the run is streamed: ``--stream``, or by its size (:func:`workbench.data.streamed.should_stream`)
    unless ``--no-stream``; only ``-R qrels`` runs from a file are (``--stream`` refuses the others)."""
    from workbench.data.streamed import should_stream

    if stream is False:
        return False
    if stream is None:
        return REL_FORMATS.get(options.rel_format) == "qrels" and should_stream(run_path)
    if REL_FORMATS.get(options.rel_format) != "qrels" or run_path == "-":
        raise TrecEvalError("--stream reads a run file against -R qrels (not standard input, not preferences or "
                            "judgement groups)", status=1)
    return True


# ------------------------------------------------------------------------------------------ command line
USAGE = ("usage: python -m workbench trec_eval [-h] [-v] [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] "
         "[-R qrels|prefs|qrels_prefs|qrels_jg] [-Z ZSCORES] [--score-precision float64|float32] "
         "[--stream|--no-stream] [--stream-block BYTES] [-m MEASURE[.PARAMS]]... REL_INFO RUN")
_LONG = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
         "nosummary", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=",
         "Results_format=", "Output_old_results_format", "Zscore=", "score-precision=", "stream", "no-stream",
         "stream-block="]


def main(argv: Sequence[str]) -> int:
    """Parse trec_eval's options (``getopt_long``, arguments may be glued: ``-mP.5``, ``-M100``), evaluate
    and print to standard output. Bad input raises a :class:`~workbench.errors.WorkbenchError` carrying
    trec_eval's exit status (:data:`EXIT_STATUSES`). ``-v`` says the version on standard error, ``-T`` takes
    trec_eval's one results format (``trec_results``), ``-o`` is ignored as trec_eval ignores it; ``-D``
    (debugging output) is not taken."""
    try:
        found, paths = getopt.gnu_getopt(list(argv), "hvqm:cl:nJN:M:R:T:oZ:", _LONG)
    except getopt.GetoptError as error:
        raise TrecEvalError(f"{error} ({USAGE})", status=1) from None
    requests: list[str] = []
    per_topic, summary = False, True
    settings: dict = {}
    zscores_path = None
    stream: bool | None = None
    block_bytes: int | None = None
    for flag, value in found:
        if flag in ("-h", "--help"):
            emit(f"{USAGE}\n{__doc__}")
            return 0
        if flag in ("-v", "--version"):
            say(f"trec_eval version 10.0 (the drop-in of workbench {__version__})")
            return 0
        if flag in ("-o", "--Output_old_results_format"):
            continue  # obsolete in trec_eval, which ignores it
        if flag in ("-T", "--Results_format"):
            if value != "trec_results":
                raise TrecEvalError(f"-T {value}: trec_eval reads one results format, trec_results (trec_eval: "
                                    "Illegal retrieval results format)")
        elif flag in ("-q", "--query_eval_wanted"):
            per_topic = True
        elif flag in ("-m", "--measure"):
            requests.append(value)
        elif flag in ("-c", "--complete_rel_info_wanted"):
            settings["complete"] = True
        elif flag in ("-n", "--nosummary"):
            summary = False
        elif flag in ("-J", "--Judged_docs_only"):
            settings["judged_only"] = True
        elif flag in ("-R", "--Rel_info_format"):
            settings["rel_format"] = value
        elif flag in ("-Z", "--Zscore"):
            zscores_path = value
        elif flag in ("--stream", "--no-stream"):
            stream = flag == "--stream"
        elif flag == "--stream-block":
            block_bytes = atol(os.fsencode(value))
            if block_bytes < 1:
                raise TrecEvalError(f"--stream-block {value}: give a number of bytes ≥ 1", status=1)
        elif flag == "--score-precision":
            if value not in SCORE_PRECISIONS:
                raise TrecEvalError(f"--score-precision {value}: give one of {', '.join(SCORE_PRECISIONS)}",
                                    status=1)
            settings["score_precision"] = value
        else:
            key = {"-l": "rel", "--level_for_rel": "rel", "-N": "num_docs",
                   "--Number_docs_in_coll": "num_docs", "-M": "max_docs",
                   "--Max_retrieved_per_topic": "max_docs"}[flag]
            settings[key] = atol(os.fsencode(value))  # the bytes typed, as C's argv holds them
    if len(paths) != 2:
        raise TrecEvalError(f"expected the relevance file and the run file, got {len(paths)} paths ({USAGE})",
                            status=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        options = Options(**settings)
        if _streaming(stream, paths[1], options):
            from workbench.data.streamed import BLOCK_BYTES

            evaluation = _streamed(paths[0], paths[1], requests, options, zscores_path, block_bytes or BLOCK_BYTES,
                                   progress=sys.stderr is not None and sys.stderr.isatty())
        else:
            evaluation = evaluate(paths[0], paths[1], requests, options, zscores_path)
    for warning in caught:
        say(f"workbench trec_eval: note: {warning.message}")
    printed = render(evaluation, per_topic=per_topic, summary=summary)
    emit(printed.encode("latin-1"))  # the files' own bytes back (ids were read one character per byte)
    return 0
