"""A campaign scored on other processes or machines: :meth:`Campaign.evaluate` with ``executor=``.

The gold topics are cut into chunks; each chunk travels once, with what the caller holds of its topics only
(:class:`_Chunk`): the gold's and every run's Organizations of those topics, flat (:class:`_Flat`: rankings as their
distinct documents and a small code per level, read in one pass, all the chunk's runs on one numbering when every run is
rankings; other organizations as their documents in one string and their shapes as integers; pickled about 5× faster
than their frozensets), or a read campaign's judgements and runs cut to those topics on arrays of their own
(:meth:`~workbench.data.trec.ranked.RankedRun.restricted`), never the whole campaign. A worker builds its
:class:`~workbench.data.engines.Held` from them and scores the chunk's (system, topic) pairs by
:func:`~workbench.data.engines.score_pairs`, as the serial run scores the whole campaign: every engine there (the gain
and subtopic tables a row per topic, R&S in one campaign-level pass, the rest topic by topic), no measure's value
depending on the other topics or pairs scored with it, so that values are identical bit for bit (a measure registered by
hand whose kernel adds a row with numpy's pairwise ``sum`` excepted, in the last bit, where a run's table is of another
width on a chunk's topics than on all: ``docs/distributed.md``); the scores are put back in the serial order. The caller
only cuts and pickles the chunks (about 0.09 CPU-s on ``benchmarks/bench_campaign.py``'s Organization campaign, whose
serial run takes 1.4–1.5 s) and takes each chunk's scores (one object: :class:`_Rows`) into the result as the chunk
comes back, while the workers score the others (:meth:`Sent.collect`'s ``each``). A chunk is sent as soon as it is cut,
so that the workers start while the next ones are made, and scored with the cyclic garbage collector paused (its
Organizations are made at once: collection after collection over them made the chunks' work 1.4× the serial), with the
engines on one thread (``WORKBENCH_THREADS=1``: the workers already share the cores), and with freed memory kept for
reuse from chunk to chunk (:mod:`workbench.heap`: by a process pool's workers for good, as the command line keeps it,
which spared them 0.12-0.17 s of page faults; by a Dask worker until a second after its last chunk: its nanny's
``MALLOC_TRIM_THRESHOLD_=65536`` made a chunk of R&S about 1.7× slower). A process pool's chunk of read arrays carries
their bytes in a shared-memory segment, only a few KB through the pool's pipe (:class:`_Shared`: a worker waited
8-17 ms between chunks for the pipe, 0.4-7 ms now). The measures travel once per chunk with a
:class:`concurrent.futures.Executor` and once per worker with a Dask cluster (scattered with ``broadcast=True``; each
chunk is scattered too, straight to a worker rather than through the scheduler); a thread pool gets the chunks as they
are, unpickled. Built-in measures travel by name; a measure registered in the session (a custom one) travels with its
compute function, which must pickle. A worker lost mid-campaign (its scattered chunks with it) raises
:class:`CampaignInterruptedError`: Dask does not retry it elsewhere, and no partial table is returned.

    >>> from concurrent.futures import ThreadPoolExecutor
    >>> from workbench.data.campaign import Campaign
    >>> from workbench.model import Organization
    >>> gold = {"q1": Organization.from_graded({"d1": 1}), "q2": Organization.from_graded({"d3": 1})}
    >>> runs = {"sys": {"q1": Organization.from_ranking(["d2", "d1"]), "q2": Organization.from_ranking(["d3"])}}
    >>> with ThreadPoolExecutor(2) as pool:
    ...     Campaign(gold, runs).evaluate(["P@1"], executor=pool, progress=False).value.tolist()
    [0.0, 1.0]
"""

from __future__ import annotations

import dataclasses
import math
import os
import pickle
import sys
import threading
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from itertools import chain, islice, repeat
from types import MappingProxyType
from typing import Any

import numpy as np
import pandas as pd

from workbench.data.engines import Held, Pair, by_engine, score_pairs
from workbench.data.scoring import CampaignError, topics_text
from workbench.data.trec.ranked import Judgements, RankedRun
from workbench.heap import collector_paused, freed_memory_kept, keep_freed_memory
from workbench.metrics.registry import Measure, MeasureSpec, UnknownMeasureError, parse
from workbench.model import Organization
from workbench.model.organization import Occurrences
from workbench.threads import THREADS_VARIABLE
from workbench.validation import Interval, validate

