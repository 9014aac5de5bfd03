"""What the catalogue says where a peer departs (issue 43 item 4): ir_measures' cwl_eval, compat and accuracy
providers order tied scores their own way, so "equal to the provider" holds on runs without ties, and ``NumQ`` of
a topic the run lacks is 1 as ``trec_eval -c`` counts it and 0 in ir_measures."""

from __future__ import annotations

import warnings

import pytest

from tests.conftest import reference_module
from workbench.catalogue import entry
from workbench.data import Campaign
from workbench.data.campaign import means
from workbench.metrics.registry import spec_of

TIE_FREE = "equal to it on runs without tied scores"


@pytest.mark.parametrize("name", ["SDCG", "INSQ", "INST", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "Judged",
                                  "Compat", "PairwiseAccuracy", "TBG", "U-measure", "IFT-C1", "IFT-C2", "IFT-C1-C2"])
def test_the_catalogue_says_equality_with_the_provider_holds_without_ties(name):
    assert TIE_FREE in entry(spec_of(name))


def test_the_catalogue_says_what_numq_counts_for_a_topic_the_run_lacks():
    text = entry(spec_of("NumQ"))
    assert "counts 1 when scored as trec_eval -c scores it" in text and "0 in ir_measures" in text


def test_numq_of_a_missing_topic_is_one_with_trec_eval_c_and_as_ir_measures_when_skipped():
    qrels = {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}, "q3": {"d4": 1}}
    run = {"q1": {"d1": 1.0, "d2": 0.5}}
    campaign = Campaign.from_dicts(qrels, {"sys": run})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        counted = means(campaign.evaluate(["NumQ"], progress=False)).value.iloc[0]
        skipped = means(campaign.evaluate(["NumQ"], missing_topics="skip", progress=False)).value.iloc[0]
    assert (counted, skipped) == (3.0, 1.0)
    ir_measures = reference_module("ir_measures")
    assert ir_measures.calc_aggregate([ir_measures.NumQ], qrels, run)[ir_measures.NumQ] == skipped
