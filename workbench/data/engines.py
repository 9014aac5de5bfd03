"""How a campaign's measures are computed in bulk: one engine per kind of table, named by the measure's declaration
(:attr:`~workbench.metrics.registry.MeasureSpec.engine`), the one place that chooses how a measure is scored.

Every engine has the same four methods:

* ``score(held, pairs, measures)``: ``{(system, topic): {name: value}}`` for every pair, from what the caller holds
  (:class:`Held`: the campaign's gold and runs; a chunk of a distributed campaign on a worker);
* ``explain(gold, run, topics, system, measure)``: the explanation of one system's run on ``topics``, through the
  very table ``score`` reads (so its rows add up to the campaign's values);
* ``score_pair(gold, output, measures)`` and ``explain_pair(gold, output, measure)``: one (gold, output) pair,
  :func:`workbench.evaluate`'s and :func:`workbench.explain`'s (:mod:`workbench.data.one_pair`); every engine here
  answers them by the declaration (:class:`ByDeclaration`: its ``compute``, :func:`~workbench.metrics.per_topic.
  evaluate_topic`, equal to ``score``'s value on that pair, and its explainer);

and the engines of tables also ``values(table, measure)``: a measure on every row of a table built elsewhere (the
``trec_eval`` drop-in's, read from its files).

The engines (:data:`ENGINES`, keyed by the declared name):

* ``"gain table"``: a whole run at once on the one gain table (:func:`~workbench.data.trec.join.gain_table`, the
  join), a topic the run lacks on trec_eval's ``-c`` placeholder ranking;
* ``"subtopic table"``: the same over the subtopic table the diversity measures read (a lacking topic: an empty
  ranking);
* ``"R&S"``: every (system, topic) at once by the campaign-level kernel (:mod:`workbench.metrics.campaign_rs`);
* ``"per topic"``: each (gold, output) pair by its declaration's ``compute`` (``score_pair``);
* ``"preferences"``, ``"judgement groups"``: trec_eval's measures of ``-R prefs`` and ``-R qrels_jg``, whose tables
  only the ``trec_eval`` drop-in reads (a campaign refuses them, saying so).

Every engine runs where the runs are held: in the caller, or on an executor's workers
(:mod:`workbench.data.distributed`), each of which holds a chunk's topics and scores them by
:func:`score_pairs` as the caller would. Callers group their measures with :func:`by_engine`::

    >>> from workbench.data.campaign import Campaign
    >>> campaign = Campaign.from_dicts({"q1": {"a": 1, "b": 1}}, {"s": {"q1": {"a": 0.9, "x": 0.5}}})
    >>> [(engine.name, list(measures)) for engine, measures in by_engine(["AP", "NMI", "P@2"]).items()]
    [('gain table', ['AP', 'P@2']), ('per topic', ['NMI'])]
    >>> ENGINES["gain table"].score(Held(campaign.gold, campaign.runs), [("s", "q1")], {"AP": parse("AP")})
    {('s', 'q1'): {'AP': 0.5}}
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from workbench.data.scoring import outputs_of, score_topic, unanswered_values
from workbench.data.trec.join import gain_table, subtopic_table
from workbench.data.trec.memory import topic_blocks
from workbench.data.trec.ranked import Judgements, RankedRun
from workbench.errors import CampaignError, WorkbenchError
from workbench.ids import DocumentIds
from workbench.metrics.campaign_rs import Encoded, encode_pairs, encoded_measure_values
from workbench.metrics.per_topic import evaluate_topic
from workbench.metrics.ranking.matching import RankingRows
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.registry import Measure, UnknownMeasureError, explanation_of, parse
from workbench.metrics.summary import summarize, trec_order
from workbench.model import Organization
from workbench.progress import progress as progress_bar
from workbench.threads import in_threads
from workbench.validation import Anything, validate

if TYPE_CHECKING:  # the explanations (and pandas) are imported when a run is explained, not when it is scored
    from workbench.metrics.explanations import MeasureExplanation

__all__ = ["Pair", "Held", "Engine", "ByDeclaration", "GainTableEngine", "SubtopicTableEngine", "RSEngine",
           "PerTopicEngine", "ENGINES", "PARALLEL_CELLS", "PART_CELLS", "TOGETHER_ROWS", "engine_of", "table_values",
           "row_parts", "run_blocks", "by_engine", "score_pairs", "explain_of_nothing"]

Pair = tuple[str, str]
Scored = dict[Pair, dict[str, float]]


class Held:
    """What a caller holds to score pairs from: the gold (topic → Organization, or read judgements) and the runs
    (system → topic → Organization, or read runs); a worker of a distributed campaign holds its chunk's topics of
    both (:mod:`workbench.data.distributed`)."""

    def __init__(self, gold: Mapping[str, Organization], runs: Mapping[str, Mapping[str, Organization]]) -> None:
        self.gold, self.runs = gold, runs

    def encoded(self, pairs: Sequence[Pair]) -> tuple[Encoded, np.ndarray, Callable[[int], Organization]]:
        """The organizations of ``pairs`` encoded for the campaign-level kernel, pair i being ``which[i]``, and
        organization i on demand (a ranking held as arrays is encoded from its names, never built)."""
        outputs: dict[str, Callable[[str], Any]] = {}
        for system, _ in pairs:
            if system not in outputs:
                outputs[system] = outputs_of(self.runs[system])
        encoded, which, _ = encode_pairs([(self.gold[topic], outputs[system](topic)) for system, topic in pairs])
        return encoded, which, functools.lru_cache(maxsize=None)(encoded.organization)

    def organizations(self, pairs: Sequence[Pair]) -> Iterable[tuple[Organization, Organization]]:
        """Each pair's gold and output, in turn."""
        return ((self.gold[topic], self.runs[system][topic]) for system, topic in pairs)


