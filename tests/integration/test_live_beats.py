"""Idle streams cost heartbeats, batched (#58): one clock visits every stream of a
gateway (gateway.live.beats), pings the quiet ones and refreshes their presence marks
in one pipeline a slice, so idle streams hold no timer each and write no ZADD each."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from gateway.accounts.tokens import Caller
from gateway.live.beats import SLICES
from gateway.live.frames import PING
from gateway.live.hub import LiveHub
from services.core.eventstore import EventStore
from services.core.presence import Presence
from services.core.runtime import GameRuntime
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import bot_moves

HEARTBEAT_S = 0.4
GAMES_IDLE, SEATS = 30, 3
TURN_BASED = {"speed": "turn_based"}


@pytest.fixture
async def presence(store: EventStore) -> Presence:
    return Presence(store.redis, store.settings.key_prefix, HEARTBEAT_S, gone_after_s=60)


@pytest.fixture
async def hub(store: EventStore, redis_url: str, presence: Presence) -> AsyncIterator[LiveHub]:
    live = LiveHub(store, GAMES, Redis.from_url(redis_url), presence=presence)
    live.beats.heartbeat_s = HEARTBEAT_S
    live.start()
    for _ in range(100):  # listening once its connection is subscribed
        if live.channels.listening:
            break
        await asyncio.sleep(0.02)
    yield live
    await live.close()


async def zadds(redis: Redis) -> int:
    """ZADDs Redis ran, by clients and inside scripts."""
    stats: dict[str, Any] = await redis.info("commandstats")
    return int(stats.get("cmdstat_zadd", {}).get("calls", 0))


def live_timers() -> int:
    """Timers the event loop holds (asyncio's own list: what 50,000 streams each waiting
    with a timeout used to fill)."""
    loop: Any = asyncio.get_running_loop()
    return sum(1 for handle in loop._scheduled if not handle.cancelled())


async def until(check: Callable[[], bool]) -> None:
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("streams never opened")


async def collect(frames: AsyncGenerator[bytes, None], got: Counter[str]) -> None:
    async for f in frames:
        got["ping" if f == PING else "frame"] += 1


async def test_idle_streams_get_a_ping_a_heartbeat_and_their_marks_in_batches(
    store: EventStore, hub: LiveHub, presence: Presence
) -> None:
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    games = []
    for i in range(GAMES_IDLE):
        seats = [SeatSpec("human")] * SEATS
        games.append((await engine.create(seats, TURN_BASED, seed=f"idle{i}")).game_id)
    counts = [Counter[str]() for _ in range(GAMES_IDLE * SEATS)]
    tasks = []
    for g, game_id in enumerate(games):
        for seat in range(SEATS):
            frames = hub.frames(game_id, game.name, Caller(seat), 0)
            tasks.append(asyncio.create_task(collect(frames, counts[g * SEATS + seat])))
    await until(lambda: len(hub.beats) == len(tasks))
    await asyncio.sleep(HEARTBEAT_S)  # every stream opened and visited once
    before, pings = await zadds(store.redis), sum(c["ping"] for c in counts)
    beats = 8
    await asyncio.sleep(beats * HEARTBEAT_S)  # longer than a mark stays fresh unrefreshed
    added = await zadds(store.redis) - before
    each = [c["ping"] for c in counts]
    assert min(each) >= 1 and sum(each) - pings >= len(tasks) * (beats - 1)
    assert sum(each) - pings <= len(tasks) * (beats + 1)  # one a heartbeat, not more
    # A ZADD per slice (its streams' marks, whatever their games), not two a stream (90
    # streams' marks were 180 ZADDs a heartbeat) nor one a game (30).
    assert added <= (SLICES + 2) * (beats + 1)
    assert live_timers() < 10  # one clock, not a timer per stream
    for game_id in games[:3]:
        shown = await presence.of(game_id)
        assert {s: p["state"] for s, p in shown.items()} == dict.fromkeys(range(SEATS), "connected")
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    assert len(hub.beats) == 0  # every ended stream left the clock


async def test_a_busy_stream_gets_its_frames_and_no_pings(store: EventStore, hub: LiveHub) -> None:
    game = GAMES["giraffe-raffe"]
    engine = GameRuntime(game, store)
    created = await engine.create([SeatSpec("human")] * 3, {}, seed="busy", practice=True)
    got: Counter[str] = Counter()
    task = asyncio.create_task(collect(hub.frames(created.game_id, game.name, Caller(0), 0), got))
    await until(lambda: len(hub.beats) == 1)
    for seat, version, command in bot_moves(game, 3, "busy", game.bot("random"))[:16]:
        await engine.execute(
            created.game_id, seat, command, command_id=uuid.uuid4().hex, expected_version=version
        )
        await asyncio.sleep(HEARTBEAT_S / 4)
    assert got["frame"] >= 10 and got["ping"] == 0
    await asyncio.sleep(2.5 * HEARTBEAT_S)  # quiet now: pings again
    assert got["ping"] >= 1
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
