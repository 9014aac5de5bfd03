"""ir_measures' spellings are the workbench's: each name gives ir_measures' value per topic, and trec_eval's
spellings give pytrec_eval's, on random graded campaigns with many score ties, read from TREC files.

ir_measures takes most measures from pytrec_eval (trec_eval's order: score, then document id descending), and
``ERR@20`` and ``nDCG(dcg='exp-log2')@k`` from gdeval, which orders ties as trec_eval does; the other providers
break score ties their own way (``RR@10``: msmarco; ``Judged@10``, ``RBP(rel=1)``, ``SDCG``, ``INST``, ``INSQ``,
``NERR8``–``NERR11``, ``BPM``: cwl_eval; ``Compat``: compat, by document id ascending; ``Accuracy``: accuracy). Those
are compared on runs without ties, and also, where trec_eval has the measure, against pytrec_eval with ties.

Where ir_measures' provider departs from the measure's paper, a test below says how: cwl_eval runs its user models
over 1,000 ranks (the papers' rankings are endless: ``depth=None``), the compat provider sums RBP only as deep as the
longer of the run and the ideal ranking (Clarke's compatibility.py to 1,000: ``depth=1000``), and the accuracy
provider reports nothing for a topic without a relevant document retrieved and fails on one without a non-relevant
document retrieved.
"""

from __future__ import annotations

import math
import random
import warnings

import pytest

from tests.conftest import reference_module, write_trec
from workbench.data import Campaign, read_trec_qrels, read_trec_run
from workbench.metrics.registry import UnknownMeasureError, parse

ir_measures = reference_module("ir_measures")
pytrec_eval = reference_module("pytrec_eval")

# The names of issue 10 (item 4), as ir_measures spells them.
IR_MEASURES_NAMES = ["AP", "AP@100", "AP(rel=2)", "nDCG", "nDCG@10", "P@10", "P(rel=2)@5", "R@100", "RR",
                     "RR@10", "Rprec", "Bpref", "infAP", "Judged@10", "NumRel", "NumRet", "NumRelRet",
                     "IPrec@0.1", "SetP", "SetR", "SetF", "Success@10", "ERR@20", "RBP(p=0.8, rel=1)",
                     "nDCG(gains={1:2,2:1,3:5})@10", "nDCG(gains={2:5})", "NumQ",
                     "SDCG(max_rel=3)@10", "SDCG(max_rel=2)@5", "SDCG(max_rel=1)@20"]  # SDCG: cwl_eval's

# Issue 34 item 4: the rest of ir_measures' measures and spellings (cwl_eval's C/W/L measures, compat, gdeval's
# nDCG(dcg='exp-log2')@k, gains for grade 0, the cutoff written cutoff=k).
IR_MEASURES_NAMES += ["nDCG(gains={0:1,1:2})", "nDCG(gains={0:1,1:2,2:5})@10", "nDCG(dcg='exp-log2')@10",
                      "nDCG(dcg='exp-log2')@5", "P(cutoff=10)", "AP(rel=2, cutoff=100)",
                      "SDCG(min_rel=1, max_rel=3)@10", "SDCG(min_rel=2, max_rel=3)@5",
                      "INSQ(max_rel=3)", "INSQ(T=2.0, min_rel=1, max_rel=3)", "INST(max_rel=3)",
                      "INST(T=2.0, max_rel=3)", "INST(T=0.5, min_rel=1, max_rel=2)",
                      "NERR8(max_rel=3)@10", "NERR8(min_rel=1, max_rel=2)@3", "NERR9(max_rel=3)@10",
                      "NERR9(min_rel=1, max_rel=3)@5", "NERR10(max_rel=3)", "NERR10(p=0.5, max_rel=2)",
                      "NERR11(max_rel=3)", "NERR11(T=2.0, max_rel=3)", "BPM(max_rel=3)@10",
                      "BPM(T=2.0, max_rel=3)@20", "BPM(T=0.5, min_rel=1, max_rel=3)@5",
                      "Compat", "Compat(p=0.8)", "Compat(normalize=False)", "Compat(p=0.5, normalize=False)"]

