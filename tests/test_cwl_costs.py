"""cwl_eval's cost-aware C/W/L measures (TBG, U-measure, IFT-C1, IFT-C2, IFT-C1-C2) and its five output columns
(EU, ETU, EC, ETC, ED), against cwl_eval 1.0.12 (``cwl`` package, ireval/cwl): on an example in its files' formats
written for these tests (``tests/data/cwl-eval``: what cwl_eval printed for it, recorded to 4 decimals, and the
installed package to 1e-12), on seeded random rankings, and on hand-computed cases. (cwl_eval's own example files,
in its repository's ``cwl/tests``, gave the same agreement when compared once; they are not copied here.)"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from workbench.data import read_trec_qrels, read_trec_run
from workbench.data.campaign import Campaign
from workbench.metrics.ranking.cwl_columns import COLUMNS
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.registry import parse

EXAMPLE_FILES = Path(__file__).parent / "data" / "cwl-eval"
"""An example in cwl_eval's file formats, written for these tests, and cwl_eval's recorded output for it (``README.md``
there)."""
# cwl_eval's metrics file, its lines for these measures: the name cwl_eval prints → (the line, the workbench's name)
EXAMPLE = {"U-L@50": ("UMeasureCWLMetric(50)", "U-measure(L=50.0, max_rel=1)"),
           "U-L@10": ("UMeasureCWLMetric(10)", "U-measure(L=10.0, max_rel=1)"),
           "TBG-H@22": ("TBGCWLMetric(22)", "TBG(H=22.0, max_rel=1)"),
           **{f"IFT-C1-T=2.0-b1=0.9-R1={r}": (f"IFTGoalCWLMetric(2.0, 0.9, {r})",
                                              f"IFT-C1(T=2.0, b1=0.9, R1={r}.0, max_rel=1)") for r in (1, 10, 100)},
           **{f"IFT-C2-A=0.2-b2=0.9-R2={r}": (f"IFTRateCWLMetric(0.2, 0.9, {r})",
                                              f"IFT-C2(A=0.2, b2=0.9, R2={r}.0, max_rel=1)") for r in (1, 10, 100)},
           **{f"IFT-C1-C2-T=2.0-b1=0.9-R1={r}-A=0.2-b2=0.9-R2={r}": (
               f"IFTGoalRateCWLMetric(2.0, 0.9, {r}, 0.2, 0.9, {r})",
               f"IFT-C1-C2(T=2.0, b1=0.9, R1={r}.0, A=0.2, b2=0.9, R2={r}.0, max_rel=1)") for r in (10, 100)}}


def _recorded(costs: str) -> dict[tuple[str, str], list[float]]:
    """cwl_eval's printed columns, {(topic, its metric name): [EU, ETU, EC, ETC, ED]}, for ``costs`` "unit" or
    "cost_file"."""
    rows = [line.split("\t") for line in (EXAMPLE_FILES / "output.tsv").read_text().splitlines()
            if not line.startswith("#")]
    return {(topic, metric): [float(v) for v in values] for kind, topic, metric, *values in rows if kind == costs}


def _cwl_metric(call: str):
    """cwl_eval's metric of a line of its metrics file, made as its ``CWLRuler.instantiate_class`` makes it."""
    from cwl.ruler import cwl_ruler

    name, _, args = call.partition("(")
    values = [float(v) if "." in v else int(v) for v in (a.strip() for a in args.rstrip(")").split(",")) if v]
    return getattr(cwl_ruler, name)(*values)


def _example_campaign() -> Campaign:
    return Campaign(read_trec_qrels(EXAMPLE_FILES / "qrel_file"), read_trec_run(EXAMPLE_FILES / "result_file"))


