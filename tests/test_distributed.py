"""Campaign.evaluate(executor=…): process pools and a real Dask cluster give the serial results bit for bit;
a worker that dies or a measure that cannot travel is named."""

import gc
import multiprocessing
import os
import pickle
import threading
from array import array
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from tests.measure_instances import INSTANCES
from tests.strategies import organizations
from workbench.data import Campaign, CampaignError, read_trec_qrels, read_trec_run
from workbench.data import distributed as dist
from workbench.data.distributed import CampaignInterruptedError, UnpicklableMeasureError
from workbench.errors import ParameterError, WorkbenchError
from workbench.metrics import registry
from workbench.model import Organization
from workbench.model.labelling import ClassTree, Labelling
from workbench.threads import THREADS_VARIABLE

RANKING = ["AP", "nDCG@10", "P@10", "RR", "R≺(n=10, wn=0.8)", "S∼(n=10, wn=0.8)", "RBP(p=0.8)"]
GROUPING = ["BCubed-F", "NMI", "ARI", "Purity", "R∼", "S≺", "Accuracy", "F(R,S)"]
KILL_DOC = "kill-this-worker"
pytestmark = pytest.mark.filterwarnings("ignore::workbench.data.campaign.MissingTopicsWarning")


def _ranking_campaign(seed: int, topics: int = 12, systems: int = 5) -> Campaign:
    """Graded gold over 40 documents, runs ranking 25 of them; one system lacks two topics."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(40)]
    gold = {f"t{t}": Organization.from_graded({d: int(rng.integers(0, 4)) for d in rng.choice(docs, 15, False)})
            for t in range(topics)}
    runs = {f"sys{s}": {t: Organization.from_ranking(list(rng.permutation(docs)[:25])) for t in gold}
            for s in range(systems)}
    del runs["sys0"]["t3"], runs["sys0"]["t7"]
    return Campaign(gold, runs)


def _read_campaign(seed: int, topics: int = 12, systems: int = 4) -> Campaign:
    """A campaign read as arrays (``from_dicts``): its chunks travel as the executor pickles them."""
    rng = np.random.default_rng(seed)
    qrels = {f"t{t}": {f"d{d}": int(rng.integers(0, 4)) for d in rng.choice(40, 15, False)} for t in range(topics)}
    runs = {f"sys{s}": {t: {f"d{d}": float(rng.integers(0, 9)) for d in rng.permutation(40)[:25]} for t in qrels
                        if (s, t) != (0, "t3")} for s in range(systems)}
    return Campaign.from_dicts(qrels, runs)


def _grouping_campaign(seed: int, topics: int = 10, systems: int = 4) -> Campaign:
    """Clusters of a closed collection (so overlap-free clustering, filtering and R&S all apply)."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(30)]

    def clustering():
        labels = rng.integers(0, 5, len(docs))
        return Organization.from_clustering([[d for d, lab in zip(docs, labels, strict=True) if lab == k]
                                             for k in set(labels.tolist())])

    gold = {f"t{t}": clustering() for t in range(topics)}
    runs = {f"sys{s}": {t: clustering() for t in gold} for s in range(systems)}
    return Campaign(gold, runs)


