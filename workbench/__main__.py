"""``python -m workbench`` and the console script ``workbench``: see :mod:`workbench.cli`.

The command line is the whole process: before numpy is first imported, OpenBLAS is told to start no threads of
its own (``OPENBLAS_NUM_THREADS=1`` unless the environment sets it). No command multiplies matrices large enough
for BLAS's threads to pay; starting them costs about 0.03 CPU-s per process (``eval -m AP nDCG P@10 RR`` on
2,000 queries × 1,000 documents, 8 interleaved runs: median 1.05 → 0.98 CPU-s, peak 223 → 220 MB). The work of
the readers and of the scoring is shared among threads of the workbench's own (:mod:`workbench.threads`).

When the interpreter ends, after every other exit handler (Arrow's among them) and once standard output and error
are flushed, the process ends with the command's status without tearing the interpreter down (``os._exit``), as
a C program's ``exit`` leaves its memory to the system: freeing numpy's, pandas' and Arrow's modules and their
arrays one by one took 0.03–0.04 s of every run (``eval`` on 2,000 queries × 1,000 documents, 12 interleaved
runs: median wall 0.83 → 0.79 s). A flush that fails leaves the end to Python, which reports it as before.
"""

import atexit
import os
import sys

__all__ = ["run"]


def run() -> int:
    """Run the command line as a whole process (the console script's entry point): OpenBLAS without threads of its
    own, then :func:`workbench.cli.main`; returns its exit status, with which the process ends when the
    interpreter does (:func:`_end`)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    status: list[int] = []
    atexit.register(_end, status)  # the first registered, run the last
    from workbench.cli import main  # after the environment numpy reads when imported

    status.append(main())
    return status[0]


def _end(status: list[int]) -> None:
    """Flush standard output and error and end the process with the command's ``status`` (none: the command did
    not finish, and Python ends as usual), skipping the interpreter's teardown."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):  # a closed or full output: Python's own end says so, as it did
        return
    if status:
        os._exit(status[0])


if __name__ == "__main__":
    raise SystemExit(run())
