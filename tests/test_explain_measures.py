"""explain for every registered measure: the rows add up to the score evaluate gives (or to the parts, which the
measure's own function combines into it), on random rankings (graded, unjudged documents, ties), filterings,
clusterings (with overlap) and organizations; the registry records how each measure is explained."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from tests.measure_instances import CLAMPED, INSTANCES
from tests.strategies import contexts_of, labelling_pairs, organizations
from workbench.metrics import registry
from workbench.metrics.explanations import DocumentNotExplainedError, MeasureExplanation, PartNotFoundError
from workbench.metrics.ranking.declare import is_diversity_measure
from workbench.model import Organization

DOCS = [f"d{i}" for i in range(10)]


@st.composite
def rankings(draw):
    """A graded gold (grades 0–3 over a finite rest of judged non-relevant documents; some documents unjudged)
    and a ranking with ties (levels of several documents) holding judged, unjudged and unknown documents."""
    grades = {doc: draw(st.sampled_from([None, 0, 1, 2, 3])) for doc in DOCS}
    levels: dict[int, list[str]] = {}
    for doc, grade in grades.items():
        if grade:
            levels.setdefault(grade, []).append(doc)
    order = sorted(levels, reverse=True)
    gold = Organization(tuple(tuple(frozenset([d]) for d in levels[g]) for g in order),
                        frozenset(d for d, g in grades.items() if g == 0), tuple(float(g) for g in order))
    ranked = draw(st.lists(st.sampled_from(DOCS + ["u1", "u2", "u3"]), unique=True, max_size=13))
    sizes = draw(st.lists(st.integers(1, 3), min_size=len(ranked), max_size=len(ranked)))
    out, i = [], 0
    for size in sizes:
        if i >= len(ranked):
            break
        out.append(tuple(frozenset([d]) for d in ranked[i:i + size]))
        i += size
    return gold, Organization(tuple(out))


@st.composite
def filterings(draw):
    gold = draw(st.lists(st.booleans(), min_size=len(DOCS), max_size=len(DOCS)))
    output = draw(st.lists(st.booleans(), min_size=len(DOCS), max_size=len(DOCS)))

    def organization(labels):
        return Organization.from_filtering([d for d, y in zip(DOCS, labels, strict=True) if y],
                                           [d for d, y in zip(DOCS, labels, strict=True) if not y])
    return organization(gold), organization(output)


@st.composite
def clusterings(draw):
    """A gold clustering and an output over some of its documents and a few of its own; either may put a
    document in two clusters."""
    def clustering(pool):
        clusters = draw(st.lists(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True), min_size=1,
                                 max_size=4))
        return Organization.from_clustering(clusters)
    return clustering(DOCS[:8]), clustering(DOCS[2:] + ["x1", "x2"])


@st.composite
def subtopic_rankings(draw):
    """A gold whose clusters are subtopics (several documents each, a document in several, grades 1–3) and a
    ranking of judged and unknown documents, for the diversity measures."""
    clusters = draw(st.lists(st.tuples(st.integers(1, 3), st.frozensets(st.sampled_from(DOCS), min_size=1,
                                                                             max_size=4)), max_size=5))
    grades = sorted({g for g, _ in clusters}, reverse=True)
    gold = Organization(tuple(tuple(c for g, c in clusters if g == grade) for grade in grades), frozenset(),
                        tuple(float(g) for g in grades))
    ranked = draw(st.lists(st.sampled_from(DOCS + ["u1", "u2"]), unique=True, max_size=12))
    return gold, Organization.from_ranking(ranked)


CASES = {"ranking": rankings(), "diversity": st.one_of(subtopic_rankings(), rankings()), "filtering": filterings(),
         "clustering": clusterings(), "baselines": filterings(),
         "organization": st.one_of(st.tuples(organizations(), organizations()), filterings(), clusterings())}


def same(a: float, b: float, tolerance: float = 1e-12) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def check(gold: Organization, output: Organization, name: str) -> MeasureExplanation | None:
    """The explanation's score is evaluate's; its rows add up to it, or to its parts, which combine into it."""
    try:
        value = wb.evaluate(gold, output, name)[name]
    except wb.WorkbenchError as refused:
        with pytest.raises(wb.WorkbenchError):
            wb.explain(gold, output, name)
        return type(refused)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        e = wb.explain(gold, output, name)
    assert isinstance(e, MeasureExplanation) and e.measure == str(registry.parse(name))
    assert same(e.score, value), (name, e.score, value)
    rows = e.contributions
    assert list(rows.columns[-2:]) == ["contribution", "lost"]
    if e.is_sum:
        assert same(float(rows["contribution"].sum(skipna=False)), value, 1e-12), (name, rows, value)
        assert list(e.parts) == [e.measure]
    else:
        assert set(rows["part"]) <= set(e.parts)
        for part, part_value in e.parts.items():
            assert same(float(e.part(part)["contribution"].sum(skipna=False)), part_value, 1e-12), (name, part)
        assert same(e.combine(), value, 1e-12), (name, e.parts, e.combine(), value)
    lost = e.lost()
    assert len(lost) == len(rows) and (lost["lost"].diff().dropna() <= 0).all()
    return e


@pytest.mark.filterwarnings(CLAMPED)
@pytest.mark.parametrize("name", [n for names in INSTANCES.values() for n in names])
def test_contributions_add_up_to_the_score_evaluate_gives(name):
    spec = registry.parse(name).spec
    task = "diversity" if is_diversity_measure(name) else spec.task
    cases = labelling_pairs(contexts_of(spec)) if task == "classification" else CASES[task]

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cases)
    def run(case):
        check(*case, name)

    run()


def test_every_registered_measure_is_explained_and_tested():
    """The registry walk: a measure registered without an explanation (or without a spelling tested above)
    fails here; those only the trec_eval drop-in prints (text, preference judgements, judgement groups) have
    nothing to explain on a gold and an output."""
    names = [spec.name for spec in registry.specs() if spec.reads == "organizations" and spec.returns == "number"]
    tested = {registry.parse(name).spec.name for names in INSTANCES.values() for name in names}
    assert set(names) == tested, (set(names) ^ tested)
    table = wb.measures().set_index("name")
    shown = [registry._spelling(registry.spec_of(name), with_parameters=False) for name in names]
    assert (table.loc[shown, "explained"] != "").all()
    for name in names:
        explainer, how = registry.explanation_of(name)
        assert callable(explainer) and how.startswith(("per ", "through its parts: "))


def test_a_measure_registered_without_an_explanation_fails_the_walk():
    with registry.registered("Unexplained-test", lambda gold, output: 0.0, task="ranking", source="a test"):
        with pytest.raises(LookupError, match="has no explanation"):
            registry.explanation_of("Unexplained-test")
        with pytest.raises(LookupError):
            wb.explain(Organization.parse("a"), Organization.parse("a"), "Unexplained-test")


def test_ap_rows_read_as_precision_times_one_over_r():
    """AP of d1, x, d2 against three relevant documents: P@1/3 + P@3/3 = (1 + 2/3)/3, d3 missed loses 1/3."""
    gold = Organization.from_graded({"d1": 1, "d2": 1, "d3": 1})
    e = wb.explain(gold, Organization.from_ranking(["d1", "x", "d2"]), "AP")
    rows = e.contributions.set_index("document")
    assert rows.loc["d1", "contribution"] == pytest.approx(1 / 3)
    assert rows.loc["d2", ["precision", "1/R", "contribution"]].tolist() == pytest.approx([2 / 3, 1 / 3, 2 / 9])
    assert rows.loc["x", "contribution"] == 0 and not rows.loc["x", "judged"]
    assert rows.loc["d3", "rank"] is pd_na() and rows.loc["d3", "lost"] == pytest.approx(1 / 3)
    assert e.lost().document.tolist()[:2] == ["d3", "d2"]  # the missed document first, then the late one


def pd_na():
    import pandas as pd

    return pd.NA


def test_ndcg_credits_a_grade_3_document_at_rank_4_more_than_a_grade_1_at_rank_1():
    """The issue's teaching example: gain · 1/log2(r + 1)."""
    gold = Organization.from_graded({"a": 1, "b": 3})
    e = wb.explain(gold, Organization.from_ranking(["a", "x", "y", "b"]), "nDCG")
    rows = e.contributions.set_index("document")
    assert rows.loc["a", "contribution"] < rows.loc["b", "contribution"]
    assert rows.loc["b", ["gain", "discount"]].tolist() == pytest.approx([3.0, 1 / np.log2(5)])
    assert set(rows["ideal_dcg"].dropna().round(12)) == {round(3 + 1 / np.log2(3), 12)}


