"""Readers and writers for evaluation-campaign files (TREC, WePS, RepLab), and campaigns (gold + runs)
evaluated into tidy tables."""

from workbench.data.campaign import Campaign, CampaignError, MissingTopicsWarning, means
from workbench.data.distributed import CampaignInterruptedError, UnpicklableMeasureError
from workbench.data.frames import FrameError
from workbench.data.ranked import DuplicateEntryError, Judgements, RankedRun
from workbench.data.replab import ReplabEncodingError, ReplabFormatError, read_replab, write_replab
from workbench.data.trec import (
    TrecFormatError,
    qrels_grades,
    read_trec_eval_output,
    read_trec_qrels,
    read_trec_qrels_frame,
    read_trec_run,
    read_trec_run_frame,
    run_scores,
    write_trec_eval_output,
    write_trec_qrels,
    write_trec_run,
)
from workbench.data.weps import WepsFormatError, read_weps_clustering, read_weps_runs, write_weps_clustering

__all__ = [
    "Campaign",
    "CampaignError",
    "CampaignInterruptedError",
    "DuplicateEntryError",
    "FrameError",
    "Judgements",
    "MissingTopicsWarning",
    "RankedRun",
    "ReplabEncodingError",
    "ReplabFormatError",
    "TrecFormatError",
    "UnpicklableMeasureError",
    "WepsFormatError",
    "means",
    "qrels_grades",
    "read_replab",
    "read_trec_eval_output",
    "read_trec_qrels",
    "read_trec_qrels_frame",
    "read_trec_run",
    "read_trec_run_frame",
    "read_weps_clustering",
    "read_weps_runs",
    "run_scores",
    "write_replab",
    "write_trec_eval_output",
    "write_trec_qrels",
    "write_trec_run",
    "write_weps_clustering",
]
