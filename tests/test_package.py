"""The package as users meet it: subpackages on first use after a bare ``import workbench``; a wheel that carries
the papers' examples and runs the demo, the examples and the Workbench with no source tree."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import workbench
from workbench.extras import DISTRIBUTION, EXTRAS, MissingExtraError, needs_extra


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_bare_import_loads_neither_ipywidgets_nor_altair_nor_the_subpackages():
    loaded = _run("import sys, workbench\n"
                  "print(sorted(m for m in ('ipywidgets', 'altair', 'workbench.analysis', 'workbench.charts',"
                  " 'workbench.data', 'workbench.widgets') if m in sys.modules))")
    assert loaded.strip() == "[]"


def test_ranking_measures_by_name_need_no_pandas():
    # pandas costs about a second to import: a bare import and the ranking kernels called by measure name
    # (which loads every measure module through the registry) leave it unloaded.
    loaded = _run("import sys, workbench as wb\n"
                  "after_import = 'pandas' in sys.modules\n"
                  "from workbench.data import evaluate_run\n"
                  "scores = evaluate_run({'q': {'a': 1, 'b': 0}}, {'q': {'a': 1.0, 'b': 2.0}},"
                  " ['AP', 'nDCG@10', 'P@10', 'RR', 'Bpref'])\n"
                  "print(after_import, scores['AP']['q'], 'pandas' in sys.modules)")
    assert loaded.split() == ["False", "0.5", "False"]


def test_the_charts_import_altair_without_compiling_the_iri_grammars_and_the_iri_check_still_works():
    # Issue 41: jsonschema, which altair imports, compiled rfc3987_syntax's 38 IRI grammars (about 2 of altair's 3
    # CPU-seconds) for a format check no chart makes; the widgets and charts defer that module to its first use
    pytest.importorskip("rfc3987_syntax")
    out = _run("import sys\n"
               "from workbench.widgets import Comparison\n"
               "from workbench.charts import scores_chart\n"
               "import jsonschema\n"
               "print('lark' in sys.modules)\n"
               "check = jsonschema.FormatChecker()\n"
               "print(check.conforms('http://ä.example/a?b#c', 'iri'), check.conforms('no iri', 'iri'),"
               " check.conforms('../a', 'iri-reference'), 'lark' in sys.modules)\n"
               "import rfc3987_syntax\n"
               "print(type(rfc3987_syntax).__name__, rfc3987_syntax.RFC3987_SYNTAX_PARSER_TYPE)")
    assert out.split() == ["False", "True", "False", "True", "True", "module", "earley"]


def test_subpackages_load_on_first_attribute_access():
    out = _run("import workbench as wb\n"
               "print(wb.analysis.uir.__name__, wb.data.Campaign.__name__, wb.charts.means_chart.__name__,"
               " wb.widgets.Workbench.__name__, wb.datasets.load.__name__)\n"
               "print('analysis' in dir(wb), 'widgets' in dir(wb))")
    assert out.split() == ["uir", "Campaign", "means_chart", "Workbench", "load", "True", "True"]


def test_an_unknown_attribute_still_raises_attribute_error():
    import workbench

    with pytest.raises(AttributeError, match="has no attribute 'nonesuch'"):
        workbench.nonesuch  # noqa: B018
    assert not hasattr(workbench, "model_of_nothing")


ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "workbench", "datasets", "share")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CORE = {"numpy", "pandas", "pyarrow", "scipy", "tqdm"}
LAB_MODULES = ("altair", "anywidget", "ipywidgets", "jupyterlab", "jupyterlab_widgets", "vl_convert", "voila")


def _requirement_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group().lower()


# ------------------------------------------------------------------------------- name, version, extras
def test_the_distribution_is_ir_workbench_and_its_version_is_written_once():
    project = PYPROJECT["project"]
    assert project["name"] == DISTRIBUTION == "ir-workbench"
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "workbench._version.__version__"}
    written = [p.relative_to(ROOT).as_posix() for p in (ROOT / "workbench").rglob("*.py")
               if re.search(r"^__version__ = ", p.read_text(encoding="utf-8"), re.MULTILINE)]
    assert written == ["workbench/_version.py"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", workbench.__version__)
    assert f"\n## [{workbench.__version__}] - " in (ROOT / "CHANGELOG.md").read_text()


def test_python_m_workbench_version_prints_it():
    done = subprocess.run([sys.executable, "-m", "workbench", "--version"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"workbench {workbench.__version__}\n", "")


BLAS_WHEN_NUMPY_LOADS = """
import os, runpy, sys
seen = []
class Watch:  # what OPENBLAS_NUM_THREADS is when numpy is first imported (OpenBLAS reads it then)
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
sys.meta_path.insert(0, Watch())
sys.argv = ["workbench", "--version"]
module, _, name = os.environ["HOW"].partition(":")  # the console script: pip's wrapper calls this entry point
try:
    status = runpy.run_module("workbench", run_name="__main__") if not name else getattr(
        __import__(module, fromlist=[name]), name)()
