"""Classification measures explained per item (or per item and class), or through their parts.

* Acc, SP, Re and Pr (one class or macro), ICM, ICM-Soft, CrossEntropy, MAE and CEM are sums over the items:
  one row per item — per (item, class) for Pr and Re — whose ``contribution`` adds up to the score. ICM's rows
  carry the information terms of the item: ``IC(output)``, ``IC(gold)``, ``IC(union)`` (bits), its contribution
  being (α₁·IC(output) + α₂·IC(gold) − β·IC(union)) / |G|.
* CohenKappa (parts ``Acc`` and ``P_e``), FMeasure (``Pr(c)`` and ``Re(c)`` of each class), ICM-Norm and
  ICM-Soft-Norm (the ICM and the gold's own ``ICM(g,g)``) combine their parts with the measure's own kernel.

A row ``lost`` what it would add in a perfect output (the gold itself) minus what it adds (the other way round
for CrossEntropy and MAE, where lower is better).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B\\n4: C", gold=True)
    >>> e = explain_classification(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "ICM")
    >>> print(e.contributions.to_string(index=False))
    item gold output  IC(output)  IC(gold)  IC(union)  contribution  lost
       1    A      A         1.0       1.0        1.0          0.25   0.0
       2    A      B         2.0       1.0        3.0         -0.75   1.0
       3    B      B         2.0       2.0        2.0          0.50   0.0
       4    C                0.0       2.0        2.0         -0.50   1.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from workbench.metrics.classification import hard, icm, ordinal, soft
from workbench.metrics.classification.pairs import LabelledPair, pair
from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.registry import Measure, parse

__all__ = ["HOW", "explain_classification"]

PER_ITEM = ("Acc", "SP", "ICM", "ICM-Soft", "CrossEntropy", "MAE", "CEM")
HOW = {name: "per item" for name in PER_ITEM} | {
    "Pr": "per item and class", "Re": "per item and class",
    "CohenKappa": "through its parts: Acc, P_e", "FMeasure": "through its parts: Pr and Re of each class",
    "ICM-Norm": "through its parts: ICM, ICM(g,g)", "ICM-Soft-Norm": "through its parts: ICM-Soft, ICM-Soft(g,g)"}


def _shown(p: LabelledPair, side: str, row: int) -> str:
    """An item's value as text: its class, its classes, or its weights; empty when it has none."""
    values = p.gold if side == "gold" else p.output
    if p.kind == "mono":
        return p.classes[values[row]] if values[row] >= 0 else ""
    if p.kind == "multi":
        return ", ".join(p.classes[c] for c in np.flatnonzero(values[row]))
    return ", ".join(f"{p.classes[c]}: {values[row, c]:g}" for c in np.flatnonzero(values[row]))


def _items(p: LabelledPair, rows: np.ndarray, **columns) -> dict:
    return {"item": [p.ids[r] for r in rows], "gold": [_shown(p, "gold", r) for r in rows],
            "output": [_shown(p, "output", r) for r in rows], **columns}


def _frame(data: Mapping, part: str | None = None, value: float = 0.0):
    """The rows, with the part's name when given, and a row ``undefined`` when the value they sum to is NaN."""
    import pandas as pd

    frame = pd.DataFrame(data)
    if math.isnan(value):
        frame = pd.concat([frame, pd.DataFrame({"item": [None], "what": ["undefined (see the measure)"],
                                                "contribution": [math.nan], "lost": [math.nan]})], ignore_index=True)
    if part is not None:
        frame.insert(len(frame.columns) - 2, "part", part)
    return frame


def _icm_rows(p: LabelledPair, terms: icm.ICMTerms, params: Mapping[str, float]) -> dict:
    n = p.n_gold
    perfect = icm.self_icm(terms, params["alpha_1"], params["alpha_2"], params["beta"])
    return _items(p, np.arange(n), **{"IC(output)": terms.output, "IC(gold)": terms.gold, "IC(union)": terms.union,
                                      "contribution": terms.value / n, "lost": (perfect - terms.value) / n + 0.0})


def _self_rows(p: LabelledPair, terms: icm.ICMTerms, params: Mapping[str, float]) -> dict:
    n = p.n_gold
    perfect = icm.self_icm(terms, params["alpha_1"], params["alpha_2"], params["beta"])
    return _items(p, np.arange(n), **{"IC(gold)": terms.gold, "contribution": perfect / n, "lost": np.zeros(n)})


