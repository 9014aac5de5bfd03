"""One family of errors (issue 14): each bad input a new user tried is answered with a WorkbenchError that says
what was seen and where (file:line, line:column, topic or parameter), and the command line turns every one
into a single line on stderr and exit status 2. Any other exception is a bug: the CLI lets it through."""

from __future__ import annotations

import gzip
import math
import warnings
from pathlib import Path

import pandas as pd
import pytest

import workbench
from workbench import Organization, OrganizationError, ParameterError, WorkbenchError, reliability_sensitivity
from workbench.analysis import f_alpha_curves, significance
from workbench.analysis.constraints import check_constraints
from workbench.analysis.strictness import rank_gap_strictness, top_n_strictness
from workbench.cli import main
from workbench.data import Campaign, evaluate_files
from workbench.data.campaign import MeasureKindWarning, MissingTopicsWarning
from workbench.data.replab import ReplabEncodingError, ReplabFormatError, read_replab
from workbench.data.trec import TrecEncodingError, TrecFormatError, read_trec_qrels, read_trec_run
from workbench.data.weps import WepsFormatError, read_weps_clustering
from workbench.errors import WorkbenchDeprecationWarning
from workbench.metrics.combine import f_alpha
from workbench.reading.text import ReadingWarning

GOLD, OUTPUT = Organization.parse("d1\nd2"), Organization.parse("d2\nd1")
RESULTS = pd.DataFrame({"system": ["A", "A", "B", "B"], "topic": ["q1", "q2", "q1", "q2"],
                        "measure": ["AP"] * 4, "value": [0.5, 1.0, 1.0, 0.25]})

FILES = {
    "qrels": b"q1 0 d1 1\nq1 0 d2 0\n",
    "run": b"q1 Q0 d1 1 2.0 sysA\nq1 Q0 d2 2 1.0 sysA\n",
    "latin1.qrels": "q1 0 café 1\n".encode("latin-1"),
    "header.tsv": b'"entity_id"\t"tweet_id"\t"topic"\n',
    "gold.tsv": b'"entity_id"\t"tweet_id"\t"topic"\n"E1"\t"t1"\t"A"\n"E1"\t"t2"\t"B"\n',
    "latin1.tsv": '"entity_id"\t"tweet_id"\t"topic"\n"E1"\t"t1"\t"Coupé"\n'.encode("latin-1"),
    "bogus.xml": b'<?xml version="1.0" encoding="bogus-enc"?>\n<clustering><entity id="0"><doc rank="1"/>'
                 b"</entity></clustering>\n",
    "sjis.xml": b'<?xml version="1.0" encoding="shift_jis"?>\n<clustering/>\n',
    "weps.xml": b'<?xml version="1.0" encoding="utf-8"?>\n<clustering name="A"><entity id="0"><doc rank="1"/>'
                b'<doc rank="2"/></entity></clustering>\n',
    "binary": bytes(range(256)) * 4,
    "noise": bytes(range(14, 256)) * 4,  # no line break: one long line
    "empty": b"",
    "broken.gz": gzip.compress(b"q1 0 d1 1\n" * 50)[:30],
}


@pytest.fixture
def files(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "gold.tsv.gz").write_bytes(gzip.compress(FILES["gold.tsv"]))
    (tmp_path / "replab-gzipped").write_bytes(gzip.compress(FILES["gold.tsv"]))
    (tmp_path / "weps.xml.gz").write_bytes(gzip.compress(FILES["weps.xml"]))
    return tmp_path


