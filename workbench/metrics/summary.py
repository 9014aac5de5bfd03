"""Per-topic values summarized over topics as trec_eval summarizes them (``meas_acc.c``, ``meas_avg.c``): the mean
of most measures, the sum of the counts (``num_ret``, ``num_rel``, ...), and the geometric mean of ``gm_map`` and
``gm_bpref`` (each value floored at 0.00001 so that a zero does not collapse it). Values are added one after the
other in trec_eval's topic order (the topics' bytes, as ``strcmp`` orders them), so that the last printed digit
agrees with trec_eval's::

    >>> round(summarize([0.5, 0.02], "gmean"), 12), summarize([2.0, 3.0], "sum"), summarize([1.0, 0.0], "mean")
    (0.1, 5.0, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from workbench.validation import Choices, validate

__all__ = ["AGGREGATES", "AGGREGATE", "MIN_GEO_MEAN", "trec_order", "summarize"]

AGGREGATES = ("mean", "sum", "gmean")
AGGREGATE = Choices(AGGREGATES)
"""The domain of how values combine over topics."""
MIN_GEO_MEAN = 0.00001  # trec_eval.h: the floor of gm_map and gm_bpref


def trec_order(topics: Sequence[str]) -> np.ndarray:
    """Positions of ``topics`` in trec_eval's order: by their UTF-8 bytes, as ``strcmp`` compares them."""
    keys = [topic.encode("utf-8", errors="surrogatepass") for topic in topics]
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


@validate(how=AGGREGATE)
def summarize(values, how: str = "mean", axis: int = -1) -> np.ndarray | float:
    """The values along ``axis`` (in the order given) summarized as ``how`` says (one of :data:`AGGREGATES`),
    added one by one as trec_eval adds them (not numpy's pairwise sum, whose last bits differ)."""
    array = np.moveaxis(np.asarray(values, dtype=float), axis, -1)
    count = array.shape[-1]
    if how == "gmean":
        array = np.log(np.maximum(array, MIN_GEO_MEAN))
    total = np.cumsum(array, axis=-1)[..., -1] if count else np.zeros(array.shape[:-1])
    if how == "sum":
        result = total
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            result = total / count if count else np.full(total.shape, np.nan)
        if how == "gmean":
            result = np.exp(result)
    return float(result) if np.ndim(result) == 0 else result
