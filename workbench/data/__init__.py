"""Readers and writers for evaluation-campaign files, and campaigns (gold + runs) evaluated to tidy tables."""

from workbench.data.campaign import Campaign, CampaignError, MissingTopicsWarning, means
from workbench.data.replab import ReplabEncodingError, ReplabFormatError, read_replab, write_replab
from workbench.data.weps import WepsFormatError, read_weps_clustering, read_weps_runs, write_weps_clustering

__all__ = [
    "Campaign",
    "CampaignError",
    "MissingTopicsWarning",
    "ReplabEncodingError",
    "ReplabFormatError",
    "WepsFormatError",
    "means",
    "read_replab",
    "read_weps_clustering",
    "read_weps_runs",
    "write_replab",
    "write_weps_clustering",
]
