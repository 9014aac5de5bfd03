"""``python -m workbench``: see :mod:`workbench.cli`."""

import os

if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:  # the user's own choice wins
    from numpy._core import multiarray

    # A short process touching its large arrays once: numpy's MADV_HUGEPAGE makes first touches slow where the
    # kernel compacts memory for huge pages (system time). Measured on 2,000 queries x 1,000 documents,
    # `eval -m AP nDCG P@10 RR`, 7 runs each, interleaved: median 1.66 s -> 1.40 s wall, worst 1.93 s -> 1.50 s
    # (system time 0.55 s -> 0.36 s); a Campaign script likewise 1.37 s -> 1.28 s. The library leaves it alone.
    getattr(multiarray, "_set_madvise_hugepage", lambda enabled: enabled)(False)

from workbench.cli import main  # noqa: E402

raise SystemExit(main())
