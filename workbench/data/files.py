"""Files the workbench writes: whole or not at all (:func:`write_whole`, :func:`write_folder`), with the permissions
other tools give, the system's refusals raised as :class:`WriteError` naming the path."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from os import PathLike
from pathlib import Path

from workbench.errors import OutputError
from workbench.reading.sources import file_path

__all__ = ["WriteError", "umask", "file_mode", "write_whole", "write_folder"]


class WriteError(OutputError):
    """The system refused to write a file or folder (no permission, a file where a folder should be, a full
    disk): ``path`` and the cause are named; nothing half-written is left."""

    def __init__(self, message: str, *, path: str | PathLike | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path is not None else message)


def _refused(problem: OSError, path: Path, doing: str) -> WriteError:
    """``problem`` as the :class:`WriteError` naming what was being done and where."""
    where = Path(problem.filename) if problem.filename else path
    return WriteError(f"cannot {doing} ({problem.strerror or problem}{'' if where == path else f': {where}'})",
                      path=path)


def umask() -> int:
    """This process's umask (Linux says it in ``/proc``; elsewhere it is set and put back at once)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode(target: str | PathLike, folder: bool = False) -> int:
    """The permissions a file (or ``folder``) written at ``target`` gets, as other tools give them: those of the
    file it replaces, else ``0o666`` (``0o777`` for a folder) less the umask. Temporary files are created
    ``0o600`` (``0o700``) and would keep that."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        return (0o777 if folder else 0o666) & ~umask()


def write_whole(path: str | PathLike, data: bytes) -> None:
    """Write the file whole or not at all: into a temporary file beside it, then renamed over it, with the
    permissions :func:`file_mode` gives. The system's refusals raise :class:`WriteError`."""
    target = Path(file_path(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as problem:
        raise _refused(problem, target, "write a file in its folder") from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, file_mode(target))
        os.replace(temporary, target)
    except OSError as problem:
        raise _refused(problem, target, "write the file") from None
    finally:
        Path(temporary).unlink(missing_ok=True)


def write_folder(folder: str | PathLike, files: Mapping[str, bytes]) -> None:
    """Write ``{file name: bytes}`` into ``folder`` (created if absent) whole or not at all: into a temporary
    folder beside it, then renamed into place (the folder itself when it did not exist, else file by file over
    the files of the same names, others kept), with the permissions :func:`file_mode` gives. Writers of one
    folder take turns (a lock on the parent folder, where the system has ``flock``): two processes writing the
    same folder at once end with one's files whole, both succeeding. The system's refusals raise
    :class:`WriteError`."""
    folder = Path(file_path(folder, "folder"))
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    except OSError as problem:
        raise _refused(problem, folder, "create the folder") from None
    try:
        for name, data in files.items():
            (staging / name).write_bytes(data)
        with _turn(folder.parent):
            if not os.path.lexists(folder):
                staging.chmod(file_mode(folder, folder=True))
                staging.rename(folder)
                return
            if not folder.is_dir():
                raise WriteError("is a file, not a folder: cannot write files into it", path=folder)
            for name in files:
                os.chmod(staging / name, file_mode(folder / name))
                os.replace(staging / name, folder / name)
    except OSError as problem:
        raise _refused(problem, folder, "write the folder") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextmanager
def _turn(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` while the body runs (nothing without ``fcntl`` or a readable
    folder): writers of one folder's files take turns, and nothing is left on disk."""
    try:
        import fcntl

        handle = os.open(folder, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)