__all__ = ["CHUNKS_PER_WORKER", "LOCAL_CLUSTER_CONFIG", "SHARED_DIRECTORY", "CampaignInterruptedError",
           "UnpicklableMeasureError", "local_cluster", "score_on", "send", "Sent"]

CHUNKS_PER_WORKER = 4
"""Default chunking: about this many chunks per worker, so that a slow chunk does not idle the others and the
progress bar moves, while each organization still travels once."""


LOCAL_CLUSTER_CONFIG = MappingProxyType({
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
})
"""Dask settings of the cluster :func:`local_cluster` starts: a worker's event loop (its main thread) otherwise
takes the interpreter from the thread that scores a chunk many times a second, for its statistical profiler
(sampled every 10 ms, folded every second), its event loop's tick (20 ms) and its memory monitor (100 ms): measured
on a worker running Python for 2 s, 0.16-0.21 CPU-s of its main thread with Dask's defaults, 0.03-0.04 s with
these (0.3-0.38 s a worker on ``benchmarks/bench_campaign.py``'s Organization campaign). The memory limit still
holds, checked every second; the dashboard's profile page is empty."""


@validate(workers=Interval(1, 1024, integer=True))
def local_cluster(workers: int = 2) -> Any:
    """A ``dask.distributed.LocalCluster`` of ``workers`` processes of one thread each (the scoring is Python and
    numpy: threads of one process share one core for most of it), no dashboard, its workers started under
    :data:`LOCAL_CLUSTER_CONFIG`; needs ``pip install "ir-workbench[distributed]"``. A cluster of your own, with
    Dask's defaults, works as well, at the cost of the workers' main threads.

    Example (not run here: it starts processes)::

        with local_cluster(2) as cluster, Client(cluster) as client:
            campaign.evaluate(["AP", "nDCG@10"], executor=client)
    """
    import logging

    import dask
    from distributed import LocalCluster

    with dask.config.set(dict(LOCAL_CLUSTER_CONFIG)):  # the nannies pass the settings on to their workers
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                            silence_logs=logging.ERROR)


class CampaignInterruptedError(CampaignError):
    """The executor failed before every chunk was scored (a worker died, the cluster went away).

    ``topics`` lists the gold topics whose chunks were not scored; no result is kept (evaluate again)."""

    def __init__(self, message: str, topics: Sequence[str]) -> None:
        super().__init__(message)
        self.topics = list(topics)


class UnpicklableMeasureError(CampaignError):
    """A custom measure cannot travel to the executor's workers; the message names it."""


@dataclass(frozen=True)
class _Chunk:
    """What one worker gets: some gold topics, what the caller holds of them only (the gold's and each run's
    Organizations of those topics as they are, or a read campaign's arrays cut to them:
    :meth:`~workbench.data.trec.ranked.RankedRun.restricted`), and the (system, topic) pairs to score, in order."""

    topics: list[str]
    gold: Mapping[str, Organization]
    runs: dict[str, Mapping[str, Organization]]
    pairs: list[Pair]

    def __reduce__(self) -> tuple:
        """Pickled with the Organizations flat (:class:`_Flat`): the gold's, and every run's together when all the
        runs are rankings (:meth:`_Flat.of_runs`: one numbering of the chunk's documents), else each run's."""
        runs = list(self.runs.values())
        together = _Flat.of_runs(runs)
        return _Chunk._unflattened, (self.topics, _Flat.of(self.gold), list(self.runs),
                                     [_Flat.of(run) for run in runs] if together is None else together, self.pairs)

    @staticmethod
    def _unflattened(topics: list[str], gold: Any, systems: list[str], runs: Any, pairs: list[Pair]) -> _Chunk:
        held = runs.mappings() if isinstance(runs, _Flat) else [_Flat.mapping(run) for run in runs]
        return _Chunk(topics, _Flat.mapping(gold), dict(zip(systems, held, strict=True)), pairs)


