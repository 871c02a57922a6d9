"""#29 item 1: the event store on a replicated Redis under Sentinel (a primary, two
replicas, three sentinels, real processes). An append is acknowledged only once a
replica holds it (WAIT): with the replicas frozen it is refused (503 not_replicated), a
retry with the same command id once they run again is acknowledged once; the client
follows a failover (kill -9 of the primary) without being made again, and everything
acknowledged is on the promoted replica."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator

import pytest
from redis import Redis as SyncRedis

from services.core.errors import NotReplicated
from services.core.eventstore import EventStore, open_store
from services.core.local_sentinel import SentinelGroup
from services.core.settings import StoreSettings
from tests.conftest import unique_prefix
from tests.eventstore_helpers import append, cmd, ev
from tests.failover_helpers import append_through


@pytest.fixture(scope="module")
def group(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SentinelGroup]:
    started = SentinelGroup(tmp_path_factory.mktemp("sentinel"), appendfsync="everysec").start()
    try:
        yield started
    finally:
        started.stop()


async def store_on(group: SentinelGroup, replicas: int) -> EventStore:
    settings = StoreSettings(
        key_prefix=unique_prefix(),
        redis_sentinels=group.sentinel_addresses,
        redis_wait_replicas=replicas,
        redis_wait_ms=1000,  # a loaded machine (CI) may take a few hundred ms
        redis_timeout_s=2,
    )
    return await open_store(settings)


@pytest.fixture
async def waiting(group: SentinelGroup) -> AsyncIterator[EventStore]:
    store = await store_on(group, replicas=1)
    yield store
    await store.redis.aclose()


def replica_pids(group: SentinelGroup) -> list[int]:
    primary = group.primary_port()
    return [n.process.pid for n in group.nodes if n.port != primary and n.process]


def freeze(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)


def thaw(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGCONT)


async def test_an_acknowledged_append_is_on_a_replica(
    group: SentinelGroup, waiting: EventStore
) -> None:
    done = await append(waiting, "g1", 0, ev("Created"), ev("Moved"))
    assert done.version == 2
    # Already there when the append answered: no waiting for replication here.
    held = [
        SyncRedis(port=n.port).xlen(waiting.keys.game("g1"))
        for n in group.nodes
        if n.port != group.primary_port()
    ]
    assert max(held) == 2, held


async def test_without_a_replica_it_is_not_acknowledged_and_a_retry_decides_it_once(
    group: SentinelGroup, waiting: EventStore
) -> None:
    command = cmd()
    frozen = replica_pids(group)
    freeze(frozen)
    try:
        with pytest.raises(NotReplicated) as refused:
            await append(waiting, "g2", 0, ev("Created"), command_id=command)
        assert refused.value.code == "not_replicated"
        # Sent again while still unconfirmed: still not acknowledged, still once.
        with pytest.raises(NotReplicated):
            await append(waiting, "g2", 0, ev("Created"), command_id=command)
    finally:
        thaw(frozen)
    again = await append(waiting, "g2", 0, ev("Created"), command_id=command)
    assert again.duplicate and again.version == 1
    assert [e.version for e in await waiting.read_game("g2")] == [1]


async def test_without_wait_the_same_append_is_acknowledged_unreplicated(
    group: SentinelGroup,
) -> None:
    """What the setting changes: with 0 the primary alone acknowledges, so these writes
    would be lost if it died now (the trade-off docs/operations.md states)."""
    eager = await store_on(group, replicas=0)
    frozen = replica_pids(group)
    freeze(frozen)
    try:
        done = await append(eager, "g3", 0, ev("Created"))
        assert done.version == 1 and not done.duplicate
    finally:
        thaw(frozen)
        await eager.redis.aclose()


async def test_the_store_follows_a_failover_and_keeps_every_acknowledged_append(
    group: SentinelGroup, waiting: EventStore
) -> None:
    old = group.node_on(group.primary_port())
    # SIGKILL: its disk stays behind, nobody restarts it during the appends
    seen = await append_through(waiting, "g4", 40, old.kill)
    assert group.primary_port() != old.port  # a replica was promoted
    print(f"unavailable for {seen.unavailable_s:.2f} s ({seen.refused} refusals)")
    old.start()  # back on its disk: the sentinels make it a replica of the new primary
    group.wait_synced(30)
    assert SyncRedis(port=old.port).info("replication")["role"] == "slave"


def test_sentinel_settings_parse() -> None:
    from services.core.eventstore.connect import sentinels

    settings = StoreSettings(redis_sentinels="10.0.0.1:26379, redis-sentinel-1:26380")
    assert sentinels(settings) == [("10.0.0.1", 26379), ("redis-sentinel-1", 26380)]


async def test_seat_tokens_handed_out_are_on_a_replica_too(
    group: SentinelGroup, waiting: EventStore
) -> None:
    """A new game's seat tokens are written beside its events: acknowledged (the game's
    201) only once a replica holds them, or a failover would leave a game nobody can
    play."""
    from gateway.accounts.tokens import SeatTokens

    tokens = SeatTokens(waiting, 3600)
    await tokens.bind("token-a", "g5", 0)
    frozen = replica_pids(group)
    freeze(frozen)
    try:
        with pytest.raises(NotReplicated):
            await tokens.bind("token-b", "g5", 1)
    finally:
        thaw(frozen)
