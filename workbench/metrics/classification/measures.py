"""The classification measures in the registry (task ``"classification"``), one declaration each with its source.

Every measure reads a gold and an output :class:`~workbench.model.labelling.Labelling` (an
:class:`~workbench.model.Organization` reads as one by its levels) through :func:`~.pairs.pair`, and calls its
kernel. The names are PyEvALL's (``MetricFactory``) where the registry has no measure of that name, its acronyms
otherwise (``Acc``, ``Pr``, ``Re``: Accuracy, Precision and Recall are the filtering measures of the 2×2 table);
Cohen's kappa over k classes is ``CohenKappa`` (``Kappa`` is the 2×2 one).

A value is NaN where the measure is undefined, as PyEvALL reports None: SP when the output answers no item;
CohenKappa under PyEvALL's preconditions (no answer; gold and output of one and the same class over the same
items); Pr of a class the output never says (macro: of every class); Re and FMeasure of a class the gold never
says; ICM-Norm and ICM-Soft-Norm when the gold's own ICM is 0. A ``label`` that names no class the topic knows
(of its gold or output, declared, or in its hierarchy) is refused, naming the classes, rather than scored NaN.

    >>> from workbench import evaluate
    >>> from workbench.model.labelling import Labelling
    >>> gold = Labelling.parse("1: A\\n2: A\\n3: B\\n4: C", gold=True)
    >>> evaluate(gold, Labelling.parse("1: A\\n2: B\\n3: B"), ["Acc", "Pr(label=B)", "ICM", "ICM(beta=4)"])
    {'Acc': 0.5, 'Pr(label=B)': 0.5, 'ICM': -0.5, 'ICM(beta=4)': -2.5}
"""

from __future__ import annotations

import math

from workbench.metrics.classification import hard, icm, ordinal, soft
from workbench.metrics.classification.pairs import pair
from workbench.metrics.registry import Explainer, Param, Words, register

__all__: list[str] = []

_PYEVALL = "PyEvALL 0.2.11, pyevall/metrics/metrics.py"
_ICM = "Amigó & Delgado, ACL 2022 (ICM over class sets, IC by deepest common ancestors)"
_ICM_PARAMS = {"alpha_1": Param(2.0, icm.WEIGHT, "α₁: the weight of the output's information content IC(f)"),
               "alpha_2": Param(2.0, icm.WEIGHT, "α₂: the weight of the gold's information content IC(g)"),
               "beta": Param(3.0, icm.WEIGHT, "β: the weight of the information content of their union IC(f ∪ g)")}
_INF = math.inf
_LABEL = {"label": Param(None, Words("class of the gold or the output (None: the macro average over the gold's "
                                     "classes)"), "the class measured, or None for the macro average over the gold's "
                                                  "classes")}
_EXPLAINED = Explainer("workbench.metrics.explanations.classification:explain_classification")


def _by_class(name, per_class, macro):
    """The measure ``name`` of one class (``label``) or, without one, its macro average."""
    def compute(gold, output, *, label=None, **params):
        p = pair(gold, output)
        if label is None:
            return macro(p, **params)
        return hard.of_class(per_class(p, **params), p, label, name)

    compute.__name__, compute.__doc__ = macro.__name__, macro.__doc__
    return compute


def _on_labellings(kernel):
    """``kernel(pair)`` as a registry compute function ``(gold, output, **params)``."""
    def compute(gold, output, **params):
        return kernel(pair(gold, output), **params)

    compute.__name__, compute.__doc__ = kernel.__name__, kernel.__doc__
    return compute


# Accuracy = Σ_c TP_c / |G| (PyEvALL: Accuracy).
register("Acc", _on_labellings(hard.accuracy), task="classification", source=f"{_PYEVALL}: Accuracy",
         range=(0, 1), description="accuracy over the classes: correct gold items / gold items (mono-label)",
         spellings={"pyevall": "Accuracy"}, explained=_EXPLAINED)

# System Precision = Σ_c TP_c / |answered| (PyEvALL: SystemPrecision).
register("SP", _on_labellings(hard.system_precision), task="classification", aliases=("SystemPrecision",),
         source=f"{_PYEVALL}: SystemPrecision", range=(0, 1),
         description="correct items / items the output labels (mono-label)",
         spellings={"pyevall": "SystemPrecision"}, explained=_EXPLAINED)

# Kappa = (Acc − P_e)/(1 − P_e), P_e = Σ_c (O_c/|G|)(G_c/|G|) (Cohen 1960; PyEvALL: Kappa).
register("CohenKappa", _on_labellings(hard.kappa), task="classification", source=f"Cohen 1960; {_PYEVALL}: Kappa",
         range=(-1, 1), description="Cohen's kappa over k classes (mono-label)",
         spellings={"pyevall": "Kappa"}, explained=_EXPLAINED)

# P_c = TP_c / predicted_c; macro: mean over the gold's classes where defined (PyEvALL: Precision).
register("Pr", _by_class("Pr", hard.precision_per_class, hard.macro_precision), task="classification",
         source=f"{_PYEVALL}: Precision", params=_LABEL, range=(0, 1),
         description="precision of one class (label=...), or their macro average over the gold's classes",
         spellings={"pyevall": "Precision"}, explained=_EXPLAINED)

