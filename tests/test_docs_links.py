"""The documentation build's link check (issue 41): every link and anchor inside the site resolves, none points at
a file path, and viewcode's back-links to re-exported objects are pointed at the entry the page has. Checked here
on a small site; ``./wb docs`` runs it on the real one (a broken link is a warning, an error under ``-W``)."""

from __future__ import annotations

import importlib.util
import types

from tests.conftest import ROOT


def _conf():
    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_broken_links_and_anchors_are_reported_and_viewcode_back_links_mended(tmp_path, monkeypatch):
    conf = _conf()
    (tmp_path / "_modules" / "pkg").mkdir(parents=True)
    (tmp_path / "_static").mkdir()
    (tmp_path / "api.html").write_text('<dt id="pkg.core.Thing"></dt><a href="#pkg.core.Thing">ok</a>'
                                       '<a href="guide.html#nowhere">no anchor</a><a href="file:12">a file</a>'
                                       '<a href="missing.html">no page</a><a href="https://example.org/#x">out</a>')
    (tmp_path / "guide.html").write_text('<h1 id="top"></h1><a href="api.html#pkg.core.Thing?">q</a>'
                                         '<img src="_static/logo.png">')
    (tmp_path / "_static" / "macros.html").write_text('<a href="{{ pathto(x) }}">template</a>')  # not a page
    (tmp_path / "_modules" / "pkg" / "core.html").write_text(
        '<a class="viewcode-back" href="../../api.html#pkg.Thing">[docs]</a>')
    warnings = []
    monkeypatch.setattr("sphinx.util.logging.getLogger",
                        lambda name: types.SimpleNamespace(warning=warnings.append))
    app = types.SimpleNamespace(outdir=str(tmp_path), builder=types.SimpleNamespace(format="html"))
    conf._check_links(app, None)
    assert sorted(warnings) == ["broken link api.html: file:12", "broken link api.html: guide.html#nowhere",
                                "broken link api.html: missing.html", "broken link guide.html: _static/logo.png",
                                "broken link guide.html: api.html#pkg.core.Thing?"]
    assert 'href="../../api.html#pkg.core.Thing"' in (tmp_path / "_modules" / "pkg" / "core.html").read_text()
    conf._check_links(app, RuntimeError("the build failed"))  # nothing checked after a failed build
    assert len(warnings) == 5
