"""The docs' ``offline_assets`` extension (``docs/_ext``) without a build: myst-nb's CDN require.js and widget
manager swapped for the site's copies (without the CDN's ``integrity`` and ``crossorigin``) and nothing else; the
widget manager's npm tarball taken from the cache or downloaded once, checked against its pinned sha512 either
way, and only ``embed-amd.js`` and its fonts unpacked; a clear error when a file is absent, the download fails or
the checksum differs. The pages it serves are checked in chromium by ``tests/test_browser_docs_offline.py``."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import tarfile
import types
import urllib.request

import pytest
from sphinx.errors import ExtensionError

from tests.conftest import ROOT


def _extension():
    spec = importlib.util.spec_from_file_location("offline_assets", ROOT / "docs" / "_ext" / "offline_assets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tarball(files: dict[str, bytes]) -> tuple[bytes, dict[str, str]]:
    """A gzipped tar of ``files`` and its pin, as the npm registry's metadata gives it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            member = tarfile.TarInfo(name)
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    data = buffer.getvalue()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    return data, {"tarball": "https://registry.example/m/-/m-1.0.0.tgz", "integrity": integrity}


def _no_network(*args, **kwargs):
    raise OSError("network is unreachable")


def test_the_cdn_require_js_and_widget_manager_are_swapped_for_the_sites_copies():
    extension = _extension()
    manager = "https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.6/dist/embed-amd.js"
    config = types.SimpleNamespace(nb_ipywidgets_js={
        extension.REQUIRE_CDN: {"integrity": "sha256-x", "crossorigin": "anonymous"},
        manager: {"data-jupyter-widgets-cdn": "x", "crossorigin": "anonymous"},
        "https://example.org/other.js": {"crossorigin": "anonymous"}})
    extension._local_scripts(None, config)
    assert config.nb_ipywidgets_js == {"offline/require.min.js": {},
                                       "offline/html-manager/embed-amd.js": {"data-jupyter-widgets-cdn": "x"},
                                       "https://example.org/other.js": {"crossorigin": "anonymous"}}


def test_a_missing_require_js_names_where_it_was_looked_for(tmp_path, monkeypatch):
    extension = _extension()
    monkeypatch.setattr("jupyter_core.paths.jupyter_path", lambda *parts: [str(tmp_path / "static")])
    with pytest.raises(ExtensionError, match=r"require\.min\.js not found in voila/templates/base/static "
                                        r"\(.*static\); install the docs extra"):
        extension._require_js()


def test_the_pinned_widget_manager_is_the_registrys_sha512():
    pinned = _extension().HTML_MANAGER
    assert pinned["tarball"].endswith(f"/html-manager-{pinned['version']}.tgz")
    assert pinned["integrity"].startswith("sha512-") and len(base64.b64decode(pinned["integrity"][7:])) == 64


def test_a_download_is_checked_kept_and_then_read_from_the_cache(tmp_path, monkeypatch):
    extension = _extension()
    data, pinned = _tarball({"package/dist/embed-amd.js": b"define()"})
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(data))
    assert extension._tarball(tmp_path / "cache", pinned) == data
    assert (tmp_path / "cache" / "m-1.0.0.tgz").read_bytes() == data
    monkeypatch.setattr(urllib.request, "urlopen", _no_network)
    assert extension._tarball(tmp_path / "cache", pinned) == data  # offline now: the cache serves


def test_a_tarball_that_is_not_the_one_pinned_is_refused(tmp_path, monkeypatch):
    extension = _extension()
    data, pinned = _tarball({"package/dist/embed-amd.js": b"define()"})
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: io.BytesIO(data + b"tampered"))
    with pytest.raises(ExtensionError, match=r"https://registry\.example/m/-/m-1\.0\.0\.tgz is not the file pinned: "
                                        r"its checksum is sha512-.*, not sha512-"):
        extension._tarball(tmp_path, pinned)
    assert list(tmp_path.iterdir()) == []  # nothing kept
    (tmp_path / "m-1.0.0.tgz").write_bytes(data[:-1])
    with pytest.raises(ExtensionError, match=r"m-1\.0\.0\.tgz is not the file pinned"):
        extension._tarball(tmp_path, pinned)


def test_a_failed_download_says_what_the_build_needs(tmp_path, monkeypatch):
    extension = _extension()
    monkeypatch.setattr(urllib.request, "urlopen", _no_network)
    with pytest.raises(ExtensionError, match=r"could not download the Jupyter widget manager from "
                                        r"https://registry\.example/m/-/m-1\.0\.0\.tgz \(network is unreachable\); "
                                        r"the build needs the npm registry once, or the file in .*cache"):
        extension._tarball(tmp_path / "cache", _tarball({})[1])


def test_only_the_manager_and_its_fonts_are_unpacked(tmp_path):
    data, _ = _tarball({"package/dist/embed-amd.js": b"define()", "package/dist/a1.woff2": b"font",
                        "package/dist/a1.woff": b"font", "package/dist/a1.ttf": b"font",
                        "package/dist/embed.js": b"x", "package/dist/sub/b.woff2": b"x", "package/src/c.woff2": b"x",
                        "package/package.json": b"{}"})
    _extension()._html_manager(data, tmp_path / "html-manager")
    assert sorted(path.name for path in (tmp_path / "html-manager").iterdir()) == ["a1.woff", "a1.woff2",
                                                                                  "embed-amd.js"]
    assert (tmp_path / "html-manager" / "embed-amd.js").read_bytes() == b"define()"
