"""The docs' ``offline_assets`` extension (``docs/_ext``) without a build: myst-nb's CDN require.js and widget
manager and Sphinx's CDN MathJax swapped for the site's copies (without the CDN's ``integrity`` and
``crossorigin``) and nothing else; the pinned npm tarballs (the widget manager, MathJax) taken from the cache or
downloaded once, checked against their sha512 either way, and only the files the pages load unpacked; a clear
error when a file is absent, the download fails or the checksum differs. The pages it serves are checked in
chromium by ``tests/test_browser_docs_offline.py``."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import re
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
    config = types.SimpleNamespace(mathjax_path="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js",
                                   nb_ipywidgets_js={
        extension.REQUIRE_CDN: {"integrity": "sha256-x", "crossorigin": "anonymous"},
        manager: {"data-jupyter-widgets-cdn": "x", "crossorigin": "anonymous"},
        "https://example.org/other.js": {"crossorigin": "anonymous"}})
    extension._local_scripts(None, config)
    assert config.nb_ipywidgets_js == {"offline/require.min.js": {},
                                       "offline/html-manager/embed-amd.js": {"data-jupyter-widgets-cdn": "x"},
                                       "https://example.org/other.js": {"crossorigin": "anonymous"}}
    assert config.mathjax_path == "offline/mathjax/tex-mml-chtml.js"
    config.mathjax_path = "https://example.org/my-mathjax.js"  # a site's own choice is kept
    extension._local_scripts(None, config)
    assert config.mathjax_path == "https://example.org/my-mathjax.js"


@pytest.mark.parametrize(("function", "expected"), [
    ("_require_js", r"require\.min\.js not found in voila/templates/base/static"),
    ("_anywidget_js", r"index\.js not found in nbextensions/anywidget")])
def test_a_missing_installed_file_names_where_it_was_looked_for(function, expected, tmp_path, monkeypatch):
    extension = _extension()
    monkeypatch.setattr("jupyter_core.paths.jupyter_path", lambda *parts: [str(tmp_path / "static")])
    with pytest.raises(ExtensionError, match=expected + r" \(.*static\); install the docs extra"):
        getattr(extension, function)()


@pytest.mark.parametrize("function", ["_require_js", "_anywidget_js"])
def test_the_installed_files_are_found(function):
    assert getattr(_extension(), function)().stat().st_size > 10_000  # require.js 2.3: 17 kB; anywidget: 33 kB


@pytest.mark.parametrize("name", ["html-manager", "mathjax"])
def test_each_npm_package_is_pinned_by_version_and_the_registrys_sha512(name):
    pinned = _extension().NPM[name]
    assert re.fullmatch(r"https://registry\.npmjs\.org/(@[a-z-]+/)?[a-z-]+/-/[a-z-]+-\d+\.\d+\.\d+\.tgz",
                        pinned["tarball"])
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
    with pytest.raises(ExtensionError, match=r"could not download "
                                        r"https://registry\.example/m/-/m-1\.0\.0\.tgz \(network is unreachable\); "
                                        r"the build needs the npm registry once, or the file in .*cache"):
        extension._tarball(tmp_path / "cache", _tarball({})[1])


def _unpacked(name: str, files: list[str], folder) -> list[str]:
    extension = _extension()
    extension._unpack(_tarball(dict.fromkeys(files, b"x"))[0], extension.NPM[name]["files"], folder)
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def test_only_the_manager_and_its_fonts_are_unpacked(tmp_path):
    files = ["package/dist/embed-amd.js", "package/dist/a1.woff2", "package/dist/a1.woff", "package/dist/a1.ttf",
             "package/dist/embed.js", "package/dist/sub/b.woff2", "package/src/c.woff2", "package/package.json"]
    assert _unpacked("html-manager", files, tmp_path) == ["a1.woff", "a1.woff2", "embed-amd.js"]


def test_only_mathjax_its_fonts_and_its_licence_are_unpacked(tmp_path):
    files = ["package/es5/tex-mml-chtml.js", "package/es5/tex-chtml.js", "package/LICENSE", "package/tex-mml-chtml.js",
             "package/es5/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff", "package/es5/output/chtml.js",
             "package/es5/output/chtml/fonts/tex.js", "package/js/output/chtml/fonts/woff-v2/x.woff"]
    assert _unpacked("mathjax", files, tmp_path) == ["LICENSE", "output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
                                                    "tex-mml-chtml.js"]


def test_an_unchanged_file_is_not_written_again(tmp_path):
    extension = _extension()
    data, _ = _tarball({"package/dist/embed-amd.js": b"define()"})
    extension._unpack(data, extension.NPM["html-manager"]["files"], tmp_path)
    (tmp_path / "embed-amd.js").touch()
    before = (tmp_path / "embed-amd.js").stat().st_mtime_ns
    extension._unpack(data, extension.NPM["html-manager"]["files"], tmp_path)
    assert (tmp_path / "embed-amd.js").stat().st_mtime_ns == before and (tmp_path / "embed-amd.js").read_bytes() \
        == b"define()"
