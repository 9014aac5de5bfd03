"""Ranking measures: trec_eval's test outputs, Sakai's Figure 1, pytrec_eval and pyNTCIREVAL, properties."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module, shared_dataset
from tests.measure_instances import INSTANCES
from tests.strategies import organizations
from workbench import evaluate
from workbench.data import (
    FrameError,
    evaluate_run,
    qrels_grades,
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_qrels_frame,
    read_trec_run,
    read_trec_run_frame,
    run_scores,
)
from workbench.metrics.ranking import (
    GainTable,
    RankingInputError,
    ranked_documents,
    trec_eval_order,
)
from workbench.metrics.ranking.table import ranked_entries, ranked_ties
from workbench.metrics.registry import MeasureParameterError, UnknownMeasureError, parse
from workbench.model import Organization

# ------------------------------------------------------------------------------- trec_eval reference
# trec_eval measure -> workbench measure; {L} is the relevance level of the trec_eval command (-l).
TREC_EVAL_NAMES = {
    "map": "AP(rel={L})",
    "Rprec": "RPrec(rel={L})",
    "recip_rank": "RR(rel={L})",
    "ndcg": "nDCG",
    "rbp": "RBP(p=0.9)",  # trec_eval's default persistence is 0.9
    **{f"P_{k}": f"P(rel={{L}})@{k}" for k in (3, 5, 7, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"ndcg_cut_{k}": f"nDCG@{k}" for k in (5, 10, 15, 20, 23, 30, 100, 200, 500, 1000)},
    **{f"map_cut_{k}": f"AP(rel={{L}})@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
    **{f"success_{k}": f"Success(rel={{L}})@{k}" for k in (1, 2, 5, 10, 20)},
}

# (qrels, run, trec_eval output, relevance level): the trec_eval Makefile quicktest commands
# `trec_eval -m all_trec -q qrels.test results.test` (out.test.aq), `... -q -c qrels.test results.trunc`
# (out.test.aqc), `... -q -l2 qrels.rel_level results.test` (out.test.aql) and the parameterised measures
# `-m P.5,7,3 -mndcg_cut.10,20,23.4 ...` (out.test.meas_params).
TREC_EVAL_CASES = [
    ("qrels.test", "results.test", "out.test.aq", 1),
    ("qrels.test", "results.trunc", "out.test.aqc", 1),
    ("qrels.rel_level", "results.test", "out.test.aql", 2),
    ("qrels.test", "results.test", "out.test.meas_params", 1),
]


def _reference(out_file: str):
    frame = read_trec_eval_output(shared_dataset("trec_eval_test", out_file))
    return frame[frame.measure.isin(TREC_EVAL_NAMES)]


@pytest.mark.parametrize(("qrels", "run", "out", "level"), TREC_EVAL_CASES)
def test_trec_eval_per_topic_vectorised(qrels, run, out, level):
    """Every shared measure, every topic, to trec_eval's 4 printed decimals (vectorised run path)."""
    grades = qrels_grades(read_trec_qrels_frame(shared_dataset("trec_eval_test", qrels)))
    scores = run_scores(read_trec_run_frame(shared_dataset("trec_eval_test", run)))["STANDARD"]
    reference = _reference(out)
    reference = reference[reference.topic != "all"]
    names = {m: TREC_EVAL_NAMES[m].format(L=level) for m in reference.measure.unique()}
    values = evaluate_run(grades, scores, names.values())
    assert len(reference) >= 18
    for row in reference.itertuples():
        # -c (out.test.aqc) also prints the topics the run lacks (302 in results.trunc), scored 0
        value = values[names[row.measure]].get(row.topic, 0.0) if "c" in out[9:] else \
            values[names[row.measure]][row.topic]
        assert value == pytest.approx(row.value, abs=5e-5), (row.measure, row.topic)


