"""Paths that are not paths (issue 31, class 5): every reader and writer takes a file name (str or os.PathLike,
bytes decoded as the file system does, '-' for standard input where documented), never an integer, which
open() takes as a file descriptor (read_trec_qrels(1) read, then closed, standard output), nor a bool, None or
anything else: ParameterTypeError (a WorkbenchError and a TypeError) before anything is opened."""

import os
import warnings

import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench import datasets
from workbench.data import read_campaign, read_trec_qrels, read_trec_run
from workbench.data.files import write_folder, write_whole
from workbench.data.read import read_gold, read_runs, sniff_format
from workbench.data.replab import read_replab, write_replab
from workbench.data.trec.eval_output import read_trec_eval_output, write_trec_eval_output
from workbench.data.trec.judgement_groups import read_judgement_groups
from workbench.data.trec.preferences import read_preferences
from workbench.data.trec.readers import read_trec_qrels_frame, read_trec_run_frame
from workbench.data.trec.writers import write_trec_qrels, write_trec_run
from workbench.data.trec.zscores import read_zscores
from workbench.data.weps import (
    read_weps_clustering,
    read_weps_discarded,
    read_weps_file,
    read_weps_runs,
    read_weps_topics,
    write_weps_clustering,
)
from workbench.errors import ParameterTypeError, WorkbenchError
from workbench.model import Organization
from workbench.reading.sources import file_path, head, read_buffer, with_stdin
from workbench.trec_eval import evaluate

GOLD = {"q1": Organization.parse("d1")}
CALLS = {
    "read_trec_qrels": read_trec_qrels, "read_trec_run": read_trec_run, "read_trec_qrels_frame": read_trec_qrels_frame,
    "read_trec_run_frame": read_trec_run_frame, "read_preferences": read_preferences,
    "read_judgement_groups": read_judgement_groups, "read_zscores": read_zscores,
    "read_trec_eval_output": read_trec_eval_output, "read_replab": read_replab, "read_weps_file": read_weps_file,
    "read_weps_topics": read_weps_topics, "read_weps_clustering": read_weps_clustering,
    "read_weps_discarded": read_weps_discarded, "read_weps_runs": read_weps_runs, "read_gold": read_gold,
    "sniff_format": sniff_format, "read_buffer": lambda p: read_buffer(p, WorkbenchError), "head": head,
    "read_runs": lambda p: read_runs([p]), "read_campaign gold": lambda p: read_campaign(p, ["run"]),
    "read_campaign run": lambda p: read_campaign("qrels", [p]), "read_campaign runs": lambda p: read_campaign("q", p),
    "with_stdin": lambda p: with_stdin([p]).__enter__(), "drop-in qrels": lambda p: evaluate(p, "run"),
    "drop-in run": lambda p: evaluate("qrels", p), "drop-in -Z": lambda p: evaluate("qrels", "run", (), zscores_path=p),
    "write_whole": lambda p: write_whole(p, b"x"), "write_folder": lambda p: write_folder(p, {"a": b"x"}),
    "write_trec_qrels": lambda p: write_trec_qrels(GOLD, p),
    "write_trec_run": lambda p: write_trec_run({"s": GOLD}, p), "write_replab": lambda p: write_replab(GOLD, p),
    "write_weps_clustering": lambda p: write_weps_clustering(p, GOLD),
    "fetch cache": lambda p: datasets.fetch("weps-2-reference", cache=p, progress=False),
    "write_trec_eval_output": lambda p: write_trec_eval_output(
        pd.DataFrame({"measure": ["map"], "topic": ["all"], "value": [0.5]}), p),
}
NOT_PATHS = st.one_of(st.integers(-3, 1 << 20), st.booleans(), st.floats(allow_nan=False), st.none(),
                      st.lists(st.integers(0, 9), min_size=1, max_size=2).map(tuple), st.just(object()))


def test_an_integer_is_never_opened_as_a_file_descriptor():
    """A pipe's descriptor given as a path: refused, and the pipe still open (it was closed before)."""
    read_end, write_end = os.pipe()
    os.write(write_end, b"1 0 d1 1\n")
    try:
        for name, call in CALLS.items():
            with pytest.raises(ParameterTypeError, match="file descriptor|list of file names") as caught:
                call(read_end)
            assert caught.value.parameter in ("path", "gold", "runs", "systems_dir", "folder", "paths", "qrels_path",
                                                  "run_path", "zscores_path", "cache"), name
            assert isinstance(caught.value, TypeError), name
            os.fstat(read_end)  # raises if the call closed it
        assert os.read(read_end, 100) == b"1 0 d1 1\n"  # nothing read from it either
    finally:
        os.close(read_end)
        os.close(write_end)


@settings(max_examples=200, deadline=None)
@given(value=NOT_PATHS, name=st.sampled_from(sorted(CALLS)))
def test_what_is_not_a_path_is_refused_before_anything_is_opened(value, name, tmp_path_factory):
    assume(not (value is None and name in ("drop-in -Z", "fetch cache")))  # None: no -Z, the default cache
    folder = tmp_path_factory.mktemp("paths")
    before = set(os.listdir(folder))
    cwd = os.getcwd()
    os.chdir(folder)  # a value read as a name would create or read a file here
    try:
        with warnings.catch_warnings(), pytest.raises(ParameterTypeError, match="must be a"):
            warnings.simplefilter("ignore")
            CALLS[name](value)
    finally:
        os.chdir(cwd)
    assert set(os.listdir(folder)) == before


def test_paths_are_str_pathlike_or_bytes(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"1 0 d1 1\n")
    assert file_path(qrels) is qrels and file_path(b"-") == "-" and file_path(str(qrels)) == str(qrels)
    assert list(read_trec_qrels(os.fsencode(qrels))) == list(read_trec_qrels(qrels)) == ["1"]
