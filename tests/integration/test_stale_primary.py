"""A primary frozen until the sentinels replace it, then thawed, gets nothing more from
the store's clients (services.core.eventstore.sentinel_pool): while it still thinks it
leads, one of its replicas may not yet have been re-pointed and would confirm what it
takes, an acknowledged append the promoted replica never sees. Real processes: a
primary, two replicas, three sentinels."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from redis import Redis as SyncRedis

from services.core.errors import NotReplicated, store_failure
from services.core.eventstore import EventStore, open_store
from services.core.eventstore.sentinel_pool import BlockingSentinelPool
from services.core.local_sentinel import SentinelGroup
from services.core.settings import StoreSettings
from tests.conftest import unique_prefix
from tests.eventstore_helpers import append, ev


def scripts_run(port: int) -> int:
    """EVALSHA calls a node has taken, refused ones included (the append is a script)."""
    stats = SyncRedis(port=port, socket_timeout=2).info("commandstats")
    seen = stats.get("cmdstat_evalsha", {})
    return int(seen.get("calls", 0)) + int(seen.get("rejected_calls", 0))


async def promoted(group: SentinelGroup, old: int) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            now = group.primary_port()
            if now != old and SyncRedis(port=now).info("replication")["role"] == "master":
                return now
        except Exception:
            pass
        await asyncio.sleep(0.05)  # the pool's listeners run meanwhile
    raise AssertionError("no replica was promoted")


async def append_until(store: EventStore, game: str, count: int) -> list[int]:
    """``count`` acknowledged appends (their versions), each refusal a retryable one."""
    acknowledged: list[int] = []
    version: int | None = None
    deadline = time.monotonic() + 60
    while len(acknowledged) < count and time.monotonic() < deadline:
        try:
            if version is None:
                version = await store.version(game)
            done = await append(store, game, version, ev("Moved", n=version))
        except Exception as error:
            assert isinstance(error, NotReplicated) or store_failure(error), repr(error)
            version = None  # read it again: a refused append may still have landed
            await asyncio.sleep(0.05)
            continue
        acknowledged.append(version := done.version)
    return acknowledged


async def test_a_thawed_primary_the_sentinels_replaced_gets_no_write(tmp_path: Path) -> None:
    group = SentinelGroup(tmp_path, appendfsync="everysec").start()
    settings = StoreSettings(
        key_prefix=unique_prefix(),
        redis_sentinels=group.sentinel_addresses,
        redis_wait_replicas=1,
        redis_wait_ms=1000,
        redis_timeout_s=1,
    )
    store = await open_store(settings)
    pool = store.redis.connection_pool
    assert isinstance(pool, BlockingSentinelPool)
    # Every fence the pool made, as it made it: reading ``pool.fenced`` after the
    # promotion raced the pool moving on to the new primary (which clears it; #51 item 7).
    fences: list[tuple[str, int]] = []
    fence = pool.fence

    async def noted(address: tuple[str, int]) -> None:
        fences.append(address)
        await fence(address)

    pool.fence = noted
    try:
        await append_until(store, "g", 5)  # the pool holds connections to the primary now
        old = group.primary_port()
        before = scripts_run(old)
        pid = group.node_on(old).process.pid
        os.kill(pid, signal.SIGSTOP)
        try:
            new = await promoted(group, old)
        finally:
            os.kill(pid, signal.SIGCONT)
        assert ("127.0.0.1", old) in fences  # held down before anyone was promoted
        after = await append_until(store, "g", 10)  # at once, before old is demoted
        assert len(after) == 10
        # Nothing went to the old primary since it froze; all of it is on the new one.
        assert scripts_run(old) == before
        stream = store.keys.game("g")
        assert SyncRedis(port=new).xlen(stream) >= after[-1]
    finally:
        await store.redis.aclose()
        group.stop()
