"""The optional parts of the install and the error that names a missing one.

The core (measures, readers, :class:`~workbench.data.Campaign`, the analyses, the command line) needs numpy,
pandas, pyarrow, scipy and tqdm only. The widgets, charts and notebooks come with the ``lab`` extra
(``pip install "ir-workbench[lab]"``; ``./wb lab`` installs it); a campaign on a Dask cluster with
``distributed``; ranx's ``.lz4`` runs and qrels with ``lz4`` (the ``dev`` extra has it through ranx). A module
that needs an extra imports it under :func:`needs_extra`, so a missing package is a :class:`MissingExtraError`
saying what to install instead of a bare ``ModuleNotFoundError``:

    >>> with needs_extra("lab", "workbench.charts"):  # doctest: +ELLIPSIS
    ...     import altair.not_a_module_of_altair
    Traceback (most recent call last):
    ...
    workbench.errors.MissingExtraError: workbench.charts needs altair...: pip install "ir-workbench[lab]"
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from workbench.errors import MissingExtraError

__all__ = ["DISTRIBUTION", "EXTRAS", "MissingExtraError", "needs_extra"]

DISTRIBUTION = "ir-workbench"
"""The name the package is installed by (``pip install ir-workbench``); it is imported as ``workbench``."""

EXTRAS = {
    "lab": ("altair", "anywidget", "ipywidgets", "jupyterlab", "jupyterlab_widgets", "vl_convert", "voila"),
    "distributed": ("dask", "distributed"),
    "lz4": ("lz4", "cbor2"),
}
"""Each extra's packages by the name they are imported by (pyproject.toml's optional dependencies)."""




@contextmanager
def needs_extra(extra: str, what: str) -> Iterator[None]:
    """Imports inside this block that fail for a package of ``extra`` raise :class:`MissingExtraError` naming
    ``what`` needed it and the command that installs it; any other import error passes unchanged."""
    try:
        yield
    except ModuleNotFoundError as error:
        if (error.name or "").partition(".")[0] not in EXTRAS[extra]:
            raise
        raise MissingExtraError(f"{what} needs {error.name}, which the {extra!r} extra installs: "
                                f'pip install "{DISTRIBUTION}[{extra}]"') from error
