"""How many threads share the work of one read or one scoring, and the map that shares it: parts of whole topics
(or of whole ids), each computed by numpy, which lets go of the interpreter in its loops, so that two parts run on
two cores at once and every value is the one a single pass computes.

The threads are the cores this process may run on (``os.sched_getaffinity``), at most :data:`MOST_THREADS`;
``WORKBENCH_THREADS=1`` keeps all the work on one thread (for the tests, and for users who run many processes at
once).

    >>> in_threads(sum, [[1, 2], [3]], count=2)
    [3, 3]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from workbench.validation import Anything, Function, Interval, check, validate

__all__ = ["MOST_THREADS", "THREADS_VARIABLE", "threads", "in_threads"]

MOST_THREADS = 2  # more parts than this on numpy's short loops spend the gain on handing the interpreter over
THREADS_VARIABLE = "WORKBENCH_THREADS"

Part = TypeVar("Part")
Result = TypeVar("Result")


def threads() -> int:
    """The threads a read or a scoring may use: the process's cores, at most :data:`MOST_THREADS`, at most
    ``$WORKBENCH_THREADS`` (a positive integer; anything else is refused, naming the variable)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return max(min(cores, MOST_THREADS), 1)
    wanted = check(int(text) if text.isdigit() else text, Interval(1, 1 << 10, integer=True), THREADS_VARIABLE,
                   "the environment")
    return max(min(cores, MOST_THREADS, wanted), 1)


@validate(function=Function(), parts=Anything("each part is the function's argument"),
          count=Interval(1, 1 << 10, integer=True, optional=True))
def in_threads(function: Callable[[Part], Result], parts: Iterable[Part], count: int | None = None
               ) -> list[Result]:
    """``[function(part) for part in parts]``, the parts shared among ``count`` threads (None: :func:`threads`); on
    one thread, or for a single part, in this thread. An error of a part is raised here, as the loop raises it."""
    count = threads() if count is None else count
    parts = list(parts)
    if count < 2 or len(parts) < 2:
        return [function(part) for part in parts]
    with ThreadPoolExecutor(min(count, len(parts))) as pool:
        return list(pool.map(function, parts))
