"""A campaign: gold organizations per topic and any number of runs, evaluated into one tidy table.

Scores come from :func:`workbench.evaluate` (the measure registry); this module only walks the topics,
applies the policy for topics a run lacks, and shapes the results::

    >>> from workbench.model import Organization
    >>> gold = {"q1": Organization.parse("d1 d2"), "q2": Organization.parse("d3")}
    >>> runs = {"sysA": {"q1": Organization.parse("d1 d2")}}
    >>> campaign = Campaign(gold, runs)
    >>> campaign.missing_topics()
    {'sysA': ['q2']}
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.data.engines import Held, by_engine, score_pairs
from workbench.data.scoring import MEASURE, MEASURES, CampaignError, measure_names
from workbench.data.topic_policies import (
    EXTRA_POLICIES,
    EXTRA_TOPICS,
    MISSING_TOPIC_POLICIES,
    MISSING_TOPICS,
    MissingTopicsWarning,
    TopicPolicy,
)
from workbench.data.trec.memory import COLUMN, FRAMES, QRELS, RECORDS, RUNS, RUNS_OF_RECORDS, SYSTEM_COLUMN
from workbench.data.trec.ranked import (
    ID,
    MAX_DOCS,
    SCORE_PRECISION,
    Identifier,
    Ids,
    Judgements,
    RankedRun,
    check_alike,
    check_given_ids,
    id_texts,
)
from workbench.errors import WorkbenchWarning, warn
from workbench.lazy import deprecated_method
from workbench.metrics.registry import Measure, aggregate, parse, specs
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization
from workbench.model.labelling import Labelling
from workbench.progress import progress
from workbench.validation import (
    DATAFRAME,
    Anything,
    Choices,
    Flag,
    Instance,
    Interval,
    LazyInstance,
    MappingOf,
    validate,
)

__all__ = ["MISSING_TOPIC_POLICIES", "MISSING_TOPICS", "EXTRA_POLICIES", "EXTRA_TOPICS", "UNDEFINED_POLICIES",
           "UNDEFINED", "COLUMNS", "RESULTS", "EXECUTOR", "CHUNK_TOPICS", "KINDS", "FITTING_TASKS",
           "MissingTopicsWarning", "MeasureKindWarning", "Scores", "Campaign", "summaries", "means", "undefined_policy"]

if TYPE_CHECKING:
    import pandas as pd

UNDEFINED_POLICIES = ("nan", "zero")
"""How a mean over topics takes a topic whose value is undefined (NaN: CohenKappa under its preconditions, SP of an
output that answers nothing, ...): ``"nan"``, the mean is undefined too; ``"zero"``, the topic counts 0 in the mean
over all topics, as PyEvALL averages its test cases (``evaluation.py``: the sum of the defined values divided by the
number of test cases), NaN only when no topic is defined."""
UNDEFINED = Choices(UNDEFINED_POLICIES)
"""The domain of ``undefined``, a campaign's rule for undefined values in its means (:data:`UNDEFINED_POLICIES`)."""
COLUMNS = ("system", "topic", "measure", "value")
"""The columns of a tidy result table, the one place they are written (the command line, the analyses, the charts
and the widgets read them here)."""
RESULTS = LazyInstance(("pandas:DataFrame",), "a tidy results DataFrame (system, topic, measure, value)")
"""The domain of a tidy result table given back (:func:`means`)."""
EXECUTOR = LazyInstance(("concurrent.futures:Executor", "distributed:Client"),
                        "a concurrent.futures.Executor (e.g. ProcessPoolExecutor()) or a dask.distributed.Client",
                        optional=True)
"""Where a campaign's topics are scored (``executor=``; :mod:`workbench.data.distributed`): None for here."""
CHUNK_TOPICS = Interval(1, 10**7, integer=True, optional=True)
"""How many gold topics travel together to an executor (``chunk_topics=``); None: a few chunks per worker."""
ORGANIZATIONS = MappingOf(shortest=1, what="a mapping topic → Organization")
RUN_ORGANIZATIONS = MappingOf(values=Instance((Mapping,), "a mapping topic → Organization"),
                              what="a mapping system → topic → Organization")


KINDS = ("ranking", "classification", "organization")
"""What a campaign holds (:attr:`Campaign.kind`): judgements and ranked runs (TREC files, dicts, frames), Labellings
(PyEvALL's files), or Organizations (any document organization: rankings, filterings, clusterings, R&S)."""
FITTING_TASKS = {"ranking": ("ranking", "organization"), "classification": ("classification",),
                 "organization": ("ranking", "filtering", "clustering", "organization", "classification",
                                  "baselines")}
