"""How many threads share the work of one read or one scoring, and the map that shares it: parts of whole topics
(or of whole ids), each computed by numpy, which lets go of the interpreter in its loops, so that two parts run on
two cores at once and every value is the one a single pass computes.

The threads are the cores this process may run on (``os.sched_getaffinity``), at most :data:`MOST_THREADS`;
``WORKBENCH_THREADS=1`` keeps all the work on one thread (for the tests, and for users who run many processes at
once). A part computed on one of :func:`in_threads`' threads is not shared again: there :func:`threads` is 1 (the
cores are taken by the parts themselves; a block of a run scored on a thread does its own matching on that thread),
unless the parts are few and unequal (``nested=True``: files read at once, whose large one shares its own pieces).

    >>> in_threads(sum, [[1, 2], [3]], count=2)
    [3, 3]
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from workbench.validation import Anything, Flag, Function, Interval, check, validate

__all__ = ["MOST_THREADS", "THREADS_VARIABLE", "threads", "in_threads"]

MOST_THREADS = 2  # more parts than this on numpy's short loops spend the gain on handing the interpreter over
THREADS_VARIABLE = "WORKBENCH_THREADS"

Part = TypeVar("Part")
Result = TypeVar("Result")


_part = threading.local()  # ``inside`` set on in_threads' threads while they compute a part


def threads() -> int:
    """The threads a read or a scoring may use: the process's cores, at most :data:`MOST_THREADS`, at most
    ``$WORKBENCH_THREADS`` (a positive integer; anything else is refused, naming the variable); 1 on a thread
    computing a part of :func:`in_threads` (no threads started for a part's parts, more than the cores)."""
    if getattr(_part, "inside", False):
        return 1
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
          count=Interval(1, 1 << 10, integer=True, optional=True), nested=Flag())
def in_threads(function: Callable[[Part], Result], parts: Iterable[Part], count: int | None = None,
               nested: bool = False) -> list[Result]:
    """``[function(part) for part in parts]``, the parts shared among ``count`` threads (None: :func:`threads`); on
    one thread, or for a single part, in this thread. An error of a part is raised here, as the loop raises it.
    ``nested``: a part may share its own work among threads again (:func:`threads` is not 1 on these threads), for
    parts of very unequal sizes: a run file read beside its qrels parses its pieces on both cores, 0.42 → 0.23 s for
    79 MB, where the qrels' thread would otherwise idle after 0.05 s.

    The parts are taken from ``parts`` one at a time, as a thread is free for one, and let go once computed: parts
    made on demand (:func:`~workbench.data.engines.row_parts`) are held a few at a time, not all at once, and so is
    what each keeps while it is computed (a gain table's shared values). Measured on the ``trec_eval`` drop-in
    (2,000 queries × 1,000 documents, ``-m all_trec``, 8 parts): memory held while it scores 80 → 56 MB
    (tracemalloc). The parts are computed on the pool's threads, not on this one: a file read partly on the main
    thread left its pages resident after :func:`~workbench.heap.release_freed` (the drop-in's peak 233 → 249 MB).
    """
    count = threads() if count is None else count
    pending = iter(parts)
    first = list(itertools.islice(pending, 2))
    if count < 2 or len(first) < 2:
        return [function(part) for part in itertools.chain(first, pending)]
    numbered = enumerate(itertools.chain(first, pending))
    del first
    results: dict[int, Result] = {}
    errors: dict[int, BaseException] = {}
    lock = threading.Lock()

    def work() -> None:
        _part.inside = not nested
        while True:
            with lock:  # one thread at a time takes the next part; none after an error
                taken = None if errors else next(numbered, None)
            if taken is None:
                return
            index, part = taken
            del taken
            try:
                results[index] = function(part)
            except BaseException as error:  # raised by the caller, the first part's first
                with lock:
                    errors[index] = error
                return
            del part

    with ThreadPoolExecutor(count) as pool:
        for done in [pool.submit(work) for _ in range(count)]:
            done.result()
    if errors:
        raise errors[min(errors)]
    return [results[index] for index in range(len(results))]
