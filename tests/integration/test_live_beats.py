"""The gateway's one clock for its streams (gateway.live.beats, docs/decisions/0058): a
quiet stream gets a ping, a busy one none; an expired token's stream ends; every seat
stream's presence mark is refreshed in one ZADD per thousand streams, against a real
Redis, and a mark the sweeper took away (the gateway was frozen) is opened again."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import Connection, ConnectionPool
from redis.exceptions import RedisError

from gateway.live.beats import QUIET, Beats
from gateway.live.frames import PING
from gateway.live.watched import Viewer
from services.core.local_redis import free_port
from services.core.presence import REFRESH_BATCH, Presence

HEARTBEAT_S = 10.0


def queued(viewer: Viewer) -> list[tuple[bytes, bool] | None]:
    out = []
    while not viewer.queue.empty():
        out.append(viewer.queue.get_nowait())
    return out


async def nothing_to_reopen(viewer: Viewer) -> None:
    raise AssertionError(f"nothing was closed, yet {viewer.mark} was reopened")


async def test_a_quiet_stream_gets_a_ping_a_busy_one_none_and_an_expired_one_ends() -> None:
    quiet, busy, expired = Viewer(0), Viewer(1), Viewer(2, expires_at=time.time() - 1)
    quiet.pushed_at = time.monotonic() - (QUIET + 0.05) * HEARTBEAT_S
    beats = Beats(HEARTBEAT_S, lambda: [quiet, busy, expired], None, nothing_to_reopen)
    await beats.tick()
    assert queued(quiet) == [(PING, False)]
    assert queued(busy) == []
    assert queued(expired) == [None], "a stream outlived its token"
    await beats.tick()  # the ping was a frame: it is not quiet any more
    assert queued(quiet) == []


async def zadds(redis: Redis) -> int:
    stats: dict[str, Any] = await redis.info("commandstats")
    return int(stats.get("cmdstat_zadd", {}).get("calls", 0))


async def test_marks_are_refreshed_in_batches_and_a_swept_one_is_opened_again(
    redis: Redis,
) -> None:
    presence = Presence(redis, f"beats-{uuid.uuid4().hex[:8]}", 0.1, gone_after_s=60)
    viewers = [Viewer(s % 4, game_id=f"g{s // 4}", mark=f"m{s}") for s in range(2500)]
    for v in viewers[:8]:  # the others are opened straight into the marks list: quicker
        await presence.opened(v.game_id, v.seat, v.mark)
    await redis.zadd(presence.keys.marks, {f"{v.game_id}|{v.seat}|{v.mark}": 1 for v in viewers})
    reopened: list[Viewer] = []

    async def reopen(viewer: Viewer) -> None:
        reopened.append(viewer)
        await presence.opened(viewer.game_id, viewer.seat, viewer.mark)

    beats = Beats(0.1, lambda: viewers, presence, reopen)
    before = await zadds(redis)
    await beats.tick()  # marks are refreshed every other tick
    await beats.tick()
    batches = -(-len(viewers) // REFRESH_BATCH)
    assert await zadds(redis) - before == batches, "one ZADD per batch, not per stream"
    assert reopened == []
    # Longer than a mark stays fresh: the per-game list is not refreshed, yet the seat is
    # connected while its stream is open (the sweeper alone judges staleness).
    await asyncio.sleep(presence.stale_ms / 1000 + 0.2)
    assert (await presence.of("g0"))[1]["state"] == "connected"
    # The sweeper closed g0's seat 1 (its gateway seemed stopped): the next refresh opens it.
    swept = viewers[1]
    await presence.closed(swept.game_id, swept.seat, swept.mark, at_ms=int(time.time() * 1000))
    assert (await presence.of("g0"))[1]["state"] == "away"
    await beats.tick()
    await beats.tick()
    assert reopened == [swept]
    assert (await presence.of("g0"))[1]["state"] == "connected"


async def test_with_redis_out_of_reach_the_clock_still_pings_and_keeps_ticking() -> None:
    """Marks cannot be refreshed (Redis down or frozen): the tick logs it, the streams
    still get their pings, and the next tick tries again."""
    unreachable = Redis(port=free_port(), socket_connect_timeout=0.2)
    presence = Presence(unreachable, "beats-down", HEARTBEAT_S, gone_after_s=60)
    viewer = Viewer(0, game_id="g", mark="m")
    beats = Beats(HEARTBEAT_S, lambda: [viewer], presence, nothing_to_reopen)
    for _ in range(2):  # the second tick refreshes marks: it fails, and is logged
        viewer.pushed_at = time.monotonic() - HEARTBEAT_S
        await beats.tick()
        assert queued(viewer) == [(PING, False)]
    await unreachable.aclose()


async def test_a_tables_streams_opening_together_write_their_presence_in_one_round_trip(
    redis: Redis,
) -> None:
    """The four seats of a table open their streams at once (a game starts): their
    presence goes to Redis in one batch of script calls, not four calls through
    redis-py's whole path each (bench.stream_opens), and reads back as it did."""
    presence = Presence(redis, f"opens-{uuid.uuid4().hex[:8]}", HEARTBEAT_S, gone_after_s=60)
    assert presence.batcher is not None
    await asyncio.gather(*(presence.opened("table", seat, f"s{seat}") for seat in range(4)))
    assert presence.batcher.batches == 1
    assert {s: p["state"] for s, p in (await presence.of("table")).items()} == dict.fromkeys(
        range(4), "connected"
    )
    await asyncio.gather(*(presence.closed("table", seat, f"s{seat}") for seat in range(4)))
    assert presence.batcher.batches == 2
    assert {s: p["state"] for s, p in (await presence.of("table")).items()} == dict.fromkeys(
        range(4), "away"
    )


