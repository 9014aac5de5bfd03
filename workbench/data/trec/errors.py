"""What reading a TREC file can say: :class:`DuplicateEntryError` (a document given twice for one topic, by its
positions in the input, before a reader names its lines or rows), :class:`TrecFormatError` (what trec_eval
refuses, named by file, line and text), :class:`TrecEncodingError`, and :class:`TrecReadingWarning` (a value read
otherwise than it is written, as trec_eval reads it)."""

from __future__ import annotations

from workbench.errors import InputError
from workbench.reading.text import ReadingWarning

__all__ = ["DuplicateEntryError", "TrecFormatError", "TrecDuplicateError", "TrecEncodingError", "TrecReadingWarning",
           "FrameError"]


class DuplicateEntryError(InputError):
    """A document given twice for one topic (of one system): ``first`` and ``again`` are the positions of
    the two entries in the input, which the readers turn into lines or rows."""

    def __init__(self, document: str, topic: str, system: str | None, first: int, again: int) -> None:
        self.document, self.topic, self.system, self.first, self.again = document, topic, system, first, again
        owner = f" of system {system!r}" if system is not None else ""
        super().__init__(f"document {document!r} of topic {topic!r}{owner} is given twice (entries {first} "
                         f"and {again}); trec_eval stops on duplicate documents")


class TrecFormatError(InputError):
    """A malformed TREC file: ``path``, ``line`` (1-based, or None for the whole file) and ``text``."""


class TrecDuplicateError(TrecFormatError):
    """A document listed twice for one topic (trec_eval: "duplicate docs"), named by both lines."""


class TrecEncodingError(TrecFormatError):
    """The file's bytes cannot be read in the encoding asked for (``encoding=``; ``--encoding`` on the CLI)."""


class TrecReadingWarning(ReadingWarning):
    """A TREC file holds values that are read otherwise than they are written, as trec_eval 10.0 reads them
    (a score ``1_000`` as 1, a grade ``2.5`` as 2, a non-breaking space kept inside an id...): the message
    names the file, the lines and each reading. The command line prints it as a ``note:`` line."""


class FrameError(InputError):
    """A DataFrame, dict or record that cannot be read as judgements or a run: names the column (or the query
    and document) and the first offending row."""
