"""Run fusion and score normalisation: several runs of the same topics combined into one run, in the shape a read
run has (:class:`~workbench.data.trec.ranked.RankedRun`), so that it can be written, evaluated and compared.

* :mod:`~workbench.fusion.entries`: the runs as flat arrays, the errors;
* :mod:`~workbench.fusion.normalize`: :func:`normalize` (min-max, max, sum, zmuv, rank, borda);
* :mod:`~workbench.fusion.methods`: :func:`fuse` (:data:`METHODS`: CombSUM/MNZ/..., RRF, ISR, RBC, BordaFuse);
* :mod:`~workbench.fusion.optimize`: :func:`optimize_fusion`, weights and parameters chosen by cross-validation.

    >>> runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0, "d3": 1.0}}}
    >>> fuse(runs, method="mnz").documents("q")
    ['d2', 'd1', 'd3']
"""

from workbench.fusion.entries import FusionError, FusionTopicsError, FusionWeightsError
from workbench.fusion.methods import METHODS, fuse
from workbench.fusion.normalize import NORMS, normalize
from workbench.fusion.optimize import FoldError, FusionSearch, optimize_fusion

__all__ = ["METHODS", "NORMS", "FoldError", "FusionError", "FusionSearch", "FusionTopicsError", "FusionWeightsError",
           "fuse", "normalize", "optimize_fusion"]