# ------------------------------------------------------------------------------------------------ the API
API_CASES = [
    # (what, call, named error, where it says it is)
    ("n out of its domain", lambda f: reliability_sensitivity(GOLD, OUTPUT, n=-1, wn=0.8), ParameterError, "n"),
    ("n infinite", lambda f: reliability_sensitivity(GOLD, OUTPUT, n=math.inf, wn=0.8), ParameterError, "n"),
    ("wn out of its domain", lambda f: reliability_sensitivity(GOLD, OUTPUT, n=10, wn=1.5), ParameterError, "wn"),
    ("wn without n", lambda f: reliability_sensitivity(GOLD, OUTPUT, wn=0.8), ParameterError, "n"),
    ("unknown missing policy", lambda f: reliability_sensitivity(GOLD, OUTPUT, n=10, wn=0.8, missing="drop"),
     ParameterError, "missing"),
    ("output not an Organization", lambda f: reliability_sensitivity(GOLD, "d1", n=10, wn=0.8), ParameterError,
     "output"),
    ("F alpha outside [0, 1]", lambda f: f_alpha(0.5, 0.5, -1), ParameterError, "alpha"),
    ("F alpha NaN", lambda f: f_alpha(0.5, 0.5, math.nan), ParameterError, "alpha"),
    ("significance alpha", lambda f: significance(RESULTS, ["AP"], alpha=5), ParameterError, "alpha"),
    ("F-alpha curves alphas", lambda f: f_alpha_curves(RESULTS.assign(measure=["P", "R"] * 2), "P", "R",
                                                        alphas=["x"]), ParameterError, "alphas"),
    ("significance resamples", lambda f: significance(RESULTS, ["AP"], n_resamples=0), ParameterError,
     "n_resamples"),
    ("strictness top", lambda f: rank_gap_strictness(RESULTS, top=0), ParameterError, "top"),
    ("strictness percents", lambda f: top_n_strictness(RESULTS, percents=["x"]), ParameterError, "percents"),
    ("unknown constraint", lambda f: check_constraints("AP", ["homogenity"]), ParameterError, "constraints"),
    ("tie policy", lambda f: read_trec_run(f / "run", ties="random"), ParameterError, "ties"),
    ("NaN level grade", lambda f: Organization(((frozenset({"a"}),),), grades=(math.nan,)), ParameterError,
     "grades"),
    ("NaN grade in the notation", lambda f: Organization.parse("[1] a\n[nan] b"), OrganizationError,
     "line 2, column 2"),
    ("unclosed quoted id", lambda f: Organization.parse('a "b c'), OrganizationError, "line 1, column 3"),
    ("no ids for a ranking", lambda f: Organization.from_ranking(None), ParameterError, "ids"),
    ("a string for the levels", lambda f: Organization("d1 d2"), ParameterError, "levels"),
    ("WePS unknown encoding", lambda f: read_weps_clustering(f / "bogus.xml"), WepsFormatError, "bogus.xml, line 1"),
    ("WePS multi-byte encoding", lambda f: read_weps_clustering(f / "sjis.xml"), WepsFormatError, "sjis.xml, line 1"),
    ("WePS binary", lambda f: read_weps_clustering(f / "binary"), WepsFormatError, "binary, line 1"),
    ("RepLab Latin-1 read as UTF-8", lambda f: read_replab(f / "latin1.tsv"), ReplabEncodingError,
     "latin1.tsv, line 2"),
    ("RepLab unknown encoding", lambda f: read_replab(f / "gold.tsv", encoding="bogus"), ParameterError,
     "encoding"),
    ("RepLab a codec that fails otherwise", lambda f: read_replab(f / "latin1.tsv", encoding="idna"),
     ReplabEncodingError, "latin1.tsv"),
    ("RepLab empty", lambda f: read_replab(f / "empty"), ReplabFormatError, "empty"),
    ("TREC read in an encoding its bytes are not", lambda f: read_trec_qrels(f / "latin1.qrels", encoding="utf-32"),
     TrecEncodingError, "latin1.qrels, line 1"),
    ("TREC broken gzip", lambda f: read_trec_qrels(f / "broken.gz"), TrecFormatError, "broken.gz"),
    ("TREC binary", lambda f: read_trec_qrels(f / "binary"), TrecFormatError, "binary, line 1"),
    ("TREC empty", lambda f: read_trec_qrels(f / "empty"), TrecFormatError, "empty"),
    ("TREC absent", lambda f: read_trec_qrels(f / "absent"), TrecFormatError, "absent: cannot read"),
]


@pytest.mark.parametrize(("call", "error", "where"), [case[1:] for case in API_CASES],
                         ids=[case[0] for case in API_CASES])
def test_bad_input_raises_a_located_workbench_error(files, call, error, where):
    with pytest.raises(error) as caught:
        call(files)
    assert isinstance(caught.value, WorkbenchError) and isinstance(caught.value, ValueError)
    if isinstance(caught.value, ParameterError):
        assert caught.value.parameter == where and where in str(caught.value)
    else:
        assert where in str(caught.value)
    assert len(str(caught.value)) < 400 and "\n" not in str(caught.value)


