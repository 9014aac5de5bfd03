"""How a ranking measure is declared: its kernel wrapped for the registry, its parameters, and its explanation.

A ranking measure is one :func:`ranking_measure` call in :mod:`workbench.metrics.ranking.measures` (the kernel, the
per-rank terms that explain it, the parameters with their domains and meanings, its spellings in trec_eval,
ir_measures and ranx, its source); everything else — the parser, ``wb.measures()``, ``explain``, campaigns, the
``trec_eval`` drop-in, the catalogue — reads that declaration. The kernel itself is a pure function over a
:class:`~workbench.metrics.ranking.table.GainTable` (one value per row); the wrappers here let the registry score
one topic from Organizations and a campaign score a whole table at once:

* :class:`TableMeasure`: a gain-table kernel (every ranking measure of trec_eval and ir_measures);
* :class:`SubtopicMeasure`: a kernel over a :class:`~workbench.metrics.ranking.diversity.SubtopicTable` (the
  diversity measures);
* :class:`PreferenceMeasure` and :class:`GroupMeasure`: trec_eval's measures over preference judgements
  (``-R prefs``) and judgement groups (``-R qrels_jg``), which only the drop-in reads.

    >>> from workbench.metrics.ranking.table import GainTable
    >>> float(TableMeasure(lambda table, k=10: table.gains[:, :k].sum(axis=1)).score(GainTable.from_gains([[1, 2]],
    ...       [[2, 1]]), k=1)[0])
    1.0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from workbench.metrics.ranking.table import CUTOFF, RELEVANCE_LEVEL, GainTable, RankingInputError
from workbench.metrics.registry import (
    TREC_EVAL_GROUPS,
    Choices,
    Explainer,
    Interval,
    Measure,
    MeasureSpec,
    Pairs,
    Param,
    TrecEvalName,
    parse,
    register,
)
from workbench.model import Organization

__all__ = ["TREC_EVAL", "SAKAI", "RANX", "NDEVAL", "PER_DOCUMENT", "PER_SUBTOPIC", "TableMeasure", "SubtopicMeasure",
           "PreferenceMeasure", "GroupMeasure", "is_table_measure", "is_diversity_measure", "evaluate_table",
           "cutoff", "REL", "JUDGED_ONLY", "BINARY", "GAIN", "GAINS", "MIN_MAX_REL", "BETA", "TrecEvalName",
           "TREC_EVAL_GROUPS", "TREC_OFFICIAL", "TREC_ALL", "TREC_SET", "TREC_CUTOFFS", "TREC_RECALLS",
           "TREC_MULTIPLES", "ranking_measure", "diversity_measure", "drop_in_measure"]

TREC_EVAL = "trec_eval 10.0 (usnistgov/trec_eval)"
SAKAI = "Sakai, Give Me Just One Highly Relevant Document: P-measure, SIGIR 2006 (and NTCIREVAL)"
RANX = "ranx (Bassani, ECIR 2022)"
NDEVAL = "ndeval 4.5 (TREC Web track; Clarke et al., SIGIR 2008, ICTIR 2009)"

PER_DOCUMENT = "workbench.metrics.explanations.ranking:explain_ranking"
PER_SUBTOPIC = "workbench.metrics.explanations.diversity:explain_diversity"


# ------------------------------------------------------------------------------------------- the wrappers
class TableMeasure:
    """A gain-table kernel as the registry's ``compute(gold, output, **params)`` (one topic, through
    :meth:`GainTable.from_organizations`); :meth:`score` scores every row of a table at once, applying the
    measure's ``judged_only`` (:meth:`GainTable.judged_only`) before the kernel. A table scores each kernel and
    parameters once (:meth:`GainTable.shared`: ``map`` and ``gm_map`` read one AP)."""

    def __init__(self, kernel: Callable[..., Any]) -> None:
        self.kernel = kernel
        self.__doc__ = kernel.__doc__

    def score(self, table: GainTable, judged_only: bool = False, **params: Any) -> np.ndarray:
        """The kernel's values on ``table``, or on its judged documents only."""
        return (table.judged_only() if judged_only else table).shared(self.kernel, **params)

    def __call__(self, gold: Organization, output: Organization, **params: Any) -> float | str:
        value = self.score(GainTable.from_organizations(gold, output), **params)[0]
        return value if isinstance(value, str) else float(value)  # trec_eval's relstring is text


class SubtopicMeasure:
    """A diversity kernel as the registry's ``compute(gold, output, **params)`` (one topic: the gold's clusters are
    its subtopics, :meth:`SubtopicTable.from_organizations`), keeping the kernel for whole tables (:meth:`score`)."""

    def __init__(self, kernel: Callable[..., np.ndarray]) -> None:
        self.kernel = kernel
        self.__doc__ = kernel.__doc__

    def score(self, table: Any, **params: Any) -> np.ndarray:
        return self.kernel(table, **params)

    def __call__(self, gold: Organization, output: Organization, **params: Any) -> float:
        from workbench.metrics.ranking.diversity import SubtopicTable

        return float(self.kernel(SubtopicTable.from_organizations(gold, output), **params)[0])