def _hits(p: LabelledPair) -> np.ndarray:
    """(items × classes) booleans: the output says the class and the gold does too."""
    return p.indicators("gold") & p.indicators("output")


def _said_rows(p: LabelledPair, side: str, columns: list[int], weights: Mapping[int, float]) -> dict:
    """One row per (item, class c in ``columns``) that ``side`` says — the output's for precision, worth
    ``weights[c]`` when right; the gold's for recall, worth ``weights[c]`` when found."""
    said, hits = p.indicators(side), _hits(p)
    rows = [(r, c) for c in columns for r in np.flatnonzero(said[:, c])]
    contribution = np.array([weights[c] * hits[r, c] for r, c in rows], dtype=float)
    full = np.array([weights[c] for _, c in rows], dtype=float)
    data = _items(p, np.array([r for r, _ in rows], dtype=np.int64), **{"class": [p.classes[c] for _, c in rows]})
    return data | {"contribution": contribution, "lost": full - contribution}


def _columns(p: LabelledPair, label) -> list[int]:
    """The classes a Pr/Re/FMeasure reads: one (``label``) or the gold's."""
    counts = hard.class_counts(p)
    if label is not None:
        return [p.classes.index(str(label))] if str(label) in p.classes else []
    return [int(c) for c in np.flatnonzero(counts.gold > 0)]