def _theirs_on_example(metric_name: str, costs: dict | None = None) -> dict[str, list[float]]:
    """The installed cwl_eval's five columns per topic of the example, its rankings built as its ``main`` builds
    them (its qrels handler; a ranking maker fed the run's lines in file order)."""
    from cwl.ruler.ranking import RankingMaker
    from cwl.seeker.trec_qrel_handler import TrecQrelHandler

    handler = TrecQrelHandler(str(EXAMPLE_FILES / "qrel_file"))
    makers: dict[str, RankingMaker] = {}
    for line in (EXAMPLE_FILES / "result_file").read_text().splitlines():
        topic, kind, document, *_ = line.split()
        makers.setdefault(topic, RankingMaker(topic, handler, costs)).add(document, kind)
    out = {}
    for topic, maker in makers.items():
        metric = _cwl_metric(EXAMPLE[metric_name][0])
        metric.measure(maker.get_ranking())
        out[topic] = metric.get_scores()
    return out


def _ours(campaign: Campaign) -> dict[tuple[str, str], list[float]]:
    """The workbench's five columns per (topic, cwl_eval's name) of :data:`EXAMPLE`, in one evaluation."""
    names = {f"{name[:-1]}, column={column})": metric for metric, (_, name) in EXAMPLE.items() for column in COLUMNS}
    frame = campaign.evaluate(list(names), progress=False)
    out: dict[tuple[str, str], list[float]] = {}
    for row in frame.itertuples():  # the columns of a measure in COLUMNS' order, as evaluate keeps the names'
        out.setdefault((row.topic, names[row.measure]), []).append(row.value)
    return out


def test_the_example_with_unit_costs_equals_cwl_eval():
    """The example without a cost file: equal to what it printed (4 decimals) and to the installed
    cwl_eval (1e-12) on every topic and column."""
    reference_module("cwl")
    ours = _ours(_example_campaign())
    recorded = _recorded("unit")
    for metric_name in EXAMPLE:
        for topic, theirs in _theirs_on_example(metric_name).items():
            assert ours[topic, metric_name] == pytest.approx(theirs, rel=1e-12, abs=1e-12), (metric_name, topic)
            assert ours[topic, metric_name] == pytest.approx(recorded[topic, metric_name], abs=5e-5), metric_name


def _random_rankings(seed: int, topics: int) -> list[list[float]]:
    """Gains on [0, 1] of tie-free rankings of 0 to 40 documents (cwl_eval reads a run in its file's order; the
    workbench ranks by score, so without ties both read the same ranking)."""
    rng = random.Random(seed)
    return [[rng.choice([0.0, 0.0, 0.25, 0.5, 1.0]) for _ in range(rng.randint(0, 40))] for _ in range(topics)]


RANDOM = [("TBG(H={}, max_rel=1, depth={})", "TBGCWLMetric({})", [0.5, 3.0, 224.0]),
          ("U-measure(L={}, max_rel=1, depth={})", "UMeasureCWLMetric({})", [1.0, 7.5, 1000.0]),
          ("IFT-C1(T={}, b1=0.9, R1=10.0, max_rel=1, depth={})", "IFTGoalCWLMetric({}, 0.9, 10)", [0.5, 2.0, 5.0]),
          ("IFT-C2(A={}, b2=0.5, R2=100.0, max_rel=1, depth={})", "IFTRateCWLMetric({}, 0.5, 100)", [0.1, 0.2, 0.6]),
          ("IFT-C1-C2(T={}, b1=0.9, R1=10.0, A=0.2, b2=0.9, R2=10.0, max_rel=1, depth={})",
           "IFTGoalRateCWLMetric({}, 0.9, 10, 0.2, 0.9, 10)", [1.0, 3.0, 2.5])]


