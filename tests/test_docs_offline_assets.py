"""The docs' ``offline_assets`` extension (``docs/_ext``) without a build: myst-nb's CDN require.js swapped for the
site's copy and nothing else, and a clear error when Voilà's copy is absent. The pages it serves are checked in
chromium by ``tests/test_browser_docs_offline.py``."""

from __future__ import annotations

import importlib.util
import types

import pytest
from sphinx.errors import ExtensionError

from tests.conftest import ROOT


def _extension():
    spec = importlib.util.spec_from_file_location("offline_assets", ROOT / "docs" / "_ext" / "offline_assets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_only_the_cdn_require_js_is_swapped_for_the_sites_copy():
    extension = _extension()
    manager = "https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.6/dist/embed-amd.js"
    config = types.SimpleNamespace(nb_ipywidgets_js={extension.REQUIRE_CDN: {"crossorigin": "anonymous"},
                                                     manager: {"data-jupyter-widgets-cdn": "x"}})
    extension._local_require(None, config)
    assert config.nb_ipywidgets_js == {"offline/require.min.js": {"crossorigin": "anonymous"},
                                       manager: {"data-jupyter-widgets-cdn": "x"}}


def test_a_missing_require_js_names_where_it_was_looked_for(tmp_path, monkeypatch):
    extension = _extension()
    monkeypatch.setattr("jupyter_core.paths.jupyter_path", lambda *parts: [str(tmp_path / "static")])
    with pytest.raises(ExtensionError, match=r"require\.min\.js not found in Voilà's static folder \(.*static\); "
                                        r"install the docs extra"):
        extension._require_js()
