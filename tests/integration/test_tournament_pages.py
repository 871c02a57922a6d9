"""Readers of a tournament's page waiting for the projection (a round just paired) share
one poller of its version per tournament, over a real Redis: each polling on its own,
a thousand readers at a round's start were tens of thousands of reads a second."""

from __future__ import annotations

import asyncio

from gateway.tournaments.pages import CATCH_UP_S, TournamentPages
from services.core.eventstore import EventStore
from services.projection.readmodels import ReadModels

READERS = 32
WAIT_S = 0.3


async def hgets(store: EventStore) -> int:
    """HGET calls the Redis server has served (how the projection's version is read)."""
    stats = await store.redis.info("commandstats")
    return int(stats.get("cmdstat_hget", {}).get("calls", 0))


async def test_readers_waiting_for_the_projection_share_one_poller(store: EventStore) -> None:
    models = ReadModels(store)
    pages = TournamentPages(models)
    gen = await models.generation()
    await store.redis.hset(models.keys.game(gen, "t1"), "v", 3)
    before = await hgets(store)
    found = await asyncio.gather(*(pages.page(gen, "t1", 5, WAIT_S) for _ in range(READERS)))
    polled = await hgets(store) - before
    assert found == [None] * READERS  # never caught up: the engine's page is theirs
    # One read each on arrival, then one poller for all: at most one read per
    # CATCH_UP_S of the wait (each reader polling on its own: ~15 reads each).
    assert polled <= READERS + WAIT_S / CATCH_UP_S + 2, polled
    await asyncio.sleep(3 * CATCH_UP_S)
    assert not pages._watches, "the poller ends when nobody waits"


async def test_waiting_readers_see_the_projection_catch_up(store: EventStore) -> None:
    models = ReadModels(store)
    pages = TournamentPages(models)
    gen = await models.generation()
    key = models.keys.game(gen, "t2")
    await store.redis.hset(key, "v", 3)
    waiting = [asyncio.create_task(pages._caught_up(gen, "t2", want, 5.0)) for want in (4, 5)]
    await asyncio.sleep(0.1)
    await store.redis.hset(key, "v", 4)
    first = await asyncio.wait_for(waiting[0], 1.0)  # well before its 5 s
    assert first >= 4 and not waiting[1].done()
    await store.redis.hset(key, "v", 5)
    assert await asyncio.wait_for(waiting[1], 1.0) == 5