@pytest.mark.parametrize("ours, theirs, values", RANDOM, ids=[r[0].partition("(")[0] for r in RANDOM])
def test_random_rankings_equal_cwl_eval_in_all_five_columns(ours, theirs, values):
    """Seeded random rankings at depths cut inside them, past them and cwl_eval's 1,000: every column equal to
    cwl_eval's to 1e-12 (relative)."""
    reference_module("cwl")
    from cwl.ruler.ranking import Ranking

    rankings = _random_rankings(43, 8)
    table = GainTable.from_gains(rankings, [[1.0]] * len(rankings))
    for value, depth in zip(values, (2, 17, 1000), strict=True):
        columns = []
        for column in COLUMNS:
            measure = parse(f"{ours.format(value, depth)[:-1]}, column={column})")
            columns.append(measure.spec.compute.score(table, **measure.params))
        for row, gains in enumerate(rankings):
            metric = _cwl_metric(theirs.format(value))
            metric.measure(Ranking("q", gains, [math.nan] * len(gains), max_n=depth))
            mine = [float(values[row]) for values in columns]
            assert mine == pytest.approx(metric.get_scores(), rel=1e-12, abs=1e-12), (ours, value, depth, row)


EARLIER = [("INSQ(T={}, max_rel=1, depth={})", "INSQCWLMetric({})", [0.5, 2.0, 1.0]),
           ("INST(T={}, max_rel=1, depth={})", "INSTCWLMetric({})", [0.5, 1.5, 3.0]),
           ("NERR10(p={}, max_rel=1, depth={})", "NERReq10CWLMetric({})", [0.3, 0.7, 0.95]),
           ("NERR11(T={}, max_rel=1, depth={})", "NERReq11CWLMetric({})", [0.5, 1.5, 4.0]),
           ("NERR8(max_rel=1)@{}", "NERReq8CWLMetric({})", [1, 5, 30]),
           ("NERR9(max_rel=1)@{}", "NERReq9CWLMetric({})", [2, 7, 30]),
           ("BPM(T=1.2, max_rel=1)@{}", "BPMCWLMetric(1.2, {})", [1, 4, 30]),
           ("SDCG(max_rel=1)@{}", "NDCGCWLMetric({})", [1, 5, 30])]


@pytest.mark.parametrize("ours, theirs, values", EARLIER, ids=[r[0].partition("(")[0] for r in EARLIER])
def test_the_earlier_cwl_measures_give_cwl_evals_five_columns(ours, theirs, values):
    """INSQ, INST, NERR8–NERR11, BPM and SDCG (declared for ir_measures' cwl_eval provider) give the five columns too,
    equal to cwl_eval's (its 1,000 ranks for the measures cut at k ≤ 1,000) on seeded random rankings."""
    reference_module("cwl")
    from cwl.ruler.ranking import Ranking

    rankings = _random_rankings(7, 6)
    table = GainTable.from_gains(rankings, [[1.0]] * len(rankings))
    cut = "@" in ours
    for value, depth in zip(values, (2, 17, 1000), strict=True):
        columns = []
        for column in COLUMNS:
            name = ours.format(value) if cut else ours.format(value, depth)
            measure = parse(name.replace(")", f", column={column})", 1))
            columns.append(measure.spec.compute.score(table, **measure.params))
        for row, gains in enumerate(rankings):
            metric = _cwl_metric(theirs.format(value))
            metric.measure(Ranking("q", gains, [math.nan] * len(gains), max_n=1000 if cut else depth))
            mine = [float(values[row]) for values in columns]
            assert mine == pytest.approx(metric.get_scores(), rel=1e-12, abs=1e-12), (ours, value, row)


def test_columns_need_a_depth():
    """The endless ranking (``depth=None``) has an EU in closed form, not a depth or a cost to count: refused."""
    from workbench.errors import ParameterError

    measure = parse("INSQ(max_rel=1, depth=None, column=ED)")
    with pytest.raises(ParameterError, match="need a depth"):
        measure.spec.compute.score(GainTable.from_gains([[1.0]], [[1.0]]), **measure.params)


