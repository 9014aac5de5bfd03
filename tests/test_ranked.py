"""trec_eval's ranking rule everywhere a run is read (scores as doubles, or as 32-bit floats on request; ties by id
descending, -M, duplicates refused when a topic is used), the arrays-backed readers (the Arrow path = the scanner;
lazy Organizations), and campaigns from DataFrames, dicts and namedtuples equal to the same data read from TREC
files."""

import functools
import os
import warnings
from collections import namedtuple
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench.threads as threads_module
from tests.conftest import reference_module, shared_dataset, write_trec
from workbench import evaluate
from workbench.cli import main
from workbench.data import (
    FrameError,
    TrecFormatError,
    evaluate_run,
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_run,
    read_trec_run_frame,
    write_trec_qrels,
    write_trec_run,
)
from workbench.data.campaign import Campaign, CampaignError, MissingTopicsWarning, means
from workbench.data.trec import lines as lines_module
from workbench.data.trec import ranked as ranked_module
from workbench.data.trec.ranked import Judgements, RankedRun, judgements, rank_runs
from workbench.errors import ParameterError, WorkbenchError, WorkbenchWarning
from workbench.ids import DocumentIds
from workbench.metrics.ranking import trec_eval_order
from workbench.model import Organization
from workbench.threads import THREADS_VARIABLE

MEASURES = ["AP", "nDCG", "nDCG@5", "P@5", "RR", "RPrec", "Success@3", "ERR@10", "RBP(p=0.8)", "Q-measure"]


# ------------------------------------------------------------------------------------ the ordering rule
def _trec_eval_sorted(scores, docs, groups, precision):
    """trec_eval's qsort with comp_sim_docno (form_res_rels.c), written as a comparator."""
    values = np.asarray(scores, dtype=float)
    if precision == "float32":
        with np.errstate(over="ignore"):
            values = values.astype(np.float32)

    def compare(i, j):
        if groups[i] != groups[j]:
            return -1 if groups[i] < groups[j] else 1
        if values[i] != values[j]:
            return -1 if values[i] > values[j] else 1
        return (docs[j] > docs[i]) - (docs[j] < docs[i])

    return sorted(range(len(docs)), key=functools.cmp_to_key(compare))


SPECIAL = [0.0, -0.0, 1.0, 0.3, 0.30000001, 0.30000000000000004, np.inf, -np.inf, 1e39, -1e39, 5e-46, 3.4e38,
           3.5e38, -2.5]


def test_tied_entries_sort_by_run_then_id_then_input_order_in_one_key_or_by_lexsort():
    """trec_eval_order's last step on tied entries (repeats of a document included: input order): the one int64 key
    (run, code, entry) and the lexsort it falls back to where the key would not fit give np.lexsort's order."""
    from workbench.metrics.ranking.table import _by_run_then_id

    rng = np.random.default_rng(7)
    for _ in range(50):
        m = int(rng.integers(1, 60))
        n = int(rng.integers(m, 300))
        run = np.sort(rng.integers(1, 12, m)).astype(np.int64)
        codes = rng.integers(0, 6, m).astype(np.int64)
        entries = rng.choice(n, m, replace=False).astype(np.int64)
        width = int(codes.max()) + 1
        expected = entries[np.lexsort((entries, run * width + (width - 1 - codes)))].tolist()
        assert _by_run_then_id(run, codes, entries, n).tolist() == expected
        assert _by_run_then_id(run, codes, entries, 2**62).tolist() == expected  # past 63 bits: lexsort


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=False, width=64)),
                          st.text(alphabet="abé0Z-", min_size=1, max_size=3), st.integers(0, 2)),
                min_size=1, max_size=40, unique_by=lambda e: (e[1], e[2])),
       st.sampled_from(["float32", "float64"]))
def test_trec_eval_order_is_trec_eval_comparator(entries, precision):
    """Score descending (as doubles by default, or as 32-bit floats: -0.0 = 0.0, overflow to inf), then id
    descending."""
    scores, docs, groups = (list(column) for column in zip(*entries, strict=True))
    expected = _trec_eval_sorted(scores, docs, groups, precision)
    assert trec_eval_order(scores, docs, np.array(groups), precision).tolist() == expected
    ungrouped = _trec_eval_sorted(scores, docs, [0] * len(docs), precision)
    assert trec_eval_order(scores, docs, score_precision=precision).tolist() == ungrouped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1.0, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 1.0 + 2**-40,
                                           -0.0, 0.0, 3.5e38, np.inf, -1e-300, 5e-324]),
                          st.text(alphabet="ab", min_size=1, max_size=3),
                          st.sampled_from([0, 1, 2**20 - 1, 2**31 + 7])), min_size=1, max_size=30,
                unique_by=lambda e: (e[1], e[2])))
def test_many_groups_keep_every_bit_of_the_scores(entries):
    """Group codes take the key's leading bits; scores that differ in their last bits still rank as doubles."""
    scores, docs, groups = (list(column) for column in zip(*entries, strict=True))
    expected = _trec_eval_sorted(scores, docs, groups, "float64")
    assert trec_eval_order(scores, docs, np.array(groups)).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), st.integers(1, 12), st.data(), st.sampled_from(["float32", "float64"]))
