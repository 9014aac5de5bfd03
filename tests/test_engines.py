"""The engines (issue 39): every declaration names one, its bulk value equals the measure's per-topic value, and
only :mod:`workbench.data.engines` chooses how a measure is computed (an AST guard, as tests/test_imports.py's
join test)."""

from __future__ import annotations

import ast
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import workbench
from tests.measure_instances import INSTANCES
from tests.strategies import pairs_of
from workbench.data.campaign import Campaign
from workbench.data.engines import ENGINES, Held, by_engine, engine_of
from workbench.errors import CampaignError, WorkbenchError, WorkbenchWarning
from workbench.metrics import registry
from workbench.metrics.registry import ENGINE_NAMES, MeasureRegistrationError, UnknownMeasureError, parse
from workbench.model import Organization

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"
SCORED = [name for names in INSTANCES.values() for name in names]


def _same(bulk: float, alone: float, tolerance: float) -> bool:
    if math.isnan(bulk) or math.isnan(alone):
        return math.isnan(bulk) and math.isnan(alone)
    return bulk == alone if tolerance == 0 else abs(bulk - alone) <= tolerance * max(1.0, abs(alone))


def test_every_declaration_names_a_known_engine():
    """Every declared engine exists, and reads what its measures read (a campaign's organizations, or trec_eval's
    preferences and judgement groups, read by the drop-in)."""
    assert set(ENGINES) == set(ENGINE_NAMES)
    for spec in registry.specs():
        assert spec.engine in ENGINES, spec.name
        assert ENGINES[spec.engine].reads == spec.reads, spec.name
        if spec.reads != "organizations":
            assert spec.engine == spec.reads, spec.name
    tested = {parse(name).spec.name for name in SCORED}
    assert tested == {spec.name for spec in registry.specs() if spec.reads == "organizations"
                      and spec.returns == "number"}


@pytest.mark.filterwarnings("ignore::workbench.errors.WorkbenchWarning")
@pytest.mark.parametrize("name", SCORED)
def test_the_engine_s_bulk_value_equals_the_per_topic_value(name):
    """The registry walk: each declared measure, under every spelling tested, scored by its engine on every
    (system, topic) of a small campaign at once equals ``compute`` on each (gold, output) alone (bit for bit;
    the campaign-level R&S kernel to 1e-12, as Campaign.evaluate documents), and so does ``workbench.evaluate`` of
    each pair, the same lookup (bit for bit, and the very error on input the measure refuses)."""
    measure = parse(name)
    engine = engine_of(measure)
    assert engine is ENGINES[measure.spec.engine]
    pairs = pairs_of(measure.spec)
    gold = {f"t{i}": g for i, (g, _) in enumerate(pairs)}
    runs = {"a": {f"t{i}": o for i, (_, o) in enumerate(pairs)}}
    if measure.spec.task in ("clustering", "filtering", "organization"):  # a second system: the gold itself
        runs["b"] = dict(gold)
    work = [(system, topic) for system, run in runs.items() for topic in run]
    alone = {}
    for system, topic in work:
        try:
            alone[system, topic] = measure(gold[topic], runs[system][topic])
        except WorkbenchError as error:  # input the measure refuses: the engine refuses it too, saying where
            with pytest.raises(type(error)) as door:
                workbench.evaluate(gold[topic], runs[system][topic], name)
            assert str(door.value) == str(error)
            with pytest.raises(CampaignError, match=f"system '{system}', topic '{topic}'") as refused:
                engine.score(Held(gold, runs), work, {name: measure})
            assert str(error) in str(refused.value)
            return
        assert _same(workbench.evaluate(gold[topic], runs[system][topic], name)[name], alone[system, topic], 0)
    bulk = engine.score(Held(gold, runs), work, {name: measure})
    tolerance = 1e-12 if measure.spec.engine == "R&S" else 0
    for pair in work:
        assert _same(bulk[pair][name], alone[pair], tolerance), (pair, bulk[pair][name], alone[pair])


