"""Readers and writers for evaluation-campaign files (TREC, WePS, RepLab, PyEvALL), and campaigns (gold + runs)
evaluated into tidy tables. Each name is imported on first use (:mod:`workbench.lazy`)."""

from workbench.lazy import lazy_exports

_MODULES = {
    "workbench.data.campaign": ("Campaign", "CampaignError", "MissingTopicsWarning", "means"),
    "workbench.data.distributed": ("CampaignInterruptedError", "UnpicklableMeasureError"),
    "workbench.data.pyevall": ("PyEvALLFormatError", "read_hierarchy", "read_pyevall",
                               "read_pyevall_campaign"),
    "workbench.data.pyevall_reports": ("pyevall_report",),
    "workbench.data.read": ("read_campaign", "read_gold", "read_runs", "sniff_format"),
    "workbench.data.replab": ("ReplabEncodingError", "ReplabFormatError", "read_replab", "write_replab"),
    "workbench.data.streamed": ("StreamWarning", "evaluate_files"),
    "workbench.data.trec.costs": ("read_cwl_costs",),
    "workbench.data.trec.errors": ("FrameError", "TrecEncodingError", "TrecFormatError", "TrecReadingWarning"),
    "workbench.data.trec.eval_output": ("read_trec_eval_output", "write_trec_eval_output"),
    "workbench.data.trec.memory": ("evaluate_run",),
    "workbench.data.trec.ranked": ("DuplicateEntryError", "Judgements", "RankedRun"),
    "workbench.data.trec.ranx_files": ("RanxFormatError", "RanxWriteError", "read_ranx_qrels", "read_ranx_run",
                                       "write_ranx_qrels", "write_ranx_run"),
    "workbench.data.trec.readers": ("qrels_grades", "read_trec_qrels", "read_trec_qrels_frame", "read_trec_run",
                                    "read_trec_run_frame", "run_scores"),
    "workbench.data.trec.writers": ("TrecWriteError", "write_trec_qrels", "write_trec_run"),
    "workbench.data.weps": ("WepsFormatError", "read_weps_clustering", "read_weps_runs", "write_weps_clustering"),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
