"""The package as users meet it: subpackages on first use after a bare ``import workbench``."""

import subprocess
import sys

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