class Engine(Protocol):
    """How one kind of measure is scored in bulk and explained (the module docstring)."""

    name: str
    reads: str
    """What its measures read (:data:`~workbench.metrics.registry.READS`): a campaign holds organizations; trec_eval's
    preferences and judgement groups are read by the ``trec_eval`` drop-in."""
    placeholders: bool
    """Whether ``score`` scores the topics a run lacks itself (on an empty ranking), rather than leaving them to
    the campaign's missing-value rule (:func:`~workbench.data.scoring.unanswered_values`)."""

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored: ...

    def explain(self, gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: list[str],
                system: str, measure: Measure) -> MeasureExplanation: ...

    def score_pair(self, gold: Any, output: Any, measures: Mapping[str, Measure]) -> dict[str, float]: ...

    def explain_pair(self, gold: Any, output: Any, measure: Measure) -> MeasureExplanation: ...


class ByDeclaration:
    """One (gold, output) pair as each declaration scores and explains it: its ``compute`` (for a table family, its
    kernel on a one-row table: ``tests/test_engines.py`` walks every declaration, equal to the engine's ``score``)
    and the explainer it names (:func:`~workbench.metrics.registry.explanation_of`). Bad input raises the kernel's
    own error (a gold or output the measure cannot read: :func:`workbench.evaluate` says so as it always did)."""

    def score_pair(self, gold: Any, output: Any, measures: Mapping[str, Measure]) -> dict[str, float]:
        """``{name: value}`` of one (gold, output) pair."""
        return evaluate_topic(gold, output, measures)

    def explain_pair(self, gold: Any, output: Any, measure: Measure) -> MeasureExplanation:
        """``measure`` of one (gold, output) pair, explained."""
        explainer, _ = explanation_of(measure)
        return explainer(gold, output, measure)


class _TableValues:
    """An engine whose measures score a whole table at once: :meth:`values`, one value per row."""

    def values(self, table: Any, measure: Measure, params: Mapping[str, Any] | None = None) -> np.ndarray:
        """``measure`` on every row of ``table`` (a table of this engine: a gain table, a subtopic table, trec_eval's
        preference counts or judgement-group table), with ``params`` (default: the measure's own)."""
        compute: Any = measure.spec.compute  # a batch kernel's wrapper (workbench.metrics.ranking.declare)
        return compute.score(table, **(measure.params if params is None else params))


TOGETHER_ROWS = 256
"""Runs of Organizations are joined together on one gain table of up to this many rows (a row per (system, topic);
a run with more topics on a table of its own), rather than a table per run: a table has a fixed cost (its join, each
measure's call: about 0.2 ms), paid per run and per chunk of a distributed campaign. Measured on
``benchmarks/bench_campaign.py``'s campaign (100 runs, rankings of 50, four measures of the gain table): its 8
chunks of 32 topics 0.76 CPU-s a table per run, 0.58 at 256 rows, 0.56 at 1,024, 0.62 at 4,096; the serial run
(250 topics a run) 0.66-0.69 a table per run, 0.69-0.70 at 1,000 rows, 0.74-0.76 at 4,096 (larger tables leave
the caches)."""