def _assert_bitwise_equal(serial: pd.DataFrame, other: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(serial, other, check_exact=True)
    assert (serial.value.to_numpy().view(np.uint64) == other.value.to_numpy().view(np.uint64)).all()
    assert serial.attrs == other.attrs


def _recording_pool(workers: int, submitted: list) -> ThreadPoolExecutor:
    """A thread pool that appends every future it is given work for to ``submitted``."""

    class Recording(ThreadPoolExecutor):
        def submit(self, function, chunk, *args, **kwargs):
            future = super().submit(function, chunk, *args, **kwargs)
            future.chunk = chunk
            submitted.append(future)
            return future

    return Recording(workers)


def kill_the_worker(gold, output):
    """A custom measure that kills the process it runs in on the topic whose gold holds KILL_DOC."""
    if KILL_DOC in gold.documents:
        os._exit(3)
    return 0.5


def fails_on_t2(gold, output):
    """Bad input on the topic whose gold holds t2-marker (a WorkbenchError), a bug where it holds t2-bug."""
    if "t2-marker" in gold.documents:
        raise WorkbenchError("no score for this one")
    if "t2-bug" in gold.documents:
        raise ArithmeticError("a bug in the measure")
    return 1.0


@pytest.fixture
def custom_measures(register_measure):
    """Custom measures registered for one test: importable ones (they travel by reference to their module)."""
    names = {"test-kill": kill_the_worker, "test-fails-on-t2": fails_on_t2}
    for name, compute in names.items():
        register_measure(name, compute, source="tests/test_distributed.py")
    return names


@pytest.fixture(scope="module")
def spawn_pool():
    """Two fresh interpreters (spawn: their own hash seeds, so set iteration orders differ from ours)."""
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield pool


@pytest.mark.parametrize("chunk_topics", [None, 1, 5, 100])
def test_a_process_pool_gives_the_serial_results_bit_for_bit(spawn_pool, chunk_topics):
    for campaign, measures in ((_ranking_campaign(1), RANKING), (_grouping_campaign(2), GROUPING),
                               (_read_campaign(3), RANKING)):
        serial = campaign.evaluate(measures, progress=False)
        pooled = campaign.evaluate(measures, executor=spawn_pool, chunk_topics=chunk_topics, progress=False)
        _assert_bitwise_equal(serial, pooled)


@pytest.mark.filterwarnings("ignore::workbench.errors.WorkbenchWarning")
def test_every_gain_table_spelling_scores_a_run_read_with_costs_on_the_workers_as_serially(tmp_path, spawn_pool):
    """The registry walk through distribution: every gain-table spelling tested elsewhere, on a TREC run read with
    cwl_eval costs (ties, a retrieved unjudged document, an unretrieved relevant one), scored with a topic a chunk on
    a thread pool (the chunks' arrays as cut) and on spawned processes (as pickled) equals the serial run bit for
    bit: whatever the chunks carry, costs included (they were once left behind), reaches the kernels."""
    (tmp_path / "qrels").write_text("q 0 a 2\nq 0 b 0\nq 0 c 1\nq 0 e 1\nr 0 a 1\nr 0 d 3\ns 0 x 1\n")
    (tmp_path / "run").write_text("q slow c 1 0.1 s\nq fast a 2 0.9 s\nq other b 3 0.5 s\nq fast d 4 0.5 s\n"
                                  "r fast a 1 0.3 s\nr slow d 2 0.2 s\nr fast z 3 0.2 s\ns fast x 1 1 s\n")
    campaign = Campaign(read_trec_qrels(tmp_path / "qrels"),
                        read_trec_run(tmp_path / "run", costs={"slow": 4.0, "fast": 0.5}))
    names = [name for names in INSTANCES.values() for name in names
             if registry.parse(name).spec.engine == "gain table"]
    serial = campaign.evaluate(names, progress=False)
    with ThreadPoolExecutor(2) as threads:
        _assert_bitwise_equal(serial, campaign.evaluate(names, executor=threads, chunk_topics=1, progress=False))
    _assert_bitwise_equal(serial, campaign.evaluate(names, executor=spawn_pool, chunk_topics=1, progress=False))


def test_a_classification_campaign_travels_as_its_labellings(spawn_pool):
    """Labellings and class trees pickle (their mapping proxies as dicts) and score on the workers as here."""
    tree = ClassTree.from_nested({"P": ["S1", "S2"], "Q": {"Q1": ["Q11"]}})
    assert pickle.loads(pickle.dumps(tree)) == tree
    gold = {"t1": Labelling.parse("1: {A: 0.8, B: 0.2}\n2: {A: 0.1, B: 0.9}", gold=True),
            "t2": Labelling.parse("1: {A: 1, B: 0}\n2: {A: 0.3, B: 0.7}", gold=True)}
    runs = {"good": {"t1": Labelling.parse("1: {A: 0.7, B: 0.3}\n2: {A: 0.2, B: 0.8}"),
                     "t2": Labelling.parse("1: {A: 0.9, B: 0.1}\n2: {A: 0.3, B: 0.7}")},
            "bad": {"t1": Labelling.parse("1: {A: 0.2, B: 0.8}\n2: {A: 0.9, B: 0.1}")}}
    campaign = Campaign(gold, runs)
    serial = campaign.evaluate(["ICM-Soft", "MAE"], missing_topics="skip", progress=False)
    _assert_bitwise_equal(serial, campaign.evaluate(["ICM-Soft", "MAE"], missing_topics="skip", executor=spawn_pool,
                                                    chunk_topics=1, progress=False))


def test_a_thread_pool_takes_any_callable_and_skips_missing_topics_like_the_serial_run():
    campaign = _ranking_campaign(3)
    with ThreadPoolExecutor(3) as pool:
        for policy in ("zero", "skip"):
            with pytest.warns(UserWarning, match="sys0"):
                serial = campaign.evaluate(RANKING, missing_topics=policy, progress=False)
            with pytest.warns(UserWarning, match="sys0"):
                threaded = campaign.evaluate(RANKING, missing_topics=policy, executor=pool, chunk_topics=2,
                                             progress=False)
            _assert_bitwise_equal(serial, threaded)


def test_the_progress_bar_advances_by_completed_chunks(monkeypatch):
    updates = []

    class Recorder:
        def __init__(self, iterable=(), total=None, disable=False, **_):
            self.iterable = iterable
            if not disable:
                updates.append(("total", total))

        def __iter__(self):
            return iter(self.iterable)

        def __enter__(self):
            return self

        def __exit__(self, *_):
            return False

        def update(self, n):
            updates.append(("update", n))

    monkeypatch.setattr("tqdm.auto.tqdm", Recorder)
    campaign = _grouping_campaign(4, topics=7, systems=3)
    with ThreadPoolExecutor(2) as pool:
        campaign.evaluate(["NMI"], executor=pool, chunk_topics=3)
    assert updates[0] == ("total", 21)
    assert sorted(n for kind, n in updates[1:]) == [3, 9, 9]  # topics 3+3+1, three systems each


def test_each_chunks_scores_are_taken_as_it_completes_while_later_chunks_are_scored(register_measure):
    """With ``each`` (what Campaign.evaluate makes its rows with), a chunk's scores are handed over as soon as it
    completes: the second chunk's measure waits for the first chunk's hand-over, so gathering them all first
    would leave it waiting (its timeout records that)."""
    handed_over, waited = threading.Event(), []

    def waits_for_the_first_chunk(gold, output):
        if "t1-marker" in gold.documents:
            waited.append(handed_over.wait(10))
        return 1.0

    register_measure("test-waits", waits_for_the_first_chunk)
    gold = {"t0": Organization.from_ranking(["a"]), "t1": Organization.from_ranking(["t1-marker"])}
    runs = {"s": {"t0": Organization.from_ranking(["a"]), "t1": Organization.from_ranking(["b"])}}
    taken = []

    def each(pairs, scores):
        taken.append((pairs, scores))
        handed_over.set()

    with ThreadPoolExecutor(2) as pool:
        assert dist.score_on(pool, gold, runs, [("s", "t0"), ("s", "t1")], {"test-waits": registry.parse("test-waits")},
                             chunk_topics=1, progress=False, each=each) == {}
    assert waited == [True]
    assert taken == [([("s", "t0")], [{"test-waits": 1.0}]), ([("s", "t1")], [{"test-waits": 1.0}])]


@pytest.mark.parametrize("executor", [ThreadPoolExecutor, ProcessPoolExecutor])
def test_a_measure_failing_on_a_worker_raises_the_serial_error(custom_measures, executor):
    """Bad input: the located CampaignError; a bug: the measure's own exception with the topic in a note."""
    base = _grouping_campaign(5)
    for marker, kind in (("t2-marker", CampaignError), ("t2-bug", ArithmeticError)):
        gold = dict(base.gold, t2=Organization.from_clustering([[marker, "d1"]]))
        runs = {s: dict(run, t2=Organization.from_clustering([[marker], ["d1"]])) for s, run in base.runs.items()}
        campaign = Campaign(gold, runs)
        with pytest.raises(kind) as serial:
            campaign.evaluate(["test-fails-on-t2"], progress=False)
        with executor(2) as pool, pytest.raises(kind) as pooled:
            campaign.evaluate(["test-fails-on-t2"], executor=pool, progress=False)
        assert str(pooled.value) == str(serial.value)
        assert getattr(pooled.value, "__notes__", None) == getattr(serial.value, "__notes__", None)
        assert not isinstance(pooled.value, CampaignInterruptedError)
    assert str(serial.value) == "a bug in the measure"
    assert serial.value.__notes__ == ["while scoring system 'sys0', topic 't2'"]


def test_a_killed_process_worker_names_the_topics_not_scored(custom_measures):
    campaign = _grouping_campaign(6, topics=8)
    gold = dict(campaign.gold, t5=Organization.from_clustering([[KILL_DOC, "d1"]]))
    campaign = Campaign(gold, campaign.runs)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool, \
            pytest.raises(CampaignInterruptedError, match=r"BrokenProcessPool.*not scored: .*'t5'.*no results "
                                                          r"were kept") as error:
        campaign.evaluate(["NMI", "test-kill"], executor=pool, chunk_topics=2, progress=False)
    assert "t5" in error.value.topics and set(error.value.topics) <= set(campaign.gold)


def test_an_unpicklable_custom_measure_is_named_before_any_work(register_measure):
    lock = threading.Lock()

    def locked(gold, output):
        with lock:
            return 1.0

    register_measure("test-locked", locked, source="tests/test_distributed.py")
    with ProcessPoolExecutor(1) as pool, pytest.raises(UnpicklableMeasureError,
                                                       match=r"measure 'test-locked' cannot be sent.*locked"):
        _grouping_campaign(7).evaluate(["NMI", "test-locked"], executor=pool, progress=False)
    with ThreadPoolExecutor(1) as pool:  # threads share the process: nothing to pickle
        assert len(_grouping_campaign(7).evaluate(["test-locked"], executor=pool, progress=False)) == 40


@pytest.mark.parametrize("measures", [["R≺(n=10, wn=0.8)"], ["AP", "R≺(n=10, wn=0.8)"]])
def test_a_run_refused_in_a_later_chunk_raises_the_serial_error_from_its_worker(measures):
    """A chunk carries its topics of the run as read, refusals included: a run that repeats a document in a late
    topic raises the serial run's error (the ranking pass's when a ranking measure is asked for, else the
    reader's located error) from the worker scoring that chunk, not while this process cuts the chunks."""
    topics = [f"t{t}" for t in range(8)]
    qrels = {t: {"d1": 1, "d2": 0} for t in topics}
    rows = [(t, f"d{i}", float(-i)) for t in topics for i in range(1, 4)] + [("t7", "d1", -9.0)]
    frame = pd.DataFrame([("sys", t, d, score) for t, d, score in rows], columns=["system", "query_id", "doc_id",
                                                                                  "score"])
    campaign = Campaign.from_frames(pd.DataFrame([(t, d, g) for t, judged in qrels.items() for d, g in
                                                  judged.items()], columns=["query_id", "doc_id", "relevance"]),
                                    frame)
    with pytest.raises(WorkbenchError) as serial:
        campaign.evaluate(measures, progress=False)
    submitted: list = []
    with _recording_pool(1, submitted) as pool, pytest.raises(WorkbenchError) as pooled:
        campaign.evaluate(measures, executor=pool, chunk_topics=2, progress=False)
    assert type(pooled.value) is type(serial.value) and str(pooled.value) == str(serial.value)
    assert "'d1'" in str(serial.value) and "'t7'" in str(serial.value)
    assert isinstance(serial.value, CampaignError) == ("AP" in measures)  # the ranking pass names the system
    assert len(submitted) == 4 and all(future.done() for future in submitted)  # t6–t7 sent, refused there


@pytest.mark.filterwarnings("ignore::workbench.data.campaign.MeasureKindWarning")  # NMI of rankings
def test_every_engine_scores_on_the_workers_from_its_chunks_topics_only(monkeypatch):
    """Each chunk carries its topics of the gold and of each run only (a read campaign's arrays cut to them, on a
    buffer of their own), and every engine, the tables' included, scores there: this thread scores nothing."""
    from workbench.data.engines import ENGINES

    scored_in: set[tuple[str, bool]] = set()
    for kind in {type(engine) for engine in ENGINES.values()}:
        def recorded(self, *args, _score=kind.score, **kwargs):
            scored_in.add((self.name, threading.current_thread() is threading.main_thread()))
            return _score(self, *args, **kwargs)

        monkeypatch.setattr(kind, "score", recorded)
    read = Campaign.from_dicts({f"t{t}": {f"g{t}": 1, "d0": 2} for t in range(6)},
                               {s: {f"t{t}": {f"g{t}": 1.0, f"x{s}": 0.5} for t in range(6) if (s, t) != ("a", 4)}
                                for s in ("a", "b")})
    measures = ["AP", "alpha_nDCG@10", "R≺(n=10, wn=0.8)", "NMI"]
    submitted: list = []
    with _recording_pool(2, submitted) as pool:
        pooled = read.evaluate(measures, executor=pool, chunk_topics=2, progress=False)
    assert scored_in == {("gain table", False), ("subtopic table", False), ("R&S", False), ("per topic", False)}
    chunks = [future.chunk for future in submitted]
    assert [chunk.topics for chunk in chunks] == [["t0", "t1"], ["t2", "t3"], ["t4", "t5"]]
    for chunk in chunks:
        assert list(chunk.gold) == chunk.topics and chunk.gold.ids.data.size == 4 * 2  # g2 d0 g3 d0
        assert {system: list(run) for system, run in chunk.runs.items()} == {
            system: [t for t in chunk.topics if (system, t) != ("a", "t4")] for system in ("a", "b")}
        assert chunk.runs["b"].ids.strings().tolist() == [d for t in chunk.topics for d in (f"g{t[1]}", "xb")]
    _assert_bitwise_equal(read.evaluate(measures, progress=False), pooled)


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.sampled_from(["t1", "t2", "t3"]), organizations(), min_size=1),
       st.dictionaries(st.sampled_from(["t1", "t2", "t3"]), organizations()))
