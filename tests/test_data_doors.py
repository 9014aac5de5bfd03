"""The doors of workbench.data and workbench.datasets at the one boundary (issue 38): one domain per concept shared
by every function that takes it, topic ids under one rule whichever door they come in by, and records whose repr
names a long integer instead of failing on it."""

from __future__ import annotations

from collections import namedtuple

import pandas as pd
import pytest

from workbench import datasets
from workbench.data import Campaign, read_campaign, read_trec_qrels, read_trec_run
from workbench.data.campaign import CHUNK_TOPICS, MISSING_TOPICS
from workbench.data.trec import ranked
from workbench.data.trec.frames import runs_from_frames
from workbench.data.trec.lines import read_lines
from workbench.data.trec.memory import evaluate_run, judgements_from_dicts, runs_from_dicts, runs_from_records
from workbench.data.trec.preferences import count_topics
from workbench.datasets import DatasetError, Example, parse_example
from workbench.errors import CampaignError, ParameterError, ParameterTypeError, WorkbenchError
from workbench.metrics.ranking import table as ranking_table
from workbench.model import Organization
from workbench.validation import declared

Qrel = namedtuple("Qrel", "query_id doc_id relevance")
Scored = namedtuple("Scored", "query_id doc_id score")


# ------------------------------------------------------------------------------------ one domain per concept
@pytest.mark.parametrize("function", [read_trec_run, ranked.rank_runs, runs_from_dicts, runs_from_records,
                                      runs_from_frames, Campaign.from_dicts, Campaign.from_frames,
                                      Campaign.from_namedtuples, evaluate_run, count_topics, read_campaign])
def test_every_function_that_ranks_declares_the_same_domains(function):
    domains = declared(function)
    assert domains["score_precision"] is ranking_table.SCORE_PRECISION
    assert domains["max_docs"] is ranked.MAX_DOCS
    if "ties" in domains:
        assert domains["ties"] is ranked.TIES


def test_the_ranking_options_are_refused_before_any_file_is_read(tmp_path):
    missing = tmp_path / "no-such-run"  # never opened: the arguments are refused first
    with pytest.raises(ParameterError, match=r"read_trec_run: max_docs must be an integer in \[0, 9,223,372,"):
        read_trec_run(missing, max_docs=2**63)  # trec_eval's -M is a C long
    with pytest.raises(ParameterError, match="read_trec_run: score_precision must be one of float64, float32"):
        read_trec_run(missing, score_precision="float16")
    with pytest.raises(ParameterTypeError, match="read_trec_run: max_docs must be an integer .*, got True"):
        read_trec_run(missing, max_docs=True)


@pytest.mark.parametrize("reader", [read_trec_qrels, read_trec_run])
def test_encoding_none_is_named_not_a_bare_type_error(reader, tmp_path):
    """Audit (issue 38): encoding=None reached codecs.lookup and escaped as a bare TypeError."""
    with pytest.raises(ParameterTypeError, match=f"{reader.__name__}: encoding must be an encoding Python knows"):
        reader(tmp_path / "x", encoding=None)


def test_the_kind_of_a_trec_file_and_its_extra_fields_are_declared(tmp_path):
    """read_lines(kind="prefs") was a bare ValueError; a field the kind lacks is named too."""
    with pytest.raises(ParameterError, match="read_lines: kind must be one of qrels, run, got 'prefs'"):
        read_lines(tmp_path / "x", "prefs")
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\n")
    with pytest.raises(ParameterError, match=r"read_lines: wanted item 0 must be one of iteration, got \('rank',\)"):
        read_lines(path, "qrels", wanted=("rank",))


def test_the_campaign_policies_are_one_domain_for_every_door():
    gold = {"q1": Organization.parse("d1")}
    campaign = Campaign(gold, {"s": gold})
    for method in (Campaign.evaluate, Campaign._score, Campaign.explain):
        assert declared(method)["missing_topics"] is MISSING_TOPICS
    assert declared(Campaign.evaluate)["chunk_topics"] is CHUNK_TOPICS
    with pytest.raises(ParameterError, match="Campaign.explain: missing_topics must be one of zero, skip, error"):
        campaign.explain("s", "q1", "P@1", missing_topics="drop")


