"""The one reading layer under every reader of users' files and texts (TREC qrels, runs, preferences and
z-scores; WePS; RepLab; PyEvALL's JSON, TSV, CSV and hierarchies; trec_eval's output; the widget's text and JSON
imports), so that a fix made here holds for every reader, and a new reader starts from it:

* :mod:`~workbench.reading.sources`: paths (what :func:`~workbench.reading.sources.file_path` accepts), bytes
  from files, gzip data and standard input, within a size limit;
* :mod:`~workbench.reading.text`: bytes to text (the encoding, a byte-order mark, CR-only line ends), every
  refusal located and saying how the bytes were read (:meth:`~workbench.reading.text.Text.fail`);
* :mod:`~workbench.reading.positions`: line and column of any position, in linear total time;
* :mod:`~workbench.reading.fields`: delimited rows and quoting (an unbalanced quote is an error naming its line);
* :mod:`~workbench.reading.numbers`: numbers as C reads them, of any length;
* :mod:`~workbench.reading.json_input`: JSON within limits (nesting depth, number length and range).

Every failure is an :class:`~workbench.errors.InputError` of the reader's family, naming the file, the line (and
column) and what was expected; ``tests/test_hostile_inputs.py`` walks every reader with a corpus of hostile files.
"""

__all__: list[str] = []