def test_a_chunk_travels_with_its_organizations_equal(gold, run):
    """The Organizations travel flat (rankings as codes of their distinct documents, others as their documents in
    one string and their shapes as integers) and come back equal: overlap, tails, finite rests and graded levels
    included, a document holding the separator, and rankings (a singleton cluster per level: a level object per
    distinct document of the mapping, shared by the rankings that hold it)."""
    gold = dict(gold, t0=Organization.from_graded({"d1": 3, "d2": 1, "d3": 3}))
    rankings = {"t0": Organization.from_ranking(["c", "a", "b"]), "t1": Organization.from_ranking(["b"])}
    chunk = dist._Chunk(list(gold), gold, {"s": run, "empty": {}, "nul": {"t0": Organization.from_ranking(["a\0b"])},
                                           "ranked": rankings}, [("s", topic) for topic in gold])
    back = pickle.loads(dist._packed(chunk))
    assert back == chunk and back.gold["t0"].grades == (3.0, 1.0)
    assert [next(iter(cluster)) for [cluster] in back.runs["ranked"]["t0"].levels] == ["c", "a", "b"]
    assert back.runs["ranked"]["t0"].levels[2] is back.runs["ranked"]["t1"].levels[0]


def test_rankings_travel_as_codes_of_their_distinct_documents_and_others_as_their_shapes():
    """Rankings travel as each distinct document once and a small code per level (one pass over them, the
    caller's share); a mapping that begins with a ranking but holds another organization travels by shapes, and
    both come back equal."""
    rankings = {"t1": Organization.from_ranking(["b", "a"]), "t2": Organization.from_ranking(["a", "c", "b"]),
                "t3": Organization()}
    flat = dist._Flat.of(rankings)
    assert flat.documents == ["b", "a", "c"] and flat.codes.tolist() == [0, 1, 1, 2, 0]
    assert flat.levels == [2, 3, 0] and flat.clusters == flat.sizes == []
    held_arrays = dist._Flat.of({"t1": rankings["t1"], "t2": rankings["t2"]})  # both keep from_ranking's arrays
    assert held_arrays.documents == ["b", "a", "c"] and held_arrays.codes == array("I", [0, 1, 1, 2, 0])
    mixed = dict(rankings, t4=Organization.parse("{a b} c"), t5=Organization.parse("a\nb"))
    shaped = dist._Flat.of(mixed)
    assert shaped.codes is None and shaped.sizes == [1, 1, 1, 1, 1, 2, 1, 1, 1]
    for held in (rankings, mixed):
        assert dist._Flat.mapping(pickle.loads(pickle.dumps(dist._Flat.of(held)))) == held
    # revived rankings carry the occurrences their levels give (as from_ranking keeps them); one with a rest reads
    # them off its levels when asked
    rested = dict(rankings, t6=Organization(((frozenset({"c"}),), (frozenset({"a"}),)), rest=frozenset({"d", "e"})))
    revived = dist._Flat.mapping(dist._Flat.of(rested))
    assert dist._Flat.of(rested).codes is not None and "occurrences" not in vars(revived["t6"])
    for topic, organization in revived.items():
        expected = Organization.occurrences.func(rested[topic])
        for got, want in zip(organization.occurrences, expected, strict=True):
            assert got.tolist() == want.tolist() and got.dtype == want.dtype