def test_messages_quote_a_short_escaped_excerpt_of_the_bytes(files):
    with pytest.raises(TrecFormatError) as caught:
        read_trec_qrels(files / "noise")
    message = str(caught.value).removeprefix(str(files / "noise"))
    assert "…" in message and "\\x" in message and len(message) < 200


# ------------------------------------------------------------------------------------------ the command line
CLI_CASES = [
    # (what, arguments with {f} the folder of FILES, what the one line says)
    ("WePS unknown encoding", "--gold {f}/bogus.xml --run {f}/weps.xml -m Purity", "bogus.xml, line 1: cannot read the "
     "encoding 'bogus-enc'"),
    ("WePS multi-byte encoding", "--gold {f}/sjis.xml --run {f}/weps.xml -m Purity", "sjis.xml, line 1"),
    ("header-only RepLab gold", "--gold {f}/header.tsv --run {f}/gold.tsv -m Purity", "header.tsv: holds no topic"),
    ("header-only RepLab run", "--gold {f}/gold.tsv --run {f}/header.tsv -m Purity", "header.tsv: holds no topic"),
    ("TREC in an encoding its bytes are not", "--gold {f}/latin1.qrels --gold-encoding utf-32 --run {f}/run -m AP",
     "--gold-encoding latin-1 or --run-encoding latin-1, or --encoding"),
    ("RepLab Latin-1 run as UTF-8", "--gold {f}/gold.tsv --run {f}/latin1.tsv -m Purity", "--run-encoding latin-1"),
    ("unknown encoding", "--gold {f}/qrels --encoding bogus --run {f}/run -m AP",
     "read_campaign: encoding must be an encoding Python knows (utf-8, latin-1, utf-16, ...), got 'bogus'"),
    ("binary gold", "--gold {f}/binary --run {f}/run -m AP", "binary, line 1, column 1: binary data (a NUL byte)"),
    ("empty gold", "--gold {f}/empty --run {f}/run -m AP", "empty: empty file"),
    ("broken gzip", "--gold {f}/broken.gz --run {f}/run -m AP", "broken.gz: broken gzip data"),
    ("a directory as RepLab", "--gold {f} --gold-format replab --run {f}/run -m AP", "cannot read the file"),
    ("absent file, format given", "--gold {f}/absent --gold-format trec --run {f}/run -m AP", "absent: cannot read"),
    ("out-of-domain engine parameter", "--gold {f}/qrels --run {f}/run -m R≺(n=-1,wn=0.8)",
     "parameter n must be in [1, 1e+06]"),
    ("unknown measure", "--gold {f}/qrels --run {f}/run -m APP", "unknown measure 'APP'"),
]