async def test_a_finished_games_streams_closing_together_forget_their_seats_in_one_round_trip(
    redis: Redis,
) -> None:
    """At game over a table's streams end together: their seats are forgotten (no mark,
    no away seat, nothing for the sweeper) in one batch of script calls, with nothing
    published, where each had been a redis-py pipeline of four commands."""
    presence = Presence(redis, f"ends-{uuid.uuid4().hex[:8]}", HEARTBEAT_S, gone_after_s=60)
    assert presence.batcher is not None
    await asyncio.gather(*(presence.opened("table", seat, f"s{seat}") for seat in range(4)))
    await presence.closed("table", 3, "s3")  # one seat was away when the game ended
    batches = presence.batcher.batches
    async with redis.pubsub() as heard:
        await heard.subscribe(presence.keys.channel)
        await heard.get_message(timeout=1)  # the subscription's confirmation
        await asyncio.gather(*(presence.forget("table", seat, f"s{seat}") for seat in range(4)))
        assert await heard.get_message(timeout=0.3) is None, "a forget was published"
    assert presence.batcher.batches == batches + 1
    assert await presence.of("table") == {}
    keys = presence.keys
    assert await redis.zcard(keys.marks) == 0
    assert await redis.zcard(keys.absent) == 0


class CountedConnection(Connection):
    """redis-py's own connection, counting its attempts to connect."""

    attempts = 0

    async def connect(self) -> None:
        CountedConnection.attempts += 1
        await super().connect()


async def test_with_redis_out_of_reach_a_streams_presence_fails_as_one_call_would() -> None:
    """Redis out of reach: the batched presence write fails with redis-py's error (the
    hub logs it and keeps the stream), after as many tries to connect as one redis-py
    call makes, not three times as many (a second batch, then the script's own path):
    the stream's first frame waits on it."""
    pool = ConnectionPool(
        port=free_port(), socket_connect_timeout=0.2, connection_class=CountedConnection
    )
    unreachable = Redis(connection_pool=pool)
    presence = Presence(unreachable, "opens-down", HEARTBEAT_S, gone_after_s=60)
    try:
        with pytest.raises(RedisError):
            await unreachable.ping()  # one call through redis-py's own path
        one_call, CountedConnection.attempts = CountedConnection.attempts, 0
        with pytest.raises(RedisError):
            await presence.opened("table", 0, "s0")
        assert one_call > 0 and CountedConnection.attempts == one_call
    finally:
        await unreachable.aclose()
