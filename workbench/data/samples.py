"""Public samples of evaluation campaigns, fetched into a user cache (in the spirit of scikit-learn's ``fetch_*``).

``fetch(name)`` returns a folder holding the sample's files as they are laid out in the project's
``../shared/datasets`` (``fetch("trec-robust-2003") / "qrels.txt"``). A file already in the cache with the
recorded SHA-256 is used as it is; any other is downloaded, with a progress bar, into a temporary file beside its
place, checked (size and SHA-256) and only then moved into place: a corrupted or interrupted download leaves
nothing in the cache and raises a named :class:`SampleError`.

Where from: each file's public URL (pinned to a commit of the repository that publishes it), or a mirror laid
out like ``../shared/datasets`` when ``WORKBENCH_DATA_MIRROR`` (or ``mirror=``) names one, a folder or a base
URL (``http://``, ``https://``, ``file://``): what CI and the tests use. Some samples are excerpts of public
files (two entities of RepLab 2013) with no public copy of their own: they come from a mirror only.

The cache is ``WORKBENCH_CACHE`` (or ``cache=``), else the platform's: ``$XDG_CACHE_HOME/workbench`` or
``~/.cache/workbench`` on Linux, ``~/Library/Caches/workbench`` on macOS, ``%LOCALAPPDATA%\\workbench\\Cache`` on
Windows.

    >>> "trec-robust-2003" in fetchable()
    True
    >>> SAMPLES["trec-robust-2003"].files[0].url
    'https://raw.githubusercontent.com/joaopalotti/trectools/8a896def007e3d657eb29f820ee3de98e2f32691/examples/robust03/qrel/robust03_qrels.txt'
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path

from workbench.data.files import file_mode, file_path
from workbench.errors import WorkbenchError

CHUNK = 1 << 16
TIMEOUT = 60  # seconds without a byte before a download is given up


class SampleError(WorkbenchError):
    """A sample that cannot be fetched: unknown, without a public copy, not downloaded, or not what it should be."""


class UnknownSampleError(SampleError):
    """A sample name :func:`fetchable` does not list."""


class SampleUnavailableError(SampleError):
    """A file with no public copy (an excerpt) and no mirror to fetch it from."""


class DownloadError(SampleError):
    """A download that failed (refused, cut off, timed out); nothing was kept."""


class ChecksumError(SampleError):
    """A file whose size or SHA-256 is not the one recorded; nothing was kept."""


class CacheError(SampleError):
    """The cache folder cannot be created, read or written (no permission, a file where a folder should be, a
    full disk): names the folder and the cause; nothing half-written was kept."""


def _cache_refused(problem: OSError, root: Path) -> CacheError:
    where = f" ({problem.filename})" if problem.filename and Path(problem.filename) != root else ""
    return CacheError(f"the sample cache {root} cannot be used: {problem.strerror or problem}{where}; choose "
                      "another folder with cache= or WORKBENCH_CACHE")


@dataclass(frozen=True)
class SampleFile:
    """One file of a sample: its ``path`` in the mirror layout, its SHA-256 and size, and its public URL (None: an
    excerpt, only on a mirror)."""

    path: str
    sha256: str
    size: int
    url: str | None


@dataclass(frozen=True)
class Sample:
    name: str
    folder: str
    description: str
    files: tuple[SampleFile, ...]

    @property
    def public(self) -> bool:
        """Every file has a public URL (no mirror needed)."""
        return all(f.url for f in self.files)


MANIFEST = Path(__file__).with_name("samples.tsv")
"""The files of every sample: ``sample, sha256, size, path, url`` (``-``: no public copy), one line each."""

_DESCRIPTIONS = {
    "trec-robust-2003": "TREC 2003 Robust track: qrels of its 100 topics (grades 0–2) and 5 submitted runs",
    "trec-eval-test": "trec_eval 10.0's own test files: qrels, runs and the expected outputs of its quicktest",
    "weps-2007": "WePS-1 (SemEval 2007) person-name clustering: gold of 5 names and one team's run (TEAM_A)",
    "weps-2007-reference": "the official WePS-1 scorer's values for TEAM_A and the baselines on those 5 names",
    "weps-2": "WePS-2 test gold of 2 names",
    "weps-2-reference": "the official WePS-2 scorer's values for the baselines on all 30 names",
    "replab-2013-topic-detection": "RepLab 2013 topic detection: gold and 3 runs for 2 entities (an excerpt) with "
                                   "the official R&S script's values",
    "replab-2013-filtering": "RepLab 2013 filtering: training gold for 2 entities (an excerpt) and the entity list",
}


def _samples() -> dict[str, Sample]:
    files: dict[str, list[SampleFile]] = {}
    lines = [line for line in MANIFEST.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    for line in lines[1:]:
        name, sha256, size, path, url = line.split("\t")
        files.setdefault(name, []).append(SampleFile(path, sha256, int(size), None if url == "-" else url))
    return {name: Sample(name, found[0].path.split("/")[0], _DESCRIPTIONS[name], tuple(found))
            for name, found in files.items()}


SAMPLES = _samples()


def fetchable() -> list[str]:
    """The names :func:`fetch` knows, in order."""
    return list(SAMPLES)


def cache_folder(cache: str | Path | None = None) -> Path:
    """Where samples are kept: ``cache``, else ``$WORKBENCH_CACHE``, else the platform's cache folder."""
    if cache is not None:
        return Path(file_path(cache, "cache"))
    if os.environ.get("WORKBENCH_CACHE"):
        return Path(os.environ["WORKBENCH_CACHE"])
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / "workbench" / "Cache"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "workbench"
    return Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache") / "workbench"


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(CHUNK), b""):
            sha.update(block)
    return sha.hexdigest()