# ir_measures' parameter spellings the workbench writes its own way: (ir_measures' name, the workbench's).
RESPELLED = {"nDCG(dcg='exp-log2')": "nDCG(gain=exp)", "nDCG(dcg='log2')": "nDCG", "P(cutoff=10)": "P@10",
             "AP(rel=2, cutoff=100)": "AP(rel=2)@100"}

# ir_measures' judged_only (trec_eval's -J: unjudged documents leave the ranking), on every measure that has it.
JUDGED_ONLY_NAMES = ["AP(judged_only=True)", "AP(rel=2, judged_only=True)@100", "P(judged_only=True)@10",
                     "P(rel=2, judged_only=True)@5", "nDCG(judged_only=True)", "nDCG(judged_only=True)@10",
                     "nDCG(gains={1:2,2:1,3:5}, judged_only=True)@10", "RR(judged_only=True)",
                     "Rprec(judged_only=True)", "R(judged_only=True)@100", "R(judged_only=True)@5",
                     "Success(judged_only=True)@10", "IPrec(judged_only=True)@0.1", "SetP(judged_only=True)",
                     "SetF(judged_only=True)", "SetAP(judged_only=True)"]
IR_MEASURES_NAMES += JUDGED_ONLY_NAMES

# trec_eval's spellings (pytrec_eval's keys) and the relevance level they are computed at.
TREC_EVAL_NAMES = ["map", "map_cut_100", "ndcg", "ndcg_cut_10", "P_10", "P_5", "recip_rank", "recall_100",
                   "Rprec", "success_10", "bpref", "infAP", "num_rel", "num_ret", "num_rel_ret", "set_P",
                   "set_recall", "set_F"]


def campaign(seed: int, ties: bool, topics: int = 12) -> tuple[dict, dict]:
    """Random qrels ``{topic: {doc: grade 0..3}}`` and a run ``{topic: {doc: score}}``: some relevant
    documents unretrieved, some retrieved ones unjudged, and (``ties``) scores from a handful of values."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(1, topics + 1):
        docs = [f"d{i:03d}" for i in range(rng.randint(5, 60))]
        judged = rng.sample(docs, rng.randint(1, len(docs)))
        grades = {d: rng.choice([0, 0, 0, 1, 1, 2, 3]) for d in judged}
        if not any(grades.values()):
            grades[judged[0]] = rng.randint(1, 3)
        retrieved = rng.sample(docs, rng.randint(1, len(docs)))
        values = [rng.choice([0.25, 0.5, 1.0, 2.0]) for _ in retrieved] if ties else \
            rng.sample(range(1, 10 * len(retrieved)), len(retrieved))
        qrels[str(t)] = grades
        run[str(t)] = {d: float(v) for d, v in zip(retrieved, values, strict=True)}
    return qrels, run


def workbench_scores(tmp_path, qrels: dict, run: dict, name: str) -> dict[str, float]:
    """Per topic, the workbench's value of ``name`` through the files users have (qrels and run text)."""
    qrels_path, run_path = write_trec(tmp_path, qrels, {"sys": run})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = Campaign(read_trec_qrels(qrels_path), read_trec_run(run_path)).evaluate(
            [name], missing_topics="skip", progress=False)
    return dict(zip(frame["topic"], frame["value"], strict=True))


