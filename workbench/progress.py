"""A progress bar for long work: tqdm's (``tqdm.auto``: a bar widget in a notebook, a line on a terminal), shown
only when the work lasts more than a second and gone once it ends, so short calls and finished cells stay clean.

    >>> [item for item in progress(range(3), desc="checking", unit="case")]
    [0, 1, 2]
    >>> with byte_progress(10, desc="reading") as advance:
    ...     advance(10)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

__all__ = ["progress", "byte_progress"]

Item = TypeVar("Item")


def progress(work: Iterable[Item], *, desc: str, unit: str, shown: bool = True) -> Iterator[Item]:
    """``work``, item by item, with a bar saying ``desc`` and counting ``unit`` s when ``shown``."""
    if not shown:
        return iter(work)
    from tqdm.auto import tqdm

    return iter(tqdm(work, desc=desc, unit=unit, delay=1.0, leave=False))


@contextmanager
def byte_progress(total: int | None, *, desc: str, shown: bool = True) -> Iterator[Callable[[int], object]]:
    """A bar over ``total`` bytes saying ``desc`` when ``shown``, for work that reads a file in pieces: the block
    gives the function to call with each piece's bytes."""
    if not shown:
        yield lambda done: None
        return
    from tqdm.auto import tqdm

    with tqdm(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, delay=1.0, leave=False) as bar:
        yield bar.update