def test_a_chunks_runs_of_rankings_travel_as_one_numbering_of_their_documents():
    """Issue 39 item 6: when every run of a chunk is rankings, the runs travel as one (each distinct document of
    the chunk once, one numbering, how many topics each run has) and come back equal, a level object shared across
    runs; a run holding another organization sends every run on its own, as before."""
    gold = {"t1": Organization.from_graded({"a": 1}), "t2": Organization.from_graded({"c": 2, "b": 1})}
    runs = {"s1": {"t1": Organization.from_ranking(["b", "a"]), "t2": Organization.from_ranking(["c"])},
            "s2": {"t2": Organization.from_ranking(["a", "c"])}, "empty": {}}
    pairs = [(system, topic) for system in runs for topic in gold]
    chunk = dist._Chunk(list(gold), gold, runs, pairs)
    _, (_, _, systems, together, _) = chunk.__reduce__()
    assert systems == ["s1", "s2", "empty"] and isinstance(together, dist._Flat)
    assert together.documents == ["b", "a", "c"] and together.codes.tolist() == [0, 1, 2, 1, 2]
    assert together.topics == ["t1", "t2", "t2"] and together.counts == [2, 1, 0]
    back = pickle.loads(dist._packed(chunk))
    assert back == chunk and list(back.runs) == ["s1", "s2", "empty"]
    assert back.runs["s1"]["t1"].levels[1] is back.runs["s2"]["t2"].levels[0]
    mixed = dist._Chunk(list(gold), gold, dict(runs, s3={"t1": Organization.parse("{a b} c")}), pairs)
    _, (_, _, _, each, _) = mixed.__reduce__()
    assert isinstance(each, list) and len(each) == 4
    assert pickle.loads(dist._packed(mixed)) == mixed


