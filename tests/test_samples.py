"""datasets.fetch: public samples downloaded into a cache through a mirror (here a local HTTP server on 127.0.0.1
serving a copy of ../shared/datasets, or the folder itself), checked by SHA-256, reused, and refused — nothing
kept — when a file is corrupted or the connection drops; excerpts cut from whole files served the same way; the
shipped tables copied offline. No test reaches the real public URLs."""

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
    CacheError,
    ChecksumError,
    CorruptCacheWarning,
    Cut,
    DownloadError,
    Sample,
    SampleFile,
    Whole,
    cache_folder,
    fetch,
)
from workbench.errors import ParameterError, ParameterTypeError


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
    with Server(mirror) as server, pytest.warns(CorruptCacheWarning, match="is corrupt .*: it is fetched again"):
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


def test_an_unknown_name_is_refused():
    with pytest.raises(ParameterError, match="fetch: name must be one of trec-robust-2003, .*, got 'robust'"):
        fetch("robust")
    assert datasets.fetchable() == list(SAMPLES)


def test_every_sample_has_a_public_source_pinned_to_a_commit_or_ships_with_the_package():
    assert all(sample.public for sample in SAMPLES.values())  # no sample needs a mirror
    urls = [file.url for sample in SAMPLES.values() for file in sample.files if file.url]
    urls += [whole.url for sample in SAMPLES.values() for file in sample.files if file.cut
             for whole in file.cut.sources]
    assert all(url.startswith("https://raw.githubusercontent.com/") and len(url.split("/")[5]) == 40
               for url in urls)  # pinned to a commit
    packaged = [file for sample in SAMPLES.values() for file in sample.files if file.packaged]
    assert {file.path.split("/")[0] for file in packaged} == {"weps2007", "weps2", "trec_robust2003_excerpt",
                                                              "trec_eval_test_excerpt",
                                                              "replab2013_topic_detection_excerpt"}
    for file in packaged:
        path = samples.PACKAGED / file.path
        assert path.stat().st_size == file.size and digest(path) == file.sha256, file.path


NOT_BESIDE_THE_CLONE = {"pyevall-classification",  # notebook 08's sample: fetched from its public source only
                        "trec-robust-2003-excerpt", "trec-eval-test-excerpt",  # shipped; checked against
                        "replab-2013-topic-detection-excerpt"}  # the full samples below


def test_the_recorded_hashes_are_those_of_the_shared_copies():
    for sample in SAMPLES.values():
        if sample.name in NOT_BESIDE_THE_CLONE:
            continue
        for file in sample.files:
            path = shared_dataset(file.path)
            assert path.stat().st_size == file.size and digest(path) == file.sha256, file.path


def test_the_shipped_tables_are_copied_into_the_cache_offline_and_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    folder = fetch("weps-2-reference", cache=tmp_path, progress=False)
    assert sorted(p.name for p in (folder / "reference_scores").iterdir()) == [
        "ALL_IN_ONE_BASELINE.eval", "COMBINED_BASELINE.eval", "ONE_IN_ONE_BASELINE.eval"]
    assert (folder / "reference_scores" / "ALL_IN_ONE_BASELINE.eval").read_text().splitlines()[-1].startswith(
        "Average\t0.43\t1.00\t0.53")
    datasets.remove("weps-2-reference", cache=tmp_path)  # the next fetch makes the files again
    assert not folder.exists()
    spoiled = SampleFile("weps2/reference_scores/ALL_IN_ONE_BASELINE.eval", "0" * 64, 1851, packaged=True)
    monkeypatch.setitem(SAMPLES, "spoiled", Sample("spoiled", "weps2", "", (spoiled,)))
    with pytest.raises(ChecksumError, match="the package's copy"):
        fetch("spoiled", cache=tmp_path / "other", progress=False)
    assert not leftovers(tmp_path)


def test_offline_nothing_is_downloaded_and_the_error_says_why_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)

    def no_network(*args, **kwargs):
        raise AssertionError("fetch reached for the network although WORKBENCH_OFFLINE is set")

    monkeypatch.setattr(samples.urllib.request, "urlopen", no_network)
    for name in ("trec-robust-2003", "replab-2013-filtering"):
        with pytest.raises(DownloadError, match="WORKBENCH_OFFLINE forbids downloading https://raw"):
            fetch(name, cache=tmp_path, progress=False)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
    monkeypatch.setenv("WORKBENCH_OFFLINE", "0")  # "0" or empty: online again
    assert not samples.offline()