"""The measures (by their declared ``task``) that fit a campaign of each kind; a ranking campaign scores the others
with a :class:`MeasureKindWarning` (a ranked run read as an organization), a classification campaign refuses them.
A measure of a task of a user's own fits every campaign."""


class MeasureKindWarning(WorkbenchWarning):
    """A measure of another task asked of a ranking campaign (the filtering ``Accuracy``, a clustering measure):
    scored, with the measure a peer means by that name where there is one (ir_measures' ``Accuracy`` is
    ``PairwiseAccuracy``)."""


@dataclass(frozen=True)
class Scores:
    """A campaign's scores as four plain columns ``system, topic, measure, value`` (lists), and what the topic
    policies did (``attrs``: ``missing_topics``, ``extra_topics``, and ``undefined``, the campaign's rule for
    undefined values in its means, which :func:`means` reads). Columns, not rows: pandas makes a frame from
    columns (each text column from its distinct values, :func:`_texts`) many times faster than from row tuples;
    :attr:`rows` gives the rows.

    >>> scores = Scores.of_pairs([("A", "q1"), ("A", "q2")], ["P@1", "RR"], [1.0, 1.0, 0.0, 0.5], {})
    >>> scores.rows[1], scores.frame()["value"].tolist()
    (('A', 'q1', 'RR', 1.0), [1.0, 1.0, 0.0, 0.5])
    """

    columns: tuple[list[str], list[str], list[str], list[float]]
    attrs: dict

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, str, float]], attrs: dict) -> Scores:
        """Scores of rows ``(system, topic, measure, value)``."""
        rows = list(rows)
        system, topic, measure, value = map(list, zip(*rows, strict=True)) if rows else ([], [], [], [])
        return cls((system, topic, measure, value), attrs)

    @classmethod
    def of_pairs(cls, pairs: list[tuple[str, str]], names: list[str], values: Iterable[float], attrs: dict
                 ) -> Scores:
        """Scores of every measure of ``names`` on each (system, topic) of ``pairs``: ``values`` pair by pair, in
        the order of ``names`` within a pair."""
        each = repeat(len(names))
        return cls((list(chain.from_iterable(map(repeat, (system for system, _ in pairs), each))),
                    list(chain.from_iterable(map(repeat, (topic for _, topic in pairs), each))),
                    names * len(pairs), list(values)), attrs)

    @property
    def rows(self) -> list[tuple[str, str, str, float]]:
        """The scores as rows ``(system, topic, measure, value)``."""
        return list(zip(*self.columns, strict=True))

    def frame(self) -> pd.DataFrame:
        """The tidy DataFrame ``system, topic, measure, value`` (``attrs`` kept). Each text column is made from its
        distinct values and their codes (:func:`_texts`)."""
        import pandas as pd

        *texts, value = self.columns
        columns = {name: _texts(column) for name, column in zip(COLUMNS[:3], texts, strict=True)}
        frame = pd.DataFrame(columns | {"value": np.array(value, dtype=np.float64)}, columns=COLUMNS)
        frame.attrs.update(self.attrs)
        return frame


def _texts(column: list[str]) -> Any:
    """A column of few distinct texts as pandas holds text, made from the distinct ones and their codes
    (``pandas.factorize``, then ``take``): pandas converts an object array to its string dtype one element at a time,
    so 500,000 scores' three columns took 0.40 CPU-s, and 0.09 from their 370 distinct texts.

    >>> _texts(["a", "b", "a"]).tolist()
    ['a', 'b', 'a']
    """
    import pandas as pd

    values = np.array(column, dtype=object)
    if not values.size:
        return values
    codes, distinct = pd.factorize(values)
    return pd.Series(distinct).take(codes).reset_index(drop=True)


def _ids(what: str, topics: Mapping, owner: str = "") -> Ids:
    """A mapping's topics by their text (:func:`~workbench.data.trec.ranked.id_texts`); read judgements and runs
    hold theirs as text, checked when they were built."""
    if isinstance(topics, Judgements | RankedRun):
        return Ids(topics.index)
    return id_texts(what, topics, owner)


def _progress(work: list, shown: bool):
    """``work``, with a progress bar when ``shown`` and the work lasts more than a second."""
    return progress(work, desc="evaluating", unit="topic", shown=shown)


