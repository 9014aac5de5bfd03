"""The sign test of paired scores (Dixon & Mood, JASA 1946): of the n topics where two systems differ, k where the
first is better; under the null hypothesis k ~ Binomial(n, ½), and the two-sided p-value is
P(X ≤ min(k, n − k)) + P(X ≥ n − min(k, n − k)), at most 1 — as ``scipy.stats.binomtest(k, n)`` computes it.
Equal scores are dropped (the test counts signs); no difference at all gives p = 1. The differences must be finite
(a NaN difference is neither a win nor a tie: refused, naming it).

    >>> sign_test([[0.1, 0.2, -0.1, 0.3, 0.0]])
    (array([3.]), array([0.625]))
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from workbench.validation import Numbers, validate

__all__ = ["sign_test"]


@validate(d=Numbers(ndim=2))
def sign_test(d) -> tuple[np.ndarray, np.ndarray]:
    """The number of positive differences k and the two-sided p-value of each row of differences ``d`` (pairs ×
    topics)."""
    d = np.asarray(d, dtype=float)
    k, n = (d > 0).sum(axis=1), (d != 0).sum(axis=1)
    low = np.minimum(k, n - k)
    p = np.where(2 * k == n, 1.0, stats.binom.cdf(low, n, 0.5) + stats.binom.sf(n - low - 1, n, 0.5))
    return k.astype(float), np.minimum(1.0, p)
