"""The command line: eval / compare / demo, output formats, and exit status 2 with one line on bad input."""

import csv
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import ROOT, shared_dataset
from workbench.cli import main, render
from workbench.data.trec import read_trec_eval_output
from workbench.shell import table_of


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """``python -m workbench ARGS`` from the project root, as a user types it."""
    command = [sys.executable, "-m", "workbench", *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def replab_file(path: Path, rows: list[tuple[str, str, str]], label: str = "topic") -> Path:
    text = f'"entity_id"\t"tweet_id"\t"{label}"\n' + "".join(f'"{e}"\t"{t}"\t"{v}"\n' for e, t, v in rows)
    path.write_text(text)
    return path


@pytest.fixture
def small_campaign(tmp_path):
    gold = replab_file(tmp_path / "gold.tsv", [("E1", "t1", "A"), ("E1", "t2", "A"), ("E1", "t3", "B"),
                                               ("E2", "u1", "X"), ("E2", "u2", "Y")])
    sys_a = replab_file(tmp_path / "sysA", [("E1", "t1", "1"), ("E1", "t2", "1"), ("E2", "u1", "1")])
    sys_b = replab_file(tmp_path / "sysB.tsv", [("E1", "t1", "1"), ("E1", "t3", "1")])
    return gold, sys_a, sys_b


@pytest.mark.usefixtures("toy_measures")
def test_eval_csv_per_topic_then_all_rows(small_campaign, capsys):
    gold, sys_a, sys_b = small_campaign
    assert main(["eval", "--gold", str(gold), "--run", str(sys_a), str(sys_b), "-m", "test-shared",
                 "--per-topic", "--format", "csv", "-q", "--missing", "skip"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0]) == ["system", "topic", "measure", "value"]
    # --missing skip (trec_eval's own default): sysB lacks E2, which is skipped (and said on stderr)
    assert [(r["system"], r["topic"], float(r["value"])) for r in rows] == [
        ("sysA", "E1", 2 / 3), ("sysA", "E2", 0.5), ("sysB", "E1", 2 / 3), ("sysA", "all", (2 / 3 + 0.5) / 2),
        ("sysB", "all", 2 / 3)]
    assert "note: system 'sysB' lacks 1 gold topic(s) ('E2'): skipped" in err


@pytest.mark.usefixtures("toy_measures")
def test_eval_complete_scores_missing_topics_zero(small_campaign, capsys):
    gold, sys_a, sys_b = small_campaign
    assert main(["eval", "--gold", str(gold), "--run", str(sys_b), "-m", "test-shared", "-c", "--format",
                 "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["system"], r["topic"], float(r["value"])) for r in rows] == [("sysB", "all", 1 / 3)]


@pytest.mark.usefixtures("toy_measures")
def test_output_formats(small_campaign, capsys):
    gold, sys_a, _ = small_campaign
    args = ["eval", "--gold", str(gold), "--run", str(sys_a), "-m", "test-shared"]
    assert main([*args, "--format", "table"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["system", "topic", "measure", "value"]
    assert table[1].split() == ["sysA", "all", "test-shared", "0.5833"]
    assert main([*args, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out.splitlines()
    assert markdown == ["| system | test-shared |", "|---|---|", "| sysA | 0.5833 |"]
    assert main([*args, "--format", "latex", "--per-topic"]) == 0
    latex = capsys.readouterr().out
    assert latex.startswith("\\begin{tabular}{llr}") and "sysA & E1 & 0.6667 \\\\" in latex


def test_render_escapes_latex_and_pivots_measures():
    frame = pd.DataFrame({"system": ["run_1", "run_1"], "topic": ["all", "all"], "measure": ["P@10", "F%"],
                          "value": [0.25, 1.0]})
    table = table_of(frame)
    assert "run\\_1 & 0.2500 & 1.0000" in render(table, "latex") and "P@10 & F\\%" in render(table, "latex")
    assert render(table, "csv").splitlines()[1] == "run_1,all,P@10,0.25"
    assert render(table, "csv") == frame.to_csv(index=False, lineterminator="\n")  # as pandas writes it
    missing = table_of(frame.assign(value=[float("nan"), 0.1 + 0.2]))
    assert render(missing, "csv") == frame.assign(value=[float("nan"), 0.1 + 0.2]).to_csv(index=False,
                                                                                        lineterminator="\n")


def test_eval_prints_without_pandas(tmp_path):
    """``eval`` reads, scores and prints (table, CSV, JSON) without importing pandas (a quarter of a second)."""
    import subprocess
    import sys

    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 0.9 s\n")
    for fmt in ("table", "csv", "json", "jsonl", "markdown", "latex"):
        script = ("import sys\nfrom workbench.cli import main\n"
                  f"main(['eval', '--gold', {str(tmp_path / 'qrels')!r}, '--run', {str(tmp_path / 'run')!r}, "
                  f"'-m', 'AP', 'NumRel', '--per-topic', '-q', '--format', {fmt!r}])\n"
                  "sys.stdout.flush()\nprint('pandas' in sys.modules, file=sys.stderr)\n")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        assert "0.5" in done.stdout and done.stderr.strip() == "False", fmt


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "usage: workbench"),
        (["eval", "--gold", "g"], "the following arguments are required: --run, -m/--measures"),
        (["eval", "--gold", "absent.qrels", "--run", "r", "-m", "AP"], "absent.qrels: cannot read the file"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["eval", "--gold", "g", "--run", "r", "-m", "AP", "--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, message):
    done = run_cli(*args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""
    if args:
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("workbench: error: ")


@pytest.mark.usefixtures("toy_measures")
def test_bad_files_and_measures_exit_2_with_one_line(small_campaign, tmp_path, capsys):
    gold, sys_a, sys_b = small_campaign
    bad = tmp_path / "bad.tsv"
    bad.write_text('"entity_id"\t"tweet_id"\t"topic"\n"E1"\t"t1"\n')
    cases = [
        (["--gold", str(gold), "--run", str(bad)], f"{bad}, line 2: expected 3 tab-separated fields"),
        (["--gold", str(gold), "--run", str(sys_a), str(sys_a)], "'sysA' is already in an earlier run"),
        (["--gold", str(sys_b), "--run", str(sys_a)], "system 'sysA' has output for topic(s) 'E2' that the"),
        (["--gold", str(gold), "--run", str(sys_b), "--missing", "error"], "has no output for gold topic(s)"),
    ]
    for args, message in cases:
        assert main(["eval", *args, "-m", "test-shared"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert main(["eval", "--gold", str(gold), "--run", str(sys_a), "-m", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown measure 'nope'; known measures: none near it;" in err and err.count("\n") == 1 and len(err) < 200


def test_a_qrels_file_given_as_a_run_is_refused_in_one_line(tmp_path, capsys):
    qrels = tmp_path / "qrels"
    qrels.write_text("301 0 d1 1\n")
    assert main(["eval", "--gold", str(qrels), "--run", str(qrels), "-m", "test-shared"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("workbench: error: ") and err.count("\n") == 1
    assert str(qrels) in err


# ------------------------------------------------------------------------------------ real data, end to end
def test_replab_official_scores_from_the_command_line():
    """reference_RS_per_entity.tsv (official RepLab R&S script) through ``python -m workbench eval``."""
    measures = ["R∼(missing=replab)", "S∼(missing=replab)"]
    folder = shared_dataset("replab2013_topic_detection")
    gold = folder / "replab2013_topic_detection_goldstandard.dat"
    runs = sorted(str(p) for p in (folder / "system-outputs").iterdir())
    done = run_cli("eval", "--gold", str(gold), "--run", *runs, "-m", *measures, "--format", "csv")
    assert done.returncode == 2 and "--gold-encoding latin-1" in done.stderr
    done = run_cli("eval", "--gold", str(gold), "--gold-encoding", "latin-1", "--run", *runs, "-m", *measures,
                   "--per-topic", "--format", "csv")
    assert done.returncode == 0, done.stderr
    scores = pd.read_csv(io.StringIO(done.stdout)).set_index(["system", "topic", "measure"])["value"]
    reference = pd.read_csv(folder / "reference_RS_per_entity.tsv", sep="\t")
    for row in reference.itertuples(index=False):
        system = Path(row.system).name
        assert scores[(system, row.entity, measures[0])] == pytest.approx(row.Reliability, abs=1e-9)
        assert scores[(system, row.entity, measures[1])] == pytest.approx(row.Sensitivity, abs=1e-9)
    means = reference.groupby(reference.system.map(lambda s: Path(s).name))[["Reliability"]].mean()
    for system, row in means.iterrows():
        assert scores[(system, "all", measures[0])] == pytest.approx(row.Reliability, abs=1e-9)


def test_trec_eval_per_query_values_from_the_command_line():
    """out.test.aq (trec_eval -q over qrels.test × results.test): map, ndcg_cut_10, P_10, recip_rank per topic
    and over all, to trec_eval's 4 decimals, through the interface the issue fixes."""
    done = run_cli("eval", "--gold", str(shared_dataset("trec_eval_test", "qrels.test")), "--run",
                   str(shared_dataset("trec_eval_test", "results.test")), "-m", "AP", "nDCG@10", "P@10", "RR",
                   "--per-topic", "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "system,topic,measure,value"
    ours = pd.read_csv(io.StringIO(done.stdout), dtype={"topic": str})
    assert set(ours.system) == {"STANDARD"} and set(ours.topic) == {"301", "302", "303", "all"}
    ours = ours.set_index(["topic", "measure"])["value"]
    reference = read_trec_eval_output(shared_dataset("trec_eval_test", "out.test.aq"))
    names = {"map": "AP", "ndcg_cut_10": "nDCG@10", "P_10": "P@10", "recip_rank": "RR"}
    checked = 0
    for name, topic, value in reference[["measure", "topic", "value"]].itertuples(index=False):
        if name in names:
            assert ours[(str(topic), names[name])] == pytest.approx(float(value), abs=5e-5), (name, topic)
            checked += 1
    assert checked == 4 * 4


WEPS = {"P": "Purity", "IP": "InversePurity", "FMeasure_0.5_P-IP": "F(P,IP)", "BEP": "BCubed-P", "BER": "BCubed-R",
        "FMeasure_0.5_BEP-BER": "BCubed-F"}


def test_weps_official_scores_from_the_command_line():
    """reference_TEAM_A_per_topic.eval (the official WePS-1 scorer, 2 decimals): purity, inverse purity,
    F_0.5(P,IP), extended BCubed precision/recall and F_0.5 per name, from truth_files/ and systemsDir/."""
    folder = shared_dataset("weps2007")
    done = run_cli("eval", "--gold", str(folder / "truth_files"), "--run", str(folder / "systemsDir"), "-m",
                   *WEPS.values(), "--per-topic", "--format", "csv")
    assert done.returncode == 0, done.stderr
    ours = pd.read_csv(io.StringIO(done.stdout)).set_index(["system", "topic", "measure"])["value"]
    reference = pd.read_csv(folder / "reference_TEAM_A_per_topic.eval", sep="\t")
    for row in reference.to_dict("records"):
        for column, measure in WEPS.items():
            assert ours[("TEAM_A", row["topic"], measure)] == pytest.approx(row[column], abs=0.005 + 1e-9)
    assert len(reference) == 5


def test_weps_run_topics_match_the_gold_whatever_their_spelling(tmp_path):
    truth = shared_dataset("weps2007", "truth_files", "Abby_Watkins.clust.xml")
    team = tmp_path / "TEAM_Z"
    team.mkdir()
    (team / "ABBY WATKINS.clust.xml").write_bytes(truth.read_bytes())
    done = run_cli("eval", "--gold", str(truth), "--run", str(team), "-m", "Purity", "--per-topic", "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["TEAM_Z,Abby_Watkins,Purity,1.0", "TEAM_Z,all,Purity,1.0"]


@pytest.mark.usefixtures("toy_measures")
def test_compare_prints_means_then_uir_and_significance(small_campaign, capsys):
    gold, sys_a, sys_b = small_campaign
    args = ["compare", "--gold", str(gold), "--run", str(sys_a), str(sys_b), "-m", "test-shared", "-c"]
    assert main([*args, "--format", "csv"]) == 0
    sections = capsys.readouterr().out.split("\n# ")
    title, body = sections[0].split("\n", 1)
    assert title == "# means, best in bold, significance against the baseline sysA"
    report = pd.read_csv(io.StringIO(body)).set_index("system")
    assert report.loc["sysA", "mean"] == (2 / 3 + 0.5) / 2 and report.loc["sysB", "mean"] == pytest.approx(1 / 3)
    assert report["best"].tolist() == [True, False] and report["baseline"].tolist() == [True, False]
    try:
        from workbench.analysis import significance, uir_matrix  # noqa: F401
    except ImportError:
        assert sections[1].startswith("UIR and significance\nneed workbench.analysis")
        return
    # per topic (-c): E1 sysA 2/3 = sysB 2/3 (a tie counts both ways), E2 sysA 0.5 > sysB 0 → UIR = (2 − 1)/2
    uir = pd.read_csv(io.StringIO(sections[1].split("\n", 1)[1])).set_index("a")
    assert uir.loc["sysA", "sysB"] == 0.5 and uir.loc["sysB", "sysA"] == -0.5
    title, body = sections[2].split("\n", 1)
    tests = pd.read_csv(io.StringIO(body))
    from scipy import stats

    assert "t-test" in title
    assert tests.loc[0, "p_value"] == pytest.approx(stats.ttest_rel([2 / 3, 0.5], [2 / 3, 0]).pvalue)
    assert main([*args[:5], "-m", "test-shared"]) == 2
    assert "compare needs at least two systems" in capsys.readouterr().err


def test_demo_prints_table9_beside_the_printed_values():
    import workbench

    done = run_cli("demo")
    if not hasattr(workbench, "reliability_sensitivity"):
        assert done.returncode == 2 and "needs workbench.reliability_sensitivity" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Table 9" in lines[0] and "n=10, wn=0.8" in done.stdout
    rows = [line for line in lines if line.startswith(("gold", "System Output"))]
    assert len(rows) == 6 and rows[0].split() == ["gold", *["1.0000", "(1)"] * 4]
    assert "(0.95)*" in rows[4]  # output 4's R≺ is one of Table 9's errata (datasets/seed000-table9.org)


def test_demo_refuses_table9_params_that_are_not_numbers(monkeypatch, capsys):
    """The example file's @params are read as scalars of any kind: the demo says which is not a number (exit 2)."""
    import dataclasses

    from workbench import datasets

    load = datasets.load
    monkeypatch.setattr(datasets, "load", lambda name: dataclasses.replace(load(name), params={"n": "ten", "wn": 0.8}))
    assert main(["demo"]) == 2
    assert "'@params' must give the numbers n and wn, got n='ten', wn=0.8" in capsys.readouterr().err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_command_line_process_keeps_freed_memory_for_reuse(monkeypatch, capsys):
    """As the whole process (no argv), a command asks glibc's malloc to keep freed blocks of up to 32 MiB, in
    one arena for all its threads; called with argv (from Python) or with a MALLOC_* variable set, it leaves
    malloc alone."""
    import ctypes

    from workbench import heap

    asked: list[tuple[int, int]] = []

    class Library:
        def __init__(self, name):
            self.mallopt = lambda parameter, value: asked.append((parameter, value)) or 1
            self.malloc_trim = lambda pad: 1

    started: dict[str, str] = {}  # the MALLOC_* variables the process started with (heap reads those)
    monkeypatch.setattr(ctypes, "CDLL", Library)
    monkeypatch.setattr(heap, "_malloc_environment", lambda: dict(started))
    monkeypatch.setattr(sys, "argv", ["workbench", "trec_eval", "-h"])
    assert main(["trec_eval", "-h"]) == 0 and asked == []
    assert main() == 0
    assert asked == [(heap.M_MMAP_THRESHOLD, 32 << 20), (heap.M_TRIM_THRESHOLD, 1 << 30), (heap.M_ARENA_MAX, 1)]
    asked.clear()
    started["MALLOC_ARENA_MAX"] = "2"
    assert main() == 0 and asked == []
    capsys.readouterr()


def test_commands_run_without_numpys_huge_page_advice_unless_the_user_sets_it(monkeypatch, capsys):
    multiarray = pytest.importorskip("numpy._core.multiarray")
    advised: list[bool] = []
    monkeypatch.setattr(multiarray, "_set_madvise_hugepage", lambda enabled: advised.append(enabled) or True)
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    assert main(["demo"]) == 0
    assert advised == [False, True]  # off while the command runs, the previous advice back after
    advised.clear()
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    assert main(["trec_eval", "-h"]) == 0
    assert advised == []
    capsys.readouterr()
