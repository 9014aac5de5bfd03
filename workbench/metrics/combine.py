"""Van Rijsbergen's F_α, the one way the workbench combines two complementary scores.

F_α(a, b) = 1 / (α/a + (1 − α)/b) (Amigó et al., JAIR 2011, §2.1; Amigó et al., filtering metrics comparison, §4):
precision and recall, Purity and Inverse Purity, Reliability and Sensitivity. It is 0 when a component it weighs is 0
(the papers' limit), the undefined component's NaN when one is undefined, ``a`` at α = 1 and ``b`` at α = 0. Scalars
give a float, arrays an array (elementwise, broadcast).

    >>> f_alpha(0.5, 1.0), f_alpha(0.0, 0.7), f_alpha(0.4, 0.0, alpha=1.0)
    (0.6666666666666666, 0.0, 0.4)
"""

from __future__ import annotations

import numpy as np

from workbench.validation import Elementwise, validate

__all__ = ["f_alpha"]


@validate(a=Elementwise(0, nan=True), b=Elementwise(0, nan=True), alpha=Elementwise(0, 1))
def f_alpha(a, b, alpha=0.5):
    """F_α of ``a`` (weighted by α) and ``b`` (weighted by 1 − α), scores ≥ 0 (NaN: undefined) and α in [0, 1];
    see the module docstring."""
    a, b, w = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float), np.asarray(alpha, float))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mixed = np.where((a == 0) | (b == 0), 0.0, 1 / (w / a + (1 - w) / b))  # no underflow to 0/0
    f = np.where(w == 1, a, np.where(w == 0, b, mixed))
    return float(f) if f.ndim == 0 else f
