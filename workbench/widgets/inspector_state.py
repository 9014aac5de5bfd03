"""The inspector of two runs without widgets: which two systems, which measure, which topic, how many documents,
which document; the per-topic differences (:func:`workbench.analysis.topic_deltas`) and, for the topic shown,
both runs' documents with what each contributes (:meth:`workbench.Campaign.explain`). Plain Python over plain
data: :class:`~workbench.widgets.inspector.Inspector` draws it, scripts and tests drive it without a browser.

Every setter checks first and changes nothing on bad input: it raises a named
:class:`~workbench.errors.WorkbenchError` (the validator's :class:`~workbench.errors.ParameterError` for a value
outside its domain) and :attr:`message` says the same, the last valid view staying. A topic a run lacks is scored
as trec_eval ``-c`` scores it (its placeholder ranking); the placeholder is no document: that run shows no rows
but the relevant documents it misses, and :attr:`InspectorState.unanswered` names it.
Nothing here computes a score: the campaign scores, ``topic_deltas`` compares, ``Campaign.explain`` explains.

    >>> import workbench as wb
    >>> campaign = wb.Campaign.from_dicts({"q1": {"a": 1, "b": 1}, "q2": {"c": 1}},
    ...                                   {"A": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"x": 1.0}},
    ...                                    "B": {"q1": {"x": 2.0, "a": 1.0}, "q2": {"c": 1.0}}})
    >>> state = InspectorState(campaign, ("A", "B"), "AP")
    >>> state.deltas[["topic", "difference", "winner"]].values.tolist()
    [['q1', 0.75, 'A'], ['q2', -1.0, 'B']]
    >>> state.topic, state.scores
    ('q1', {'A': 1.0, 'B': 0.25})
    >>> state.table.groupby("system").contribution.sum().to_dict()
    {'A': 1.0, 'B': 0.25}
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pandas as pd

from workbench.analysis import topic_deltas
from workbench.analysis.paired_tests import TESTS
from workbench.charts.builders import require_columns
from workbench.data.campaign import COLUMNS, Campaign
from workbench.data.explain import UnknownSystemError, UnknownTopicError
from workbench.data.trec.join import PLACEHOLDER
from workbench.data.trec.ranked import Judgements
from workbench.errors import WorkbenchError, quoted
from workbench.metrics.explanations import DocumentNotExplainedError, MeasureExplanation, PartNotFoundError
from workbench.metrics.registry import Measure, direction, parse
from workbench.validation import AnyOf, Choices, Instance, Interval, ListOf, Text, check, validate
from workbench.widgets.errors import MeasureNotScoredError

__all__ = ["DEFAULT_MEASURES", "TABLE_COLUMNS", "DIFFERENCE_COLUMNS", "SYSTEMS", "MEASURE", "K", "ARGUMENTS",
           "campaign_task", "InspectorState"]

DEFAULT_MEASURES = {
    "ranking": ("AP", "nDCG@10", "P@10", "RR", "ERR@20"),
    "clustering": ("BCubed-F", "BCubed-P", "BCubed-R", "F(P,IP)", "Purity", "InversePurity"),
    "filtering": ("F", "Accuracy", "Precision", "Recall", "Reliability", "Sensitivity"),
    "organization": ("R≺(n=10, wn=0.8)", "S≺(n=10, wn=0.8)", "R∼(n=10, wn=0.8)", "S∼(n=10, wn=0.8)"),
}
TABLE_COLUMNS = ["system", "group", "rank", "document", "gold", "judged", "contribution", "lost"]  # (and part)
DIFFERENCE_COLUMNS = ["document", "gold", "contribution_a", "contribution_b", "difference"]
SYSTEMS = ListOf(Text(), shortest=2, longest=2)
"""The domain of the two systems compared (that the campaign has them, different, depends on it)."""
MEASURE = AnyOf(Text(), Instance((Measure,), "a Measure"), what="a measure (its name or a Measure)")
"""The domain of a measure named (that the campaign scored it depends on the campaign)."""
K = Interval(1, 100_000, integer=True)
"""The domain of ``k``, the documents shown per run."""
ARGUMENTS = {"campaign": Instance((Campaign,), "a Campaign"), "systems": replace(SYSTEMS, optional=True),
             "measure": AnyOf(MEASURE, Choices((None,)), what=f"{MEASURE} or None"),
             "measures": ListOf(MEASURE, shortest=1, optional=True),
             "results": Instance((pd.DataFrame,), "a tidy results DataFrame (system, topic, measure, value)",
                                 optional=True),
             "k": K, "test": Choices(tuple(TESTS))}
"""The domains of the inspector's arguments (:class:`InspectorState` and the view that draws it)."""


