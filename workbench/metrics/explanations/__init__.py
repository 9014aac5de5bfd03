"""Every measure explained: ``workbench.explain(gold, output, measure)``.

Each measure's declaration says how it is explained (:class:`workbench.metrics.registry.Explainer`, read back by
:func:`workbench.metrics.registry.explanation_of` and the ``explained`` column of ``workbench.measures()``):

* ranking measures per document (:mod:`~workbench.metrics.explanations.ranking`), the diversity measures per
  document and subtopic (:mod:`~workbench.metrics.explanations.diversity`);
* clustering measures per item, or through their parts (:mod:`~workbench.metrics.explanations.clustering`);
* filtering measures per outcome (TP, FP, FN, TN), or through their parts
  (:mod:`~workbench.metrics.explanations.filtering`);
* classification measures per item (ICM with its information terms), or through their parts
  (:mod:`~workbench.metrics.explanations.classification`);
* R≺ S≺ R∼ S∼ per occurrence (:mod:`workbench.metrics.explain`), F≺ F∼ through them
  (:mod:`~workbench.metrics.explanations.organization`); the baselines of Mehlitz et al. per retrieved document
  (:mod:`~workbench.metrics.explanations.baselines`).

The result is a :class:`MeasureExplanation` (:mod:`~workbench.metrics.explanations.core`), which
:func:`workbench.explain` gives through the engine the measure's declaration names (:mod:`workbench.data.engines`);
without a measure, ``workbench.explain(gold, output, n=..., wn=...)`` is the R&S explanation of
:mod:`workbench.metrics.explain`.

    >>> import workbench
    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 2, "d2": 1})
    >>> e = workbench.explain(gold, Organization.from_ranking(["d2", "d1"]), "nDCG")
    >>> e.contributions[["rank", "document", "gain", "discount"]].to_string(index=False)
    ' rank document  gain  discount\\n    1       d2   1.0   1.00000\\n    2       d1   2.0   0.63093'
"""

from workbench.metrics.explain import ExplainError, Explanation
from workbench.metrics.explanations.core import DocumentNotExplainedError, MeasureExplanation, PartNotFoundError

__all__ = ["DocumentNotExplainedError", "ExplainError", "Explanation", "MeasureExplanation", "PartNotFoundError"]
