"""Small edges of output (issue 31, class 10): files and folders are written with the user's umask, as other tools
write them (temporary files renamed into place kept their 0600, folders 0700), a file written over keeps its
permissions; names of systems and measures show as text in Markdown and HTML (a tag, a link or emphasis in a name
was rendered); CSV and JSON print every value as the shortest decimal that reads back as the same double (the rule,
stated in --help)."""

import json
import os
import stat
from contextlib import contextmanager

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import reference_module
from workbench import datasets
from workbench.analysis import compare_report
from workbench.cli import build_parser, render, table_of
from workbench.data.files import write_folder, write_whole
from workbench.data.replab import write_replab
from workbench.data.trec.eval_output import write_trec_eval_output
from workbench.data.trec.writers import write_trec_qrels, write_trec_run
from workbench.data.weps import read_weps_topics, write_weps_clustering, write_weps_topic
from workbench.escape import markdown_escape
from workbench.model import Organization

GOLD = {"q1": Organization.parse("d1 d2\nrest: d3")}


@contextmanager
def umask(mask: int):
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


WRITERS = {
    "write_whole": lambda p: write_whole(p, b"x"),
    "write_trec_qrels": lambda p: write_trec_qrels(GOLD, p),
    "write_trec_run": lambda p: write_trec_run({"s": GOLD}, p),
    "write_replab": lambda p: write_replab({"e": Organization.from_filtering(["d1"], ["d2"])}, p, label="filtering"),
    "write_weps_clustering file": lambda p: write_weps_clustering(p, GOLD["q1"], topic="q1"),
    "write_trec_eval_output": lambda p: write_trec_eval_output(
        pd.DataFrame({"measure": ["map"], "topic": ["all"], "value": [0.5]}), p),
}


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002])
def test_files_and_folders_get_the_umask_as_other_tools_give_it(mask, tmp_path):
    with umask(mask):
        for name, write in WRITERS.items():
            path = tmp_path / name.replace(" ", "-")
            write(path)
            assert _mode(path) == 0o666 & ~mask, name
        write_folder(tmp_path / "folder", {"a": b"x"})
        write_weps_clustering(tmp_path / "weps", GOLD)
        for folder in (tmp_path / "folder", tmp_path / "weps"):
            assert _mode(folder) == 0o777 & ~mask
            assert {_mode(p) for p in folder.iterdir()} == {0o666 & ~mask}
        topic = next(iter(read_weps_topics(tmp_path / "weps").values()))
        assert _mode(write_weps_topic(tmp_path / "topic.xml", topic)) == 0o666 & ~mask


def test_a_file_written_over_keeps_its_permissions(tmp_path):
    with umask(0o022):
        path = tmp_path / "qrels"
        write_trec_qrels(GOLD, path)
        path.chmod(0o640)
        write_trec_qrels(GOLD, path)
        assert _mode(path) == 0o640
        write_folder(tmp_path / "folder", {"a": b"x"})
        (tmp_path / "folder" / "a").chmod(0o600)
        write_folder(tmp_path / "folder", {"a": b"y", "b": b"z"})
        assert (_mode(tmp_path / "folder" / "a"), _mode(tmp_path / "folder" / "b")) == (0o600, 0o644)


def test_fetched_samples_get_the_umask(tmp_path):
    with umask(0o022):
        folder = datasets.fetch("weps-2-reference", cache=tmp_path / "cache", progress=False)  # shipped: no network
    assert {_mode(p) for p in folder.rglob("*") if p.is_file()} == {0o644}


# ------------------------------------------------------------------------------------- Markdown and HTML
markdown_it = reference_module("markdown_it")
bs4 = reference_module("bs4")
RENDERER = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")
MARKUP = ("a", "em", "strong", "code", "img", "s", "del", "script", "b", "i", "br")
NAMES = st.lists(st.sampled_from([*"ab <>/[]()*_`~|\\&#!:;=\"'\n", "<b>", "&amp;", "**", "](x)", "www.x.org"]),
                 min_size=1, max_size=10).map("".join).map(str.strip).filter(bool)


def _shown(markdown: str):
    """The HTML a CommonMark + GitHub tables renderer makes of ``markdown``, parsed."""
    return bs4.BeautifulSoup(RENDERER.render(markdown), "html.parser")


def _plain(name: str) -> str:
    return " ".join(" ".join(line.split()) for line in name.splitlines() if line.strip())


@settings(max_examples=300, deadline=None)
@given(system=NAMES, measure=NAMES)
def test_names_show_as_text_in_every_markdown_table(system, measure):
    """A system or measure name in eval's and compare's Markdown shows as the text typed: no tag, link,
    emphasis, code or strikethrough of its own, and the cell's text is the name."""
    table = table_of(pd.DataFrame([(system, "all", measure, 0.25)], columns=["system", "topic", "measure", "value"]))
    soup = _shown(render(table, "markdown"))
    assert not soup.find_all([tag for tag in MARKUP if tag != "br"]), soup
    cells = [" ".join(cell.get_text(" ").split()) for cell in soup.find_all(["th", "td"])]
    assert cells == ["system", _plain(measure), _plain(system), "0.2500"]


@settings(max_examples=100, deadline=None)
@given(system=NAMES)
def test_names_show_as_text_in_the_comparison_report(system):
    results = pd.DataFrame({"system": [system] * 3 + ["other"] * 3, "topic": ["1", "2", "3"] * 2,
                            "measure": "AP", "value": [0.1, 0.2, 0.3, 0.3, 0.45, 0.5]})
    report = compare_report(results, baseline=system)
    soup = _shown(report.to_markdown())
    assert not soup.find_all([tag for tag in MARKUP if tag not in ("br", "strong")]), soup  # bold: the best
    assert " ".join(soup.find("td").get_text(" ").split()) == f"{_plain(system)} (baseline)"
    html = bs4.BeautifulSoup(report._repr_html_(), "html.parser")
    assert not html.find_all([tag for tag in MARKUP if tag != "br"]), html
    assert system in html.get_text() and report.footnote in html.find("caption").get_text()


def test_the_example_of_the_audit():
    assert markdown_escape("<img src=x onerror=alert(1)>[click](http://evil)") == \
        "\\<img src=x onerror=alert(1)>\\[click\\](http://evil)"


# ---------------------------------------------------------------------------------------------- numbers
@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), min_size=1, max_size=8))
def test_csv_and_json_print_the_shortest_decimal_that_reads_back(values):
    table = table_of(pd.DataFrame([("s", str(i), "AP", v) for i, v in enumerate(values)],
                                  columns=["system", "topic", "measure", "value"]))
    csv_cells = [line.split(",")[3] for line in render(table, "csv").splitlines()[1:]]
    json_cells = [line.split('"value": ')[1].rstrip("}") for line in render(table, "jsonl").splitlines()]
    assert csv_cells == json_cells == [repr(v) for v in values]
    assert [float(c) for c in csv_cells] == values
    assert [row["value"] for row in map(json.loads, render(table, "jsonl").splitlines())] == values


def test_the_rule_is_said_in_help():
    help_text = " ".join(build_parser()._subparsers._group_actions[0].choices["eval"].format_help().split())
    assert "shortest decimal that reads back as the same double" in help_text