class _DropInOnly:
    """A kernel over judgements that only trec_eval's drop-in reads (``reads``: its ``-R`` format)."""

    reads = what = option = ""

    def __init__(self, kernel: Callable[..., Any], name: str) -> None:
        self.kernel, self.name = kernel, name
        self.__doc__ = kernel.__doc__

    def __call__(self, gold: Organization, output: Organization, **params: Any) -> float:
        raise RankingInputError(f"{self.name} reads trec_eval's {self.what}, not a gold organization: score it with "
                                f"python -m workbench trec_eval -R {self.option} -m {self.name}")


class PreferenceMeasure(_DropInOnly):
    """A ``prefs_*`` kernel of :mod:`workbench.metrics.ranking.preferences`, one value per topic's counts
    (:class:`~workbench.data.trec.preferences.PreferenceTopics`)."""

    reads, what, option = "preferences", "preference judgements", "prefs"

    def score(self, topics: Any) -> np.ndarray:
        return np.array([self.kernel(counts) for counts in topics.counts], dtype=float)


class GroupMeasure(_DropInOnly):
    """A ``*_avgjg`` kernel of :mod:`workbench.metrics.ranking.judgement_groups` over a
    :class:`~workbench.data.trec.judgement_groups.GroupTable`."""

    reads, what, option = "judgement groups", "judgement groups", "qrels_jg"

    def score(self, groups: Any, **params: Any) -> np.ndarray:
        return self.kernel(groups.table, groups.groups, len(groups.topics), **params)


def is_table_measure(measure: str | Measure) -> bool:
    """Whether a measure is computed from a :class:`GainTable` (so that a whole run is scored at once)."""
    return isinstance(parse(measure).spec.compute, TableMeasure)


def is_diversity_measure(measure: str | Measure) -> bool:
    """Whether a measure reads subtopic judgements (:class:`~workbench.metrics.ranking.diversity.SubtopicTable`)."""
    return isinstance(parse(measure).spec.compute, SubtopicMeasure)


def evaluate_table(table: Any, measures: Iterable[str]) -> dict[str, dict[str, float]]:
    """Every measure (a ranking or diversity measure name) on every row of ``table`` (a :class:`GainTable`, or a
    subtopic table for the diversity measures): ``{measure: {topic: value}}``.

    >>> evaluate_table(GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]]), ["AP", "P@2"])
    {'AP': {'0': 0.38888888888888884}, 'P@2': {'0': 0.5}}
    """
    rows = table.gains.shape[0] if isinstance(table, GainTable) else table.grades.shape[0]
    topics = table.topics or tuple(str(i) for i in range(rows))
    wanted = TableMeasure if isinstance(table, GainTable) else SubtopicMeasure
    out: dict[str, dict[str, float]] = {}
    for name in measures:
        measure = parse(name)
        if not isinstance(measure.spec.compute, wanted):
            raise RankingInputError(f"{name!r} is not a {'ranking' if wanted is TableMeasure else 'diversity'} "
                                    "measure")
        out[name] = dict(zip(topics, measure.spec.compute.score(table, **measure.params).tolist(), strict=True))
    return out


# ------------------------------------------------------------------------------------ shared parameters
def cutoff(default: int | None = None, meaning: str = "the cutoff: only the top k ranks count") -> dict[str, Param]:
    """The cutoff parameter ``k`` (written ``@k``), optional when its default is None."""
    return {"k": Param(default, dataclasses.replace(CUTOFF, optional=default is None), meaning)}


REL = {"rel": Param(1, RELEVANCE_LEVEL, "the relevance level: a document is relevant when its grade reaches rel "
                                        "(trec_eval's -l)")}
JUDGED_ONLY = {"judged_only": Param(False, Choices((False, True)), "score the ranking without its unjudged "
                                                                   "documents (trec_eval's -J)")}
BINARY = {**REL, **JUDGED_ONLY}
GAIN = Interval(0, 1e100)
"""The domain of the gain a grade is mapped to: up to 1e100, so that a DCG, which adds gains, stays a number (gains
near a double's 1.8e308 add up to inf, and nDCG to inf/inf)."""
GAINS = {"gains": Param(None, Pairs(Interval(0), GAIN),
                        "grade → gain, e.g. {1:3,2:9} (trec_eval's ndcg.1=3,2=9); a grade not mapped is its own "
                        "gain; {0:g} gives the judged non-relevant documents gain g, in the ideal ranking too")}
"""trec_eval's ``rel_level=gain`` pairs (its gain-based measures' parameters), ir_measures' ``gains``: grade 0 may be
mapped (``nDCG(gains={0:1,1:2})``), as trec_eval's ``gain_init.c`` and ir_measures (which maps the qrels) do."""
MIN_MAX_REL = {
    "min_rel": Param(0, Interval(0), "the grade that gains nothing: grades are clipped to [min_rel, max_rel] and put "
                     "on [0, 1] as (grade − min_rel) / (max_rel − min_rel); below max_rel"),
    "max_rel": Param(None, Interval(0, low_open=True), "the grade of a fully relevant document, which gains 1 "
                     "(required)")}