def test_the_listed_names_parse_as_ir_measures_spells_them():
    """Every listed name prints back as ir_measures prints it (same name, same params)."""
    for name in IR_MEASURES_NAMES:
        measure = parse(name)
        assert str(parse(str(measure))) == str(measure)
        ours, theirs = str(measure).replace(" ", ""), str(ir_measures.parse_measure(name))
        theirs = {"NumRet(rel=1)": "NumRelRet"}.get(theirs, theirs)  # ir_measures prints NumRelRet so
        theirs = theirs.replace("dcg='exp-log2'", "gain=exp")  # ir_measures' DCG formulation is the gain's curve
        assert ours == theirs.replace(" ", "") or name.startswith("RBP"), (ours, theirs)


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
@pytest.mark.parametrize("seed", [1, 2])
def test_same_value_as_ir_measures(tmp_path, name, seed):
    measure = ir_measures.parse_measure(name)
    gdeval = ir_measures.gdeval.supports(measure)
    ties = ir_measures.pytrec_eval.supports(measure) or gdeval  # the others order score ties their own way
    qrels, run = campaign(seed, ties)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
    ours = workbench_scores(tmp_path, qrels, run, name)
    assert set(ours) == set(run)
    printed = 5e-6 if gdeval else 1e-9  # gdeval prints 5 decimals
    for topic in ours:
        n_rel = sum(grade >= 1 for grade in qrels[topic].values())
        if name.startswith("IPrec") and math.floor(0.1 * n_rel + 0.9) != math.floor(0.1 * n_rel + 0.5):
            continue  # pytrec_eval bundles trec_eval 9: ⌊rR + 0.9⌋ relevant documents where version 10 rounds rR
        assert ours[topic] == pytest.approx(theirs.get(topic, 0.0), abs=printed), (name, topic)


@pytest.mark.parametrize("name", TREC_EVAL_NAMES)
def test_trec_eval_spellings_equal_pytrec_eval_with_ties(tmp_path, name):
    qrels, run = campaign(3, ties=True)
    key = {"map_cut_100": "map_cut", "ndcg_cut_10": "ndcg_cut", "P_10": "P", "P_5": "P",
           "recall_100": "recall", "success_10": "success"}.get(name, name)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {key} if key != name else {name})
    theirs = evaluator.evaluate(run)
    ours = workbench_scores(tmp_path, qrels, run, name)
    for topic, value in ours.items():
        assert value == pytest.approx(theirs[topic][name], abs=1e-9), (name, topic)


def test_judged_only_matters_in_these_campaigns(tmp_path):
    """Retrieved documents without judgements do move the judged ones up: judged_only changes values."""
    qrels, run = campaign(1, ties=True)
    assert any(doc not in qrels[topic] for topic in run for doc in run[topic])
    assert workbench_scores(tmp_path, qrels, run, "P(judged_only=True)@10") != \
        workbench_scores(tmp_path, qrels, run, "P@10")


def test_ties_matter_in_these_campaigns():
    """The campaigns with ties do reorder documents: trec_eval's order differs from the run's file order."""
    qrels, run = campaign(1, ties=True)
    assert any(len(set(scores.values())) < len(scores) for scores in run.values())


@pytest.mark.parametrize(("trec_eval", "ir_measures_name"), [
    ("map", "AP"), ("map_cut_100", "AP@100"), ("ndcg", "nDCG"), ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"),
    ("recip_rank", "RR"), ("success_10", "Success@10"), ("Rprec", "Rprec"), ("recall_100", "R@100"),
])
def test_trec_eval_spellings_are_aliases_of_the_same_measure(trec_eval, ir_measures_name):
    assert parse(trec_eval) == parse(ir_measures_name)


# ------------------------------------------------------------------------- issue 34 item 4: the rest of the names
@pytest.mark.parametrize(("theirs", "ours"), RESPELLED.items())
def test_ir_measures_parameter_spellings_are_the_workbench_measures(theirs, ours):
    """``dcg='exp-log2'`` is the gain curve 2^g − 1 (``gain=exp``), ``dcg='log2'`` the grade itself; ``cutoff=k`` is
    ``@k``; a cutoff written both ways is refused rather than won by one."""
    assert parse(theirs) == parse(ours) and str(parse(theirs)) == ours
    with pytest.raises(UnknownMeasureError, match="given twice"):
        parse("P(cutoff=5)@10")
    with pytest.raises(UnknownMeasureError, match="dcg must be one of log2, exp-log2"):
        parse("nDCG(dcg='exp')")


