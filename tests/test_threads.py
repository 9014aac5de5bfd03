"""Work shared among threads (issue 42): how many (the cores, ``WORKBENCH_THREADS``) and the map that shares it; and
a large gain table scored in parts of whole topics (on two threads by the drop-in: tests/test_trec_eval.py) gives,
bit for bit, the values of one pass."""

from __future__ import annotations

import os
import threading
import warnings
import weakref

import numpy as np
import pytest
from hypothesis import given, settings

from tests.measure_instances import INSTANCES
from tests.strategies import trec_campaigns
from workbench.data import engines
from workbench.data.campaign import Campaign
from workbench.errors import ParameterError, WorkbenchWarning
from workbench.metrics.ranking.table import GainTable
from workbench.metrics.registry import parse
from workbench.threads import MOST_THREADS, THREADS_VARIABLE, in_threads, threads

ON_TABLES = [name for names in INSTANCES.values() for name in names
             if engines.engine_of(parse(name)).name == "gain table"]


def test_the_threads_are_the_cores_at_most_two_and_at_most_the_variable(monkeypatch):
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert threads() == max(min(len(os.sched_getaffinity(0)), MOST_THREADS), 1)
    monkeypatch.setenv(THREADS_VARIABLE, "1")
    assert threads() == 1
    monkeypatch.setenv(THREADS_VARIABLE, " 64 ")
    assert threads() == max(min(len(os.sched_getaffinity(0)), MOST_THREADS), 1)
    for wrong in ("0", "two", "-1", "1.5"):
        monkeypatch.setenv(THREADS_VARIABLE, wrong)
        with pytest.raises(ParameterError, match=f"{THREADS_VARIABLE} must be an integer in \\[1, 1024\\]"):
            threads()


def test_parts_come_back_in_order_and_a_parts_error_is_raised_as_the_loop_raises_it():
    assert in_threads(lambda part: part * 2, range(7), count=2) == [0, 2, 4, 6, 8, 10, 12]
    assert in_threads(len, [], count=2) == []

    def refuse(part):
        if part == 3:
            raise KeyError(part)
        return part

    with pytest.raises(KeyError, match="3"):
        in_threads(refuse, range(6), count=2)


def test_a_part_is_not_shared_again_its_parts_run_on_its_own_thread(monkeypatch):
    """On in_threads' threads threads() is 1, so a part's own in_threads (a block of evaluate_run matching its
    entries) computes its parts on the part's thread, none started for them; the caller's count is as before."""
    monkeypatch.setenv(THREADS_VARIABLE, "2")

    def part(_: int) -> tuple[int, set[int]]:
        return threads(), set(in_threads(lambda _: threading.get_ident(), range(3))) - {threading.get_ident()}

    assert in_threads(part, range(4), count=2) == [(1, set())] * 4
    assert threads() == min(len(os.sched_getaffinity(0)), 2)


def test_nested_parts_share_their_own_parts_again_as_a_run_read_beside_its_qrels(monkeypatch):
    """With nested=True a part's threads() is the caller's, so its own in_threads starts threads (the pieces of a
    large run file parsed on both cores beside a small qrels, lines_at_once); on a one-core machine, none."""
    monkeypatch.setenv(THREADS_VARIABLE, "2")
    cores = min(len(os.sched_getaffinity(0)), 2)

    def part(_: int) -> tuple[int, bool]:
        return threads(), bool(set(in_threads(lambda _: threading.get_ident(), range(4))) - {threading.get_ident()})

    assert in_threads(part, range(2), count=2, nested=True) == [(cores, cores > 1)] * 2
    assert in_threads(part, range(2), count=2) == [(1, False)] * 2


def test_parts_are_taken_one_at_a_time_and_let_go_once_computed():
    """Parts made on demand (a gain table's :func:`~workbench.data.engines.row_parts`) are held a few at a time,
    not all at once: what each keeps while it is computed (its shared values) goes with it."""
    alive: weakref.WeakSet = weakref.WeakSet()

    class Part:
        pass

    def made() -> Part:
        part = Part()
        alive.add(part)
        return part

    held = []

    def compute(part: Part) -> int:
        held.append(len(alive))
        return 1

    assert in_threads(compute, (made() for _ in range(12)), count=2) == [1] * 12
    assert max(held) <= 3  # the two being computed and one just taken (a list of them all: 12)


def test_a_large_table_is_cut_into_whole_topics_that_cover_it_in_order(monkeypatch):
    table = GainTable.from_gains(np.arange(35.0).reshape(7, 5), [[1.0]] * 7)
    assert row_sizes(table) == [7]  # below PARALLEL_CELLS: whole
    monkeypatch.setattr(engines, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(engines, "PART_CELLS", 10)
    assert row_sizes(table) == [2, 2, 3]  # 35 cells in parts of about 10, each of two rows or more
    assert row_sizes(table.rows(slice(0, 3))) == [3]  # too few rows for two parts of two
    parts = list(engines.row_parts(table))
    assert np.array_equal(np.concatenate([part.gains for part in parts]), table.gains)
    assert [topic for part in parts for topic in part.topics] == list(table.topics)


def row_sizes(table: GainTable) -> list[int]:
    return [part.gains.shape[0] for part in engines.row_parts(table)]


@settings(max_examples=30, deadline=None)
@given(data=trec_campaigns())
def test_a_campaign_scored_in_parts_equals_one_pass(data):
    """Every measure of the gain table, on parts of two topics or three, gives each topic the value one pass over
    the whole table gives (the same float, NaN where it is NaN). Parts of one topic would not: INSQ's reach is
    column-major, which numpy adds term by term on two rows and more, in pairs on one."""
    qrels, run = data
    campaign = Campaign.from_dicts(qrels, {"tag": run})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        whole = campaign.evaluate(ON_TABLES, extra_topics="ignore", progress=False)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(engines, "PARALLEL_CELLS", 0)
            patch.setattr(engines, "PART_CELLS", 1)
            parts = campaign.evaluate(ON_TABLES, extra_topics="ignore", progress=False)
    assert repr(parts.to_dict("list")) == repr(whole.to_dict("list"))
