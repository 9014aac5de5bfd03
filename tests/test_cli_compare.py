"""``compare`` with Tukey's HSD, W/T/L columns and --group-by over seeds and folds (issue 23 item 2), on small
TREC files."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from workbench.analysis import compare_report, tukey_hsd, win_tie_loss
from workbench.cli import main
from workbench.data.read import read_campaign


@pytest.fixture
def trec_campaign(tmp_path):
    """A qrels file and one run file holding four systems over 8 topics (two of them seeds of one model)."""
    rng = np.random.default_rng(1)
    qrels = [f"q{t} 0 d{d} {int(rng.random() < 0.4)}" for t in range(8) for d in range(12)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    lines = []
    for system, skill in (("bm25", 0.0), ("bert_seed1", 0.6), ("bert_seed2", 0.5), ("rand", -0.5)):
        for t in range(8):
            for d in range(12):
                relevant = f"q{t} 0 d{d} 1" in qrels
                lines.append(f"q{t} Q0 d{d} 0 {rng.random() + skill * relevant:.6f} {system}")
    (tmp_path / "runs").write_text("\n".join(lines) + "\n")
    return tmp_path / "qrels", tmp_path / "runs"


def test_compare_with_tukey_prints_the_pairs_and_the_groups(trec_campaign, capsys):
    qrels, runs = trec_campaign
    assert main(["compare", "--gold", str(qrels), "--run", str(runs), "-m", "AP", "nDCG@5", "--test", "tukey",
                 "-q", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "homogeneous groups (best first) AP: groups {" in out
    results = read_campaign(qrels, [runs]).evaluate(["AP"], progress=False)
    expected = tukey_hsd(results, "AP")
    section = out.split("homogeneous groups")[1].split("\n", 1)[1]
    rows = [line.split(",") for line in section.strip().splitlines()[1:] if line.startswith("AP,")]
    assert [float(r[5]) for r in rows] == pytest.approx(expected["pvalue"].tolist())
    assert main(["compare", "--gold", str(qrels), "--run", str(runs), "-m", "AP", "--test", "tukey", "-q",
                 "--format", "markdown"]) == 0
    assert "Tukey's HSD over the 6 pairs of systems per measure" in capsys.readouterr().out


def test_compare_wtl_columns_and_json(trec_campaign, capsys):
    qrels, runs = trec_campaign
    assert main(["compare", "--gold", str(qrels), "--run", str(runs), "-m", "AP", "--wtl", "-q",
                 "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| system | AP | AP W/T/L |" in out and "W/T/L: topics won/tied/lost against bm25" in out
    results = read_campaign(qrels, [runs]).evaluate(["AP"], progress=False)
    counts = win_tie_loss(results, "AP", "bm25").set_index("system")
    w, t, loss = counts.loc["rand", ["wins", "ties", "losses"]]
    assert f"| {w}/{t}/{loss} |" in out.split("| rand |")[1].split("\n")[0] + " |"
    assert main(["compare", "--gold", str(qrels), "--run", str(runs), "-m", "AP", "--wtl", "--test", "tukey",
                 "-q", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"means", "uir", "tukey", "win_tie_loss"} <= set(data)
    assert {r["system"]: r["wins"] for r in data["win_tie_loss"]} == counts["wins"].to_dict()


def test_compare_group_by_averages_the_seeds_of_one_model(trec_campaign, capsys):
    qrels, runs = trec_campaign
    assert main(["compare", "--gold", str(qrels), "--run", str(runs), "-m", "AP", "--group-by", r"(.*)_seed\d+",
                 "-q", "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "systems grouped by '(.*)_seed\\\\d+' ('_seed1', '_seed2')" in err and "the mean over the seeds" in err
    results = read_campaign(qrels, [runs]).evaluate(["AP"], progress=False)
    bert = results[results["system"].str.startswith("bert")].groupby("topic")["value"].mean().mean()
    row = next(line for line in out.splitlines() if line.startswith("bert,"))
    assert float(row.split(",")[2]) == pytest.approx(bert)
    assert "bert_seed1" not in out


def test_compare_group_by_refuses_runs_that_are_neither_folds_nor_seeds(trec_campaign, capsys, tmp_path):
    qrels, runs = trec_campaign
    kept = [line for line in runs.read_text().splitlines() if not (line.startswith("q0 ") and "bert_seed2" in line)]
    (tmp_path / "holes").write_text("\n".join(kept) + "\n")
    assert main(["compare", "--gold", str(qrels), "--run", str(tmp_path / "holes"), "-m", "AP", "--missing", "skip",
                 "--group-by", r"(.*)_seed\d+", "--group-kind", "seeds", "-q"]) == 2
    assert "does not repeat every topic: system 'bert', topic 'q0'" in capsys.readouterr().err


def test_compare_report_tukey_marks_match_the_pairs():
    rows = [(s, t, "AP", v) for s, vs in {"base": [.2, .25, .22, .21, .2], "good": [.8, .82, .79, .81, .8],
                                          "same": [.21, .24, .2, .23, .22]}.items() for t, v in enumerate(vs)]
    frame = pd.DataFrame(rows, columns=["system", "topic", "measure", "value"])
    report = compare_report(frame, test="tukey", win_tie_loss=True)
    assert report.versus.loc["good", "AP"] == "better" and report.versus.loc["same", "AP"] == ""
    pairs = tukey_hsd(frame, "AP").set_index(["a", "b"])
    assert report.p_adjusted.loc["good", "AP"] == pytest.approx(pairs.loc[("base", "good"), "pvalue"])
    assert report.win_tie_loss.loc["good", "AP"] == "5/0/0"
    assert report.to_frame().set_index("system").loc["same", ["wins", "ties", "losses"]].tolist() == [3, 0, 2]