@dataclass(frozen=True)
class _Flat:
    """Organizations (topic → Organization) as they travel, made and read by iterators that run in C; pickled
    about 5× faster than the frozensets themselves (the caller's share of a distributed campaign's work). Rankings
    (every level one cluster of one document: :meth:`of_rankings`) as each distinct document once and each level's
    document as its index in them (``codes``, an array pickled as one buffer); other organizations as every
    document, cluster by cluster, in one string (:func:`_joined`) and their shape as integers (each level's number
    of clusters, each cluster's size). Either way each organization's number of levels, its rest and its grades.
    Several mappings travel as one (``counts``: how many of ``topics`` each has): a chunk's runs, all rankings,
    share one numbering of their documents (:meth:`of_runs`)."""

    topics: list[str]
    documents: str | list[str]
    codes: array | None
    levels: list[int]
    clusters: list[int]
    sizes: list[int]
    rests: list[frozenset[str] | None]
    grades: list[tuple[float, ...] | None]
    counts: list[int]

    @classmethod
    def of(cls, held: Mapping[str, Organization]) -> Any:
        """A dict of Organizations flat; anything else (arrays, labellings) as it is."""
        organizations = list(held.values()) if isinstance(held, dict) else []
        if not organizations or any(type(organization) is not Organization for organization in organizations):
            return held
        first = organizations[0]
        if first.n_occurrences == len(first.levels):  # a ranking: the others are likely rankings too
            ranked = cls.of_rankings(list(held), organizations, [len(organizations)])
            if ranked is not None:
                return ranked
        levels = list(chain.from_iterable(organization.levels for organization in organizations))
        clusters = list(chain.from_iterable(levels))
        return cls(list(held), _joined(list(chain.from_iterable(clusters))), None,
                   [len(o.levels) for o in organizations], list(map(len, levels)), list(map(len, clusters)),
                   [o.rest for o in organizations], [o.grades for o in organizations], [len(organizations)])

    @classmethod
    def of_runs(cls, runs: list[Mapping[str, Organization]]) -> _Flat | None:
        """A chunk's runs as one (:meth:`of_rankings` over all their organizations: each distinct document of the
        chunk once, rather than once per run: 100 rather than 10,000 strings a chunk of 100 runs on 100
        documents, and one numbering rather than 100), or None unless every run is a dict of rankings."""
        if not all(isinstance(run, dict) for run in runs):
            return None
        organizations = list(chain.from_iterable(run.values() for run in runs))
        if not organizations or any(type(organization) is not Organization for organization in organizations):
            return None
        return cls.of_rankings(list(chain.from_iterable(runs)), organizations, list(map(len, runs)))

    @classmethod
    def of_rankings(cls, topics: list[str], organizations: list[Organization], counts: list[int]) -> _Flat | None:
        """Rankings in one pass over their documents, each numbered as it first occurs (``setdefault`` with the
        number of documents met so far: the codes stay small), or None if some organization is not a ranking.
        An organization's levels and clusters are never empty (its constructor's declaration), so as many
        documents as levels means every level one cluster of one document. Rankings that hold their occurrences
        (:meth:`Organization.from_ranking` keeps them) are numbered from those arrays by :func:`pandas.factorize`
        instead, which also numbers in order of first occurrence: 3 rather than 12 ms a chunk of 32 topics × 100
        rankings of 25."""
        levels = [len(organization.levels) for organization in organizations]
        held_arrays = [vars(organization).get("occurrences") for organization in organizations]
        documents: list[str]
        if all(occurrences is not None and len(occurrences.document) == count
               for occurrences, count in zip(held_arrays, levels, strict=True)):  # rankings without a rest
            arrays = [occurrences.document for occurrences in held_arrays if occurrences is not None]  # every one
            numbers, distinct = pd.factorize(np.concatenate(arrays))
            documents, codes = distinct.tolist(), array("I", numbers.astype(np.uint32).tobytes())
        else:
            index: dict[str, int] = {}
            codes = array("I", map(index.setdefault, chain.from_iterable(chain.from_iterable(chain.from_iterable(
                organization.levels for organization in organizations))), map(len, repeat(index))))
            if len(codes) != sum(levels):
                return None
            documents = list(index)
        return cls(topics, documents, codes, levels, [], [], [o.rest for o in organizations],
                   [o.grades for o in organizations], counts)

    @staticmethod
    def mapping(held: Any) -> Mapping[str, Organization]:
        """The Organizations of one mapping again (anything else as it travelled)."""
        return held.mappings()[0] if isinstance(held, _Flat) else held

    def mappings(self) -> list[dict[str, Organization]]:
        """Each mapping's Organizations again (as unpickling builds them: what the caller held, unchecked)."""
        ranked = None
        if self.codes is not None:
            levels = _ranked(self.documents, self.codes)
            # every level's document at once, each ranking's occurrences a slice of it (as from_ranking keeps them)
            ranked = np.asarray(self.documents, dtype=object)[np.frombuffer(self.codes, dtype=self.codes.typecode)]
        else:
            documents = self.documents.split(_SEPARATOR) if isinstance(self.documents, str) else self.documents
            levels = iter(_grouped(_grouped(documents, self.sizes, frozenset), self.clusters, tuple))
        organizations, start = [], 0
        for count, rest, grades in zip(self.levels, self.rests, self.grades, strict=True):
            organization = Organization.__new__(Organization)
            organization.__dict__.update(levels=tuple(islice(levels, count)), rest=rest, grades=grades)
            if ranked is not None and not rest:
                organization.__dict__["occurrences"] = Occurrences.of_ranking(ranked[start:start + count])
            start += count
            organizations.append(organization)
        pairs = zip(self.topics, organizations, strict=True)
        return [dict(islice(pairs, count)) for count in self.counts]