@pytest.mark.parametrize(("qrels", "run", "out", "level"), TREC_EVAL_CASES[:1] + TREC_EVAL_CASES[2:3])
def test_trec_eval_through_organizations_and_registry(qrels, run, out, level):
    """The same numbers through read_trec_qrels/read_trec_run Organizations and ``evaluate`` (one topic at a
    time), and the means over topics equal trec_eval's ``all`` lines."""
    gold = read_trec_qrels(shared_dataset("trec_eval_test", qrels))
    outputs = read_trec_run(shared_dataset("trec_eval_test", run))["STANDARD"]
    reference = _reference(out)
    names = {m: TREC_EVAL_NAMES[m].format(L=level) for m in reference.measure.unique()}
    per_topic = {topic: evaluate(gold[topic], output, names.values()) for topic, output in outputs.items()}
    for row in reference.itertuples():
        name = names[row.measure]
        value = (np.mean([per_topic[t][name] for t in per_topic]) if row.topic == "all"
                 else per_topic[row.topic][name])
        assert value == pytest.approx(row.value, abs=5e-5), (row.measure, row.topic)


def test_trec_eval_default_output_means():
    """out.test (trec_eval's default measures, means over the 3 topics): map 0.1785, Rprec 0.2174,
    recip_rank 0.4064, P_10 0.3000."""
    grades = qrels_grades(read_trec_qrels_frame(shared_dataset("trec_eval_test", "qrels.test")))
    scores = run_scores(read_trec_run_frame(shared_dataset("trec_eval_test", "results.test")))["STANDARD"]
    values = evaluate_run(grades, scores, ["AP", "RPrec", "RR", "P@10"])
    means = {name: np.mean(list(v.values())) for name, v in values.items()}
    assert means == pytest.approx({"AP": 0.1785, "RPrec": 0.2174, "RR": 0.4064, "P@10": 0.3000}, abs=5e-5)


# ------------------------------------------------------------------------------ Sakai, Figure 1
def test_sakai_figure1():
    """Sakai, SIGIR 2006, Figure 1, reconstructed (the seed text is empty): one S-, one A- and one
    B-relevant document (gains 3, 2, 1; β = 1). System X ranks B then S, system Y a non-relevant then S.
    cg*(2) = 3 + 2, so P(X) = BR(2) = (2 + 4) / (2 + 5) = 6/7, P(Y) = (1 + 3) / (2 + 5) = 4/7 = O(Y),
    while O(X) = (1 + 1) / (1 + 3) = 1/2: O prefers Y, P prefers X (the paper's point)."""
    gold = Organization.parse("[3] S\n[2] A\n[1] B")
    x, y = Organization.from_ranking(["B", "S"]), Organization.from_ranking(["N", "S"])
    got = {name: (evaluate(gold, x, [name])[name], evaluate(gold, y, [name])[name])
           for name in ("P-measure", "O-measure", "P+-measure", "Q-measure")}
    assert got["P-measure"] == pytest.approx((6 / 7, 4 / 7), abs=1e-15)
    assert got["O-measure"] == pytest.approx((1 / 2, 4 / 7), abs=1e-15)
    both = Fraction(1, 2) + Fraction(6, 7)  # BR(1) + BR(2) of X
    assert got["P+-measure"] == pytest.approx((float(both / 2), 4 / 7), abs=1e-15)
    # Q = (BR(1) + BR(2)) / R with R = 3 for X; BR(2) / 3 for Y.
    assert got["Q-measure"] == pytest.approx((float(both / 3), 4 / 21), abs=1e-15)


# ----------------------------------------------------------------------- peers on random rankings
@st.composite
def graded_topics(draw, max_level=3):
    """A topic: judged documents with levels 0..max_level, and a ranked list mixing judged and unjudged."""
    n_docs = draw(st.integers(1, 25))
    docs = [f"d{i}" for i in range(n_docs)]
    judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=n_docs))
    levels = {d: draw(st.integers(0, max_level)) for d in judged}
    ranked = draw(st.permutations(docs))[: draw(st.integers(0, n_docs))]
    return levels, ranked


@settings(max_examples=200, deadline=None)
@given(topic=graded_topics(), beta=st.sampled_from([0.0, 0.5, 1.0, 2.0]), cutoff=st.integers(1, 30),
       grades=st.lists(st.integers(1, 9), min_size=3, max_size=3, unique=True).map(sorted))
