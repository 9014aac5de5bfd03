"""Readers and writers for evaluation-campaign files, and campaigns (gold + runs) evaluated to tidy tables."""

from workbench.data.campaign import Campaign, CampaignError, MissingTopicsWarning, means
from workbench.data.replab import ReplabEncodingError, ReplabFormatError, read_replab, write_replab

__all__ = [
    "Campaign",
    "CampaignError",
    "MissingTopicsWarning",
    "ReplabEncodingError",
    "ReplabFormatError",
    "means",
    "read_replab",
    "write_replab",
]