def test_groups_one_after_the_other_each_sorted_alone(groups, size, data, precision):
    """Groups ascending, of one size (or the last one shorter: padded), are sorted a group per row
    (:func:`workbench.sorting.stable_order`): trec_eval's order still, scores equal but for their last bits
    included."""
    sizes = [size] * (groups - 1) + [data.draw(st.sampled_from([size, max(size - 1, 1)]))]
    codes = np.repeat(np.array(data.draw(st.lists(st.sampled_from([0, 1, 3, 7, 2**20, 2**31 + 7]), min_size=groups,
                                                  max_size=groups, unique=True))), sizes)
    codes.sort()
    pool = SPECIAL + [1.0 + 2**-40, np.nextafter(1.0, 2.0), np.nextafter(1.0, 0.0), 1.0 + 2**-52 * 3]
    scores = data.draw(st.lists(st.sampled_from(pool), min_size=codes.size, max_size=codes.size))
    docs = data.draw(st.lists(st.text(alphabet="ab", min_size=1, max_size=4), min_size=codes.size,
                              max_size=codes.size))
    expected = _trec_eval_sorted(scores, docs, codes.tolist(), precision)
    assert trec_eval_order(scores, docs, codes, precision).tolist() == expected


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_topics_one_after_the_other_are_ranked_by_blocks_as_all_at_once(monkeypatch, precision):
    """A run whose topics come one after the other is ranked a block of whole topics at a time (topics longer
    than a block, blocks ending inside a topic's stretch moved to its end), on two threads: the same positions as
    one sort of every entry, and as trec_eval_order's own; a run whose topics interleave is sorted at once."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(0, 40, 60)
    topics = np.repeat(np.arange(sizes.size), sizes)
    scores = np.round(rng.random(topics.size), 2)  # many ties, put in order by id
    scores[::7] = 1.0 + 2**-40  # equal in float32, not in float64
    documents = DocumentIds.from_strings([f"d{i % 97}" for i in range(topics.size)])
    whole = trec_eval_order(scores, documents, groups=topics, score_precision=precision)
    monkeypatch.setattr(ranked_module, "RANKED_BLOCK", 50)
    monkeypatch.setattr(threads_module, "threads", lambda: 2)  # the blocks sorted on two threads, even on one core
    blocks = ranked_module._order_by_blocks(scores, documents, topics, precision)
    assert blocks.dtype == np.int32 and blocks.tolist() == whole.tolist()
    run = rank_runs(None, [f"q{t}" for t in topics], documents, scores, score_precision=precision)[""]
    assert [d for t in run for d in run.documents(t)] == documents.strings()[whole].tolist()
    shuffled = rng.permutation(topics.size)
    assert ranked_module._order_by_blocks(scores[shuffled], documents.take(shuffled), topics[shuffled],
                                          precision).tolist() == \
        trec_eval_order(scores[shuffled], documents.take(shuffled), groups=topics[shuffled],
                        score_precision=precision).tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9), st.sampled_from([0.5, 0.25, 1.0, 2.0, -1.0])),
                min_size=1, max_size=40, unique_by=lambda entry: entry[:2]),
       st.sampled_from([3, 8, 1 << 18]), st.sampled_from([None, 1, 2]), st.booleans(), st.booleans())
def test_a_run_ranked_in_place_is_the_run_ranked_from_a_copy(entries, block, max_docs, ordered, non_ascii):
    """Entries whose topics come one after the other, each document once (dicts' entries), ranked in place of their
    own arrays (``in_place``, by blocks of whole topics on two threads) give the run ranked from a copy, bit for
    bit, ``-M`` cut included, and the given arrays are then the ranked ones (no copy was made); topics that
    interleave, or ids read in place from Arrow's buffers, are ranked from a copy, the given arrays left as they
    were."""
    if ordered:
        entries = sorted(entries, key=lambda entry: entry[0])
    topics = [f"q{topic}" for topic, _, _ in entries]
    texts = [("é" if non_ascii else "d") * (document % 3 + 1) + str(document) for _, document, _ in entries]
    scores = np.array([score for _, _, score in entries])
    expected = rank_runs(None, topics, DocumentIds.from_strings(texts), scores.copy(), unique=True,
                         max_docs=max_docs)[""]
    uncut = rank_runs(None, topics, DocumentIds.from_strings(texts), scores.copy(), unique=True)[""]
    with mock.patch.object(ranked_module, "RANKED_BLOCK", block), mock.patch.object(threads_module, "threads",
                                                                                     lambda: 2):
        for ids in (DocumentIds.from_strings(texts), DocumentIds.from_arrow(DocumentIds.from_strings(texts).arrow())):
            given_scores = scores.copy()
            run = rank_runs(None, topics, ids, given_scores, unique=True, max_docs=max_docs, in_place=True)[""]
            assert run.topics == expected.topics and run.offsets.tolist() == expected.offsets.tolist()
            assert run.ids.strings().tolist() == expected.ids.strings().tolist()
            assert run.scores_array.tobytes() == expected.scores_array.tobytes()
            if ids.reorderable and topics == sorted(topics, key=topics.index):  # the given arrays ranked
                assert ids.strings().tolist() == uncut.ids.strings().tolist()
                assert given_scores.tobytes() == uncut.scores_array.tobytes()
                assert max_docs is not None or np.shares_memory(run.scores_array, given_scores)
            else:
                assert ids.strings().tolist() == texts and given_scores.tobytes() == scores.tobytes()


def test_blocks_are_cut_without_np_unique(monkeypatch):
    """Issue 42: the blocks of whole topics are cut where the (sorted) topic starts are, without ``np.unique``,
    whose first call imports ``numpy.ma`` (7 ms of the command line's serial time): one topic longer than a block
    (no start to cut at) and many short ones rank as one sort does, and so are their repeats found."""
    rng = np.random.default_rng(3)
    monkeypatch.setattr(ranked_module, "RANKED_BLOCK", 50)
    monkeypatch.setattr(threads_module, "threads", lambda: 2)
    for sizes in ([120], [30, 45, 80, 5, 60]):
        topics = np.repeat(np.arange(len(sizes)), sizes)
        scores = np.round(rng.random(topics.size), 1)
        documents = DocumentIds.from_strings([f"d{i}" for i in range(topics.size)])
        whole = trec_eval_order(scores, documents, groups=topics)
        with monkeypatch.context() as patch:
            patch.setattr(np, "unique", None)  # called: a TypeError
            blocks = ranked_module._order_by_blocks(scores, documents, topics, "float64")
            repeated = ranked_module._repeats_in_rank_order(topics, blocks, documents.take(blocks),
                                                            np.bincount(topics))
        assert blocks.tolist() == whole.tolist() and not repeated


@settings(max_examples=100, deadline=None)
@given(codes=st.lists(st.integers(0, 6), max_size=30), ordered=st.booleans(), extra=st.integers(0, 3))
def test_group_sizes_are_bincounts(codes, ordered, extra):
    """Issue 42: rank_runs counts a run's entries per (system, topic) from the stretches of its codes where they
    never decrease (np.bincount took 8 ms of 2M entries); any codes give np.bincount's counts, length and type."""
    group = np.array(sorted(codes) if ordered else codes, dtype=np.int32)
    n = max(codes, default=-1) + 1 + extra
    expected = np.bincount(group, minlength=n)
    sizes = ranked_module._group_sizes(group, n)
    assert sizes.tolist() == expected.tolist() and sizes.dtype == expected.dtype


def test_scores_tie_as_doubles_or_as_32_bit_floats(tmp_path):
    """0.30000001 and 0.3 are two doubles (trec_eval 10.0 ranks 'a' first) but one float32: trec_eval 9.x (and
    pytrec_eval, its C code) ranks that tie by id descending, so 'b' (non-relevant) comes first."""
    run = tmp_path / "run"
    run.write_text("q1 Q0 a 1 0.30000001 sys\nq1 Q0 b 2 0.3 sys\nq1 Q0 c 3 0.1 sys\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\n")
    assert read_trec_run(run)["sys"].documents("q1") == ["a", "b", "c"]
    assert read_trec_run(run, score_precision="float32")["sys"].documents("q1") == ["b", "a", "c"]
    gold = read_trec_qrels(qrels)
    default = Campaign(gold, read_trec_run(run)).evaluate(["AP", "RR"], progress=False)
    assert default.value.tolist() == [1.0, 1.0]
    nine = Campaign(gold, read_trec_run(run, score_precision="float32")).evaluate(["AP", "RR"], progress=False)
    assert nine.value.tolist() == [0.5, 0.5]
    assert evaluate_run({"q1": {"a": 1, "b": 0}}, {"q1": {"a": 0.30000001, "b": 0.3}}, ["RR"]) == {"RR": {"q1": 1.0}}
    assert evaluate_run({"q1": {"a": 1, "b": 0}}, {"q1": {"a": 0.30000001, "b": 0.3}}, ["RR"],
                        score_precision="float32") == {"RR": {"q1": 0.5}}
    in_memory = {"s": {"q1": {"a": 0.30000001, "b": 0.3}}}
    assert Campaign.from_dicts({"q1": {"a": 1}}, in_memory).evaluate("RR", progress=False).value.tolist() == [1.0]
    assert Campaign.from_dicts({"q1": {"a": 1}}, in_memory, score_precision="float32").evaluate(
        "RR", progress=False).value.tolist() == [0.5]
    pytrec_eval = reference_module("pytrec_eval")
    theirs = pytrec_eval.RelevanceEvaluator({"q1": {"a": 1, "b": 0}}, {"recip_rank"}).evaluate(
        {"q1": {"a": 0.30000001, "b": 0.3, "c": 0.1}})
    assert theirs["q1"]["recip_rank"] == 0.5


def test_cli_ranks_like_trec_eval_10_and_takes_the_32_bit_flag(tmp_path, capsys):
    (tmp_path / "run").write_text("q1 Q0 a 1 0.30000001 sys\nq1 Q0 b 2 0.3 sys\n")
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    args = ["eval", "--gold", str(tmp_path / "qrels"), "--run", str(tmp_path / "run"), "-m", "RR", "--format",
            "csv", "-q"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[1] == "sys,all,RR,1.0"
    assert main([*args, "--score-precision", "float32"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "sys,all,RR,0.5"


# ----------------------------------------------------------------------------- -M and duplicate documents
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_NAMES = {"map": "AP", "Rprec": "RPrec", "recip_rank": "RR", "ndcg": "nDCG",
              **{f"P_{k}": f"P@{k}" for k in CUTOFFS}}


def test_max_docs_reproduces_trec_eval_minus_M():
    """out.test.aqcM: ``trec_eval -m all_trec -q -c -M100 qrels.test results.trunc``, per topic and all."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.test"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.trunc"), max_docs=100)
    assert max(len(runs["STANDARD"].documents(t)) for t in runs["STANDARD"]) == 100
    reference = read_trec_eval_output(shared_dataset("trec_eval_test", "out.test.aqcM"))
    reference = reference[reference.measure.isin(list(TREC_NAMES))]
    with pytest.warns(MissingTopicsWarning):
        results = Campaign(gold, runs).evaluate(list(TREC_NAMES.values()), missing_topics="zero", progress=False)
    ours = pd.concat([results, means(results)]).set_index(["topic", "measure"])["value"]
    for name, topic, value in reference[["measure", "topic", "value"]].itertuples(index=False):
        assert ours[(str(topic), TREC_NAMES[name])] == pytest.approx(float(value), abs=5e-5), (name, topic)
    assert len(reference) == 4 * len(TREC_NAMES)


def test_duplicates_stop_as_in_trec_eval_unless_beyond_the_cut(tmp_path):
    """trec_eval stops on a document twice among the ranked ones of a topic it evaluates (form_res_rels.c) and
    never sees those the -M cut drops: reading keeps the error, naming both lines, and raises it when the topic
    is used; a repeat beyond the cut gets a warning saying it was cut. Other topics read as usual."""
    path = tmp_path / "dup.run"
    path.write_text("q1 Q0 d1 1 0.9 sys\nq1 Q0 d2 2 0.8 sys\n\nq1 Q0 d3 3 0.7 sys\nq1 Q0 d3 4 0.1 sys\n"
                    "q2 Q0 d3 1 0.5 sys\n")
    run = read_trec_run(path)["sys"]
    assert run.documents("q2") == ["d3"]
    with pytest.raises(TrecFormatError, match="'d3' of topic 'q1' of system 'sys' is already on line 4") as error:
        run.documents("q1")
    assert error.value.line == 5 and error.value.text == "q1 Q0 d3 4 0.1 sys"
    (tmp_path / "qrels").write_text("q1 0 d3 1\nq2 0 d3 1\n")
    with pytest.raises(CampaignError, match="already on line 4"):
        Campaign(read_trec_qrels(tmp_path / "qrels"), read_trec_run(path)).evaluate("AP", progress=False)
    with pytest.warns(WorkbenchWarning, match=r"1 entries repeat a document .* beyond the first 3 .*'d3'"):
        cut = read_trec_run(path, max_docs=3)
    assert cut["sys"].documents("q1") == ["d1", "d2", "d3"]
    with pytest.raises(TrecFormatError, match="already on line 4"):
        read_trec_run(path, max_docs=4)["sys"]["q1"]
    assert len(read_trec_run_frame(path)) == 5  # the frame is the lines as they are


# ------------------------------------------------------------------ the Arrow path = the scanner, campaign-wide
# Ids around the 8-byte word boundaries, prefixes of one another, multi-byte UTF-8 (trailing bytes in a word)
WORD_IDS = st.text(alphabet="ab0Z-é中", min_size=1, max_size=18)


@st.composite
def trec_files(draw):
    """A qrels and a run file's lines, single-spaced (Arrow's path), ids and scores with ties, repeats."""
    docs = draw(st.lists(WORD_IDS, min_size=1, max_size=8, unique=True))
    topics = draw(st.lists(st.sampled_from(["301", "q2", "7", "toolongtopicname"]), min_size=1, max_size=3,
                           unique=True))
    qrels = draw(st.lists(st.tuples(st.sampled_from(topics), st.sampled_from(docs), st.integers(-1, 3)),
                          min_size=1, max_size=12))
    scores = st.sampled_from([0.5, 0.30000001, 0.3, 1.0, -2.0, 0.0, -0.0, 1e39])
    run = draw(st.lists(st.tuples(st.sampled_from(topics), st.sampled_from(docs), scores,
                                  st.sampled_from(["bm25", "dense"])), min_size=1, max_size=20))
    return ([f"{t} 0 {d} {g}\n" for t, d, g in qrels],
            [f"{t} Q0 {d} {rank} {s!r} {system}\n" for rank, (t, d, s, system) in enumerate(run)])


def _read_both(read, path, **keywords):
    """``read(path)`` through the Arrow path and through the scanner: each a value or the error raised."""
    outcomes = []
    for fast in (True, False):
        with warnings.catch_warnings(), mock.patch.object(lines_module, "read_plain", lines_module.read_plain
                                                          if fast else lambda *args: None):
            warnings.simplefilter("ignore", WorkbenchWarning)
            try:
                outcomes.append(read(path, **keywords))
            except TrecFormatError as error:
                outcomes.append(error)
    return outcomes


def _refusal(mapping, topic: str):
    """The error reading ``topic`` raises (a duplicate), or None."""
    try:
        mapping[topic]
    except TrecFormatError as error:
        return str(error), error.line
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=trec_files(), max_docs=st.sampled_from([None, 1, 3]))
def test_ids_as_words_read_what_the_scanner_reads(tmp_path, files, max_docs):
    """The Arrow path and the scanner give the same topics, documents, order, scores and grades, refuse the same
    topics (file and line) and give the same campaign values, equal to campaigns of Organizations joined on the
    strings; the ranking is trec_eval's comparator on the strings."""
    qrels_lines, run_lines = files
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(qrels_lines), encoding="utf-8")
    run.write_text("".join(run_lines), encoding="utf-8")
    gold, gold_lines = _read_both(read_trec_qrels, qrels)
    runs, runs_lines = _read_both(read_trec_run, run, max_docs=max_docs)
    judged = [line.split() for line in qrels_lines]
    assert isinstance(gold.ids, DocumentIds)
    assert list(gold) == list(gold_lines) == list(dict.fromkeys(t for t, *_ in judged))
    for topic in gold:
        pairs = [(d, float(g)) for t, _, d, g in judged if t == topic]
        assert _refusal(gold, topic) == _refusal(gold_lines, topic)
        assert (_refusal(gold, topic) is None) == (len({d for d, _ in pairs}) == len(pairs))
        if _refusal(gold, topic) is None:
            assert gold.grades_of(topic) == gold_lines.grades_of(topic) == dict(pairs)
    rows = [line.split() for line in run_lines]
    expected = {}  # (system, topic): trec_eval's ranking, cut to max_docs
    for system, topic in dict.fromkeys((row[5], row[0]) for row in rows):
        entries = [row for row in rows if row[0] == topic and row[5] == system]
        ranking = _trec_eval_sorted([float(e[4]) for e in entries], [e[2] for e in entries], [0] * len(entries),
                                    "float64")
        expected[system, topic] = [entries[i][2] for i in ranking][:max_docs]
    assert list(runs) == list(runs_lines)
    for system, ranked in runs.items():
        assert list(ranked) == list(runs_lines[system])
        for topic in ranked:
            assert _refusal(ranked, topic) == _refusal(runs_lines[system], topic)
            duplicated = len(set(expected[system, topic])) < len(expected[system, topic])
            assert (_refusal(ranked, topic) is not None) == duplicated
            if not duplicated:
                assert ranked.documents(topic) == runs_lines[system].documents(topic) == expected[system, topic]
                assert ranked.scores(topic).tolist() == runs_lines[system].scores(topic).tolist()
    usable_gold = [t for t in gold if _refusal(gold, t) is None]
    usable = {s: [t for t in run if _refusal(run, t) is None and t in usable_gold] for s, run in runs.items()}
    if not all(usable.values()):
        return
    organizations = ({t: gold_lines[t] for t in usable_gold},
                     {s: {t: runs_lines[s][t] for t in topics} for s, topics in usable.items()})
    arrays = ({t: gold[t] for t in usable_gold}, {s: {t: runs[s][t] for t in topics} for s, topics in usable.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        names = ["AP", "nDCG", "P@2", "RR"]
        by_strings, from_arrays = (Campaign(*pair).evaluate(names, extra_topics="ignore", progress=False)
                                   for pair in (organizations, arrays))
    pd.testing.assert_frame_equal(from_arrays, by_strings, check_exact=False, rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------ arrays and laziness
def test_rankings_stay_arrays_until_an_organization_is_asked_for():
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.test"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.test"))
    assert isinstance(gold, Judgements) and isinstance(runs["STANDARD"], RankedRun)
    Campaign(gold, runs).evaluate(["AP", "nDCG@10", "P@10", "RR"], progress=False)
    assert runs["STANDARD"]._built == {} and gold._built == {}
    organization = runs["STANDARD"]["301"]
    assert organization == Organization.from_ranking(runs["STANDARD"].documents("301"))
    assert set(runs["STANDARD"]._built) == {"301"}


def test_arrays_restricted_to_some_topics_hold_those_alone_on_buffers_of_their_own():
    """What a chunk of a distributed campaign carries: every kept topic read as before (documents, scores, grades,
    refusals, ties), the others absent, and only the kept ids' bytes."""
    runs = rank_runs(["s"] * 7, ["q1", "q1", "q2", "q2", "q2", "q3", "q3"], ["a", "b", "c", "d", "c", "e", "f"],
                     np.array([2.0, 2.0, 3.0, 2.0, 1.0, 1.0, 2.0]), ties="levels")
    gold = judgements(["q1", "q3", "q3", 4], ["a", "e", "f", "g"], np.array([1.0, 2.0, 0.0, 1.0]))
    run, cut = runs["s"], runs["s"].restricted({"q3", "q1", "q9"})
    assert list(cut) == ["q1", "q3"] and cut.ids.data.size == 4 and cut.ties == "levels"
    for topic in cut:
        assert cut.documents(topic) == run.documents(topic) and cut[topic] == run[topic]
        assert cut.scores(topic).tolist() == run.scores(topic).tolist()
    assert "q2" not in cut and "q2" in run.refused
    refused = run.restricted(["q2"])
    with pytest.raises(WorkbenchError) as error:
        refused.documents("q2")
    assert error.value is run.refused["q2"]
    following = run.restricted(["q3", "q2"])  # topics that follow one another: one slice, on arrays of their own
    assert list(following) == ["q2", "q3"] and following.offsets.tolist() == [0, 3, 5]
    assert following.ids.data.size == 5 and following.documents("q3") == run.documents("q3")
    assert not any(np.shares_memory(mine, whole) for mine, whole in (
        (following.scores_array, run.scores_array), (following.offsets, run.offsets),
        (following.ids.starts, run.ids.starts), (following.ids.lengths, run.ids.lengths)))
    judged = gold.restricted(["4", "q3"])
    assert list(judged) == ["q3", "4"] and judged.integers == frozenset({"4"})
    assert judged.grades_of("q3") == gold.grades_of("q3") and judged.ids.strings().tolist() == ["e", "f", "g"]
    assert list(gold.restricted([])) == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3", "q4"]), st.sampled_from(["a", "bb", "ccc", "é", "d"]),
                          st.integers(0, 3)), max_size=20),
       st.sets(st.sampled_from(["q1", "q2", "q3", "q4", "q9"])))
def test_a_restricted_mapping_reads_every_kept_topic_as_the_whole_one(entries, kept):
    topics, documents, numbers = (list(column) for column in zip(*entries, strict=True)) if entries else ([], [], [])
    runs = rank_runs(["s"] * len(entries), topics, documents, np.array(numbers, dtype=float))
    gold = judgements(topics, documents, np.array(numbers, dtype=float))
    for whole in [*runs.values(), gold]:
        cut = whole.restricted(kept)
        assert list(cut) == [topic for topic in whole if topic in kept] and cut.refused.keys() <= kept
        for topic in cut:
            if topic in whole.refused:
                assert cut.refused[topic] is whole.refused[topic]
            else:
                assert cut[topic] == whole[topic]


def test_an_unknown_topic_is_named_by_the_accessors_and_a_missing_key_of_the_mapping():
    runs = rank_runs(["s", "s"], ["q1", "q2"], ["a", "b"], np.array([1.0, 2.0]))
    gold = judgements(["q1"], ["a"], np.array([1.0]))
    for accessor in (runs["s"].documents, runs["s"].scores):
        with pytest.raises(CampaignError, match=r"^no topic 'q9' in the run; its topics: 'q1', 'q2'$"):
            accessor("q9")
    with pytest.raises(CampaignError, match=r"^no topic 'q9' in the judgements; its topics: 'q1'$"):
        gold.grades_of("q9")
    assert runs["s"].get("q9") is None and gold.get("q9") is None and "q9" not in runs["s"]
    with pytest.raises(KeyError):
        runs["s"]["q9"]


def test_ranking_measures_on_arrays_equal_the_per_topic_path():
    """One gain table per system (arrays) gives what ``evaluate`` gives topic by topic on Organizations."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.rel_level"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.test"))
    fast = Campaign(gold, runs).evaluate(MEASURES, progress=False).set_index(["topic", "measure"])["value"]
    for topic in gold:
        by_hand = evaluate(gold[topic], runs["STANDARD"][topic], MEASURES)
        for name, value in by_hand.items():
            assert fast[(topic, name)] == pytest.approx(value, abs=1e-12), (topic, name)
    organizations = {t: gold[t] for t in gold}
    outputs = {"STANDARD": {t: runs["STANDARD"][t] for t in runs["STANDARD"]}}
    slow = Campaign(organizations, outputs).evaluate(MEASURES, progress=False).set_index(["topic", "measure"])
    assert np.allclose(slow["value"].loc[fast.index].to_numpy(), fast.to_numpy(), atol=1e-12, rtol=0)


def test_ties_as_levels_follow_the_score_precision():
    scores = np.array([0.30000001, 0.3, 0.1])
    runs = rank_runs(["s"] * 3, ["q"] * 3, ["a", "b", "c"], scores, ties="levels")
    assert [sorted(set().union(*level)) for level in runs["s"]["q"].levels] == [["a"], ["b"], ["c"]]
    runs = rank_runs(["s"] * 3, ["q"] * 3, ["a", "b", "c"], scores, ties="levels", score_precision="float32")
    assert [sorted(set().union(*level)) for level in runs["s"]["q"].levels] == [["a", "b"], ["c"]]
    with pytest.raises(ParameterError, match="score_precision"):
        rank_runs(["s"], ["q"], ["a"], np.array([1.0]), score_precision="half")


# ------------------------------------------------------------------------------- campaigns from memory
Qrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")


@st.composite
def campaigns(draw):
    """Judgements and two runs over a few topics, scores with ties (also ties only in 32 bits), ids of any
    length and bytes."""
    topics = draw(st.lists(st.sampled_from(["301", "q2", "7"]), min_size=1, max_size=3, unique=True))
    docs = draw(st.lists(WORD_IDS, min_size=1, max_size=8, unique=True))  # across 8-byte words, UTF-8
    qrels = {t: draw(st.dictionaries(st.sampled_from(docs), st.integers(-1, 3), min_size=1, max_size=6))
             for t in topics}
    score = st.sampled_from([0.5, 0.25, 0.30000001, 0.3, 1.0, -2.0, 7.125])
    runs = {system: {t: draw(st.dictionaries(st.sampled_from(docs), score, min_size=1, max_size=8))
                     for t in draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))}
            for system in ("bm25", "dense")}
    return qrels, runs


def _files(tmp_path, qrels, runs):
    qrels_path, run_path = write_trec(tmp_path, qrels, runs)
    return read_trec_qrels(qrels_path), read_trec_run(run_path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=campaigns())
def test_frames_dicts_and_namedtuples_equal_trec_files(tmp_path, data):
    qrels, runs = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MissingTopicsWarning)
        files = Campaign(*_files(tmp_path, qrels, runs)).evaluate(MEASURES, progress=False)
        qrels_frame = pd.DataFrame([(t, d, g) for t, j in qrels.items() for d, g in j.items()],
                                   columns=["query_id", "doc_id", "relevance"])
        run_frame = pd.DataFrame([(t, d, s, system) for system, run in runs.items() for t, scored in run.items()
                                  for d, s in scored.items()], columns=["query_id", "doc_id", "score", "system"])
        doors = {
            "frames": Campaign.from_frames(qrels_frame, run_frame),
            "dict of frames": Campaign.from_frames(
                qrels_frame.rename(columns={"query_id": "q"}), {s: f.drop(columns="system").rename(
                    columns={"query_id": "q"}) for s, f in run_frame.groupby("system", sort=False)}, query="q"),
            "dicts": Campaign.from_dicts(qrels, runs),
            "namedtuples": Campaign.from_namedtuples(
                [Qrel(t, d, g, "0") for t, j in qrels.items() for d, g in j.items()],
                {s: [ScoredDoc(t, d, v) for t, scored in run.items() for d, v in scored.items()]
                 for s, run in runs.items()}),
        }
        for door, campaign in doors.items():
            pd.testing.assert_frame_equal(campaign.evaluate(MEASURES, progress=False), files, obj=door)



@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["q1", "q2", "é", "", "q10"]), max_size=30), st.booleans())
def test_an_arrow_column_coded_by_its_stretches_is_coded_as_arrow_codes_it(values, grouped):
    """Topics in stretches (sorted) or not: codes in order of first appearance and texts, as dictionary_encode."""
    import pyarrow as pa

    from workbench.data.trec.frames import _stretches_coded

    array = pa.array(sorted(values) if grouped else values, type=pa.string())
    encoded = array.dictionary_encode()
    labels = _stretches_coded(array)
    assert labels.codes.tolist() == encoded.indices.to_pylist()
    assert labels.names == tuple(encoded.dictionary.to_pylist())

def test_integer_ids_are_read_as_their_text():
    qrels = pd.DataFrame({"query_id": [301, 301], "doc_id": [1, 2], "relevance": [1, 0]})
    run = pd.DataFrame({"query_id": [301, 301], "doc_id": [2, 1], "score": [0.5, 0.4], "run": ["r", "r"]})
    campaign = Campaign.from_frames(qrels, run)
    assert list(campaign.gold) == ["301"] and campaign.runs["r"].documents("301") == ["2", "1"]


QRELS = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [1, 0, 2]})
RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "score": [0.1, 0.2, 0.3],
                    "system": ["s", "s", "s"]})


@pytest.mark.parametrize(("qrels", "runs", "message"), [
    (QRELS.drop(columns="relevance"), RUN, r"qrels: no column 'relevance'; the frame has 'query_id', 'doc_id'"),
    (QRELS, RUN.drop(columns="system"), r"runs: no column 'system'"),
    (QRELS.assign(relevance=[1, "high", 2]), RUN, r"column 'relevance' is not a number at row 1: 'high'"),
    (QRELS.assign(relevance=[1, np.inf, 2]), RUN, r"column 'relevance' is infinite at row 1"),
    (QRELS.assign(relevance=[True, False, True]), RUN, r"column 'relevance' holds booleans"),
    (QRELS.assign(query_id=["q1", None, "q2"]), RUN, r"column 'query_id' is missing a value at row 1"),
    (QRELS, RUN.assign(score=[0.1, "x", 0.3]), r"runs: column 'score' is not a number at row 1: 'x'"),
    (QRELS, RUN.assign(score=[0.1, np.nan, 0.3]), r"column 'score' is missing \(NaN\) at row 1"),
    (pd.concat([QRELS, QRELS.iloc[[1]]], ignore_index=True), RUN,
     r"qrels: \(query_id, doc_id\) 'q1', 'b' again at row 3 \(first at row 1\)"),
    (QRELS, {"s": RUN.iloc[[0, 1, 0]].drop(columns="system")},
     r"run 's': \(query_id, doc_id\) 'q1', 'a' again at row 2 \(index 0\) \(first at row 0\)"),
    (QRELS, {"s": RUN.drop(columns="score")}, r"run 's': no column 'score'"),
])
def test_bad_frames_name_the_column_and_the_first_offending_row(qrels, runs, message):
    """Bad values are refused when read; a document given twice when its topic is scored."""
    with pytest.raises(WorkbenchError, match=message):
        Campaign.from_frames(qrels, runs).evaluate("AP", progress=False)


def test_bad_dicts_and_records_are_named():
    with pytest.raises(FrameError, match=r"qrels: query 'q1', document 'a' is not a number: 'high'"):
        Campaign.from_dicts({"q1": {"a": "high"}}, {"s": {"q1": {"a": 1.0}}})
    with pytest.raises(FrameError, match=r"run 's': query 'q1', document 'a' is a boolean"):
        Campaign.from_dicts({"q1": {"a": 1}}, {"s": {"q1": {"a": True}}})
    with pytest.raises(CampaignError, match=r"qrels: topics 1 and '1' are both written 1: give ids of one type"):
        Campaign.from_dicts({1: {"a": 1}, "1": {"a": 0}}, {"s": {"1": {"a": 1.0}}})
    with pytest.raises(ParameterError, match=r"runs value of 'q1' value of 'a' .*give the runs as \{system: run\}"):
        Campaign.from_dicts({"q1": {"a": 1}}, {"q1": {"a": 1.0}})
    with pytest.raises(FrameError, match="records need the fields query_id, doc_id, relevance"):
        Campaign.from_namedtuples([("q1", "a", 1)], {"s": []})


def test_round_trip_through_files_keeps_arrays(tmp_path):
    """Writers take the arrays-backed mappings: what is written reads back equal."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", "qrels.rel_level"))
    runs = read_trec_run(shared_dataset("trec_eval_test", "results.trunc"))
    write_trec_qrels(gold, tmp_path / "qrels")
    write_trec_run(runs, tmp_path / "run")
    assert read_trec_qrels(tmp_path / "qrels") == gold
    assert read_trec_run(tmp_path / "run") == runs