def test_pyntcireval_agrees(topic, beta, cutoff, grades):
    """pyNTCIREVAL 0.0.3 (its `grades` list excludes level 0) on random graded rankings, to 1e-12."""
    pm = reference_module("pyNTCIREVAL.metrics")
    from pyNTCIREVAL import Labeler

    levels, ranked = topic
    gains = {d: float(grades[lv - 1]) for d, lv in levels.items() if lv > 0}
    gold = Organization.from_graded(gains)
    output = Organization.from_ranking(ranked)
    labeled = Labeler(levels).label(ranked)
    xrelnum = Labeler(levels).compute_per_level_doc_num(4)
    mine = evaluate(gold, output, [f"Q-measure(beta={beta})", f"O-measure(beta={beta})",
                                   f"P-measure(beta={beta})", f"P+-measure(beta={beta})",
                                   f"ERR(gain=linear, max_grade={grades[-1]})@{cutoff}",
                                   f"RBP(p=0.8, max_grade={grades[-1]})", f"nDCG@{cutoff}", "AP", "RR",
                                   f"P@{cutoff}"])
    if not gains:  # pyNTCIREVAL divides by zero without relevant documents; we define 0 (trec_eval's choice)
        assert set(mine.values()) == {0.0}
        return
    theirs = [pm.QMeasure(xrelnum, grades, beta), pm.OMeasure(xrelnum, grades, beta),
              pm.PMeasure(xrelnum, grades, beta), pm.PPlusMeasure(xrelnum, grades, beta),
              pm.ERR(xrelnum, grades), pm.RBP(xrelnum, grades, 0.8), pm.MSnDCG(xrelnum, grades, cutoff),
              pm.AP(xrelnum, grades), pm.RR(), pm.Precision(cutoff)]
    theirs[4].cutoff = cutoff  # pyNTCIREVAL's ERR takes its cutoff as an attribute
    expected = [m.compute(labeled) if labeled else 0.0 for m in theirs]
    assert list(mine.values()) == pytest.approx(expected, abs=1e-12)


@st.composite
def scored_run(draw):
    """qrels {topic: {doc: level}} (levels −1..3) and a run {topic: {doc: score}} with frequent ties."""
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        levels, ranked = draw(graded_topics())
        qrels[f"q{t}"] = {d: (lv if lv else draw(st.sampled_from([0, -1]))) for d, lv in levels.items()}
        # trec_eval's ndcg_cut reads rel_levels[-1] (undefined behaviour, seen to hang pytrec_eval) when every
        # judgement of a topic is negative: give each topic one judged non-relevant document
        qrels[f"q{t}"]["judged"] = 0
        run[f"q{t}"] = {d: float(draw(st.integers(0, 5))) for d in ranked}
    return qrels, run


@settings(max_examples=200, deadline=None)
@given(data=scored_run(), level=st.integers(1, 3), cutoff=st.integers(1, 30))
def test_pytrec_eval_agrees(data, level, cutoff):
    """pytrec_eval (pytrec-eval-terrier, trec_eval's C code) on random runs with ties, to 1e-12."""
    pytrec_eval = reference_module("pytrec_eval")
    qrels, run = data
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"map", "Rprec", "recip_rank", f"P.{cutoff}", "ndcg", f"ndcg_cut.{cutoff}",
                f"map_cut.{cutoff}", f"success.{cutoff}"},
        relevance_level=level).evaluate({t: r for t, r in run.items() if r})
    names = {"map": f"AP(rel={level})", "Rprec": f"RPrec(rel={level})",
             "recip_rank": f"RR(rel={level})", f"P_{cutoff}": f"P(rel={level})@{cutoff}",
             "ndcg": "nDCG", f"ndcg_cut_{cutoff}": f"nDCG@{cutoff}",
             f"map_cut_{cutoff}": f"AP(rel={level})@{cutoff}",
             f"success_{cutoff}": f"Success(rel={level})@{cutoff}"}
    mine = evaluate_run(qrels, run, names.values())
    for topic, values in theirs.items():
        for measure, value in values.items():
            assert mine[names[measure]][topic] == pytest.approx(value, abs=1e-12), (measure, topic)


# --------------------------------------------------------------------------------- properties
ALL_MEASURES = ["P@5", "RPrec", "RR", "AP", "AP@5", "Success@3", "nDCG", "nDCG@5", "nDCG(gain=exp)@5", "ERR",
                "ERR(gain=linear)@5", "RBP(p=0.8)", "Q-measure", "O-measure", "P-measure", "P+-measure"]