def test_rr_counts_only_the_first_relevant_and_err_reads_reach_times_stop():
    gold = Organization.from_graded({"a": 2, "b": 1})
    ranking = Organization.from_ranking(["x", "b", "a"])
    rr = wb.explain(gold, ranking, "RR").contributions.set_index("document")
    assert rr["contribution"].tolist() == [0.0, 0.5, 0.0] and rr.loc["b", "first_relevant"]
    err = wb.explain(gold, ranking, "ERR").contributions.set_index("document")
    assert err.loc["a", "contribution"] == pytest.approx(err.loc["a", "reach"] * err.loc["a", "stop"] / 3)
    assert err.loc["a", "reach"] == pytest.approx(1 - err.loc["b", "stop"])


def test_judged_only_leaves_the_unjudged_documents_out_of_the_ranks():
    gold = Organization(((frozenset(["a"]),), (frozenset(["b"]),)), frozenset(["n"]))
    e = wb.explain(gold, Organization.from_ranking(["u", "a", "n", "b"]), "P(judged_only=True)@2")
    rows = e.contributions.set_index("document")
    assert rows["rank"].isna().tolist() == [True, False, False, False]
    assert rows.loc["a", "rank"] == 1 and rows.loc["n", "rank"] == 2 and rows.loc["b", "rank"] == 3
    assert e.score == pytest.approx(0.5)


