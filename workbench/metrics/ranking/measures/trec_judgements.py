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

# The formulas' terms (:mod:`~workbench.metrics.ranking.preferences` counts them): _WHERE, _COUNTED, _PAIR.
_ALL = "(F_ret(j) + F_imp(j)) / (P_ret(j) + P_imp(j) + P_none(j))"
_IMP = "(F_ret(j) + F_imp(j)) / (P_ret(j) + P_imp(j))"
_PAIR = ("Σ_{{(a, b)}} n(a ≻ b) / (n(a ≻ b) + n(b ≻ a)) / |pairs|, over the pairs with a preference {which}, a "
         "ranked above b, n(a ≻ b) the judgement groups preferring a to b")
_WHERE = ("; per judgement group j of J: F_ret(j), F_imp(j) the preferences fulfilled between two retrieved "
          "documents, and between a retrieved and an unretrieved one; P_ret(j), P_imp(j), P_none(j) those possible "
          "between two, one and no retrieved documents")
_COUNTED = "; R(j), N(j) its relevant (level > 0) and non-relevant documents, R_ret(j), N_ret(j) those retrieved"
_COUNTS = {
    "prefs_num_prefs_poss": ("the number of preferences the judgements hold",
                             "Σ_j (P_ret(j) + P_imp(j) + P_none(j))"),
    "prefs_num_prefs_ful": ("the number of preferences the ranking fulfils", "Σ_j (F_ret(j) + F_imp(j))"),
    "prefs_num_prefs_ful_ret": ("the number of preferences fulfilled between retrieved documents", "Σ_j F_ret(j)"),
}
_SHARES = {
    "prefs_simp": ("the fraction of the preferences fulfilled",
                   "Σ_j (F_ret(j) + F_imp(j)) / Σ_j (P_ret(j) + P_imp(j) + P_none(j)), 0 without preferences"),
    "prefs_pair": ("the fraction of fulfilled preferences, averaged over the document pairs",
                   _PAIR.format(which="(a pair of unretrieved documents adds 0)")),
    "prefs_avgjg": ("the fraction of preferences fulfilled, averaged over the judgement groups",
                    f"(1/J) Σ_j {_ALL}, a JG without preferences adding 0"),
    "prefs_avgjg_Rnonrel": ("prefs_avgjg with R relevant and R non-relevant documents per group",
                            "(1/J) Σ_j F′(j) / P′(j): F′ = F_ret + F_imp + R_ret(j)·(R(j) − N(j)), P′ = P_ret + "
                            "P_imp + P_none + R(j)·(R(j) − N(j)) where R(j) ≥ N(j); where N(j) > R(j), F′ and P′ "
                            "count the first R(j) non-relevant documents only"),
    "prefs_simp_ret": ("prefs_simp over the retrieved documents only", "Σ_j F_ret(j) / Σ_j P_ret(j)"),
    "prefs_pair_ret": ("prefs_pair over the retrieved documents only",
                       _PAIR.format(which="between two retrieved documents")),
    "prefs_avgjg_ret": ("prefs_avgjg over the retrieved documents only", "(1/J) Σ_j F_ret(j) / P_ret(j)"),
    "prefs_avgjg_Rnonrel_ret": ("prefs_avgjg_Rnonrel over the retrieved documents only",
                                "(1/J) Σ_j F′(j) / P′(j): F′ = F_ret + R_ret(j)·(R_ret(j) − N_ret(j)), P′ = P_ret + "
                                "R(j)·(R_ret(j) − N_ret(j)) where R_ret(j) ≥ N_ret(j); where N_ret(j) > R_ret(j), "
                                "F′ and P′ count the first R(j) retrieved non-relevant documents only"),
    "prefs_simp_imp": ("prefs_simp counting the implied preferences too",
                       "Σ_j (F_ret(j) + F_imp(j)) / Σ_j (P_ret(j) + P_imp(j))"),
    "prefs_pair_imp": ("prefs_pair counting the implied preferences too",
                       _PAIR.format(which="and a retrieved document")),
    "prefs_avgjg_imp": ("prefs_avgjg counting the implied preferences too", f"(1/J) Σ_j {_IMP}"),
}
_PREFS = ("prefs_simp", "prefs_pair", "prefs_avgjg")
"""The shares ``-m prefs`` prints, with the counts (``-m all_prefs`` prints every preference measure)."""
for _name, (_what, _formula) in _COUNTS.items():
    _formula += _WHERE
    drop_in_measure(_name, PreferenceMeasure(getattr(pm, _name), _name), aggregate="sum", range=(0.0, math.inf),
                    description=f"{_what} (trec_eval {_name}; summed over topics)", formula=f"{_name} = {_formula}",
                    trec_eval=TrecEvalName(_name, "long", groups=("all_prefs", "prefs")))
for _name, (_what, _formula) in _SHARES.items():
    _formula += "" if _name.startswith("prefs_pair") else _WHERE + (_COUNTED if "Rnonrel" in _name else "")
    drop_in_measure(_name, PreferenceMeasure(getattr(pm, _name), _name), description=f"{_what} (trec_eval {_name})",
                    formula=f"{_name} = {_formula}",
                    trec_eval=TrecEvalName(_name, groups=("all_prefs", "prefs") if _name in _PREFS else ("all_prefs",)))

drop_in_measure("map_avgjg", GroupMeasure(jg.map_avgjg, "map_avgjg"), params=REL,
                trec_eval=TrecEvalName("map_avgjg", groups=("qrels_jg",)),
                description="AP averaged over the judgement groups of a topic (trec_eval map_avgjg)",
                formula="map_avgjg = (1/J) Σ_j AP(j), AP(j) against judgement group j's judgements, J the topic's "
                        "groups")
drop_in_measure("P_avgjg", GroupMeasure(jg.precision_avgjg, "P_avgjg"), params={**cutoff(10), **REL}, cutoff="k",
                trec_eval=TrecEvalName("P_avgjg", "cut_long", TREC_CUTOFFS, groups=("qrels_jg",)),
                description="P@k averaged over the judgement groups of a topic (trec_eval P_avgjg)",
                formula="P_avgjg@k = (1/J) Σ_j Σ_{r ≤ k} relevant_j(r) · 1/k, relevant_j by judgement group j's "
                        "judgements, J the topic's groups")
drop_in_measure("Rprec_mult_avgjg", GroupMeasure(jg.r_precision_multiple_avgjg, "Rprec_mult_avgjg"),
                params={"multiple": Param(1.0, Interval(0), "the multiple m of R: precision at ⌊m·R + 0.9⌋"), **REL},
                cutoff="multiple",
                trec_eval=TrecEvalName("Rprec_mult_avgjg", "cut_double", TREC_MULTIPLES, groups=("qrels_jg",)),
                description="Rprec_mult averaged over the judgement groups of a topic (trec_eval Rprec_mult_avgjg)",
                formula="Rprec_mult_avgjg = (1/J) Σ_j Σ_{r ≤ c(j)} relevant_j(r) · 1/c(j), c(j) = ⌊m·R(j) + 0.9⌋ "
                        "(0 where c(j) = 0), R(j) and relevant_j by judgement group j's judgements, J the topic's "
                        "groups")