_SEPARATOR = "\x00"


def _grouped(items: list, sizes: list[int], make: Callable[[Any], Any]) -> list:
    """``make`` of each run of ``sizes[i]`` consecutive ``items``; when every size is 1 (a graded gold: singleton
    clusters) made from 1-tuples that ``zip`` makes in C, twice as fast as a slice each.

    >>> _grouped(["a", "b", "c"], [2, 1], tuple), _grouped(["a", "b"], [1, 1], tuple)
    ([('a', 'b'), ('c',)], [('a',), ('b',)])
    """
    if sizes.count(1) == len(sizes):
        return list(map(make, zip(items)))
    each = iter(items)
    return [make(islice(each, size)) for size in sizes]


def _ranked(documents: Sequence[str], codes: Iterable[int]) -> Iterator[tuple[frozenset[str]]]:
    """The levels of rankings (``codes``: each level's document, as its index in ``documents``), one level object
    per distinct document, shared by every ranking that holds it (levels are immutable; the kernels read their
    contents only): a chunk of 32 topics × 100 rankings of 50 makes 100 levels rather than 160,000 frozensets and
    their tuples, which the worker would build, then free.

    >>> levels = list(_ranked(["a", "b"], [0, 1, 0]))
    >>> levels, levels[0] is levels[2]
    ([(frozenset({'a'}),), (frozenset({'b'}),), (frozenset({'a'}),)], True)
    """
    level = [(frozenset((document,)),) for document in documents]
    return map(level.__getitem__, codes)


def _joined(documents: list[str]) -> str | list[str]:
    """The documents as one string, a NUL between two (one object to pickle rather than one per document), or
    the list itself when it is empty or a document holds a NUL."""
    joined = _SEPARATOR.join(documents)
    return joined if documents and joined.count(_SEPARATOR) == len(documents) - 1 else documents


@dataclass(frozen=True)
class _ShippedMeasure:
    """A measure as it travels: a built-in one by its name (parsed again on the worker), a custom one with
    its spec's fields (mapping proxies, which do not pickle, as dicts)."""

    text: str
    spec_fields: dict[str, Any] | None = None
    bound: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def of(cls, measure: Measure) -> _ShippedMeasure:
        if _is_builtin(measure.spec):
            return cls(str(measure))
        fields = {f.name: getattr(measure.spec, f.name) for f in dataclasses.fields(measure.spec)}
        fields = {k: dict(v) if isinstance(v, MappingProxyType) else v for k, v in fields.items()}
        return cls(str(measure), fields, measure.bound)

    def revive(self) -> Measure:
        if self.spec_fields is None:
            return parse(self.text)
        fields: dict[str, Any] = {k: MappingProxyType(v) if isinstance(v, dict) else v
                                  for k, v in self.spec_fields.items()}
        return Measure(MeasureSpec(**fields), self.bound)


def _is_builtin(spec: MeasureSpec) -> bool:
    """True for the measures the workbench's own metric modules register (every worker knows them)."""
    return getattr(spec.compute, "__module__", "").startswith("workbench.")


@dataclass(frozen=True)
class _Rows:
    """A chunk's rows (``{name: value}`` per pair) as they travel back: one object, pickled at once. Dask
    serializes a list element by element (a pickle call, its metrics and a module lookup each: 12,000 on a worker's
    event loop for ``benchmarks/bench_campaign.py``'s Organization campaign, taking the interpreter from the
    scoring thread, and as many again on the caller's)."""

    rows: list[dict[str, float]]


