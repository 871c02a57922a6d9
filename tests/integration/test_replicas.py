"""Unary calls routed per game over engine replicas (services.core.replicas), against
real Giraffometer engines on loopback: a game's calls keep to one replica, the same from
every client; games spread over all; a replica that goes away hands its games on."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from services.core.engine_client import EngineClient
from services.core.replicas import Replicas, weight
from services.core.server import RunningEngine, start_engine
from services.core.settings import ServiceSettings, StoreSettings
from services.giraffometer.game import GAME
from services.kernel.game import SeatSpec
from tests.engine_fixtures import cid

VOTE = {"type": "vote", "lowest": 5, "highest": 3}


@pytest.fixture
def store(redis_url: str, store_settings: StoreSettings) -> StoreSettings:
    return store_settings.model_copy(update={"redis_url": redis_url})


@asynccontextmanager
async def counted_replicas(
    store: StoreSettings, n: int
) -> AsyncIterator[tuple[list[RunningEngine], list[list[str]]]]:
    """``n`` replicas of one engine, and per replica the game ids of the views and
    commands it served."""
    settings = ServiceSettings(host="127.0.0.1", port=0, store=store)
    replicas = [await start_engine(GAME, settings) for _ in range(n)]
    served: list[list[str]] = [[] for _ in replicas]
    for i, replica in enumerate(replicas):
        for method in ("execute", "view", "view_and_commands"):
            run = getattr(replica.runtime, method)

            async def counted(
                game_id: str, *args: Any, i: int = i, run: Any = run, **kw: Any
            ) -> Any:
                served[i].append(game_id)
                return await run(game_id, *args, **kw)

            setattr(replica.runtime, method, counted)
    try:
        yield replicas, served
    finally:
        for replica in replicas:
            await replica.stop(grace=1)


async def play_a_round(client: EngineClient, games: list[str], seat: int) -> None:
    """Each game's seat looks, then votes, several games' calls in flight at once."""

    async def move(game_id: str) -> None:
        version, _, _, legal = await client.view_and_commands(game_id, seat)
        assert legal["to_act"]
        await client.execute(game_id, seat, VOTE, cid(), version)

    # Four games at a time: a replica keeps its games while it has at most 4 calls more in
    # flight than the least busy, so no burst of these makes a game move.
    order = random.Random(seat).sample(games, len(games))
    for i in range(0, len(order), 4):
        await asyncio.gather(*(move(g) for g in order[i : i + 4]))


async def test_a_games_calls_keep_to_one_replica_from_every_client(store: StoreSettings) -> None:
    """Round robin sent a bot's GetView and its Execute to different replicas, the second
    finding its cache behind. Two clients (a bot runner, a gateway) agree on each game's
    replica, and the games spread over all three."""
    async with counted_replicas(store, 3) as (replicas, served):
        target = "ipv4:" + ",".join(f"127.0.0.1:{r.port}" for r in replicas)
        clients = [EngineClient.connect(target), EngineClient.connect(target)]
        try:
            games = [
                (await clients[0].create([SeatSpec("human")] * 3, {})).game_id for _ in range(12)
            ]
            for seat in range(3):
                await play_a_round(clients[seat % 2], games, seat)
        finally:
            await asyncio.gather(*(c.close() for c in clients))
    owners = {g: {i for i, ids in enumerate(served) if g in ids} for g in games}
    assert all(len(o) == 1 for o in owners.values()), owners  # no game on two replicas
    assert all(served)  # and each replica served some
    expected = {
        g: max(range(3), key=lambda i: weight(g, f"127.0.0.1:{replicas[i].port}")) for g in games
    }
    assert {g: o.pop() for g, o in owners.items()} == expected  # the rendezvous choice


async def test_a_replica_that_goes_away_hands_its_games_on(store: StoreSettings) -> None:
    async with counted_replicas(store, 2) as (replicas, served):
        target = "ipv4:" + ",".join(f"127.0.0.1:{r.port}" for r in replicas)
        client = EngineClient.connect(target)
        try:
            games = [(await client.create([SeatSpec("human")] * 3, {})).game_id for _ in range(8)]
            await play_a_round(client, games, 0)
            await replicas[0].stop(grace=0)
            before = len(served[0])
            await play_a_round(client, games, 1)  # every game still plays, on the survivor
            await play_a_round(client, games, 2)
            assert len(served[0]) == before
        finally:
            await client.close()
    assert all(served[1].count(g) >= 4 for g in games)  # 2 looks and 2 votes each, at least


async def test_a_dns_target_is_resolved_into_its_replicas(store: StoreSettings) -> None:
    """dns:/// names (a Kubernetes headless Service) are resolved by the client, which then
    routes per game; until the first answer the channel's round robin serves."""
    async with counted_replicas(store, 1) as (replicas, served):
        client = EngineClient.connect(f"dns:///localhost:{replicas[0].port}")
        try:
            assert isinstance(client.replicas, Replicas)
            game = (await client.create([SeatSpec("human")] * 3, {})).game_id
            version = (await client.view_and_commands(game, 0))[0]  # starts the resolution
            for _ in range(100):  # which runs in the background
                if client.replicas.replicas:
                    break
                await asyncio.sleep(0.02)
            assert f"127.0.0.1:{replicas[0].port}" in client.replicas.replicas
            await client.execute(game, 0, VOTE, cid(), version)  # through the replica found
            assert (await client.view(game, -1))[0] > version
        finally:
            await client.close()
    assert served[0]