def test_hand_computed_cases():
    """With every document costing 1: TBG is RBP's weighted precision with p = 2^(−1/H) over the d ranks, its ED
    Σ_{i≤d} p^(i−1); U-measure's weights fall as 1 − (i − 1)/L up to rank L; IFT with R1 = 0 continues with
    1 − 1/(1 + b1) everywhere: with b1 = 1, C = 1/2 and the expected depth over d ranks 2 − 2^(1−d)."""
    table = GainTable.from_gains([[1, 0, 1, 1]], [[1, 1, 1]])

    def value(name: str) -> float:
        measure = parse(name)
        return float(measure.spec.compute.score(table, **measure.params)[0])

    p, d = 2 ** -0.5, 6  # H = 2
    reach = p ** np.arange(d)
    assert value(f"TBG(H=2.0, max_rel=1, depth={d})") == pytest.approx((1 + p ** 2 + p ** 3) / reach.sum(), 1e-14)
    assert value(f"TBG(H=2.0, max_rel=1, depth={d}, column=ED)") == pytest.approx(reach.sum(), 1e-14)
    assert value(f"TBG(H=2.0, max_rel=1, depth={d}, column=EC)") == pytest.approx(1.0, 1e-14)
    # U-measure, L = 4: weights 1, 3/4, 1/2, 1/4, then 0 (the user has read L)
    assert value("U-measure(L=4.0, max_rel=1, depth=8)") == pytest.approx((1 + 0.5 + 0.25) / 2.5, 1e-14)
    assert value("U-measure(L=4.0, max_rel=1, depth=8, column=ED)") == pytest.approx(2.5, 1e-14)
    # ETU = Σ_j gain(j)·reach(j), nobody reading past 8 ranks: 1 + 1/2 + 1/4
    assert value("U-measure(L=4.0, max_rel=1, depth=8, column=ETU)") == pytest.approx(1.75, 1e-14)
    # IFT-C1 with R1 = 0 and b1 = 1: C = 1/2 at every rank, reach 2^(1−i); ETC = Σ_{i≤d} 2^(1−i) − d·2^(−d)
    assert value("IFT-C1(T=2.0, b1=1.0, R1=0.0, max_rel=1, depth=5, column=ETC)") == pytest.approx(
        sum(2.0 ** (1 - i) for i in range(1, 6)) - 5 * 2.0 ** -5, 1e-14)
    assert value("IFT-C1(T=2.0, b1=1.0, R1=0.0, max_rel=1, depth=5, column=ED)") == pytest.approx(2 - 2 ** -4, 1e-14)


def test_columns_are_spelled_and_refused_as_declared():
    """``column`` reads cwl_eval's column names and prints back; another is refused naming the five."""
    from workbench.errors import ParameterError

    assert str(parse("TBG(max_rel=1, column=ETC)")) == "TBG(max_rel=1, column=ETC)"
    assert str(parse("TBG(max_rel=1, column=EU)")) == "TBG(max_rel=1)"
    with pytest.raises(ParameterError, match="EU.*ETU.*EC.*ETC.*ED"):
        parse("TBG(max_rel=1, column=ER)")


COSTED = RANDOM + [r for r in EARLIER if r[0].startswith(("BPM", "INST"))]