@dataclass(frozen=True)
class _Raised:
    """A measure's own error on a worker, sent back as a value so that the caller raises it as the serial run
    does (an exception escaping a future is then always the executor's)."""

    error: Exception


def _score_chunk(chunk: _Chunk | bytes | _Shared, measures: dict[str, _ShippedMeasure], pool_process: bool = False,
                 ) -> _Rows | _Raised:
    """Runs on a worker: ``{name: value}`` for each pair of the chunk (pickled, from another process), scored as
    the serial run scores it (:func:`~workbench.data.engines.score_pairs`). A process pool's worker
    (``pool_process``) keeps freed memory for reuse from its first chunk on (:func:`~workbench.heap.
    keep_freed_memory`, as the command line's process does; it then holds a chunk's peak): glibc otherwise gave the
    chunks' arrays back and faulted them in again, 90,000 page faults and 0.12-0.17 s of system time on
    ``benchmarks/bench_campaign.py``'s Organization campaign, 20-30 after the first chunk with it."""
    if pool_process:
        keep_freed_memory()
    try:
        with _as_worker(), freed_memory_kept(linger=1.0):  # a Dask worker returns freed memory at once: not here,
            # nor until a second after its last chunk (the next finds what this one freed)
            return _Rows(_scored(_unpacked(chunk), measures))
    except Exception as error:
        return _Raised(error)


def _scored(chunk: _Chunk, measures: dict[str, _ShippedMeasure]) -> list[dict[str, float]]:
    """The chunk's rows, in the order of its pairs."""
    try:
        revived = {name: shipped.revive() for name, shipped in measures.items()}
    except UnknownMeasureError as error:
        raise CampaignError(f"a worker does not know a measure ({error}); a measure registered under a new name "
                            "must be registered in a module the workers import") from None
    scored = score_pairs(Held(chunk.gold, chunk.runs), chunk.pairs, by_engine(revived))
    return [scored[pair] for pair in chunk.pairs]


def score_on(executor: Any, gold: Mapping[str, Organization], runs: Mapping[str, Mapping[str, Organization]],
             pairs: list[Pair], measures: Mapping[str, Measure], *, chunk_topics: int | None = None,
             progress: bool = True, each: Callable[[list[Pair], list[dict[str, float]]], None] | None = None,
             ) -> dict[Pair, dict[str, float]]:
    """``{(system, topic): {name: value}}`` for ``pairs`` (each system's output for its topic) scored on
    ``executor``: :func:`send` then :meth:`Sent.collect` (``each``: see there)."""
    return send(executor, gold, runs, pairs, measures, chunk_topics=chunk_topics).collect(progress, each)


