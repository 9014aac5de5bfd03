"""A progress bar for long work: tqdm's (``tqdm.auto``: a bar widget in a notebook, a line on a terminal), shown
only when the work lasts more than a second and gone once it ends, so short calls and finished cells stay clean.

    >>> [item for item in progress(range(3), desc="checking", unit="case")]
    [0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

__all__ = ["progress"]

Item = TypeVar("Item")


def progress(work: Iterable[Item], *, desc: str, unit: str, shown: bool = True) -> Iterator[Item]:
    """``work``, item by item, with a bar saying ``desc`` and counting ``unit`` s when ``shown``."""
    if not shown:
        return iter(work)
    from tqdm.auto import tqdm

    return iter(tqdm(work, desc=desc, unit=unit, delay=1.0, leave=False))
