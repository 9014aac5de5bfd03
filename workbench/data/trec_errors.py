"""The errors of TREC files, in a module of their own so that what needs only them (the drop-in
``python -m workbench trec_eval``) does not import the readers' pandas; :mod:`workbench.data.trec` re-exports
them."""

from __future__ import annotations

from os import PathLike

from workbench.errors import WorkbenchError, excerpt


class TrecFormatError(WorkbenchError):
    """A malformed TREC file: ``path``, ``line`` (1-based, or None for the whole file) and ``text``."""

    def __init__(self, message: str, *, path: str | PathLike | None = None, line: int | None = None,
                 text: str | None = None) -> None:
        self.message, self.path, self.line, self.text = message, path, line, text
        where = str(path) if path is not None else "<input>"
        if line is not None:
            where += f", line {line}"
        detail = f": {excerpt(text)}" if text is not None else ""
        super().__init__(f"{where}: {message}{detail}")


class TrecEncodingError(TrecFormatError):
    """The file's bytes are not valid in the encoding asked for (``encoding=``; ``--encoding`` on the CLI)."""
