"""Runs and judgements held in memory (dicts, records, frames): read at C speed, yet as a plain ranking of each
topic would read them; bad values refused naming the topic and the document; the judgements of the same qrels
read once, and read again when anything in them changes."""

from collections import namedtuple

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.data import Campaign, FrameError
from workbench.data.trec import memory
from workbench.data.trec.memory import evaluate_run, judgements_from_dicts, runs_from_dicts
from workbench.data.trec.ranked import Judgements
from workbench.errors import WorkbenchError
from workbench.metrics.ranking import evaluate_table
from workbench.metrics.ranking.table import GainTable
from workbench.threads import THREADS_VARIABLE

MEASURES = ["AP", "nDCG", "nDCG@3", "P@2", "RR", "Bpref", "NumRet", "RPrec"]
Qrel = namedtuple("Qrel", "query_id doc_id relevance iteration")
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")

# ids of any text (NUL, non-ASCII and lone surrogates included), a few of them shared between topics and files
IDS = st.one_of(st.text(max_size=12), st.sampled_from(["a", "b", "é", "a\0b", "\ud800", "doc-0000000001"]))
SCORES = st.one_of(st.sampled_from([0.5, 0.25, 0.30000001, 0.3, 1.0, -2.0, 0.0]), st.integers(-3, 3),
                   st.floats(-1e6, 1e6, allow_nan=False).map(np.float32), st.sampled_from(["0.5", "2"]))
GRADES = st.one_of(st.integers(-1, 3), st.sampled_from([2.5, np.int64(2), np.float64(1.0), "1"]))


def _reference(qrels: dict, run: dict, precision: str = "float64") -> GainTable:
    """A plain ranking of each run topic the qrels judge: score descending (compared at ``precision``), then the
    id's UTF-8 bytes descending (trec_eval's strcmp), each ranked document looked up in the topic's dict."""
    def key(item):
        doc, score = item
        return np.asarray(float(score)).astype(precision).item(), doc.encode("utf-8", "surrogatepass")

    rows = [({d: float(g) for d, g in qrels[t].items()}, [d for d, _ in sorted(run[t].items(), key=key, reverse=True)])
            for t in run if t in qrels]
    return GainTable.from_judged_rankings(rows, [t for t in run if t in qrels])


@st.composite
def campaigns(draw):
    topics = draw(st.lists(st.sampled_from(["q1", "q2", "301", "é", "t\0"]), min_size=1, max_size=4, unique=True))
    qrels = {t: draw(st.dictionaries(IDS, GRADES, min_size=1, max_size=6)) for t in topics}
    run = {t: draw(st.dictionaries(IDS, SCORES, min_size=1, max_size=8))
           for t in draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))}
    return qrels, run


@pytest.mark.filterwarnings("ignore::workbench.data.campaign.MissingTopicsWarning")
@settings(max_examples=150, deadline=None)
@given(data=campaigns(), precision=st.sampled_from(["float64", "float32"]))
def test_dicts_score_as_a_plain_ranking_of_each_topic(data, precision):
    """Whatever the ids (NUL, non-ASCII, lone surrogates) and the values' types (ints, floats, float32, numeric
    text), the one-pass reading of dicts scores what a plain per-topic ranking scores, bit for bit; the same
    through Campaign.from_dicts, records and frames (object columns and Arrow-backed ones)."""
    qrels, run = data
    expected = evaluate_table(_reference(qrels, run, precision), MEASURES)
    assert evaluate_run(qrels, run, MEASURES, score_precision=precision) == expected
    assert evaluate_run(judgements_from_dicts(qrels), run, MEASURES, score_precision=precision) == expected
    judged = [t for t in run if t in qrels]
    doors = {
        "dicts": Campaign.from_dicts(qrels, {"s": run}, score_precision=precision),
        "records": Campaign.from_namedtuples([Qrel(t, d, g, "0") for t, j in qrels.items() for d, g in j.items()],
                                             {"s": [ScoredDoc(t, d, v) for t, r in run.items() for d, v in r.items()]},
                                             score_precision=precision),
    }
    frames = {"query_id": [], "doc_id": [], "relevance": []}, {"query_id": [], "doc_id": [], "score": []}
    for (columns, nested, value) in ((frames[0], qrels, "relevance"), (frames[1], run, "score")):
        for t, docs in nested.items():
            for d, v in docs.items():
                columns["query_id"].append(t)
                columns["doc_id"].append(d)
                columns[value].append(float(v))
    surrogates = any("\ud800" in d for columns in frames for d in columns["doc_id"])
    for storage in ("object", "arrow")[:1 if surrogates else 2]:  # Arrow holds no lone surrogate
        qrels_frame, run_frame = (pd.DataFrame({name: pd.Series(values, dtype=object if name != "score" and
                                                                name != "relevance" else float)
                                                for name, values in columns.items()}) for columns in frames)
        if storage == "arrow":
            qrels_frame, run_frame = (frame.astype({"query_id": "string[pyarrow]", "doc_id": "string[pyarrow]"})
                                      for frame in (qrels_frame, run_frame))
        doors[f"frames ({storage})"] = Campaign.from_frames(qrels_frame, {"s": run_frame}, score_precision=precision)
    for door, campaign in doors.items():
        scores = campaign.evaluate(MEASURES, missing_topics="skip", extra_topics="ignore", progress=False)
        for measure in MEASURES:
            got = scores[scores.measure == measure].set_index("topic").value.to_dict()
            assert got == {t: expected[measure][t] for t in judged}, (door, measure)


