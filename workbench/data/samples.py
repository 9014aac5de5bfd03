"""Public samples of evaluation campaigns, fetched into a user cache (in the spirit of scikit-learn's ``fetch_*``).

``fetch(name)`` returns a folder holding the sample's files (``fetch("trec-robust-2003") / "qrels.txt"``). A file
already in the cache with the recorded size and SHA-256 is used as it is; any other is made afresh, with a
progress bar, in a temporary file beside its place, checked, and only then moved into place: a corrupted or
interrupted download leaves nothing in the cache and raises a named :class:`SampleError`.

Where each file comes from (``samples.tsv``, one line per file):

* a public URL pinned to a commit of the repository that publishes it, downloaded as it is;
* an excerpt (two entities of RepLab 2013): the rows of those entities cut from whole public files, each whole
  file checked (size and SHA-256) before the cut and the excerpt checked after it;
* ``package``: a small file shipped with the workbench (``workbench/data/references/``): the official WePS
  scorer's values, reproduced by running its ``wepsEvaluation.jar`` on the public files, and the excerpts the
  lessons use offline: TREC 2003 Robust (``trec-robust-2003-excerpt``: 8 topics, 540 kB), 3 of trec_eval's test
  files (``trec-eval-test-excerpt``, 160 kB) and RepLab 2013 topic detection (``replab-2013-topic-detection-excerpt``:
  the sample's 2 entities, gzip, 88 kB).

A mirror (``WORKBENCH_DATA_MIRROR`` or ``mirror=``: a folder or a base URL, ``http://``, ``https://``,
``file://``) laid out like the cache, the excerpts as excerpts, serves every file that is not shipped instead: what
CI and the tests use. ``WORKBENCH_OFFLINE`` (``1``, ``true``, ``yes`` or ``on``; ``0``, ``false``, ``no``, ``off``
or empty leave the network allowed: :func:`~workbench.validation.environment_switch`) forbids the network: what is
not in the cache, in the package or on a folder mirror raises :class:`DownloadError` at once. A cached file whose
size or SHA-256 is not the one recorded is corrupt: it is made again, with a :class:`CorruptCacheWarning` naming it
(offline, the error names it and says how to mend it).

The cache is ``WORKBENCH_CACHE`` (or ``cache=``), else the platform's: ``$XDG_CACHE_HOME/workbench`` or
``~/.cache/workbench`` on Linux, ``~/Library/Caches/workbench`` on macOS, ``%LOCALAPPDATA%\\workbench\\Cache`` on
Windows.

    >>> "trec-robust-2003" in fetchable()
    True
    >>> SAMPLES["trec-robust-2003"].files[0].url
    'https://raw.githubusercontent.com/joaopalotti/trectools/8a896def007e3d657eb29f820ee3de98e2f32691/examples/robust03/qrel/robust03_qrels.txt'
    >>> print(SAMPLES["replab-2013-filtering"].files[0].cut)
    rows entity_id=RL2013D01E001,RL2013D03E124 of https://raw.githubusercontent.com/jmletras/sentiment_analysis/8cf3d9e8bb63c883996b0c101e1839ae7d12a970/src/data/dataset/goldstandard_filtering.dat
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Iterable
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path

from workbench.data.files import file_mode
from workbench.errors import InputError, WorkbenchWarning, warn
from workbench.reading.sources import file_path
from workbench.validation import AnyOf, Domain, FilePath, Flag, environment_switch, validate

__all__ = ["CHUNK", "TIMEOUT", "MANIFEST", "PACKAGED", "ATTEMPTS", "SampleError", "DownloadError", "ChecksumError",
           "CacheError", "CorruptCacheWarning", "Whole", "Cut", "SampleFile", "Sample", "SAMPLES", "SAMPLE", "CACHE",
           "MIRROR", "SampleName", "fetchable", "cache_folder", "offline", "fetch", "remove"]

CHUNK = 1 << 16
TIMEOUT = 60  # seconds without a byte before a download is given up
MANIFEST = Path(__file__).with_name("samples.tsv")
"""The files of every sample: ``sample, sha256, size, path, source``, one line each (see the file's header)."""
PACKAGED = Path(__file__).with_name("references")
"""The tables shipped with the workbench, laid out like the cache."""
ATTEMPTS = 3
"""How many times a file is written into the cache when its folder vanishes meanwhile (another process removing
the sample, or the cache, as the file is written)."""


class SampleError(InputError):
    """A sample that cannot be fetched: not downloaded, or not what it should be."""


class DownloadError(SampleError):
    """A download that failed (refused, cut off, timed out, or offline); nothing was kept."""


class ChecksumError(SampleError):
    """A file whose size or SHA-256 is not the one recorded; nothing was kept."""


class CacheError(SampleError):
    """The cache folder cannot be created, read or written (no permission, a file where a folder should be, a
    full disk): names the folder and the cause; nothing half-written was kept."""


class CorruptCacheWarning(WorkbenchWarning):
    """A file of the cache whose size or SHA-256 is not the one recorded (changed or cut short since it was
    fetched): the message names it and what differs; it is made again."""


def _cache_refused(problem: OSError, root: Path) -> CacheError:
    where = f" ({problem.filename})" if problem.filename and Path(problem.filename) != root else ""
    return CacheError(f"the sample cache {root} cannot be used: {problem.strerror or problem}{where}; choose "
                      "another folder with cache= or WORKBENCH_CACHE")


@dataclass(frozen=True)
class Whole:
    """A public file an excerpt is cut from: its URL (pinned to a commit), SHA-256 and size. It is checked, cut
    and dropped; only the excerpt is kept."""

    url: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Cut:
    """An excerpt: the header line of the first whole file, then, from each whole file in turn, the rows whose
    field ``column`` (quotes stripped) is one of ``values``, in the files' order."""

    column: str
    values: tuple[str, ...]
    sources: tuple[Whole, ...]

    def __str__(self) -> str:
        return f"rows {self.column}={','.join(self.values)} of {' '.join(w.url for w in self.sources)}"

    def apply(self, wholes: Iterable[bytes]) -> bytes:
        """The excerpt of the whole files' bytes (any encoding that keeps tabs, quotes and newlines as ASCII)."""
        kept: list[bytes] = []
        wanted = {value.encode() for value in self.values}
        for number, data in enumerate(wholes):
            header, *rows = data.splitlines(keepends=True)
            names = [name.strip().strip(b'"') for name in header.split(b"\t")]
            if self.column.encode() not in names:
                raise ChecksumError(f"{self.sources[number].url} has no column {self.column!r}")
            at = names.index(self.column.encode())
            kept += [header] if number == 0 else []
            kept += [row for row in rows if row.split(b"\t")[at].strip().strip(b'"') in wanted]
        return b"".join(kept)


@dataclass(frozen=True)
class SampleFile:
    """One file of a sample: its ``path`` in the cache (and mirror) layout, its SHA-256 and size, and where it comes
    from: a public ``url``, a ``cut`` of whole public files, or the package (``packaged``)."""

    path: str
    sha256: str
    size: int
    url: str | None = None
    cut: Cut | None = None
    packaged: bool = False

    @property
    def source(self) -> str:
        """Where the file comes from, as the manifest writes it."""
        return "package" if self.packaged else str(self.cut) if self.cut else str(self.url)


@dataclass(frozen=True)
class Sample:
    name: str
    folder: str
    description: str
    files: tuple[SampleFile, ...]

    @property
    def public(self) -> bool:
        """Every file comes from a public source or the package (no mirror needed)."""
        return all(f.url or f.cut or f.packaged for f in self.files)


_DESCRIPTIONS = {
    "trec-robust-2003": "TREC 2003 Robust track: qrels of its 100 topics (grades 0–2) and 5 submitted runs",
    "trec-robust-2003-excerpt": "an excerpt of trec-robust-2003 shipped with the workbench (BSD 3-Clause, trectools): "
                                "its qrels and 5 runs on the 8 lowest-numbered topics, 303–330, for offline lessons",
    "trec-eval-test": "trec_eval 10.0's own test files: qrels, runs and the expected outputs of its quicktest",
    "trec-eval-test-excerpt": "3 of trec-eval-test's files shipped with the workbench (NIST notice), for offline "
                              "lessons: graded qrels (qrels.rel_level), a run (results.test) and out.test.aql",
    "weps-2007": "WePS-1 (SemEval 2007) person-name clustering: gold of 5 names and one team's run (TEAM_A)",
    "weps-2007-reference": "the official WePS-1 scorer's values for TEAM_A and the baselines on those 5 names",
    "weps-2": "WePS-2 test gold of 2 names",
    "weps-2-reference": "the official WePS-2 scorer's values for the baselines on all 30 names",
    "replab-2013-topic-detection": "RepLab 2013 topic detection: gold and 3 runs for 2 entities (an excerpt) with "
                                   "the official R&S script's values",
    "replab-2013-topic-detection-excerpt": "replab-2013-topic-detection shipped with the workbench for offline "
                                           "lessons (Apache-2.0): the same rows, gold and runs gzip-compressed",
    "replab-2013-filtering": "RepLab 2013 filtering: training gold for 2 entities (an excerpt) and the entity list",
    "pyevall-classification": "PyEvALL's mono-label classification test files (EUPL 1.1): two gold standards (7 and 5 "
                              "items) and the 6 and 9 system outputs its tests score against them",
}


def _file(path: str, sha256: str, size: int, source: str, wholes: dict[str, Whole]) -> SampleFile:
    if source == "package":
        return SampleFile(path, sha256, size, packaged=True)
    if source.startswith("rows "):
        rule, _, urls = source.removeprefix("rows ").partition(" of ")
        column, _, values = rule.partition("=")
        return SampleFile(path, sha256, size, cut=Cut(column, tuple(values.split(",")),
                                                      tuple(wholes[url] for url in urls.split())))
    return SampleFile(path, sha256, size, url=source)


def _samples() -> dict[str, Sample]:
    lines = [line.split("\t") for line in MANIFEST.read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")][1:]
    wholes = {source: Whole(source, sha256, int(size)) for _, sha256, size, path, source in lines if path == "-"}
    files: dict[str, list[SampleFile]] = {}
    for name, sha256, size, path, source in lines:
        if path != "-":
            files.setdefault(name, []).append(_file(path, sha256, int(size), source, wholes))
    return {name: Sample(name, found[0].path.split("/")[0], _DESCRIPTIONS[name], tuple(found))
            for name, found in files.items()}


SAMPLES = _samples()


@dataclass(frozen=True)
class SampleName(Domain):
    """The name of a sample :data:`SAMPLES` holds (:func:`fetchable`)."""

    def __str__(self) -> str:
        return "one of " + ", ".join(SAMPLES)

    def reason(self, value: object) -> str | None:
        return None if isinstance(value, str) and value in SAMPLES else f"must be {self}"

    def wrong_type(self, value: object) -> bool:
        return not isinstance(value, str)

    def outside(self) -> tuple:
        return ("no-such-sample", ["trec-eval-test"])


SAMPLE = SampleName()
"""The domain of a sample's name."""
CACHE = FilePath(optional=True)
"""The cache folder (``cache=``); None: ``$WORKBENCH_CACHE``, else the platform's (:func:`cache_folder`)."""
MIRROR = AnyOf(FilePath(optional=True), what="a folder or a base URL (http://, https://, file://), or None")
"""A mirror laid out like the cache (``mirror=``); None: ``$WORKBENCH_DATA_MIRROR``, else the public sources."""


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


def offline() -> bool:
    """Whether ``WORKBENCH_OFFLINE`` forbids downloads (:func:`~workbench.validation.environment_switch`: ``1``,
    ``true``, ``yes``, ``on``; anything but those and ``0``, ``false``, ``no``, ``off``, empty is refused)."""
    return environment_switch("WORKBENCH_OFFLINE")


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(CHUNK), b""):
            sha.update(block)
    return sha.hexdigest()


MISSING = "not in the cache"


def _flaw(target: Path, file: SampleFile) -> str | None:
    """What is wrong with the cache's copy of ``file``: None when it is there, whole and right; :data:`MISSING`;
    else how it differs from the record (its size, or its SHA-256)."""
    try:
        if not target.is_file():
            return MISSING
        size = target.stat().st_size
        if size != file.size:
            return f"it holds {size:,} bytes, not the {file.size:,} recorded"
        found = _digest(target)
    except FileNotFoundError:  # removed meanwhile (another process removing the sample)
        return MISSING
    return None if found == file.sha256 else f"its SHA-256 is {found}, not the {file.sha256} recorded"


def _read(what: str, source: str, size: int, sha256: str, bar) -> bytes:
    """The bytes at ``source`` (a URL), checked against ``size`` and ``sha256``."""
    data, received = bytearray(), 0
    try:
        with urllib.request.urlopen(source, timeout=TIMEOUT) as answer:
            promised = answer.headers.get("Content-Length")
            for block in iter(lambda: answer.read(CHUNK), b""):
                data += block
                received += len(block)
                bar.update(len(block))
            if promised is not None and received < int(promised):
                raise ConnectionError(f"the connection closed after {received} of the {promised} bytes announced")
    except (OSError, HTTPException, ValueError) as problem:  # refused, cut off, timed out, bad URL
        raise DownloadError(f"{what}: downloading {source} failed after {received} of {size} bytes "
                            f"({type(problem).__name__}: {problem}); nothing was kept") from problem
    _check(what, source, bytes(data), size, sha256)
    return bytes(data)


def _check(what: str, source: str, data: bytes, size: int, sha256: str) -> None:
    found = hashlib.sha256(data).hexdigest()
    if len(data) != size or found != sha256:
        raise ChecksumError(f"{what}: {source} gave {len(data)} bytes with SHA-256 {found}, not the {size} bytes "
                            f"with SHA-256 {sha256} recorded; nothing was kept")


def _place(data: bytes, target: Path) -> None:
    """Write ``data`` to a temporary file beside ``target``, then move it into place (all or nothing). A folder
    removed meanwhile (another process removing the sample or the cache) is made again, up to :data:`ATTEMPTS`
    times, then :class:`CacheError` says so."""
    for _ in range(ATTEMPTS):
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        except FileNotFoundError:  # a folder on the way removed as it was made
            continue
        partial = Path(name)
        try:
            with os.fdopen(handle, "wb") as sink:
                sink.write(data)
            os.chmod(partial, file_mode(target))  # not the temporary file's 0o600
            os.replace(partial, target)
            return
        except FileNotFoundError:  # the folder removed with the temporary file in it
            continue
        finally:
            partial.unlink(missing_ok=True)
    raise CacheError(f"{target.parent} was removed {ATTEMPTS} times while {target.name} was written into it: another "
                     "process is removing the sample cache (datasets.remove, or a cleanup); fetch again once it is "
                     "done")


def _reads(file: SampleFile, mirror: str | None) -> list[tuple[str, int, str]]:
    """What making ``file`` reads: the URL, size and SHA-256 of each file to download (none for a shipped one): the
    mirror's copy when there is a mirror, else the public file, or the whole files an excerpt is cut from."""
    if file.packaged:
        return []
    if mirror:  # a folder or a base URL laid out like the cache
        where = (mirror.rstrip("/") + "/" + urllib.parse.quote(file.path) if "://" in mirror
                 else Path(mirror, file.path).resolve().as_uri())
        return [(where, file.size, file.sha256)]
    if file.cut:
        return [(whole.url, whole.size, whole.sha256) for whole in file.cut.sources]
    return [(str(file.url), file.size, file.sha256)]


def _make(file: SampleFile, mirror: str | None, bar) -> bytes:
    """The checked bytes of ``file``: the package's copy, the mirror's, the public one, or cut from whole files."""
    if file.packaged:
        data = (PACKAGED / file.path).read_bytes()
        _check(file.path, f"the package's copy {PACKAGED / file.path}", data, file.size, file.sha256)
        return data
    read = [_read(file.path, url, size, sha256, bar) for url, size, sha256 in _reads(file, mirror)]
    if mirror or file.cut is None:
        return read[0]
    data = file.cut.apply(read)
    _check(file.path, f"the cut ({file.cut})", data, file.size, file.sha256)
    return data


@validate(name=SAMPLE, cache=CACHE, mirror=MIRROR, progress=Flag())
def fetch(name: str, *, cache: str | Path | None = None, mirror: str | Path | None = None,
          progress: bool = True) -> Path:
    """The folder of sample ``name`` (:func:`fetchable`) in the cache, its files made where missing or wrong (see
    the module docstring; a corrupt one with a :class:`CorruptCacheWarning`); ``mirror`` defaults to
    ``$WORKBENCH_DATA_MIRROR``. Raises :class:`DownloadError` (``WORKBENCH_OFFLINE`` included),
    :class:`ChecksumError`, and :class:`CacheError` when the cache cannot be created or written."""
    sample, forbidden = SAMPLES[name], offline()  # the switch read (and a wrong one refused) in any case
    root = cache_folder(cache)
    mirror = os.fsdecode(mirror) if mirror is not None else os.environ.get("WORKBENCH_DATA_MIRROR") or None
    try:
        flaws = {file: _flaw(root / file.path, file) for file in sample.files}
        wanted = [file for file, flaw in flaws.items() if flaw is not None]
        corrupt = {file: flaw for file, flaw in flaws.items() if flaw not in (None, MISSING)}
        reads = [read for file in wanted for read in _reads(file, mirror)]
        remote = [url for url, _, _ in reads if not url.startswith("file:")]
        if remote and forbidden:
            more = f" and {len(remote) - 1} more" if len(remote) > 1 else ""
            if corrupt:
                file, flaw = next(iter(corrupt.items()))
                raise DownloadError(f"{name}: the cached file {root / file.path} is corrupt ({flaw}), and "
                                    f"WORKBENCH_OFFLINE forbids downloading it again from {remote[0]}{more}: fetch "
                                    f"again online, or with a folder mirror (mirror=), or drop the sample with "
                                    f"datasets.remove({name!r})")
            raise DownloadError(f"{name}: not in the cache, and WORKBENCH_OFFLINE forbids downloading {remote[0]}"
                                + more)
        for file, flaw in corrupt.items():
            warn(f"{name}: the cached file {root / file.path} is corrupt ({flaw}): it is fetched again",
                 CorruptCacheWarning)
        if wanted:
            from tqdm.auto import tqdm

            with tqdm(total=sum(size for _, size, _ in reads), unit="B", unit_scale=True, desc=f"fetching {name}",
                      disable=not (progress and reads), leave=False) as bar:
                for file in wanted:
                    _place(_make(file, mirror, bar), root / file.path)
    except OSError as problem:
        raise _cache_refused(problem, root) from None
    return root / sample.folder


@validate(name=SAMPLE, cache=CACHE)
def remove(name: str, *, cache: str | Path | None = None) -> None:
    """Delete the files of sample ``name`` from the cache (the next :func:`fetch` makes them again)."""
    root = cache_folder(cache)
    try:
        for file in SAMPLES[name].files:
            (root / file.path).unlink(missing_ok=True)
        folder = root / SAMPLES[name].folder
        if folder.is_dir() and not any(path.is_file() for path in folder.rglob("*")):
            shutil.rmtree(folder)  # nothing left but empty folders
    except OSError as problem:
        raise _cache_refused(problem, root) from None