@st.composite
def gold_and_output(draw):
    docs = [f"d{i}" for i in range(draw(st.integers(1, 15)))]
    grades = {d: draw(st.sampled_from([0, 1, 2, 3, 1.5])) for d in docs}
    ranked = draw(st.permutations(docs + ["u1", "u2"]))[: draw(st.integers(0, len(docs) + 2))]
    return Organization.from_graded(grades), Organization.from_ranking(ranked)


@settings(max_examples=150, deadline=None)
@given(pair=gold_and_output())
def test_range_perfect_and_invariance(pair):
    """Each measure within its declared range; the ideal ranking scores 1 on the measures whose maximum it
    reaches; renaming documents (no ties) and permuting equal-gain documents change nothing."""
    gold, output = pair
    scores = evaluate(gold, output, ALL_MEASURES)
    for name, value in scores.items():
        low, high = parse(name).spec.range
        assert low <= value <= high + 1e-12, name
    grade = gold.grade_of()
    ideal = Organization.from_ranking(sorted(grade, key=lambda d: (-grade[d], d)))
    perfect = evaluate(gold, ideal, ALL_MEASURES)
    if grade:
        full = [n for n in ALL_MEASURES if not n.startswith(("ERR", "RBP", "P@", "AP@"))]
        assert all(perfect[n] == pytest.approx(1.0) for n in full), perfect
        assert all(perfect[n] >= scores[n] - 1e-12 for n in ALL_MEASURES), (perfect, scores)
    else:
        assert set(scores.values()) == {0.0}
    rename = {d: f"x{d}" for d in gold.documents | output.documents}
    renamed_gold = Organization.from_graded({rename[d]: g for d, g in grade.items()})
    renamed_output = Organization.from_ranking([rename[d] for d in ranked_documents(output)])
    assert evaluate(renamed_gold, renamed_output, ALL_MEASURES) == pytest.approx(scores)
    ranked = ranked_documents(output)
    positions: dict[float, list[int]] = {}
    for i, doc in enumerate(ranked):
        positions.setdefault(grade.get(doc, 0.0), []).append(i)
    permuted = list(ranked)
    for places in positions.values():  # reverse the documents of each gain among their own positions
        for i, j in zip(places, reversed(places), strict=True):
            permuted[i] = ranked[j]
    assert evaluate(gold, Organization.from_ranking(permuted), ALL_MEASURES) == pytest.approx(scores)


def test_precision_invariant_under_permutation_of_the_top_k():
    gold = Organization.from_graded({"a": 1, "b": 1, "c": 0, "d": 2})
    first = evaluate(gold, Organization.from_ranking(["a", "c", "b", "x", "d"]), ["P@3"])
    second = evaluate(gold, Organization.from_ranking(["b", "a", "c", "d", "x"]), ["P@3"])
    assert first == second == {"P@3": pytest.approx(2 / 3)}


# ------------------------------------------------------------------------------- hand-computed
def test_hand_computed_small_case():
    """Gold: a (2), b (1); ranking x, a, b (x unjudged = non-relevant).
    AP = (1/2 + 2/3) / 2; RR = 1/2; RPrec = 1/2; P@2 = 1/2;
    nDCG = (2/log2 3 + 1/2) / (2 + 1/log2 3); exp nDCG = (3/log2 3 + 1/2) / (3 + 1/log2 3);
    ERR(exp) = R_a/2 with R_a = 3/4, then R_b = 1/4: 3/8 + (1/4)(1/4)/3; RBP(0.5) = 0.5(0.5·1 + 0.25·0.5)."""
    gold = Organization.from_graded({"a": 2, "b": 1})
    output = Organization.from_ranking(["x", "a", "b"])
    got = evaluate(gold, output, ["AP", "RR", "RPrec", "P@2", "nDCG", "nDCG(gain=exp)", "ERR(max_grade=2)",
                                    "RBP(p=0.5)"])
    l3 = np.log2(3)
    assert got == pytest.approx({
        "AP": (1 / 2 + 2 / 3) / 2, "RR": 0.5, "RPrec": 0.5, "P@2": 0.5,
        "nDCG": (2 / l3 + 0.5) / (2 + 1 / l3), "nDCG(gain=exp)": (3 / l3 + 0.5) / (3 + 1 / l3),
        "ERR(max_grade=2)": 3 / 8 + (1 / 4) * (1 / 4) / 3, "RBP(p=0.5)": 0.5 * (0.5 * 1 + 0.25 * 0.5)}, abs=1e-15)


