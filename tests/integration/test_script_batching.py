"""Concurrent appends share one round trip (services/core/eventstore/batching.py), against
a real redis-server: the calls of one loop turn go out as one batch, each gets its own
reply in order, and a forgotten script, a killed connection, a failing call or a
cancelled caller changes nothing for the others."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis import Redis as SyncRedis
from redis.asyncio import Redis
from redis.exceptions import DataError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.core.eventstore import AppendResult, EventStore
from services.core.eventstore.batching import ScriptBatcher
from services.core.eventstore.store import APPEND_LUA
from services.core.settings import StoreSettings
from tests.eventstore_helpers import append, cmd, ev

ECHO = """
if ARGV[1] == 'boom' then return redis.error_reply('boom') end
redis.call('RPUSH', KEYS[1], ARGV[1])
return ARGV[1]
"""


def batcher(redis: Redis) -> ScriptBatcher:
    return ScriptBatcher(redis, redis.register_script(ECHO))


@pytest.fixture
def echo(redis: Redis, store_settings: StoreSettings) -> tuple[ScriptBatcher, str]:
    """A batcher of the ECHO script, and a list key of this test's own."""
    return batcher(redis), f"{store_settings.key_prefix}:echo"


async def test_calls_of_one_turn_share_one_batch_and_run_in_order(
    redis: Redis, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    await calls.run([key], ["warm"])  # loads the script
    before = calls.batches
    replies = await asyncio.gather(*(calls.run([key], [str(i)]) for i in range(50)))
    assert replies == [str(i).encode() for i in range(50)]
    assert calls.batches == before + 1
    assert await redis.lrange(key, 1, -1) == [str(i).encode() for i in range(50)]


def seen_without_the_loop(redis_url: str, key: str, value: bytes) -> bool:
    """Whether ``value`` reaches the list at ``key`` while the caller's event loop does
    not run (read on a blocking connection of its own, for up to two seconds)."""
    with SyncRedis.from_url(redis_url) as other:
        for _ in range(200):
            if value in other.lrange(key, 0, -1):
                return True
            time.sleep(0.01)
    return False


async def test_a_batch_leaves_in_its_senders_first_turn(
    redis_url: str, echo: tuple[ScriptBatcher, str]
) -> None:
    """The call's turn queues it and starts the sender; the sender's turn writes it.
    (redis-py's own write waits for a task of its own, a turn later.)"""
    calls, key = echo
    await calls.run([key], ["warm"])  # loads the script, opens a connection
    call = asyncio.create_task(calls.run([key], ["sent"]))
    await asyncio.sleep(0)  # the call's turn
    await asyncio.sleep(0)  # the sender's
    assert seen_without_the_loop(redis_url, key, b"sent")
    assert await call == b"sent"


async def test_a_forgotten_script_is_loaded_and_every_call_runs_once(
    redis: Redis, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    await redis.script_flush()
    replies = await asyncio.gather(*(calls.run([key], [str(i)]) for i in range(10)))
    assert replies == [str(i).encode() for i in range(10)]
    # Sent again after loading it, still in order, in the same batch's turn.
    assert await redis.lrange(key, 0, -1) == [str(i).encode() for i in range(10)]
    assert calls.batches == 2


async def test_a_failing_call_is_raised_to_its_caller_only(
    redis: Redis, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    values = ["a", "boom", "b"]
    got = await asyncio.gather(*(calls.run([key], [v]) for v in values), return_exceptions=True)
    assert got[0] == b"a" and got[2] == b"b"
    assert isinstance(got[1], ResponseError) and "boom" in str(got[1])
    assert await redis.lrange(key, 0, -1) == [b"a", b"b"]


async def test_a_killed_connection_sends_the_batch_again(
    redis: Redis, redis_url: str, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    await calls.run([key], ["first"])  # the pool now holds an open connection
    killer = Redis.from_url(redis_url)
    killed = await killer.client_kill_filter(_type="normal", skipme=True)
    await killer.aclose()
    assert killed >= 1
    replies = await asyncio.gather(*(calls.run([key], [str(i)]) for i in range(5)))
    assert replies == [str(i).encode() for i in range(5)]
    assert await redis.lrange(key, 1, -1) == [str(i).encode() for i in range(5)]


async def test_a_cancelled_caller_leaves_the_others_answered(
    redis: Redis, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    await calls.run([key], ["warm"])
    tasks = [asyncio.create_task(calls.run([key], [str(i)])) for i in range(5)]
    await asyncio.sleep(0)  # queued, not yet answered
    tasks[2].cancel()
    got = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(got[2], asyncio.CancelledError)
    assert [got[i] for i in (0, 1, 3, 4)] == [b"0", b"1", b"3", b"4"]
    # The connection is still in step: the next call gets its own reply.
    assert await calls.run([key], ["after"]) == b"after"


async def test_concurrent_appends_to_one_game_are_decided_in_the_order_sent(
    store: EventStore,
) -> None:
    """The event store's appends go through the batcher: expected versions 0..9 sent in
    one turn all succeed, in order; sent again (same ids) they are duplicates."""
    ids = [cmd() for _ in range(10)]
    await store.redis.script_load(APPEND_LUA)  # an earlier test may have flushed it

    def appends() -> list[Coroutine[Any, Any, AppendResult]]:
        return [append(store, "g1", v, ev(n=v), command_id=ids[v]) for v in range(10)]

    results = await asyncio.gather(*appends())
    assert [r.version for r in results] == list(range(1, 11))
    again = await asyncio.gather(*appends())
    assert all(r.duplicate for r in again)
    assert store._appends is not None and store._appends.batches == 2
    assert [e.version for e in await store.read_game("g1")] == list(range(1, 11))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet="abcxyz", min_size=1, max_size=6), min_size=1, max_size=40))
def test_every_call_gets_its_own_reply(redis_url: str, values: list[str]) -> None:
    async def check() -> None:
        client = Redis.from_url(redis_url)
        try:
            calls = batcher(client)
            key = "batching:property"
            await client.delete(key)
            got = await asyncio.gather(*(calls.run([key], [v]) for v in values))
            assert got == [v.encode() for v in values]
            assert await client.lrange(key, 0, -1) == [v.encode() for v in values]
        finally:
            await client.aclose()

    asyncio.run(check())


ARGS = "return ARGV"
ARG = st.one_of(
    st.text(max_size=20),  # non-ASCII included: UTF-8, as redis-py encodes it
    st.binary(max_size=20),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=40, deadline=None)
@given(st.lists(ARG, max_size=12))
def test_arguments_reach_redis_as_through_redis_py(redis_url: str, args: list[Any]) -> None:
    """The batcher packs calls itself (hiredis, in C): every kind of argument an append
    sends arrives byte for byte as redis-py's own path sends it."""

    async def check() -> None:
        client = Redis.from_url(redis_url)
        try:
            script = client.register_script(ARGS)
            calls = ScriptBatcher(client, script)
            assert await calls.run(["batching:args"], args) == await script(["k"], args)
        finally:
            await client.aclose()

    asyncio.run(check())


async def test_an_argument_redis_py_refuses_is_refused_alone(
    redis: Redis, echo: tuple[ScriptBatcher, str]
) -> None:
    calls, key = echo
    bad, good = calls.run([key], [None]), calls.run([key], ["fine"])
    got = await asyncio.gather(bad, good, return_exceptions=True)
    assert isinstance(got[0], DataError) and got[1] == b"fine"
    assert await redis.lrange(key, 0, -1) == [b"fine"]


async def test_appends_that_time_out_in_a_batch_fail_and_a_retry_is_a_duplicate(
    redis_url: str, store_settings: StoreSettings
) -> None:
    """A Redis that stops answering for longer than the client's timeout (CLIENT PAUSE of
    writes): every append of the batch fails with a timeout, as one call through redis-py
    does, after one timeout, not one per call; each retried with its command id is
    decided once, and each game holds its event once."""
    client = Redis.from_url(redis_url, socket_timeout=0.2)
    pauser = Redis.from_url(redis_url)
    try:
        store = EventStore(client, store_settings)
        await append(store, "warm", 0, ev())  # the script is loaded, a connection open
        ids = [cmd() for _ in range(5)]
        await pauser.client_pause(600, all=False)
        started = asyncio.get_running_loop().time()
        got = await asyncio.gather(
            *(append(store, f"g{i}", 0, ev(), command_id=ids[i]) for i in range(5)),
            return_exceptions=True,
        )
        waited = asyncio.get_running_loop().time() - started
        assert all(isinstance(g, RedisTimeoutError) for g in got)
        assert waited < 0.6  # one timeout for the batch (the pause lasts 0.6 s)
        await pauser.client_unpause()
        again = [await append(store, f"g{i}", 0, ev(), command_id=ids[i]) for i in range(5)]
        # Ran late or dropped with the closed connection (CLIENT PAUSE drops them): either
        # way the retry decides it once.
        assert [r.version for r in again] == [1] * 5
        for i in range(5):
            assert [e.version for e in await store.read_game(f"g{i}")] == [1]
    finally:
        await pauser.client_unpause()
        await pauser.aclose()
        await client.aclose()
