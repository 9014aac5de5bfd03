"""glibc's malloc told to keep freed memory for reuse while numpy makes and drops arrays of millions of entries.

A freed block that malloc hands back to the system (unmapped, or trimmed off the heap) costs a page fault per
4 KiB the next time an array of that size is made: system time that, in a short process or a worker scoring
chunk after chunk, can add half to the work. glibc keeps blocks by itself (its thresholds adapt to the sizes
freed) unless a ``MALLOC_*`` variable of the environment fixes them, as Dask's nanny does for its workers
(``MALLOC_TRIM_THRESHOLD_=65536``, so that freed memory goes back at once). glibc reads them once, from the
environment the process started with (:func:`_malloc_environment`): a variable set later tunes nothing, so the
tools read that one too (a local Dask cluster's nannies set ``MALLOC_TRIM_THRESHOLD_`` in the caller's own
``os.environ`` for the workers they spawn, and a process pool forked afterwards inherits it). Four tools:

- :func:`keep_freed_memory` for a whole process (the command line), in one arena for all its threads, unless the
  environment tunes malloc, with :func:`release_freed` between its large phases (reading, ranking, joining);
- :func:`freed_memory_kept` around a piece of work (a chunk of a distributed campaign) in a process whose
  environment sets ``MALLOC_TRIM_THRESHOLD_``: the environment's settings are put back after it and the heap
  trimmed, so that between chunks the process holds what its setting allows;
- :func:`small_pages` around a piece of work (a block or, as a decorator, a call) that makes arrays of millions of
  entries once (an R&S scoring): numpy's huge-page advice off while it runs, so that first touches do not stall
  on the kernel's compaction;
- :func:`collector_paused` around a distributed campaign's chunk on a worker: Python's cyclic garbage collector
  paused while it is unpickled and scored, so that the objects it makes by the hundred thousand do not set off
  collection after collection over them.

Without glibc (another system, another C library) the first two do nothing; the third needs only numpy (another
numpy keeps its default), the fourth nothing.

    >>> with freed_memory_kept():
    ...     total = sum(range(10))
    >>> total
    45
"""

from __future__ import annotations

import gc
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["KEPT_BLOCK", "KEPT_TOP", "GLIBC_MMAP_THRESHOLD", "RELEASED_ENTRIES", "keep_freed_memory",
           "release_freed", "freed_memory_kept", "small_pages", "collector_paused"]

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8  # mallopt's parameters (glibc's malloc.h)
KEPT_BLOCK = 32 << 20  # blocks up to this size come from the heap: the largest M_MMAP_THRESHOLD glibc takes on 64 bit
KEPT_TOP = 1 << 30  # freed memory at the top of the heap kept up to this size (M_TRIM_THRESHOLD)
GLIBC_MMAP_THRESHOLD = 128 * 1024  # glibc's M_MMAP_THRESHOLD where the environment fixes the thresholds

_lock = threading.Lock()
_active = 0  # pieces of work running under freed_memory_kept in this process (threads of one worker)
_putting_back: threading.Timer | None = None  # the put-back due once the last of them ended
_kept = False  # keep_freed_memory was called: this whole process keeps freed memory
_small = 0  # pieces of work running under small_pages in this process (threads)
_advised = True  # numpy's huge-page advice before the first of them
_paused = 0  # pieces of work running under collector_paused in this process (threads)
_collecting = True  # whether the collector ran before the first of them
RELEASED_ENTRIES = 1 << 20  # a phase over this many entries gives its freed pages back after it (release_freed)


