"""Diversity measures over subtopic qrels (issue 23 item 3): read by read_trec_qrels (the subtopic column sniffed or
named), scored through a Campaign, equal to ndeval's definitions on hand-computed cases and to pyndeval (ndeval's
C code) on random runs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from workbench import evaluate
from workbench.data.campaign import Campaign
from workbench.data.trec.memory import runs_from_dicts
from workbench.data.trec.ranked import Judgements, SubtopicJudgements
from workbench.data.trec.readers import read_trec_qrels
from workbench.metrics.ranking.diversity import SubtopicTable, alpha_ndcg, err_ia, nrbp, p_ia, strecall
from workbench.model import Organization

QRELS = """\
1 1 a 1
1 1 b 0
1 2 b 1
1 2 c 1
1 3 a 0
2 1 x 1
"""


def _read(tmp_path, text: str = QRELS, **options):
    path = tmp_path / "qrels"
    path.write_text(text)
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        return read_trec_qrels(path, **options), [str(n.message) for n in notes]


def test_subtopic_qrels_are_sniffed_or_named(tmp_path):
    gold, notes = _read(tmp_path)
    assert isinstance(gold, SubtopicJudgements) and any("read as subtopic qrels" in n for n in notes)
    assert gold.subtopic_grades("1") == {"1": {"a": 1.0, "b": 0.0}, "2": {"b": 1.0, "c": 1.0}, "3": {"a": 0.0}}
    assert gold.grades_of("1") == {"a": 1.0, "b": 1.0, "c": 1.0}  # the best grade, for the ranking measures
    assert gold["1"].format() == "[1] a {b c}"  # a cluster per subtopic
    plain, notes = _read(tmp_path, "1 0 a 1\n1 0 b 0\n2 0 x 1\n")
    assert type(plain) is Judgements and not notes
    named, _ = _read(tmp_path, "1 0 a 1\n1 0 b 0\n", subtopics=True)
    assert isinstance(named, SubtopicJudgements) and named.subtopics == {"1": ("0",)}
    refused, _ = _read(tmp_path, subtopics=False)
    with pytest.raises(Exception, match="already on line"):  # trec_eval's reading: a repeat
        refused.grades_of("1")


def test_a_document_judged_twice_for_one_subtopic_is_refused_when_its_topic_is_used(tmp_path):
    gold, _ = _read(tmp_path, QRELS + "1 2 c 0\n")
    with pytest.raises(Exception, match="document 'c' of topic '1'"):
        gold.subtopic_grades("1")
    assert gold.grades_of("2") == {"x": 1.0}


def test_hand_computed_topic(tmp_path):
    """Topic 1: subtopics {a}, {b, c} (m = 2); run c, a, z; α = β = 0.5.
    g = (1, 1, 0): c is new for subtopic 2, a new for subtopic 1.
    α-nDCG@2: DCG = 1 + 1/log2 3; the greedy ideal takes b (subtopic 2; b > a... gains tie at 1: the greatest id,
    c, is taken first), then a: the same DCG, so 1.
    ERR-IA@3 = (1 + 1/2) / (2 · (1 + 1/4 + 1/12)) = 0.5625; NRBP = (1 − 0.25) / 2 · (1 + 0.5) = 0.5625;
    P-IA@2 = 2 / (2 · 2) = 0.5; StRecall@1 = 1/2."""
    gold, _ = _read(tmp_path)
    runs = runs_from_dicts({"s": {"1": {"c": 3.0, "a": 2.0, "z": 1.0}, "2": {"y": 1.0}}})
    names = ["alpha_nDCG@2", "ERR_IA@3", "NRBP", "P_IA@2", "StRecall@1"]
    frame = Campaign(gold, runs).evaluate(names, progress=False)
    got = frame[frame["topic"] == "1"].set_index("measure")["value"].to_dict()
    assert got == pytest.approx({"alpha_nDCG@2": 1.0, "ERR_IA@3": 1.5 / (2 * (1 + 0.25 + 1 / 12)),
                                 "NRBP": 0.75 / 2 * 1.5, "P_IA@2": 0.5, "StRecall@1": 0.5}, abs=1e-15)
    assert frame[frame["topic"] == "2"]["value"].tolist() == [0.0] * 5
    # the same topic as Organizations: a cluster per subtopic
    output = Organization.from_ranking(["c", "a", "z"])
    assert evaluate(gold["1"], output, names) == pytest.approx(got, abs=1e-15)


def test_the_greedy_ideal_can_be_beaten_as_in_ndeval():
    """Subtopics {d3 d4} {d0 d2 d4} {d0 d3} {d2}: the greedy ideal starts with d4 (gain 2) or d0/d3 ... and reaches
    α-DCG@2 below d2, d3's (every subtopic once): α-nDCG@2 > 1, which is why its range is open above."""
    judged = {"0": {"d3": 1, "d4": 1}, "1": {"d0": 1, "d2": 1, "d4": 1}, "2": {"d0": 1, "d3": 1}, "3": {"d2": 1}}
    table = SubtopicTable.from_rows([(judged, ["d2", "d3"])])
    value = float(alpha_ndcg(table, k=2)[0])
    dcg = 2 + 2 / math.log2(3)
    greedy = 2 + 1.5 / math.log2(3)  # d4 (2 subtopics, greatest id of the gain-2 ones), then d0 or d2 (1 + 0.5)
    assert value == pytest.approx(dcg / greedy, abs=1e-15) and value > 1
    pyndeval = reference_module("pyndeval")
    qrels = [("q", s, d, 1) for s, docs in judged.items() for d in docs]
    theirs = pyndeval.ndeval(qrels, [("q", "d2", 2.0), ("q", "d3", 1.0)], measures=["alpha-nDCG@2"])
    assert theirs["q"]["alpha-nDCG@2"] == pytest.approx(value, abs=1e-12)