def test_measures_on_organizations_still_work_on_file_campaigns(tmp_path):
    """A measure that is not a ranking measure (here R≺, S≺) gets Organizations built from the arrays, for
    the topics it scores, beside ranking measures computed from the arrays."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 d 1\n")
    (tmp_path / "run").write_text("q1 Q0 c 1 3 s\nq1 Q0 a 2 2 s\nq1 Q0 b 3 2 s\nq2 Q0 d 1 1 s\n")
    gold, runs = read_trec_qrels(tmp_path / "qrels"), read_trec_run(tmp_path / "run")
    names = ["R≺(n=10, wn=0.8)", "S≺(n=10, wn=0.8)", "AP", "nDCG"]
    results = Campaign(gold, runs).evaluate(names, progress=False).set_index(["topic", "measure"])["value"]
    for topic in ("q1", "q2"):
        expected = evaluate(gold[topic], runs["s"][topic], names)
        assert {name: results[(topic, name)] for name in names} == pytest.approx(expected, abs=1e-12)
    assert runs["s"].documents("q1") == ["c", "b", "a"]


@pytest.mark.parametrize("weak_hash", [lambda ids, part=slice(None): np.zeros(len(ids), dtype=np.uint64)[part],
                                       lambda ids, part=slice(None): ids.lengths[part].astype(np.uint64)],
                         ids=["all-equal", "by-length"])
def test_document_hash_collisions_fall_back_to_the_ids(tmp_path, monkeypatch, weak_hash):
    """The duplicate check and the qrels join work on 64-bit hashes of the ids; when hashes collide (all
    equal; or by length, so that the judged ids stay apart but run ids meet the wrong judged one) the ids
    decide, so values and errors are those of the exact path."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 bb 0\nq1 0 ccc 1\nq2 0 a 1\nq2 0 dddd 3\n")
    run.write_text("q1 Q0 bb 1 0.9 s\nq1 Q0 a 2 0.8 s\nq1 Q0 e 3 0.7 s\nq1 Q0 ccc 4 0.6 s\n"
                   "q2 Q0 dddd 1 0.5 s\nq2 Q0 bb 2 0.5 s\nq2 Q0 f 3 0.1 s\n")
    names = ["AP", "nDCG", "P@2", "RR"]
    exact = Campaign(read_trec_qrels(qrels), read_trec_run(run)).evaluate(names, progress=False)
    monkeypatch.setattr(DocumentIds, "hashes", weak_hash)
    collided = Campaign(read_trec_qrels(qrels), read_trec_run(run)).evaluate(names, progress=False)
    pd.testing.assert_frame_equal(collided, exact)
    run.write_text("q1 Q0 bb 1 0.9 s\nq1 Q0 a 2 0.8 s\nq1 Q0 e 3 0.7 s\nq1 Q0 bb 3 0.7 s\n")
    with pytest.raises(TrecFormatError, match="document 'bb' of topic 'q1' of system 's' is already on line 1") \
            as error:
        read_trec_run(run)["s"]["q1"]
    assert error.value.line == 4