@pytest.mark.parametrize("seed", [1, 2])
def test_ndcg_exp_log2_without_cutoff_equals_ranx(ranx, tmp_path, seed):
    """ir_measures takes ``nDCG(dcg='exp-log2')`` without a cutoff from ranx, which ranx 0.3.21 refuses to take from
    ir_measures 0.4.3 here (its Qrels.from_df asserts object dtype on the query ids pandas now gives as strings):
    compared with ranx's ndcg_burges directly, on runs without ties (ranx orders ties its own way)."""
    qrels, run = campaign(seed, ties=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "ndcg_burges", return_mean=False,
                               make_comparable=True)
    theirs = dict(zip(ranx.Run(run).keys(), values.tolist(), strict=True))
    ours = workbench_scores(tmp_path, qrels, run, "nDCG(dcg='exp-log2')")
    assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize(("theirs", "ours"), [("Accuracy", "PairwiseAccuracy"), ("Accuracy@10", "PairwiseAccuracy@10"),
                                              ("Accuracy(rel=2)", "PairwiseAccuracy(rel=2)")])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pairwise_accuracy_equals_ir_measures_accuracy(tmp_path, theirs, ours, seed):
    """ir_measures' ranking ``Accuracy`` is the workbench's PairwiseAccuracy (its ``Accuracy`` is the filtering
    measure). Where the accuracy provider has no pair to count it departs: a topic without a relevant document
    retrieved gets no value (and is left out of its mean; the workbench scores 0), one whose retrieved documents are
    all relevant raises ZeroDivisionError (the workbench scores 1: no relevant document below a non-relevant one)."""
    assert parse(ours).spec.name == "PairwiseAccuracy" and parse("Accuracy").spec.task == "filtering"
    measure = ir_measures.parse_measure(theirs)
    qrels, run = campaign(seed, ties=False)
    qrels["3"].update(r1=3, r2=2)
    run["3"] = {"r1": 2.0, "r2": 1.0}  # every document retrieved relevant
    run["4"] = {"unjudged": 1.0}  # nothing relevant
    ours_by_topic = workbench_scores(tmp_path, qrels, run, ours)
    level, k = measure["rel"], measure["cutoff"] if "cutoff" in measure.params else None
    counted = {"departs": 0}
    for topic, scores in run.items():
        top = sorted(scores, key=scores.get, reverse=True)[:k]
        relevant = sum(qrels[topic].get(doc, 0) >= level for doc in top)
        try:
            found = [m.value for m in ir_measures.iter_calc([measure], {topic: qrels[topic]}, {topic: scores})]
        except ZeroDivisionError:
            assert relevant == len(top) and ours_by_topic[topic] == 1.0
            counted["departs"] += 1
            continue
        if not found:
            assert relevant == 0 and ours_by_topic[topic] == 0.0
            counted["departs"] += 1
            continue
        assert ours_by_topic[topic] == pytest.approx(found[0], abs=1e-12), (topic, ours_by_topic[topic], found)
    assert counted["departs"] >= 1


def _rbo(ranking: list[str], ideal: list[str], p: float, depth: int) -> float:
    """RBO to ``depth`` as its definition reads: Σ_{i ≤ depth} p^(i−1) |A_{1:i} ∩ B_{1:i}| / i over
    Σ_{i ≤ depth} p^(i−1)."""
    return sum(p ** (i - 1) * len(set(ranking[:i]) & set(ideal[:i])) / i for i in range(1, depth + 1)) / \
        sum(p ** (i - 1) for i in range(1, depth + 1))


