"""Readers and writers for evaluation-campaign files (TREC, WePS, RepLab), and campaigns (gold + runs)
evaluated into tidy tables. Each name is imported on first use (:mod:`workbench.lazy`)."""

from workbench.lazy import lazy_exports

_MODULES = {
    "workbench.data.campaign": ("Campaign", "CampaignError", "MissingTopicsWarning", "means"),
    "workbench.data.distributed": ("CampaignInterruptedError", "UnpicklableMeasureError"),
    "workbench.data.frames": ("FrameError",),
    "workbench.data.ranked": ("DuplicateEntryError", "Judgements", "RankedRun"),
    "workbench.data.replab": ("ReplabEncodingError", "ReplabFormatError", "read_replab", "write_replab"),
    "workbench.data.trec": ("TrecFormatError", "qrels_grades", "read_trec_eval_output", "read_trec_qrels",
                            "read_trec_qrels_frame", "read_trec_run", "read_trec_run_frame", "run_scores",
                            "write_trec_eval_output", "write_trec_qrels", "write_trec_run"),
    "workbench.data.weps": ("WepsFormatError", "read_weps_clustering", "read_weps_runs", "write_weps_clustering"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
