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
:mod:`workbench.metrics.ranking`; this module holds what is trec_eval's own: its options, :data:`MEASURES` (its
measures in its printing order, with its parameter syntax) and :func:`render` (``%-22s\\t%s\\t%6.4f``).
``--score-precision float32`` compares scores as 32-bit floats, as trec_eval 9.x, pytrec_eval and ir_measures do.

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
lines) gets its result and a note (:class:`~workbench.errors.WorkbenchWarning`). Where trec_eval reads past its
own arrays (a z-score look-up past its table, a ``prefs_avgjg_Rnonrel`` recount of a negative level), its
value is undefined: the note says so and the workbench gives a defined one.
"""

from __future__ import annotations

import getopt
import math
import os
import re
import warnings
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from workbench.data.trec.join import gain_table
from workbench.data.trec.judgement_groups import group_table, read_judgement_groups
from workbench.data.trec.lines import read_lines
from workbench.data.trec.numbers import atof, atol
from workbench.data.trec.preferences import count_topics, read_preferences
from workbench.data.trec.ranked import judgements, rank_runs
from workbench.data.trec.zscores import read_zscores
from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.metrics.ranking import judgement_groups as jg
from workbench.metrics.ranking import kernels as rk
from workbench.metrics.ranking import preferences as pm
from workbench.metrics.ranking import trec as tm
from workbench.metrics.ranking.table import SCORE_PRECISIONS, GainTable, discounted, row_sums
from workbench.metrics.ranking.zscores import zscores
from workbench.metrics.summary import MIN_GEO_MEAN, summarize
from workbench.shell import emit, say


class TrecEvalError(WorkbenchError):
    """A trec_eval command line trec_eval itself refuses (illegal measure, bad parameters, no topics...)."""


# --------------------------------------------------------------------------------------------- options
@dataclass(frozen=True)
class Options:
    """trec_eval's evaluation options: ``-l``, ``-M``, ``-J``, ``-c``, ``-N``, ``-R`` (the relevance file's
    format, one of :data:`REL_FORMATS`), and the workbench's ``--score-precision`` (``float32``: scores compared
    as trec_eval 9.x compares them)."""

    rel_level: int = 1
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
class TrecMeasure:
    """One of trec_eval's measures: how its parameters read (``kind``), its defaults, how its per-topic
    values are computed (one column per printed value), how topics combine (``summary``: an aggregate of
    :func:`~workbench.metrics.summary.summarize`, or ``runid``, ``count`` and ``none`` for what is printed as is),
    and what it reads (``reads``): a :class:`~workbench.metrics.ranking.table.GainTable` of qrels (``qrels``),
    :class:`~workbench.data.trec.preferences.PreferenceTopics` (``prefs``, with ``-R prefs`` or ``-R
    qrels_prefs``), a :class:`~workbench.data.trec.judgement_groups.GroupTable` (``qrels_jg``), or any of them
    (``any``: only their ``topics``)."""

    name: str
    kind: str  # plain | long | cut_long | cut_double | params | pairs
    compute: Callable[[object, object, Options], list]
    default: tuple = ()
    summary: str = "mean"
    per_topic: bool = True
    reads: str = "qrels"


def _gains(pairs) -> dict[float, float]:
    """trec_eval's ``rel_level=gain`` pairs whose name is an integer (``gain_init.c``)."""
    return {float(int(k)): v for k, v in pairs if re.fullmatch(r"[+-]?\d+", k)}


def _pair(pairs, key: str, default: float) -> float:
    return next((v for k, v in reversed(pairs) if k == key), default)


def _utility(table: GainTable, params, options: Options) -> list[np.ndarray]:
    return [tm.utility(table, *params, num_docs=options.num_docs, rel_level=options.rel_level)]


def _dcg(table: GainTable, pairs, ideal: bool) -> list[np.ndarray]:
    values, best = tm.gain_tables(table, _gains(pairs))
    chosen = best if ideal else values
    return [row_sums(discounted(chosen))]


def _preference(kernel: Callable[[pm.PreferenceCounts], float]) -> TrecMeasure:
    """A ``prefs_*`` measure: ``kernel`` of :mod:`workbench.metrics.ranking.preferences` on each topic's
    counts; the ``num`` counts are summed over topics, as trec_eval sums them."""
    count = "_num_" in kernel.__name__
    return TrecMeasure(kernel.__name__, "long" if count else "plain",
                       lambda t, p, o: [np.array([kernel(c) for c in t.counts], dtype=float)],
                       summary="sum" if count else "mean", reads="prefs")