def send(executor: Any, gold: Mapping[str, Organization], runs: Mapping[str, Mapping[str, Organization]],
         pairs: list[Pair], measures: Mapping[str, Measure], *, chunk_topics: int | None = None) -> Sent:
    """``pairs`` (each system's output for its topic) sent to ``executor`` to be scored on ``measures``: a
    :class:`concurrent.futures.Executor` or a ``dask.distributed.Client``. ``chunk_topics`` gold topics travel
    together (default: about :data:`CHUNKS_PER_WORKER` chunks per worker), each chunk cut and sent in turn, so
    that the workers start on the first while the next is cut; ``pairs`` include those of the topics a run lacks
    (the table engines score them on a placeholder). Returns at once: the caller can do its
    own work while the workers score (:meth:`Sent.collect` then waits for them). The executor and
    ``chunk_topics`` are those :meth:`Campaign.evaluate` declares (:data:`~workbench.data.campaign.EXECUTOR`,
    :data:`~workbench.data.campaign.CHUNK_TOPICS`)."""
    dask = _is_dask_client(executor)
    if dask and executor.status != "running":
        raise _unusable(executor, f"the Dask client is {executor.status}")
    shipped = {name: _ShippedMeasure.of(measure) for name, measure in measures.items()}
    in_threads = isinstance(executor, ThreadPoolExecutor)  # nothing is pickled: the chunks are passed as they are
    pool_process = isinstance(executor, ProcessPoolExecutor)  # its workers are processes of their own
    if not in_threads:
        _check_picklable(shipped, measures, dask)
    if not pairs or not measures:
        return Sent(pairs, {}, lambda pending: None)
    by_topic: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_topic.setdefault(pair[1], []).append(pair)
    topics = list(by_topic)
    size = chunk_topics or math.ceil(len(topics) / (CHUNKS_PER_WORKER * _workers(executor, dask)))
    chunks = (_chunk(gold, runs, by_topic, topics[start:start + size]) for start in range(0, len(topics), size))
    if dask:
        # Data goes straight to the workers (a task's arguments would pass through the scheduler).
        [measures_there] = executor.scatter([shipped], broadcast=True, hash=False)  # one piece, not a dict's many

        def submit(chunk: _Chunk):
            [piece] = executor.scatter([_packed(chunk)], hash=False)
            return executor.submit(_score_chunk, piece, measures_there, pure=False)

        cancel = executor.cancel
    else:
        def submit(chunk: _Chunk):
            packed = chunk if in_threads else _packed(chunk)
            shared = _Shared.of(packed) if pool_process and isinstance(packed, _Chunk) else None
            try:
                future = executor.submit(_score_chunk, packed if shared is None else shared[0], shipped, pool_process)
            except RuntimeError as error:  # shut down, or broken by a worker lost before (BrokenExecutor)
                if shared is not None:
                    _released(shared[1])
                raise _unusable(executor, f"{type(error).__name__}: {error}") from error
            if shared is not None:  # its segment goes once the chunk is scored, failed or cancelled
                future.add_done_callback(lambda _, segment=shared[1]: _released(segment))
            return future

        def cancel(pending):
            for future in pending:
                future.cancel()
    futures: dict = {}
    try:
        for chunk in chunks:
            futures[submit(chunk)] = _Outstanding(chunk.topics, chunk.pairs)
    except Exception as error:  # a chunk the caller cannot pickle, an executor that takes no more work
        cancel(list(futures))
        return Sent(pairs, {}, cancel, error)
    except BaseException:  # an interrupt: nothing more runs for this campaign
        cancel(list(futures))
        raise
    return Sent(pairs, futures, cancel, dask=dask)


@dataclass(frozen=True)
class _Outstanding:
    """What the caller keeps of a chunk it sent: its topics (named if its worker is lost) and its pairs (the order
    of its rows), not its data, which is on its way (a process pool's chunk in its shared-memory segment: the caller
    holds it once, not twice)."""

    topics: list[str]
    pairs: list[Pair]


class Sent:
    """Chunks of a campaign on their way to an executor's workers, or being scored there: :meth:`collect` waits
    for them, :meth:`cancel` stops what has not started. An error met while sending (a chunk the caller cannot
    pickle, an executor that takes no more work) is raised by :meth:`collect`, so that work the caller does in
    between raises its own errors first, as the serial run would."""

    def __init__(self, pairs: list[Pair], futures: dict, cancel: Callable, error: Exception | None = None, *,
                 dask: bool = False) -> None:
        self.pairs, self._futures, self._cancel, self._error, self._dask = pairs, futures, cancel, error, dask

    def cancel(self) -> None:
        """Stop the chunks that have not been scored (their results are not kept)."""
        self._cancel(list(self._futures))

    def collect(self, progress: bool = True, each: Callable[[list[Pair], list[dict[str, float]]], None] | None = None,
                ) -> dict[Pair, dict[str, float]]:
        """``{(system, topic): {name: value}}`` of every pair sent, as chunks complete (a progress bar with
        ``progress``); a worker's failure cancels the rest and raises (:class:`CampaignInterruptedError`, or
        the measure's own error as the serial run raises it). With ``each``, each chunk's pairs and their scores
        go to ``each`` as the chunk completes instead (empty dict returned): the caller's own work on them
        (:meth:`Campaign.evaluate <workbench.data.campaign.Campaign.evaluate>` takes their values) overlaps the
        workers' on the chunks still out, rather than following the last."""
        from tqdm.auto import tqdm

        if self._error is not None:
            raise self._error
        scored: dict[Pair, dict[str, float]] = {}
        take = each or (lambda pairs, scores: scored.update(zip(pairs, scores, strict=True)))
        if not self._futures:
            take(self.pairs, [{} for _ in self.pairs])
            return scored
        with tqdm(total=len(self.pairs), desc="evaluating", unit="topic", disable=not progress, delay=1.0,
                  leave=False) as bar:
            for chunk, scores in self._completed():
                take(chunk.pairs, scores)
                bar.update(len(chunk.pairs))
        return scored

    def _completed(self) -> Iterator[tuple[_Outstanding, list[dict[str, float]]]]:
        """Each chunk with its rows, as chunks complete; on a failure, cancel the rest and raise."""
        if self._dask:
            from distributed import as_completed
        else:
            from concurrent.futures import as_completed
        futures, done = self._futures, set[object]()
        try:
            for future in as_completed(list(futures)):
                try:
                    scores = future.result()
                except Exception as error:  # the executor's failure: a worker died, the cluster went away
                    lost = [topic for future, chunk in futures.items() if future not in done
                            for topic in chunk.topics]
                    raise CampaignInterruptedError(
                        f"the executor failed after {len(done)} of {len(futures)} chunk(s) ({type(error).__name__}:"
                        f" {error}); gold topic(s) not scored: {topics_text(lost)}; no results were kept, evaluate "
                        "again", lost) from error
                if isinstance(scores, _Raised):  # a measure failed on some topic: the serial run's error
                    raise scores.error
                done.add(future)
                yield futures[future], scores.rows
        finally:  # an error, or an interrupt: nothing more runs for this campaign
            self._cancel([future for future in futures if future not in done])