@pytest.mark.parametrize(("value", "on"), [("1", True), ("true", True), ("Yes", True), (" ON ", True), ("0", False),
                                           ("false", False), ("No", False), ("off", False), ("", False)])
def test_the_offline_switch_reads_the_words_people_write(value, on, monkeypatch):
    """Audit (issue 38): WORKBENCH_OFFLINE=false (or no, off) turned offline mode on, as any value but "" and "0"
    did; the switch now reads as every boolean environment variable does (validation.environment_switch)."""
    monkeypatch.setenv("WORKBENCH_OFFLINE", value)
    assert samples.offline() is on


def test_an_offline_switch_that_says_neither_is_refused_naming_it(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKBENCH_OFFLINE", "maybe")
    with pytest.raises(ParameterError, match="WORKBENCH_OFFLINE must be 1, true, yes or on .*, got 'maybe'"):
        fetch("trec-robust-2003", cache=tmp_path, progress=False)


def test_arguments_that_are_no_name_or_folder_are_refused(tmp_path):
    """Audit (issue 38): fetch(["x"]) was a bare TypeError (a list is no dict key) and mirror=3 was read as the
    relative folder "3"."""
    with pytest.raises(ParameterTypeError, match=r"fetch: name must be one of trec-robust-2003, .*, got \['x'\]"):
        fetch(["x"])
    with pytest.raises(ParameterTypeError, match="fetch: mirror must be a folder or a base URL .*, got 3"):
        fetch("weps-2007", cache=tmp_path, mirror=3, progress=False)
    with pytest.raises(ParameterTypeError, match="fetch: cache must be a file name"):
        fetch("weps-2007", cache=3.5)
    with pytest.raises(ParameterError, match="remove: name must be one of"):
        datasets.remove("robust", cache=tmp_path)
    assert not any(tmp_path.iterdir())


def test_a_corrupt_cached_file_is_named_as_corrupt_not_as_missing(mirror, tmp_path, monkeypatch):
    """Audit (issue 38): a cached file whose bytes changed was reported offline as "not in the cache"; the
    message names the file, says what differs and how to mend it, and online the file is made again with a
    warning saying so."""
    cache = tmp_path / "cache"
    fetch("weps-2007", cache=cache, mirror=mirror, progress=False)
    damaged = cache / SAMPLES["weps-2007"].files[0].path
    damaged.write_bytes(b"changed")
    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    with pytest.raises(DownloadError) as caught:
        fetch("weps-2007", cache=cache, progress=False)
    message = str(caught.value)
    assert f"the cached file {damaged} is corrupt (it holds 7 bytes, not the " in message
    assert "WORKBENCH_OFFLINE forbids downloading it again" in message and "datasets.remove('weps-2007')" in message
    assert "not in the cache" not in message
    size = SAMPLES["weps-2007"].files[0].size
    damaged.write_bytes(b"x" * size)  # the right size, other bytes: the SHA-256 says so
    with pytest.raises(DownloadError, match=r"is corrupt \(its SHA-256 is [0-9a-f]{64}, not the "):
        fetch("weps-2007", cache=cache, progress=False)
    with pytest.warns(CorruptCacheWarning, match=f"{damaged.name} is corrupt .*: it is fetched again"):
        fetch("weps-2007", cache=cache, mirror=mirror, progress=False)  # a folder mirror needs no network
    assert digest(damaged) == SAMPLES["weps-2007"].files[0].sha256


def test_a_fetch_racing_the_removal_of_its_folder_makes_it_again(mirror, tmp_path, monkeypatch):
    """Audit (issue 38): a folder removed while a fetch writes into it (another process's remove()) was reported
    as an unusable cache; the fetch makes the folder again and completes, and says what happened when the
    folder keeps vanishing."""
    cache = tmp_path / "cache"
    made = samples.tempfile.mkstemp
    removals = []

    def racing(*args, dir, **kwargs):  # noqa: A002 (mkstemp's name)
        if len(removals) < 2:  # the folder removed just before the file is made in it, twice
            removals.append(dir)
            shutil.rmtree(cache)
        return made(*args, dir=dir, **kwargs)

    monkeypatch.setattr(samples.tempfile, "mkstemp", racing)
    folder = fetch("weps-2007", cache=cache, mirror=mirror, progress=False)
    assert len(removals) == 2
    for file in SAMPLES["weps-2007"].files:
        assert digest(cache / file.path) == file.sha256
    assert folder == cache / "weps2007" and not leftovers(cache)

    def vanishing(*args, dir, **kwargs):  # noqa: A002
        shutil.rmtree(cache, ignore_errors=True)
        return made(*args, dir=dir, **kwargs)

    monkeypatch.setattr(samples.tempfile, "mkstemp", vanishing)
    shutil.rmtree(cache)
    with pytest.raises(CacheError, match=f"removed {samples.ATTEMPTS} times while .* another process is removing"):
        fetch("weps-2007", cache=cache, mirror=mirror, progress=False)


def test_a_file_removed_while_it_is_checked_is_made_again(mirror, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    fetch("weps-2007", cache=cache, mirror=mirror, progress=False)
    digested = samples._digest

    def removed_meanwhile(path):
        path.unlink()
        return digested(path)

    monkeypatch.setattr(samples, "_digest", removed_meanwhile)
    fetch("weps-2007", cache=cache, mirror=mirror, progress=False)  # every file made again, no error
    monkeypatch.setattr(samples, "_digest", digested)
    for file in SAMPLES["weps-2007"].files:
        assert digest(cache / file.path) == file.sha256


def excerpt_source(tmp_path: Path, excerpt: Path, column: str) -> tuple[Path, bytes]:
    """A whole file for ``excerpt``: its header, then its rows with rows of another entity between them."""
    header, *rows = excerpt.read_bytes().splitlines(keepends=True)
    at = [name.strip(b'"\n') for name in header.split(b"\t")].index(column.encode())
    other = []
    for row in rows:
        fields = row.split(b"\t")
        fields[at] = b'"RL2013D99E999"' if fields[at].startswith(b'"') else b"RL2013D99E999"
        other.append(b"\t".join(fields))
    whole = header + b"".join(a + b for a, b in zip(other, rows, strict=True))
    path = tmp_path / "public" / excerpt.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(whole)
    return path, whole


def test_an_excerpt_is_cut_from_its_whole_public_file_once_that_file_is_checked(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    monkeypatch.delenv("WORKBENCH_OFFLINE", raising=False)
    [gold] = [f for f in SAMPLES["replab-2013-filtering"].files if f.cut]
    excerpt = shared_dataset(gold.path)
    path, whole = excerpt_source(tmp_path, excerpt, "entity_id")
    with Server(path.parent) as server:
        source = Whole(server.url + path.name, hashlib.sha256(whole).hexdigest(), len(whole))
        cut = Cut("entity_id", gold.cut.values, (source,))
        monkeypatch.setitem(SAMPLES, "cut", Sample("cut", "replab2013_filtering", "",
                                                   (SampleFile(gold.path, gold.sha256, gold.size, cut=cut),)))
        folder = fetch("cut", cache=tmp_path / "cache", progress=False)
        assert (folder / "goldstandard_filtering.dat").read_bytes() == excerpt.read_bytes()
        assert not (tmp_path / "cache" / path.name).exists()  # the whole file is dropped once cut
        damaged = Cut("entity_id", gold.cut.values, (Whole(source.url, "0" * 64, source.size),))
        monkeypatch.setitem(SAMPLES, "cut", Sample("cut", "replab2013_filtering", "",
                                                   (SampleFile(gold.path, gold.sha256, gold.size, cut=damaged),)))
        with pytest.raises(ChecksumError, match=f"{path.name} gave {len(whole)} bytes"):
            fetch("cut", cache=tmp_path / "other", progress=False)
    assert not (tmp_path / "other").exists() or not any(p.is_file() for p in (tmp_path / "other").rglob("*"))


def test_the_reference_table_is_cut_from_three_files_under_the_first_header(tmp_path):
    [table] = [f for f in SAMPLES["replab-2013-topic-detection"].files if f.path.endswith(".tsv")]
    assert table.cut.column == "entity" and len(table.cut.sources) == 3
    header, *rows = shared_dataset(table.path).read_bytes().splitlines(keepends=True)
    wholes = [header + b"".join(r for r in rows if name in r) + b"other\tRL2013D01E999\t1\t1\t1\n"
              for name in (b"best_replab", b"t_twitter_LDA", b"terms_jaccard")]
    assert table.cut.apply(wholes) == header + b"".join(rows)
    with pytest.raises(ChecksumError, match="has no column 'entity'"):
        table.cut.apply([b"a\tb\n"])


def test_the_shipped_robust_excerpt_is_the_full_samples_lines_of_its_eight_topics(tmp_path, monkeypatch):
    """Issue 41: the lessons run offline on an excerpt of TREC 2003 Robust shipped with the package (under 1 MB):
    copied offline with no mirror, and, line for line, the full sample's qrels and runs restricted to topics 303–330
    (the 8 lowest-numbered)."""
    import gzip

    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    excerpt = fetch("trec-robust-2003-excerpt", cache=tmp_path, progress=False)
    assert sum(file.size for file in SAMPLES["trec-robust-2003-excerpt"].files) < 600_000
    assert (excerpt / "LICENSE-trectools.txt").read_text().startswith("BSD 3-Clause License")
    topics = {"303", "307", "310", "314", "320", "322", "325", "330"}
    full = shared_dataset("trec_robust2003")

    def lines(data: bytes) -> list[bytes]:
        return [line for line in data.splitlines() if line.split()[0].decode() in topics]

    qrels = (excerpt / "qrels.txt").read_bytes()
    assert qrels.splitlines() == lines((full / "qrels.txt").read_bytes())
    assert {line.split()[0].decode() for line in qrels.splitlines()} == topics
    runs = sorted(p.name for p in (excerpt / "runs").iterdir())
    assert runs == sorted(p.name for p in (full / "runs").iterdir()) and len(runs) == 5
    for name in runs:
        ours = gzip.decompress((excerpt / "runs" / name).read_bytes()).splitlines()
        assert ours == lines(gzip.decompress((full / "runs" / name).read_bytes())), name


def test_the_shipped_trec_eval_and_replab_excerpts_are_the_samples_files(tmp_path, monkeypatch):
    """Issue 41: notebook 04 reads 3 of trec_eval's test files and notebooks 01-02 RepLab 2013's topic detection
    sample offline, shipped with the package with their licences (NIST notice, Apache-2.0): each excerpt is copied
    offline with no mirror and is, byte for byte, the sample's files (RepLab's gzip-compressed); each well under
    300 kB and all the shipped data under 2 MB."""
    import gzip

    monkeypatch.setenv("WORKBENCH_OFFLINE", "1")
    monkeypatch.delenv("WORKBENCH_DATA_MIRROR", raising=False)
    trec_eval = fetch("trec-eval-test-excerpt", cache=tmp_path, progress=False)
    assert (trec_eval / "LICENSE-trec_eval.md").read_bytes() == shared_dataset("trec_eval_test/LICENSE.md").read_bytes()
    names = ["out.test.aql", "qrels.rel_level", "results.test"]
    assert sorted(p.name for p in trec_eval.iterdir() if not p.name.startswith("LICENSE")) == names
    for name in names:
        assert (trec_eval / name).read_bytes() == shared_dataset(f"trec_eval_test/{name}").read_bytes(), name
    replab = fetch("replab-2013-topic-detection-excerpt", cache=tmp_path, progress=False)
    full = shared_dataset("replab2013_topic_detection")
    assert (replab / "LICENSE-learning-similarity-functions-ORM.txt").read_bytes() == (full / "LICENSE").read_bytes()
    assert (full / "LICENSE").read_text().startswith("Apache License")
    assert (replab / "reference_RS_per_entity.tsv").read_bytes() == (full / "reference_RS_per_entity.tsv").read_bytes()
    gold = "replab2013_topic_detection_goldstandard.dat"
    assert gzip.decompress((replab / f"{gold}.gz").read_bytes()) == (full / gold).read_bytes()
    outputs = sorted(p.name for p in (full / "system-outputs").iterdir())
    assert sorted(p.name for p in (replab / "system-outputs").iterdir()) == [f"{n}.gz" for n in outputs]
    for name in outputs:
        ours = gzip.decompress((replab / "system-outputs" / f"{name}.gz").read_bytes())
        assert ours == (full / "system-outputs" / name).read_bytes(), name
    for name in ("trec-eval-test-excerpt", "replab-2013-topic-detection-excerpt"):  # 160 kB and 88 kB
        assert sum(file.size for file in SAMPLES[name].files) < 200_000, name
    assert sum(p.stat().st_size for p in samples.PACKAGED.rglob("*") if p.is_file()) < 2_000_000