def test_rel_level_threshold():
    """trec_eval -l2: only grade ≥ 2 is relevant for the binary measures; nDCG still uses every grade."""
    gold = Organization.from_graded({"a": 2, "b": 1})
    output = Organization.from_ranking(["b", "a"])
    got = evaluate(gold, output, ["AP(rel_level=2)", "RR(rel_level=2)", "AP"])
    assert got == {"AP(rel_level=2)": 0.5, "RR(rel_level=2)": 0.5, "AP": 1.0}


def test_tie_policy_and_tied_levels():
    """Score descending, then document id descending (trec_eval); a tied output level is read the same way."""
    assert trec_eval_order([1.0, 1.0, 1.0], ["d1", "d3", "d2"]).tolist() == [1, 2, 0]
    assert trec_eval_order([0.5, 2.0], ["a", "b"]).tolist() == [1, 0]
    tied = Organization.parse("{d1 d3 d2}\nd4")
    assert ranked_documents(tied) == ["d3", "d2", "d1", "d4"]
    gold = Organization.from_graded({"d1": 1})
    assert evaluate(gold, tied, ["RR"]) == {"RR": 1 / 3}
    overlapping = Organization.parse("d2\n{d1 d2}")
    assert ranked_documents(overlapping) == ["d2", "d1"]


@given(organizations())
def test_ranked_entries_read_each_level_as_the_definition_says(output):
    """Levels top down, the documents of a level (all its clusters) by id descending, a document's first
    occurrence only; a tie is a document on the same level as the one above it (the one-pass reading against
    that definition written out, overlap and repeats included)."""
    documents, levels = [], []
    for index, level in enumerate(output.levels):
        for doc in sorted(set().union(*level), reverse=True):
            if doc not in documents:
                documents.append(doc)
                levels.append(index)
    ties = [i > 0 and levels[i] == levels[i - 1] for i in range(len(levels))]
    assert ranked_entries(output) == (documents, ties)
    assert (ranked_documents(output), ranked_ties(output)) == (documents, ties)


# ------------------------------------------------------------------------------------ bad input
def test_defined_results_for_degenerate_topics():
    """Empty gold, an empty output, gold and output over different documents, a finite gold rest: all 0."""
    nothing = Organization()
    some = Organization.from_ranking(["a", "b"])
    assert set(evaluate(nothing, some, ALL_MEASURES).values()) == {0.0}
    assert set(evaluate(Organization.from_graded({"a": 1}), nothing, ALL_MEASURES).values()) == {0.0}
    assert set(evaluate(Organization.from_graded({"z": 3}), some, ALL_MEASURES).values()) == {0.0}
    assert evaluate(Organization.from_filtering(["b"], ["a"]), some, ["RR"]) == {"RR": 0.5}


def test_negative_and_fractional_grades():
    """Negative grades are judged non-relevant (gain 0, as trec_eval's negative judgements); a fractional
    grade is a gain for the graded measures and relevant for the binary ones only from rel_level down."""
    values = evaluate_run({"q": {"a": -1, "b": 0.5, "c": 2}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}},
                          ["AP", "AP(rel_level=0.5)", "nDCG", "RR"])
    l3, l4 = np.log2(3), np.log2(4)
    assert values == {"AP": {"q": pytest.approx(1 / 3)},
                      "AP(rel_level=0.5)": {"q": pytest.approx((1 / 2 + 2 / 3) / 2)},
                      "nDCG": {"q": pytest.approx((0.5 / l3 + 2 / l4) / (2 + 0.5 / l3))}, "RR": {"q": 1 / 3}}
    gold = Organization.from_graded({"a": -1, "b": 0.5, "c": 2})
    assert evaluate(gold, Organization.from_ranking(["a", "b", "c"]), ["AP", "nDCG"]) == pytest.approx(
        {"AP": 1 / 3, "nDCG": (0.5 / l3 + 2 / l4) / (2 + 0.5 / l3)})