@pytest.mark.parametrize("ours, theirs, values", COSTED, ids=[r[0].partition("(")[0] for r in COSTED])
def test_random_rankings_with_costs_equal_cwl_eval(ours, theirs, values):
    """Each document priced (a gain table's ``costs``, as a cost file prices element types): every column equal to
    cwl_eval's given the same costs, to 1e-12 (the padding past the ranking costs 1 in both). BPM's k is a cutoff
    in ranks here and cwl_eval's K a budget of cost: they agree at unit cost only, so BPM is checked on K = k at
    a cost budget no ranking reaches (its gain goal T decides)."""
    reference_module("cwl")
    from cwl.ruler.ranking import Ranking

    rng = random.Random(11)
    rankings = _random_rankings(5, 6)
    prices = [[rng.choice([0.5, 1.0, 2.0, 7.5]) for _ in gains] for gains in rankings]
    width = max(map(len, rankings))
    costs = np.ones((len(rankings), width))
    for row, priced in enumerate(prices):
        costs[row, :len(priced)] = priced
    table = GainTable.from_gains(rankings, [[1.0]] * len(rankings))
    table = GainTable(table.gains, table.ideal, num_ret=table.num_ret, costs=costs)
    cut = "@" in ours
    for value, depth in zip(values, (2, 17, 1000), strict=True):
        if ours.startswith("BPM"):
            value = 1000
        name = ours.format(value) if cut else ours.format(value, depth)
        got = [parse(name.replace(")", f", column={column})", 1)) for column in COLUMNS]
        columns = [m.spec.compute.score(table, **m.params) for m in got]
        for row, gains in enumerate(rankings):
            metric = _cwl_metric(theirs.format(value))
            metric.measure(Ranking("q", gains, prices[row], max_n=1000 if cut else depth))
            mine = [float(values[row]) for values in columns]
            assert mine == pytest.approx(metric.get_scores(), rel=1e-12, abs=1e-12), (name, row)


def test_the_example_cost_file_reads_as_cwl_eval_reads_it():
    from cwl.cwl_eval import read_in_cost_file

    from workbench.data.trec.costs import read_cwl_costs

    reference_module("cwl")
    assert read_cwl_costs(EXAMPLE_FILES / "cost_file") == read_in_cost_file(str(EXAMPLE_FILES / "cost_file")) == {
        "text": 1.0, "image": 0.5, "video": 6.0, "table": 2.5}


@settings(max_examples=40, deadline=None)
@given(costs=st.dictionaries(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=8)
                             .filter(lambda kind: not kind.startswith("#")),
                             st.floats(min_value=1e-300, max_value=1e300), min_size=1, max_size=6))
def test_cost_files_read_back_what_was_written(tmp_path_factory, costs):
    """Any types and positive costs written one per line read back as written (``repr`` round-trips a float; a
    line whose first field starts with ``#`` is a comment, as in every TREC file)."""
    from workbench.data.trec.costs import read_cwl_costs

    path = tmp_path_factory.mktemp("costs") / "costs"
    path.write_text("".join(f"{kind} {cost!r}\n" for kind, cost in costs.items()), encoding="ascii")
    assert read_cwl_costs(path) == costs


@pytest.mark.parametrize("line, column", [("E2 0\n", 4), ("E2 abc\n", 4), ("E2   nan\n", 6), ("E2 -1.5\n", 4)])
def test_a_bad_cost_names_its_line_and_column(tmp_path, line, column):
    from workbench.data.trec.costs import read_cwl_costs
    from workbench.errors import InputError

    path = tmp_path / "costs"
    path.write_text("E1 1.0\n" + line)
    with pytest.raises(InputError) as raised:
        read_cwl_costs(path)
    assert (raised.value.line, raised.value.column) == (2, column)


def test_the_example_with_its_cost_file_equals_cwl_eval():
    """The example with its cost file (``-c cost_file``), read through the run reader's ``costs``: every
    topic and column equal to what cwl_eval printed (4 decimals) and to the installed cwl_eval (1e-12)."""
    reference_module("cwl")
    from cwl.cwl_eval import read_in_cost_file

    from workbench.data.trec.costs import read_cwl_costs

    costs = read_cwl_costs(EXAMPLE_FILES / "cost_file")
    campaign = Campaign(read_trec_qrels(EXAMPLE_FILES / "qrel_file"),
                        read_trec_run(EXAMPLE_FILES / "result_file", costs=costs))
    ours = _ours(campaign)
    recorded = _recorded("cost_file")
    theirs_costs = read_in_cost_file(str(EXAMPLE_FILES / "cost_file"))
    for metric_name in EXAMPLE:
        for topic, theirs in _theirs_on_example(metric_name, theirs_costs).items():
            assert ours[topic, metric_name] == pytest.approx(theirs, rel=1e-12, abs=1e-12), (metric_name, topic)
            assert ours[topic, metric_name] == pytest.approx(recorded[topic, metric_name], abs=5e-5), metric_name