def campaign_task(campaign: Campaign) -> str:
    """What the campaign's gold standards are: ``ranking`` (judgements, or levels of single documents over an
    unlimited tail), ``filtering`` (one level of single documents over a finite rest), ``clustering`` (one level of
    clusters over a finite rest) or ``organization`` (clusters on several levels, or over an unlimited tail)."""
    if isinstance(campaign.gold, Judgements):
        return "ranking"
    golds = list(campaign.gold.values())
    flat = all(gold.finite and len(gold.levels) <= 1 for gold in golds)
    singletons = all(len(cluster) == 1 for gold in golds for level in gold.levels for cluster in level)
    if singletons:
        return "filtering" if flat else "ranking"
    return "clustering" if flat else "organization"


class InspectorState:
    """See the module docstring. ``systems`` default to the campaign's first two; ``measures`` (what
    :attr:`measure` may switch among) to ``measure`` and a few of the campaign's task (:data:`DEFAULT_MEASURES`),
    or the measures of ``results`` when a tidy result table is given (else the campaign scores them); ``k``
    documents of each run are shown."""

    @validate(**ARGUMENTS)
    def __init__(self, campaign: Campaign, systems: Sequence[str] | None = None, measure: str | None = None, *,
                 measures: Sequence[str] | None = None, results: pd.DataFrame | None = None, k: int = 10,
                 test: str = "t") -> None:
        self.campaign = campaign
        self.task = campaign_task(campaign)
        if results is not None:
            require_columns(results, COLUMNS, "InspectorState")
            scored = list(dict.fromkeys(results["measure"].astype(str)))
            measures = list(measures) if measures is not None else scored
        elif measures is None:
            defaults = DEFAULT_MEASURES[self.task]
            measures = list(dict.fromkeys([measure, *defaults] if measure else defaults))
        self.measures = [str(m) for m in measures]
        for name in self.measures:
            parse(name)
        self.message = ""
        self._test = test
        if results is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the campaign's notes on missing topics: scored as trec_eval -c
                results = campaign.evaluate(self.measures, progress=False)
        self.results = results
        self._explained: dict[tuple[str, str], tuple[MeasureExplanation, dict]] = {}
        self._table_for: tuple = ((), None)
        chosen = tuple(systems) if systems is not None else tuple(list(campaign.runs)[:2])
        self._systems, self._measure = self._checked_systems(chosen), self._checked_measure(measure or
                                                                                            self.measures[0])
        self._k = int(k)
        self._deltas = self._compare(self._systems, self._measure)
        self._topic = str(self._deltas["topic"].iloc[0])
        self._document: str | None = None
        self._part = self.parts[0] if self.parts else None

    # ------------------------------------------------------------------------------------------- state
    @property
    def systems(self) -> tuple[str, str]:
        """The two systems compared, ``(a, b)``: differences are a − b."""
        return self._systems

    @systems.setter
    def systems(self, value: Sequence[str]) -> None:
        systems = self._refusing(lambda: self._checked_systems(
            tuple(check(value, SYSTEMS, "systems", "InspectorState.systems"))))
        deltas = self._refusing(lambda: self._compare(systems, self._measure))
        self._systems, self._deltas = systems, deltas
        self.message = ""

    @property
    def measure(self) -> str:
        """The measure compared and explained, one of :attr:`measures`."""
        return self._measure

    @measure.setter
    def measure(self, value: str) -> None:
        measure = self._refusing(lambda: self._checked_measure(check(value, MEASURE, "measure",
                                                                     "InspectorState.measure")))
        deltas = self._refusing(lambda: self._compare(self._systems, measure))
        self._measure, self._deltas = measure, deltas
        self._part = self.parts[0] if self.parts else None
        self.message = ""

    @property
    def part(self) -> str | None:
        """For a measure explained through parts, the part whose rows are shown (None for a sum)."""
        return self._part

    @part.setter
    def part(self, value: str | None) -> None:
        self._refusing(lambda: check(value, Text(optional=True), "part", "InspectorState.part"))
        if value not in (self.parts or [None]):
            self._refuse(PartNotFoundError(f"{self._measure} has no part {quoted(value)}; its parts: "
                                           f"{', '.join(self.parts) or 'none (a sum over documents)'}"))
        self._part = value
        self.message = ""

    @property
    def topic(self) -> str:
        """The topic whose two runs are shown."""
        return self._topic

    @topic.setter
    def topic(self, value: str) -> None:
        self._refusing(lambda: check(value, AnyOf(Text(), Interval(integer=True), what="a topic"), "topic",
                                     "InspectorState.topic"))
        topics = self._deltas["topic"].astype(str).tolist()
        if str(value) not in topics:
            self._refuse(UnknownTopicError(f"no topic {quoted(value)} to inspect; the topics: "
                                           f"{', '.join(map(repr, topics[:10]))}"
                                           + (f" and {len(topics) - 10} more" if len(topics) > 10 else "")))
        self._topic = str(value)
        self.message = ""

    @property
    def k(self) -> int:
        """How many documents of each run are shown (every one when larger than the run)."""
        return self._k

    @k.setter
    def k(self, value: int) -> None:
        self._k = int(self._refusing(lambda: check(value, K, "k", "InspectorState.k")))
        self.message = ""

    @property
    def document(self) -> str | None:
        """The document picked (linked across both lists); None: none."""
        return self._document

    @document.setter
    def document(self, value: str | None) -> None:
        self._refusing(lambda: check(value, Text(optional=True), "document", "InspectorState.document"))
        if value is not None and value not in set(self.table["document"].dropna().astype(str)):
            self._refuse(DocumentNotExplainedError(f"document {quoted(value)} is in neither run's explanation of "
                                                   f"topic {quoted(self._topic)}"))
        self._document = value
        self.message = ""

    # ------------------------------------------------------------------------------------------ views
    @property
    def deltas(self) -> pd.DataFrame:
        """Per topic: ``topic, value_a, value_b, difference, advantage, winner``, the topics where ``a`` wins most
        first (:func:`workbench.analysis.topic_deltas`; ``attrs["test"]``: the paired test)."""
        return self._deltas

    @property
    def test(self) -> dict:
        """The paired test of the whole comparison (``deltas.attrs["test"]``)."""
        return self._deltas.attrs["test"]

    @property
    def scores(self) -> dict[str, float]:
        """Each system's value on the topic shown, as the campaign scored it."""
        row = self._deltas[self._deltas["topic"].astype(str) == self._topic].iloc[0]
        a, b = self._systems
        return {a: float(row["value_a"]), b: float(row["value_b"])}

    @property
    def table(self) -> pd.DataFrame:
        """Both runs' rows on the topic shown (:meth:`workbench.Campaign.explain`): ``system, group`` (the rank,
        cluster, outcome or level a row sits in), ``rank, document, gold`` (grade, class or gold label),
        ``judged``, any ``part``, ``contribution`` and ``lost``; per system the contributions add up to its
        :attr:`scores` (for a measure explained through parts, to each part)."""
        key = (self._systems, self._measure, self._topic)
        if self._table_for[0] != key:
            self._table_for = (key, pd.concat([self.rows(system) for system in self._systems], ignore_index=True))
        return self._table_for[1]

    @property
    def unanswered(self) -> tuple[str, ...]:
        """The systems compared whose run lacks the topic shown (scored as trec_eval ``-c`` scores a topic a run
        lacks; the view says so)."""
        return tuple(system for system in self._systems if self._topic not in self.campaign.runs[system])

    @validate(system=Text())
    def rows(self, system: str) -> pd.DataFrame:
        """One system's rows of :attr:`table` (of any system of the campaign). A run that lacks the topic has no
        ranked document: trec_eval's placeholder, which scores it, is not shown."""
        explanation, rows_of = self._explanation(system, self._measure)
        rows = explanation.contributions.iloc[rows_of.get(self._topic, np.zeros(0, dtype=np.int64))]
        if system in self.campaign.runs and self._topic not in self.campaign.runs[system]:
            rows = rows[rows["document"].astype(str) != PLACEHOLDER]
        return _shaped(rows, system, self.task)

    @property
    def explanation(self) -> dict[str, MeasureExplanation]:
        """Each system's explanation of the measure on the whole run (cached)."""
        return {system: self._explanation(system, self._measure)[0] for system in self._systems}

    @property
    def parts(self) -> list[str]:
        """The parts the measure is explained through ([] for a sum over documents)."""
        explanation = self._explanation(self._systems[0], self._measure)[0]
        return [] if explanation.is_sum else list(explanation.parts)

    def difference(self) -> pd.DataFrame:
        """The documents that make the difference on the topic shown, largest first: ``document, gold,
        contribution_a, contribution_b, difference`` (a − b, turned so that a positive difference favours ``a``
        whatever the measure's direction); with parts, one block per part (a ``part`` column)."""
        table = self.table
        a, b = self._systems
        table = table[table["document"].notna()]
        parted = "part" in table.columns
        keys = (table["part"].astype(str) + "\x00" if parted else "") + table["document"].astype(str)
        codes, uniques = pd.factorize(keys)
        first = np.unique(codes, return_index=True)[1]
        mine = (table["system"] == a).to_numpy()
        values = table["contribution"].to_numpy(dtype=float)
        sum_a = np.bincount(codes, np.where(mine, values, 0.0), minlength=len(uniques))
        sum_b = np.bincount(codes, np.where(mine, 0.0, values), minlength=len(uniques))
        sign = -1.0 if direction(self._measure) == "lower" else 1.0
        frame = pd.DataFrame({**({"part": table["part"].to_numpy()[first]} if parted else {}),
                              "document": table["document"].to_numpy()[first], "gold": table["gold"].to_numpy()[first],
                              "contribution_a": sum_a, "contribution_b": sum_b,
                              "difference": sign * (sum_a - sum_b)})
        return frame.iloc[np.argsort(-np.abs(frame["difference"].to_numpy()), kind="stable")].reset_index(drop=True)

    # -------------------------------------------------------------------------------------- plumbing
    def _refuse(self, problem: Exception):
        self.message = str(problem)
        raise problem

    def _refusing(self, make):
        """``make()``, or its named error said in :attr:`message` and raised (nothing changes)."""
        try:
            return make()
        except WorkbenchError as problem:
            self.message = str(problem)
            raise

    def _checked_systems(self, systems: tuple) -> tuple[str, str]:
        """Two different systems the campaign has (inside :data:`SYSTEMS`), else :class:`UnknownSystemError`."""
        if systems[0] == systems[1]:
            raise UnknownSystemError(f"inspect two different systems, got {quoted(list(systems))}")
        for system in systems:
            if system not in self.campaign.runs:
                raise UnknownSystemError(f"no system {quoted(system)} in the campaign; its systems: "
                                         f"{', '.join(map(quoted, self.campaign.runs))}")
        return systems[0], systems[1]

    def _checked_measure(self, value: str) -> str:
        name = str(value)
        if name not in self.measures:
            spelled = str(parse(name))  # an unknown name raises UnknownMeasureError here
            same = [m for m in self.measures if str(parse(m)) == spelled]
            if not same:
                raise MeasureNotScoredError(f"the campaign did not score {name!r}; the inspector's measures: "
                                            f"{', '.join(self.measures)}")
            name = same[0]
        return name

    def _compare(self, systems: tuple[str, str], measure: str) -> pd.DataFrame:
        return topic_deltas(self.results, systems[0], systems[1], measure, test=self._test, missing="intersection")

    def _explanation(self, system: str, measure: str) -> tuple[MeasureExplanation, dict[str, np.ndarray]]:
        """The whole run's explanation and each topic's row positions in it (computed once)."""
        key = (system, measure)
        if key not in self._explained:
            explanation = self.campaign.explain(system, None, measure)
            topics = explanation.contributions["topic"].astype(str).to_numpy()
            order = np.argsort(topics, kind="stable")
            names, starts = np.unique(topics[order], return_index=True)
            ends = np.append(starts[1:], len(order))
            self._explained[key] = (explanation, {str(name): np.sort(order[s:e]) for name, s, e in
                                                  zip(names, starts, ends, strict=True)})
        return self._explained[key]