def test_a_chunk_of_read_arrays_is_pickled_once_by_the_executor_and_one_of_organizations_by_the_caller():
    """A chunk of Organizations is pickled by the caller, to be unpickled with the collector paused; a read
    campaign's chunk (arrays alone, few objects) goes as it is, for the executor to pickle once."""
    read = Campaign.from_dicts({"t1": {"a": 1}, "t2": {"b": 1}}, {"s": {"t1": {"a": 1.0}, "t2": {"c": 1.0}}})
    arrays = dist._chunk(read.gold, read.runs, {"t1": [("s", "t1")], "t2": [("s", "t2")]}, ["t1", "t2"])
    assert dist._packed(arrays) is arrays
    assert pickle.loads(pickle.dumps(arrays)).runs["s"].documents("t2") == ["c"]
    held = dist._Chunk(["t1"], {"t1": Organization.from_graded({"a": 1})}, {"s": read.runs}, [("s", "t1")])
    assert isinstance(dist._packed(held), bytes)


@pytest.mark.skipif(not os.path.isdir(dist.SHARED_DIRECTORY), reason="no /dev/shm: chunks go through the pipe")
def test_a_chunk_of_read_arrays_reaches_a_process_pool_through_shared_memory(spawn_pool, monkeypatch):
    """Issue 39 item 6: a process pool's chunks of read arrays carry their arrays' bytes in a shared-memory segment
    (a few KB through the pool's pipe); each segment is gone once its chunk is scored, and the values are the
    serial ones bit for bit (the pool's workers are fresh interpreters)."""
    made, of = [], dist._Shared.of

    def recorded(chunk):
        shared = of(chunk)
        made.append(shared[0])
        return shared

    monkeypatch.setattr(dist._Shared, "of", recorded)
    campaign = _read_campaign(11)
    serial = campaign.evaluate(RANKING, progress=False)
    _assert_bitwise_equal(serial, campaign.evaluate(RANKING, executor=spawn_pool, chunk_topics=3, progress=False))
    assert len(made) == 4 and all(shared is not None and len(shared.head) < 20_000 for shared in made)
    waited = 0  # a future's callbacks (the segment's removal) run just after its waiters wake
    while any(os.path.exists(dist._path(shared.name)) for shared in made) and waited < 100:
        threading.Event().wait(0.01)
        waited += 1
    assert not any(os.path.exists(dist._path(shared.name)) for shared in made)