def _groups(held: Held, by_system: dict[str, list[str]]) -> Iterator[dict[str, list[str]]]:
    """``by_system`` (system → topics) in groups of up to :data:`TOGETHER_ROWS` rows of runs whose tables would be
    as wide: the same topics, and as many levels in their longest output (a ranking's length; a topic the run
    lacks, trec_eval's one-document placeholder); a run read as arrays (or read judgements), or holding anything but
    Organizations, in a group of its own.

    >>> runs = {"a": {"t": Organization.from_ranking(["x", "y"])}, "b": {"t": Organization.from_ranking(["y"])},
    ...         "c": {"t": Organization.from_ranking(["z", "x"])}}
    >>> list(_groups(Held({"t": Organization.from_graded({"x": 1})}, runs), {"a": ["t"], "b": ["t"], "c": ["t"]}))
    [{'a': ['t'], 'c': ['t']}, {'b': ['t']}]
    """
    filling: dict[tuple, tuple[dict[str, list[str]], int]] = {}
    together = not isinstance(held.gold, Judgements)
    for system, topics in by_system.items():
        run = held.runs[system]
        outputs = [] if not together or isinstance(run, RankedRun) else [run[topic] for topic in topics if topic in run]
        if not outputs or any(type(output) is not Organization for output in outputs):
            yield {system: topics}
            continue
        width = max([len(output.levels) for output in outputs] + [1] * (len(outputs) < len(topics)), default=0)
        group, rows = filling.get((width, *topics), ({}, 0))
        if group and rows + len(topics) > TOGETHER_ROWS:
            yield group
            group, rows = {}, 0
        group[system] = topics
        filling[width, *topics] = (group, rows + len(topics))
    for group, _ in filling.values():
        yield group


def _by_system(pairs: Sequence[Pair], gold: Iterable[str]) -> dict[str, list[str]]:
    """Per system, the topics of its pairs in the gold's order (the rows of its table)."""
    wanted: dict[str, set[str]] = {}
    for system, topic in pairs:
        wanted.setdefault(system, set()).add(topic)
    order = list(gold)
    return {system: [topic for topic in order if topic in topics] for system, topics in wanted.items()}


class _TableEngine(ByDeclaration, _TableValues):
    """A whole run scored at once on one table (:meth:`values`), a row per topic."""

    name, reads = "", "organizations"
    placeholders = True
    build: Callable[..., Any]

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored:
        out: Scored = {}
        for system, topics in _by_system(pairs, held.gold).items():
            self._score_run(held, system, topics, measures, out)
        return out

    def _score_run(self, held: Any, system: str, topics: list[str], measures: Mapping[str, Measure],
                   out: Scored) -> None:
        """``system``'s run on ``topics``, on tables of its own (:meth:`_blocks` of its topics), into ``out``; the
        blocks shared between two threads (:func:`~workbench.threads.in_threads`), as
        :func:`~workbench.data.trec.memory.evaluate_run`'s are (a block's rows score alike beside any others)."""
        run = held.runs[system]

        def scored(block: list[str]) -> dict[str, list[float]]:
            return self._table_values(type(self).build(held.gold, run, block, placeholders=True), measures)

        try:
            blocks = self._blocks(run, topics)
            for block, values in zip(blocks, in_threads(scored, blocks), strict=True):
                for row, topic in enumerate(block):
                    out[system, topic] = {name: values[name][row] for name in measures}
        except WorkbenchError as error:
            raise CampaignError(f"system {system!r}: {type(error).__name__}: {error}") from error

    def _blocks(self, run: Any, topics: list[str]) -> list[list[str]]:
        """The topics of ``run`` scored on one table at a time: all of them."""
        return [topics]

    def _table_values(self, table: Any, measures: Mapping[str, Measure]) -> dict[str, list[float]]:
        """Each measure's values on every row of ``table``, part by part (:func:`row_parts`)."""
        parts = [{name: self.values(part, measure).tolist() for name, measure in measures.items()}
                 for part in row_parts(table)]  # on this thread: two threads' arenas add 25-30 MB
        del table  # each part's temporaries went with it; the values are kept
        return {name: [value for part in parts for value in part[name]] for name in measures}


