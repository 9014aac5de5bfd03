"""glibc's malloc thresholds: kept while a chunk is scored where the environment fixes them (a Dask worker), put
back after it; left alone elsewhere."""

import os
import subprocess
import sys
import threading

import pytest

from tests.conftest import ROOT
from workbench import heap


@pytest.fixture
def started(monkeypatch):
    """The ``MALLOC_*`` variables the process started with, as the tests set them (none at first)."""
    variables: dict[str, str] = {}
    monkeypatch.setattr(heap, "_malloc_environment", lambda: dict(variables))
    return variables


@pytest.fixture
def calls(monkeypatch, started):
    """What mallopt and malloc_trim are asked, through a stand-in for glibc."""
    asked: list[tuple] = []
    monkeypatch.setattr(heap, "_glibc", lambda: (lambda parameter, value: asked.append((parameter, value)) or 1,
                                                 lambda pad: asked.append(("trim", pad)) or 1))
    return asked


KEPT = [(heap.M_MMAP_THRESHOLD, 32 << 20), (heap.M_TRIM_THRESHOLD, 1 << 30)]


def test_a_process_without_a_fixed_threshold_is_left_alone(calls):
    with heap.freed_memory_kept():
        assert calls == []
    assert calls == []


def test_a_dask_workers_thresholds_are_put_back_and_the_heap_trimmed(calls, started):
    started["MALLOC_TRIM_THRESHOLD_"] = "65536"  # what Dask's nanny gives its workers
    with heap.freed_memory_kept():
        assert calls == KEPT
    assert calls[2:] == [(heap.M_MMAP_THRESHOLD, 128 * 1024), (heap.M_TRIM_THRESHOLD, 65536), ("trim", 0)]
    calls.clear()
    started["MALLOC_MMAP_THRESHOLD_"] = "262144"
    with pytest.raises(KeyError), heap.freed_memory_kept():  # put back after an error too
        {}["missing"]
    assert calls[2:] == [(heap.M_MMAP_THRESHOLD, 262144), (heap.M_TRIM_THRESHOLD, 65536), ("trim", 0)]



def test_a_lingering_put_back_is_taken_over_by_the_next_block(calls, started):
    """Issue 39 item 6: with ``linger``, the memory stays kept after the block; a block starting meanwhile (a
    worker's next chunk) takes it over without setting it again, and the last puts it back ``linger`` after it."""
    started["MALLOC_TRIM_THRESHOLD_"] = "65536"
    with heap.freed_memory_kept(linger=60):
        pass
    assert calls == KEPT
    with heap.freed_memory_kept(linger=0.2):
        assert calls == KEPT
    due = heap._putting_back
    assert calls == KEPT and due is not None
    due.join(5)
    assert calls[2:] == [(heap.M_MMAP_THRESHOLD, 128 * 1024), (heap.M_TRIM_THRESHOLD, 65536), ("trim", 0)]
    assert heap._putting_back is None

def inside_another_on_a_thread(block, look):
    """``block()`` entered on a thread and held open while this thread enters and leaves it too: what ``look()``
    answers then (the thread's block still open); the thread's block ends before this returns."""
    entered, release = threading.Event(), threading.Event()

    def hold():
        with block():
            entered.set()
            release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    entered.wait(5)
    with block():
        pass
    seen = look()
    release.set()
    thread.join(5)
    return seen


def test_chunks_on_threads_of_one_worker_share_the_setting(calls, started):
    """Set when the first starts, put back when the last ends."""
    started["MALLOC_TRIM_THRESHOLD_"] = "65536"
    assert inside_another_on_a_thread(heap.freed_memory_kept, lambda: list(calls)) == KEPT  # nothing put back
    assert calls[2:] == [(heap.M_MMAP_THRESHOLD, 128 * 1024), (heap.M_TRIM_THRESHOLD, 65536), ("trim", 0)]


def test_a_whole_process_keeps_freed_memory_unless_the_environment_tunes_malloc(calls, started):
    heap.keep_freed_memory()
    assert calls == [*KEPT, (heap.M_ARENA_MAX, 1)]  # and one arena that every thread shares
    calls.clear()
    started["MALLOC_ARENA_MAX"] = "2"
    heap.keep_freed_memory()
    assert calls == []


