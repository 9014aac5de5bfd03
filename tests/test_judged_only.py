"""ir_measures' ``judged_only`` and trec_eval's ``-J``: one kernel (:meth:`GainTable.judged_only`) behind the
registry's parameter, the drop-in ``trec_eval -J`` and ``eval``/``compare`` ``-J``; ``-l`` on the command line.
(Equality with ir_measures on random graded runs with ties: tests/test_ir_measures.py; the drop-in's ``-J``
against pytrec_eval on every measure: tests/test_trec_eval.py.)"""

import io
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import TREC_EVAL_SPELLINGS, reference_module, rounds_as_trec_eval_9, shared_dataset, write_trec
from tests.strategies import trec_campaigns
from workbench import evaluate
from workbench.cli import main
from workbench.data import Campaign, read_trec_qrels, read_trec_run
from workbench.data.trec import table_from_dicts
from workbench.errors import WorkbenchWarning
from workbench.metrics.ranking import GainTable
from workbench.metrics.registry import MeasureParameterError, UnknownMeasureError, parse, with_defaults
from workbench.model import Organization

# The measures ir_measures gives judged_only (ir_measures/measures/*.py), by the workbench's names; every
# trec_eval measure has it too (trec_eval's -J applies to all of them).
IR_MEASURES_JUDGED_ONLY = {"AP", "P", "RR", "Rprec", "nDCG", "R", "Success", "IPrec", "SetP", "SetRelP", "SetAP",
                           "SetF"}
TREC_EVAL_ONLY = {"Bpref", "infAP", "NumRet", "NumRel", "NumRelRet", "NumNonRelJudgedRet", "SetR", "SetUtility",
                  "RelP", "RPrecMult", "11ptAvg", "BinG", "Unjudged", "RBPResid", "nDCGRel", "G", "RnDCG", "RBP"}


