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
from dataclasses import dataclass, replace

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


@dataclass(frozen=True)
class _Outcomes:
    """Every document's outcome and what each of its class's estimates gives it: ``shares[estimate]`` (1 / the
    class's size, :func:`_share`), with the kernel's contingency ``counts`` and estimates ``e``; ``sign`` is −1
    for a measure where lower is better.

    >>> gold = Organization.from_filtering(["a", "b"], ["c"])
    >>> o = _Outcomes.of(gold, Organization.from_filtering(["a", "c"], ["b"]), "none", 1.0)
    >>> o.documents.tolist(), o.outcome.tolist(), o.shares["P(S|G)"], o.shares["P(G)"]
    (['a', 'b', 'c'], ['TP', 'FN', 'FP'], 0.5, 0.3333333333333333)
    """

    documents: np.ndarray
    outcome: np.ndarray
    counts: dict[str, float]
    shares: dict[str, float]
    e: kernels.Estimates
    smoothing: str
    sign: float

    @classmethod
    def of(cls, gold: Organization, output: Organization, smoothing: str, sign: float) -> _Outcomes:
        c = kernels.contingency(gold, output)
        counts = {"TP": c.tp, "FP": c.fp, "FN": c.fn, "TN": c.tn}
        documents, labels = outcomes(gold, output)
        return cls(np.asarray(documents, dtype=object), np.asarray(labels, dtype=object), counts,
                   {part: _share(counts, part, smoothing) for part in ESTIMATES}, kernels.estimates(c, smoothing),
                   smoothing, sign)


def _lost(o: _Outcomes, weights: Mapping[str, float], part: str | None, mine: np.ndarray,
          contribution: np.ndarray) -> np.ndarray:
    """What each row (outcomes ``mine``) lost: for a measure (``part`` None) the best it could add to each
    estimate of its class (counting where it helps) minus what it adds; for an estimate, its share when more
    is better and it does not count, what it adds when less is better, nothing for a marginal.

    >>> o = _Outcomes.of(Organization.from_filtering(["a", "b"], ["c"]), Organization.from_filtering(["a", "c"], ["b"]),
    ...                  "none", 1.0)
    >>> _lost(o, {"P(S|G)": 1.0}, "P(S|G)", np.array(["TP", "FN"], dtype=object), np.array([0.5, 0.0])).tolist()
    [0.0, 0.5]
    """
    if part is None:
        best = {out: sum(max(w * o.shares[p], 0.0) for p, w in weights.items() if w and out in ESTIMATES[p][0])
                for out in OUTCOMES}
        return o.sign * (np.array([best[out] for out in mine], dtype=float) - contribution)
    if ESTIMATES[part][2] is None:
        return np.zeros(len(mine))
    return o.shares[part] - contribution if ESTIMATES[part][2] else contribution


def _extra(o: _Outcomes, weights: Mapping[str, float], constant: float,
           part: str | None) -> list[tuple[str, float, str]]:
    """The rows without a document, as (outcome, contribution, what): an undefined estimate, or the pseudo-counts
    of smoothing (the estimates' values less their documents' shares), then the measure's constant.

    >>> o = _Outcomes.of(Organization.from_filtering(["a", "b"], ["c"]), Organization.from_filtering(["a", "c"], ["b"]),
    ...                  "none", 1.0)
    >>> _extra(o, {"P(S|G)": 0.5, "P(S|¬G)": -0.5}, 0.5, None)
    [('constant', 0.5, 'the value of a non-informative output')]
    """
    prior = sum(w * (_value(o.e, p) - sum(o.counts[out] for out in ESTIMATES[p][1]) * o.shares[p])
                for p, w in weights.items() if w)
    if part is not None and math.isnan(_value(o.e, part)):
        extra = [("undefined", math.nan, "an empty class: the estimate is undefined")]
    elif o.smoothing != "none":
        extra = [("smoothing", prior, f"the pseudo-counts of {o.smoothing} smoothing")]
    else:
        extra = []
    return extra + ([("constant", constant, "the value of a non-informative output")] if constant else [])