"""The gain scale of the C/W/L measures (cwl_eval's, as ir_measures gives it the qrels:
:func:`~workbench.metrics.ranking.cwl.cwl_gains`)."""
BETA = {"beta": Param(1.0, Interval(0), "β of Sakai's blended ratio: the weight of the cumulative gain")}


TREC_OFFICIAL = ("official", "all_trec")
"""The trec_eval groups of a measure of ``-m official`` (all of them are in ``all_trec`` too)."""
TREC_ALL = ("all_trec",)
TREC_SET = ("all_trec", "set")
"""The trec_eval groups of a set measure (``-m set``)."""
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cutoffs (``P``, ``recall``, ``map_cut``, ``ndcg_cut``, ...: its ``long_cutoff_array``)."""
TREC_RECALLS = tuple(i / 10 for i in range(11))
"""trec_eval's default recall levels (``iprec_at_recall``, ``11pt_avg``)."""
TREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
"""trec_eval's default multiples of R (``Rprec_mult``, ``Rprec_mult_avgjg``)."""


def ranking_measure(name: str, kernel: Callable[..., np.ndarray], terms: Callable[..., Any] | None, *,
                    description: str, params: Mapping[str, Param] | None = None, source: str = TREC_EVAL,
                    cutoff: str | None = None, aliases: Iterable[str] = (),
                    spellings: Mapping[str, str | tuple[str, ...]] | None = None,
                    range: tuple[float, float] = (0.0, 1.0), direction: str = "higher", aggregate: str = "mean",
                    how: str = "per document", fixed: Mapping[str, str] | None = None,
                    trec_eval: TrecEvalName | tuple[TrecEvalName, ...] = ()) -> MeasureSpec:
    """Declare a gain-table measure: its kernel (:class:`TableMeasure`), explained per document by its ``terms``
    (:mod:`workbench.metrics.ranking.terms`); a topic a run lacks is scored on trec_eval's ``-c`` placeholder
    ranking (``missing="empty"``). ``fixed``: another tool's parameters with one value here
    (:attr:`~workbench.metrics.registry.MeasureSpec.fixed`); ``trec_eval``: its name or names in trec_eval, as
    trec_eval reads and prints them (:class:`~workbench.metrics.registry.TrecEvalName`)."""
    return register(name, TableMeasure(kernel), task="ranking", source=source, params=params, cutoff=cutoff,
                    aliases=aliases, spellings=spellings, range=range, direction=direction, aggregate=aggregate,
                    missing="empty", description=description, fixed=fixed, engine="gain table", trec_eval=trec_eval,
                    explained=Explainer(PER_DOCUMENT, how, terms) if terms is not None else None)


def diversity_measure(name: str, kernel: Callable[..., np.ndarray], terms: Callable[..., Any], *, description: str,
                      params: Mapping[str, Param], cutoff: str | None = None, aliases: Iterable[str] = (),
                      spellings: Mapping[str, str | tuple[str, ...]] | None = None,
                      range: tuple[float, float] = (0.0, 1.0)) -> MeasureSpec:
    """Declare a diversity measure over subtopic judgements, as ndeval computes it (:class:`SubtopicMeasure`),
    explained per document and subtopic by its ``terms``; a topic a run lacks is scored on an empty ranking."""
    return register(name, SubtopicMeasure(kernel), task="ranking", source=NDEVAL, params=params, cutoff=cutoff,
                    aliases=aliases, spellings=spellings, range=range, missing="empty", description=description,
                    explained=Explainer(PER_SUBTOPIC, "per document and subtopic", terms), engine="subtopic table")


def drop_in_measure(name: str, compute: PreferenceMeasure | GroupMeasure, *, description: str, formula: str,
                    params: Mapping[str, Param] | None = None, cutoff: str | None = None,
                    aggregate: str = "mean", range: tuple[float, float] = (0.0, 1.0),
                    trec_eval: TrecEvalName | None = None) -> MeasureSpec:
    """Declare one of trec_eval's measures over preference judgements or judgement groups (its name is trec_eval's;
    scored by the ``trec_eval`` drop-in with ``-R prefs`` / ``-R qrels_jg``; no explanation, so its ``formula`` is
    declared here), read and printed as ``trec_eval`` says (:class:`~workbench.metrics.registry.TrecEvalName`; a
    plain measure in no group when not given)."""
    return register(name, compute, task="ranking", source=TREC_EVAL, params=params, cutoff=cutoff,
                    trec_eval=trec_eval or TrecEvalName(name), range=range, aggregate=aggregate, missing="empty",
                    description=description, reads=compute.reads, engine=compute.reads, formula=formula)
