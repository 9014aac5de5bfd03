"""The package as users meet it: subpackages on first use after a bare ``import workbench``; a wheel that carries
the papers' examples and runs the demo, the examples and the Workbench with no source tree."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest


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


@pytest.fixture(scope="module")
def unpacked_wheel(tmp_path_factory):
    """The wheel ``pip wheel`` builds from a copy of the repository, unpacked into a folder of its own (no build
    isolation, so no network: the dev extra carries setuptools)."""
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
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(base / "dist"), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (base / "dist").glob("workbench-*.whl")
    site = base / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def _run_installed(site: Path, cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env["PYTHONPATH"] = str(site)
    done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
def test_the_wheel_carries_every_module_and_the_papers_examples(unpacked_wheel):
    packaged = {p.relative_to(unpacked_wheel).as_posix() for p in unpacked_wheel.rglob("*") if p.is_file()}
    modules = {p.relative_to(ROOT).as_posix() for suffix in ("py", "js", "css")
               for p in (ROOT / "workbench").rglob(f"*.{suffix}")}  # the widgets' front ends beside their modules
    assert modules <= packaged
    examples = {f"workbench/examples/{p.name}" for p in (ROOT / "datasets").iterdir() if p.is_file()}
    assert examples <= packaged and "workbench/examples/seed000-table9.org" in examples
    assert not (ROOT / "workbench" / "examples").exists()  # datasets/ stays the one place they are edited


@pytest.mark.slow
def test_the_demo_the_examples_and_the_workbench_run_from_the_wheel_alone(unpacked_wheel, tmp_path):
    demo = _run_installed(unpacked_wheel, tmp_path, "-m", "workbench", "demo")
    assert "System Output 5   0.6386 (0.64)" in demo
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
