"""Every ranking measure, declared once: one module per family, each holding its measures' declarations and the
per-rank terms that explain them (importing this package imports them all, whatever modules it holds).

* :mod:`~.precision`: P@k, Rprec, RR, Success, Hits, R@k, RelP@k, Rprec_mult;
* :mod:`~.average_precision`: AP, GMAP, bpref, GMBpref, infAP, yaap;
* :mod:`~.gains`: nDCG, DCG, the ideal DCG, SDCG, nDCGRel, RnDCG, G, binG, ERR, RBP;
* :mod:`~.sakai`: Q-, O-, P- and P+-measure;
* :mod:`~.cwl`: cwl_eval's C/W/L measures INSQ, INST, NERR8–NERR11 and BPM;
* :mod:`~.orderings`: Clarke et al.'s compatibility and the pairwise accuracy;
* :mod:`~.sets`: the measures of the retrieved set and the utility;
* :mod:`~.counts`: the counts, Judged/Unjudged, the RBP residual, relstring;
* :mod:`~.curves`: interpolated precision and its 11-point average;
* :mod:`~.diversity`: α-nDCG, ERR-IA, NRBP, P-IA, subtopic recall;
* :mod:`~.trec_judgements`: trec_eval's preference and judgement-group measures.

A new measure is a declaration (:func:`workbench.metrics.ranking.declare.ranking_measure`) in the module of its
family, beside the terms that explain it; its kernel is a function of :mod:`workbench.metrics.ranking.kernels`.
"""

from workbench.metrics.ranking.measures import (  # noqa: F401  (each module declares its measures)
    average_precision,
    counts,
    curves,
    cwl,
    diversity,
    gains,
    orderings,
    precision,
    sakai,
    sets,
    trec_judgements,
)

__all__: list[str] = []