except SystemExit as end:
    status = end.code
print(status, seen)
"""


@pytest.mark.parametrize("how", ["python -m", PYPROJECT["project"]["scripts"]["workbench"]])
@pytest.mark.parametrize(("given", "expected"), [(None, "['1']"), ("3", "['3']")])
def test_the_command_line_starts_no_blas_threads_unless_told(how, given, expected):
    """Issue 42: the command line, ``python -m workbench`` and the console script alike, imports numpy with
    OPENBLAS_NUM_THREADS=1 (no BLAS thread pool to start), a user's own setting kept."""
    env = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"} | {"HOW": how}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run([sys.executable, "-c", BLAS_WHEN_NUMPY_LOADS], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env)
    assert done.stdout.splitlines()[-1] == f"0 {expected}", done.stderr


def test_the_core_needs_five_packages_and_the_lab_extra_brings_the_rest():
    project = PYPROJECT["project"]
    assert {_requirement_name(r) for r in project["dependencies"]} == CORE
    extras = project["optional-dependencies"]
    lab = {_requirement_name(r) for r in extras["lab"]}
    assert {name.replace("-", "_").removesuffix("_python") for name in lab} == set(EXTRAS["lab"]) == set(LAB_MODULES)
    assert "ir-workbench[distributed,docs,lab]" in extras["dev"]  # ./wb test: everything
    assert {_requirement_name(r) for r in extras["docs"]} >= {"sphinx", "myst-nb"}  # ./wb docs


def test_install_lines_in_the_readme_name_the_distribution():
    readme = (ROOT / "README.md").read_text()
    lines = re.findall(r"pip install [^`\n]*", readme)
    assert lines and all("ir-workbench" in line or '".[' in line for line in lines), lines
    assert "pip install workbench" not in readme and '"workbench[' not in readme


