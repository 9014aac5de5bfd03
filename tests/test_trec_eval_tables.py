"""Issue 39 item 4: the drop-in's tables are generated from the declarations.

trec_eval's name, kind, default parameters and groups of a measure live on its declaration
(:class:`~workbench.metrics.registry.TrecEvalName`, :attr:`MeasureSpec.trec_eval`); ``workbench.trec_eval``'s
:data:`MEASURES` and :data:`NICKNAMES` are generated from them. Checked in both directions: every trec_eval name a
declaration gives is a row of the drop-in, with the declared kind, defaults and groups; every row and every name a
nickname selects comes from a declaration (``runid``, the run's tag, is the one row that is no measure); the print
order is trec_eval 10.0's (the rows the recorded outputs of ``test_trec_eval*.py`` print byte for byte).
"""

from __future__ import annotations

import numpy as np
import pytest

from workbench import trec_eval
from workbench.metrics.ranking.declare import TableMeasure
from workbench.metrics.registry import (
    TREC_EVAL_GROUPS,
    MeasureRegistrationError,
    TrecEvalName,
    registered,
    spec_of,
    specs,
)

DECLARED = [(spec, form) for spec in specs() for form in spec.trec_eval]


@pytest.mark.parametrize(("spec", "form"), DECLARED, ids=[form.name for _, form in DECLARED])
def test_every_declared_trec_eval_name_is_a_row_as_declared(spec, form):
    row = trec_eval._BY_NAME[form.name]
    assert row.spec is spec and row.name in spec.spellings["trec_eval"]
    assert TrecEvalName(**{key: value for key, value in vars(row).items() if key != "declaration"}) == form
    for group in TREC_EVAL_GROUPS:
        assert (form.name in trec_eval.NICKNAMES[group]) == (group in form.groups), group


def test_every_row_comes_from_a_declaration():
    names = [row.name for row in trec_eval.MEASURES]
    assert len(names) == len(set(names)) == len(DECLARED) + 1  # runid is the run's tag, no measure
    for row in trec_eval.MEASURES:
        if row.name == "runid":
            assert row.declaration is None and row.summary == "runid" and row.reads == "any"
            with pytest.raises(LookupError, match="the run's tag"):
                row.spec  # noqa: B018
            continue
        assert row.spec is spec_of(row.name, "trec_eval") and row in [
            trec_eval._BY_NAME[form.name] for form in row.spec.trec_eval]
    for group, selected in trec_eval.NICKNAMES.items():
        assert set(selected) <= set(names) and {"runid", "num_q"} <= set(selected), group
    assert set(trec_eval.ORDER) == set(names)


# trec_eval 10.0's measures.c (usnistgov/trec_eval f425365): te_trec_measures, in its order, and the nicknames'
# name lists (te_trec_measure_nicknames), transcribed
TE_TREC_MEASURES = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
    "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid",
    "unj")
TE_NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                  "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
                  "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
                  "prefs_avgjg_imp"),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


def test_the_print_order_and_groups_are_trec_eval_10s():
    """The generated rows print in te_trec_measures' order; each nickname selects what measures.c lists for it
    (the drop-in prints the selected measures in te_trec_measures' order, so a nickname is its set)."""
    assert tuple(row.name for row in trec_eval.MEASURES) == trec_eval.ORDER == TE_TREC_MEASURES
    assert {group: set(names) for group, names in trec_eval.NICKNAMES.items()} == {
        group: set(names) for group, names in TE_NICKNAMES.items()}


def _first_grade(table, k=1):
    return np.asarray(table.gains[:, :k].sum(axis=1), dtype=float)


def test_a_new_declaration_with_a_trec_eval_name_gets_its_row():
    """A measure declared with a trec_eval name is generated into the drop-in's tables (after trec_eval's own, in
    the groups it declares), without an edit of trec_eval.py."""
    form = TrecEvalName("first_grade", "cut_long", (1, 3), groups=("all_trec",))
    with registered("FirstGrade", TableMeasure(_first_grade), task="ranking", source="a test", trec_eval=form,
                    engine="gain table"):
        rows = trec_eval._generated()
        assert rows[-1].name == "first_grade" and rows[-1].spec is spec_of("first_grade", "trec_eval")
        assert [row.name for row in rows[:-1]] == list(trec_eval.ORDER)
    with registered("Plain", lambda gold, output: 0.5, task="ranking", source="a test",
                    spellings={"trec_eval": "plain_one"}) as spec:
        assert spec.trec_eval == (TrecEvalName("plain_one"),) and spec.spellings["trec_eval"] == ("plain_one",)


@pytest.mark.parametrize(("declared", "message"), [
    ({"trec_eval": TrecEvalName("x", "cuts")}, "trec_eval x's kind must be one of"),
    ({"trec_eval": TrecEvalName("x", groups=("official", "most"))}, "trec_eval x's group must be one of"),
    ({"trec_eval": TrecEvalName("x"), "spellings": {"trec_eval": "x"}}, "give its trec_eval names once"),
])
def test_a_trec_eval_name_declared_wrong_is_refused(declared, message):
    with pytest.raises(MeasureRegistrationError, match=message), registered(
            "Wrong", lambda gold, output: 0.5, task="ranking", source="a test", **declared):
        pass
