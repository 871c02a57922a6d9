"""Bot runners over real engines (gRPC) and Redis: two runners share the work, a crashed
runner's games are finished by the other, and deadlines are enforced (AL-3)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from contextlib import AsyncExitStack
from dataclasses import replace

from services.bots.runner import BotRunner
from services.core.engine_client import EngineClient
from services.core.eventstore import open_store
from services.core.game import SeatSpec
from services.core.settings import StoreSettings
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.giraffometer.game import GAME as GIRAFFOMETER
from tests.engine_fixtures import running_engine


async def wait_over(engine: EngineClient, game_id: str) -> dict:
    async with asyncio.timeout(60):
        while True:
            _, view, status = await engine.view(game_id, -1)
            if status["over"]:
                return view
            await asyncio.sleep(0.05)


async def test_two_runners_finish_bot_games_once_even_when_one_dies(
    redis_url: str, store_settings: StoreSettings
) -> None:
    settings = replace(store_settings, redis_url=redis_url, partitions=4)
    async with AsyncExitStack() as stack:
        gr, _ = await stack.enter_async_context(running_engine(GIRAFFE_RAFFE, settings))
        gm, _ = await stack.enter_async_context(running_engine(GIRAFFOMETER, settings))
        engines = {"giraffe-raffe": gr, "giraffometer": gm}
        store = await open_store(settings)
        runners = [BotRunner(store, engines, ttl_ms=400) for _ in range(2)]
        tasks = [asyncio.create_task(r.run()) for r in runners]
        games = []
        for n in range(6):
            engine = gr if n % 2 == 0 else gm
            options = {} if n % 2 == 0 else {"target": 3}
            created = await engine.create([SeatSpec("bot")] * 3, options, seed=f"runner-{n}")
            games.append((engine, created.game_id))
        await asyncio.sleep(0.3)
        runners[0].stopping.set()  # one runner goes away mid-work
        tasks[0].cancel()
        for engine, game_id in games:
            await wait_over(engine, game_id)
            _, events = await engine.events(game_id, -1)
            assert [e["version"] for e in events] == list(range(1, len(events) + 1))
            commands = Counter(e["command_id"] for e in events if e["actor"] >= 0)
            moves = {e["command_id"] for e in events if e["command_id"].startswith("bot:")}
            assert moves and len(moves) == len({c for c in commands if c.startswith("bot:")})
        runners[1].stopping.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await store.redis.aclose()


async def test_the_runner_closes_a_round_when_its_timer_runs_out(
    redis_url: str, store_settings: StoreSettings
) -> None:
    settings = replace(store_settings, redis_url=redis_url, partitions=4)
    async with running_engine(GIRAFFOMETER, settings) as (gm, _):
        store = await open_store(settings)
        runner = BotRunner(store, {"giraffometer": gm}, ttl_ms=400)
        task = asyncio.create_task(runner.run())
        created = await gm.create(
            [SeatSpec("human"), SeatSpec("bot")], {"round_timer": 5}, seed="timer"
        )
        deadline = time.monotonic() + 15
        revealed = None
        while time.monotonic() < deadline and revealed is None:
            _, events = await gm.events(created.game_id, -1)
            revealed = next((e for e in events if e["type"] == "RoundRevealed"), None)
            await asyncio.sleep(0.2)
        runner.stopping.set()
        await task
        await store.redis.aclose()
    assert revealed is not None and revealed["data"]["closed_by_timer"]
    assert revealed["actor"] == -1 and revealed["data"]["changes"][0] == 0