def _chunk(gold, runs, by_topic: Mapping[str, list[Pair]], topics: list[str]) -> _Chunk:
    pairs = [pair for topic in topics for pair in by_topic[topic]]
    wanted = set(topics)
    systems = dict.fromkeys(system for system, _ in pairs)
    return _Chunk(topics, _restricted(gold, topics, wanted),
                  {system: _restricted(runs[system], topics, wanted) for system in systems}, pairs)


def _restricted(held: Mapping[str, Organization], topics: list[str], wanted: set[str]) -> Mapping[str, Organization]:
    """What ``held`` (the gold, or a run) holds of ``topics`` (``wanted``, as a set): read arrays cut to them, or
    the Organizations in the order of ``topics`` (looked up, not a pass over every topic ``held`` holds)."""
    if isinstance(held, (Judgements, RankedRun)):
        return held.restricted(wanted)
    return {topic: held[topic] for topic in topics if topic in held}


def _packed(chunk: _Chunk) -> _Chunk | bytes:
    """The chunk pickled by the caller, so that the worker unpickles it with the garbage collector paused
    (:func:`_as_worker`), rather than the executor before it calls :func:`_score_chunk`; a chunk of read arrays
    alone (no Organizations: judgements and runs cut by ``restricted``) as it is, pickled once by the executor
    (by Dask with the arrays out of band) rather than twice, its unpickling making few objects."""
    if not isinstance(chunk.gold, dict) and not any(isinstance(run, dict) for run in chunk.runs.values()):
        return chunk
    return pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)


def _unpacked(chunk: _Chunk | bytes | _Shared) -> _Chunk:
    """On the worker: the chunk as the caller cut it."""
    if isinstance(chunk, _Shared):
        return chunk.chunk()
    return pickle.loads(chunk) if isinstance(chunk, bytes) else chunk


SHARED_DIRECTORY = "/dev/shm"
"""Where a process pool's chunks of read arrays wait for their worker (:class:`_Shared`): Linux's shared memory;
elsewhere, or when it is full, chunks go through the pool's pipe."""


