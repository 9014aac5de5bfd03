"""The C/W/L measures of cwl_eval: those ir_measures reads, INSQ, INST, NERR8–NERR11 and the static BPM (SDCG,
cwl_eval's NDCG-k, is declared with the gain measures), and those whose users pay costs, TBG, U-measure and the IFT
family.

Each is Σ_r W(r)·gain(r), the weights following from the continuation probabilities C(r) (the kernels of
:mod:`workbench.metrics.ranking.cwl` and :mod:`workbench.metrics.ranking.cwl_costs`); each rank's term is its weight
times its gain. The cost-aware measures give any of cwl_eval's five output columns (``column=ETC``, ...), each a sum of
per-rank terms too.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from workbench.metrics.ranking import cwl, cwl_columns, cwl_costs
from workbench.metrics.ranking.declare import MIN_MAX_REL, ranking_measure
from workbench.metrics.ranking.table import CUTOFF, GainTable, row_sums
from workbench.metrics.ranking.terms import Terms
from workbench.metrics.registry import Choices, Interval, Param

__all__ = ["CWL_EVAL", "DEPTH", "COLUMN", "RANGE", "COLUMNS_SAID", "with_columns", "column_model"]

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


COLUMN = {"column": Param("EU", Choices(cwl_columns.COLUMNS),
                          "which of cwl_eval's five output columns: EU, the expected utility per document (the "
                          "measure); ETU, the expected total utility; EC, the expected cost per document; ETC, the "
                          "expected total cost; ED, the expected depth")}
_COLUMN_FORMULAS = {
    "EU": "EU = Σ_i W(i)·gain(i)", "ETU": "ETU = Σ_i L(i)·Σ_{j≤i} gain(j), the gain on leaving at rank i",
    "EC": "EC = Σ_i W(i)·cost(i)", "ETC": "ETC = Σ_i L(i)·Σ_{j≤i} cost(j), the cost on leaving at rank i",
    "ED": "ED = 1/W(1) = Σ_i reach(i)"}
_WEIGHTS = ", W(i) = reach(i)/Σ_j reach(j), reach(i) = Π_{j<i} C(j), L(i) = reach(i)·(1 − C(i)), over the d = depth " \
           "ranks; "


def _column_terms(model_of, user: str):
    """The per-rank terms of a C/W/L measure's output ``column`` under the user model ``model_of`` gives."""
    def terms(table: GainTable, column: str = "EU", **params) -> Terms:
        model = model_of(table, **params)
        contribution = cwl_columns.column_terms(model, column)
        width = min(table.gains.shape[1], contribution.shape[1])
        gains, costs, reach, continuation = (part[:, :width] for part in model)
        retrieved = table.retrieved()[:, :width]  # a shorter ranking's columns of the table are past it too
        past = np.where(retrieved, 0.0, contribution[:, :width]).sum(axis=1) + contribution[:, width:].sum(axis=1)
        return Terms(np.where(retrieved, contribution[:, :width], 0.0), _COLUMN_FORMULAS[column] + _WEIGHTS + user,
                     {"gain": gains, "cost": costs, "continuation": continuation, "reach": reach},
                     rest=past, rest_label="the ranks past the ranking, down to depth (gain 0, cost 1)")
    return terms


def with_columns(kernel, eu_terms, model_of, user: str):
    """A C/W/L kernel and its terms, giving cwl_eval's other output columns too (``column``: from the user model
    ``model_of`` gives over the measure's ranks); EU stays the kernel's own value (its closed forms included)."""
    column_terms = _column_terms(model_of, user)

    def scored(table: GainTable, column: str = "EU", **params) -> np.ndarray:
        if column == "EU":
            return kernel(table, **params)
        return row_sums(cwl_columns.column_terms(model_of(table, **params), column))

    def terms(table: GainTable, column: str = "EU", **params) -> Terms:
        return eu_terms(table, **params) if column == "EU" else column_terms(table, column, **params)

    scored.__doc__, scored.__name__, scored.__qualname__ = kernel.__doc__, kernel.__name__, kernel.__qualname__
    return scored, terms