@dataclass(frozen=True)
class Campaign:  # its __init__ is validated below the class
    """``gold``: topic → Organization; ``runs``: system → topic → Organization (what the readers return). A
    classification campaign holds :class:`~workbench.model.labelling.Labelling` s instead
    (:func:`workbench.data.pyevall.read_pyevall_campaign`: PyEvALL's test cases are its topics).

    ``undefined``: how the means of its results take a topic whose value is undefined (:data:`UNDEFINED_POLICIES`:
    ``"nan"``, or ``"zero"`` as PyEvALL averages, the default of a campaign read from PyEvALL's files); the rule
    travels with the results (``df.attrs["undefined"]``), so that :func:`means` applies it.

    A campaign holds its runs (to explain, fuse and distribute them); a TREC run file larger than memory is scored
    without one holding it, a block of whole topics at a time, by :func:`workbench.data.evaluate_files` (the same
    frame as ``read_campaign(...).evaluate(...)``, to the bit)."""

    gold: Mapping[str, Organization]
    runs: Mapping[str, Mapping[str, Organization]]
    undefined: str = "nan"

    def __post_init__(self) -> None:
        """Ids as :func:`~workbench.data.trec.ranked.id_texts` takes them, run topics matched to the gold's
        (:func:`~workbench.data.trec.ranked.check_alike`), and Organizations (or Labellings) as values."""
        gold = _ids("gold topic", self.gold)
        for topic, org in ([] if isinstance(self.gold, Judgements) else self.gold.items()):
            if not isinstance(org, Organization | Labelling):
                raise CampaignError(f"gold topic {topic!r}: expected an Organization, got {type(org).__name__} "
                                    "(or a Labelling, for classification)")
        id_texts("system", self.runs)
        for system, run in self.runs.items():
            check_alike("topic", _ids("topic", run, f"system {system!r}"), gold, f"system {system!r}")
            for topic, org in ([] if isinstance(run, RankedRun) else run.items()):
                if not isinstance(org, Organization | Labelling):
                    raise CampaignError(f"system {system!r}, topic {topic!r}: expected an Organization, got "
                                        f"{type(org).__name__} (or a Labelling, for classification)")

    @classmethod
    @validate(qrels=DATAFRAME, runs=FRAMES, query=COLUMN, document=COLUMN, relevance=COLUMN, score=COLUMN,
              system=SYSTEM_COLUMN, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
    def from_frames(cls, qrels: pd.DataFrame, runs: pd.DataFrame | Mapping[str, pd.DataFrame], *,
                    query: str = "query_id", document: str = "doc_id", relevance: str = "relevance",
                    score: str = "score", system: str | None = None, score_precision: str = "float64",
                    max_docs: int | None = None) -> Campaign:
        """A campaign from long DataFrames: qrels ``query_id, doc_id, relevance`` and runs ``query_id, doc_id,
        score`` with a ``system`` (or ``run``) column, or ``{system: frame}``; column names are keywords.
        Ranked as TREC files are (trec_eval's order, ``score_precision``, ``max_docs`` as ``-M``), so the
        same data scores the same (:mod:`workbench.data.trec.frames`); a topic given as an integer in one frame
        and as a string in another is refused (:func:`~workbench.data.trec.ranked.check_given_ids`)."""
        from workbench.data.trec.frames import judgements_from_frame, runs_from_frames

        return cls._checked(judgements_from_frame(qrels, query=query, document=document, relevance=relevance),
                            runs_from_frames(runs, query=query, document=document, score=score, system=system,
                                             score_precision=score_precision, max_docs=max_docs))

    @classmethod
    @validate(qrels=QRELS, runs=RUNS, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
    def from_dicts(cls, qrels: Mapping[str, Mapping[str, float]],
                   runs: Mapping[str, Mapping[str, Mapping[str, float]]], *, score_precision: str = "float64",
                   max_docs: int | None = None) -> Campaign:
        """A campaign from pytrec_eval-style dicts: qrels ``{query: {doc: relevance}}``, runs
        ``{system: {query: {doc: score}}}``; ids are strings, or integers read as their text, and a topic given as
        ``1`` in one dict and ``"1"`` in another (or both in one) is refused, naming both."""
        from workbench.data.trec.memory import judgements_from_dicts, runs_from_dicts

        return cls._checked(judgements_from_dicts(qrels),
                            runs_from_dicts(runs, score_precision=score_precision, max_docs=max_docs))

    @classmethod
    @validate(qrels=RECORDS, runs=RUNS_OF_RECORDS, score_precision=SCORE_PRECISION, max_docs=MAX_DOCS)
    def from_namedtuples(cls, qrels: Iterable, runs: Mapping[str, Iterable], *, score_precision: str = "float64",
                         max_docs: int | None = None) -> Campaign:
        """A campaign from ir_datasets-style records: qrels with ``query_id, doc_id, relevance`` (e.g.
        ``dataset.qrels_iter()``), runs ``{system: records with query_id, doc_id, score}`` (e.g.
        ``scoreddocs_iter()``)."""
        from workbench.data.trec.memory import judgements_from_records, runs_from_records

        return cls._checked(judgements_from_records(qrels),
                            runs_from_records(runs, score_precision=score_precision, max_docs=max_docs))

    @classmethod
    def _checked(cls, gold: Judgements, runs: Mapping[str, RankedRun]) -> Campaign:
        """A campaign of judgements and runs read from what users hold, their topics given alike."""
        check_given_ids(gold, runs)
        return cls(gold, runs)

    @property
    def kind(self) -> str:
        """What the campaign holds (:data:`KINDS`): ``"ranking"`` (judgements and ranked runs),
        ``"classification"`` (Labellings) or ``"organization"``."""
        if isinstance(self.gold, Judgements):
            return "ranking"
        first = next(iter(self.gold.values()))
        return "classification" if isinstance(first, Labelling) else "organization"

    def missing_topics(self) -> dict[str, list[str]]:
        """Per system, the gold topics its run lacks (systems lacking none are left out)."""
        out = {system: [t for t in self.gold if t not in run] for system, run in self.runs.items()}
        return {system: topics for system, topics in out.items() if topics}

    def extra_topics(self) -> dict[str, list[str]]:
        """Per system, the topics of its run that the gold standard lacks."""
        out = {system: [t for t in run if t not in self.gold] for system, run in self.runs.items()}
        return {system: topics for system, topics in out.items() if topics}

    @validate(measures=MEASURES, missing_topics=MISSING_TOPICS, extra_topics=EXTRA_TOPICS, progress=Flag(),
              executor=EXECUTOR, chunk_topics=CHUNK_TOPICS)
    def evaluate(self, measures: str | Measure | Iterable[str | Measure], missing_topics: str = "zero",
                 extra_topics: str = "error", progress: bool = True, *, executor: Any = None,
                 chunk_topics: int | None = None) -> pd.DataFrame:
        """Score every (system, gold topic) with :func:`workbench.evaluate`: a tidy DataFrame
        ``system, topic, measure, value`` (systems, topics and measures in the order given).

        ``missing_topics`` says what a gold topic absent from a run scores: ``"zero"`` (the default, shared
        with ``python -m workbench eval``/``compare``: as ``trec_eval -c`` scores it, on an empty ranking, so
        that every measure of retrieval is 0 and a mean is over every judged topic, while counts of the
        judgements keep their value: ``NumRel`` is the topic's number of relevant documents; every other measure
        scores its worst value, :func:`workbench.metrics.registry.worst`, never a credit: 0 where higher is
        better, 1 for ``Lam%``, and a measure unbounded where it is bad, such as ``VI``, is refused),
        ``"skip"`` (no rows; means cover the topics the run has, as trec_eval 9.x without ``-c``) or
        ``"error"``.
        ``extra_topics``: run topics the gold lacks raise (``"error"``) or are dropped (``"ignore"``).
        Whatever the policies did is in ``df.attrs["missing_topics"]`` / ``df.attrs["extra_topics"]`` and,
        when some topic was missing or dropped, in a :class:`MissingTopicsWarning`. ``progress`` shows a
        tqdm bar when the work lasts more than a second.

        R≺ S≺ R∼ S∼ F≺ F∼ are scored for every (system, topic) at once, by the campaign-level kernel
        (:mod:`workbench.metrics.campaign_rs`; several (n, W_n) settings share its counts), equal to
        :func:`workbench.reliability_sensitivity` on each pair to rounding (1e-12).

        ``executor`` spreads the work: a :class:`concurrent.futures.Executor` (``ProcessPoolExecutor()`` for
        the local cores) or a ``dask.distributed.Client`` (``pip install "ir-workbench[distributed]"``) receives
        chunks of ``chunk_topics`` gold topics (default: a few chunks per worker), each with what this campaign
        holds of its topics, and scores every measure there; the results are those of the serial run, bit for
        bit (see :mod:`workbench.data.distributed`).
        """
        return self._score(measures, missing_topics, extra_topics, progress, executor=executor,
                           chunk_topics=chunk_topics).frame()

    @validate(measures=MEASURES, missing_topics=MISSING_TOPICS, extra_topics=EXTRA_TOPICS, progress=Flag(),
              executor=EXECUTOR, chunk_topics=CHUNK_TOPICS)
    def _score(self, measures: str | Measure | Iterable[str | Measure], missing_topics: str = "zero",
               extra_topics: str = "error", progress: bool = True, *, executor: Any = None,
               chunk_topics: int | None = None) -> Scores:
        """:meth:`evaluate`'s scores as plain columns (:class:`Scores`), without pandas: what the command line
        prints from (private: ``Campaign.evaluate`` is the door)."""
        names = measure_names(measures)
        _check_fit(self.kind, names)
        policy = TopicPolicy(missing_topics, extra_topics, self.missing_topics(), self.extra_topics())
        policy.refuse()
        work = [(s, t) for s, run in self.runs.items() for t in self.gold
                if t in run or missing_topics == "zero"]
        groups = by_engine(names)  # one lookup: the engine each measure's declaration names
        unanswered = policy.unanswered(names)

        def values_of(pair: tuple[str, str], scores: dict[str, float]) -> list[float]:
            system, topic = pair
            if topic not in self.runs[system]:
                scores.update(unanswered)
            return [scores[name] for name in names]

        if executor is None:
            scored = score_pairs(Held(self.gold, self.runs), work, groups, progress=progress)
            values = chain.from_iterable(map(values_of, work, map(scored.__getitem__, work)))
        else:  # every engine on the workers, each chunk's topics scored there as here, its values taken meanwhile
            from workbench.data.distributed import score_on

            made: dict[tuple[str, str], list[float]] = {}
            score_on(executor, self.gold, self.runs, work, {name: measure for group in groups.values()
                                                            for name, measure in group.items()},
                     chunk_topics=chunk_topics, progress=progress,
                     each=lambda pairs, scores: made.update(zip(pairs, map(values_of, pairs, scores), strict=True)))
            values = chain.from_iterable(map(made.__getitem__, work))
        policy.warn(policy.without_credit(names))
        return Scores.of_pairs(work, names, values, policy.attrs(self.undefined))

    score = deprecated_method(_score, "Campaign.score", "Campaign.evaluate")

    @validate(system=ID, topic=Identifier(optional=True), measure=MEASURE, missing_topics=MISSING_TOPICS)
    def explain(self, system: str, topic: str | None, measure: str | Measure, missing_topics: str = "zero"):
        """``measure`` of ``system`` on ``topic`` explained (a :class:`~workbench.MeasureExplanation` whose rows
        add up to this campaign's value for that topic); ``topic=None`` explains every gold topic at once (a
        ``topic`` column; ``.scores`` per topic). See :mod:`workbench.data.explain`."""
        from workbench.data.explain import explain_run

        return explain_run(self, system, topic, measure, missing_topics)


Campaign.__init__ = validate(gold=ORGANIZATIONS, runs=RUN_ORGANIZATIONS, undefined=UNDEFINED)(Campaign.__init__)  # type: ignore[method-assign]


def _check_fit(kind: str, names: list[str]) -> None:
    """Refuse (classification) or warn of (ranking) the measures whose task does not fit a campaign of ``kind``
    (:data:`FITTING_TASKS`), naming the measure a peer means by that name where one fits."""
    fitting, declared = FITTING_TASKS[kind], FITTING_TASKS["organization"]
    notes = []
    for name in names:
        spec = parse(name).spec
        if spec.task in fitting or spec.task not in declared:  # a user's own task fits any campaign
            continue
        meant = _meant(name, fitting)
        note = (f"{name!r} is the {spec.task} measure {spec.name}, which does not fit a {kind} campaign"
                + (f"; {meant}" if meant else f" (its measures are of the task(s) {', '.join(fitting)})"))
        if kind == "classification":
            raise CampaignError(note)
        notes.append(note + ("" if meant else "; scored anyway, on the ranked runs read as organizations"))
    if notes:
        warn("; ".join(notes), MeasureKindWarning)


def _meant(name: str, tasks: tuple[str, ...]) -> str:
    """What a peer means by ``name`` among the measures of ``tasks``: ``"in ir_measures, Accuracy is
    PairwiseAccuracy here"``, or empty where no peer spells a fitting measure so."""
    head = re.split(r"[(@]", name, maxsplit=1)[0].strip()
    for spec in specs():
        if spec.task not in tasks:
            continue
        for tool, spelled in spec.spellings.items():
            if any(re.split(r"[ (@]", spelling, maxsplit=1)[0] == head for spelling in spelled):
                owner = tool + ("'" if tool.endswith("s") else "'s")
                return f"{owner} {head} is {spec.name} here: ask for {spec.name}"
    return ""


@validate(rows=Anything("each row is (system, topic, measure, value), as Campaign.score gives them"),
          undefined=UNDEFINED)
def summaries(rows: Iterable[tuple[str, str, str, float]], undefined: str = "nan") -> list[tuple[str, str, str, float]]:
    """Per system and measure the summary over topics that trec_eval prints in its ``all`` row: the mean of each
    measure, the sum of counts (``NumRet``, ``NumRel``...), the geometric mean of ``GMAP`` and ``GMBpref``
    (:func:`workbench.metrics.registry.aggregate`), values added in trec_eval's topic order
    (:func:`workbench.metrics.summary.summarize`). Rows ``(system, "all", measure, value)``, systems and measures
    in their order of appearance. ``undefined`` (:data:`UNDEFINED_POLICIES`): a NaN value makes the summary NaN
    (``"nan"``), or counts 0 over all topics unless every value is NaN (``"zero"``, PyEvALL's average).

    >>> summaries([("s", "q1", "AP", 0.5), ("s", "q2", "AP", 0.25), ("s", "q1", "NumRel", 3), ("s", "q2", "NumRel", 4)])
    [('s', 'all', 'AP', 0.375), ('s', 'all', 'NumRel', 7.0)]
    >>> kappas = [("s", "T1", "CohenKappa", 0.5), ("s", "T2", "CohenKappa", float("nan"))]
    >>> summaries(kappas), summaries(kappas, undefined="zero")
    ([('s', 'all', 'CohenKappa', nan)], [('s', 'all', 'CohenKappa', 0.25)])
    """
    grouped: dict[tuple[str, str], tuple[list[str], list[float]]] = {}
    for system, topic, measure, value in rows:
        topics, values = grouped.setdefault((system, measure), ([], []))
        topics.append(str(topic))
        values.append(value)
    out = []
    for (system, measure), (topics, values) in grouped.items():
        ordered = np.asarray(values, dtype=float)[trec_order(topics)]
        if undefined == "zero" and not np.isnan(ordered).all():
            ordered = np.nan_to_num(ordered, nan=0.0, posinf=np.inf, neginf=-np.inf)
        out.append((system, "all", measure, summarize(ordered, aggregate(str(measure))) if len(values) else
                    float("nan")))
    return out


@validate(results=RESULTS, wide=Flag(), undefined=Choices((*UNDEFINED_POLICIES, None)))
def means(results: pd.DataFrame, wide: bool = False, undefined: str | None = None) -> pd.DataFrame:
    """Per-system summaries over topics of a tidy result table, as trec_eval's ``all`` rows (:func:`summaries`):
    rows ``system, "all", measure, value``, or with ``wide=True`` a system × measure table. Measures and systems
    keep their order. ``undefined``: how an undefined (NaN) value enters a mean (:data:`UNDEFINED_POLICIES`);
    None, the rule of the campaign that scored the results (``results.attrs["undefined"]``: ``"zero"`` for a
    campaign of PyEvALL's files, as PyEvALL averages), ``"nan"`` for a table without one."""
    missing = set(COLUMNS) - set(results.columns)
    if missing:
        raise CampaignError(f"results lack column(s) {sorted(missing)}; expected {', '.join(COLUMNS)}")
    if undefined is None:
        undefined = undefined_policy(results.attrs)
    grouped = Scores.from_rows(summaries(results[list(COLUMNS)].itertuples(index=False), undefined), {}).frame()
    if wide:
        table = grouped.pivot(index="system", columns="measure", values="value")
        table = table.loc[list(dict.fromkeys(grouped["system"])), list(dict.fromkeys(grouped["measure"]))]
        table.columns.name = None
        table.attrs = dict(results.attrs)
        return table
    grouped.attrs = dict(results.attrs)
    return grouped


def undefined_policy(attrs: Mapping) -> str:
    """The rule for undefined values that a result table's ``attrs`` carry (:attr:`Campaign.undefined`), ``"nan"``
    when they carry none."""
    policy = attrs.get("undefined", {})
    return policy.get("policy", "nan") if isinstance(policy, Mapping) else "nan"