class GainTableEngine(_TableEngine):
    """The ranking measures of the one gain table (:func:`~workbench.data.trec.join.gain_table`), explained per
    document through the join's "who sits where" (:func:`~workbench.metrics.explanations.ranking.explain_table`)."""

    name = "gain table"
    build = staticmethod(gain_table)

    def _blocks(self, run: Any, topics: list[str]) -> list[list[str]]:
        """A run read as arrays is joined and scored a block of whole topics at a time (:func:`run_blocks`), as
        :func:`~workbench.data.trec.memory.evaluate_run` is, so that only a block's join and table are held at
        once; each row's values are its own whatever is scored beside it, as on a distributed campaign's chunks.
        Runs held as Organizations: all at once."""
        return run_blocks(run, topics) if isinstance(run, RankedRun) else [topics]

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored:
        """Runs held as Organizations (a campaign of hand-made Organizations, a distributed chunk of them) are
        joined several at once, those whose tables would be as wide (:func:`_groups`, up to :data:`TOGETHER_ROWS`
        rows): a row's values equal its run's own table's, bit for bit, as long as the tables are as wide (the
        built-in kernels add a row in rank order and score a row alike in any width, but a kernel registered by hand
        that adds it with numpy's pairwise ``sum`` can differ in the last bit on a wider row).
        A run whose own table would be narrower after all (its gains or its ideal gains: an output of tied
        levels, a document ranked twice) is scored on its own table, as is every run of a group the join refuses
        (its error then names the run). Runs read as arrays are scored a table per run."""
        by_system = _by_system(pairs, held.gold)
        out: Scored = {}
        for group in _groups(held, by_system):
            apart = self._score_together(held, group, measures, out) if len(group) > 1 else list(group)
            for system in apart:
                self._score_run(held, system, group[system], measures, out)
        return out

    def _score_together(self, held: Any, group: dict[str, list[str]], measures: Mapping[str, Measure],
                        out: Scored) -> list[str]:
        """The runs of ``group`` (system → topics) on one table, into ``out``; the systems left to score apart."""
        pairs = [(system, topic) for system, topics in group.items() for topic in topics]
        keys = [str(row) for row in range(len(pairs))]  # the table's rows: one per pair
        gold = {key: held.gold[topic] for key, (_, topic) in zip(keys, pairs, strict=True)}
        run = {key: held.runs[system][topic] for key, (system, topic) in zip(keys, pairs, strict=True)
               if topic in held.runs[system]}
        try:
            table = type(self).build(gold, run, keys, placeholders=True)
            ranked, ideal = table.num_ret, (table.ideal > 0).sum(axis=1)
            bounds = np.cumsum([0] + [len(topics) for topics in group.values()])
            apart = [system for system, low, high in zip(group, bounds[:-1], bounds[1:], strict=True)
                     if high > low and (ranked[low:high].max() != table.gains.shape[1]
                                        or ideal[low:high].max() != table.ideal.shape[1])]
            values = self._table_values(table, measures)
        except WorkbenchError:  # bad input: each run on its own table, whose error names the system
            return list(group)
        for row, pair in enumerate(pairs):
            if pair[0] not in apart:
                out[pair] = {name: values[name][row] for name in measures}
        return apart

    def explain(self, gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: list[str],
                system: str, measure: Measure) -> MeasureExplanation:
        from workbench.metrics.explanations.ranking import explain_table

        try:
            table, rows = gain_table(gold, run, topics, placeholders=True, documents=True)
        except Exception as error:
            if not isinstance(error, CampaignError):  # a located error says where already
                error.add_note(f"while explaining system {system!r}")
            raise
        return explain_table(table, measure, _as_columns(rows), with_topics=True)


class SubtopicTableEngine(_TableEngine):
    """The diversity measures of the subtopic table (:func:`~workbench.data.trec.join.subtopic_table`), a topic
    the run lacks on an empty ranking, explained per document and subtopic."""

    name = "subtopic table"
    build = staticmethod(subtopic_table)

    def explain(self, gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: list[str],
                system: str, measure: Measure) -> MeasureExplanation:
        from workbench.metrics.explanations.diversity import explain_subtopic_table

        subtopics = subtopic_table(gold, run, topics, placeholders=True, documents=True)
        assert subtopics.ranked is not None  # asked for: who sits where
        return explain_subtopic_table(subtopics, measure, subtopics.ranked, with_topics=True)


