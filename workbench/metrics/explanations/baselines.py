"""Mehlitz et al.'s absolute measures explained: P_abs and R_abs per retrieved document, with one row for what chance
retrieves (g_exp), and E_abs through them.

P_abs = (g_ret − g_exp)/r: every relevant retrieved document adds 1/r, chance takes g_exp/r back; R_abs the same
over g. ``lost``: a non-relevant retrieved document (P_abs) or a relevant one left out (R_abs) loses its share.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_filtering(["a", "b"], ["c", "d"])
    >>> e = explain_baseline(gold, Organization.from_filtering(["a", "c"], ["b", "d"]), "P_abs(n=4)")
    >>> print(e.contributions[["document", "relevant", "contribution"]].to_string(index=False))
    document  relevant  contribution
           a      True           0.5
           c     False           0.0
        None      <NA>          -0.5
"""

from __future__ import annotations

from workbench.metrics import baselines as kernels
from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.registry import Measure, parse
from workbench.model import Organization, natural_key

__all__ = ["HOW", "FORMULAS", "explain_baseline"]

HOW = {"P_abs": "per document", "R_abs": "per document", "E_abs": "through its parts: P_abs, R_abs"}
FORMULAS = {"P_abs": "P_abs = (g_ret − g_exp)/r: 1/r per relevant retrieved document, minus g_exp/r for chance",
            "R_abs": "R_abs = (g_ret − g_exp)/g: 1/g per relevant retrieved document, minus g_exp/g for chance",
            "E_abs": "E_abs = 1 − (β² + 1)·P_abs·R_abs / (β²·P_abs + R_abs) (lower is better)"}


def _rows(retrieved, relevant, g_exp, part: str):
    import pandas as pd

    denominator = len(retrieved) if part == "P_abs" else len(relevant)
    documents = sorted(retrieved | relevant if part == "R_abs" else retrieved, key=natural_key)
    hit = [doc in relevant and doc in retrieved for doc in documents]
    frame = pd.DataFrame({"document": documents, "retrieved": [doc in retrieved for doc in documents],
                          "relevant": [doc in relevant for doc in documents],
                          "contribution": [h / denominator for h in hit],
                          "lost": [(not h) * (part == "P_abs" or doc in relevant) / denominator
                                   for doc, h in zip(documents, hit, strict=True)]})
    chance = pd.DataFrame({"document": [None], "retrieved": pd.array([pd.NA], dtype="boolean"),
                           "relevant": pd.array([pd.NA], dtype="boolean"),
                           "what": [f"what a random choice retrieves: g_exp = {float(g_exp):.6g}"],
                           "contribution": [-float(g_exp) / denominator], "lost": [0.0]})
    return pd.concat([frame, chance], ignore_index=True)


def explain_baseline(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """An absolute measure of ``output`` against ``gold`` explained (the module docstring)."""
    import pandas as pd

    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    score = measure(gold, output)
    retrieved, relevant, g_exp = kernels.absolute_setting(gold, output, **params)
    if name != "E_abs":
        return MeasureExplanation(str(measure), score, _rows(retrieved, relevant, g_exp, name),
                                  {str(measure): score}, FORMULAS[name], HOW[name])
    frames = []
    for part in ("P_abs", "R_abs"):
        frame = _rows(retrieved, relevant, g_exp, part)
        frame.insert(len(frame.columns) - 2, "part", part)
        frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    values = {part: float(frame.loc[frame["part"] == part, "contribution"].sum()) for part in ("P_abs", "R_abs")}
    return MeasureExplanation(str(measure), score, frame, values, FORMULAS[name], HOW[name],
                              lambda p: kernels.effectiveness(p["P_abs"], p["R_abs"], params["beta"]))