def column_model(continuation, *, cut: bool = False, **fixed):
    """The user model of a measure of ``continuation`` (:func:`~workbench.metrics.ranking.cwl.cwl_model`), over its
    depth, or (``cut``) its cutoff k."""
    def model(table: GainTable, min_rel: float = 0, max_rel: float | None = None, depth: int | None = cwl.CWL_DEPTH,
              **params) -> cwl_columns.Model:
        return cwl.cwl_model(table, continuation, min_rel, max_rel, params["k"] if cut else depth, **fixed, **params)
    return model


RANGE = (0.0, float("inf"))  # EU is in [0, 1]; ETU, EC, ETC and ED count gains, costs and ranks
COLUMNS_SAID = " (cwl_eval's five output columns: column=EU, the measure, ETU, EC, ETC or ED)"
_GOAL = "T, the gain the user wants (in fully relevant documents)"
DEPTH = {"depth": Param(cwl.CWL_DEPTH, dataclasses.replace(CUTOFF, optional=True),
                        "the ranks the user model runs over: the ranking cut, or padded with non-relevant documents, "
                        "to depth (cwl_eval's -n, 1000, whence ir_measures' values); None: the endless ranking of the "
                        "paper")}
_CUTOFF = {"k": Param(None, CUTOFF, "the cutoff k: the model stops at rank k (required; "
                                                       "cwl_eval looks no deeper than 1,000 ranks)")}

_INSQ = "C(i) = ((i + 2T − 1)/(i + 2T))²"
_INST = "C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − the gain up to i"
_BPM = "C(i) = 1 while the gain up to i is below T and i < k, else 0"
_NERR = "Azzopardi, Mackenzie & Moffat, ERR is not C/W/L, ICTIR 2021, "
_NERR8, _NERR9 = "C(i) = 1 − gain(i) for i < k, 0 at k", "C(i) = i/(i + 1)·(1 − gain(i)) for i < k, 0 at k"
_NERR10, _NERR11 = "C(i) = p·(1 − gain(i))", "C(i) = ((i + 2T − 1)/(i + 2T))²·(1 − gain(i))"

ranking_measure("INSQ", *with_columns(cwl.insq, _insq, column_model(cwl.insq_continuation), _INSQ),
                source="Moffat, Scholer & Thomas, ADCS 2012; " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0, low_open=True), _GOAL), **MIN_MAX_REL, **DEPTH, **COLUMN},
                spellings={"ir_measures": "INSQ"}, how="per document: weight × gain", range=RANGE,
                description="INSQ: weighted precision for a user who expects to need T units of gain, continuing "
                            "from rank i with probability ((i + 2T − 1)/(i + 2T))²" + COLUMNS_SAID)
ranking_measure("INST", *with_columns(cwl.inst, _inst, column_model(cwl.inst_continuation), _INST),
                source="Moffat, Bailey, Scholer & Thomas, ADCS 2015; Bailey et al., SIGIR 2015; " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0.5), _GOAL + "; from 1/2 up, below which INST's continuation "
                                   "can exceed 1"), **MIN_MAX_REL, **DEPTH, **COLUMN},
                spellings={"ir_measures": "INST"}, how="per document: weight × gain", range=RANGE,
                description="INST: INSQ made adaptive, the user's continuation ((i + T + T_i − 1)/(i + T + T_i))² "
                            "falling as the gain still wanted T_i does" + COLUMNS_SAID)
ranking_measure("NERR8", *with_columns(cwl.nerr8, _nerr(8, _NERR8),
                                       column_model(cwl.nerr_continuation, cut=True, equation=8), _NERR8),
                cutoff="k", source=_NERR + "eq. 8; " + CWL_EVAL, params={**_CUTOFF, **MIN_MAX_REL, **COLUMN},
                spellings={"ir_measures": "NERR8"}, how="per document: weight × gain", range=RANGE,
                description="not (but nearly) ERR, equation 8: a C/W/L weighted precision whose user stops at each "
                            "rank with the probability of its gain, and at rank k" + COLUMNS_SAID)
ranking_measure("NERR9", *with_columns(cwl.nerr9, _nerr(9, _NERR9),
                                       column_model(cwl.nerr_continuation, cut=True, equation=9), _NERR9),
                cutoff="k", source=_NERR + "eq. 9; " + CWL_EVAL, params={**_CUTOFF, **MIN_MAX_REL, **COLUMN},
                spellings={"ir_measures": "NERR9"}, how="per document: weight × gain", range=RANGE,
                description="not (but nearly) ERR, equation 9: stopping by gain and by ERR's reciprocal-rank "
                            "discount i/(i + 1), and at rank k" + COLUMNS_SAID)
