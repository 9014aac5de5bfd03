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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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


@dataclass(frozen=True)
class _Case:
    """What each measure's step reads: the measure, its score, the gold, the pair of labellings and the
    parameters (``label``, the class a Pr, Re or FMeasure reads, apart).

    >>> from workbench.model.labelling import Labelling
    >>> case = _Case.of(Labelling.parse("1: A\\n2: A\\n3: B", gold=True), Labelling.parse("1: A\\n2: B\\n3: B"),
    ...                 "Pr(label=A)")
    >>> case.name, round(case.score, 4), case.n, case.label, case.params
    ('Pr', 1.0, 3, 'A', {})
    """

    measure: Measure
    score: float
    gold: Any
    p: LabelledPair
    params: dict[str, Any]
    label: Any

    @classmethod
    def of(cls, gold, output, measure: str | Measure) -> _Case:
        measure = parse(measure)
        params = measure.params
        score = measure(gold, output)
        p = pair(gold, output)
        return cls(measure, score, gold, p, params, params.pop("label", None))

    @property
    def name(self) -> str:
        return self.measure.spec.name

    @property
    def n(self) -> int:
        return self.p.n_gold

    def alone(self, data: Mapping, formula: str, value: float = 0.0) -> MeasureExplanation:
        """The explanation of a measure that is the sum of its rows (``value``: see :func:`_frame`)."""
        shown = str(self.measure)
        return MeasureExplanation(shown, self.score, _frame(data, value=value), {shown: self.score}, formula,
                                  HOW[self.name])


def _icm_terms(case: _Case) -> tuple[str, icm.ICMTerms]:
    """The ICM (or ICM-Soft) the measure reads, and its terms per item."""
    soft_labels = case.name.startswith("ICM-Soft")
    return ("ICM-Soft" if soft_labels else "ICM"), (icm.icm_soft_terms if soft_labels else icm.icm_terms)(
        case.p, **case.params)


def _icm(case: _Case) -> MeasureExplanation:
    """ICM or ICM-Soft per item: (α₁·IC(output) + α₂·IC(gold) − β·IC(union)) / |G| (Amigó & Delgado 2022).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _icm(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "ICM"))
    >>> e.contributions[["item", "IC(union)", "contribution", "lost"]].round(4).values.tolist()
    [['1', 0.585, 0.195, 0.0], ['2', 2.1699, -0.7233, 0.9183], ['3', 1.585, 0.5283, 0.0]]
    """
    _, terms = _icm_terms(case)
    formula = f"{case.name} = Σ_items (α₁·IC(output) + α₂·IC(gold) − β·IC(union)) / |G|"
    return case.alone(_icm_rows(case.p, terms, case.params), formula, case.score)


def _icm_norm(case: _Case) -> MeasureExplanation:
    """ICM-Norm or ICM-Soft-Norm through its parts: the ICM and the gold's own ICM(g,g).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _icm_norm(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "ICM-Norm"))
    >>> {part: round(value, 4) for part, value in e.parts.items()}, round(e.combine(e.parts), 4)
    ({'ICM': -0.0, 'ICM(g,g)': 0.9183}, 0.5)
    """
    import pandas as pd

    base, terms = _icm_terms(case)
    p, params, n = case.p, case.params, case.n
    frame = pd.concat([_frame(_icm_rows(p, terms, params), base), _frame(_self_rows(p, terms, params),
                                                                          f"{base}(g,g)")], ignore_index=True)
    parts = {base: float(terms.value.sum() / n),
             f"{base}(g,g)": float(icm.self_icm(terms, **params).sum() / n)}
    return MeasureExplanation(str(case.measure), case.score, frame, parts,
                              f"{case.name} = max(0, ({base} + {base}(g,g)) / (2·{base}(g,g)))", HOW[case.name],
                              lambda given: icm.normalized(given[base], given[f"{base}(g,g)"]))


def _accuracy(case: _Case) -> MeasureExplanation:
    """Acc per item: 1/|G| for each item the output labels as the gold does.

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _accuracy(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "Acc"))
    >>> e.contributions.contribution.round(4).tolist(), e.contributions.lost.round(4).tolist()
    ([0.3333, 0.0, 0.3333], [0.0, 0.3333, 0.0])
    """
    p, n = case.p, case.n
    right = (p.gold[:n] == p.output[:n]).astype(float)
    return case.alone(_items(p, np.arange(n), contribution=right / n, lost=(1 - right) / n),
                      "Acc = Σ_items [output = gold] / |G|")