class PerTopicEngine(ByDeclaration):
    """Each (gold, output) by :meth:`score_pair` (:func:`~workbench.data.scoring.score_topic`: bad input raises a
    located :class:`CampaignError`), explained topic by topic by :meth:`explain_pair`."""

    name, reads = "per topic", "organizations"
    placeholders = False

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored:
        out: Scored = {}
        sides = held.organizations(pairs)
        for system, topic in progress_bar(pairs, desc="evaluating", unit="topic", shown=progress):
            gold, output = next(sides)
            out[system, topic] = score_topic(system, topic, gold, output, measures, self.score_pair)
        return out

    def explain(self, gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: list[str],
                system: str, measure: Measure) -> MeasureExplanation:
        explained = [(topic, self.explain_pair(gold[topic], run[topic], measure) if topic in run
                      else _absent(measure, system, topic)) for topic in topics]
        return _with_topics(measure, explained)


class RSEngine(PerTopicEngine):
    """R≺ S≺ R∼ S∼ F≺ F∼ of every pair in one campaign-level pass (:func:`~workbench.metrics.campaign_rs.
    encoded_measure_values`; a pair's value does not depend on the others scored with it). Input the pass refuses
    (a document ranked twice, bad parameters) is scored topic by topic instead, which raises the located error the
    serial run always raised; explained topic by topic, occurrence by occurrence."""

    name = "R&S"

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored:
        if not pairs:
            return {}
        try:
            encoded, which, organization = held.encoded(pairs)
            values = encoded_measure_values(encoded, which, measures, organization)
        except WorkbenchError:
            return super().score(held, pairs, measures, progress=progress)
        columns = [(name, values[name].tolist()) for name in measures]
        return {pair: {name: column[i] for name, column in columns} for i, pair in enumerate(pairs)}


class _DropInEngine(ByDeclaration, _TableValues):
    """trec_eval's measures of a judgement file a campaign does not hold (``reads``): the ``trec_eval`` drop-in
    builds their table from its files (preference counts, a judgement-group table) and scores it by :meth:`values`;
    a campaign refuses them (:func:`by_engine`), saying how to score them."""

    placeholders = True

    def __init__(self, reads: str) -> None:
        self.name = self.reads = reads

    def score(self, held: Any, pairs: Sequence[Pair], measures: Mapping[str, Measure], *,
              progress: bool = False) -> Scored:
        raise _refused(next(iter(measures.values())))

    def explain(self, gold: Mapping[str, Organization], run: Mapping[str, Organization], topics: list[str],
                system: str, measure: Measure) -> MeasureExplanation:
        raise _refused(measure)


def _refused(measure: Measure) -> UnknownMeasureError:
    spec = measure.spec
    return UnknownMeasureError(f"{spec.name} reads trec_eval's {spec.reads}: python -m workbench trec_eval scores "
                               f"it (-m {spec.spellings['trec_eval'][0]})")


ENGINES: dict[str, Engine] = {engine.name: engine for engine in (
    GainTableEngine(), SubtopicTableEngine(), RSEngine(), PerTopicEngine(), _DropInEngine("preferences"),
    _DropInEngine("judgement groups"))}
"""The engines by the name a declaration gives (:data:`~workbench.metrics.registry.ENGINE_NAMES`): a campaign's
four, and the two of trec_eval's measures of preferences and judgement groups, whose tables the ``trec_eval``
drop-in reads from its files."""


def engine_of(measure: str | Measure) -> Engine:
    """The engine a measure's declaration names.

    >>> engine_of("nDCG@10").name, engine_of("R≺").name, engine_of("NMI").name, engine_of("prefs_simp").name
    ('gain table', 'R&S', 'per topic', 'preferences')
    """
    return ENGINES[parse(measure).spec.engine]


def table_values(table: Any, measure: Measure, params: Mapping[str, Any] | None = None) -> np.ndarray:
    """``measure`` on every row of a table built elsewhere (the ``trec_eval`` drop-in's gain table, preference counts
    or judgement-group table), by the engine its declaration names (its ``values``; ``params``: default, the
    measure's own).

    >>> from workbench.metrics.ranking.table import GainTable
    >>> table_values(GainTable.from_gains([[1, 0], [0, 1]], [[1], [1]]), parse("P@1")).tolist()
    [1.0, 0.0]
    """
    engine = engine_of(measure)
    if not isinstance(engine, _TableValues):
        raise UnknownMeasureError(f"{measure} is scored {engine.name}, not on a table")
    return engine.values(table, measure, params)