def test_run_topics_missing_from_the_qrels_are_skipped_and_bad_values_named():
    """As trec_eval: a run topic without judgements is not scored (campaign policies decide the rest)."""
    values = evaluate_run({"q1": {"a": 1}}, {"q1": {"a": 1.0}, "q9": {"a": 1.0}}, ["AP"])
    assert values == {"AP": {"q1": 1.0}}
    with pytest.raises(FrameError, match="query 'q1', document 'b' is NaN"):
        evaluate_run({"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": float("nan")}}, ["AP"])
    with pytest.raises(FrameError, match="query 'q1', document 'a' is not a number: 'high'"):
        evaluate_run({"q1": {"a": "high"}}, {"q1": {"a": 1.0}}, ["AP"])
    with pytest.raises(FrameError, match="query 'q1', document 'a' is NaN"):
        evaluate_run({"q1": {"a": float("nan")}}, {"q1": {"a": 1.0}}, ["AP"])
    with pytest.raises(RankingInputError, match="not a ranking measure"):
        evaluate_run({"q1": {"a": 1}}, {"q1": {"a": 1.0}}, ["Purity"])


def test_named_errors():
    with pytest.raises(RankingInputError, match="NaN"):
        trec_eval_order([1.0, float("nan")], ["a", "b"])
    with pytest.raises(RankingInputError, match="gains ≥ 0"):
        GainTable.from_gains([[1, -1]], [[1]])
    with pytest.raises(MeasureParameterError, match=r"'AP\(rel=0\)': parameter rel must be in \(0, inf\)"):
        parse("AP(rel=0)")  # the kernels trust the declarations: rel, p, k... are refused where a name is read
    cutoff = "an integer in \\[1, 9,007,199,254,740,992\\]"  # a number of ranks a double holds exactly
    with pytest.raises(MeasureParameterError, match=f"'nDCG@x': parameter k must be {cutoff}"):
        parse("nDCG@x")
    with pytest.raises(MeasureParameterError, match=f"'nDCG@-1': parameter k must be {cutoff}"):
        parse("nDCG@-1")
    with pytest.raises(MeasureParameterError, match=f"'Compat\\(depth=1e300\\)': parameter depth must be {cutoff}"):
        parse("Compat(depth=1e300)")  # was an OverflowError in numpy (so were Judged, RelP, Q-measure, NERR9 @1e30)
    assert str(parse("RR@2.0")) == "RR@2"  # an integral float is the integer: the kernels slice by it
    with pytest.raises(UnknownMeasureError, match="integer"):
        parse("P@2.5")
    with pytest.raises(MeasureParameterError, match=r"parameter p must be in \(0, 1\)"):
        parse("RBP(p=1.5)")
    with pytest.raises(UnknownMeasureError, match="linear, exp"):
        parse("nDCG(gain=cubic)")


def test_names_parse_and_round_trip():
    """The issue's ranking names (and the trec_eval spellings) parse, and str() parses back."""
    for name in ["P@10", "RPrec", "RR", "AP", "nDCG", "nDCG@10", "nDCG(gain=exp)@10", "ERR", "RBP(p=0.8)",
                 "Q-measure", "O-measure", "P-measure", "P+-measure", "map", "recip_rank", "Rprec"]:
        measure = parse(name)
        assert measure.spec.task == "ranking"
        assert parse(str(measure)) == measure
    assert str(parse("nDCG(gain=exp)@10")) == "nDCG(gain=exp)@10"
    assert parse("RBP").params["p"] == 0.8


@pytest.mark.parametrize("measure", ["ERR", "ERR(gain=linear)", "RBP(max_grade=4)"])
def test_a_grade_above_max_grade_counts_as_max_grade_with_a_warning(measure):
    """Issue 20 item 8: ERR made a grade above max_grade a certain stop without a word while RBP clamped it.
    One rule for every measure with a max_grade: it counts as max_grade, and a warning says so."""
    import warnings

    from workbench.errors import WorkbenchWarning

    ranking = Organization.from_ranking(["d1", "d2", "d3"])
    above = Organization.from_graded({"d1": 1, "d2": 7, "d3": 2})
    at_max = Organization.from_graded({"d1": 1, "d2": 4, "d3": 2})
    with pytest.warns(WorkbenchWarning, match=r"1 retrieved grade above max_grade=4 \(up to 7\) count as 4"):
        value = evaluate(above, ranking, measure)[measure]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert value == evaluate(at_max, ranking, measure)[measure]