def test_a_type_without_a_cost_costs_one_and_costs_travel_with_the_ranking(tmp_path):
    """A run line whose element type the cost file lacks costs 1 (cwl_eval's max_cost); the costs follow the
    documents into score order (the file's order is not the ranking's)."""
    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 0\nq 0 c 1\n")
    (tmp_path / "run").write_text("q slow c 1 0.1 s\nq fast a 2 0.9 s\nq other b 3 0.5 s\n")
    run = read_trec_run(tmp_path / "run", costs={"slow": 4.0, "fast": 0.5})
    assert run["s"].documents("q") == ["a", "b", "c"]
    assert run["s"].costs_array[[0, 2]].tolist() == [0.5, 4.0] and math.isnan(run["s"].costs_array[1])
    campaign = Campaign(read_trec_qrels(tmp_path / "qrels"), run)
    frame = campaign.evaluate(["TBG(H=1.0, max_rel=1, depth=3, column=EC)"], progress=False)
    weights = np.array([1.0, 2 ** -0.5, 2 ** -1.5])  # ranks a (0.5), b (1), c (4): 2^(−t/H) at t = 0, 0.5, 1.5
    assert frame.value.iloc[0] == pytest.approx(weights @ [0.5, 1.0, 4.0] / weights.sum(), 1e-14)


def test_costs_travel_with_a_runs_topics_to_the_workers_of_a_distributed_campaign(tmp_path):
    """A chunk of a distributed campaign carries its topics' costs (``RankedRun.restricted``): the cost-aware
    measures score as serially (they scored every document at cost 1 on the workers before)."""
    from concurrent.futures import ThreadPoolExecutor

    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 0\nq 0 c 1\nr 0 a 1\n")
    (tmp_path / "run").write_text("q slow c 1 0.1 s\nq fast a 2 0.9 s\nq other b 3 0.5 s\nr fast a 1 0.3 s\n")
    run = read_trec_run(tmp_path / "run", costs={"slow": 4.0, "fast": 0.5})
    for kept in (["q"], ["r", "q"]):
        cut = run["s"].restricted(kept)
        for topic in kept:
            span, whole = cut.span(topic), run["s"].span(topic)
            assert cut.costs_array[span].tolist() == pytest.approx(run["s"].costs_array[whole].tolist(), nan_ok=True)
    campaign = Campaign(read_trec_qrels(tmp_path / "qrels"), run)
    measures = ["TBG(H=1.0, max_rel=1, depth=3, column=EC)", "U-measure(L=2.0, max_rel=1, column=ETC)"]
    serial = campaign.evaluate(measures, progress=False)
    with ThreadPoolExecutor(2) as pool:
        pooled = campaign.evaluate(measures, executor=pool, chunk_topics=1, progress=False)
    assert pooled.value.tolist() == serial.value.tolist() and serial.value.iloc[0] != 1.0


def test_the_command_line_reads_a_cost_file(tmp_path, capsys):
    from workbench.cli import main

    assert main(["eval", "--gold", str(EXAMPLE_FILES / "qrel_file"), "--run", str(EXAMPLE_FILES / "result_file"),
                 "--costs", str(EXAMPLE_FILES / "cost_file"), "-m", "TBG(H=22.0, max_rel=1, column=ETC)",
                 "--per-topic", "-q", "--format", "csv"]) == 0
    printed = capsys.readouterr().out
    recorded = _recorded("cost_file")
    for topic in ("q1", "q2", "q3"):
        row = next(line for line in printed.splitlines() if f",{topic}," in line)
        assert float(row.rsplit(",", 1)[1]) == pytest.approx(recorded[topic, "TBG-H@22"][3], abs=5e-5)