def _in_place(target: Path, file: SampleFile) -> bool:
    """The file is in the cache, whole and right."""
    return target.is_file() and target.stat().st_size == file.size and _digest(target) == file.sha256


def _source(file: SampleFile, mirror: str | None) -> str:
    """Where to read ``file`` from: the mirror (a folder or a base URL), else its public URL."""
    if mirror:
        if "://" in mirror:
            return mirror.rstrip("/") + "/" + urllib.parse.quote(file.path)
        return Path(mirror, file.path).resolve().as_uri()
    if file.url is None:
        raise SampleUnavailableError(f"{file.path} is an excerpt with no public copy of its own: set "
                                     "WORKBENCH_DATA_MIRROR to a folder or URL laid out like ../shared/datasets")
    return file.url


class _WriteFailed(Exception):
    """A write into the cache that failed inside the download (told apart from the download's own errors)."""

    def __init__(self, problem: OSError) -> None:
        self.problem = problem


def _download(file: SampleFile, source: str, target: Path, bar) -> None:
    """Stream ``source`` into a temporary file beside ``target``, check it, then move it into place. What the
    system refuses (creating the folder, writing the file) raises ``OSError``, for :func:`fetch` to name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    partial = Path(name)
    sha, received = hashlib.sha256(), 0
    try:
        with os.fdopen(handle, "wb") as sink:
            try:
                with urllib.request.urlopen(source, timeout=TIMEOUT) as answer:
                    promised = answer.headers.get("Content-Length")
                    for block in iter(lambda: answer.read(CHUNK), b""):
                        try:
                            sink.write(block)
                        except OSError as problem:  # the cache's disk, not the download
                            raise _WriteFailed(problem) from None
                        sha.update(block)
                        received += len(block)
                        bar.update(len(block))
                    if promised is not None and received < int(promised):
                        raise ConnectionError(f"the connection closed after {received} of the {promised} bytes "
                                              "announced")
            except _WriteFailed as failed:
                raise failed.problem from None
            except (OSError, HTTPException, ValueError) as problem:  # refused, cut off, timed out, bad URL
                raise DownloadError(f"{file.path}: downloading {source} failed after {received} of {file.size} "
                                    f"bytes ({type(problem).__name__}: {problem}); nothing was kept") from problem
        if received != file.size or sha.hexdigest() != file.sha256:
            raise ChecksumError(f"{file.path}: {source} gave {received} bytes with SHA-256 {sha.hexdigest()}, "
                                f"not the {file.size} bytes with SHA-256 {file.sha256} recorded; nothing was kept")
        os.chmod(partial, file_mode(target))  # not the temporary file's 0o600
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def fetch(name: str, *, cache: str | Path | None = None, mirror: str | Path | None = None,
          progress: bool = True) -> Path:
    """The folder of sample ``name`` (:func:`fetchable`) in the cache, its files downloaded where missing or
    wrong (see the module docstring); ``mirror`` defaults to ``$WORKBENCH_DATA_MIRROR``. Raises
    :class:`UnknownSampleError`, :class:`SampleUnavailableError`, :class:`DownloadError`, :class:`ChecksumError`,
    :class:`CacheError`."""
    if name not in SAMPLES:
        raise UnknownSampleError(f"no sample {name!r}; the samples: {', '.join(fetchable())}")
    sample = SAMPLES[name]
    root = cache_folder(cache)
    mirror = str(mirror) if mirror is not None else os.environ.get("WORKBENCH_DATA_MIRROR") or None
    try:
        wanted = [file for file in sample.files if not _in_place(root / file.path, file)]
        if wanted:
            from tqdm import tqdm

            sources = [_source(file, mirror) for file in wanted]  # refuse an excerpt before downloading anything
            with tqdm(total=sum(f.size for f in wanted), unit="B", unit_scale=True, desc=f"fetching {name}",
                      disable=not progress, leave=False) as bar:
                for file, source in zip(wanted, sources, strict=True):
                    _download(file, source, root / file.path, bar)
    except OSError as problem:
        raise _cache_refused(problem, root) from None
    return root / sample.folder


def remove(name: str, *, cache: str | Path | None = None) -> None:
    """Delete the files of sample ``name`` from the cache (the next :func:`fetch` downloads them again)."""
    if name not in SAMPLES:
        raise UnknownSampleError(f"no sample {name!r}; the samples: {', '.join(fetchable())}")
    root = cache_folder(cache)
    try:
        for file in SAMPLES[name].files:
            (root / file.path).unlink(missing_ok=True)
        folder = root / SAMPLES[name].folder
        if folder.is_dir() and not any(folder.rglob("*")):
            shutil.rmtree(folder)
    except OSError as problem:
        raise _cache_refused(problem, root) from None