def test_a_table_from_entries_leaves_the_given_gains_alone_and_gains_zero_where_the_old_rule_did():
    """from_entries makes the gains in place on an array of its own (issue 42): the caller's array is not
    touched; NaN (not in the qrels), negative grades (unjudged) and -0.0 give gain +0.0, as
    ``np.where(found > 0, found, 0.0)`` gave."""
    given = np.array([np.nan, 2.0, -1.0, -0.0, 0.5])
    before = given.copy()
    table = GainTable.from_entries(np.zeros(5, dtype=np.int64), given, np.array([0, 0, 0, 0]),
                                   np.array([2.0, -1.0, -0.0, 0.5]), ("q",))
    assert np.array_equal(given, before, equal_nan=True)
    assert table.gains.tolist() == [[0.0, 2.0, 0.0, 0.0, 0.5]]
    assert not np.signbit(table.gains).any()
    assert table.judged.tolist() == [[False, True, False, True, True]]
    assert table.pooled.tolist() == [[False, True, True, True, True]]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 300), st.integers(0, 700), st.integers(0, 2**32))
def test_row_sums_a_block_of_rows_at_a_time_equal_the_whole_running_sum_bit_for_bit(rows, width, seed):
    """row_sums adds a block of rows at a time (issue 42: no running sum of the whole matrix): each row's sum is
    the last column of ``np.cumsum`` over the whole matrix, to the bit, whatever the number of blocks."""
    from workbench.metrics.ranking.table import row_sums

    terms = np.random.default_rng(seed).random((rows, width)) * 10.0 ** np.arange(-3, 4)[seed % 7]
    expected = np.cumsum(terms, axis=1)[:, -1] if width else np.zeros(rows)
    assert np.array_equal(row_sums(terms), expected) and row_sums(terms).dtype == expected.dtype


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6), st.integers(0, 40), st.lists(st.one_of(st.none(), st.integers(0, 50)), min_size=1,
                                                        max_size=8), st.integers(0, 2**32))
def test_one_running_sum_read_at_any_cutoff_in_any_order_is_row_sums_of_the_top_k(rows, width, cutoffs, seed):
    """Issue 42: GainTable.running_sum reads every cutoff of one running sum, carried on from its last rank when a
    larger cutoff asks: bit for bit row_sums of the terms' first k columns (k None: all; past the width: all),
    whatever the order the cutoffs come in."""
    from workbench.metrics.ranking.table import GainTable, row_sums

    terms = np.random.default_rng(seed).random((rows, width)) * 10.0 ** np.arange(-3, 4)[seed % 7]
    table = GainTable.from_gains(np.zeros((rows, width)), [[1.0]] * rows)
    terms_at = lambda table, columns: terms[:, columns]  # noqa: E731  (one function: one running sum)
    for k in cutoffs:
        expected = row_sums(terms[:, :k])
        found = table.running_sum(terms_at, k)
        assert np.array_equal(found, expected) and found.dtype == expected.dtype, k


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(0, 12), st.integers(0, 6), st.integers(0, 2**32),
       st.sampled_from([None, ((1.0, 3.0), (2.0, -1.0)), ((0.0, 0.5), (3.0, 7.0))]))
