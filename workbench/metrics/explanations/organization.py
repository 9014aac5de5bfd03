"""R≺ S≺ R∼ S∼ explained per occurrence (the engine's own decomposition, :func:`workbench.metrics.explain.explain_rs`)
and F≺, F∼ through them.

The rows of a measure are the occurrences of the side it reads (the output for Reliability, the gold for
Sensitivity; an unlimited tail is one more row): ``side, document, level, cluster, weight, holds``,
``contribution`` = weight·holds and ``lost`` = weight·(1 − holds).

    >>> from workbench.model import Organization
    >>> gold = Organization.from_clustering([["d1"], ["d2", "d3"]])
    >>> e = explain_organization(gold, Organization.from_clustering([["d1", "d2", "d3"]]), "R∼")
    >>> print(e.contributions[["document", "holds", "contribution"]].round(4).to_string(index=False))
    document  holds  contribution
          d1 0.3333        0.1111
          d2 0.6667        0.2222
          d3 0.6667        0.2222
"""

from __future__ import annotations

from workbench.metrics.combine import f_alpha
from workbench.metrics.explain import MEASURES, explain_rs
from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.registry import Measure, parse
from workbench.model import Organization

__all__ = ["PARTS", "HOW", "FORMULAS", "explain_organization"]

PARTS = {"F≺": ("R≺", "S≺"), "F∼": ("R∼", "S∼")}
HOW = {name: "per occurrence" for name in MEASURES} | {name: "through its parts: " + ", ".join(parts)
                                                       for name, parts in PARTS.items()}
_SHARE = ("{name} = Σ_o w_{side}(o) · Σ_{{o′}} w_{side}(o′)·P(r(o, o′) ∈ {other}) / Σ_{{o′}} w_{side}(o′), over the "
          "occurrences o of {who} (weights w_{side} summing to 1, an unlimited tail one more) and the o′ in a "
          "{relation} relation r with o there (Amigó et al., SIGIR 2013, §3)")
FORMULAS = {"R≺": _SHARE.format(name="R≺", side="X", other="G", who="the output X", relation="priority"),
            "S≺": _SHARE.format(name="S≺", side="G", other="X", who="the gold G", relation="priority"),
            "R∼": _SHARE.format(name="R∼", side="X", other="G", who="the output X", relation="relatedness"),
            "S∼": _SHARE.format(name="S∼", side="G", other="X", who="the gold G", relation="relatedness"),
            "F≺": "F≺ = 1 / (½/R≺ + ½/S≺)", "F∼": "F∼ = 1 / (½/R∼ + ½/S∼)"}


def explain_organization(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """An R&S measure of ``output`` against ``gold`` explained (the module docstring)."""
    import pandas as pd

    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    score = measure(gold, output)
    rows = explain_rs(gold, output, **params).contributions
    rows = rows.assign(lost=rows["weight"] * (1 - rows["holds"]))
    if name in MEASURES:
        frame = rows[rows["measure"] == name].drop(columns="measure").reset_index(drop=True)
        return MeasureExplanation(str(measure), score, frame, {str(measure): score}, FORMULAS[name], HOW[name])
    parts = PARTS[name]
    frame = rows[rows["measure"].isin(parts)].rename(columns={"measure": "part"})
    frame = frame[[c for c in frame.columns if c not in ("part", "contribution", "lost")]
                  + ["part", "contribution", "lost"]].reset_index(drop=True)
    values = {part: float(frame.loc[frame["part"] == part, "contribution"].sum()) for part in parts}
    return MeasureExplanation(str(measure), score, pd.DataFrame(frame), values, FORMULAS[name], HOW[name],
                              lambda p: f_alpha(p[parts[0]], p[parts[1]]))
