"""The C/W/L measures of cwl_eval that ir_measures reads: INSQ, INST, NERR8–NERR11 and the static BPM (SDCG, cwl_eval's
NDCG-k, is declared with the gain measures).

Each is Σ_r W(r)·gain(r), the weights following from the continuation probabilities C(r) (the kernels of
:mod:`workbench.metrics.ranking.cwl`); each rank's term is its weight times its gain.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from workbench.metrics.ranking import cwl
from workbench.metrics.ranking.declare import MIN_MAX_REL, ranking_measure
from workbench.metrics.ranking.table import CUTOFF, GainTable
from workbench.metrics.ranking.terms import Terms
from workbench.metrics.registry import Interval, Param

__all__ = ["CWL_EVAL", "DEPTH"]

CWL_EVAL = "the C/W/L framework (Moffat et al., TOIS 2017) as cwl_eval computes it (Azzopardi, Thomas & Moffat, " \
           "SIGIR 2019), ir_measures' cwl_eval provider (equal to it on runs without tied scores: cwl_eval keeps " \
           "tied documents in the order the run gives them, the workbench ranks them as trec_eval does)"


def _terms(formula: str, parts: tuple[np.ndarray, np.ndarray, np.ndarray], width: int) -> Terms:
    gains, continuation, weights = (part[:, :width] for part in parts)  # the ranks past the table gain nothing
    return Terms(weights * gains, formula, {"gain": gains, "continuation": np.broadcast_to(continuation, gains.shape),
                                            "weight": weights})


_SUM = "Σ_r W(r)·gain(r), W(r) = Π_{i<r} C(i) / Σ_j Π_{i<j} C(i), "


def _insq(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
          depth: int | None = cwl.CWL_DEPTH) -> Terms:
    return _terms("INSQ = " + _SUM + "C(i) = ((i + 2T − 1)/(i + 2T))²",
                  cwl.insq_terms(table, T, min_rel, max_rel, depth), table.gains.shape[1])


def _inst(table: GainTable, T: float = 1.0, min_rel: float = 0, max_rel: float | None = None,
          depth: int | None = cwl.CWL_DEPTH) -> Terms:
    return _terms("INST = " + _SUM + "C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − the gain up to i",
                  cwl.inst_terms(table, T, min_rel, max_rel, depth), table.gains.shape[1])


def _nerr(equation: int, continuation: str):
    def terms(table: GainTable, **params) -> Terms:
        return _terms(f"NERR{equation} = " + _SUM + continuation, cwl.nerr_terms(table, equation, **params),
                      table.gains.shape[1])
    return terms


def _bpm(table: GainTable, k: int | None = None, T: float = 1.0, min_rel: float = 0,
         max_rel: float | None = None) -> Terms:
    return _terms("BPM = " + _SUM + "C(i) = 1 while the gain up to i is below T and i < k, else 0: the mean gain of "
                  "the ranks the user looks at", cwl.bpm_terms(table, k, T, min_rel, max_rel), table.gains.shape[1])


_GOAL = "T, the gain the user wants (in fully relevant documents)"
DEPTH = {"depth": Param(cwl.CWL_DEPTH, dataclasses.replace(CUTOFF, optional=True),
                        "the ranks the user model runs over: the ranking cut, or padded with non-relevant documents, "
                        "to depth (cwl_eval's -n, 1000, whence ir_measures' values); None: the endless ranking of the "
                        "paper")}
_CUTOFF = {"k": Param(None, CUTOFF, "the cutoff k: the model stops at rank k (required; "
                                                       "cwl_eval looks no deeper than 1,000 ranks)")}

ranking_measure("INSQ", cwl.insq, _insq, source="Moffat, Scholer & Thomas, ADCS 2012; " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0, low_open=True), _GOAL), **MIN_MAX_REL, **DEPTH},
                spellings={"ir_measures": "INSQ"}, how="per document: weight × gain",
                description="INSQ: weighted precision for a user who expects to need T units of gain, continuing "
                            "from rank i with probability ((i + 2T − 1)/(i + 2T))²")
ranking_measure("INST", cwl.inst, _inst, source="Moffat, Bailey, Scholer & Thomas, ADCS 2015; Bailey et al., "
                "SIGIR 2015; " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0.5), _GOAL + "; from 1/2 up, below which INST's continuation "
                                   "can exceed 1"), **MIN_MAX_REL, **DEPTH},
                spellings={"ir_measures": "INST"}, how="per document: weight × gain",
                description="INST: INSQ made adaptive, the user's continuation ((i + T + T_i − 1)/(i + T + T_i))² "
                            "falling as the gain still wanted T_i does")
_NERR = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L, ICTIR 2021, "
ranking_measure("NERR8", cwl.nerr8, _nerr(8, "C(i) = 1 − gain(i) for i < k, 0 at k"), cutoff="k",
                source=_NERR + "eq. 8; " + CWL_EVAL, params={**_CUTOFF, **MIN_MAX_REL},
                spellings={"ir_measures": "NERR8"}, how="per document: weight × gain",
                description="not (but nearly) ERR, equation 8: a C/W/L weighted precision whose user stops at each "
                            "rank with the probability of its gain, and at rank k")
ranking_measure("NERR9", cwl.nerr9, _nerr(9, "C(i) = i/(i + 1)·(1 − gain(i)) for i < k, 0 at k"), cutoff="k",
                source=_NERR + "eq. 9; " + CWL_EVAL, params={**_CUTOFF, **MIN_MAX_REL},
                spellings={"ir_measures": "NERR9"}, how="per document: weight × gain",
                description="not (but nearly) ERR, equation 9: stopping by gain and by ERR's reciprocal-rank "
                            "discount i/(i + 1), and at rank k")
ranking_measure("NERR10", cwl.nerr10, _nerr(10, "C(i) = p·(1 − gain(i))"), source=_NERR + "eq. 10; " + CWL_EVAL,
                params={"p": Param(0.9, Interval(0, 1, low_open=True, high_open=True), "the persistence p, as RBP's"),
                        **MIN_MAX_REL, **DEPTH},
                spellings={"ir_measures": "NERR10"}, how="per document: weight × gain",
                description="not (but nearly) ERR, equation 10: stopping by gain, with RBP's persistence p")
ranking_measure("NERR11", cwl.nerr11, _nerr(11, "C(i) = ((i + 2T − 1)/(i + 2T))²·(1 − gain(i))"),
                source=_NERR + "eq. 11 (cwl_eval's NERReq11; ir_measures' docstring says eq. 12); " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0, low_open=True), _GOAL), **MIN_MAX_REL, **DEPTH},
                spellings={"ir_measures": "NERR11"}, how="per document: weight × gain",
                description="not (but nearly) ERR, equation 11: stopping by gain, with INSQ's patience for a goal T")
ranking_measure("BPM", cwl.bpm, _bpm, cutoff="k", source="Zhang et al., Evaluating Web Search with a Bejeweled "
                "Player Model, SIGIR 2017; " + CWL_EVAL + " (BPM-Static)",
                params={**_CUTOFF, "T": Param(1.0, Interval(0, low_open=True), "the benefit T the user wants (in "
                                              "fully relevant documents): the user stops once it is reached"),
                        **MIN_MAX_REL},
                spellings={"ir_measures": "BPM"}, how="per document: weight × gain",
                description="the static Bejeweled Player Model: the mean gain of the ranks a user looks at who stops "
                            "once the gain reaches T or at rank k (cwl_eval's C/W/L form, gains linear in the grade)")
