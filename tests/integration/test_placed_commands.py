"""Commands whose version the engine chooses (ANY_VERSION: an organiser's registrations,
the tournament runner's results, bots) sent together into one game (#28, found by
bench.tournament_crowd: sixteen registrations at once ran out of retries and answered
an internal error). In one process they take turns and never conflict; across replicas
they retry, and when writers elsewhere keep winning the answer is a typed 503, never an
internal error; nothing is written twice."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from services.core.errors import Contended
from services.core.eventstore import EventStore
from services.core.runtime import GameRuntime
from services.core.settings import StoreSettings
from services.kernel.game import SeatSpec
from services.tournament.game import GAME


async def tournament(runtime: GameRuntime) -> str:
    created = await runtime.create([SeatSpec("human", "organiser")], {"table_size": 3})
    return created.game_id


def register(runtime: GameRuntime, game_id: str, n: int) -> asyncio.Future[list[object]]:
    command = {"type": "register", "kind": "bot", "name": f"bot {n}"}
    return runtime.execute(game_id, 0, command, command_id=f"r{n}")  # type: ignore[return-value]


async def test_placed_commands_at_once_in_one_process_all_land(store: EventStore) -> None:
    runtime = GameRuntime(GAME, store)
    game_id = await tournament(runtime)
    done = await asyncio.gather(*(register(runtime, game_id, n) for n in range(48)))
    versions = sorted(o.result.version for o in done)  # type: ignore[attr-defined]
    assert versions == list(range(2, 50))  # one event each, none lost, none twice
    assert len(runtime._turns) == 0  # no lock kept once nobody waits


async def test_placed_commands_from_two_replicas_land_or_say_contended(
    store: EventStore, redis_url: str, store_settings: StoreSettings
) -> None:
    other_store = EventStore(Redis.from_url(redis_url), store_settings)  # a second replica
    one, two = GameRuntime(GAME, store), GameRuntime(GAME, other_store)
    game_id = await tournament(one)
    sent = [register(one if n % 2 else two, game_id, n) for n in range(40)]
    answers = await asyncio.gather(*sent, return_exceptions=True)
    landed = [a for a in answers if not isinstance(a, BaseException)]
    failed = [a for a in answers if isinstance(a, BaseException)]
    assert all(isinstance(f, Contended) for f in failed), failed
    assert len(landed) >= 20  # each replica's own queue never conflicts with itself
    _, view, _ = await one.view(game_id, 0)
    assert len(view["players"]) == len(landed)
    again = [register(one, game_id, n) for n in range(40)]  # the same ids, sent again
    for answer in await asyncio.gather(*again):
        assert answer.result.version <= 41  # type: ignore[attr-defined]
    _, view, _ = await one.view(game_id, 0)
    assert sorted(p["name"] for p in view["players"]) == sorted(f"bot {n}" for n in range(40))
    await other_store.redis.aclose()
