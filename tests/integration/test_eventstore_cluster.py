"""Cluster specifics: one slot per game, games spread over every primary."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from services.core.eventstore import EventStore, open_store
from services.core.local_redis import RedisCluster as LocalCluster
from services.core.settings import StoreSettings
from tests.conftest import unique_prefix
from tests.eventstore_helpers import append, ev

pytestmark = pytest.mark.cluster


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster) -> AsyncIterator[EventStore]:
    store = await open_store(
        StoreSettings(key_prefix=unique_prefix(), cluster=True, redis_url=redis_cluster.url)
    )
    yield store
    await store.redis.aclose()


async def test_every_key_of_a_game_is_in_one_slot(cluster_store: EventStore) -> None:
    for n in range(50):
        game = f"slot-{n}"
        slots = {
            await cluster_store.redis.cluster_keyslot(key)
            for key in cluster_store.keys.append_keys(game)
        }
        assert len(slots) == 1


async def test_500_games_spread_over_all_primaries(cluster_store: EventStore) -> None:
    games = [f"spread-{n}" for n in range(500)]
    sem = asyncio.Semaphore(50)

    async def play(game: str) -> None:
        async with sem:
            await append(cluster_store, game, 0, ev("Created", g=game))
            await append(cluster_store, game, 1, ev("Moved", g=game), ev("Moved", g=game))

    await asyncio.gather(*(play(g) for g in games))
    owners: Counter[str] = Counter()
    for game in games:
        node = cluster_store.redis.get_node_from_key(cluster_store.keys.game(game))
        owners[node.name] += 1
        events = await cluster_store.read_game(game)
        assert [(e.version, e.type) for e in events] == [(1, "Created"), (2, "Moved"), (3, "Moved")]
        assert all(e.payload == f'{{"g": "{game}"}}'.encode() for e in events)
    assert len(owners) == 3, owners