# R_c = TP_c / G_c; macro: mean over the gold's classes (PyEvALL: Recall).
register("Re", _by_class("Re", hard.recall_per_class, hard.macro_recall), task="classification",
         source=f"{_PYEVALL}: Recall", params=_LABEL, range=(0, 1),
         description="recall of one class (label=...), or their macro average over the gold's classes",
         spellings={"pyevall": "Recall"}, explained=_EXPLAINED)

# F_c = 1/(α/P_c + (1 − α)/R_c); macro: mean over the gold's classes (van Rijsbergen 1974; PyEvALL: FMeasure).
register("FMeasure", _by_class("FMeasure", hard.f_per_class, hard.macro_f), task="classification",
         source=f"van Rijsbergen 1974; {_PYEVALL}: FMeasure", range=(0, 1),
         params={"alpha": Param(0.5, hard.F_ALPHA, "α: the weight of precision in F_α = 1/(α/P + (1 − α)/R)"),
                 **_LABEL},
         description="F_α of one class (label=...), or the macro average of the classes' F_α",
         spellings={"pyevall": "FMeasure"}, explained=_EXPLAINED)

# ICM = α₁·IC(f) + α₂·IC(g) − β·IC(f ∪ g), averaged over items (Amigó & Delgado, ACL 2022; PyEvALL: ICM).
register("ICM", _on_labellings(icm.icm), task="classification", source=f"{_ICM}; {_PYEVALL}: ICM",
         params=_ICM_PARAMS, range=(-_INF, _INF),
         description="Information Contrast Model of hard labels (bits): mono-label, flat or hierarchical, and "
                     "multi-label in a class hierarchy (PyEvALL reports no value for multi-label without one)",
         spellings={"pyevall": "ICM"}, explained=_EXPLAINED)

# ICM-Norm = (ICM + ICM(g,g)) / (2·ICM(g,g)), cut at 0 (PyEvALL: ICMNorm).
register("ICM-Norm", _on_labellings(icm.icm_norm), task="classification", aliases=("ICMNorm",),
         source=f"{_PYEVALL}: ICMNorm", params=_ICM_PARAMS, range=(0, _INF),
         description="ICM over the gold's own ICM, mapped so that the gold scores 1 (may exceed 1); as ICM, "
                     "multi-label only in a class hierarchy",
         spellings={"pyevall": "ICMNorm"}, explained=_EXPLAINED)

# ICM-Soft: ICM with IC(c, w) = −log₂(1 − Φ((w − μ_c)/σ_c)) (PyEvALL: ICMSoft).
register("ICM-Soft", _on_labellings(icm.icm_soft), task="classification", aliases=("ICMSoft",),
         source=f"{_ICM}; {_PYEVALL}: ICMSoft", params=_ICM_PARAMS, range=(-_INF, _INF),
         description="Information Contrast Model of soft labels (weights per class), hierarchical or flat (bits)",
         spellings={"pyevall": "ICMSoft"}, explained=_EXPLAINED)

# ICM-Soft-Norm = (ICM-Soft + ICM-Soft(g,g)) / (2·ICM-Soft(g,g)), cut at 0 (PyEvALL: ICMSoftNorm).
register("ICM-Soft-Norm", _on_labellings(icm.icm_soft_norm), task="classification", aliases=("ICMSoftNorm",),
         source=f"{_PYEVALL}: ICMSoftNorm", params=_ICM_PARAMS, range=(0, _INF),
         description="ICM-Soft over the gold's own ICM-Soft, mapped so that the gold scores 1 (may exceed 1)",
         spellings={"pyevall": "ICMSoftNorm"}, explained=_EXPLAINED)

# CE = −Σ_c g(c)·log₂ o(c) over smoothed, normalized vectors (PyEvALL: CrossEntropy).
register("CrossEntropy", _on_labellings(soft.cross_entropy), task="classification",
         source=f"{_PYEVALL}: CrossEntropy", range=(0, _INF), direction="lower",
         description="cross entropy of the output's soft labels against the gold's (bits; lower is better)",
         spellings={"pyevall": "CrossEntropy"}, explained=_EXPLAINED)

# MAE = Σ_c |g(c) − o(c)| / |C| (PyEvALL: MAE).
register("MAE", _on_labellings(soft.mean_absolute_error), task="classification", source=f"{_PYEVALL}: MAE",
         range=(0, 1), direction="lower",
         description="mean absolute error of the soft labels over the classes (lower is better)",
         spellings={"pyevall": "MAE"}, explained=_EXPLAINED)

# CEM = Σ_d prox(o(d), g(d)) / Σ_d prox(g(d), g(d)) (Amigó, Gonzalo, Mizzaro & Carrillo-de-Albornoz, ACL 2020).
register("CEM", _on_labellings(ordinal.cem), task="classification",
         params={"order": Param(None, ordinal.ORDER, "the ordinal classes, lowest first (None: the gold's "
                                                     "declared classes)")},
         range=(0, 1),
         source="Amigó, Gonzalo, Mizzaro & Carrillo-de-Albornoz, ACL 2020 (CEM^ORD with prox^ORD)",
         description="Closeness Evaluation Measure of ordinal classes (order=neg<neu<pos, or the declared classes)",
         explained=_EXPLAINED)