@dataclass(frozen=True)
class _Shared:
    """A chunk of read arrays on its way to a process pool's worker, on this machine: pickled with its arrays' bytes
    out of band, those bytes in one shared-memory segment and the rest (a few KB) through the pool's pipe. The pipe
    carried a chunk's megabytes only once its worker asked for the next task, 64 KB at a time: the worker waited
    8-17 ms between chunks on ``benchmarks/bench_campaign.py``'s arrays campaign (5.3 MB a chunk), 0.4-7 ms and
    2 ms of copying the chunk out this way. The caller writes the segment through its file (a full ``/dev/shm``,
    64 MB in many containers, is then an ``OSError`` and the chunk goes through the pipe, where writing into the
    mapped segment would kill the process with ``SIGBUS``) and removes it once the chunk is scored, failed or
    cancelled; Python's resource tracker removes what a caller that died left. The worker reads the file: attached
    as a ``SharedMemory``, the segment would be registered with the tracker again (Python 3.11)."""

    head: bytes
    name: str
    sizes: list[int]

    @classmethod
    def of(cls, chunk: _Chunk) -> tuple[_Shared, Any] | None:
        """The chunk on its way and its segment, or None (no shared memory here, no room, no array)."""
        if not os.path.isdir(SHARED_DIRECTORY):
            return None
        from multiprocessing.shared_memory import SharedMemory

        buffers: list[pickle.PickleBuffer] = []
        head = pickle.dumps(chunk, protocol=5, buffer_callback=buffers.append)
        raws = [buffer.raw() for buffer in buffers]
        size = sum(raw.nbytes for raw in raws)
        if not size:
            return None
        segment = None
        try:
            segment = SharedMemory(create=True, size=size)
            with open(_path(segment.name), "r+b") as file:
                for raw in raws:
                    file.write(raw)
        except OSError:  # no room (ENOSPC), no shared memory for this user: the pipe
            if segment is not None:
                _released(segment)
            return None
        return cls(head, segment.name, [raw.nbytes for raw in raws]), segment

    def chunk(self) -> _Chunk:
        """On the worker: the chunk again, its arrays on one buffer of the worker's own."""
        whole = bytearray(sum(self.sizes))
        with open(_path(self.name), "rb") as file:
            file.readinto(whole)
        view, buffers, start = memoryview(whole), [], 0
        for size in self.sizes:
            buffers.append(view[start:start + size])
            start += size
        return pickle.loads(self.head, buffers=buffers)


def _path(name: str) -> str:
    return os.path.join(SHARED_DIRECTORY, name.lstrip("/"))


def _released(segment: Any) -> None:
    """A chunk's segment closed and removed (once)."""
    segment.close()
    with suppress(FileNotFoundError):
        segment.unlink()


_lock = threading.Lock()
_scoring = 0  # chunks being scored in this process (threads of one worker)
_threads_before: str | None = None  # the threads variable before the first


@contextmanager
def _as_worker() -> Iterator[None]:
    """While a chunk is unpickled and scored: the cyclic garbage collector paused
    (:func:`~workbench.heap.collector_paused`: unpickling 32 topics × 100 runs of Organizations took 0.06 s paused,
    0.2–0.4 s not), and
    the engines kept to one thread (``WORKBENCH_THREADS=1``; put back once no chunk is being scored in this
    process): threads of their own in two workers on two cores would only take the interpreter and the cores from
    each other."""
    global _scoring, _threads_before
    with _lock:
        if _scoring == 0:
            _threads_before = os.environ.get(THREADS_VARIABLE)
            os.environ[THREADS_VARIABLE] = "1"
        _scoring += 1
    try:
        with collector_paused():
            yield
    finally:
        with _lock:
            _scoring -= 1
            if _scoring == 0:
                if _threads_before is None:
                    del os.environ[THREADS_VARIABLE]
                else:
                    os.environ[THREADS_VARIABLE] = _threads_before


def _unusable(executor: Any, why: str) -> CampaignError:
    """The refusal of an executor that takes no more work, saying what to do."""
    return CampaignError(f"the executor ({type(executor).__name__}) takes no more work ({why}): create a new one "
                         "(ProcessPoolExecutor(), dask.distributed.Client()) or evaluate without executor=")


def _check_picklable(shipped: dict[str, _ShippedMeasure], measures: Mapping[str, Measure], dask: bool) -> None:
    """Custom measures must pickle (with cloudpickle on Dask, plain pickle otherwise) to reach the workers."""
    if dask:
        from distributed.protocol.pickle import dumps
    else:
        dumps = pickle.dumps
    for name, one in shipped.items():
        if one.spec_fields is None:
            continue
        try:
            dumps(one)
        except Exception as error:
            compute = measures[name].spec.compute
            raise UnpicklableMeasureError(
                f"measure {name!r} cannot be sent to the executor's workers: its compute function "
                f"{getattr(compute, '__qualname__', compute)!r} does not pickle ({type(error).__name__}: {error}); "
                "define it at the top level of an importable module, or evaluate without executor=") from None


def _is_dask_client(executor: Any) -> bool:
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(executor, distributed.Client)


def _workers(executor: Any, dask: bool) -> int:
    if dask:
        return max(1, sum(executor.nthreads().values()))
    return getattr(executor, "_max_workers", None) or os.cpu_count() or 1