@st.composite
def runs(draw):
    """qrels {topic: {doc: grade -1..3}} and a run {topic: {doc: score}} with ties and unjudged documents."""
    docs = [f"d{i}" for i in range(draw(st.integers(1, 20)))]
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        qrels[f"q{t}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        run[f"q{t}"] = {d: float(draw(st.integers(0, 3))) for d in retrieved}
    return qrels, run


def _same(a: GainTable, b: GainTable) -> None:
    for name in ("gains", "ideal", "num_ret", "judged", "pooled", "n_judged"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.topics == b.topics


@settings(max_examples=150, deadline=None)
@given(data=runs())
def test_judged_only_is_the_ranking_of_the_judged_documents_alone(data):
    """Compacting a table equals ranking only the documents with a grade ≥ 0 in the first place (trec_eval -J
    removes the others and moves the documents below them up); compacting twice changes nothing."""
    qrels, run = data
    judged_run = {t: {d: s for d, s in docs.items() if qrels[t].get(d, -1) >= 0} for t, docs in run.items()}
    compacted = table_from_dicts(qrels, run).judged_only()
    _same(compacted, table_from_dicts(qrels, judged_run))
    _same(compacted.judged_only(), compacted)


def test_a_table_of_judged_documents_is_unchanged():
    table = GainTable.from_gains([[0, 2, 1], [1]], [[2, 1, 1, 0], [1]])
    _same(table.judged_only(), table)


def test_judged_only_on_an_organization_judges_its_prioritised_and_rest_documents():
    """From an Organization, judged = prioritised or in the finite rest (grade 0); with an unlimited tail,
    only the prioritised documents are judged."""
    ranking = Organization.parse("x\na\ny\nc\nb")
    with_rest = Organization.parse("[2] a\n[1] b\nrest: c")
    # judged ranking a c b: AP = (1/1 + 2/3) / 2
    assert evaluate(with_rest, ranking, "AP(judged_only=True)")["AP(judged_only=True)"] == pytest.approx(5 / 6)
    assert evaluate(with_rest, ranking, "AP")["AP"] == pytest.approx((1 / 2 + 2 / 5) / 2)
    tail = Organization.parse("[2] a\n[1] b")  # c is not judged: judged ranking a b
    assert evaluate(tail, ranking, "P(judged_only=True)@2")["P(judged_only=True)@2"] == 1.0


def test_the_parameter_is_declared_where_ir_measures_or_trec_eval_has_it():
    for name in IR_MEASURES_JUDGED_ONLY | TREC_EVAL_ONLY:
        level = "@0.5" if name == "IPrec" else ""  # IPrec has no default recall level
        measure = parse(f"{name}(judged_only=True){level}")
        assert measure.params["judged_only"] is True
        assert str(parse(str(measure))) == str(measure) and "judged_only=True" in str(measure)
        assert parse(name + level).params["judged_only"] is False
    for name in ("ERR@20", "Judged@10", "Q-measure"):  # neither trec_eval's nor ir_measures' judged_only
        with pytest.raises(UnknownMeasureError, match="unknown parameter 'judged_only'"):
            parse(f"{name}(judged_only=True)")


@pytest.mark.parametrize("value", ["maybe", "1", "0", "2.5", "yes"])
def test_a_value_other_than_true_or_false_is_a_named_error_at_parse_time(value):
    with pytest.raises(MeasureParameterError, match="'AP.*parameter judged_only must be True or False, got"):
        parse(f"AP(judged_only={value})")


@pytest.mark.parametrize("spelling", ["true", "True", "TRUE"])
def test_true_is_read_in_any_case(spelling):
    assert parse(f"P(judged_only={spelling})@5") == parse("P(judged_only=True)@5")


def test_with_defaults_sets_a_level_and_judged_only_where_the_name_leaves_them():
    assert str(with_defaults("AP", rel=2, judged_only=True)) == "AP(rel=2, judged_only=True)"
    assert str(with_defaults("P(rel=2)@5", rel=2)) == "P(rel=2)@5"  # the name agrees with the setting
    for name in ("P(rel=3)@5", "P(rel=1)@5", "AP(rel_level=1)"):  # written out (even at the default): refused
        with pytest.raises(MeasureParameterError,
                           match=r"writes rel=\d, the setting for every measure \(trec_eval's -l, -J\) asks rel=2"):
            with_defaults(name, rel=2)
    with pytest.raises(MeasureParameterError,
                       match="'AP\\(judged_only=False\\)' writes judged_only=False, .* asks judged_only=True"):
        with_defaults("AP(judged_only=False)", judged_only=True)
    assert str(with_defaults("RBP", rel=2)) == "RBP"  # graded RBP stays graded, as trec_eval's rbp ignores -l
    assert str(with_defaults("nDCG@10", rel=2)) == "nDCG@10"
    assert with_defaults("Bpref", rel=2).params["rel"] == 2
    with pytest.raises(MeasureParameterError):
        with_defaults("AP", rel=-1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=trec_campaigns(), level=st.integers(1, 3))
def test_every_trec_eval_measure_judged_only_equals_pytrec_eval_through_a_campaign(data, level):
    """The registry's trec_eval measures with judged_only=True, through Campaign from TREC files (the
    from_entries table), equal pytrec_eval's -J (judged_docs_only_flag) per topic to 1e-9."""
    pytrec_eval = reference_module("pytrec_eval")
    qrels, run = data
    wanted = {"bpref", "infAP", "set_P", "set_recall", "set_F", "set_map", "set_relative_P", "num_rel",
              "num_ret", "num_rel_ret", "num_nonrel_judged_ret", "recall.7", "relative_P.7", "iprec_at_recall",
              "Rprec_mult", "11pt_avg", "binG", "utility", "G", "ndcg_rel", "Rndcg", "map", "ndcg", "P.5",
              "recip_rank", "Rprec", "success.5", "ndcg_cut.5", "map_cut.5"}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, wanted, relevance_level=level,
                                            judged_docs_only_flag=1).evaluate(run)
    names = {k: str(with_defaults(v.format(L=level), judged_only=True)) for k, v in
             {**TREC_EVAL_SPELLINGS, "P_5": "P(rel={L})@5", "recip_rank": "RR(rel={L})", "Rprec": "Rprec(rel={L})",
              "success_5": "Success(rel={L})@5", "ndcg_cut_5": "nDCG@5", "map_cut_5": "AP(rel={L})@5"}.items()}
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        qrels_path, run_path = write_trec(Path(folder), qrels, {"tag": run})
        frame = Campaign(read_trec_qrels(qrels_path), read_trec_run(run_path)).evaluate(
            list(names.values()), missing_topics="skip", extra_topics="ignore", progress=False)
    mine = frame.set_index(["topic", "measure"])["value"]
    assert set(frame["topic"]) == set(theirs)
    for topic, values in theirs.items():
        for measure, registered in names.items():
            if measure in ("iprec_at_recall_0.30", "11pt_avg") and not rounds_as_trec_eval_9(values["num_rel"]):
                continue  # pytrec_eval bundles trec_eval 9's rounding of r·R
            expected, value = values[measure], mine[(topic, registered)]
            assert value == pytest.approx(expected, abs=1e-9, nan_ok=True), (measure, topic)


# ------------------------------------------------------------------------------------------- command line
def _table(args, capsys) -> pd.Series:
    assert main(args) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype={"topic": str})
    return frame.set_index(["topic", "measure"])["value"]


