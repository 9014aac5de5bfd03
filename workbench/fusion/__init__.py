"""Run fusion and score normalisation: several runs of the same topics combined into one run, in the shape a read
run has (:class:`~workbench.data.trec.ranked.RankedRun`), so that it can be written, evaluated and compared.

* :mod:`~workbench.fusion.entries`: the runs as flat arrays, the errors;
* :mod:`~workbench.fusion.norms`: :func:`normalize` (min-max, max, sum, zmuv, rank, borda);
* :mod:`~workbench.fusion.methods`: :func:`fuse` (:data:`METHODS`: CombSUM/MNZ/..., Mixed, RRF, ISR, RBC,
  BordaFuse, Condorcet: :mod:`~workbench.fusion.condorcet`);
* :mod:`~workbench.fusion.supervised`: :func:`train_fusion` (:data:`SUPERVISED`: BayesFuse, ProbFuse, SegFuse,
  SlideFuse, PosFuse, MAPFuse), learnt from judged topics;
* :mod:`~workbench.fusion.vector_space`: :func:`vector_space_fusion`, trectools' distance to the first run's top
  document;
* :mod:`~workbench.fusion.optimize`: :func:`optimize_fusion`, weights, parameters and supervised models chosen by
  cross-validation.

    >>> runs = {"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": {"d2": 5.0, "d3": 1.0}}}
    >>> fuse(runs, method="mnz").documents("q")
    ['d2', 'd1', 'd3']
"""

from workbench.lazy import lazy_exports

_MODULES = {
    "workbench.fusion.entries": ("FusionError", "FusionScoreError", "FusionTopicsError"),
    "workbench.fusion.methods": ("METHODS", "fuse"),
    "workbench.fusion.norms": ("NORMS", "normalize"),
    "workbench.fusion.optimize": ("FoldError", "FusionSearch", "optimize_fusion"),
    "workbench.fusion.supervised": ("SUPERVISED", "FusionModelError", "TrainedFusion", "train_fusion"),
    "workbench.fusion.vector_space": ("vector_space_fusion",),
}
_EXPORTS = {name: module for module, names in _MODULES.items() for name in names}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