@settings(max_examples=40, deadline=None)
@given(data=campaigns(), block=st.integers(1, 9))
def test_a_run_scored_a_block_of_topics_at_a_time_scores_as_a_whole(data, block):
    """evaluate_run reads, ranks and scores a large run a block of whole topics at a time (RUN_BLOCK entries), the
    blocks on one thread or shared between two: every topic's values, and their order, as in one pass."""
    qrels, run = data
    whole = evaluate_run(qrels, run, MEASURES)
    for count in ("1", "2"):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(memory, "RUN_BLOCK", block)
            patch.setenv(THREADS_VARIABLE, count)
            blocked = evaluate_run(qrels, run, MEASURES)
        assert blocked == whole and all(list(blocked[m]) == list(whole[m]) for m in MEASURES), count


@pytest.mark.filterwarnings("ignore::workbench.data.campaign.MissingTopicsWarning")
@settings(max_examples=40, deadline=None)
@given(data=campaigns(), block=st.integers(1, 9))
def test_a_campaign_scores_a_run_a_block_of_topics_at_a_time_as_a_whole(data, block):
    """A campaign joins and scores a run read as arrays a block of whole topics at a time (RUN_BLOCK entries, a topic
    the run lacks counting one: its placeholder): the frame of one table per run, bit for bit, placeholder rows
    included; a run with a repeated document is refused naming the system, as with one table."""
    qrels, run = data
    other = {topic: dict(list(docs.items())[::-1]) for topic, docs in reversed(list(run.items()))}
    campaign = Campaign.from_dicts(qrels, {"s1": run, "s2": other})
    whole = campaign.evaluate(MEASURES, progress=False)
    for count in ("1", "2"):  # the blocks on one thread or shared between two
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(memory, "RUN_BLOCK", block)
            patch.setenv(THREADS_VARIABLE, count)
            blocked = campaign.evaluate(MEASURES, progress=False)
        pd.testing.assert_frame_equal(blocked, whole, check_exact=True)
    topic = next(iter(run))
    repeated = pd.DataFrame({"query_id": [t for t in run for _ in run[t]] + [topic],
                             "doc_id": [d for t in run for d in run[t]] + [next(iter(run[topic]))],
                             "score": [0.0] * (sum(map(len, run.values())) + 1)}, dtype=object)
    refused = Campaign.from_frames(pd.DataFrame({"query_id": list(qrels), "doc_id": "d", "relevance": 1}),
                                   {"s": repeated})
    raised = []
    for size in (1 << 20, block):
        with pytest.MonkeyPatch.context() as patch, pytest.raises(WorkbenchError, match="system 's'") as error:
            patch.setattr(memory, "RUN_BLOCK", size)
            refused.evaluate(MEASURES, progress=False)
        raised.append(str(error.value))
    assert raised[0] == raised[1]


def test_max_docs_cuts_runs_given_as_dicts_as_it_cuts_frames(monkeypatch):
    """trec_eval's -M on dicts (whose documents are known distinct): hand-computed, q's ranking c, b, a cut to its
    first 2 retrieves 2 documents and misses the relevant a (RR 0), as the same run given as a frame does, in one
    pass and a block of entries at a time (ranked in place); before the fix, dicts were not cut (NumRet 3, RR 1/3)."""
    qrels, run = {"q": {"a": 1}, "r": {"x": 1}}, {"q": {"a": 1.0, "b": 2.0, "c": 3.0}, "r": {"x": 0.5, "y": 0.1}}
    expected = {"NumRet": {"q": 2.0, "r": 2.0}, "RR": {"q": 0.0, "r": 1.0}}
    assert runs_from_dicts({"s": run}, max_docs=2)["s"].documents("q") == ["c", "b"]
    assert evaluate_run(qrels, run, ["NumRet", "RR"], max_docs=2) == expected
    monkeypatch.setattr(memory, "RUN_BLOCK", 2)
    assert evaluate_run(qrels, run, ["NumRet", "RR"], max_docs=2) == expected
    frame = pd.DataFrame({"query_id": ["q"] * 3 + ["r"] * 2, "doc_id": ["a", "b", "c", "x", "y"],
                          "score": [1.0, 2.0, 3.0, 0.5, 0.1]})
    gold = pd.DataFrame({"query_id": ["q", "r"], "doc_id": ["a", "x"], "relevance": [1, 1]})
    for campaign in (Campaign.from_frames(gold, {"s": frame}, max_docs=2), Campaign.from_dicts(qrels, {"s": run},
                                                                                                max_docs=2)):
        scores = campaign.evaluate(["NumRet", "RR"], progress=False)
        assert {m: dict(zip(part.topic, part.value, strict=True)) for m, part in scores.groupby("measure")} == \
            expected


