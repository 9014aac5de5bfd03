"""TREC files, and campaigns from what users hold in memory, read the one way trec_eval 10.0 reads them.

The parts, each importing only those before it (none imports pandas but the frames and the frame readers):

* :mod:`~workbench.reading.numbers`: C's ``atof`` and ``atol``, as trec_eval reads scores and grades;
* :mod:`~workbench.data.trec.scan` and :mod:`~workbench.data.trec.arrow`: lines cut into fields at C's whitespace,
  by a numpy scanner or, for plain files, Arrow's CSV reader;
* :mod:`~workbench.data.trec.lines`: a qrels or run file as columns (:func:`read_lines`), with notes on what is
  read otherwise than it is written;
* :mod:`~workbench.data.trec.ranked`: :class:`Judgements` and :class:`RankedRun`, rankings in trec_eval's order
  (one ``-M`` cut, one duplicate refusal);
* :mod:`~workbench.data.trec.join`: rankings joined to judgements into the gain table every ranking measure reads;
* :mod:`~workbench.data.trec.memory` and :mod:`~workbench.data.trec.frames`: dicts, records and DataFrames through
  the same arrays;
* :mod:`~workbench.data.trec.readers`, :mod:`~workbench.data.trec.writers`: the public readers and writers;
* :mod:`~workbench.data.trec.columns` and, on it, the other files trec_eval reads:
  :mod:`~workbench.data.trec.preferences` (``-R prefs``, ``-R qrels_prefs``, counted against a run),
  :mod:`~workbench.data.trec.judgement_groups` (``-R qrels_jg``, joined to a run) and
  :mod:`~workbench.data.trec.zscores` (``-Z``).

Each public name is imported on first use (:mod:`workbench.lazy`).
"""

from workbench.lazy import lazy_exports

_MODULES = {
    "workbench.data.trec.errors": ("TrecEncodingError", "TrecFormatError", "TrecReadingWarning"),
    "workbench.data.trec.lines": ("Labels", "TrecLines", "read_lines"),
    "workbench.data.trec.ranked": ("DuplicateEntryError", "Judgements", "RankedRun", "SubtopicJudgements",
                                   "judgements", "rank_runs", "subtopic_judgements"),
    "workbench.data.trec.join": ("gain_table", "subtopic_table"),
    "workbench.data.trec.memory": ("evaluate_run", "judgements_from_dicts", "judgements_from_records",
                                   "runs_from_dicts", "runs_from_records", "table_from_dicts"),
    "workbench.data.trec.frames": ("FrameError", "judgements_from_frame", "runs_from_frames"),
    "workbench.data.trec.readers": ("read_trec_qrels", "read_trec_qrels_frame", "read_trec_run",
                                    "read_trec_run_frame", "qrels_grades", "run_scores"),
    "workbench.data.trec.writers": ("TrecWriteError", "write_trec_qrels", "write_trec_run"),
    "workbench.data.trec.eval_output": ("read_trec_eval_output", "write_trec_eval_output"),
    "workbench.data.trec.preferences": ("count_topics", "read_preferences"),
    "workbench.data.trec.judgement_groups": ("group_table", "read_judgement_groups"),
    "workbench.data.trec.zscores": ("read_zscores",),
    "workbench.data.trec.costs": ("read_cwl_costs",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