_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = tuple(i / 10 for i in range(11))
MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "plain", lambda t, p, o: [], summary="runid", per_topic=False, reads="any"),
    TrecMeasure("num_q", "long", lambda t, p, o: [np.ones(len(t.topics))], summary="count", per_topic=False,
                reads="any"),
    TrecMeasure("num_ret", "long", lambda t, p, o: [tm.num_ret(t)], summary="sum"),
    TrecMeasure("num_rel", "long", lambda t, p, o: [tm.num_rel(t, o.rel_level)], summary="sum"),
    TrecMeasure("num_rel_ret", "long", lambda t, p, o: [tm.num_rel_ret(t, o.rel_level)], summary="sum"),
    TrecMeasure("map", "plain", lambda t, p, o: [t.shared(rk.average_precision, None, o.rel_level)]),
    TrecMeasure("gm_map", "plain", lambda t, p, o: [t.shared(rk.average_precision, None, o.rel_level)],
                summary="gmean", per_topic=False),
    TrecMeasure("Rprec", "plain", lambda t, p, o: [rk.r_precision(t, rel=o.rel_level)]),
    TrecMeasure("bpref", "plain", lambda t, p, o: [t.shared(tm.bpref, o.rel_level)]),
    TrecMeasure("recip_rank", "plain", lambda t, p, o: [rk.reciprocal_rank(t, rel=o.rel_level)]),
    TrecMeasure("iprec_at_recall", "cut_double",
                lambda t, p, o: list(t.shared(tm.interpolated_precisions, p, o.rel_level).T), _RECALLS),
    TrecMeasure("P", "cut_long", lambda t, p, o: [rk.precision_at(t, k, o.rel_level) for k in p], _CUTOFFS),
    TrecMeasure("relstring", "params", lambda t, p, o: [tm.relevance_strings(t, int(p[0]))], (10.0,),
                summary="none"),
    TrecMeasure("recall", "cut_long", lambda t, p, o: [tm.recall_at(t, k, o.rel_level) for k in p], _CUTOFFS),
    TrecMeasure("infAP", "plain", lambda t, p, o: [tm.inferred_ap(t, o.rel_level)]),
    TrecMeasure("gm_bpref", "plain", lambda t, p, o: [t.shared(tm.bpref, o.rel_level)], summary="gmean",
                per_topic=False),
    TrecMeasure("Rprec_mult", "cut_double",
                lambda t, p, o: [tm.r_precision_multiple(t, m, o.rel_level) for m in p],
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    TrecMeasure("utility", "params", _utility, (1.0, -1.0, 0.0, 0.0)),
    TrecMeasure("11pt_avg", "params", lambda t, p, o: [tm.eleven_point_average(t, p, o.rel_level)], _RECALLS),
    TrecMeasure("binG", "plain", lambda t, p, o: [tm.binary_g(t, o.rel_level)]),
    TrecMeasure("G", "pairs", lambda t, p, o: [tm.g_measure(t, _gains(p))]),
    TrecMeasure("dcg", "pairs", lambda t, p, o: _dcg(t, p, ideal=False)),
    TrecMeasure("ideal_dcg", "pairs", lambda t, p, o: _dcg(t, p, ideal=True)),
    TrecMeasure("ndcg", "pairs", lambda t, p, o: [rk.ndcg(t, gains=_gains(p))]),
    TrecMeasure("ndcg_rel", "pairs", lambda t, p, o: [tm.ndcg_rel(t, _gains(p))]),
    TrecMeasure("Rndcg", "pairs", lambda t, p, o: [tm.r_ndcg(t, _gains(p), o.rel_level)]),
    TrecMeasure("ndcg_cut", "cut_long", lambda t, p, o: [rk.ndcg(t, k) for k in p], _CUTOFFS),
    TrecMeasure("map_cut", "cut_long", lambda t, p, o: [rk.average_precision(t, k, o.rel_level) for k in p],
                _CUTOFFS),
    TrecMeasure("relative_P", "cut_long", lambda t, p, o: [tm.relative_precision_at(t, k, o.rel_level) for k in p],
                _CUTOFFS),
    TrecMeasure("success", "cut_long", lambda t, p, o: [rk.success_at(t, k, o.rel_level) for k in p], (1, 5, 10)),
    TrecMeasure("set_P", "plain", lambda t, p, o: [tm.set_precision(t, o.rel_level)]),
    TrecMeasure("set_relative_P", "plain", lambda t, p, o: [tm.set_relative_precision(t, o.rel_level)]),
    TrecMeasure("set_recall", "plain", lambda t, p, o: [tm.set_recall(t, o.rel_level)]),
    TrecMeasure("set_map", "plain", lambda t, p, o: [tm.set_map(t, o.rel_level)]),
    TrecMeasure("set_F", "params", lambda t, p, o: [tm.set_f(t, p[0], o.rel_level)], (1.0,)),
    TrecMeasure("num_nonrel_judged_ret", "long", lambda t, p, o: [tm.num_nonrel_judged_ret(t, o.rel_level)],
                summary="sum"),
    *(_preference(kernel) for kernel in (
        pm.prefs_num_prefs_poss, pm.prefs_num_prefs_ful, pm.prefs_num_prefs_ful_ret, pm.prefs_simp, pm.prefs_pair,
        pm.prefs_avgjg, pm.prefs_avgjg_Rnonrel, pm.prefs_simp_ret, pm.prefs_pair_ret, pm.prefs_avgjg_ret,
        pm.prefs_avgjg_Rnonrel_ret, pm.prefs_simp_imp, pm.prefs_pair_imp, pm.prefs_avgjg_imp)),
    TrecMeasure("map_avgjg", "plain", lambda t, p, o: [jg.map_avgjg(t.table, t.groups, len(t.topics), o.rel_level)],
                reads="qrels_jg"),
    TrecMeasure("P_avgjg", "cut_long",
                lambda t, p, o: [jg.precision_avgjg(t.table, t.groups, len(t.topics), k, o.rel_level) for k in p],
                _CUTOFFS, reads="qrels_jg"),
    TrecMeasure("Rprec_mult_avgjg", "cut_double",
                lambda t, p, o: [jg.r_precision_multiple_avgjg(t.table, t.groups, len(t.topics), m, o.rel_level)
                                 for m in p], (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), reads="qrels_jg"),
    TrecMeasure("yaap", "plain", lambda t, p, o: [tm.yaap(t, o.rel_level)]),
    TrecMeasure("rbp", "pairs", lambda t, p, o: [tm.rbp_with_gains(t, _pair(p, "p", 0.9), _gains(p))]),
    TrecMeasure("rbp_resid", "pairs", lambda t, p, o: [tm.rbp_residual(t, _pair(p, "p", 0.9))]),
    TrecMeasure("unj", "cut_long", lambda t, p, o: [tm.unjudged_at(t, k) for k in p], (5, 10, 20)),
)
_BY_NAME = {m.name: m for m in MEASURES}

NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid",
                 "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success",
                 "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
                  "prefs_pair_imp", "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


# -------------------------------------------------------------------------------- -m and its parameters
def _split(text: str) -> list[bytes]:
    return os.fsencode(text).split(b",")


def _typed(name: str, text: str | None) -> str:
    """``-m name.text`` as typed, for a message: control characters escaped, so that it stays one line."""
    return f"-m {name}" + ("" if text is None else "." + "".join(c if c.isprintable() else repr(c)[1:-1]
                                                             for c in text))


def _finite(measure: TrecMeasure, text: str, piece: bytes) -> float:
    """A double parameter as C's ``atof`` reads it, refused unless finite: trec_eval computes with ``inf`` and
    ``nan`` (and casts them to integers where C leaves the result undefined), the workbench says so instead."""
    value = atof(piece)
    if not math.isfinite(value):
        raise TrecEvalError(f"{_typed(measure.name, text)}: {os.fsdecode(piece)!r} reads as {value}; the workbench "
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
        values = tuple(_finite(measure, text, v) for v in _split(text)) if text is not None else measure.default
        if measure.name == "utility" and len(values) != 4:
            raise TrecEvalError(f"{_typed(measure.name, text)}: 4 coefficients needed, got {len(values)} "
                                "(trec_eval: improper number of coefficients)")
        if measure.name == "relstring" and not -(2.0 ** 63) <= values[0] < 2.0 ** 63:  # C's (long) of it
            raise TrecEvalError(f"{_typed(measure.name, text)}: the length {values[0]:g} is past a C long (trec_eval's "
                                "result would be undefined)")
        return values, [name]
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
                raise TrecEvalError(f"-m {request}: improper measure parameter (nothing after the dot)")
            params.setdefault(name, text)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in _BY_NAME:
            marked.add(name)
        else:
            raise TrecEvalError(f"illegal measure {name!r}; the workbench's trec_eval knows "
                                f"{', '.join([*NICKNAMES, *_BY_NAME])}")
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


def _formats(selected, rel_format: str) -> str:
    """What the measures read with ``-R rel_format``; a measure that cannot be computed from it is refused
    (trec_eval: "Can't calculate measure", after its merging code refuses the format)."""
    reads = REL_FORMATS.get(rel_format)
    if reads is None:
        raise TrecEvalError(f"-R {rel_format}: unknown relevance format (trec_eval: Illegal rel_format); give one "
                            f"of {', '.join(REL_FORMATS)}")
    unfit = [m.name for m, _, _ in selected if m.reads not in ("any", reads)]
    if unfit:
        needs = {"qrels": "-R qrels", "prefs": "-R prefs or -R qrels_prefs", "qrels_jg": "-R qrels_jg"}
        wanted = needs[_BY_NAME[unfit[0]].reads]
        raise TrecEvalError(f"-R {rel_format} cannot give {', '.join(unfit)} ({unfit[0]} needs {wanted}; "
                            f"trec_eval: Can't calculate measure '{unfit[0]}')")
    return reads


def evaluate(qrels_path: str | Path, run_path: str | Path, requests: Sequence[str] = (),
             options: Options = Options(), zscores_path: str | Path | None = None) -> Evaluation:
    """Read, rank and score as trec_eval does (``zscores_path``: ``-Z``); see the module docstring."""
    selected = select_measures(requests)
    reads = _formats(selected, options.rel_format)
    if options.rel_level < 1:
        raise TrecEvalError(f"-l {options.rel_level}: the workbench's trec_eval needs a relevance level ≥ 1")
    if options.max_docs is not None and options.max_docs < 0:
        raise TrecEvalError(f"-M {options.max_docs}: the maximum number of documents must be ≥ 0")
    if reads == "prefs":
        judged = read_preferences(qrels_path, options.rel_format)
        rel_path, judged_topics = judged.path, judged.topic_names()
    elif reads == "qrels_jg":
        judged = read_judgement_groups(qrels_path)
        rel_path, judged_topics = judged.path, judged.topic_names()
    else:
        qrels = read_lines(qrels_path, "qrels", encoding="latin-1")  # one character per byte: bytes printed back
        gold = judgements(qrels.topics, qrels.documents, qrels.values.astype(float), locate=qrels.located)
        rel_path, judged_topics = qrels.path, sorted(gold.topics)  # trec_eval's order: strcmp, as latin-1 sorts
    results = read_lines(run_path, "run", encoding="latin-1", systems=False)  # trec_eval prints the last tag
    runid = results.runid or ""
    in_run = set(results.topics.names)
    judged_set = set(judged_topics)
    extra = [t for t in results.topics.names if t not in judged_set]
    if extra:
        warnings.warn(f"{results.path}: {len(extra)} run topic(s) have no judgements in {rel_path} and are "
                      f"ignored, as trec_eval ignores them ({_shown(extra)})", WorkbenchWarning, stacklevel=2)
    lacking = [t for t in judged_topics if t not in in_run]
    if lacking and not options.complete:
        warnings.warn(f"{results.path}: {len(lacking)} qrels topic(s) have no results and are skipped, as trec_eval "
                      f"9.x skips them ({_shown(lacking)}); trec_eval 10.0 stops here with status 4 (\"result qid "
                      f"... not found in qrels\"), and -c scores them on its empty placeholder ranking",
                      WorkbenchWarning, stacklevel=2)
    topics = judged_topics if options.complete else [t for t in judged_topics if t in in_run]
    if not topics:
        raise TrecEvalError("no topic has both results and judgements (trec_eval: No queries with both "
                            "results and relevance info)")
    zscore_table = read_zscores(zscores_path) if zscores_path is not None else None
    source: object
    totals: dict[str, float] = {}
    if reads == "prefs":
        source = count_topics(judged, results, topics, max_docs=options.max_docs,
                              score_precision=options.score_precision, placeholders=options.complete)
    else:
        run = rank_runs(None, results.topics, results.documents, results.values, max_docs=options.max_docs,
                        score_precision=options.score_precision, locate=results.located)[""]
        del results  # the lines as read are ranked now: their memory goes before the table's is taken
        if reads == "qrels_jg":
            groups = group_table(judged, run, topics, placeholders=options.complete)
            source = replace(groups, table=groups.table.judged_only()) if options.judged_only else groups
        else:
            negative = sum(int((gold.grades[gold.span(t)] < 0).sum()) for t in topics)
            if negative:
                warnings.warn(f"{qrels.path}: {negative} judgement(s) have a negative grade; as trec_eval, they count "
                              "as pooled but unjudged (infAP, bpref, unj, relstring '.'), not as judged "
                              "non-relevant", WorkbenchWarning, stacklevel=2)
            table = gain_table(gold, run, topics, placeholders=options.complete)
            source = table.judged_only() if options.judged_only else table
            del run, table  # the ranking is in the table (as the table is in its judged-only form, with -J)
            if options.complete:  # trec_eval's num_rel summary counts every judgement graded above 0 in the
                totals["num_rel"] = float((gold.grades > 0).sum())  # qrels, whatever -l says (m_num_rel.c)
    rows = [(measure, names, columns)
            for (measure, _, names), columns in zip(selected, _scored(selected, source, options), strict=True)]
    if zscore_table is not None:
        rows = [(measure, names, _zscored(measure, names, columns, topics, zscore_table))
                for measure, names, columns in rows]
    return Evaluation(runid, tuple(topics), rows, totals, zscored=zscore_table is not None)


PARALLEL_CELLS = 1 << 20  # a gain table of at least this many cells (topics × ranks) is scored on two threads
PART_CELLS = 1 << 18  # ... in parts of about this many cells, each part's temporaries freed before the next


def _scored(selected, source, options: Options) -> list[list[list]]:
    """Each selected measure's columns (a list of per-topic values per printed name). A gain table of
    :data:`PARALLEL_CELLS` cells or more, on a machine with two cores or more, is scored in parts of its topics
    (about :data:`PART_CELLS` cells each) on two threads and the parts' values joined: every kernel scores each
    topic on its own (:meth:`~workbench.metrics.ranking.table.GainTable.rows`), and numpy lets go of the
    interpreter in its loops (``-m all_trec`` on 2,000 topics × 1,000 ranks: 0.29 s → 0.17 s); the measures'
    temporaries are those of two parts at a time, not of the whole table."""
    def score(part) -> list[list[list]]:
        return [[list(np.asarray(c).tolist()) if not isinstance(c, list) else list(c)
                 for c in measure.compute(part, params, options)] for measure, params, _ in selected]

    if not isinstance(source, GainTable) or source.gains.size < PARALLEL_CELLS or source.gains.shape[0] < 2 \
            or _cores() < 2:
        return score(source)
    rows = source.gains.shape[0]
    count = min(max(2, -(-source.gains.size // PART_CELLS)), rows)
    parts = (source.rows(slice(rows * i // count, rows * (i + 1) // count)) for i in range(count))
    with ThreadPoolExecutor(2) as pool:  # a part (and the values it shares among measures) goes once scored
        scored = list(pool.map(score, parts))
    return [[sum((part[m][c] for part in scored), []) for c in range(len(scored[0][m]))]
            for m in range(len(selected))]


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _zscored(measure: TrecMeasure, names: list[str], columns: list, topics: Sequence[str], table) -> list:
    """``-Z``: each topic's values as z-scores (convert_zscores.c); a geometric mean's values are first the
    logarithms trec_eval keeps per topic (text and counts printed as they are stay)."""
    if measure.summary in ("runid", "count", "none"):
        return columns
    means, stddevs, found = table.statistics(topics, names)
    out = []
    for j, column in enumerate(columns):
        values = ([math.log(max(value, MIN_GEO_MEAN)) for value in column] if measure.summary == "gmean"
                  else column)
        out.append(zscores(np.array(values, dtype=float), means[:, j], stddevs[:, j], found[:, j]).tolist())
    return out


# ---------------------------------------------------------------------------------------------- output
def _number(value: float) -> str:
    return "  -nan" if math.isnan(value) else f"{value:6.4f}"


def _line(name: str, topic: str, text: str) -> str:
    return f"{name:<22}\t{topic}\t{text}\n"


def _summary(measure: TrecMeasure, column: list, zscored: bool) -> float:
    """The topics' values combined (in trec_eval's order already); under ``-Z`` a geometric mean's values are
    z-scores of logarithms, combined as trec_eval combines them (``exp`` of their mean)."""
    if zscored and measure.summary == "gmean":
        return math.exp(summarize(column, "mean"))
    return summarize(column, measure.summary)


def render(evaluation: Evaluation, per_topic: bool = False, summary: bool = True) -> str:
    """trec_eval's output: with ``per_topic`` (``-q``) every topic's values first, then the summary; z-scores
    (``-Z``) as ``Z`` and the name, every value with 4 decimals (``meas_print_single.c``,
    ``meas_print_final.c``)."""
    z = "Z" if evaluation.zscored else ""
    out: list[str] = []
    if per_topic:  # each printed value's texts for all topics at once, then interleaved topic by topic
        printed = []
        for measure, names, columns in evaluation.rows:
            if not measure.per_topic:
                continue
            for name, column in zip(names, columns, strict=True):
                if measure.name == "relstring":
                    printed.append((f"{name:<22}\t", [f"'{value}'" for value in column]))
                    continue
                texts = ([str(int(value)) for value in column] if measure.kind == "long" and not z else
                         [_number(value) for value in column])
                printed.append((f"{z}{name:<22}\t", texts))
        for row, topic in enumerate(evaluation.topics):
            out.extend(f"{head}{topic}\t{texts[row]}\n" for head, texts in printed)
    if summary:
        count = len(evaluation.topics)
        for measure, names, columns in evaluation.rows:
            if measure.summary == "runid":
                out.append(_line("runid", "all", evaluation.runid))
            elif measure.summary == "count":
                out.append(f"{z}{names[0]:<22}\tall\t{_number(count) if z else count}\n")
            elif measure.summary != "none":
                for name, column in zip(names, columns, strict=True):
                    value = evaluation.totals.get(name, _summary(measure, column, evaluation.zscored))
                    text = str(int(value)) if measure.kind == "long" and not z else _number(value)
                    out.append(f"{z}{name:<22}\tall\t{text}\n")
    return "".join(out)


# ------------------------------------------------------------------------------------------ command line
USAGE = ("usage: python -m workbench trec_eval [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N] "
         "[-R qrels|prefs|qrels_prefs|qrels_jg] [-Z ZSCORES] [--score-precision float64|float32] "
         "[-m MEASURE[.PARAMS]]... REL_INFO RUN")
_LONG = ["help", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=", "nosummary",
         "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=", "Zscore=",
         "score-precision="]


def main(argv: Sequence[str]) -> int:
    """Parse trec_eval's options (``getopt_long``, arguments may be glued: ``-mP.5``, ``-M100``), evaluate
    and print to standard output. Bad input raises a :class:`~workbench.errors.WorkbenchError`."""
    try:
        found, paths = getopt.gnu_getopt(list(argv), "hqm:cl:nJN:M:R:Z:", _LONG)
    except getopt.GetoptError as error:
        raise TrecEvalError(f"{error} ({USAGE})") from None
    requests: list[str] = []
    per_topic, summary = False, True
    settings: dict = {}
    zscores_path = None
    for flag, value in found:
        if flag in ("-h", "--help"):
            emit(f"{USAGE}\n{__doc__}")
            return 0
        if flag in ("-q", "--query_eval_wanted"):
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
        elif flag == "--score-precision":
            if value not in SCORE_PRECISIONS:
                raise TrecEvalError(f"--score-precision {value}: give one of {', '.join(SCORE_PRECISIONS)}")
            settings["score_precision"] = value
        else:
            key = {"-l": "rel_level", "--level_for_rel": "rel_level", "-N": "num_docs",
                   "--Number_docs_in_coll": "num_docs", "-M": "max_docs",
                   "--Max_retrieved_per_topic": "max_docs"}[flag]
            settings[key] = atol(os.fsencode(value))  # the bytes typed, as C's argv holds them
    if len(paths) != 2:
        raise TrecEvalError(f"expected the relevance file and the run file, got {len(paths)} paths ({USAGE})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", WorkbenchWarning)
        evaluation = evaluate(paths[0], paths[1], requests, Options(**settings), zscores_path)
    for warning in caught:
        say(f"workbench trec_eval: note: {warning.message}")
    printed = render(evaluation, per_topic=per_topic, summary=summary)
    emit(printed.encode("latin-1"))  # the files' own bytes back (ids were read one character per byte)
    return 0
