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

The result is a :class:`MeasureExplanation` (:mod:`~workbench.metrics.explanations.core`); without a measure,
``explain(gold, output, n=..., wn=...)`` is the R&S explanation of :mod:`workbench.metrics.explain`.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_graded({"d1": 2, "d2": 1})
    >>> e = explain(gold, Organization.from_ranking(["d2", "d1"]), "nDCG")
    >>> e.contributions[["rank", "document", "gain", "discount"]].to_string(index=False)
    ' rank document  gain  discount\\n    1       d2   1.0   1.00000\\n    2       d1   2.0   0.63093'
"""

from __future__ import annotations

import dataclasses

from workbench.metrics.explain import ExplainError, Explanation, explain_rs
from workbench.metrics.explanations.core import DocumentNotExplainedError, MeasureExplanation, PartNotFoundError
from workbench.metrics.registry import MEASURE, SIDE, Measure, explanation_of, parse
from workbench.metrics.reliability import DISCOUNT_DOMAINS, MISSING
from workbench.model import Organization
from workbench.validation import validate

__all__ = ["DocumentNotExplainedError", "ExplainError", "Explanation", "MeasureExplanation", "PartNotFoundError",
           "explain"]


@validate(gold=SIDE, output=SIDE, measure=dataclasses.replace(MEASURE, optional=True), **DISCOUNT_DOMAINS,
          missing=MISSING)
def explain(gold: Organization, output: Organization, measure: str | Measure | None = None, *,
            n: float | None = None, wn: float | None = None, missing: str = "tail"):
    """``measure`` of ``output`` against ``gold``, explained (a :class:`MeasureExplanation`, whose rows sum to
    the score :func:`workbench.evaluate` gives, or to its parts); without a measure, R≺ S≺ R∼ S∼ with ``n``,
    ``wn`` and ``missing`` (an :class:`Explanation`, :func:`workbench.metrics.explain.explain_rs`)."""
    if measure is None:
        return explain_rs(gold, output, n=n, wn=wn, missing=missing)
    if n is not None or wn is not None or missing != "tail":
        raise ExplainError("give n, wn and missing inside the measure's name (e.g. 'R≺(n=10, wn=0.8)') when "
                           "a measure is named")
    measure = parse(measure)
    explainer, _ = explanation_of(measure)
    return explainer(gold, output, measure)