@pytest.mark.parametrize(("p", "normalize"), [(0.95, True), (0.8, False), (0.5, True)])
def test_compat_to_a_fixed_depth_as_compatibility_py_sums_it(tmp_path, p, normalize):
    """Clarke's compatibility.py sums RBO to depth 1,000 whatever the lengths (the papers' endless sum, to within
    p^1000); ir_measures' compat provider stops at the longer of the run and the ideal ranking, which loses the
    overlap every deeper rank still adds: ``Compat(depth=1000)`` is the first, by RBO's definition, and differs."""
    qrels, run = campaign(4, ties=False, topics=6)
    name = f"Compat(p={p}, normalize={normalize}, depth=1000)"
    ours = workbench_scores(tmp_path, qrels, run, name)
    shallow = workbench_scores(tmp_path, qrels, run, f"Compat(p={p}, normalize={normalize})")
    for topic, scores in run.items():
        ranking = sorted(scores, key=scores.get, reverse=True)
        ideal = sorted((d for d, g in qrels[topic].items() if g > 0), key=lambda d: -scores.get(d, 0.0))
        ideal.sort(key=lambda d: -qrels[topic][d])
        value = _rbo(ranking, ideal, p, 1000)
        if normalize:
            value /= _rbo(ideal, ideal, p, 1000)
        assert ours[topic] == pytest.approx(value, abs=1e-12), topic
    assert any(abs(ours[t] - shallow[t]) > 1e-3 for t in ours)


def _cwl_eval(metric, gains: list[float], depth: int) -> float:
    """cwl_eval's own measure on one ranking of gains, its user model over ``depth`` ranks (cwl_eval's -n)."""
    from cwl.ruler.ranking import Ranking

    return metric.measure(Ranking("q", gains, [math.nan] * len(gains), max_n=depth))


@pytest.mark.parametrize("depth", [3, 50, 2500])
def test_cwl_measures_at_other_depths_equal_cwl_eval(tmp_path, depth):
    """``depth`` is cwl_eval's -n (ir_measures always runs it at 1,000): the ranking cut, or padded with
    non-relevant documents, to depth ranks. cwl_eval pads explicitly; the workbench adds the ranks past the ranking in
    closed form."""
    reference_module("cwl")
    from cwl.ruler.measures.cwl_insq import INSQCWLMetric
    from cwl.ruler.measures.cwl_inst import INSTCWLMetric
    from cwl.ruler.measures.cwl_nerr import NERReq10CWLMetric, NERReq11CWLMetric

    qrels, run = campaign(5, ties=False, topics=6)
    for name, metric in [("INSQ(T=2.0, max_rel=3, depth={})", INSQCWLMetric(2.0)),
                         ("INST(max_rel=3, depth={})", INSTCWLMetric(1.0)),
                         ("NERR10(p=0.7, max_rel=3, depth={})", NERReq10CWLMetric(0.7)),
                         ("NERR11(T=1.5, max_rel=3, depth={})", NERReq11CWLMetric(1.5))]:
        ours = workbench_scores(tmp_path, qrels, run, name.format(depth))
        for topic, scores in run.items():
            gains = [min(qrels[topic].get(d, 0), 3) / 3 for d in sorted(scores, key=scores.get, reverse=True)]
            assert ours[topic] == pytest.approx(_cwl_eval(metric, gains, depth), abs=1e-12), (name, topic)


