"""The benchmarks read how much of the machine the host took during a run (bench.common):
on a shared virtual machine that, not a change, explained runs twice as slow."""

from __future__ import annotations

from bench.common import cpu_ticks, steal_share


def test_the_hosts_share_is_its_ticks_over_all_ticks() -> None:
    assert steal_share((10, 100), (30, 200)) == 0.2
    assert steal_share((5, 100), (5, 100)) == 0.0  # no time passed: nothing taken


def test_the_machines_ticks_only_grow() -> None:
    before = cpu_ticks()
    sum(i * i for i in range(200_000))  # some CPU time, so the total moves on
    after = cpu_ticks()
    assert after[1] >= before[1] and after[0] >= before[0]
    assert 0.0 <= steal_share(before, after) <= 1.0
