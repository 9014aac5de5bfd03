"""Ranking measures over per-query gain vectors: trec_eval 10.0's measures and ir_measures' vocabulary, Sakai's
graded measures (Q, O, P, P+) and precision–recall curves.

The parts, each importing only those before it:

* :mod:`~workbench.metrics.ranking.table`: :class:`GainTable` (the gains every kernel reads) and
  :func:`trec_eval_order` (the one ranking order of the workbench);
* :mod:`~workbench.metrics.ranking.gains`: trec_eval's ``rel_level=gain`` mapping;
* :mod:`~workbench.metrics.ranking.ties`: tied scores averaged (McSherry & Najork), for ``nDCG(ties=average)``;
* :mod:`~workbench.metrics.ranking.cwl`: cwl_eval's C/W/L measures (INSQ, INST, NERR8–NERR11, BPM) and their gain
  scale;
* :mod:`~workbench.metrics.ranking.kernels`: P@k, Rprec, RR, AP, Success, nDCG, ERR, RBP, SDCG, Q/O/P/P+;
* :mod:`~workbench.metrics.ranking.orderings`: Clarke et al.'s compatibility and the pairwise accuracy;
* :mod:`~workbench.metrics.ranking.cutoffs`: Hits@k and Q/O/P/P+-measure at a cutoff;
* :mod:`~workbench.metrics.ranking.diversity`: α-nDCG, ERR-IA, NRBP, P-IA, subtopic recall over subtopic
  judgements (:class:`~workbench.metrics.ranking.diversity.SubtopicTable`), as ndeval computes them;
* :mod:`~workbench.metrics.ranking.curves`: interpolated precision at recall levels;
* :mod:`~workbench.metrics.ranking.trec`: the rest of trec_eval's measures (counts, set measures, bpref,
  infAP, unj, yaap, ...);
* :mod:`~workbench.metrics.ranking.preferences`, :mod:`~workbench.metrics.ranking.judgement_groups` and
  :mod:`~workbench.metrics.ranking.zscores`: trec_eval's preference measures (``prefs_*``), its measures over
  judgement groups (``*_avgjg``) and its z-scores (``-Z``), which only the ``trec_eval`` drop-in uses;
* :mod:`~workbench.metrics.ranking.terms` and :mod:`~workbench.metrics.ranking.declare`: what a measure adds rank by
  rank, and how a measure is declared;
* :mod:`~workbench.metrics.ranking.measures`: every ranking measure, declared once (kernel, parameters, spellings,
  source, explanation).

    >>> t = GainTable.from_gains([[0, 2, 1]], [[2, 1, 1]])
    >>> evaluate_table(t, ["AP", "P@2"])
    {'AP': {'0': 0.38888888888888884}, 'P@2': {'0': 0.5}}
"""

from workbench.metrics.ranking import curves, cutoffs, diversity, measures, trec
from workbench.metrics.ranking.declare import TableMeasure, evaluate_table, is_diversity_measure, is_table_measure
from workbench.metrics.ranking.kernels import (
    average_precision,
    err,
    ndcg,
    o_measure,
    p_measure,
    p_plus_measure,
    precision_at,
    q_measure,
    r_precision,
    rbp,
    reciprocal_rank,
    success_at,
)
from workbench.metrics.ranking.table import (
    SCORE_PRECISIONS,
    GainTable,
    RankingInputError,
    judgements_of,
    ranked_documents,
    trec_eval_order,
)

__all__ = ["SCORE_PRECISIONS", "GainTable", "RankingInputError", "TableMeasure", "average_precision", "curves",
           "cutoffs", "diversity", "err", "evaluate_table", "is_diversity_measure", "is_table_measure", "judgements_of",
           "measures", "ndcg", "o_measure",
           "p_measure",
           "p_plus_measure", "precision_at", "q_measure", "r_precision", "ranked_documents", "rbp",
           "reciprocal_rank", "success_at", "trec", "trec_eval_order"]