def _rows(o: _Outcomes, weights: Mapping[str, float], constant: float, part: str | None):
    """The documents' rows for a sum of estimates with ``weights`` (one estimate: ``part``), then the rows of
    :func:`_extra`: each document's share of the estimates its outcome counts in.

    >>> o = _Outcomes.of(Organization.from_filtering(["a", "b"], ["c"]), Organization.from_filtering(["a", "c"], ["b"]),
    ...                  "none", 1.0)
    >>> print(_rows(o, {"P(S|G)": 1.0}, 0.0, "P(S|G)").to_string(index=False))
    document     gold   output outcome  share   part  contribution  lost
           a positive positive      TP    0.5 P(S|G)           0.5   0.0
           b positive negative      FN    0.0 P(S|G)           0.0   0.5
    """
    import pandas as pd

    per_outcome = {out: sum(w * o.shares[p] for p, w in weights.items() if w and out in ESTIMATES[p][1])
                   for out in OUTCOMES}
    members = set().union(*(ESTIMATES[p][0] for p, w in weights.items() if w))
    keep = np.isin(o.outcome, sorted(members))
    mine = o.outcome[keep]
    contribution = np.array([per_outcome[out] for out in mine], dtype=float)
    frame = pd.DataFrame({"document": o.documents[keep],
                          "gold": np.where(np.isin(mine, ("TP", "FN")), "positive", "negative"),
                          "output": np.where(np.isin(mine, ("TP", "FP")), "positive", "negative"), "outcome": mine,
                          "share": contribution, "contribution": contribution,
                          "lost": _lost(o, weights, part, mine, contribution) + 0.0})
    extra = _extra(o, weights, constant, part)
    if extra:
        frame = pd.concat([frame, pd.DataFrame({
            "document": None, "gold": None, "output": None, "outcome": [out for out, _, _ in extra],
            "share": np.nan, "what": [w for _, _, w in extra], "contribution": [v for _, v, _ in extra],
            "lost": 0.0})], ignore_index=True)
    if part is not None:
        frame.insert(len(frame.columns) - 2, "part", part)
    return frame


def _explain_linear(measure: Measure, score: float, o: _Outcomes, weights: Mapping[str, float],
                    constant: float) -> MeasureExplanation:
    """A measure that is a weighted sum of the estimates (:func:`_linear`) explained per document.

    >>> o = _Outcomes.of(Organization.from_filtering(["a", "b"], ["c"]), Organization.from_filtering(["a", "c"], ["b"]),
    ...                  "none", 1.0)
    >>> e = _explain_linear(parse("Chi"), 0.25, o, {"P(S|G)": 0.5, "P(S|¬G)": -0.5}, 0.5)
    >>> e.contributions.contribution.tolist(), e.formula.split(";")[0]
    ([0.25, 0.0, -0.5, 0.5], 'Chi = Σ weight × estimate: 0.5·P(S|G) − 0.5·P(S|¬G) + 0.5')
    """
    import pandas as pd

    name = measure.spec.name
    frame = _rows(o, {p: w for p, w in weights.items() if w and not math.isnan(w)}, constant, None)
    if math.isnan(score):
        frame = pd.concat([frame, pd.DataFrame({"document": [None], "outcome": ["undefined"],
                                                "what": ["an empty class: the estimate it needs is undefined"],
                                                "contribution": [math.nan], "lost": [math.nan]})],
                          ignore_index=True)
    terms = [f"{w:.4g}·{p}" for p, w in weights.items()] + ([f"{constant:g}"] if constant else [])
    formula = f"{name} = Σ weight × estimate: {_signed_sum(terms)}; each estimate shares 1/|class| among its " \
              "documents"
    return MeasureExplanation(str(measure), score, frame, {str(measure): score}, formula, HOW[name])


def _explain_parts(measure: Measure, score: float, o: _Outcomes, params: Mapping) -> MeasureExplanation:
    """A measure explained through the estimates it combines (:data:`PARTS`), each a sum over its class's
    documents, and the measure's own function of them.

    >>> o = _Outcomes.of(Organization.from_filtering(["a", "b"], ["c"]), Organization.from_filtering(["a", "c"], ["b"]),
    ...                  "none", 1.0)
    >>> e = _explain_parts(parse("F"), 0.5, o, {"alpha": 0.5})
    >>> e.parts, e.combine(e.parts)
    ({'P(G|S)': 0.5, 'P(S|G)': 0.5}, 0.5)
    """
    import pandas as pd

    name = measure.spec.name
    parts, function = PARTS[name], FUNCTIONS[name]
    frame = pd.concat([_rows(o, {part: 1.0}, 0.0, part) for part in parts], ignore_index=True)
    values = {part: _value(o.e, part) for part in parts}

    def combine(given: Mapping[str, float]) -> float:
        return float(function(_with(o.e, given), **params))

    summary = _first_sentence(function.__doc__) if function.__doc__ else function.__name__  # python -OO strips it
    formula = f"{name} of {', '.join(parts)} ({summary})"
    return MeasureExplanation(str(measure), score, frame, values, formula, HOW[name], combine)


def explain_filtering(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A filtering measure of ``output`` against ``gold`` explained (the module docstring): per document
    (:func:`_explain_linear`) or through its estimates (:func:`_explain_parts`)."""
    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    smoothing = params.pop("smoothing", "none")
    score = measure(gold, output)
    o = _Outcomes.of(gold, output, smoothing, -1.0 if measure.spec.direction == "lower" else 1.0)
    linear = _linear(name, params, o.e)
    if linear is not None:
        return _explain_linear(measure, score, o, *linear)
    return _explain_parts(measure, score, o, params)