def test_eval_judged_only_and_level_equal_the_drop_in_trec_eval(capsys):
    """``eval -J -l 2 -m AP P@10`` equals ``trec_eval -J -l2 -m map -m P.10`` per topic and over all, to
    trec_eval's 4 decimals, on trec_eval's qrels.rel_level (grades -1..4) and results.test."""
    qrels, run = (str(shared_dataset("trec_eval_test", name)) for name in ("qrels.rel_level", "results.test"))
    ours = _table(["eval", "-J", "-l", "2", "-m", "AP", "P@10", "--gold", qrels, "--run", run, "--per-topic",
                   "--format", "csv", "-q"], capsys)
    assert main(["trec_eval", "-J", "-l2", "-q", "-m", "map", "-m", "P.10", qrels, run]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    names = {"map": "AP(rel=2, judged_only=True)", "P_10": "P(rel=2, judged_only=True)@10"}
    checked = 0
    for name, topic, value in lines:
        if name.strip() in names:
            assert f"{ours[(topic, names[name.strip()])]:.4f}" == value, (name, topic)
            checked += 1
    assert checked == 2 * 4  # topics 301, 302, 303 and all
    plain = _table(["eval", "-m", "AP", "--gold", qrels, "--run", run, "--per-topic", "--format", "csv", "-q"],
                   capsys)
    assert plain[("all", "AP")] != pytest.approx(ours[("all", "AP(rel=2, judged_only=True)")])


def test_level_alone_sets_rel(capsys):
    qrels, run = (str(shared_dataset("trec_eval_test", name)) for name in ("qrels.rel_level", "results.test"))
    ours = _table(["eval", "-l", "2", "-m", "RR", "nDCG", "--gold", qrels, "--run", run, "--format", "csv", "-q"],
                  capsys)
    assert set(ours.index.get_level_values("measure")) == {"RR(rel=2)", "nDCG"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        assert main(["trec_eval", "-l2", "-m", "recip_rank", qrels, run]) == 0
    expected = capsys.readouterr().out.split("\t")[-1].strip()
    assert f"{ours[('all', 'RR(rel=2)')]:.4f}" == expected


def test_judged_only_on_a_measure_without_the_parameter_exits_2_naming_it(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n")
    run.write_text("1 Q0 a 1 1.0 s\n")
    assert main(["eval", "-J", "-m", "AP", "Bpref", "ERR@20", "--gold", str(qrels), "--run", str(run), "-q"]) == 2
    err = capsys.readouterr().err
    assert "-J" in err and "'ERR@20'" in err and "'AP'" not in err and "'Bpref'" not in err
    assert main(["compare", "-J", "-m", "AP(judged_only=maybe)", "--gold", str(qrels), "--run", str(run)]) == 2
    assert "judged_only" in capsys.readouterr().err


def test_compare_takes_judged_only_and_level(tmp_path, capsys):
    """compare -J -l 2: the report's measures are the judged-only ones at level 2, scored as eval scores them."""
    qrels, run_a, run_b = tmp_path / "qrels", tmp_path / "a", tmp_path / "b"
    qrels.write_text("".join(f"{t} 0 d{i} {i % 3}\n" for t in (1, 2, 3) for i in range(6)))
    run_a.write_text("".join(f"{t} Q0 {d} 1 {s} sysA\n" for t in (1, 2, 3)
                             for d, s in (("x", 9), ("d2", 8), ("d1", 7), ("d5", 6))))
    run_b.write_text("".join(f"{t} Q0 {d} 1 {s} sysB\n" for t in (1, 2, 3)
                             for d, s in (("d1", 9), ("y", 8), ("d5", 7), ("d4", 6))))
    args = ["--gold", str(qrels), "--run", str(run_a), str(run_b), "-m", "P@2", "-J", "-l", "2", "-q"]
    assert main(["compare", *args, "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "P(rel=2, judged_only=True)@2" in out
    means = _table(["eval", *args, "--format", "csv"], capsys)
    # judged rankings: a = d2 d1 d5 (P@2 at level 2: d2, d5 reach 2 → 1/2), b = d1 d5 d4 (d5 → 1/2)
    assert means[("all", "P(rel=2, judged_only=True)@2")].tolist() == [0.5, 0.5]


def test_a_campaign_of_organizations_given_by_hand_scores_as_evaluate_does():
    """The campaign's shared gain table over hand-made Organizations judges what ``evaluate`` judges: the
    prioritised documents and a finite rest (c here, judged non-relevant). Hand-computed: Bpref counts the
    one judged non-relevant document c above b: (1 − 0/1 + 1 − 1/1) / 2 = 0.5; judged-only ranking a c b:
    AP(judged_only) = (1/1 + 2/3) / 2 = 0.8333."""
    gold = Organization.parse("[2] a\n[1] b\nrest: c")
    output = Organization.from_ranking(["x", "a", "y", "c", "b"])
    names = ["Bpref", "AP(judged_only=True)", "AP", "NumRelRet"]
    expected = evaluate(gold, output, names)
    assert expected["Bpref"] == pytest.approx(0.5) and expected["AP(judged_only=True)"] == pytest.approx(5 / 6)
    results = Campaign({"t1": gold}, {"sys": {"t1": output}}).evaluate(names, progress=False)
    assert dict(zip(results["measure"], results["value"], strict=True)) == pytest.approx(expected, abs=1e-12)
