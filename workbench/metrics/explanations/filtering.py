"""Filtering measures explained per outcome: every document's TP / FP / FN / TN and its share of the score.

Every filtering measure is a function of the estimates of Amigó et al., filtering metrics comparison, §4
(:func:`~workbench.metrics.filtering.estimates`): P(G), P(S|G), P(S|¬G), P(G|S), P(G|¬S). Each estimate is a share of
the documents of one class (P(S|G): the gold positives the output accepts), so each document of that class holds
1/|class| of it (1/(|class| + 2) with smoothing, whose pseudo-counts make one more row, ``outcome`` ``"smoothing"``).

* Measures that are sums over the documents — Accuracy, WAcc, MAAc, Chi, Utility, LinearUtility, Precision,
  Recall — get one row per document whose ``contribution`` adds up to the score: the measure's weight of the
  estimates its outcome counts in (Accuracy: P(G)/|G| for a true positive, P(¬G)/|¬G| for a true negative).
* The others — F, Reliability, Sensitivity, F(R,S), Lam%, Phi, Kappa, MI, Odds, Chi-counts — are explained
  through the estimates they combine (``part``), each a sum over its class's documents, and the measure's own
  function of them (:meth:`~workbench.metrics.explanations.core.MeasureExplanation.combine`).

A row ``lost`` the share it would add to the estimates of its class if it counted where counting helps (a
false negative accepted, a false positive rejected) minus what it adds: correct decisions lose nothing.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_filtering(["a", "b"], ["c", "d"])
    >>> e = explain_filtering(gold, Organization.from_filtering(["a", "c"], ["b", "d"]), "Accuracy")
    >>> print(e.contributions[["document", "outcome", "contribution", "lost"]].to_string(index=False))
    document outcome  contribution  lost
           a      TP          0.25  0.00
           b      FN          0.00  0.25
           c      FP          0.00  0.25
           d      TN          0.25  0.00
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import replace

import numpy as np

from workbench.metrics import filtering as kernels
from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.registry import Measure, parse
from workbench.model import Organization, natural_key

__all__ = ["OUTCOMES", "ESTIMATES", "PARTS", "LINEAR", "HOW", "FUNCTIONS", "outcomes", "explain_filtering"]


def _signed_sum(terms: list[str]) -> str:
    """Terms written with their signs, as a formula reads: a negative one subtracted with a minus sign (−), not added.

    >>> _signed_sum(["1·P(S|G)", "-5·P(S|¬G)", "0.5"])
    '1·P(S|G) − 5·P(S|¬G) + 0.5'
    """
    text = ""
    for term in terms:
        negative = term.startswith("-")
        body = term[1:] if negative else term
        text += (("−" if negative else "") + body) if not text else (" − " if negative else " + ") + body
    return text or "0"

def _first_sentence(docstring: str) -> str:
    """A kernel docstring's first sentence, its formula, on one line and without its full stop.

    >>> _first_sentence("F = 1/(α/P + (1−α)/R) (Amigó et al., §4.3); 0 when P or R\\n    is 0. More.")
    'F = 1/(α/P + (1−α)/R) (Amigó et al., §4.3); 0 when P or R is 0'
    """
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    return re.split(r"\.(?:\s|$)", paragraph, maxsplit=1)[0]


OUTCOMES = ("TP", "FP", "FN", "TN")

# Each estimate: the outcomes of its class, those it counts, and whether more of it is better (None: a marginal).
ESTIMATES = {
    "P(G)": (OUTCOMES, ("TP", "FN"), None),
    "P(S|G)": (("TP", "FN"), ("TP",), True),
    "P(¬S|G)": (("TP", "FN"), ("FN",), False),
    "P(S|¬G)": (("FP", "TN"), ("FP",), False),
    "P(¬S|¬G)": (("FP", "TN"), ("TN",), True),
    "P(G|S)": (("TP", "FP"), ("TP",), True),
    "P(¬G|¬S)": (("FN", "TN"), ("TN",), True),
}


def _value(e: kernels.Estimates, name: str) -> float:
    """An estimate's value, read from the kernel's :class:`~workbench.metrics.filtering.Estimates`."""
    return {"P(G)": e.p_g, "P(S|G)": e.s_g, "P(¬S|G)": 1 - e.s_g, "P(S|¬G)": e.s_ng, "P(¬S|¬G)": 1 - e.s_ng,
            "P(G|S)": e.g_s, "P(¬G|¬S)": 1 - e.g_ns}[name]


def _with(e: kernels.Estimates, parts: Mapping[str, float]) -> kernels.Estimates:
    """``e`` with the estimates named in ``parts`` replaced (the complements read back)."""
    fields = {"P(G)": ("p_g", False), "P(S|G)": ("s_g", False), "P(¬S|G)": ("s_g", True), "P(S|¬G)": ("s_ng", False),
              "P(¬S|¬G)": ("s_ng", True), "P(G|S)": ("g_s", False), "P(¬G|¬S)": ("g_ns", True)}
    changes = {}
    for name, value in parts.items():
        field, complement = fields[name]
        changes[field] = 1 - value if complement else value
    return replace(e, **changes)


def _share(counts: dict[str, float], name: str, smoothing: str) -> float:
    """Each document's share of an estimate: 1 / its class's size (with the pseudo-counts of smoothing)."""
    size = sum(counts[o] for o in ESTIMATES[name][0])
    if name == "P(G)":
        size += 4 if smoothing == "laplace" else 0
    elif smoothing != "none":
        size += 2
    return 1.0 / size if size else math.nan


# A linear measure: its weights of the estimates (functions of the marginals) and its constant.
def _linear(name: str, params: dict, e: kernels.Estimates) -> tuple[dict[str, float], float] | None:
    pg = e.p_g
    if name == "Precision":
        return {"P(G|S)": 1.0}, 0.0
    if name == "Recall":
        return {"P(S|G)": 1.0}, 0.0
    if name == "Accuracy":
        return {"P(S|G)": pg, "P(¬S|¬G)": 1 - pg}, 0.0
    if name == "WAcc":
        lam = params["lam"]
        total = lam * pg + (1 - pg)
        return {"P(S|G)": lam * pg / total, "P(¬S|¬G)": (1 - pg) / total}, 0.0
    if name == "MAAc":
        return {"P(S|G)": 0.5, "P(¬S|¬G)": 0.5}, 0.0
    if name == "Chi":
        return {"P(S|G)": 0.5, "P(S|¬G)": -0.5}, 0.5
    if name == "Utility":
        return {"P(S|G)": params["alpha"] * e.n * pg, "P(S|¬G)": -e.n * (1 - pg)}, 0.0
    if name == "LinearUtility":
        a1, a2, a3, a4 = (params[k] for k in ("a1", "a2", "a3", "a4"))
        return {"P(S|G)": a1 * e.n * pg, "P(¬S|¬G)": a2 * e.n * (1 - pg), "P(S|¬G)": -a3 * e.n * (1 - pg),
                "P(¬S|G)": -a4 * e.n * pg}, 0.0
    return None


PARTS = {"F": ("P(G|S)", "P(S|G)"), "Reliability": ("P(G|S)", "P(¬G|¬S)"), "Sensitivity": ("P(S|G)", "P(¬S|¬G)"),
         "F(R,S)": ("P(G|S)", "P(¬G|¬S)", "P(S|G)", "P(¬S|¬G)"), "Lam%": ("P(¬S|G)", "P(S|¬G)"),
         "Phi": ("P(G)", "P(S|G)", "P(S|¬G)"), "Kappa": ("P(G)", "P(S|G)", "P(S|¬G)"),
         "MI": ("P(G)", "P(S|G)", "P(S|¬G)"), "Odds": ("P(S|G)", "P(S|¬G)"),
         "Chi-counts": ("P(G)", "P(S|G)", "P(S|¬G)")}
LINEAR = ("Accuracy", "WAcc", "Utility", "LinearUtility", "Precision", "Recall", "MAAc", "Chi")
HOW = {name: "per outcome" for name in LINEAR} | {name: "through its parts: " + ", ".join(parts)
                                                   for name, parts in PARTS.items()}
FUNCTIONS: dict[str, Callable] = {
    "Accuracy": kernels.accuracy, "WAcc": kernels.weighted_accuracy, "Utility": kernels.utility,
    "LinearUtility": kernels.linear_utility, "Lam%": kernels.lam, "Phi": kernels.phi, "Kappa": kernels.kappa,
    "MI": kernels.mutual_information, "Odds": kernels.odds_ratio, "MAAc": kernels.macro_accuracy,
    "Chi": kernels.chi, "Chi-counts": kernels.chi_counts, "Precision": kernels.precision, "Recall": kernels.recall,
    "F": kernels.f_measure, "Reliability": kernels.reliability, "Sensitivity": kernels.sensitivity,
    "F(R,S)": kernels.f_reliability_sensitivity}


def outcomes(gold: Organization, output: Organization) -> tuple[list[str], list[str]]:
    """Every document of the collection :func:`~workbench.metrics.filtering.contingency` counts, and its
    outcome (TP, FP, FN, TN), documents in natural order."""
    collection = gold.documents if gold.finite else gold.documents | output.documents
    g, s = gold.prioritised, output.prioritised & collection
    documents = sorted(collection, key=natural_key)
    return documents, [("T" if (d in g) == (d in s) else "F") + ("P" if d in s else "N") for d in documents]


def explain_filtering(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A filtering measure of ``output`` against ``gold`` explained (the module docstring)."""
    import pandas as pd

    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    smoothing = params.pop("smoothing", "none")
    score = measure(gold, output)
    c = kernels.contingency(gold, output)
    e = kernels.estimates(c, smoothing)
    counts = {"TP": c.tp, "FP": c.fp, "FN": c.fn, "TN": c.tn}
    documents, labels = outcomes(gold, output)
    outcome = np.asarray(labels, dtype=object)
    gold_side = np.where(np.isin(outcome, ("TP", "FN")), "positive", "negative")
    output_side = np.where(np.isin(outcome, ("TP", "FP")), "positive", "negative")
    shares = {part: _share(counts, part, smoothing) for part in ESTIMATES}
    function = FUNCTIONS[name]
    sign = -1.0 if measure.spec.direction == "lower" else 1.0

    def rows(weights: Mapping[str, float], constant: float, part: str | None):
        """The documents' rows for an estimate sum with ``weights``, the smoothing row, the constant's row."""
        per_outcome = {o: sum(w * shares[p] for p, w in weights.items() if w and o in ESTIMATES[p][1])
                       for o in OUTCOMES}
        members = set().union(*(ESTIMATES[p][0] for p, w in weights.items() if w))
        keep = np.isin(outcome, sorted(members))
        mine = outcome[keep]
        contribution = np.array([per_outcome[o] for o in mine], dtype=float)
        if part is None:  # best: what the row adds to each estimate of its class when it counts where it helps
            best = {o: sum(max(w * shares[p], 0.0) for p, w in weights.items() if w and o in ESTIMATES[p][0])
                    for o in OUTCOMES}
            lost = sign * (np.array([best[o] for o in mine], dtype=float) - contribution)
        elif ESTIMATES[part][2] is None:  # a marginal: nothing to lose
            lost = np.zeros(len(mine))
        elif ESTIMATES[part][2]:
            lost = shares[part] - contribution
        else:
            lost = contribution
        frame = pd.DataFrame({"document": np.asarray(documents, dtype=object)[keep], "gold": gold_side[keep],
                              "output": output_side[keep], "outcome": mine, "share": contribution,
                              "contribution": contribution, "lost": lost + 0.0})
        prior = sum(w * (_value(e, p) - sum(counts[o] for o in ESTIMATES[p][1]) * shares[p])
                    for p, w in weights.items() if w)
        if part is not None and math.isnan(_value(e, part)):
            extra = [("undefined", math.nan, "an empty class: the estimate is undefined")]
        elif smoothing != "none":
            extra = [("smoothing", prior, f"the pseudo-counts of {smoothing} smoothing")]
        else:
            extra = []
        extra += [("constant", constant, "the value of a non-informative output")] if constant else []
        if extra:
            frame = pd.concat([frame, pd.DataFrame({
                "document": None, "gold": None, "output": None, "outcome": [o for o, _, _ in extra],
                "share": np.nan, "what": [w for _, _, w in extra], "contribution": [v for _, v, _ in extra],
                "lost": 0.0})], ignore_index=True)
        if part is not None:
            frame.insert(len(frame.columns) - 2, "part", part)
        return frame

    linear = _linear(name, params, e)
    if linear is not None:
        weights, constant = linear
        frame = rows({p: w for p, w in weights.items() if w and not math.isnan(w)}, constant, None)
        if math.isnan(score):
            frame = pd.concat([frame, pd.DataFrame({"document": [None], "outcome": ["undefined"],
                                                    "what": ["an empty class: the estimate it needs is undefined"],
                                                    "contribution": [math.nan], "lost": [math.nan]})],
                              ignore_index=True)
        terms = [f"{w:.4g}·{p}" for p, w in weights.items()] + ([f"{constant:g}"] if constant else [])
        formula = f"{name} = Σ weight × estimate: {_signed_sum(terms)}; each estimate shares 1/|class| among its " \
                  "documents"
        return MeasureExplanation(str(measure), score, frame, {str(measure): score}, formula, HOW[name])
    parts = PARTS[name]
    frame = pd.concat([rows({part: 1.0}, 0.0, part) for part in parts], ignore_index=True)
    values = {part: _value(e, part) for part in parts}

    def combine(given: Mapping[str, float]) -> float:
        return float(function(_with(e, given), **params))

    summary = _first_sentence(function.__doc__) if function.__doc__ else function.__name__  # python -OO strips it
    formula = f"{name} of {', '.join(parts)} ({summary})"
    return MeasureExplanation(str(measure), score, frame, values, formula, HOW[name], combine)