def _answered(case: _Case) -> MeasureExplanation:
    """SP per answered item: 1/|answered| for each the output labels as the gold does.

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _answered(_Case.of(gold, Labelling.parse("1: A\\n2: B"), "SP"))
    >>> e.contributions.item.tolist(), e.contributions.contribution.tolist()
    (['1', '2'], [0.5, 0.0])
    """
    p = case.p
    rows = np.flatnonzero(p.answered)
    right = (p.gold[rows] == p.output[rows]).astype(float)
    size = max(len(rows), 1)
    return case.alone(_items(p, rows, contribution=right / size, lost=(1 - right) / size),
                      "SP = Σ_answered [output = gold] / |answered|", case.score)


def _kappa(case: _Case) -> MeasureExplanation:
    """CohenKappa through its parts: Acc per item, and the chance agreement P_e per item whose output class the
    gold has (G_{output class} / |G|²).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _kappa(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "CohenKappa"))
    >>> e.contributions.query("part == 'P_e'").contribution.round(4).tolist(), round(e.combine(e.parts), 4)
    ([0.2222, 0.1111, 0.1111], 0.4)
    """
    import pandas as pd

    p, n = case.p, case.n
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
    return MeasureExplanation(str(case.measure), case.score, frame, {"Acc": acc, "P_e": chance},
                              "CohenKappa = (Acc − P_e) / (1 − P_e), P_e = Σ_items G_{output class} / |G|²",
                              HOW[case.name], lambda given: hard.combine_kappa(given["Acc"], given["P_e"]))


def _said(case: _Case) -> MeasureExplanation:
    """Pr per (item, class) the output says, Re per (item, class) the gold says: 1 / (the class's items on that
    side × the classes averaged) when right.

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _said(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "Re"))
    >>> e.contributions[["item", "class", "contribution", "lost"]].values.tolist()
    [['1', 'A', 0.25, 0.0], ['2', 'A', 0.0, 0.25], ['3', 'B', 0.5, 0.0]]
    """
    counts = hard.class_counts(case.p)
    on_output = case.name == "Pr"
    sizes = counts.predicted if on_output else counts.gold
    defined = [c for c in _columns(case.p, case.label) if sizes[c] > 0]
    weights = {c: 1 / sizes[c] / len(defined) for c in defined}
    data = _said_rows(case.p, "output" if on_output else "gold", defined, weights)
    side, which = ("O_c", "the output's items of c; C the gold's classes the output says") if on_output else \
        ("G_c", "the gold's items of c; C the gold's classes")
    formula = (f"{case.name} = (1/|C|) Σ_{{c ∈ C}} TP_c/|{side}| = Σ_{{(item, c)}} [right] / (|{side}|·|C|), "
               f"TP_c the items both put in c, {side} {which} (label=c: C = {{c}})")
    return case.alone(data, formula, case.score)


def _f_measure(case: _Case) -> MeasureExplanation:
    """FMeasure through its parts: Pr(c) and Re(c) of each class c read, each explained as :func:`_said` does,
    combined as the mean over the classes of 1/(α/Pr(c) + (1 − α)/Re(c)).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B", gold=True)
    >>> e = _f_measure(_Case.of(gold, Labelling.parse("1: A\\n2: B\\n3: B"), "FMeasure"))
    >>> e.parts, round(e.combine(e.parts), 4)
    ({'Pr(A)': 1.0, 'Re(A)': 0.5, 'Pr(B)': 0.5, 'Re(B)': 1.0}, 0.6667)
    """
    import pandas as pd

    p = case.p
    counts = hard.class_counts(p)
    columns = _columns(p, case.label)
    if not columns:  # a class neither side names: nothing to explain
        return case.alone({"item": []}, f"{case.label!r} is not a class of this gold or output", case.score)
    frames, parts = [], {}
    for c in columns:
        label_c = p.classes[c]
        parts[f"Pr({label_c})"] = hard.precision_per_class(p)[label_c]
        parts[f"Re({label_c})"] = hard.recall_per_class(p)[label_c]
        for side, count, part in (("output", counts.predicted[c], f"Pr({label_c})"),
                                  ("gold", counts.gold[c], f"Re({label_c})")):
            frames.append(_frame(_said_rows(p, side, [c], {c: 1 / count if count else 0}), part, parts[part]))
    alpha = case.params["alpha"]
    labels = [p.classes[c] for c in columns]

    def combine(given: Mapping[str, float]) -> float:
        values = [hard.f_of(given[f"Pr({c})"], given[f"Re({c})"], alpha) for c in labels]
        return float(np.mean(values)) if values else math.nan

    return MeasureExplanation(str(case.measure), case.score, pd.concat(frames, ignore_index=True), parts,
                              "FMeasure = (1/|C|) Σ_{c ∈ C} 1/(α/Pr(c) + (1 − α)/Re(c)), C the gold's classes "
                              "(label=c: C = {c}), a class's term 0 when Pr(c) or Re(c) is 0 or the output never "
                              "says c", HOW[case.name],
                              combine)