# ------------------------------------------------------------------------------------ topic ids: one rule
def _frame(topics, value="relevance"):
    return pd.DataFrame({"query_id": pd.Series(topics, dtype=object), "doc_id": ["d1"] * len(topics),
                         value: [1.0] * len(topics)})


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Campaign.from_dicts({1: {"d1": 1}}, {"s": {"1": {"d1": 0.5}}}),
     r"system 's' names topic '1' \(str\) where the gold has 1 \(int\): give the topics of both as one type"),
    (lambda: Campaign.from_dicts({"1": {"d1": 1}}, {"s": {1: {"d1": 0.5}}}),
     r"system 's' names topic 1 \(int\) where the gold has '1' \(str\)"),
    (lambda: Campaign.from_dicts({1: {"d1": 1}, "1": {"d2": 1}}, {"s": {"1": {"d1": 0.5}}}),
     r"qrels: topics 1 and '1' are both written 1: give ids of one type"),
    (lambda: Campaign.from_dicts({"1": {"d1": 1}}, {"s": {1: {"d1": 0.5}, "1": {"d2": 0.5}}}),
     r"run 's': topics 1 and '1' are both written 1"),
    (lambda: Campaign.from_dicts({"1": {"d1": 1}}, {1: {"1": {"d1": 0.5}}, "1": {"1": {"d2": 0.5}}}),
     r"runs: systems 1 and '1' are both written 1"),
    (lambda: Campaign.from_namedtuples([Qrel(1, "d1", 1)], {"s": [Scored("1", "d1", 0.5)]}),
     r"system 's' names topic '1' \(str\) where the gold has 1 \(int\)"),
    (lambda: Campaign.from_namedtuples([Qrel(1, "d1", 1), Qrel("1", "d2", 1)], {"s": [Scored("1", "d1", 0.5)]}),
     r"qrels: topics 1 and '1' are both written 1"),
    (lambda: Campaign.from_frames(_frame([1]), {"s": _frame(["1"], "score")}),
     r"system 's' names topic '1' \(str\) where the gold has 1 \(int\)"),
    (lambda: Campaign.from_frames(_frame([1, "1"]), {"s": _frame(["1"], "score")}),
     r"qrels: column 'query_id' values 1 and '1' are both written 1"),
    (lambda: Campaign.from_frames(_frame(["1"]), {"a": _frame([1], "score"), "b": _frame(["1"], "score")}),
     r"topics 1 and '1' are both written 1"),
    (lambda: evaluate_run({1: {"d1": 1}}, {"1": {"d1": 0.5}}, "P@1"),
     r"system 'run' names topic '1' \(str\) where the gold has 1 \(int\)"),
])
def test_a_topic_given_as_1_and_as_one_string_is_refused_naming_both(make, message):
    """Audit (issue 38): Campaign.from_dicts merged topics 1 and '1' silently (qrels keyed by int, run by str, or
    both in one dict), where Campaign(gold, runs) refused them for Organizations; every door now follows the one
    rule (data/trec/ranked.py: id_texts, check_alike)."""
    with pytest.raises(CampaignError, match=message):
        make()


def test_integer_ids_given_alike_everywhere_are_read_as_their_text():
    campaign = Campaign.from_dicts({1: {"d1": 1}}, {"s": {1: {"d1": 0.5}}})
    assert campaign.evaluate("P@1", progress=False).topic.tolist() == ["1"]
    frames = Campaign.from_frames(pd.DataFrame({"query_id": [301], "doc_id": ["d1"], "relevance": [1]}),
                                  pd.DataFrame({"query_id": [301], "doc_id": ["d1"], "score": [0.5], "system": [7]}))
    assert frames.evaluate("P@1", progress=False)[["system", "topic"]].values.tolist() == [["7", "301"]]
    assert judgements_from_dicts({301: {"d1": 1}}).integers == {"301"}
    # runs hold ids as text: a fused run (no record of how ids were given) meets integer judgements as before
    fused = ranked.rank_runs(None, ["1"], ["d1"], [0.5])
    assert Campaign(judgements_from_dicts({1: {"d1": 1}}), fused).evaluate("P@1", progress=False).value.tolist() == [1]


def test_an_integer_id_too_long_to_write_is_refused_by_name():
    """An id past Python's 4,300-digit limit escaped as a bare ValueError from str()."""
    huge = 10**5000
    organization = Organization.parse("d1")
    for make in (lambda: Campaign({huge: organization}, {"s": {huge: organization}}),
                 lambda: Campaign({"q": organization}, {huge: {"q": organization}}),
                 lambda: Campaign.from_dicts({"q": {"d1": 1}}, {huge: {"q": {"d1": 0.5}}})):
        with pytest.raises(CampaignError, match="about 5,000 digits"):
            make()
    with pytest.raises(WorkbenchError, match="query <an integer of about 5,000 digits> is an integer too long"):
        judgements_from_dicts({huge: {"d1": 1}})


# ------------------------------------------------------------------------------------ long numbers in records
def test_an_example_whose_parameter_is_a_5000_digit_integer_has_a_repr():
    """Audit (issue 38): Example's dataclass repr raised on a parameter past Python's integer-string limit."""
    example = Example("x", "", "", Organization.parse("d1"), {}, {"n": 10**5000})
    shown = repr(example)
    assert "params={'n': <an integer of about 5,000 digits>}" in shown and len(shown) < 400
    assert repr(datasets.load("seed000-table9")).startswith("Example(name='seed000-table9', title=")


def test_a_parameter_written_past_any_number_is_refused_with_its_line():
    """parse_scalar reads a 5,000-digit integer as float inf: an @params value written finite that reads as inf
    is refused, naming the line; inf written as a word stays inf."""
    with pytest.raises(DatasetError, match=r"line 2: @params n='1111.* is a number too large to read \(it reads"):
        parse_example("@title t\n@params n=" + "1" * 5000 + "\n@gold\nd1\n")
    with pytest.raises(DatasetError, match="line 1: @params x='1e999' is a number too large to read"):
        parse_example("@params x=1e999\n@gold\nd1\n")
    assert parse_example("@params n=inf w='exp'\n@gold\nd1\n").params == {"n": float("inf"), "w": "exp"}


def test_the_datasets_doors_declare_their_names():
    with pytest.raises(ParameterTypeError, match=r"shared: parts item 1 must be a non-empty string, got \('a', 3\)"):
        datasets.shared("a", 3)
    with pytest.raises(ParameterError, match=r"path: name must be one of .*seed000-table9"):
        datasets.path("nope")
    with pytest.raises(ParameterTypeError, match="parse_example: text must be a string"):
        parse_example(b"@gold\nd1\n")
