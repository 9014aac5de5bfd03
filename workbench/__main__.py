"""``python -m workbench`` and the console script ``workbench``: see :mod:`workbench.cli`.

The command line is the whole process: before numpy is first imported, OpenBLAS is told to start no threads of
its own (``OPENBLAS_NUM_THREADS=1`` unless the environment sets it). No command multiplies matrices large enough
for BLAS's threads to pay; starting them costs about 0.03 CPU-s per process (``eval -m AP nDCG P@10 RR`` on
2,000 queries × 1,000 documents, 8 interleaved runs: median 1.05 → 0.98 CPU-s, peak 223 → 220 MB). The work of
the readers and of the scoring is shared among threads of the workbench's own (:mod:`workbench.threads`).
"""

import os

__all__ = ["run"]


def run() -> int:
    """Run the command line as a whole process (the console script's entry point): OpenBLAS without threads of its
    own, then :func:`workbench.cli.main`; returns its exit status."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from workbench.cli import main  # after the environment numpy reads when imported

    return main()


if __name__ == "__main__":
    raise SystemExit(run())