def test_a_campaign_is_one_lookup_by_engine():
    """Measures of four engines in one campaign: each value is its engine's, in the order asked."""
    gold = {"q1": Organization.from_graded({"d1": 2, "d2": 1}), "q2": Organization.from_graded({"d3": 1})}
    runs = {"s": {"q1": Organization.from_ranking(["d2", "d1"]), "q2": Organization.from_ranking(["d4", "d3"])}}
    names = ["NMI", "AP", "R≺(n=10, wn=0.8)", "alpha_nDCG@5", "P@1"]
    groups = by_engine(names)
    assert [(engine.name, list(group)) for engine, group in groups.items()] == [
        ("per topic", ["NMI"]), ("gain table", ["AP", "P@1"]), ("R&S", ["R≺(n=10, wn=0.8)"]),
        ("subtopic table", ["alpha_nDCG@5"])]
    values = Campaign(gold, runs).evaluate(names, progress=False)
    pairs = [("s", "q1"), ("s", "q2")]
    for engine, group in groups.items():
        for (_, topic), scored in engine.score(Held(gold, runs), pairs, group).items():
            for measure, value in scored.items():
                row = values[(values.topic == topic) & (values.measure == measure)]
                assert row.value.tolist() == [value]


def test_a_declaration_names_a_known_engine_or_is_refused():
    with pytest.raises(MeasureRegistrationError, match="engine must be one of"):
        registry.register("Half-test", lambda gold, output: 0.5, task="ranking", source="a test", engine="fast")
    with registry.registered("Half-test", lambda gold, output: 0.5, task="ranking", source="a test"):
        assert engine_of("Half-test") is ENGINES["per topic"]  # a measure of a notebook: topic by topic
    assert engine_of("prefs_num_prefs_poss") is ENGINES["preferences"]
    assert engine_of("map_avgjg") is ENGINES["judgement groups"]
    campaign = Campaign.from_dicts({"q1": {"a": 1}}, {"s": {"q1": {"a": 0.9}}})
    for name in ("prefs_num_prefs_poss", "map_avgjg"):  # a campaign holds neither: refused before any work
        with pytest.raises(UnknownMeasureError, match=f"python -m workbench trec_eval scores it \\(-m {name}\\)"):
            by_engine(["AP", name])
        with pytest.raises(WorkbenchError, match="python -m workbench trec_eval"):
            campaign.evaluate(["AP", name], progress=False)
        with pytest.raises(WorkbenchError, match="python -m workbench trec_eval"):
            campaign.explain("s", "q1", name)
        with pytest.raises(WorkbenchError, match=f"{name} reads trec_eval's .*, not a gold organization: score it "
                                                 f"with python -m workbench trec_eval -R .* -m {name}"):
            workbench.evaluate(campaign.gold["q1"], campaign.runs["s"]["q1"], ["AP", name])  # its engine says so


# ------------------------------------------------------------------------------- only the engines dispatch
KIND_PREDICATES = {"is_table_measure", "is_diversity_measure", "is_rs_measure"}
KIND_CLASSES = {"TableMeasure", "SubtopicMeasure", "PreferenceMeasure", "GroupMeasure", "_DropInOnly"}