def _errors(case: _Case) -> MeasureExplanation:
    """CrossEntropy or MAE per item: the item's error / |G|; it lost its error minus the gold's own.

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: {A: 1, B: 0}\\n2: {A: 0.5, B: 0.5}\\n3: {A: 0, B: 1}", gold=True)
    >>> output = Labelling.parse("1: {A: 0.75, B: 0.25}\\n2: {A: 0.5, B: 0.5}\\n3: {A: 0, B: 1}")
    >>> e = _errors(_Case.of(gold, output, "MAE"))
    >>> e.contributions.contribution.round(4).tolist(), round(e.score, 4)
    ([0.0833, 0.0, 0.0], 0.0833)
    """
    p, n = case.p, case.n
    if case.name == "CrossEntropy":
        errors = soft.cross_entropy_terms(p)
        ideal = soft.cross_entropy_terms(pair(case.gold, case.gold))
        formula = "CrossEntropy = Σ_items −Σ_c g(c)·log₂ o(c) / |G| (smoothed)"
    else:
        errors, ideal = soft.absolute_error_terms(p), np.zeros(n)
        formula = "MAE = Σ_items Σ_c |g(c) − o(c)| / |C| / |G|"
    return case.alone(_items(p, np.arange(n), contribution=errors / n, lost=(errors - ideal) / n), formula)


def _cem(case: _Case) -> MeasureExplanation:
    """CEM per item: prox(output, gold) / Σ_items prox(gold, gold) (Amigó et al. 2020).

    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: 1\\n2: 1\\n3: 2", gold=True)
    >>> e = _cem(_Case.of(gold, Labelling.parse("1: 1\\n2: 2\\n3: 2"), "CEM"))
    >>> e.contributions["prox(output, gold)"].round(3).tolist()  # log₂ 3, −log₂((1/2 + 2)/3), log₂ 6
    [1.585, 0.263, 2.585]
    >>> e.contributions.contribution.round(4).tolist(), round(e.score, 4)
    ([0.2754, 0.0457, 0.4492], 0.7703)
    """
    kept, perfect = ordinal.cem_terms(case.p, case.params["order"])
    total = perfect.sum()
    data = _items(case.p, np.arange(case.n), **{"prox(output, gold)": kept, "prox(gold, gold)": perfect,
                                                "contribution": kept / total, "lost": (perfect - kept) / total})
    return case.alone(data, "CEM = Σ_items prox(output, gold) / Σ_items prox(gold, gold)", case.score)


_STEPS: dict[str, Callable[[_Case], MeasureExplanation]] = {
    "ICM": _icm, "ICM-Soft": _icm, "ICM-Norm": _icm_norm, "ICM-Soft-Norm": _icm_norm, "Acc": _accuracy,
    "SP": _answered, "CohenKappa": _kappa, "Pr": _said, "Re": _said, "FMeasure": _f_measure,
    "CrossEntropy": _errors, "MAE": _errors, "CEM": _cem}


def explain_classification(gold, output, measure: str | Measure) -> MeasureExplanation:
    """A classification measure of ``output`` against ``gold`` explained (the module docstring): the measure's
    step (:data:`_STEPS`) on the scored pair (:class:`_Case`)."""
    case = _Case.of(gold, output, measure)
    step = _STEPS.get(case.name)
    if step is None:
        raise LookupError(f"{case.name} is not a classification measure")
    return step(case)