@pytest.mark.parametrize(("args", "message"), [case[1:] for case in CLI_CASES], ids=[case[0] for case in CLI_CASES])
def test_the_command_line_says_it_in_one_line_and_exits_2(files, capsys, args, message):
    assert main(["eval", *args.format(f=files).split(), "-q"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("workbench: error: ") and captured.err.count("\n") == 1
    assert message in captured.err, captured.err


def test_gzipped_files_of_each_format_read_as_their_content(files, capsys):
    for gold, run, measure in (("gold.tsv.gz", "gold.tsv", "Purity"), ("replab-gzipped", "gold.tsv", "Purity"),
                               ("weps.xml.gz", "weps.xml", "Purity")):
        assert main(["eval", "--gold", str(files / gold), "--run", str(files / run), "-m", measure, "-q",
                     "--format", "csv"]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.splitlines()[1].endswith(",all,Purity,1.0")
    assert read_replab(files / "replab-gzipped") == read_replab(files / "gold.tsv")
    assert read_weps_clustering(files / "weps.xml.gz") == {"weps": Organization.parse("{1 2}\nrest:")}


def test_encoding_reads_latin1_trec_files(files, capsys):
    assert main(["eval", "--gold", str(files / "latin1.qrels"), "--encoding", "latin-1", "--run",
                 str(files / "run"), "-m", "AP", "-q"]) == 0
    assert "AP" in capsys.readouterr().out


def test_any_other_exception_is_a_bug_the_command_line_lets_through(files, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr("workbench.data.read.read_campaign", broken)
    with pytest.raises(KeyError, match="a bug"):
        main(["eval", "--gold", str(files / "qrels"), "--run", str(files / "run"), "-m", "AP", "-q"])


def test_every_named_error_belongs_to_one_family():
    """Issue 29 item 4: the error classes fold into families a caller catches by meaning (a bad parameter,
    unreadable input, an inconsistent campaign, output that cannot be written, a missing extra); each named error
    of every module is in exactly one of them."""
    import importlib
    import inspect
    import pkgutil

    import workbench
    from workbench.errors import WorkbenchError, families

    found = {}
    for info in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, WorkbenchError) and cls.__module__.startswith("workbench."):
                found[cls.__qualname__] = cls
    assert len(found) > 40
    strays = {name: [f.__name__ for f in families() if issubclass(cls, f)] for name, cls in found.items()
              if cls is not WorkbenchError and sum(issubclass(cls, f) for f in families()) != 1}
    assert not strays, strays


def test_in_ipython_an_error_of_the_family_is_one_short_message_and_tb_shows_the_traceback(capsys, tmp_path,
                                                                                             monkeypatch):
    """Issue 41: a failed fetch in a notebook printed a 67-line traceback. In IPython (Jupyter's kernel) an error of
    the family shows as its name and message and one line saying how to see more; ``%tb`` then prints the frames.
    Any other exception keeps IPython's own traceback."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path))
    shell = InteractiveShell.instance()
    try:
        shell.run_cell("from workbench import datasets\ndatasets.fetch('trec-robust-2003')")
        short = capsys.readouterr().out.strip().splitlines()
        assert short == ["DownloadError: trec-robust-2003: not in the cache, and WORKBENCH_OFFLINE forbids "
                         "downloading https://raw.githubusercontent.com/joaopalotti/trectools/8a896def007e3d657eb29f8"
                         "20ee3de98e2f32691/examples/robust03/qrel/robust03_qrels.txt and 5 more",
                         "(%tb shows the traceback)"]
        shell.run_line_magic("tb", "")
        full = capsys.readouterr().out
        assert "Traceback (most recent call last)" in full and "samples.py" in full and full.count("\n") > 5
        shell.run_cell("1 / 0")
        assert "ZeroDivisionError" in capsys.readouterr().out  # IPython's own rendering, untouched
    finally:
        InteractiveShell.clear_instance()


# ------------------------------------------------------------------------------------------------ warnings
def test_the_package_warns_only_through_the_one_helper():
    """Every warning goes through ``workbench.errors.warn``, which names the user's line; a hand-counted
    ``stacklevel`` goes stale when a wrapper is added (Campaign.evaluate's notes named campaign.py's own line)."""
    root = Path(workbench.__file__).parent
    direct = [f"{path.relative_to(root)}:{number}" for path in sorted(root.rglob("*.py"))
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
              if "warnings.warn(" in line and path != root / "errors.py"]
    assert direct == []


WARNING_CASES = [
    # (what, call, warning): each warning arises several frames deep in the package
    ("a run lacks a gold topic", lambda f: Campaign.from_dicts({"q1": {"d1": 1}, "q2": {"d1": 1}},
                                                               {"A": {"q1": {"d1": 1.0}}}).evaluate("AP"),
     MissingTopicsWarning),
    ("a measure of another task", lambda f: Campaign.from_dicts({"q1": {"d1": 1}}, {"A": {"q1": {"d1": 1.0}}})
     .evaluate(["AP", "Purity"]), MeasureKindWarning),
    ("a streamed campaign's notes", lambda f: evaluate_files(f / "qrels", [f / "run"], ["AP", "Purity"]),
     MeasureKindWarning),
    ("a file read with CR line ends", lambda f: read_trec_run(f / "cr.run"), ReadingWarning),
    ("a deprecated method", lambda f: Campaign.from_dicts({"q1": {"d1": 1}}, {"A": {"q1": {"d1": 1.0}}})
     .score("AP"), WorkbenchDeprecationWarning),
]


@pytest.mark.parametrize(("what", "call", "category"), WARNING_CASES, ids=[c[0] for c in WARNING_CASES])
def test_a_warning_names_the_callers_line_not_the_packages(files, what, call, category):
    (files / "cr.run").write_bytes(FILES["run"].replace(b"\n", b"\r"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call(files)
    ours = [w for w in caught if issubclass(w.category, category)]
    assert ours and all(w.filename == __file__ for w in ours), [(w.category, w.filename, w.lineno) for w in caught]