def _is_kind_test(node: ast.AST) -> bool:
    """A test of a measure's kind: a kind predicate called, ``isinstance`` against a compute wrapper, or a
    declaration's ``engine`` compared."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            called = inner.func.id if isinstance(inner.func, ast.Name) else getattr(inner.func, "attr", "")
            if called in KIND_PREDICATES:
                return True
            if called == "isinstance" and len(inner.args) == 2 and any(
                    isinstance(n, ast.Name) and n.id in KIND_CLASSES for n in ast.walk(inner.args[1])):
                return True
        if isinstance(inner, ast.Compare) and any(isinstance(side, ast.Attribute) and side.attr == "engine"
                                                  for side in (inner.left, *inner.comparators)):
            return True
    return False


def _dispatches(tree: ast.AST) -> list[int]:
    """The lines where a kind test chooses a path: kind tests anywhere but in a guard (an ``if`` whose body only
    raises) or in a predicate's own definition (the ``return`` of an ``is_*`` function)."""
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and all(isinstance(stmt, ast.Raise) for stmt in node.body) and not node.orelse:
            allowed.add(id(node.test))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("is_"):
            allowed.update(id(stmt.value) for stmt in node.body if isinstance(stmt, ast.Return))
    found = []
    for node in ast.walk(tree):
        tests = [node.test] if isinstance(node, ast.If | ast.IfExp | ast.While) else [
            *(cond for gen in node.generators for cond in gen.ifs)] if isinstance(
            node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) else []
        if isinstance(node, ast.Return) and node.value is not None:
            tests.append(node.value)
        found += [node.lineno for test in tests if id(test) not in allowed and _is_kind_test(test)]
    return sorted(set(found))


