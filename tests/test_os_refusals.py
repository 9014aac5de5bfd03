"""Caches and folders the system refuses (issue 31, class 7): a sample cache that cannot be created or written,
and files or folders a writer cannot create, raise named errors naming the place and the cause (never a
PermissionError or NotADirectoryError traceback); two processes writing the same WePS folder at once end with one
writer's files whole and both succeeding (writers take turns; the folder is renamed into place whole)."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from workbench import datasets
from workbench.data import samples
from workbench.data.files import WriteError, write_folder, write_whole
from workbench.data.samples import CacheError
from workbench.data.trec.writers import write_trec_qrels
from workbench.data.weps import read_weps_clustering, write_weps_clustering
from workbench.model import Organization

ROOT = Path(__file__).resolve().parents[1]
REFUSING = Path("/sys/workbench-test")  # mkdir there: EPERM, even for root (sysfs)
needs_sysfs = pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's /sys")


def _blocked(tmp_path: Path) -> Path:
    """A path whose parent is a file (NotADirectoryError on mkdir)."""
    (tmp_path / "a-file").write_text("x")
    return tmp_path / "a-file" / "below"


@pytest.mark.parametrize("where", ["file in the way", "is a file", "sysfs"])
def test_a_cache_the_system_refuses_is_a_named_error(where, tmp_path):
    if where == "sysfs" and not Path("/sys/kernel").is_dir():
        pytest.skip("needs Linux's /sys")
    cache = {"file in the way": _blocked(tmp_path), "is a file": tmp_path / "a-file",
             "sysfs": REFUSING}[where]
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CacheError, match=r"the sample cache .* cannot be used: .*choose another folder") as caught:
        datasets.fetch("weps-2-reference", cache=cache, progress=False)
    assert str(cache) in str(caught.value)
    with pytest.raises(CacheError):
        samples.remove("weps-2-reference", cache=_blocked(tmp_path))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_cache_is_a_named_error(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(CacheError, match="Permission denied"):
            datasets.fetch("weps-2-reference", cache=tmp_path / "cache", progress=False)
    finally:
        tmp_path.chmod(0o700)


def test_writers_name_what_the_system_refuses(tmp_path):
    gold = {"q1": Organization.parse("d1")}
    blocked = _blocked(tmp_path)
    for write in (lambda p: write_whole(p, b"x"), lambda p: write_folder(p, {"a": b"x"}),
                  lambda p: write_trec_qrels(gold, p), lambda p: write_weps_clustering(p, gold)):
        with pytest.raises(WriteError, match=r"cannot .* \(Not a directory") as caught:
            write(blocked / "out")
        assert str(blocked / "out") in str(caught.value)
    with pytest.raises(WriteError, match="is a file, not a folder"):
        write_weps_clustering(tmp_path / "a-file", gold)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing half-written beside it


@needs_sysfs
def test_a_folder_the_system_refuses_is_a_named_error():
    with pytest.raises(WriteError, match=r"cannot create the folder \(Operation not permitted"):
        write_folder(REFUSING / "out", {"a": b"x"})
    with pytest.raises(WriteError, match=r"cannot write a file in its folder \(Permission denied"):
        write_whole(REFUSING, b"x")


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from workbench.data.weps import write_weps_clustering
    from workbench.model import Organization
    folder, tag, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    topics = {f"topic{i:03d}": Organization.parse(f"{{{tag}-{i} x}}") for i in range(150)}
    while not go.exists():
        time.sleep(0.001)
    write_weps_clustering(folder, topics)
""")


@pytest.mark.parametrize("existing", [False, True], ids=["new folder", "existing folder"])
def test_two_processes_writing_one_weps_folder_end_with_one_whole_result(existing, tmp_path):
    """Two real processes write 150 topics each into one folder at the same moment, five times over: both
    succeed and every topic file is one writer's (the folder new or already there). Before, the second rename
    failed with 'OSError: Directory not empty', and file-by-file writers into an existing folder interleaved."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for round_ in range(5):
        folder, go = tmp_path / f"round{round_}" / "gold", tmp_path / f"go{round_}"
        if existing:
            folder.mkdir(parents=True)
            (folder / "kept.txt").write_text("another file, kept")
        writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(folder), tag, str(go)], env=env,
                                    stderr=subprocess.PIPE, text=True) for tag in ("a", "b")]
        time.sleep(1.5)  # both started and waiting
        go.touch()
        errors = [writer.communicate(timeout=120)[1] for writer in writers]
        assert [writer.returncode for writer in writers] == [0, 0], errors
        tags = {org.format().split("-")[0].strip("{") for org in read_weps_clustering(folder).values()}
        assert len(tags) == 1, f"round {round_}: topics from both writers {tags}"
        assert len(read_weps_clustering(folder)) == 150
        assert (folder / "kept.txt").exists() == existing
        assert [p.name for p in folder.parent.iterdir()] == ["gold"]  # no staging folder left