ranking_measure("NERR10", *with_columns(cwl.nerr10, _nerr(10, _NERR10),
                                        column_model(cwl.nerr_continuation, equation=10), _NERR10),
                source=_NERR + "eq. 10; " + CWL_EVAL,
                params={"p": Param(0.9, Interval(0, 1, low_open=True, high_open=True), "the persistence p, as RBP's"),
                        **MIN_MAX_REL, **DEPTH, **COLUMN},
                spellings={"ir_measures": "NERR10"}, how="per document: weight × gain", range=RANGE,
                description="not (but nearly) ERR, equation 10: stopping by gain, with RBP's persistence p"
                            + COLUMNS_SAID)
ranking_measure("NERR11", *with_columns(cwl.nerr11, _nerr(11, _NERR11),
                                        column_model(cwl.nerr_continuation, equation=11), _NERR11),
                source=_NERR + "eq. 11 (cwl_eval's NERReq11; ir_measures' docstring says eq. 12); " + CWL_EVAL,
                params={"T": Param(1.0, Interval(0, low_open=True), _GOAL), **MIN_MAX_REL, **DEPTH, **COLUMN},
                spellings={"ir_measures": "NERR11"}, how="per document: weight × gain", range=RANGE,
                description="not (but nearly) ERR, equation 11: stopping by gain, with INSQ's patience for a goal T"
                            + COLUMNS_SAID)
ranking_measure("BPM", *with_columns(cwl.bpm, _bpm, column_model(cwl.bpm_continuation, cut=True), _BPM), cutoff="k",
                source="Zhang et al., Evaluating Web Search with a Bejeweled Player Model, SIGIR 2017; " + CWL_EVAL
                + " (BPM-Static)",
                params={**_CUTOFF, "T": Param(1.0, Interval(0, low_open=True), "the benefit T the user wants (in "
                                              "fully relevant documents): the user stops once it is reached"),
                        **MIN_MAX_REL, **COLUMN},
                spellings={"ir_measures": "BPM"}, how="per document: weight × gain", range=RANGE,
                description="the static Bejeweled Player Model: the mean gain of the ranks a user looks at who stops "
                            "once the gain reaches T or at rank k (cwl_eval's C/W/L form, gains linear in the grade)"
                            + COLUMNS_SAID)


# ------------------------------------------------------------------- the cost-aware measures of cwl_eval
def _depth(low: int = 1, why: str = "") -> dict[str, Param]:
    return {"depth": Param(cwl.CWL_DEPTH, Interval(low, cwl_columns.DEPTH_LIMIT, integer=True),
                           "the ranks the user model runs over: the ranking cut, or padded with documents of gain 0 "
                           "and cost 1, to depth (cwl_eval's -n, 1000)" + why)}


_IFT = "Azzopardi, Thomas & Craswell, Measuring the Utility of Search Engine Result Pages: An Information Foraging " \
       "Based Measure, SIGIR 2018, "
_IFT_DEFAULTS = " (cwl_eval has no default: that of its example metrics file)"
_GOAL_PARAMS = {"T": Param(2.0, Interval(0), "the goal T: the gain the user wants (in fully relevant documents)"
                           + _IFT_DEFAULTS),
                "b1": Param(0.9, Interval(0, low_open=True), "the goal's intercept b1" + _IFT_DEFAULTS),
                "R1": Param(10.0, Interval(0), "the goal's rationality R1: 0, the goal plays no part; the larger, the "
                            "surer the user stops once it is met" + _IFT_DEFAULTS)}
_RATE_PARAMS = {"A": Param(0.2, Interval(0), "the rate A: the gain per unit of cost the user expects"
                           + _IFT_DEFAULTS),
                "b2": Param(0.9, Interval(0, low_open=True), "the rate's intercept b2" + _IFT_DEFAULTS),
                "R2": Param(10.0, Interval(0), "the rate's rationality R2: 0, the rate plays no part; the larger, "
                            "the surer the user stops once the rate falls below A" + _IFT_DEFAULTS)}