def _glibc() -> tuple[Callable, Callable] | None:
    """glibc's ``mallopt`` and ``malloc_trim``, or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        library = ctypes.CDLL(None)
        return library.mallopt, library.malloc_trim
    except (OSError, AttributeError):  # no C library with both in this process (musl has no malloc_trim)
        return None


def _malloc_environment() -> dict[str, str]:
    """The ``MALLOC_*`` variables of the environment this process started with, which glibc read (Linux's
    ``/proc/self/environ``: the block ``exec`` was given, which a forked child shares; elsewhere ``os.environ``).
    Measured: ``bench_campaign.py``'s process pool, forked after a local Dask cluster had set
    ``MALLOC_TRIM_THRESHOLD_`` in the caller, kept no freed memory: its arrays campaign 0.63 → 0.69-0.71 s."""
    try:
        with open("/proc/self/environ", "rb") as started:
            entries = [entry.decode(errors="replace").partition("=") for entry in started.read().split(b"\0")]
    except OSError:
        return {name: value for name, value in os.environ.items() if name.startswith("MALLOC_")}
    return {name: value for name, _, value in entries if name.startswith("MALLOC_")}


def keep_freed_memory() -> None:
    """For the rest of this process, freed blocks of up to 32 MiB are kept for reuse (M_MMAP_THRESHOLD 32 MiB,
    M_TRIM_THRESHOLD 1 GiB), in one arena that every thread shares (M_ARENA_MAX 1), unless a ``MALLOC_*`` variable
    of the environment tunes malloc. Measured on the trec_eval drop-in (2,000 queries × 1,000 documents, ``-m
    all_trec``, 6 interleaved runs): 195k → 114k page faults, wall 1.45 s → 1.33 s. One arena: the pieces of a
    file read on two threads (:mod:`workbench.data.trec.arrow`) leave no holes in an arena of their own that the
    main thread's ranking cannot reuse (peak 260 → 231 MB, same drop-in); the threads allocate a few large blocks,
    so they seldom wait for the arena's lock."""
    glibc = _glibc()
    if glibc is None or _malloc_environment():
        return
    global _kept
    mallopt, _ = glibc
    mallopt(M_MMAP_THRESHOLD, KEPT_BLOCK)
    mallopt(M_TRIM_THRESHOLD, KEPT_TOP)
    mallopt(M_ARENA_MAX, 1)
    _kept = True


def release_freed(entries: int) -> None:
    """In a process that keeps freed memory (:func:`keep_freed_memory`), after a phase of work over ``entries``
    entries (at least :data:`RELEASED_ENTRIES`), the pages of the blocks it freed go back to the system
    (``malloc_trim``): kept blocks are reused within a phase, but between phases the heap's free holes (blocks of
    one size freed where the next phase asks for another) would add up to the process's peak. Measured on the
    trec_eval drop-in (2,000 queries × 1,000 documents, ``-m all_trec``), trimmed after reading, ranking and
    joining: peak 450 → 347 MB, 90k → 110k page faults. Elsewhere it does nothing."""
    glibc = _glibc() if _kept and entries >= RELEASED_ENTRIES else None
    if glibc is not None:
        glibc[1](0)


@contextmanager
def freed_memory_kept(linger: float = 0.0) -> Iterator[None]:
    """While the block runs, freed blocks are kept as :func:`keep_freed_memory` keeps them, in a process whose
    environment sets ``MALLOC_TRIM_THRESHOLD_`` (a Dask worker); then the environment's thresholds are put back
    (``MALLOC_MMAP_THRESHOLD_``, else glibc's 128 KiB) and the heap trimmed (``malloc_trim``), ``linger`` seconds
    after the block unless another block starts meanwhile (a worker's next chunk then finds the memory the last one
    freed). Blocks running at once on threads of one process share the setting: the last to end puts it back.
    Measured on a Dask worker (R≺ and S∼ of 250 rankings of 1,000 documents): 0.28 s → 0.16 s, as in a process of
    its own; the trim after it, 3 ms; two workers' chunks of ``benchmarks/bench_campaign.py``'s Organization
    campaign, put back after each chunk, 0.10 CPU-s of system time (50,000 page faults), with a linger of a second
    0.02 (and 1.44 rather than 1.48 CPU-s of user time). Elsewhere it changes nothing."""
    global _active, _putting_back
    glibc = _glibc()
    trim = _malloc_environment().get("MALLOC_TRIM_THRESHOLD_", "")
    if glibc is None or not trim.isdigit():
        yield
        return
    mallopt = glibc[0]
    with _lock:
        if _putting_back is not None:  # the last block's memory is still kept: this block takes it over
            _putting_back.cancel()
            _putting_back = None
        elif _active == 0:
            mallopt(M_MMAP_THRESHOLD, KEPT_BLOCK)
            mallopt(M_TRIM_THRESHOLD, KEPT_TOP)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            due: threading.Timer | None = None
            if _active == 0:
                due = _putting_back = threading.Timer(linger, _put_back)
                due.args, due.daemon = (glibc, int(trim), due), True
        if due is not None:
            if linger > 0:
                due.start()
            else:
                _put_back(glibc, int(trim), due)