def test_bpref_counts_the_judged_nonrelevant_documents_above():
    gold = Organization(((frozenset(["a"]), frozenset(["b"])),), frozenset(["n1", "n2"]))
    rows = wb.explain(gold, Organization.from_ranking(["n1", "a", "u", "n2", "b"]), "Bpref").contributions
    assert rows.set_index("document").loc[["a", "b"], "nonrelevant_above"].tolist() == [1, 2]


def test_clustering_rows_name_the_cluster_of_each_item_and_purity_adds_up_per_cluster():
    gold = Organization.from_clustering([["a", "b", "c"], ["d", "e"]])
    output = Organization.from_clustering([["a", "b"], ["c", "d", "e"]])
    purity = wb.explain(gold, output, "Purity")
    per_cluster = purity.contributions.groupby("cluster").contribution.sum()
    assert per_cluster.to_dict() == pytest.approx({"C1": 2 / 5, "C2": 2 / 5})
    bcubed = wb.explain(gold, output, "BCubed-R").contributions.set_index("document")
    assert bcubed.loc["c", ["cluster", "class"]].tolist() == ["C2", "G1"]
    assert bcubed.loc["c", "recall"] == pytest.approx(1 / 3)


def test_filtering_rows_give_each_document_its_outcome_and_share():
    gold = Organization.from_filtering(["a", "b", "c"], ["d", "e"])
    output = Organization.from_filtering(["a", "d"], ["b", "c", "e"])
    rows = wb.explain(gold, output, "Precision").contributions.set_index("document")
    assert rows["outcome"].to_dict() == {"a": "TP", "d": "FP"}
    assert rows["contribution"].tolist() == [0.5, 0.0] and rows.loc["d", "lost"] == 0.5
    f = wb.explain(gold, output, "F")
    assert set(f.parts) == {"P(G|S)", "P(S|G)"} and f.parts["P(S|G)"] == pytest.approx(1 / 3)
    assert "F of P(G|S), P(S|G)" in f.formula
    assert f.combine({"P(G|S)": 1.0, "P(S|G)": 1.0}) == pytest.approx(1.0)


def test_a_whole_table_explains_only_its_own_kind_of_measure():
    """explain_table reads a ranking measure's gain-table kernel, explain_subtopic_table a diversity measure's: any
    other measure is refused by name (it was an AttributeError from inside)."""
    from workbench.metrics.explanations.diversity import explain_subtopic_table
    from workbench.metrics.explanations.ranking import explain_table
    from workbench.metrics.ranking.diversity import SubtopicTable
    from workbench.metrics.ranking.table import GainTable, RankingInputError

    with pytest.raises(RankingInputError, match="Purity is not a measure of a ranking's gains"):
        explain_table(GainTable.from_gains([[1, 2]], [[2, 1]]), "Purity", None)
    with pytest.raises(RankingInputError, match="AP is not a diversity measure"):
        explain_subtopic_table(SubtopicTable.from_rows([({"s1": {"a": 1}}, ["a", "b"])]), "AP", [["a", "b"]])


def test_a_filtering_formula_without_the_kernels_docstring_names_the_kernel(monkeypatch):
    """python -OO strips docstrings: the formula of a measure explained through its parts names the kernel then
    (it raised AttributeError on ``None.splitlines``)."""
    from workbench.metrics import filtering

    monkeypatch.setattr(filtering.phi, "__doc__", None)
    gold = Organization.from_filtering(["a", "b"], ["c", "d"])
    output = Organization.from_filtering(["a", "c"], ["b", "d"])
    assert wb.explain(gold, output, "Phi").formula.endswith("(phi)")