_C1 = "C(i) = c1(y_i) = 1 − 1/(1 + b1·e^((T − y_i)·R1)), y_i = Σ_{j≤i} gain(j)"
_C2 = "c2(y_i, k_i) = 1/(1 + b2·e^((A − y_i/k_i)·R2)), k_i = Σ_{j≤i} cost(j)"

ranking_measure("TBG", cwl_costs.tbg, _column_terms(cwl_costs.tbg_model, "reach(i) = 2^(−t(i)/H), t(i) = Σ_{j<i} "
                                                  "cost(j), C(i) = reach(i + 1)/reach(i), 0 at rank d"),
                source="Smucker & Clarke, Time-Based Calibration of Effectiveness Measures, SIGIR 2012; " + CWL_EVAL
                + " (TBGCWLMetric)",
                params={"H": Param(224.0, Interval(0, low_open=True), "the half-life H, in units of cost (seconds in "
                                   "the paper: 224): the user's reach halves each H spent"),
                        **MIN_MAX_REL, **_depth(), **COLUMN},
                how="per document: weight × gain", range=RANGE,
                description="time-biased gain: weighted precision for a user whose chance of reading on halves each "
                            "H units of time (cost) spent, W(i) ∝ 2^(−t(i)/H); RBP with p = 2^(−1/H) when every "
                            "document costs 1" + COLUMNS_SAID)
ranking_measure("U-measure", cwl_costs.u_measure, _column_terms(cwl_costs.u_model, "reach(i) = max(0, 1 − t(i)/L) "
                                                              "for i < d, 0 at d, t(i) = Σ_{j<i} cost(j)"),
                source="Sakai & Dou, Summaries, Ranked Retrieval and Sessions: A Unified Framework for Information "
                       "Access Evaluation, SIGIR 2013; " + CWL_EVAL + " (UMeasureCWLMetric)",
                params={"L": Param(1000.0, Interval(0, low_open=True), "the patience L, in units of cost (characters "
                                   "in the paper): the weight falls linearly to 0 once L is read"),
                        **MIN_MAX_REL, **_depth(2, "; from 2 up: cwl_eval gives the last rank no weight"), **COLUMN},
                how="per document: weight × gain", range=RANGE,
                description="U-measure: weighted precision for a user whose chance of reading a document falls "
                            "linearly with the text (cost) read before it, W(i) ∝ max(0, 1 − t(i)/L)" + COLUMNS_SAID)
ranking_measure("IFT-C1", cwl_costs.ift_goal, _column_terms(cwl_costs.ift_goal_model, _C1),
                source=_IFT + "eq. 3; " + CWL_EVAL + " (IFTGoalCWLMetric)",
                params={**_GOAL_PARAMS, **MIN_MAX_REL, **_depth(), **COLUMN},
                how="per document: weight × gain", range=RANGE,
                description="the information foraging measure, goal only: the user goes on less and less as the gain "
                            "so far nears the goal T" + COLUMNS_SAID)
ranking_measure("IFT-C2", cwl_costs.ift_rate, _column_terms(cwl_costs.ift_rate_model, "C(i) = " + _C2
                                                          + ", y_i = Σ_{j≤i} gain(j)"),
                source=_IFT + "eq. 4; " + CWL_EVAL + " (IFTRateCWLMetric)",
                params={**_RATE_PARAMS, **MIN_MAX_REL, **_depth(), **COLUMN},
                how="per document: weight × gain", range=RANGE,
                description="the information foraging measure, rate only: the user goes on while the gain per unit "
                            "of cost so far beats the rate A" + COLUMNS_SAID)
ranking_measure("IFT-C1-C2", cwl_costs.ift_goal_rate, _column_terms(cwl_costs.ift_goal_rate_model,
                                                                  _C1 + ", times " + _C2),
                source=_IFT + "eq. 5; " + CWL_EVAL + " (IFTGoalRateCWLMetric)",
                params={**_GOAL_PARAMS, **_RATE_PARAMS, **MIN_MAX_REL, **_depth(), **COLUMN},
                how="per document: weight × gain", range=RANGE,
                description="the information foraging measure, goal and rate: the user goes on while the goal T is "
                            "not met and the rate beats A, the variant closest to users in the paper" + COLUMNS_SAID)