def test_widgets_and_charts_without_the_lab_extra_name_it_and_the_core_still_works(tmp_path):
    """The lab packages hidden (an entry of None in sys.modules fails their import): a widget or a chart read
    from its package (imported without them) is a MissingExtraError naming the extra; the workbench without
    widgets, the measures and the shell run."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    run.write_text("q1 Q0 d2 1 2.0 r\nq1 Q0 d1 2 1.0 r\n")
    out = _run(f"""if True:
        import sys
        for name in {LAB_MODULES!r}:
            sys.modules[name] = None
        import workbench as wb
        from workbench.extras import MissingExtraError
        for load in (lambda: wb.charts.scores_chart, lambda: __import__("workbench.widgets").widgets.Workbench,
                     lambda: wb.widgets.Comparison):
            try:
                load()
            except MissingExtraError as error:
                print(isinstance(error, (ImportError, wb.WorkbenchError)), error)
        from workbench.widgets import WorkbenchState
        print(WorkbenchState.__name__, wb.evaluate(wb.Organization.parse("d1"), wb.Organization.parse("d1"), "AP"))
        from workbench.cli import main
        main(["eval", "--gold", {str(qrels)!r}, "--run", {str(run)!r}, "-m", "AP", "--format", "csv"])""")
    lines = out.splitlines()
    assert lines[:3] == [f'True workbench.{what} needs {needs}, which the \'lab\' extra installs: '
                         f'pip install "ir-workbench[lab]"' for what, needs in (
                             ("charts.scores_chart", "altair"), ("widgets.Workbench", "ipywidgets"),  # altair: drawn
                             ("widgets.Comparison", "ipywidgets"))], out  # altair: its chart, drawn
    assert lines[3:] == ["WorkbenchState {'AP': 1.0}", "system,topic,measure,value", "r,all,AP,0.5"]


def test_an_import_error_of_another_package_passes_unchanged():
    with pytest.raises(ModuleNotFoundError, match="no_such_module") as caught, needs_extra("lab", "x"):
        import no_such_module  # noqa: F401
    assert not isinstance(caught.value, MissingExtraError)


# ----------------------------------------------------------------------------------------------- wheel
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``pip wheel`` builds from a copy of the repository (no build isolation, so no network: the dev
    extra carries setuptools)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in SOURCES:
        if not (ROOT / name).exists():
            continue
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v",
                            "-w", str(base / "dist"), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    # setuptools warns about data folders missing from `packages` ("Package would be ignored"): setup.py declares them
    assert "would be ignored" not in built.stdout + built.stderr, built.stdout + built.stderr
    [wheel] = (base / "dist").glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def unpacked_wheel(wheel, tmp_path_factory) -> Path:
    """The wheel unpacked into a folder of its own."""
    site = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_the_wheel_is_ir_workbench_at_the_version_with_its_extras(wheel, unpacked_wheel):
    assert wheel.name == f"ir_workbench-{workbench.__version__}-py3-none-any.whl"
    [metadata] = unpacked_wheel.glob("ir_workbench-*.dist-info/METADATA")
    fields = [line.split(": ", 1) for line in metadata.read_text().split("\n\n")[0].splitlines() if ": " in line]
    assert ["Name", "ir-workbench"] in fields and ["Version", workbench.__version__] in fields
    requires = [value for key, value in fields if key == "Requires-Dist"]
    assert {_requirement_name(r) for r in requires if "extra ==" not in r} == CORE
    assert {_requirement_name(r) for r in requires if "extra == \"lab\"" in r} >= {"altair", "ipywidgets", "jupyterlab"}


def _run_installed(site: Path, cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_carries_every_module_py_typed_and_the_papers_examples(unpacked_wheel):
    packaged = {p.relative_to(unpacked_wheel).as_posix() for p in unpacked_wheel.rglob("*") if p.is_file()}
    assert "workbench/py.typed" in packaged  # PEP 561: type checkers read the package's annotations
    modules = {p.relative_to(ROOT).as_posix() for suffix in ("py", "js", "css")
               for p in (ROOT / "workbench").rglob(f"*.{suffix}")}  # the widgets' front ends beside their modules
    assert modules <= packaged
    examples = {f"workbench/examples/{p.name}" for p in (ROOT / "datasets").iterdir() if p.is_file()}
    assert examples <= packaged and "workbench/examples/seed000-table9.org" in examples
    assert not (ROOT / "workbench" / "examples").exists()  # datasets/ stays the one place they are edited
    shipped = {p.relative_to(ROOT).as_posix() for p in (ROOT / "workbench" / "data").rglob("*")
               if p.is_file() and (p.suffix in (".tsv", ".eval", ".md", ".txt", ".gz")
                                   or "_excerpt/" in p.as_posix())}  # the manifest, shipped files
    assert shipped <= packaged
    assert "workbench/data/references/weps2/reference_scores/ALL_IN_ONE_BASELINE.eval" in shipped
    assert "workbench/data/references/trec_robust2003_excerpt/runs/input.aplrob03a.gz" in shipped  # the lessons'
    assert "workbench/data/references/trec_robust2003_excerpt/LICENSE-trectools.txt" in shipped  # offline excerpt
    assert "workbench/data/references/trec_eval_test_excerpt/qrels.rel_level" in shipped  # notebook 04's, offline
    assert "workbench/data/references/replab2013_topic_detection_excerpt/system-outputs/best_replab.gz" in shipped


def test_the_demo_the_examples_and_the_workbench_run_from_the_wheel_alone(unpacked_wheel, tmp_path):
    demo = _run_installed(unpacked_wheel, tmp_path, "-m", "workbench", "demo")
    assert "System Output 5   0.6386 (0.64)" in demo
    # the errata it marks are cited where the installed package keeps them, not in the repository's datasets/
    assert str(unpacked_wheel / "workbench" / "examples" / "seed000-table9.org") in demo and str(ROOT) not in demo
    out = _run_installed(unpacked_wheel, tmp_path, "-c", """if True:
        import workbench, workbench.datasets as d
        from workbench.widgets import Workbench
        print(workbench.__file__)
        print(d.folder())
        print(d.load("seed000-table9").params)
        print(type(Workbench()).__name__)""")
    where, folder, params, widget = out.splitlines()
    assert where.startswith(str(unpacked_wheel)) and folder == str(unpacked_wheel / "workbench" / "examples")
    assert params == "{'n': 10, 'wn': 0.8}" and widget == "Workbench"


# ------------------------------------------------------------------------------- a clean environment
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 1\n"
RUN = "q1 Q0 d2 1 3.0 mine\nq1 Q0 d1 2 2.0 mine\nq1 Q0 d3 3 1.0 mine\nq2 Q0 d4 1 1.0 mine\n"
# By hand: q1's relevant d1 and d3 at ranks 2 and 3 give AP (1/2 + 2/3) / 2 = 7/12, q2's AP is 1; P@2 is 1/2 on both.
MEAN_AP = (7 / 12 + 1) / 2


def _in_venv(venv: Path, cwd: Path, *args: str, timeout: float = 300) -> str:
    """A command of the clean environment, which sees neither this checkout nor the test's PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")
           and not k.startswith("WORKBENCH_")}
    done = subprocess.run([str(venv / "bin" / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_core_installs_alone_in_a_clean_venv_and_the_lab_extra_adds_the_widgets(wheel, tmp_path):
    """``python -m venv`` and pip from the package registry: the wheel alone brings the five core packages (and
    theirs), ``eval`` and ``trec_eval`` score a small campaign, a widget names the missing extra; then
    ``[lab]`` installs, and the widgets and charts import."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    _in_venv(venv, tmp_path, "python", "-m", "pip", "install", "-q", str(wheel), timeout=900)
    installed = {line.split("==")[0].lower() for line in
                 _in_venv(venv, tmp_path, "python", "-m", "pip", "freeze", "--all").split()}
    assert CORE | {"ir-workbench"} <= installed
    assert not installed & {"altair", "anywidget", "ipywidgets", "jupyterlab", "vl-convert-python", "voila",
                            "ipykernel", "notebook"}, installed
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    assert _in_venv(venv, tmp_path, "python", "-m", "workbench", "--version") == \
        f"workbench {workbench.__version__}\n"
    scores = _in_venv(venv, tmp_path, "workbench", "eval", "--gold", "qrels", "--run", "run", "-m", "AP", "P@2",
                      "--format", "csv")
    header, ap, p2 = (line.split(",") for line in scores.splitlines())
    assert header == ["system", "topic", "measure", "value"] and p2 == ["mine", "all", "P@2", "0.5"]
    assert ap[:3] == ["mine", "all", "AP"] and float(ap[3]) == pytest.approx(MEAN_AP, abs=1e-12)
    printed = _in_venv(venv, tmp_path, "python", "-m", "workbench", "trec_eval", "-m", "map", "-m", "P.2",
                       "qrels", "run")
    assert printed == f"map                   \tall\t{MEAN_AP:.4f}\nP_2                   \tall\t0.5000\n"
    where, missing = _in_venv(venv, tmp_path, "python", "-c", """if True:
        import workbench
        from workbench.extras import MissingExtraError
        print(workbench.__file__)
        try:
            from workbench.widgets import Workbench
        except MissingExtraError as error:
            print(error)""").splitlines()
    assert where.startswith(str(venv)), where
    assert missing.endswith('which the \'lab\' extra installs: pip install "ir-workbench[lab]"'), missing

    _in_venv(venv, tmp_path, "python", "-m", "pip", "install", "-q", f"{wheel}[lab]", timeout=1800)
    widgets = _in_venv(venv, tmp_path, "python", "-c", """if True:
        import workbench.charts
        from workbench.widgets import Comparison, Workbench
        bench = Workbench()
        print(type(bench).__name__, len(bench.state.scores) > 0, Comparison.__name__,
              workbench.charts.scores_chart.__name__)""")
    assert widgets == "Workbench True Comparison scores_chart\n", widgets