def test_a_shared_chunk_comes_back_equal_and_falls_back_to_the_pipe_without_room(tmp_path, monkeypatch):
    read = _read_campaign(12, topics=4, systems=2)
    pairs = {topic: [(system, topic) for system in read.runs] for topic in read.gold}
    chunk = dist._chunk(read.gold, read.runs, pairs, ["t1", "t2"])
    if os.path.isdir(dist.SHARED_DIRECTORY):
        shared, segment = dist._Shared.of(chunk)
        back = shared.chunk()
        dist._released(segment)
        assert not os.path.exists(dist._path(shared.name))
        assert back.pairs == chunk.pairs and list(back.runs) == list(chunk.runs)
        for system, run in chunk.runs.items():
            assert [back.runs[system].documents(topic) for topic in run] == [run.documents(topic) for topic in run]
            assert (back.runs[system].scores_array == run.scores_array).all()
        assert back.gold.grades_of("t2") == chunk.gold.grades_of("t2")
    monkeypatch.setattr(dist, "SHARED_DIRECTORY", str(tmp_path))  # no segment's file there: as a full /dev/shm
    assert dist._Shared.of(chunk) is None
    monkeypatch.setattr(dist, "SHARED_DIRECTORY", str(tmp_path / "absent"))  # no shared memory at all
    assert dist._Shared.of(chunk) is None


def test_a_process_pools_workers_keep_freed_memory_and_no_other_executor_does(monkeypatch):
    """Issue 39 item 6: a ProcessPoolExecutor's workers keep freed memory for reuse (its chunks' arrays otherwise
    went back to the system and were faulted in again); a thread pool's chunks, scored in the caller's process,
    leave the caller's malloc alone. The pool here runs each task in this process, so no process starts."""
    kept = []
    monkeypatch.setattr(dist, "keep_freed_memory", lambda: kept.append(True))

    class InProcess(ProcessPoolExecutor):
        def submit(self, function, *args):
            future = Future()
            future.set_result(function(*args))
            return future

    campaign, measures = _ranking_campaign(5, topics=8, systems=2), ["AP", "R≺(n=10, wn=0.8)"]
    serial = campaign.evaluate(measures, progress=False)
    with ThreadPoolExecutor(2) as pool:
        _assert_bitwise_equal(serial, campaign.evaluate(measures, executor=pool, chunk_topics=2, progress=False))
    assert kept == []
    _assert_bitwise_equal(serial, campaign.evaluate(measures, executor=InProcess(2), chunk_topics=4, progress=False))
    assert kept == [True, True]  # each chunk, on its worker