@st.composite
def diversity_campaign(draw):
    """Subtopic qrels (grades 0..2, ids of one width) and one run per topic with distinct scores."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    qrels, run = [], []
    for t in range(draw(st.integers(1, 3))):
        n_docs, n_sub = int(rng.integers(1, 15)), int(rng.integers(1, 5))
        for s in range(1, n_sub + 1):
            for d in rng.choice(n_docs, size=rng.integers(1, n_docs + 1), replace=False):
                qrels.append((f"t{t}", str(s), f"d{d:02d}", int(rng.integers(0, 3))))
        docs = rng.choice(n_docs + 5, size=rng.integers(1, n_docs + 6), replace=False)
        run += [(f"t{t}", f"d{d:02d}", float(score)) for d, score in zip(docs, rng.permutation(len(docs)), strict=True)]
    return qrels, run


@settings(max_examples=80, deadline=None)
@given(data=diversity_campaign(), k=st.integers(2, 20), alpha=st.sampled_from([0.5, 0.0, 0.3, 1.0]),
       beta=st.sampled_from([0.5, 0.8]), rel=st.integers(1, 2))
def test_equal_to_pyndeval_on_random_campaigns(tmp_path_factory, data, k, alpha, beta, rel):
    pyndeval = reference_module("pyndeval")
    qrels, run = data
    path = tmp_path_factory.mktemp("div") / "qrels"
    path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
    gold = read_trec_qrels(path, subtopics=True)
    topics = dict.fromkeys(r[0] for r in run)
    runs = runs_from_dicts({"s": {t: {d: sc for tt, d, sc in run if tt == t} for t in topics}})
    mine = Campaign(gold, runs).evaluate([f"alpha_nDCG(alpha={alpha}, rel={rel})@{k}", f"ERR_IA(alpha={alpha}, "
                                          f"rel={rel})@{k}", f"NRBP(alpha={alpha}, beta={beta}, rel={rel})",
                                          f"P_IA(rel={rel})@{k}", f"StRecall(rel={rel})@{k}"], progress=False)
    theirs = pyndeval.RelevanceEvaluator(qrels, [f"alpha-nDCG@{k}", f"ERR-IA@{k}", "NRBP", f"P-IA@{k}",
                                                 f"strec@{k}"], relevance_level=rel, alpha=alpha,
                                         beta=beta).evaluate(run)
    for topic, values in theirs.items():
        got = mine[mine["topic"] == topic]["value"].tolist()
        assert got == pytest.approx([values[f"alpha-nDCG@{k}"], values[f"ERR-IA@{k}"], values["NRBP"],
                                     values[f"P-IA@{k}"], values[f"strec@{k}"]], abs=1e-12), topic


def test_err_ia_at_one_is_normalised_where_ndeval_is_not():
    """ndeval divides ERR-IA@k by its ideal from k = 2 on only: at 1 its value is ours times m."""
    table = SubtopicTable.from_rows([({"1": {"a": 1}, "2": {"a": 1}, "3": {"b": 1}}, ["a"])])
    assert float(err_ia(table, k=1)[0]) == pytest.approx(2 / 3)
    pyndeval = reference_module("pyndeval")
    qrels = [("q", "1", "a", 1), ("q", "2", "a", 1), ("q", "3", "b", 1)]
    assert pyndeval.ndeval(qrels, [("q", "a", 1.0)], measures=["ERR-IA@1"])["q"]["ERR-IA@1"] == pytest.approx(2.0)


def test_err_ia_normaliser_beyond_a_million_ranks():
    """Σ_{r≤k} x^{r−1}/r: for x = 1 the harmonic number (ψ(k + 1) + γ), for x < 1 close to −ln(1 − x) / x."""
    from scipy.special import digamma

    from workbench.metrics.ranking.diversity import reciprocal_decay

    k = 10**9
    assert reciprocal_decay(1.0, k) == pytest.approx(digamma(k + 1) + np.euler_gamma, rel=1e-12)
    x = 1 - 1e-8
    assert reciprocal_decay(x, k) == pytest.approx(-math.log1p(-x) / x - _tail(x, k), rel=1e-9)
    assert reciprocal_decay(0.5, 3) == 1 + 0.5 / 2 + 0.25 / 3


def _tail(x: float, k: int) -> float:
    """Σ_{r>k} x^{r−1}/r by the integral (the terms vary slowly there)."""
    from scipy.special import exp1

    return float(exp1(-(k + 0.5) * math.log(x))) / x


def test_no_relevant_subtopic_scores_zero_and_kernels_refuse_bad_parameters():
    table = SubtopicTable.from_rows([({"1": {"a": 0}}, ["a"]), ({}, [])])
    for kernel in (alpha_ndcg, err_ia, p_ia, strecall):
        assert kernel(table, k=5).tolist() == [0.0, 0.0]
    assert nrbp(table).tolist() == [0.0, 0.0]
    with pytest.raises(Exception, match="alpha must be in"):
        nrbp(table, alpha=2.0)


def test_plain_qrels_are_one_subtopic_per_topic():
    """ndeval reads ordinary qrels as one subtopic: StRecall@k is then Success@k."""
    qrels = {"q": {"a": 1, "b": 0, "c": 1}}
    campaign = Campaign.from_dicts(qrels, {"s": {"q": {"b": 2.0, "c": 1.0}}})
    frame = campaign.evaluate(["StRecall@1", "StRecall@2", "Success@2"], progress=False)
    assert frame["value"].tolist() == [0.0, 1.0, 1.0]


@settings(max_examples=30, deadline=None)
@given(data=diversity_campaign(), k=st.integers(1, 12), rel=st.integers(1, 2))
def test_a_campaign_on_subtopic_qrels_is_explained_per_document_and_subtopic(tmp_path_factory, data, k, rel):
    """Campaign.explain reads the subtopic table the campaign scores: each topic's rows add up to its value; every
    row names a subtopic of the qrels (or none, for a document judged for none); ranks past k contribute 0."""
    qrels, run = data
    path = tmp_path_factory.mktemp("div") / "qrels"
    path.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
    gold = read_trec_qrels(path, subtopics=True)
    topics = dict.fromkeys(r[0] for r in run)
    campaign = Campaign(gold, runs_from_dicts({"s": {t: {d: sc for tt, d, sc in run if tt == t} for t in topics}}))
    for name in (f"alpha_nDCG(rel={rel})@{k}", f"ERR_IA(rel={rel})@{k}", f"NRBP(rel={rel})", f"P_IA(rel={rel})@{k}",
                 f"StRecall(rel={rel})@{k}"):
        values = campaign.evaluate(name, progress=False).set_index("topic")["value"]
        e = campaign.explain("s", None, name)
        sums = e.contributions.groupby("topic", observed=False)["contribution"].sum()
        assert sums.reindex(values.index).to_numpy() == pytest.approx(values.to_numpy(), abs=1e-12), name
        rows = e.contributions
        for topic in values.index:
            mine = rows[rows.topic == topic]
            assert set(mine["subtopic"].dropna()) <= set(gold.subtopics[topic])
        if "NRBP" not in name:
            assert (rows.loc[rows["rank"].fillna(0) > k, "contribution"] == 0).all()


def test_alpha_ndcg_rows_read_novelty_times_discount_over_the_ideal():
    """Subtopics {a, b} and {c}; run a, x, b; α = 0.5: a is new for subtopic 1 (gain 1 at rank 1), b seen once
    (gain 0.5 at rank 3, discount 1/2); the greedy ideal a, c, b has α-DCG 1 + 1/log2 3 + 0.5/2; c, missed, loses
    what it has there, 1/log2 3 over that."""
    import workbench as wb

    gold = Organization.parse("{a b} {c}")
    e = wb.explain(gold, Organization.from_ranking(["a", "x", "b"]), "alpha_nDCG@3")
    ideal = 1 + 1 / math.log2(3) + 0.25
    rows = e.contributions.set_index("document")
    assert e.how == "per document and subtopic" and rows.loc["b", "seen_above"] == 1
    assert rows.loc["b", ["novelty", "discount", "contribution"]].tolist() == pytest.approx([0.5, 0.5, 0.25 / ideal])
    assert rows.loc["x", "contribution"] == 0 and rows.loc["x", "subtopic"] is pd_na()
    assert math.isnan(rows.loc["x", "seen_above"]) and rows.loc["x", "discount"] == pytest.approx(1 / math.log2(3))
    assert rows.loc["c", "contribution"] == 0 and rows.loc["c", "lost"] == pytest.approx(1 / math.log2(3) / ideal)
    assert e.score == pytest.approx((1 + 0.25) / ideal)
    strec = wb.explain(gold, Organization.from_ranking(["a", "x", "b", "c"]), "StRecall@3").contributions
    assert strec.set_index("document")["first_for_subtopic"].tolist()[:3] == [True, pd_na(), False]


def pd_na():
    import pandas as pd

    return pd.NA


def test_the_inspector_shows_a_diversity_measure_per_document():
    """The two-run inspector reads Campaign.explain: a document's subtopic rows add up to what it contributes."""
    from workbench.widgets.inspector_state import InspectorState

    campaign = Campaign.from_dicts({"q1": {"a": 1, "b": 2, "c": 1}},
                                   {"S": {"q1": {"a": 1.0, "x": 0.5}}, "T": {"q1": {"b": 1.0, "c": 0.4}}})
    state = InspectorState(campaign, ("S", "T"), "alpha_nDCG@5")
    sums = state.table.groupby("system")["contribution"].sum()
    assert sums.to_dict() == pytest.approx(state.scores)
    assert set(state.difference()["document"]) == {"a", "b", "c", "x"}