def test_f_of_rs_is_explained_through_the_occurrences_of_r_and_s():
    gold = Organization.parse("d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}")
    output = Organization.parse("d1 {d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7 d8}")
    e = wb.explain(gold, output, "F∼(n=10, wn=0.8)")
    assert set(e.parts) == {"R∼", "S∼"} and round(e.parts["R∼"], 4) == 0.9649
    assert (e.part("R∼")["side"] == "output").all()


def test_the_rs_form_of_explain_still_works():
    gold = Organization.parse("d1 {d2 d3}")
    e = wb.explain(gold, gold, n=10, wn=0.8)
    assert isinstance(e, wb.Explanation) and e.scores.r_priority == 1.0


def test_bad_questions_raise_named_errors():
    gold = Organization.from_graded({"a": 1})
    output = Organization.from_ranking(["a"])
    with pytest.raises(wb.UnknownMeasureError, match="did you mean 'AP'"):
        wb.explain(gold, output, "APP")
    with pytest.raises(wb.ExplainError, match="inside the measure's name"):
        wb.explain(gold, output, "R≺", n=10, wn=0.8)
    with pytest.raises(wb.ParameterError, match=r"^explain: output must be an Organization \(.*\) or a Labelling"):
        wb.explain(gold, "a", "AP")
    with pytest.raises(wb.ParameterError, match="^explain: measure must be a measure name or a Measure or None"):
        wb.explain(gold, output, 3)
    with pytest.raises(wb.ParameterError, match=r"^MeasureExplanation.combine: parts key 'R' must be one of P\(G\|S\)"):
        wb.explain(Organization.from_filtering(["a"], ["b"]), Organization.from_filtering(["a"], ["b"]),
                   "F").combine({"R": 1.0, "P(S|G)": 1.0})
    e = wb.explain(gold, output, "AP")
    with pytest.raises(DocumentNotExplainedError, match="'zz' is neither in the output nor in the gold"):
        e.document("zz")
    with pytest.raises(PartNotFoundError):
        wb.explain(gold, output, "SetF").part("SetQ")
    assert issubclass(DocumentNotExplainedError, wb.WorkbenchError)


def test_tie_averaged_ndcg_shows_the_averaged_gain_and_cutoffs_leave_the_rest_at_zero():
    """b and c tied (one level, c first: by id descending): each gets (3 + 0)/2 = 1.5 at ranks 2 and 3; RBP@2
    and Q-measure@2 give the ranks past 2 nothing, and Q@2 divides by min(2, R)."""
    gold = Organization.from_graded({"a": 1, "b": 3, "d": 2})
    ranking = Organization.parse("a\n{b c}\nd")
    e = wb.explain(gold, ranking, "nDCG(ties=average)")
    rows = e.contributions.set_index("document")
    assert rows.loc[["b", "c"], "gain"].tolist() == [3.0, 0.0]
    assert rows.loc[["b", "c"], "tie_averaged_gain"].tolist() == [1.5, 1.5]
    assert rows.loc[["c", "b"], "rank"].tolist() == [2, 3]
    assert rows.loc["c", "contribution"] == pytest.approx(1.5 / np.log2(3) / e.contributions["ideal_dcg"].iloc[0])
    for name in ("RBP@2", "Q-measure@2", "Hits@2", "P+-measure@2"):
        late = wb.explain(gold, ranking, name).contributions
        assert (late.loc[late["rank"] > 2, "contribution"] == 0).all(), name
    q = wb.explain(gold, ranking, "Q-measure@2").contributions.set_index("document")
    assert q.loc["a", "1/min(k,R)"] == 0.5


def test_a_linear_filtering_formula_subtracts_its_negative_weights():
    """Issue 41: the utility formula printed ``+ -5·P(S|¬G)``; Amigó et al.'s utility is 6·P(S|G) − 5·P(S|¬G) here
    (the catalogue's filtering example: the gold of SIGIR 2013, Table 2, an output keeping d1 and d4)."""
    gold = wb.Organization.parse("d1 d2 d3\nrest: d4 d5 d6 d7 d8")
    output = wb.Organization.parse("d1 d4\nrest: d2 d3 d5 d6 d7 d8")
    formula = wb.explain(gold, output, "Utility").formula
    assert formula.startswith("Utility = Σ weight × estimate: 6·P(S|G) − 5·P(S|¬G);") and "+ -" not in formula