def test_a_worker_scores_with_the_collector_paused_on_one_thread_and_puts_both_back(monkeypatch):
    """Issue 39: the engines' own threads (issue 42's ``WORKBENCH_THREADS``) are 1 while a chunk is scored; the
    collector and the variable are put back once no chunk is (two chunks on two threads of one worker)."""
    assert gc.isenabled()
    for before in (None, "2"):
        if before is None:
            monkeypatch.delenv(THREADS_VARIABLE, raising=False)
        else:
            monkeypatch.setenv(THREADS_VARIABLE, before)
        with dist._as_worker():
            with dist._as_worker():
                assert not gc.isenabled() and os.environ[THREADS_VARIABLE] == "1"
            assert not gc.isenabled() and os.environ[THREADS_VARIABLE] == "1"
        assert gc.isenabled() and os.environ.get(THREADS_VARIABLE) == before


def _threads_allowed(gold, output) -> float:
    return float(os.environ.get(THREADS_VARIABLE, "0"))


def test_the_measures_run_on_one_thread_on_the_workers(register_measure, monkeypatch):
    monkeypatch.setenv(THREADS_VARIABLE, "2")
    register_measure("test-threads", _threads_allowed)
    campaign = _grouping_campaign(15, topics=2, systems=2)
    with ThreadPoolExecutor(2) as pool:
        on_workers = campaign.evaluate(["test-threads"], executor=pool, progress=False)
    assert set(on_workers.value) == {1.0} and set(campaign.evaluate(["test-threads"], progress=False).value) == {2.0}


def test_bad_executors_and_chunk_sizes_are_named():
    campaign = _grouping_campaign(8)
    with pytest.raises(ParameterError, match="Campaign.evaluate: executor must be a concurrent.futures.Executor .* "
                                             "got 'tcp://scheduler:8786'"):
        campaign.evaluate(["NMI"], executor="tcp://scheduler:8786", progress=False)
    with ThreadPoolExecutor(1) as pool:
        for bad in (0, -2, 1.5, True, 10**9):
            with pytest.raises(ParameterError, match=r"Campaign.evaluate: chunk_topics must be an integer in \[1, "):
                campaign.evaluate(["NMI"], executor=pool, chunk_topics=bad, progress=False)
    for bad in (0, 1.5, True, 2000):  # refused before any process starts
        with pytest.raises(ParameterError, match=r"local_cluster: workers must be an integer in \[1, 1024\], got "):
            dist.local_cluster(bad)


# --------------------------------------------------------------------------------------------- Dask
@pytest.fixture(scope="module")
def dask_client():
    """The workbench's LocalCluster (:func:`dist.local_cluster`): two worker processes, one thread each; a worker
    that dies fails its task at once (no retry on another worker), so that the failure test is quick."""
    distributed = reference_module("distributed")
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), dist.local_cluster(2) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _worker_settings() -> tuple:
    import dask

    return tuple(dask.config.get(key) for key in dist.LOCAL_CLUSTER_CONFIG)


def test_a_dask_cluster_gives_the_serial_results_bit_for_bit(dask_client):
    """On the workbench's own LocalCluster, whose workers run without the profiler, the 20 ms tick and the 100 ms
    memory monitor (:data:`dist.LOCAL_CLUSTER_CONFIG`); a user's cluster with Dask's defaults is the test below."""
    assert dask_client.nthreads() == dict.fromkeys(dask_client.nthreads(), 1) and len(dask_client.nthreads()) == 2
    assert set(dask_client.run(_worker_settings).values()) == {(False, "1s", "1s")}
    for campaign, measures in ((_ranking_campaign(9), RANKING), (_grouping_campaign(10), GROUPING),
                               (_read_campaign(11), RANKING)):
        serial = campaign.evaluate(measures, progress=False)
        for chunk_topics in (None, 3):
            clustered = campaign.evaluate(measures, executor=dask_client, chunk_topics=chunk_topics,
                                          progress=False)
            _assert_bitwise_equal(serial, clustered)


def test_a_users_own_dask_client_with_the_defaults_gives_the_serial_results_bit_for_bit():
    """A client the user made (Dask's settings: the profiler on), here one in-process worker of two threads
    scoring two chunks at once."""
    distributed = reference_module("distributed")
    campaign = _ranking_campaign(9)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        assert _worker_settings()[0] is True
        _assert_bitwise_equal(campaign.evaluate(RANKING, progress=False),
                              campaign.evaluate(RANKING, executor=client, chunk_topics=2, progress=False))