def test_a_block_of_unjudged_topics_adds_nothing(monkeypatch):
    """Hand-computed: q1 retrieves its relevant a first (AP 1, P@1 1); q3 ranks the non-relevant b above c (AP 1/2,
    P@1 0); q2, unjudged, scores nothing, alone in a block or not."""
    qrels = {"q1": {"a": 1}, "q3": {"c": 1}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"a": 1.0, "b": 0.5}, "q3": {"b": 1.0, "c": 0.2}}
    whole = evaluate_run(qrels, run, ["AP", "P@1"])
    monkeypatch.setattr(memory, "RUN_BLOCK", 2)  # q2 a block of its own
    assert evaluate_run(qrels, run, ["AP", "P@1"]) == whole == {"AP": {"q1": 1.0, "q3": 0.5},
                                                                "P@1": {"q1": 1.0, "q3": 0.0}}


def test_bad_input_in_a_later_block_is_named_as_in_one_pass(monkeypatch):
    """Blocks of a run are read as one: a repeat is numbered by its entries in the whole run, and one topic given
    as 1 and as "1" is refused even when two blocks hold them."""
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "1": {"a": 1}}
    repeat = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0, 7: 0.5, "7": 0.4}}
    alike = {1: {"a": 1.0, "b": 0.5}, "q1": {"a": 1.0, "b": 0.5}, "1": {"a": 1.0}}
    for run, message in ((repeat, r"query 'q2', document '7' is given twice \(entries 3 and 4,"),
                         (alike, "topics 1 and '1' are both written 1")):
        raised = []
        for block in (1 << 20, 2):
            monkeypatch.setattr(memory, "RUN_BLOCK", block)
            with pytest.raises(WorkbenchError, match=message) as error:
                evaluate_run(qrels, run, ["AP"])
            raised.append((type(error.value), str(error.value)))
        assert raised[0] == raised[1]


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(("qrels", "run", "message"), [
    ({"q1": {"a": "high"}}, {"q1": {"a": 1.0}}, r"qrels: query 'q1', document 'a' is not a number: 'high'"),
    ({"q1": {"a": True}}, {"q1": {"a": 1.0}}, r"qrels: query 'q1', document 'a' is a boolean"),
    ({"q1": {"a": float("inf")}}, {"q1": {"a": 1.0}}, r"qrels: query 'q1', document 'a' is infinite"),
    ({"q1": {"a": 1, "b": float("nan")}}, {"q1": {"a": 1.0}}, r"qrels: query 'q1', document 'b' is NaN"),
    ({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": float("nan")}}, r"run 'run': query 'q1', document 'b' is NaN"),
    ({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": np.bool_(True)}}, r"run 'run': query 'q1', document 'b' is a boolean"),
    ({"q1": {"a": 1}}, {"q1": {"a": 0.5, "b": None}}, r"run 'run': query 'q1', document 'b' is not a number"),
    ({"q1": {"a": 1, 2.5: 1}}, {"q1": {"a": 1.0}}, r"qrels: query 'q1', document 2.5 is a float, not an id"),
    ({"q1": {"a": 1}}, {"q1": {("d", 1): 1.0}}, r"run 'run': query 'q1', document \('d', 1\) is a tuple, not an id"),
    ({"q1": {"a": 1}}, {"q1": {b"d": 1.0}}, r"run 'run': query 'q1', document b'd' is a bytes, not an id"),
    ({1.5: {"a": 1}}, {"q1": {"a": 1.0}}, r"qrels: query 1.5 is a float, not an id"),
    ({"q1": {"a": 1}}, {True: {"a": 1.0}}, r"run 'run': query True is a bool, not an id"),
])
def test_bad_values_and_ids_are_refused_naming_topic_and_document(qrels, run, message):
    """What no TREC file can hold (a grade that is no number, a NaN score, an id that is not text) is refused as
    the file readers refuse theirs: a named error saying which topic and document, nothing converted."""
    with pytest.raises(FrameError, match=message):
        evaluate_run(qrels, run, ["AP"])
    with pytest.raises(FrameError, match=message.replace("'run'", "'s'")):
        Campaign.from_dicts(qrels, {"s": run})


def test_bad_records_and_frames_are_refused_naming_where():
    with pytest.raises(FrameError, match=r"run 's': query 'q1', document 1.5 is a float, not an id"):
        Campaign.from_namedtuples([Qrel("q1", "a", 1, "0")], {"s": [ScoredDoc("q1", "a", 1.0),
                                                                     ScoredDoc("q1", 1.5, 0.5)]})
    with pytest.raises(FrameError, match=r"run 's': query 'q1', document 'b' is NaN"):
        Campaign.from_namedtuples([Qrel("q1", "a", 1, "0")], {"s": [ScoredDoc("q1", "a", 1.0),
                                                                     ScoredDoc("q1", "b", float("nan"))]})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(FrameError, match=r"column 'doc_id' holds float64 values, not ids"):
        Campaign.from_frames(qrels, {"s": pd.DataFrame({"query_id": ["q1"], "doc_id": [1.5], "score": [1.0]})})
    with pytest.raises(FrameError, match=r"column 'doc_id' holds a float at row 1: 1.5"):
        Campaign.from_frames(qrels, {"s": pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": pd.Series(["a", 1.5],
                                                                                                     dtype=object),
                                                        "score": [1.0, 0.5]})})


# ------------------------------------------------------------------------------------- the same qrels
def test_the_same_qrels_are_read_once_and_read_again_when_changed(monkeypatch):
    """A qrels dict given again, unchanged, gives the judgements already read (the second call does not read
    it); a changed grade, an added judgement, a value turned boolean: read afresh, as if given for the first
    time."""
    read = []
    nested = memory._nested
    monkeypatch.setattr(memory, "_nested", lambda *args, **kw: read.append(args[1]) or nested(*args, **kw))
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
    run = {"q1": {"a": 0.2, "b": 0.9}, "q2": {"c": 0.5, "d": 0.7}}
    first = evaluate_run(qrels, run, ["RR"])
    assert evaluate_run(qrels, run, ["RR"]) == first == {"RR": {"q1": 0.5, "q2": 0.5}}
    assert read == ["qrels", "run 'run'", "run 'run'"]  # the qrels once, the run each time
    gold = judgements_from_dicts(qrels)
    assert judgements_from_dicts(qrels) is gold and isinstance(gold, Judgements)
    qrels["q1"]["b"] = 1  # a grade changed
    assert evaluate_run(qrels, run, ["RR"]) == {"RR": {"q1": 1.0, "q2": 0.5}}
    qrels["q2"]["d"] = 3  # a judgement added
    assert evaluate_run(qrels, run, ["RR"]) == {"RR": {"q1": 1.0, "q2": 1.0}}
    qrels["q2"]["d"] = 3.0  # equal, of another type: read again, same value
    assert evaluate_run(qrels, run, ["RR"]) == {"RR": {"q1": 1.0, "q2": 1.0}}
    qrels["q1"]["b"] = True  # equal to 1, but a boolean: refused as it would be the first time
    with pytest.raises(FrameError, match=r"query 'q1', document 'b' is a boolean"):
        evaluate_run(qrels, run, ["RR"])
    assert read.count("qrels") == 5


def test_held_judgements_are_used_as_they_are():
    qrels = {"q1": {"a": 1}}
    gold = judgements_from_dicts(qrels)
    assert judgements_from_dicts(gold) is gold
    assert evaluate_run(gold, {"q1": {"a": 0.5, "b": 0.9}}, ["RR"]) == {"RR": {"q1": 0.5}}
    assert Campaign.from_dicts(gold, {"s": {"q1": {"a": 0.5}}}).gold is gold


def test_one_qrels_for_many_runs_is_read_once(monkeypatch):
    """A campaign of several runs against one qrels reads the judgements once."""
    read = []
    nested = memory._nested
    monkeypatch.setattr(memory, "_nested", lambda *args, **kw: read.append(args[1]) or nested(*args, **kw))
    qrels = {"q1": {"a": 1}}
    runs = {f"s{i}": {"q1": {"a": i / 10, "b": 0.5}} for i in range(4)}
    campaign = Campaign.from_dicts(qrels, runs)
    assert read.count("qrels") == 1 and len(runs_from_dicts(runs)) == 4
    assert campaign.evaluate("RR", progress=False).value.tolist() == [0.5, 0.5, 0.5, 0.5]
