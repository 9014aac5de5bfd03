"""Label vectors (scikit-learn's ``y_true``/``y_pred``) read without silent coercion.

numpy turns ``[1, "1"]`` into two equal strings; here a vector mixing strings with other values keeps every
label as the Python value it is, so ``1`` and ``"1"`` stay two labels while ``1``, ``1.0`` and ``True`` are one
(Python equality, as in a dict). A missing label (None or NaN) is refused with its position.

    >>> codes, labels = factorize([1, "1", 1.0], "labels_pred")
    >>> codes.tolist(), labels
    ([0, 1, 0], [1, '1'])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.errors import WorkbenchError

__all__ = ["label_vector", "factorize"]


def label_vector(values: Sequence, name: str, error: type[WorkbenchError] = WorkbenchError) -> np.ndarray:
    """``values`` as a 1-D array, an object array when a list mixes strings with other values; raises
    ``error`` naming ``name`` and the position of a missing (None/NaN) label."""
    import pandas as pd  # here, not at import: the registry loads the measure modules for every measure name

    array = np.asarray(values)
    if array.dtype.kind in "US" and not isinstance(values, np.ndarray | pd.Series | pd.Index) and \
            not all(isinstance(v, str | bytes) for v in values):
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
    if array.ndim != 1:
        raise error(f"{name} must be 1D, got shape {array.shape}")
    if array.dtype.kind in "fcO":
        missing = pd.isna(array)
        if missing.any():
            where = int(np.flatnonzero(missing)[0])
            raise error(f"{name} holds {'NaN' if array[where] is not None else 'None'} at position {where}")
    return array


def factorize(values: Sequence | np.ndarray, name: str,
              error: type[WorkbenchError] = WorkbenchError) -> tuple[np.ndarray, list]:
    """Integer codes 0..k-1 (labels numbered in order of first appearance) and the k distinct labels."""
    import pandas as pd

    array = values if isinstance(values, np.ndarray) else label_vector(values, name, error)
    try:
        codes, uniques = pd.factorize(array)
    except TypeError as exc:  # unhashable labels, e.g. lists
        raise error(f"{name}: a label is not hashable ({exc})") from None
    return codes.astype(np.int64, copy=False), list(uniques.tolist())
