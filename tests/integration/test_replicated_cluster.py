"""#29 item 1 on the other topology: Redis Cluster with a replica per primary (three
primaries, three replicas, real processes). An append waits for the replica of its
game's primary (WAIT on that primary's connection: redis-py would send WAIT to every
node on connections of their own, where it confirms nothing); a primary killed, its
replica takes over its slots and the client follows without being made again."""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator

import pytest
from redis import Redis as SyncRedis

from services.core.errors import NotReplicated
from services.core.eventstore import EventStore, open_store
from services.core.local_redis import RedisCluster as LocalCluster
from services.core.local_redis import RedisServer
from services.core.settings import StoreSettings
from tests.conftest import unique_prefix
from tests.eventstore_helpers import append, cmd, ev
from tests.failover_helpers import append_through

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    started = LocalCluster(replicas=1).start()
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
async def store(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    settings = StoreSettings(
        key_prefix=unique_prefix(),
        cluster=True,
        redis_url=cluster.url,
        redis_wait_replicas=1,
        redis_wait_ms=1000,  # a loaded machine (CI) may take a few hundred ms
        redis_timeout_s=2,
    )
    opened = await open_store(settings)
    yield opened
    await opened.redis.aclose()


def owner(cluster: LocalCluster, store: EventStore, game: str) -> RedisServer:
    node = store.redis.get_node_from_key(store.keys.game(game))
    assert node is not None
    return next(n for n in cluster.nodes if n.port == node.port)


def replica_of(cluster: LocalCluster, primary: RedisServer) -> RedisServer:
    for node in cluster.nodes:
        info = SyncRedis(port=node.port).info("replication")
        if info.get("role") == "slave" and info.get("master_port") == primary.port:
            return node
    raise AssertionError(f"no replica of {primary.port}")


async def test_appends_on_every_primary_are_on_its_replica(
    cluster: LocalCluster, store: EventStore
) -> None:
    games = [f"c{n}" for n in range(30)]
    for game in games:
        assert (await append(store, game, 0, ev("Created"), ev("Moved"))).version == 2
    for game in games[:6]:
        copy = SyncRedis(port=replica_of(cluster, owner(cluster, store, game)).port)
        copy.execute_command("READONLY")  # a replica's reads, not a redirect
        assert copy.xlen(store.keys.game(game)) == 2


async def test_a_frozen_replica_keeps_its_primary_from_acknowledging(
    cluster: LocalCluster, store: EventStore
) -> None:
    copy = replica_of(cluster, owner(cluster, store, "held"))
    command = cmd()
    assert copy.process is not None
    os.kill(copy.process.pid, signal.SIGSTOP)
    try:
        with pytest.raises(NotReplicated):
            await append(store, "held", 0, ev("Created"), command_id=command)
    finally:
        os.kill(copy.process.pid, signal.SIGCONT)
    again = await append(store, "held", 0, ev("Created"), command_id=command)
    assert again.duplicate and again.version == 1


async def test_a_killed_primary_is_replaced_and_nothing_acknowledged_is_lost(
    cluster: LocalCluster, store: EventStore
) -> None:
    primary = owner(cluster, store, "moving")

    def bring_back(since: float) -> None:
        # Back on its disk, as a StatefulSet brings it: the promoted replica had no
        # replica of its own, so until now its appends could not be confirmed.
        if primary.process is None and since > RESTART_S:
            primary.start()

    seen = await append_through(store, "moving", 30, primary.kill, bring_back)
    assert owner(cluster, store, "moving").port != primary.port
    print(f"cluster failover: appends refused for {seen.unavailable_s:.2f} s")


RESTART_S = 5.0