def test_phases_give_freed_pages_back_only_where_the_process_keeps_them(calls, monkeypatch):
    """release_freed trims the heap after a large phase in a process that keeps freed memory (the command line),
    and does nothing in a library user's process or after a small phase."""
    monkeypatch.setattr(heap, "_kept", False)
    heap.release_freed(10 * heap.RELEASED_ENTRIES)
    assert calls == []
    heap.keep_freed_memory()
    calls.clear()
    heap.release_freed(heap.RELEASED_ENTRIES - 1)
    assert calls == []
    heap.release_freed(heap.RELEASED_ENTRIES)
    assert calls == [("trim", 0)]


@pytest.mark.skipif(heap._glibc() is None, reason="glibc's mallopt and malloc_trim")
def test_glibc_takes_the_settings():
    """The real calls, in a process of their own (as a Dask worker's): glibc accepts every value."""
    script = """if True:
        from workbench import heap
        mallopt, _ = heap._glibc()
        assert mallopt(heap.M_MMAP_THRESHOLD, heap.KEPT_BLOCK) == 1  # within what glibc takes on 64 bit
        assert mallopt(heap.M_TRIM_THRESHOLD, heap.KEPT_TOP) == 1
        assert mallopt(heap.M_MMAP_THRESHOLD, heap.GLIBC_MMAP_THRESHOLD) == 1
        with heap.freed_memory_kept():
            data = bytearray(8 << 20)
        print(len(data))
    """
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536"})
    assert done.returncode == 0 and done.stdout.strip() == str(8 << 20), done.stderr


STARTED_WITH = """if True:
    import os
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context
    from workbench import heap

    def kept():
        heap.keep_freed_memory()
        return heap._kept, heap._malloc_environment()

    if __name__ == "__main__":
        started = heap._malloc_environment()
        os.environ["MALLOC_TRIM_THRESHOLD_"] = "65536"  # as a local Dask cluster's nannies leave it in the caller
        with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
            print(started, heap._malloc_environment(), *pool.submit(kept).result())
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/environ"), reason="Linux's record of the starting environment")
@pytest.mark.parametrize(("given", "expected"), [({}, "{} {} True {}"), (
    {"MALLOC_ARENA_MAX": "2"}, "{'MALLOC_ARENA_MAX': '2'} {'MALLOC_ARENA_MAX': '2'} False {'MALLOC_ARENA_MAX': '2'}")])
def test_what_tunes_malloc_is_the_environment_the_process_started_with(tmp_path, given, expected):
    """A MALLOC_* variable set in os.environ after the start (a local Dask cluster's nannies set one in the caller)
    tunes nothing, in the process or in a worker it forks later: that worker keeps freed memory (the pool of
    bench_campaign.py lost it after the Dask row); one given at the start is the user's, left alone."""
    script = tmp_path / "started.py"
    script.write_text(STARTED_WITH)
    env = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")} | given
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=60)
    assert done.stdout.strip() == expected, done.stderr

@pytest.fixture
def advice(monkeypatch):
    """What numpy's huge-page switch is asked, through a stand-in that reports the advice as on before."""
    multiarray = pytest.importorskip("numpy._core.multiarray")
    asked: list[bool] = []
    monkeypatch.setattr(multiarray, "_set_madvise_hugepage", lambda enabled: asked.append(enabled) or True)
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE", raising=False)
    return asked


def test_numpys_huge_page_advice_is_off_while_the_block_runs_and_back_after():
    multiarray = pytest.importorskip("numpy._core.multiarray")
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        pytest.skip("the environment sets numpy's advice")
    before = multiarray._set_madvise_hugepage(True)
    try:
        with heap.small_pages():
            assert multiarray._set_madvise_hugepage(False) is False  # off inside
        assert multiarray._set_madvise_hugepage(True) is True  # the previous advice back
    finally:
        multiarray._set_madvise_hugepage(before)


def test_blocks_on_threads_share_the_advice_and_the_users_choice_is_left_alone(advice, monkeypatch):
    assert inside_another_on_a_thread(heap.small_pages, lambda: list(advice)) == [False]  # nothing put back
    assert advice == [False, True]
    advice.clear()
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")
    with heap.small_pages():
        pass
    assert advice == []


def test_the_rs_engines_score_without_the_advice_and_put_it_back(advice):
    from workbench.metrics.campaign_rs import campaign_scores
    from workbench.metrics.reliability import reliability_sensitivity
    from workbench.model import Organization

    gold, output = Organization.from_graded({"d1": 1, "d2": 0}), Organization.from_ranking(["d2", "d1"])
    reliability_sensitivity(gold, output, n=10, wn=0.8)
    assert advice == [False, True]
    advice.clear()
    campaign_scores([(gold, output)], [(10, 0.8)])  # Encoded.of, then the scoring
    assert advice == [False, True, False, True]
