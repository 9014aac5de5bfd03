"""Classification: mono-label, multi-label, hierarchical and soft ("learning with disagreement") labels, with every
classification measure of PyEvALL and the ordinal CEM (:mod:`.measures` registers them, task ``"classification"``).

A gold and an output are :class:`~workbench.model.labelling.Labelling` s (one topic each); :func:`.pairs.pair`
lines them up as arrays and the kernels are pure functions of that pair:

* :mod:`.hard`: Accuracy, System Precision, Cohen's kappa; Precision, Recall, F per class and macro;
* :mod:`.icm`: ICM and ICM-Norm (hard labels), ICM-Soft and ICM-Soft-Norm (soft labels), hierarchical or flat;
* :mod:`.soft`: Cross Entropy and MAE of soft labels;
* :mod:`.ordinal`: CEM over ordered classes.

PyEvALL's files are read by :mod:`workbench.data.pyevall`.
"""

from workbench.metrics.classification import measures  # noqa: F401 (registers the measures, as the other families)
from workbench.metrics.classification.pairs import ClassificationInputError, LabelledPair, pair

__all__ = ["ClassificationInputError", "LabelledPair", "pair"]