def test_a_dask_cluster_ships_custom_measures_and_names_unpicklable_ones(dask_client, custom_measures,
                                                                         register_measure):
    campaign = _grouping_campaign(11)
    lock = threading.Lock()

    def closure(gold, output):  # cloudpickle sends local functions by value
        return len(gold.documents) / 100

    register_measure("test-closure", closure, source="tests/test_distributed.py")
    register_measure("test-locked", lambda gold, output, lock=lock: 1.0)
    serial = campaign.evaluate(["test-closure", "NMI"], progress=False)
    _assert_bitwise_equal(serial, campaign.evaluate(["test-closure", "NMI"], executor=dask_client,
                                                    progress=False))
    with pytest.raises(UnpicklableMeasureError, match="measure 'test-locked' cannot be sent"):
        campaign.evaluate(["NMI", "test-locked"], executor=dask_client, progress=False)


def test_a_killed_dask_worker_names_the_topics_not_scored(dask_client, custom_measures):
    campaign = _grouping_campaign(12, topics=8)
    gold = dict(campaign.gold, t6=Organization.from_clustering([[KILL_DOC, "d1"]]))
    campaign = Campaign(gold, campaign.runs)
    with pytest.raises(CampaignInterruptedError, match=r"not scored: .*'t6'.*no results were kept") as error:
        campaign.evaluate(["test-kill"], executor=dask_client, chunk_topics=2, progress=False)
    assert "t6" in error.value.topics
    assert dist._is_dask_client(dask_client)


def test_the_real_samples_score_the_same_in_a_process_pool(spawn_pool):
    """trec_eval's own test run and the RepLab 2013 topic-detection outputs, serial vs two fresh processes."""
    from tests.conftest import shared_dataset
    from workbench.data import read_replab, read_trec_qrels, read_trec_run

    trec = Campaign(read_trec_qrels(shared_dataset("trec_eval_test", "qrels.test")),
                    read_trec_run(shared_dataset("trec_eval_test", "results.test")))
    folder = shared_dataset("replab2013_topic_detection")
    replab = Campaign(read_replab(folder / "replab2013_topic_detection_goldstandard.dat", encoding="latin-1"),
                      {p.name: read_replab(p) for p in sorted((folder / "system-outputs").iterdir())})
    for campaign, measures in ((trec, ["AP", "nDCG@10", "P@10", "RR", "ERR@20"]),
                               (replab, ["R∼(missing=replab)", "S∼(missing=replab)", "BCubed-F"])):
        serial = campaign.evaluate(measures, missing_topics="skip", progress=False)
        pooled = campaign.evaluate(measures, missing_topics="skip", executor=spawn_pool, progress=False)
        _assert_bitwise_equal(serial, pooled)


def test_a_campaign_with_nothing_to_score_gives_the_empty_serial_table():
    campaign = Campaign(_grouping_campaign(13).gold, {})
    with ThreadPoolExecutor(1) as pool:
        _assert_bitwise_equal(campaign.evaluate(["NMI"], progress=False),
                              campaign.evaluate(["NMI"], executor=pool, progress=False))


def test_a_measure_registered_under_a_new_name_in_the_session_is_unknown_to_fresh_workers(spawn_pool,
                                                                                         register_measure):
    register_measure("test-nmi-alias", registry.parse("NMI").spec.compute)
    with pytest.raises(CampaignError, match="a worker does not know a measure .*'test-nmi-alias'"):
        _grouping_campaign(14).evaluate(["test-nmi-alias"], executor=spawn_pool, progress=False)


def test_executors_that_take_no_more_work_are_named(custom_measures):
    """Issue 20 item 6: a shut-down pool, a pool broken by a worker lost before, a closed Dask client."""
    campaign = _grouping_campaign(12, topics=4)
    for kind in (ThreadPoolExecutor, ProcessPoolExecutor):
        pool = kind(1)
        pool.shutdown()
        with pytest.raises(CampaignError, match=rf"the executor \({kind.__name__}\) takes no more work "
                                                r"\(RuntimeError: cannot schedule new futures after shutdown\): "
                                                r"create a new one"):
            campaign.evaluate(["NMI"], executor=pool, progress=False)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        with pytest.raises(CampaignInterruptedError):  # its worker dies: the pool is broken from now on
            Campaign(dict(campaign.gold, t0=Organization.from_clustering([[KILL_DOC]])), campaign.runs).evaluate(
                ["test-kill"], executor=pool, progress=False)
        with pytest.raises(CampaignError, match=r"\(ProcessPoolExecutor\) takes no more work \(BrokenProcessPool"):
            campaign.evaluate(["NMI"], executor=pool, progress=False)
    distributed = reference_module("distributed")
    client = distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None)
    client.close()
    with pytest.raises(CampaignError, match=r"\(Client\) takes no more work \(the Dask client is closed\)"):
        campaign.evaluate(["NMI"], executor=client, progress=False)