def _shaped(rows: pd.DataFrame, system: str, task: str) -> pd.DataFrame:
    """An explanation's rows in the inspector's columns: the group each row sits in and its gold label."""
    n = len(rows)
    none = pd.array([pd.NA] * n, dtype="Int64")
    if "rank" in rows.columns:  # a ranking
        rank = rows["rank"].to_numpy(dtype=float, na_value=np.nan)
        group = np.where(np.isnan(rank), "missed", np.nan_to_num(rank).astype(np.int64).astype(str))
        columns = {"group": group, "rank": rows["rank"].array, "gold": rows["grade"].to_numpy(),
                   "judged": rows["judged"].array}
    elif "outcome" in rows.columns:  # a filtering
        columns = {"group": rows["outcome"].to_numpy(), "rank": none,
                   "gold": rows["gold"].to_numpy() if "gold" in rows.columns else None, "judged": True}
    elif "level" in rows.columns:  # an organization (R&S)
        clusters = rows["cluster"].astype(object).to_numpy()
        group = [f"level {level}" + ("" if cluster is pd.NA or cluster is None else f" · cluster {cluster}")
                 for level, cluster in zip(rows["level"].to_numpy(), clusters, strict=True)]
        columns = {"group": group, "rank": none, "gold": None, "judged": True}
    else:  # a clustering
        columns = {"group": rows["cluster"].to_numpy() if "cluster" in rows.columns else "", "rank": none,
                   "gold": rows["class"].to_numpy() if "class" in rows.columns else None, "judged": True}
    frame = {"system": system, **columns, "document": rows["document"].to_numpy()}
    if "part" in rows.columns:
        frame["part"] = rows["part"].to_numpy()
    frame |= {"contribution": rows["contribution"].to_numpy(), "lost": rows["lost"].to_numpy()}
    return pd.DataFrame(frame, index=pd.RangeIndex(n))
