"""Per-topic values as z-scores against reference statistics, as trec_eval's ``-Z`` turns them
(``convert_zscores.c``): ``(value − mean) / stddev``; 0 where the standard deviation is 0 and the value is the
mean; :data:`MISSING_ZSCORE_VALUE` (−1000000, trec_eval.h) where the statistics are missing or the standard
deviation is 0 and the value is not the mean::

    >>> z = zscores(np.array([0.3, 0.2, 0.5, 0.4]), means=np.array([0.2, 0.2, 0.1, 0.0]),
    ...             stddevs=np.array([0.05, 0.0, 0.0, 1.0]), found=np.array([True, True, True, False]))
    >>> z.round(6).tolist()
    [2.0, 0.0, -1000000.0, -1000000.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["MISSING_ZSCORE_VALUE", "zscores"]

MISSING_ZSCORE_VALUE = -1000000.0


def zscores(values: np.ndarray, means: np.ndarray, stddevs: np.ndarray, found: np.ndarray) -> np.ndarray:
    """The z-score of each value given its statistics (``found``: whether there are any); see the module
    docstring."""
    values, means, stddevs = (np.asarray(a, dtype=float) for a in (values, means, stddevs))
    found = np.asarray(found, dtype=bool)
    spread = found & (stddevs != 0)  # C's `if (stddev)`: a NaN deviation divides too
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (values - means) / np.where(spread, stddevs, 1.0)
    out = np.where(spread, scaled, MISSING_ZSCORE_VALUE)
    return np.where(found & ~spread & (values == means), 0.0, out)