def test_qrels_and_run_ids_of_other_widths_join(tmp_path):
    """Judged ids all within one 8-byte word, run ids up to three: the join by hashes still finds them."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 0\nq1 0 abcdefgh 2\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 0.9 s\nq1 Q0 abcdefghijklmnopq 2 0.8 s\nq1 Q0 abcdefgh 3 0.7 s\n")
    results = Campaign(read_trec_qrels(tmp_path / "qrels"), read_trec_run(tmp_path / "run")).evaluate(
        ["AP", "P@1", "NumRelRet"], progress=False)
    assert results.value.tolist() == [pytest.approx((1 + 2 / 3) / 2), 1.0, 2.0]


def test_arrays_pickled_in_another_process_join_as_built_here(tmp_path):
    """Judgements and runs built (and hashed) in a process with another ``str`` hash salt and unpickled here
    give the values of those built here: document hashes are the same in every process."""
    import pickle
    import subprocess
    import sys

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 a 2\nq1 0 bb 0\nq1 0 ccc 1\nq2 0 a 1\nq2 0 dddd 3\n")
    run.write_text("q1 Q0 bb 1 0.9 s\nq1 Q0 a 2 0.8 s\nq1 Q0 e 3 0.7 s\nq1 Q0 ccc 4 0.6 s\n"
                   "q2 Q0 dddd 1 0.5 s\nq2 Q0 bb 2 0.5 s\nq2 Q0 f 3 0.1 s\n")
    script = ("import pickle, sys\nfrom workbench.data.trec import read_trec_qrels, read_trec_run\n"
              f"gold, runs = read_trec_qrels({str(qrels)!r}), read_trec_run({str(run)!r})\n"
              "gold.ids.hashes(), runs['s'].ids.hashes()\n"
              "sys.stdout.buffer.write(pickle.dumps((gold, runs)))\n")
    names = ["AP", "nDCG", "P@2", "RR"]
    here = Campaign(read_trec_qrels(qrels), read_trec_run(run)).evaluate(names, progress=False)
    for seed in ("1", "2"):
        made = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        gold, runs = pickle.loads(made)
        pd.testing.assert_frame_equal(Campaign(gold, read_trec_run(run)).evaluate(names, progress=False), here)
        pd.testing.assert_frame_equal(Campaign(read_trec_qrels(qrels), runs).evaluate(names, progress=False), here)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 5), st.sampled_from(["a", "b", "c", "d", "e"]),
                          st.integers(0, 3)), max_size=30), st.integers(1, 4), st.sampled_from([None, 2]))
def test_repeats_sought_in_rank_order_by_blocks_of_whole_topics_are_the_input_order_ones(entries, block, cut):
    """The repeats' check of rank_runs (in rank order, a few whole (system, topic) groups at a time, here blocks of
    1 to 4 entries, shared between two threads) refuses exactly the (system, topic) pairs whose kept entries repeat
    a document, as the search in input order finds them."""
    from workbench.data.trec import ranked

    systems = [f"s{s}" for s, _, _, _ in entries]
    topics = [f"q{t}" for _, t, _, _ in entries]
    documents = [d for _, _, d, _ in entries]
    scores = np.array([float(v) for _, _, _, v in entries])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        whole = rank_runs(systems, topics, documents, scores, max_docs=cut)
        with mock.patch.object(ranked, "BLOCK", block), mock.patch.dict(os.environ, {THREADS_VARIABLE: "2"}):
            blocks = rank_runs(systems, topics, documents, scores, max_docs=cut)
    refused = {(system, topic) for system, run in whole.items() for topic in run.refused}
    assert {(system, topic) for system, run in blocks.items() for topic in run.refused} == refused
    expected = set()
    for system, run in whole.items():
        for topic in run.topics:
            mine = [(v, d) for s, t, d, v in zip(systems, topics, documents, scores, strict=True)
                    if (s, t) == (system, topic)]
            kept = [d for _, d in sorted(mine, reverse=True)][:cut]  # score, then id, descending (trec_eval's)
            if len(kept) != len(set(kept)):
                expected.add((system, topic))
    assert refused == expected


def test_the_sorts_freed_pages_go_back_before_the_ids_are_copied_in_rank_order(monkeypatch):
    """Issue 42 goal 1: on the command line (a process that keeps freed memory) rank_runs trims the heap after
    sorting and before the rank-ordered copy of the ids and their hashes, which would otherwise sit on top of the
    sort's kept keys (``eval`` on 2,000 × 1,000: median peak 232 → 219 MB, 12 interleaved runs)."""
    from workbench.data.trec import ranked as ranked_module

    events: list[str] = []
    monkeypatch.setattr(ranked_module, "release_freed", lambda entries: events.append(f"trim {entries}"))
    take = DocumentIds.take
    monkeypatch.setattr(DocumentIds, "take", lambda self, at: events.append("take") or take(self, at))
    runs = rank_runs(["s", "s", "s"], ["q1", "q1", "q2"], ["d1", "d2", "d1"], np.array([0.5, 0.7, 0.1]))
    assert events[:2] == ["trim 3", "take"] and events[-1] == "trim 3"
    assert runs["s"].documents("q1") == ["d2", "d1"]
