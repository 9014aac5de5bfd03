"""How the meta-evaluation methods draw their topic sets: one matrix of topic indices, drawn up front from one
seeded generator (``numpy.random.default_rng(seed)``), which every method consumes — and which the tests' plain-loop
implementation (``tests/meta_bruteforce.py``) draws again with the same calls, so that both give the same numbers.

:func:`topic_samples` returns an integer array of shape ``(samples, sets, size)``: sample ``b``'s ``j``-th topic set
is ``index[b, j]``, positions of topics in the order of the score cube.

- ``replace=True`` (a bootstrap sample of topics, Sakai SIGIR 2006 and the P-measure paper's "1000 bootstrap samples
  of topics"): ``rng.integers(0, n, size=(samples, sets, size))``, one call; ``size`` is n by default.
- ``replace=False`` (topic subsets drawn without replacement, Buckley and Voorhees SIGIR 2000; disjoint halves,
  Voorhees and Buckley SIGIR 2002): ``keys = rng.random((samples, n))`` in one call, then each row's topics sorted
  by their keys (``numpy.argsort(keys, axis=1, kind="stable")``): a random permutation per sample, whose first
  ``size`` topics are set 0, the next ``size`` set 1, and so on — the sets of one sample are disjoint.

    >>> topic_samples(5, 2, size=3, seed=1)[:, 0].tolist()
    [[2, 2, 3], [4, 0, 0]]
    >>> index = topic_samples(6, 3, size=3, sets=2, replace=False, seed=1)
    >>> sorted(index[0].ravel().tolist())  # two disjoint halves of the six topics
    [0, 1, 2, 3, 4, 5]
    >>> multiplicities(topic_samples(5, 2, size=3, seed=1)[:, 0], 5).tolist()
    [[0.0, 0.0, 2.0, 1.0, 0.0], [2.0, 0.0, 0.0, 0.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.analysis.results import ResultsError, ScoreCube, score_cube
from workbench.validation import SEED, Flag, Interval, check, validate

__all__ = ["LARGEST_SAMPLES", "topic_samples", "multiplicities", "campaign_cube", "system_pairs", "pair_chunks",
           "scale_of", "TOLERANCE", "require_frame"]

LARGEST_SAMPLES = 100_000
"""The most samples (bootstrap samples, trial topic sets) a method draws: the index matrix is allocated."""
TOLERANCE = 1e-12
"""Two numbers closer than ``TOLERANCE × max(1, largest |score| of the measure)`` are equal to the methods: a
difference of means that is 0 in exact arithmetic is a tie whatever the order of summation, so that the vectorised
methods and a plain loop decide alike."""


@validate(n_topics=Interval(1, 10**7, integer=True), samples=Interval(1, LARGEST_SAMPLES, integer=True),
          size=Interval(1, 10**7, integer=True, optional=True), sets=Interval(1, 16, integer=True),
          replace=Flag(), seed=SEED)
def topic_samples(n_topics: int, samples: int = 1000, *, size: int | None = None, sets: int = 1,
                  replace: bool = True, seed=0) -> np.ndarray:
    """``samples`` draws of ``sets`` topic sets of ``size`` topics each, out of ``n_topics``: an integer array of
    shape ``(samples, sets, size)`` (see the module's text for the exact calls). With ``replace`` (bootstrap
    samples) ``size`` defaults to ``n_topics``; without, to ``n_topics // sets``, and ``sets × size`` may not
    exceed ``n_topics``."""
    n = int(n_topics)
    rng = np.random.default_rng(seed)
    if replace:
        size = n if size is None else int(size)
        return rng.integers(0, n, size=(int(samples), int(sets), size))
    size = n // int(sets) if size is None else int(size)
    check(size, Interval(1, n // int(sets), integer=True), "size", "topic_samples")
    keys = rng.random((int(samples), n))
    order = np.argsort(keys, axis=1, kind="stable")
    return order[:, : int(sets) * size].reshape(int(samples), int(sets), size)


def multiplicities(index: np.ndarray, n_topics: int) -> np.ndarray:
    """How many times each topic occurs in each topic set: ``index`` of shape ``(..., size)`` gives a float array
    ``(..., n_topics)``, so that a set's mean of a score row ``x`` is ``multiplicities @ x / size``."""
    index = np.asarray(index)
    rows = index.reshape(-1, index.shape[-1])
    offsets = (np.arange(len(rows)) * n_topics)[:, None]
    counts = np.bincount((rows + offsets).ravel(), minlength=len(rows) * n_topics)
    return counts.reshape(*index.shape[:-1], n_topics).astype(float)


def campaign_cube(results: pd.DataFrame, measures: str | Sequence[str] | None, systems: Sequence | None,
                  missing: str, method: str) -> ScoreCube:
    """The score cube a method reads: 2 topics and 2 systems at least, else :class:`ResultsError` naming the
    method."""
    if isinstance(measures, str):
        measures = [measures]
    cube = score_cube(results, measures, systems=systems, missing=missing, min_topics=2)
    if len(cube.systems) < 2:
        raise ResultsError(f"{method} compares pairs of systems: 2 systems at least, the results hold "
                           f"{len(cube.systems)}")
    return cube


def system_pairs(n_systems: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a, b), a < b, in the order of ``itertools.combinations(range(n_systems), 2)``."""
    a, b = np.triu_indices(n_systems, 1)
    return a.astype(np.intp), b.astype(np.intp)


def pair_chunks(n_pairs: int, samples: int, budget: int = 1 << 22) -> list[slice]:
    """Slices of the pairs so that a ``samples × pairs`` array of a chunk holds about ``budget`` numbers at most."""
    step = max(1, budget // max(1, samples))
    return [slice(start, min(start + step, n_pairs)) for start in range(0, n_pairs, step)]


def scale_of(values: np.ndarray) -> float:
    """The scale :data:`TOLERANCE` is relative to: ``max(1, largest |value|)``."""
    return float(max(1.0, np.abs(values).max(initial=0.0)))


def require_frame(frame: pd.DataFrame, columns: Sequence[str], function: str) -> pd.DataFrame:
    """``frame`` when it is a DataFrame with rows and ``columns`` (another function's output, read again), else
    :class:`ResultsError` naming ``function``, the columns it lacks and those it has."""
    if not isinstance(frame, pd.DataFrame):
        raise ResultsError(f"{function}: expected a pandas DataFrame, got {type(frame).__name__}")
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise ResultsError(f"{function}: the table lacks column(s) {', '.join(absent)}; it has "
                           f"{', '.join(map(str, frame.columns))}")
    if frame.empty:
        raise ResultsError(f"{function}: the table has no rows")
    return frame
