"""The benchmarks read how much of the machine the host took during a run (bench.common):
on a shared virtual machine that, not a change, explained runs twice as slow."""

from __future__ import annotations

import time

from bench.common import busy_ticks, cpu_ticks, steal_share


def test_the_hosts_share_is_its_ticks_over_all_ticks() -> None:
    assert steal_share((10, 100), (30, 200)) == 0.2
    assert steal_share((5, 100), (5, 100)) == 0.0  # no time passed: nothing taken


def test_the_machines_ticks_only_grow() -> None:
    before = cpu_ticks()
    sum(i * i for i in range(200_000))  # some CPU time, so the total moves on
    after = cpu_ticks()
    assert after[1] >= before[1] and after[0] >= before[0]
    assert 0.0 <= steal_share(before, after) <= 1.0


def test_the_machines_busy_ticks_count_this_process_working() -> None:
    """bench.realtime's machine CPU per move: the ticks anything ran, which grow at least
    by what this process alone spends (a tick is 10 ms: 50 ms of CPU moves it)."""
    before = busy_ticks()
    started = time.process_time()
    while time.process_time() - started < 0.05:
        sum(i * i for i in range(10_000))
    after = busy_ticks()
    assert after > before
    assert after <= cpu_ticks()[1]  # busy is part of all the machine's ticks