def test_ndcg_rel_added_at_the_relevant_ranks_equals_its_terms_added_over_every_rank(rows, width, depth, seed, gains):
    """Issue 42: ndcg_rel adds DCG/IDCG at the relevant retrieved ranks only (np.bincount, in rank order), bit for
    bit the sum over every rank of ndcg_rel_terms' matrices, zeros between (gains mapped, negative ones too)."""
    from workbench.metrics.ranking.table import GainTable, row_sums
    from workbench.metrics.ranking.trec import _running_dcg, ndcg_rel, ndcg_rel_terms

    rng = np.random.default_rng(seed)
    retrieved = rng.integers(0, width + 1, rows)
    grades = np.where(np.arange(width)[None, :] < retrieved[:, None], rng.integers(-1, 4, (rows, width)), 0)
    ideal = -np.sort(-rng.integers(0, 4, (rows, depth)), axis=1)
    inside = np.arange(width)[None, :] < retrieved[:, None]
    table = GainTable(np.maximum(grades, 0).astype(float), ideal.astype(float), num_ret=retrieved,
                      judged=inside & (grades >= 0), pooled=inside)
    values, _, rel, denominator, length, idcg_total = ndcg_rel_terms(table, gains)
    dcg = _running_dcg(table, gains)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        total = row_sums(np.where(rel, dcg / denominator, 0.0))
        dcg_total = dcg[:, -1] if values.shape[1] else np.zeros(rows)
        total = total + (length - rel.sum(axis=1)) * dcg_total / idcg_total
        expected = np.where(total > 0, total / length, 0.0)
    found = ndcg_rel(table, gains)
    assert np.array_equal(found, expected, equal_nan=True), (found, expected)


def test_a_table_of_rows_out_of_order_over_several_blocks_puts_each_entry_at_its_rank():
    """from_entries places the entries a block at a time (issue 42): rows given out of order and of unequal
    lengths, over more than two blocks, land where a loop over the rows puts them."""
    from workbench.metrics.ranking.matching import BLOCK

    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 5 * BLOCK // 60, 60)
    order = rng.permutation(60)
    rows = np.repeat(order, lengths[order])
    gains = rng.integers(0, 4, rows.size).astype(float)
    table = GainTable.from_entries(rows, gains, np.zeros(0, dtype=np.int64), np.zeros(0), tuple(map(str, range(60))))
    expected = np.zeros((60, int(lengths.max())))
    for row in range(60):  # each row's entries in their order, from rank 1
        expected[row, :lengths[row]] = gains[rows == row]
    assert rows.size > 2 * BLOCK and np.array_equal(table.gains, expected)
    assert table.num_ret.tolist() == lengths.tolist()


def _rows_alone_and_beside_a_longer_row(cases: int = 6) -> list[tuple[GainTable, GainTable]]:
    """Pairs of tables: one row (1–39 ranked gains, some judged documents not retrieved) alone, and the same row
    first in a table widened by a second row of 130–399 ranked documents (past numpy's pairwise-sum block)."""
    rng = np.random.default_rng(7)
    pairs = []
    for _ in range(cases):
        gains = rng.choice([0, 0, 1, 2, 3], size=int(rng.integers(1, 40))).tolist()
        judged = gains + rng.choice([0, 1, 2, 3], size=int(rng.integers(0, 20))).tolist()
        longer = rng.choice([0, 1, 2], size=int(rng.integers(130, 400))).tolist()
        pairs.append((GainTable.from_gains([gains], [judged]),
                      GainTable.from_gains([gains, longer], [judged, longer + [3] * 50])))
    return pairs


WIDENED = _rows_alone_and_beside_a_longer_row()
GAIN_TABLE_SPELLINGS = sorted({name for names in INSTANCES.values() for name in names
                               if parse(name).spec.engine == "gain table"})


@pytest.mark.filterwarnings("ignore::workbench.errors.WorkbenchWarning")
@pytest.mark.parametrize("name", GAIN_TABLE_SPELLINGS)
def test_a_row_scores_the_same_in_a_wider_table(name):
    """A run's value does not depend on what is scored beside it (a campaign's other runs, a distributed chunk's
    topics, one pair alone): a row scores the same, bit for bit, alone and padded in a wider table. Row sums add
    in rank order (:func:`~workbench.metrics.ranking.table.row_sums`), where numpy's pairwise ``sum`` groups the terms
    by the padded width (Q-measure, ERR, P+, Compat, PairwiseAccuracy and nDCGRel differed in the last bit); the
    C/W/L measures weigh the ranks past each row's own ranking in closed form, not past the table's last rank (INSQ,
    INST and NERR differed)."""
    measure = parse(name)
    for alone, widened in WIDENED:
        value, beside = (measure.spec.compute.score(table, **measure.params)[0] for table in (alone, widened))
        assert value == beside or (value != value and beside != beside), (value, beside)