def explain_classification(gold, output, measure: str | Measure) -> MeasureExplanation:
    """A classification measure of ``output`` against ``gold`` explained (the module docstring)."""
    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    score = measure(gold, output)
    p = pair(gold, output)
    n = p.n_gold
    label = params.pop("label", None)
    if name in ("ICM", "ICM-Soft", "ICM-Norm", "ICM-Soft-Norm"):
        soft_labels = name.startswith("ICM-Soft")
        terms = (icm.icm_soft_terms if soft_labels else icm.icm_terms)(p, **params)
        base = "ICM-Soft" if soft_labels else "ICM"
        if name in ("ICM", "ICM-Soft"):
            formula = f"{name} = Σ_items (α₁·IC(output) + α₂·IC(gold) − β·IC(union)) / |G|"
            return MeasureExplanation(str(measure), score, _frame(_icm_rows(p, terms, params), value=score),
                                      {str(measure): score},
                                      formula, HOW[name])
        import pandas as pd

        frame = pd.concat([_frame(_icm_rows(p, terms, params), base), _frame(_self_rows(p, terms, params),
                                                                              f"{base}(g,g)")], ignore_index=True)
        parts = {base: float(terms.value.sum() / n),
                 f"{base}(g,g)": float(icm.self_icm(terms, **params).sum() / n)}
        return MeasureExplanation(str(measure), score, frame, parts,
                                  f"{name} = max(0, ({base} + {base}(g,g)) / (2·{base}(g,g)))", HOW[name],
                                  lambda given: icm.normalized(given[base], given[f"{base}(g,g)"]))
    if name == "Acc":
        right = (p.gold[:n] == p.output[:n]).astype(float)
        return MeasureExplanation(str(measure), score, _frame(_items(p, np.arange(n), contribution=right / n,
                                                                      lost=(1 - right) / n)),
                                  {str(measure): score}, "Acc = Σ_items [output = gold] / |G|", HOW[name])
    if name == "SP":
        rows = np.flatnonzero(p.answered)
        right = (p.gold[rows] == p.output[rows]).astype(float)
        size = max(len(rows), 1)
        return MeasureExplanation(str(measure), score, _frame(_items(p, rows, contribution=right / size,
                                                                      lost=(1 - right) / size), value=score),
                                  {str(measure): score}, "SP = Σ_answered [output = gold] / |answered|", HOW[name])
    if name == "CohenKappa":
        import pandas as pd

        acc, chance = hard.kappa_parts(p)
        counts = hard.class_counts(p)
        right = (p.gold[:n] == p.output[:n]).astype(float)
        on_gold = np.flatnonzero((p.output[:n] >= 0) & np.isin(p.output[:n], np.flatnonzero(counts.gold > 0)))
        chance_rows = counts.gold[p.output[on_gold]] / n / n if not math.isnan(chance) else np.full(len(on_gold),
                                                                                                     math.nan)
        frame = pd.concat([
            _frame(_items(p, np.arange(n), contribution=right / n, lost=(1 - right) / n), "Acc"),
            _frame(_items(p, on_gold, contribution=chance_rows, lost=np.zeros(len(on_gold))), "P_e", chance)],
            ignore_index=True)
        return MeasureExplanation(str(measure), score, frame, {"Acc": acc, "P_e": chance},
                                  "CohenKappa = (Acc − P_e) / (1 − P_e), P_e = Σ_items G_{output class} / |G|²",
                                  HOW[name], lambda given: hard.combine_kappa(given["Acc"], given["P_e"]))
    if name in ("Pr", "Re"):
        counts = hard.class_counts(p)
        columns = _columns(p, label)
        if name == "Pr":
            defined = [c for c in columns if counts.predicted[c] > 0]
            weights = {c: 1 / counts.predicted[c] / len(defined) for c in defined}
            data = _said_rows(p, "output", defined, weights)
        else:
            defined = [c for c in columns if counts.gold[c] > 0]
            weights = {c: 1 / counts.gold[c] / len(defined) for c in defined}
            data = _said_rows(p, "gold", defined, weights)
        what = "the output's" if name == "Pr" else "the gold's"
        formula = (f"{name} = Σ_(item, class) [right] / ({what} items of the class × classes averaged)")
        return MeasureExplanation(str(measure), score, _frame(data, value=score), {str(measure): score}, formula,
                                  HOW[name])
    if name == "FMeasure":
        import pandas as pd

        counts = hard.class_counts(p)
        columns = _columns(p, label)
        if not columns:  # a class neither side names: nothing to explain
            return MeasureExplanation(str(measure), score, _frame({"item": []}, value=score), {str(measure): score},
                                      f"{label!r} is not a class of this gold or output", HOW[name])
        frames, parts = [], {}
        for c in columns:
            label_c = p.classes[c]
            parts[f"Pr({label_c})"] = hard.precision_per_class(p)[label_c]
            parts[f"Re({label_c})"] = hard.recall_per_class(p)[label_c]
            for side, count, part in (("output", counts.predicted[c], f"Pr({label_c})"),
                                      ("gold", counts.gold[c], f"Re({label_c})")):
                frames.append(_frame(_said_rows(p, side, [c], {c: 1 / count if count else 0}), part, parts[part]))
        alpha = params["alpha"]
        labels = [p.classes[c] for c in columns]

        def combine(given: Mapping[str, float]) -> float:
            values = [hard.f_of(given[f"Pr({c})"], given[f"Re({c})"], alpha) for c in labels]
            return float(np.mean(values)) if values else math.nan

        frame = pd.concat(frames, ignore_index=True)
        return MeasureExplanation(str(measure), score, frame, parts,
                                  "FMeasure = mean over the classes of 1/(α/Pr(c) + (1 − α)/Re(c))", HOW[name],
                                  combine)
    if name in ("CrossEntropy", "MAE"):
        if name == "CrossEntropy":
            errors = soft.cross_entropy_terms(p)
            ideal = soft.cross_entropy_terms(pair(gold, gold))
            formula = "CrossEntropy = Σ_items −Σ_c g(c)·log₂ o(c) / |G| (smoothed)"
        else:
            errors, ideal = soft.absolute_error_terms(p), np.zeros(n)
            formula = "MAE = Σ_items Σ_c |g(c) − o(c)| / |C| / |G|"
        data = _items(p, np.arange(n), contribution=errors / n, lost=(errors - ideal) / n)
        return MeasureExplanation(str(measure), score, _frame(data), {str(measure): score}, formula, HOW[name])
    if name == "CEM":
        kept, perfect = ordinal.cem_terms(p, params["order"])
        total = perfect.sum()
        data = _items(p, np.arange(n), **{"prox(output, gold)": kept, "prox(gold, gold)": perfect,
                                          "contribution": kept / total, "lost": (perfect - kept) / total})
        return MeasureExplanation(str(measure), score, _frame(data, value=score), {str(measure): score},
                                  "CEM = Σ_items prox(output, gold) / Σ_items prox(gold, gold)", HOW[name])
    raise LookupError(f"{name} is not a classification measure")
