"""The notifier's worker on a real Redis and a real engine (#52 item 5): each turn of a
turn-based game is enqueued once per channel, whatever batches the log is read in and
however many notifiers read it; realtime games enqueue nothing."""

from __future__ import annotations

from typing import Any, cast

import orjson

from services.core.eventstore import open_store
from services.core.settings import StoreSettings
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.rng import SeededRng
from services.notifier.channels import set_webhook
from services.notifier.worker import NotifyWorker
from tests.engine_fixtures import cid, running_engine

PA, PB = "pl" + "a" * 24, "pl" + "b" * 24


async def drain(worker: NotifyWorker) -> None:
    for _ in range(20):
        if not await worker.step():
            return


async def outbox(worker: NotifyWorker) -> list[dict[str, Any]]:
    out = []
    for p in range(worker.store.settings.partitions):
        for _, fields in await worker.store.redis.xrange(worker.outbox.stream(p)):
            out.append(orjson.loads(fields[b"d"]))
    return out


async def test_each_turn_is_enqueued_once_for_the_seats_player_by_any_notifier(
    redis_url: str, store_settings: StoreSettings
) -> None:
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 4})
    game = GAMES["giraffe-raffe"]
    async with running_engine(game, settings) as (engine, _):
        store = await open_store(settings)
        prefix = settings.key_prefix
        for player in (PA, PB):
            await set_webhook(store.redis, prefix, player, "https://example.org/h", "raffe")
        seats = [SeatSpec("human", player=PA), SeatSpec("human", player=PB)]
        slow = await engine.create(seats, {"speed": "turn_based", "dealer": 0}, seed="slow")
        live = await engine.create(seats, {"dealer": 0, "bank_timer": 60}, seed="live")
        rng = SeededRng("notify", "moves")
        for game_id in (slow.game_id, live.game_id):
            for _ in range(3):
                look = await engine.first_to_act(game_id, [0, 1], -1)
                chosen = game.bot("random")(look.view, look.commands, rng)
                await engine.execute(game_id, look.seat, chosen, cid())
        first, second = NotifyWorker(store, dict(GAMES), 500), NotifyWorker(store, dict(GAMES), 500)
        await drain(first)
        told = await outbox(first)
        assert {d["game_id"] for d in told} == {slow.game_id}  # the realtime game: nothing
        assert [(d["seat"], d["player"]) for d in told] == [
            (0, PA),
            (1, PB),
            (0, PA),
            (1, PB),
        ]
        assert len({(d["seat"], d["version"]) for d in told}) == len(told)
        # Another notifier (or this one after a restart) reads the log from the start.
        await drain(second)
        assert await outbox(first) == told
        await store.redis.aclose()


async def test_reminders_come_at_half_and_a_tenth_of_the_bank_only_while_the_turn_lasts(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """#52 item 5: a turn schedules two reminders; each is told when due if the turn is
    still the seat's, and not once the seat has moved; a seat whose table is in view is
    told nothing."""
    settings = store_settings.model_copy(update={"redis_url": redis_url, "partitions": 2})
    game = GAMES["giraffe-raffe"]
    async with running_engine(game, settings) as (engine, _):
        store = await open_store(settings)
        await set_webhook(store.redis, settings.key_prefix, PA, "https://example.org/h", "raffe")
        seats = [SeatSpec("human", player=PA), SeatSpec("human", player=PB)]
        made = await engine.create(seats, {"speed": "turn_based", "dealer": 0}, seed="remind")
        worker = NotifyWorker(store, dict(GAMES), 500)
        await drain(worker)
        partition = store.partition_of(made.game_id)
        key = worker.reminders_key(partition)
        found = await store.redis.zrange(key, 0, -1, withscores=True)
        scheduled = cast(list[tuple[bytes, float]], found)
        kinds = {orjson.loads(m)["kind"]: score for m, score in scheduled}
        (turn,) = await outbox(worker)
        span = turn["deadline_ms"] - kinds["half"]
        assert kinds["half"] < kinds["tenth"] < turn["deadline_ms"]
        assert abs(span - 12 * 3_600_000) < 1000  # half of a day's bank is left then
        # The half reminder falls due (moved to now): told, while the turn lasts.
        half = next(m for m, _ in scheduled if orjson.loads(m)["kind"] == "half")
        await store.redis.zadd(key, {half: 0})
        worker._reminded = 0.0
        await worker.tick()
        told = await outbox(worker)
        assert [d["kind"] for d in told] == ["turn", "half"]
        # The seat moves: the tenth reminder, due now too, says nothing.
        look = await engine.first_to_act(made.game_id, [0], -1)
        chosen = game.bot("random")(look.view, look.commands, SeededRng("remind", "move"))
        await engine.execute(made.game_id, 0, chosen, cid())
        tenth = next(m for m, _ in scheduled if orjson.loads(m)["kind"] == "tenth")
        await store.redis.zadd(key, {tenth: 0})
        worker._reminded = 0.0
        await worker.tick()
        assert [d["kind"] for d in await outbox(worker)] == ["turn", "half"]
        assert await store.redis.zcard(key) == 0 or all(
            orjson.loads(m)["seat"] == 1 for m in await store.redis.zrange(key, 0, -1)
        )
        await store.redis.aclose()