def _put_back(glibc: tuple[Callable, Callable], trim: int, due: threading.Timer) -> None:
    """The environment's thresholds put back and the heap trimmed, if ``due`` is still the put-back due (no block
    started since)."""
    global _putting_back
    mallopt, malloc_trim = glibc
    with _lock:
        if _active or _putting_back is not due:
            return
        _putting_back = None
        mapped = _malloc_environment().get("MALLOC_MMAP_THRESHOLD_", "")
        mallopt(M_MMAP_THRESHOLD, int(mapped) if mapped.isdigit() else GLIBC_MMAP_THRESHOLD)
        mallopt(M_TRIM_THRESHOLD, trim)
        malloc_trim(0)


@contextmanager
def small_pages() -> Iterator[None]:
    """While the block runs, numpy does not advise the kernel to back its large arrays with huge pages
    (``madvise(MADV_HUGEPAGE)``, numpy's default on Linux for arrays of 4 MiB and more); numpy's advice is put back
    after it. Where the kernel compacts memory synchronously for advised regions (``defrag`` ``madvise``, a common
    default), the first touch of each 2 MiB waits for the compaction: system time that grows with the memory's
    fragmentation. Measured on a shared 2-core machine: R&S of issue 22's hardest shape (10⁶ documents on 10 levels,
    a quarter twice, both sides; first runs in fresh processes) 1.3–3.8 s → 0.1–0.4 s of system time, the user time
    unchanged (1.6–2.0 s); the command line (every command runs in it) on 2,000 queries × 1,000 documents, 7–8
    interleaved runs, ``eval -m AP nDCG P@10 RR`` median 1.66 s → 1.40 s wall, ``trec_eval -m all_trec`` 1.35 s →
    1.15 s. Blocks running at once, nested or on threads, share the setting: the last to end puts it back.
    ``NUMPY_MADVISE_HUGEPAGE`` in the environment (the user's choice) leaves the advice alone, as does a numpy
    without the switch (it is private)."""
    global _small, _advised
    try:  # private, in numpy 2: absent, numpy keeps its default
        from numpy._core import multiarray

        advise = getattr(multiarray, "_set_madvise_hugepage", None)
    except ImportError:  # numpy 1
        advise = None
    if advise is None or "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        yield
        return
    with _lock:
        _small += 1
        if _small == 1:
            _advised = advise(False)
    try:
        yield
    finally:
        with _lock:
            _small -= 1
            if _small == 0:
                advise(_advised)


@contextmanager
def collector_paused() -> Iterator[None]:
    """While the block runs, Python's cyclic garbage collector is paused; it is put back as it was when the last block
    running at once (nested, or on threads) ends. A worker's chunk of Organizations is hundreds of thousands of
    frozensets made at once; each 700 new objects set off a collection, and every few of those one over all of
    them. What the block makes is freed by reference counting as usual; only cycles wait for the collector's next
    run. Measured on ``bench_campaign.py``'s 100 × 250 Organizations: a worker's chunks took 1.43× the serial CPU
    unpaused, 0.95× paused. (Around the serial scoring it changed nothing: a campaign's full collection only moved.)

        >>> with collector_paused():
        ...     gc.isenabled()
        False
    """
    global _paused, _collecting
    with _lock:
        _paused += 1
        if _paused == 1:
            _collecting = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _collecting:
                gc.enable()