def run_blocks(run: RankedRun, topics: list[str], block: int | None = None) -> list[list[str]]:
    """``topics`` (rows of a gain table, in order) in blocks of whole topics of about ``block`` of ``run``'s
    entries (None: :data:`~workbench.data.trec.memory.RUN_BLOCK`; :func:`~workbench.data.trec.memory.topic_blocks`;
    a topic the run lacks counts one, its placeholder): what a campaign's engine and the ``trec_eval`` drop-in join
    and score at a time.

        >>> from workbench.data.trec.memory import runs_from_dicts
        >>> run = runs_from_dicts({"s": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}})["s"]
        >>> run_blocks(run, ["q2", "q1", "q3"])
        [['q2', 'q1', 'q3']]
    """
    index = {topic: i for i, topic in enumerate(run.topics)}
    sizes = np.diff(run.offsets)
    return [topics[low:high] for low, high in topic_blocks(np.array(
        [sizes[index[topic]] if topic in index else 1 for topic in topics], dtype=np.int64), block)]


PARALLEL_CELLS = 1 << 20
"""A gain table of at least this many cells (topics × ranks) is scored in parts (:func:`row_parts`)."""
PART_CELLS = 1 << 18
"""... in parts of about this many cells, each part's temporaries freed before the next."""


@validate(table=Anything("any table an engine scores; one other than a gain table is given back whole"))
def row_parts(table: Any) -> Iterator[Any]:
    """``table`` cut into parts of whole topics to score one after the other (a campaign's engine) or on threads
    (the ``trec_eval`` drop-in's many measures, :func:`~workbench.threads.in_threads`): a gain table of
    :data:`PARALLEL_CELLS` cells or more in parts of about :data:`PART_CELLS` cells
    (:meth:`~workbench.metrics.ranking.table.GainTable.rows`: every kernel scores each topic on its own, so the
    parts' values joined are the whole table's, bit for bit); any other table whole. The measures' temporaries are a
    part's (on two threads, two parts'), not the whole table's; each part is made when it is asked for, so that the
    values its measures share (:meth:`~workbench.metrics.ranking.table.GainTable.shared`) go with it once it is
    scored. Each part holds two rows or more: numpy adds the row of a one-row matrix in pairs but the rows of a
    column-major matrix term by term (INSQ's reach), so a one-row part could differ from the whole in the last bit.

    >>> table = GainTable.from_gains(np.zeros((4, 2)), [[1]] * 4)
    >>> [part.gains.shape[0] for part in row_parts(table)]
    [4]
    """
    rows = table.gains.shape[0] if isinstance(table, GainTable) else 0
    parts = min(max(2, -(-table.gains.size // PART_CELLS)), rows // 2) if rows else 0
    if parts < 2 or table.gains.size < PARALLEL_CELLS:
        yield table
        return
    for i in range(parts):
        yield table.rows(slice(rows * i // parts, rows * (i + 1) // parts))


def by_engine(measures: Iterable[str | Measure] | Mapping[str, Measure], *,
              refuse: bool = True) -> dict[Engine, dict[str, Measure]]:
    """The measures (names, Measures keyed by their text, or a mapping name → Measure) grouped by engine, in their
    order: the one lookup every door makes. With ``refuse`` (a campaign's), a measure of trec_eval's preferences or
    judgement groups, which a campaign does not hold, is refused with how to score it; without (one pair's), its
    engine says so when asked."""
    named = measures.items() if isinstance(measures, Mapping) else (
        (measure if isinstance(measure, str) else str(measure), measure) for measure in measures)
    out: dict[Engine, dict[str, Measure]] = {}
    for name, measure in named:
        parsed = parse(measure)
        engine = engine_of(parsed)
        if refuse and engine.reads != "organizations":  # what a campaign does not hold: refused before any work
            raise _refused(parsed)
        out.setdefault(engine, {})[name] = parsed
    return out


def score_pairs(held: Any, pairs: Sequence[Pair], groups: Mapping[Engine, Mapping[str, Measure]], *,
                progress: bool = False) -> Scored:
    """Every group's measures (:func:`by_engine`) on ``pairs``, each (system, gold topic): the engines with
    ``placeholders`` first, on every pair (a topic the run lacks on its placeholder), then the others on the pairs
    whose topic the run has. What :meth:`Campaign.evaluate <workbench.data.campaign.Campaign.evaluate>` scores,
    here or on each worker for its chunk.

    >>> from workbench.data.campaign import Campaign
    >>> campaign = Campaign.from_dicts({"q1": {"a": 1}, "q2": {"b": 1}}, {"s": {"q1": {"a": 0.9, "x": 0.5}}})
    >>> groups = by_engine(["P@1", "R≺(n=2, wn=0.8)"])
    >>> score_pairs(Held(campaign.gold, campaign.runs), [("s", "q1"), ("s", "q2")], groups)
    {('s', 'q1'): {'P@1': 1.0, 'R≺(n=2, wn=0.8)': 0.9358974358974359}, ('s', 'q2'): {'P@1': 0.0}}
    """
    scored: Scored = {pair: {} for pair in pairs}
    answered = [(system, topic) for system, topic in pairs if topic in held.runs[system]]
    for engine, group in sorted(groups.items(), key=lambda item: not item[0].placeholders):
        for pair, values in engine.score(held, pairs if engine.placeholders else answered, group,
                                         progress=progress and not engine.placeholders).items():
            scored[pair].update(values)
    return scored


# ------------------------------------------------------------------------------------ explanation helpers
def _as_columns(rows: RankingRows) -> RankingRows:
    """The join's documents as the explanation's columns: ids held as arrays (a read campaign's) become pandas
    columns backed by Arrow strings, with no Python object per document."""
    import pandas as pd

    def column(documents):
        return pd.arrays.ArrowExtensionArray(documents.arrow()) if isinstance(documents, DocumentIds) else documents

    return RankingRows(column(rows.retrieved), rows.missing_rows, column(rows.missing_documents),
                       rows.missing_grades)


def _with_topics(measure: Measure, explained: list[tuple[str, MeasureExplanation]]) -> MeasureExplanation:
    """Explanations of single topics as one, a ``topic`` column first; the score is their summary over topics as
    trec_eval summarizes them, ``scores`` each topic's."""
    import pandas as pd

    from workbench.metrics.explanations import MeasureExplanation

    frames = []
    for name, each in explained:
        frame = each.contributions.copy()
        frame.insert(0, "topic", name)
        frames.append(frame)
    values = np.array([each.score for _, each in explained], dtype=float)
    names = [name for name, _ in explained]
    scores = pd.Series(values, index=pd.Index(names, name="topic"), name=str(measure))
    if len(explained) == 1:
        only = explained[0][1]
        return MeasureExplanation(only.measure, only.score, frames[0], only.parts, only.formula, only.how,
                                  only.combiner, scores.rename(only.measure))
    score = summarize(values[trec_order(names)], measure.spec.aggregate) if names else math.nan
    first = explained[0][1] if explained else explain_of_nothing(measure)
    return MeasureExplanation(str(measure), float(score), pd.concat(frames, ignore_index=True) if frames else
                              first.contributions, {part: math.nan for part in first.parts}, first.formula,
                              first.how, first.combiner, scores)


def _absent(measure: Measure, system: str, topic: str) -> MeasureExplanation:
    """A topic the run lacks, explained as the campaign scores it (``missing_topics="zero"``): at the value the
    one rule gives (:func:`~workbench.data.scoring.unanswered_values`: the measure's worst, refused where it has
    none), in one row that says so."""
    import pandas as pd

    from workbench.metrics.explanations import MeasureExplanation

    value = unanswered_values([measure], {system: [topic]})[str(measure)]
    lost = abs(float(measure.spec.range[1 if measure.spec.direction == "higher" else 0]) - value)  # to the best
    rows = pd.DataFrame({"document": [None], "what": [f"the run has no output for this topic: scored {value:g}, "
                                                      "the measure's worst value"], "contribution": [value],
                         "lost": [lost if math.isfinite(lost) else float("nan")]})
    return MeasureExplanation(str(measure), value, rows, {str(measure): value},
                              f"no output: the worst value, {value:g}", "per document")


def explain_of_nothing(measure: Measure) -> MeasureExplanation:
    """The explanation of no topic at all (a run explained over topics it all lacks, skipped): NaN, no rows."""
    import pandas as pd

    from workbench.metrics.explanations import MeasureExplanation

    rows = pd.DataFrame({"document": [], "contribution": [], "lost": []})
    return MeasureExplanation(str(measure), math.nan, rows, {str(measure): math.nan}, "no topic", "per document")