def test_nothing_outside_the_engines_module_dispatches_on_a_measure_s_kind():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "data" / "engines.py":
            continue
        lines = _dispatches(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            offenders[str(path.relative_to(PACKAGE.parent))] = lines
    assert offenders == {}, f"choose the engine in workbench/data/engines.py (engine_of, by_engine): {offenders}"


def test_the_dispatch_finder_finds_one():
    source = ("def score(measure, names):\n"
              "    if is_table_measure(measure):\n        return 1\n"
              "    tables = [n for n in names if parse(n).spec.engine == 'gain table']\n"
              "    if not isinstance(measure.spec.compute, TableMeasure):\n        raise ValueError(measure)\n"
              "def is_fast(measure):\n    return isinstance(measure.spec.compute, SubtopicMeasure)\n")
    assert _dispatches(ast.parse(source)) == [2, 4]


def test_the_engines_warn_nothing_on_a_clean_campaign():
    gold = {"q1": Organization.from_graded({"d1": 1})}
    with warnings.catch_warnings():
        warnings.simplefilter("error", WorkbenchWarning)
        Campaign(gold, {"s": {"q1": Organization.from_ranking(["d1"])}}).evaluate(["AP", "NMI", "R≺(n=10, wn=0.8)"],
                                                                                  progress=False)


def test_a_new_family_is_one_engine(monkeypatch):
    """CONTRIBUTING.md's recipe for a family: a name for its engine, one engine class, declarations naming it; the
    campaign scores through it with no other edit."""
    from workbench.data import engines

    calls = []

    class FirstHit(engines.PerTopicEngine):  # a batch kernel: every pair of the campaign in one call
        name = "first hit (test)"

        def score(self, held, pairs, measures, *, progress=False):
            calls.append(len(pairs))
            firsts = [next(iter(sorted(held.runs[s][t].levels[0][0])), None) if held.runs[s][t].levels else None
                      for s, t in pairs]
            return {pair: {name: float(first in held.gold[pair[1]].documents and first is not None)
                           for name in measures} for pair, first in zip(pairs, firsts, strict=True)}

    def first_hit(gold, output):
        return float(bool(output.levels) and min(output.levels[0][0]) in gold.documents)

    monkeypatch.setattr(registry, "ENGINE_NAMES", (*registry.ENGINE_NAMES, FirstHit.name))
    monkeypatch.setitem(engines.ENGINES, FirstHit.name, FirstHit())
    gold = {"q1": Organization.from_graded({"d1": 1}), "q2": Organization.from_graded({"d3": 1})}
    runs = {"s": {"q1": Organization.from_ranking(["d1", "d2"]), "q2": Organization.from_ranking(["d4", "d3"])}}
    with registry.registered("FirstHit-test", first_hit, task="ranking", source="a test", engine=FirstHit.name):
        values = Campaign(gold, runs).evaluate(["FirstHit-test", "AP"], progress=False)
    assert calls == [2]
    assert values[values.measure == "FirstHit-test"].value.tolist() == [first_hit(gold[t], runs["s"][t])
                                                                          for t in ("q1", "q2")] == [1.0, 0.0]


def test_the_one_pair_doors_are_the_same_lookup(monkeypatch):
    """``workbench.evaluate`` and ``workbench.explain`` ask the engine each declaration names for the one pair
    (``score_pair``, ``explain_pair``): a new family's engine is reached with no other edit, its measures scored
    beside the others' in the order asked, and explained by it."""
    from workbench.data import engines

    asked = []

    class Reversed(engines.PerTopicEngine):  # one pair its own way: a value the declaration's compute never gives
        name = "reversed (test)"

        def score_pair(self, gold, output, measures):
            asked.append(list(measures))
            return {name: 1 - measure(gold, output) for name, measure in measures.items()}

        def explain_pair(self, gold, output, measure):
            asked.append(str(measure))
            return engines.explain_of_nothing(measure)

    monkeypatch.setattr(registry, "ENGINE_NAMES", (*registry.ENGINE_NAMES, Reversed.name))
    monkeypatch.setitem(engines.ENGINES, Reversed.name, Reversed())
    gold, output = Organization.from_graded({"d1": 1}), Organization.from_ranking(["d1", "d2"])
    with registry.registered("Quarter-test", lambda gold, output: 0.25, task="ranking", source="a test",
                             engine=Reversed.name):
        scores = workbench.evaluate(gold, output, ["AP", "Quarter-test", "P@2", "Quarter-test"])
        assert list(scores.items()) == [("AP", 1.0), ("Quarter-test", 0.75), ("P@2", 0.5)]
        assert workbench.explain(gold, output, "Quarter-test").measure == "Quarter-test"
    assert asked == [["Quarter-test"], "Quarter-test"]


def test_the_one_pair_doors_score_each_engine_s_measures_together(monkeypatch):
    """Measures of four engines in one call: each engine asked once, for its own measures, and each value what
    the engine gives for the pair in a campaign."""
    from workbench.data import engines

    asked = []
    for engine in engines.ENGINES.values():
        def spying(gold, output, measures, score_pair=engine.score_pair, name=engine.name):
            asked.append((name, list(measures)))
            return score_pair(gold, output, measures)
        monkeypatch.setattr(engine, "score_pair", spying)
    gold, output = Organization.from_graded({"d1": 2, "d2": 1}), Organization.from_ranking(["d2", "d1"])
    names = ["NMI", "AP", "R≺(n=10, wn=0.8)", "alpha_nDCG@5", "P@1"]
    scores = workbench.evaluate(gold, output, names)
    assert asked == [("per topic", ["NMI"]), ("gain table", ["AP", "P@1"]), ("R&S", ["R≺(n=10, wn=0.8)"]),
                     ("subtopic table", ["alpha_nDCG@5"])]
    assert list(scores) == names
    values = Campaign({"q": gold}, {"s": {"q": output}}).evaluate(names, progress=False)
    assert dict(zip(values.measure, values.value, strict=True)) == pytest.approx(scores, abs=1e-12)


def test_the_drop_in_scores_through_the_engines(tmp_path, monkeypatch):
    """trec_eval's drop-in builds its table and asks the engine each declaration names for the values (one lookup):
    the gain table's engine scores map and P_5 on it."""
    from tests.conftest import write_trec
    from workbench import trec_eval
    from workbench.data import engines

    counted: list[str] = []
    values = engines.GainTableEngine.values

    def counting(self, table, measure, params=None):
        counted.append(str(measure))
        return values(self, table, measure, params)

    monkeypatch.setattr(engines.GainTableEngine, "values", counting)
    qrels, run = write_trec(tmp_path, {"q1": {"a": 1, "b": 0}}, {"s": {"q1": {"a": 0.5, "b": 0.9}}})
    evaluation = trec_eval.evaluate(qrels, run, ["map", "P.5"])
    assert counted == ["AP", "P@5"]
    assert "map                   \tall\t0.5000" in trec_eval.render(evaluation)


@pytest.mark.usefixtures("capsys")
def test_the_command_line_scores_a_new_family_through_its_engine(tmp_path, monkeypatch, capsys):
    """``python -m workbench eval`` reads the files into a campaign, which looks the engine up: a new family's
    engine scores its measure with no edit in the command line."""
    from tests.conftest import write_trec
    from workbench.cli import main
    from workbench.data import engines

    calls = []

    class Constant(engines.PerTopicEngine):
        name = "constant (test)"

        def score(self, held, pairs, measures, *, progress=False):
            calls.append(len(pairs))
            return {pair: dict.fromkeys(measures, 0.25) for pair in pairs}

    monkeypatch.setattr(registry, "ENGINE_NAMES", (*registry.ENGINE_NAMES, Constant.name))
    monkeypatch.setitem(engines.ENGINES, Constant.name, Constant())
    qrels, run = write_trec(tmp_path, {"q1": {"a": 1}, "q2": {"b": 1}}, {"s": {"q1": {"a": 1.0}, "q2": {"b": 1.0}}})
    with registry.registered("Quarter-test", lambda gold, output: 0.25, task="ranking", source="a test",
                             engine=Constant.name):
        assert main(["eval", "--gold", str(qrels), "--run", str(run), "-m", "Quarter-test", "AP", "--format", "csv",
                     "--quiet"]) == 0
    assert calls == [2]
    rows = capsys.readouterr().out.splitlines()
    assert any(row.endswith(",Quarter-test,0.25") for row in rows) and any(row.endswith(",AP,1") or
                                                                           row.endswith(",AP,1.0") for row in rows)


ABOVE_THE_KERNELS = ("data", "datasets", "analysis", "fusion", "charts", "widgets")  # tests/test_imports.py's layers


def _kernel_calls(tree: ast.AST) -> list[int]:
    """The lines that call a declaration's kernel: ``….compute(…)`` or ``….compute.score(…)``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called = node.func
            if called.attr == "compute" or called.attr == "score" and isinstance(called.value, ast.Attribute) \
                    and called.value.attr == "compute":
                found.append(node.lineno)
    return found


def test_above_the_kernels_only_the_engines_call_a_measure_s_kernel():
    """The campaign, its explanation, the command line, the drop-in, the analyses and the widgets score through
    the engines (or workbench.evaluate, the per-topic engine's computation): none calls a declaration's kernel."""
    above = [path for folder in ABOVE_THE_KERNELS for path in sorted((PACKAGE / folder).rglob("*.py"))] + \
        [PACKAGE / f"{name}.py" for name in ("cli", "shell", "trec_eval", "catalogue", "__main__")]
    offenders = {}
    for path in above:
        if path == PACKAGE / "data" / "engines.py":
            continue
        lines = _kernel_calls(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            offenders[str(path.relative_to(PACKAGE.parent))] = lines
    assert offenders == {}


def test_the_kernel_call_finder_finds_them():
    source = "measure.spec.compute.score(table)\nspec.compute(gold, output)\nengine.score(held, pairs, m)\n"
    assert _kernel_calls(ast.parse(source)) == [1, 2]


RAGGED = ["INSQ(max_rel=3)", "NERR11(max_rel=3)", "Q-measure@1000", "ERR@100", "AP", "nDCG"]


def _ragged_campaign() -> tuple[dict, dict]:
    """Graded gold over 400 documents; four runs of rankings 30 long, three of lengths 1-399 (rows of other widths,
    where a kernel adding a row with numpy's pairwise sum would change a value's last bit), one with a tied level
    and one lacking two topics."""
    rng = np.random.default_rng(7)
    docs = [f"d{i}" for i in range(400)]
    gold = {f"t{t}": Organization.from_graded({d: int(rng.integers(0, 4)) for d in rng.choice(docs, 120, False)})
            for t in range(8)}
    runs = {f"even{s}": {t: Organization.from_ranking(list(rng.permutation(docs)[:30])) for t in gold}
            for s in range(4)}
    runs |= {f"ragged{s}": {t: Organization.from_ranking(list(rng.permutation(docs)[:rng.integers(1, 400)]))
                            for t in gold} for s in range(3)}
    runs["even1"]["t4"] = Organization.parse("d1 d2\n" + "\n".join(docs[3:31]))
    del runs["even2"]["t0"], runs["even2"]["t5"]
    return gold, runs


def test_runs_joined_together_score_as_on_tables_of_their_own_bit_for_bit(monkeypatch):
    """Issue 39 item 6: the gain-table engine joins runs of Organizations together (TOGETHER_ROWS rows, a table's
    fixed cost paid once); every value equals its run's own table's bit for bit, on all topics and on a chunk's few,
    the runs whose own table would be narrower scored apart."""
    from workbench.data import engines

    gold, runs = _ragged_campaign()
    engine, measures = ENGINES["gain table"], {name: parse(name) for name in RAGGED}
    built = []
    build = engines.GainTableEngine.build

    def counted(gold, run, topics, **kwargs):
        built.append(len(topics))
        return build(gold, run, topics, **kwargs)

    monkeypatch.setattr(engines.GainTableEngine, "build", staticmethod(counted))
    for topics in (list(gold), ["t0", "t4", "t5"]):
        work = [(system, topic) for system in runs for topic in topics]
        built.clear()
        together = engine.score(Held(gold, runs), work, measures)
        assert 4 * len(topics) in built and len(built) < len(runs)  # the four runs of 30 on one table
        monkeypatch.setattr(engines, "TOGETHER_ROWS", 0)
        apart = engine.score(Held(gold, runs), work, measures)
        monkeypatch.setattr(engines, "TOGETHER_ROWS", 256)
        assert together.keys() == apart.keys()
        for pair, values in apart.items():
            assert np.array(list(together[pair].values())).view(np.uint64).tolist() == \
                np.array(list(values.values())).view(np.uint64).tolist(), pair


def test_a_run_refused_in_a_joined_group_is_named_as_on_its_own(monkeypatch):
    """A group the join refuses is scored run by run, whose error names the run at fault (as before)."""
    from workbench.data import engines

    gold, runs = _ragged_campaign()
    poisoned = runs["even3"]["t2"]
    build = engines.GainTableEngine.build

    def refusing(gold, run, topics, **kwargs):
        if any(output is poisoned for output in run.values()):
            raise WorkbenchError("refused by the join")
        return build(gold, run, topics, **kwargs)

    monkeypatch.setattr(engines.GainTableEngine, "build", staticmethod(refusing))
    work = [(system, topic) for system in runs for topic in gold]
    with pytest.raises(CampaignError, match="system 'even3': WorkbenchError: refused by the join"):
        ENGINES["gain table"].score(Held(gold, runs), work, {"AP": parse("AP")})


def test_runs_read_as_arrays_or_holding_other_outputs_are_tabled_alone():
    """Only runs of Organizations are joined together; a run read as arrays (its join reads its arrays) or holding
    something else (the join's own refusal names it) has a table of its own."""
    from workbench.data import engines

    read = Campaign.from_dicts({"q": {"a": 1}}, {"s": {"q": {"a": 0.5}}, "t": {"q": {"a": 0.4}}})
    assert list(engines._groups(Held(read.gold, read.runs), {"s": ["q"], "t": ["q"]})) == [{"s": ["q"]}, {"t": ["q"]}]
    gold = {"q": Organization.from_graded({"a": 1})}
    ranked = Organization.from_ranking
    runs = {"s": {"q": ranked(["a"])}, "odd": {"q": "a"}, "t": {"q": ranked(["b"])}}
    assert list(engines._groups(Held(gold, runs), dict.fromkeys(runs, ["q"]))) == [{"odd": ["q"]},
                                                                                 {"s": ["q"], "t": ["q"]}]