def test_cwl_measures_on_the_endless_ranking_of_their_papers():
    """``depth=None``: the C/W/L sums run without end, as the papers define them. One fully relevant document at
    rank 1, T = 1: INSQ's weights telescope to ((2T)/(r − 1 + 2T))², so INSQ = 1/(4 Σ_{j ≥ 2} 1/j²) = 1/(4(π²/6 −
    1)); INST continues with 1/4 then as INSQ from T + T_1 = 1, so INST = 1/(1 + Σ_{j ≥ 2} 1/j²) = 6/π²; NERR10's
    weights of a half-relevant document are 1, p/2, p²/2, ..., so NERR10 = (1/2)/(1 + p/(2(1 − p))). ir_measures'
    1,000 ranks give less weight to the rest of the ranking, so more to rank 1."""
    import workbench as wb
    from workbench.metrics.ranking.table import GainTable

    one = GainTable.from_gains([[1]], [[1]])
    insq, inst = parse("INSQ(max_rel=1, depth=None)"), parse("INST(max_rel=1, depth=None)")
    assert insq.spec.compute.score(one, **insq.params)[0] == pytest.approx(1 / (4 * (math.pi ** 2 / 6 - 1)), 1e-14)
    assert inst.spec.compute.score(one, **inst.params)[0] == pytest.approx(6 / math.pi ** 2, 1e-14)
    half = GainTable.from_gains([[1]], [[1]])
    nerr10 = parse("NERR10(p=0.6, max_rel=2, depth=None)")
    assert nerr10.spec.compute.score(half, **nerr10.params)[0] == pytest.approx(0.5 / (1 + 0.6 / 0.8), 1e-14)
    cut = parse("INSQ(max_rel=1)")
    assert cut.spec.compute.score(one, **cut.params)[0] > 1 / (4 * (math.pi ** 2 / 6 - 1)) + 1e-4
    deep = parse("INSQ(max_rel=1, depth=100000000)")
    assert deep.spec.compute.score(one, **deep.params)[0] == pytest.approx(1 / (4 * (math.pi ** 2 / 6 - 1)), 1e-7)
    assert wb.evaluate(wb.Organization.from_graded({"a": 1}), wb.Organization.from_ranking(["a"]),
                       "INSQ(max_rel=1, depth=None)")["INSQ(max_rel=1, depth=None)"] == pytest.approx(
        1 / (4 * (math.pi ** 2 / 6 - 1)), 1e-14)


def test_the_new_measures_on_trec_2003_robust_equal_ir_measures(tmp_path):
    """A real run (TREC 2003 Robust, UIUC03Rd1: 100 topics of 1,000 documents, grades 0–2), its score ties broken in
    the file's order (every topic has some; cwl_eval, compat and accuracy would break them their own way): each new
    measure equals ir_measures' provider on every topic."""
    import gzip

    from tests.conftest import shared_dataset

    folder = shared_dataset("trec_robust2003")
    qrels_path, written, per_topic = folder / "qrels.txt", [], {}
    with gzip.open(folder / "runs" / "input.UIUC03Rd1.gz", "rt") as run_file:
        for line in run_file:
            topic, q0, doc, rank, _, tag = line.split()
            per_topic[topic] = per_topic.get(topic, 0) + 1
            written.append(f"{topic} {q0} {doc} {rank} {10000 - per_topic[topic]} {tag}\n")
    run_path = tmp_path / "run"
    run_path.write_text("".join(written))
    campaign_of = Campaign(read_trec_qrels(qrels_path), read_trec_run(run_path))
    qrels, run = list(ir_measures.read_trec_qrels(str(qrels_path))), list(ir_measures.read_trec_run(str(run_path)))
    for theirs_name, ours_name in [("INSQ(max_rel=2)", None), ("INST(T=2.0, max_rel=2)", None),
                                   ("NERR8(max_rel=2)@10", None), ("NERR9(max_rel=2)@20", None),
                                   ("NERR10(max_rel=2)", None), ("NERR11(max_rel=2)", None),
                                   ("BPM(T=2.0, max_rel=2)@20", None), ("SDCG(min_rel=1, max_rel=2)@10", None),
                                   ("Compat", None), ("Accuracy@100", "PairwiseAccuracy@100")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(theirs_name)],
                                                                         qrels, run)}
            frame = campaign_of.evaluate([ours_name or theirs_name], missing_topics="skip", progress=False)
        ours = dict(zip(frame["topic"], frame["value"], strict=True))
        assert all(ours[t] == pytest.approx(v, abs=1e-12) for t, v in theirs.items()), theirs_name
        unreported = set(ours) - set(theirs)  # the accuracy provider's topics without a relevant document in the top k
        assert len(ours) == 100 and all(ours[t] == 0 for t in unreported), theirs_name
        assert not unreported or theirs_name.startswith("Accuracy")
