"""trec_eval's measures over judgements other than qrels: the preference measures (``prefs_*``, read with
``-R prefs`` or ``-R qrels_prefs``) and the measures averaged over judgement groups (``*_avgjg``, ``-R qrels_jg``).

Their names are trec_eval's; only the ``trec_eval`` drop-in reads such judgements, so they are declared here for
the drop-in and the catalogue (a gold organization has no preferences to read). The kernels live in
:mod:`workbench.metrics.ranking.preferences` and :mod:`~workbench.metrics.ranking.judgement_groups`.
"""

from __future__ import annotations

import math

from workbench.metrics.ranking import judgement_groups as jg
from workbench.metrics.ranking import preferences as pm
from workbench.metrics.ranking.declare import (
    REL,
    TREC_CUTOFFS,
    TREC_MULTIPLES,
    GroupMeasure,
    PreferenceMeasure,
    TrecEvalName,
    cutoff,
    drop_in_measure,
)
from workbench.metrics.registry import Interval, Param

__all__: list[str] = []

_COUNTS = {
    "prefs_num_prefs_poss": "the number of preferences the judgements hold",
    "prefs_num_prefs_ful": "the number of preferences the ranking fulfils",
    "prefs_num_prefs_ful_ret": "the number of preferences fulfilled between retrieved documents",
}
_SHARES = {
    "prefs_simp": "the fraction of the preferences fulfilled",
    "prefs_pair": "the fraction of fulfilled preferences, averaged over the document pairs",
    "prefs_avgjg": "the fraction of preferences fulfilled, averaged over the judgement groups",
    "prefs_avgjg_Rnonrel": "prefs_avgjg with R relevant and R non-relevant documents per group",
    "prefs_simp_ret": "prefs_simp over the retrieved documents only",
    "prefs_pair_ret": "prefs_pair over the retrieved documents only",
    "prefs_avgjg_ret": "prefs_avgjg over the retrieved documents only",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over the retrieved documents only",
    "prefs_simp_imp": "prefs_simp counting the implied preferences too",
    "prefs_pair_imp": "prefs_pair counting the implied preferences too",
    "prefs_avgjg_imp": "prefs_avgjg counting the implied preferences too",
}
_PREFS = ("prefs_simp", "prefs_pair", "prefs_avgjg")
"""The shares ``-m prefs`` prints, with the counts (``-m all_prefs`` prints every preference measure)."""
for _name, _what in _COUNTS.items():
    drop_in_measure(_name, PreferenceMeasure(getattr(pm, _name), _name), aggregate="sum", range=(0.0, math.inf),
                    description=f"{_what} (trec_eval {_name}; summed over topics)",
                    trec_eval=TrecEvalName(_name, "long", groups=("all_prefs", "prefs")))
for _name, _what in _SHARES.items():
    drop_in_measure(_name, PreferenceMeasure(getattr(pm, _name), _name), description=f"{_what} (trec_eval {_name})",
                    trec_eval=TrecEvalName(_name, groups=("all_prefs", "prefs") if _name in _PREFS else ("all_prefs",)))

drop_in_measure("map_avgjg", GroupMeasure(jg.map_avgjg, "map_avgjg"), params=REL,
                trec_eval=TrecEvalName("map_avgjg", groups=("qrels_jg",)),
                description="AP averaged over the judgement groups of a topic (trec_eval map_avgjg)")
drop_in_measure("P_avgjg", GroupMeasure(jg.precision_avgjg, "P_avgjg"), params={**cutoff(10), **REL}, cutoff="k",
                trec_eval=TrecEvalName("P_avgjg", "cut_long", TREC_CUTOFFS, groups=("qrels_jg",)),
                description="P@k averaged over the judgement groups of a topic (trec_eval P_avgjg)")
drop_in_measure("Rprec_mult_avgjg", GroupMeasure(jg.r_precision_multiple_avgjg, "Rprec_mult_avgjg"),
                params={"multiple": Param(1.0, Interval(0), "the multiple m of R: precision at ⌊m·R + 0.9⌋"), **REL},
                cutoff="multiple",
                trec_eval=TrecEvalName("Rprec_mult_avgjg", "cut_double", TREC_MULTIPLES, groups=("qrels_jg",)),
                description="Rprec_mult averaged over the judgement groups of a topic (trec_eval Rprec_mult_avgjg)")
