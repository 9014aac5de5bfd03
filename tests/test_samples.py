"""datasets.fetch: public samples downloaded into a cache through a mirror (here a local HTTP server on 127.0.0.1
serving a copy of ../shared/datasets, or the folder itself), checked by SHA-256, reused, and refused — nothing
kept — when a file is corrupted or the connection drops. No test reaches the real public URLs."""

from __future__ import annotations

import functools
import hashlib
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from tests.conftest import shared_dataset
from workbench import datasets
from workbench.data import samples
from workbench.data.samples import (
    SAMPLES,
    ChecksumError,
    DownloadError,
    SampleUnavailableError,
    UnknownSampleError,
    cache_folder,
    fetch,
)


class Server:
    """A directory served on 127.0.0.1 (a free port) from a thread; ``drop`` names files whose answer stops
    halfway (the connection closed after half the bytes promised)."""

    def __init__(self, root: Path, drop: tuple[str, ...] = ()) -> None:
        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                if any(self.path.endswith(name) for name in drop):
                    body = (root / self.path.lstrip("/")).read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                super().do_GET()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(Handler, directory=str(root)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(10)


@pytest.fixture
def mirror(tmp_path) -> Path:
    """A copy of the WePS-1 and trec_eval samples laid out like ../shared/datasets."""
    root = tmp_path / "mirror"
    for name in ("weps-2007", "trec-eval-test"):
        for file in SAMPLES[name].files:
            source = shared_dataset(file.path)
            (root / file.path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, root / file.path)
    return root


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if p.name.endswith(".part")]


def test_a_sample_is_downloaded_checked_and_reused(mirror, tmp_path):
    cache = tmp_path / "cache"
    with Server(mirror) as server:
        folder = fetch("weps-2007", cache=cache, mirror=server.url, progress=False)
    assert folder == cache / "weps2007"
    for file in SAMPLES["weps-2007"].files:
        assert digest(cache / file.path) == file.sha256
    # the cache answers without any source: the server is gone, the mirror points nowhere
    assert fetch("weps-2007", cache=cache, mirror="http://127.0.0.1:9/", progress=False) == folder
    (cache / SAMPLES["weps-2007"].files[0].path).write_bytes(b"changed")  # a damaged file is fetched again
    with Server(mirror) as server:
        fetch("weps-2007", cache=cache, mirror=server.url, progress=False)
    assert digest(cache / SAMPLES["weps-2007"].files[0].path) == SAMPLES["weps-2007"].files[0].sha256


def test_a_corrupted_file_is_refused_and_not_kept(mirror, tmp_path):
    corrupted = SAMPLES["trec-eval-test"].files[3]
    data = bytearray((mirror / corrupted.path).read_bytes())
    data[10] ^= 0xFF
    (mirror / corrupted.path).write_bytes(bytes(data))
    cache = tmp_path / "cache"
    with Server(mirror) as server, pytest.raises(ChecksumError, match=corrupted.path):
        fetch("trec-eval-test", cache=cache, mirror=server.url, progress=False)
    assert not (cache / corrupted.path).exists() and not leftovers(cache)
    with pytest.raises(ChecksumError):  # a folder mirror is checked the same way
        fetch("trec-eval-test", cache=cache, mirror=mirror, progress=False)
    assert not (cache / corrupted.path).exists() and not leftovers(cache)


def test_a_dropped_connection_is_a_named_error_and_nothing_is_kept(mirror, tmp_path):
    dropped = SAMPLES["trec-eval-test"].files[-1]
    cache = tmp_path / "cache"
    with Server(mirror, drop=(Path(dropped.path).name,)) as server, \
            pytest.raises(DownloadError, match="nothing was kept"):
        fetch("trec-eval-test", cache=cache, mirror=server.url, progress=False)
    assert not (cache / dropped.path).exists() and not leftovers(cache)
    with Server(mirror) as server:  # the next try, the connection holding, completes the sample
        fetch("trec-eval-test", cache=cache, mirror=server.url, progress=False)
    assert digest(cache / dropped.path) == dropped.sha256


def test_a_missing_file_on_the_mirror_is_a_named_error(mirror, tmp_path):
    (mirror / SAMPLES["weps-2007"].files[2].path).unlink()
    with Server(mirror) as server, pytest.raises(DownloadError, match="404"):
        fetch("weps-2007", cache=tmp_path / "cache", mirror=server.url, progress=False)


def test_the_environment_names_the_mirror_and_the_cache(mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "from-env"))
    monkeypatch.setenv("WORKBENCH_DATA_MIRROR", str(mirror))
    folder = datasets.fetch("weps-2007", progress=False)
    assert folder == tmp_path / "from-env" / "weps2007" and (folder / "truth_files").is_dir()
    assert cache_folder("elsewhere") == Path("elsewhere")


def test_the_platform_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(samples.sys, "platform", "linux")
    assert cache_folder() == tmp_path / "workbench"
    monkeypatch.setattr(samples.sys, "platform", "darwin")
    assert cache_folder() == Path.home() / "Library" / "Caches" / "workbench"
    monkeypatch.setattr(samples.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path))
    assert cache_folder() == tmp_path / "workbench" / "Cache"


def test_an_excerpt_needs_a_mirror_and_an_unknown_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    with pytest.raises(SampleUnavailableError, match="no public copy"):
        fetch("replab-2013-topic-detection", cache=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())  # refused before anything was downloaded
    with pytest.raises(UnknownSampleError, match="no sample 'robust'; the samples: trec-robust-2003"):
        fetch("robust", cache=tmp_path)
    assert datasets.fetchable() == list(SAMPLES)


def test_the_recorded_hashes_are_those_of_the_shared_copies():
    for sample in SAMPLES.values():
        for file in sample.files:
            path = shared_dataset(file.path)
            assert path.stat().st_size == file.size and digest(path) == file.sha256, file.path
    assert all(file.url.startswith("https://raw.githubusercontent.com/") and len(file.url.split("/")[5]) == 40
               for sample in SAMPLES.values() for file in sample.files if file.url)  # pinned to a commit
