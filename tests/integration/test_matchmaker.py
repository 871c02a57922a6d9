"""The quick-play matchmaker over a real engine and Redis: with nobody waiting it asks
Redis nothing until a join wakes it, and the players who joined are seated at once."""

from __future__ import annotations

import asyncio
import time

from services.accounts.vacations import vacation_key
from services.core.codec import to_domain
from services.core.eventstore import open_store
from services.core.settings import RatingSettings, StoreSettings
from services.games import GAMES
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.quickplay.matchmaker import Matchmaker
from services.quickplay.queue import Queue
from services.ratings.follow import boards_of
from tests.engine_fixtures import running_engine

PLAYERS = ("pl" + "a" * 24, "pl" + "b" * 24)


def counted_steps(matchmaker: Matchmaker) -> list[int]:
    """A count of the matchmaker's steps, each still its own (the Redis counters of
    SMEMBERS are shared with every test running beside this one)."""
    count = [0]
    step = matchmaker.step

    async def counting() -> int:
        count[0] += 1
        return await step()

    matchmaker.step = counting
    return count


async def seated(matchmaker: Matchmaker) -> None:
    """Until both players' tickets say seated."""
    for _ in range(1000):
        tickets = [await matchmaker.queue.ticket(p) or {} for p in PLAYERS]
        if all(t.get("state") == "seated" for t in tickets):
            return
        await asyncio.sleep(0.05)


async def seated_ticket(queue: Queue, player: str, speed: str) -> None:
    """Until the player's ticket of that speed says seated (10 s at most)."""
    for _ in range(200):
        if ((await queue.ticket(player, speed)) or {}).get("state") == "seated":
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{player} not seated at a {speed} table")


async def test_an_idle_matchmaker_waits_for_a_join_and_seats_the_table_at_once(
    redis_url: str, store_settings: StoreSettings
) -> None:
    # Blocked reads may last up to half a Redis call's timeout: 30 s here, so a table
    # seated within seconds was woken by the join, not by the wait running out.
    settings = store_settings.model_copy(update={"redis_url": redis_url, "redis_timeout_s": 60})
    async with running_engine(GIRAFFE_RAFFE, settings) as (engine, _):
        store = await open_store(settings)
        boards = boards_of(store, RatingSettings())
        matchmaker = Matchmaker(store, {"giraffe-raffe": engine}, 600, boards, lease_ms=90_000)
        assert matchmaker.idle_s == 30
        steps = counted_steps(matchmaker)
        running = asyncio.create_task(matchmaker.run())
        try:
            await asyncio.sleep(0.5)  # its first step found nobody waiting
            looked = steps[0]
            assert looked >= 1
            await asyncio.sleep(1.0)
            assert steps[0] == looked  # no polling meanwhile (a step reads every queue)
            now = int(time.time() * 1000)
            for player in PLAYERS:
                assert await matchmaker.queue.join(player, "giraffe-raffe", 2, now, 0.0)
            async with asyncio.timeout(10):
                await seated(matchmaker)
            tickets = [await matchmaker.queue.ticket(p) for p in PLAYERS]
            assert tickets[0] and tickets[1] and tickets[0]["game_id"] == tickets[1]["game_id"]
            assert {t["seat"] for t in tickets if t} == {0, 1}
            assert matchmaker.left_waiting == 0
        finally:
            matchmaker.stopping.set()
            async with asyncio.timeout(5):  # stopping ends the wait for a join at once
                await running
            await store.redis.aclose()


async def test_a_failing_wait_for_a_join_is_waited_out_not_fatal(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A blocked read that fails (here the wake key holds the wrong type; a hung Redis
    times it out) is logged and tried again: the bot runner's process lives on it."""
    settings = store_settings.model_copy(update={"redis_url": redis_url})
    async with running_engine(GIRAFFE_RAFFE, settings) as (engine, _):
        store = await open_store(settings)
        boards = boards_of(store, RatingSettings())
        matchmaker = Matchmaker(store, {"giraffe-raffe": engine}, 600, boards)
        wake = matchmaker.queue.key("wake")
        await store.redis.set(wake, "not a list")
        running = asyncio.create_task(matchmaker.run())
        try:
            await asyncio.sleep(0.6)  # several failed waits
            assert not running.done()
            await store.redis.delete(wake)
            now = int(time.time() * 1000)
            for player in PLAYERS:
                assert await matchmaker.queue.join(player, "giraffe-raffe", 2, now, 0.0)
            async with asyncio.timeout(10):
                await seated(matchmaker)
        finally:
            matchmaker.stopping.set()
            async with asyncio.timeout(5):
                await running
            await store.redis.aclose()


async def test_a_turn_based_queue_waits_its_own_time_and_seats_a_turn_based_table(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """Quick play by speed: a player looks for a live table and a turn-based one at once
    (a ticket of each); the live one gets bots after its short wait, the turn-based one
    waits its own (far longer) time, and a second player's turn-based join fills it: a
    game with the speed option of a turn-based table."""
    settings = store_settings.model_copy(update={"redis_url": redis_url})
    async with running_engine(GAMES["giraffe-raffe"], settings) as (engine, _):  # at a table
        store = await open_store(settings)
        boards = boards_of(store, RatingSettings())
        engines = {"giraffe-raffe": engine}
        matchmaker = Matchmaker(store, engines, 0.3, boards, 1500, turn_based_bots_after_s=600)
        queue, (ada, bo) = matchmaker.queue, PLAYERS
        running = asyncio.create_task(matchmaker.run())
        try:
            now = int(time.time() * 1000)
            assert await queue.join(ada, "giraffe-raffe", 2, now, 0.0)
            assert await queue.join(ada, "giraffe-raffe", 2, now, 0.0, "turn_based", 600)
            assert not await queue.join(ada, "giraffe-raffe", 3, now, 0.0, "turn_based", 600)
            await seated_ticket(queue, ada, "realtime")
            await asyncio.sleep(1.0)  # steps went by: the turn-based ticket still waits
            waiting = await queue.ticket(ada, "turn_based")
            assert waiting and waiting["state"] == "waiting" and waiting["speed"] == "turn_based"
            assert await queue.position(ada, "giraffe-raffe", 2, "turn_based") == (1, 1)
            away = int(time.time() * 1000) + 86_400_000  # bo is on vacation: his new game waits
            await store.redis.hset(vacation_key(settings.key_prefix, bo), "until", away)
            assert await queue.join(bo, "giraffe-raffe", 2, now + 1, 0.0, "turn_based", 600)
            await seated_ticket(queue, bo, "turn_based")
            tickets = [await queue.ticket(p, "turn_based") or {} for p in PLAYERS]
            game_id = tickets[0]["game_id"]
            assert tickets[1]["game_id"] == game_id != (await queue.ticket(ada) or {})["game_id"]
            created = to_domain((await store.read_game_range(game_id, 0, 1))[0])
            assert created.data["options"]["speed"] == "turn_based"
            assert [s["kind"] for s in created.data["seats"]] == ["human", "human"]
            history = [to_domain(e) for e in await store.read_game(game_id)]
            bo_seat = tickets[1]["seat"]
            assert {"seat": bo_seat, "until_ms": away} in [
                e.data for e in history if e.type == "VacationSet"
            ]
            ttl = await store.redis.ttl(queue.ticket_key(bo, "turn_based"))
            assert ttl > 600  # outlives the longest wait: the player reads it after hours
        finally:
            matchmaker.stopping.set()
            async with asyncio.timeout(5):
                await running
            await store.redis.aclose()
