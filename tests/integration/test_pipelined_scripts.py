"""Many script calls in one round trip (services/core/eventstore/pipelined.py), on
Redis 7, Redis 6.2 and a cluster: every call runs exactly once, in order, even when the
server has forgotten the script; a failing call is raised."""

from __future__ import annotations

import pytest
from redis.exceptions import ResponseError

from services.core.eventstore import EventStore
from services.core.eventstore.pipelined import run_script_many

COUNT = "return redis.call('INCRBY', KEYS[1], ARGV[1])"


def counters(store: EventStore, n: int) -> list[str]:
    # One key per partition tag: on the cluster they spread over every primary.
    return [f"{store.keys.tag(p)}:counter" for p in range(n)]


async def test_each_call_runs_once_in_order_even_after_a_script_flush(
    any_store: EventStore,
) -> None:
    script = any_store.redis.register_script(COUNT)
    keys = counters(any_store, 12)
    await any_store.redis.script_flush()  # the first round trip meets NOSCRIPT
    assert await any_store.redis.script_exists(script.sha) == [False]
    first = await run_script_many(any_store.redis, script, [([k], [i]) for i, k in enumerate(keys)])
    again = await run_script_many(any_store.redis, script, [([k], [1]) for k in keys])
    assert first == list(range(12))
    assert again == [i + 1 for i in range(12)]


async def test_no_calls_need_no_round_trip(any_store: EventStore) -> None:
    script = any_store.redis.register_script(COUNT)
    assert await run_script_many(any_store.redis, script, []) == []


async def test_a_failing_call_is_raised_and_the_others_still_ran(any_store: EventStore) -> None:
    script = any_store.redis.register_script(COUNT)
    keys = counters(any_store, 3)
    with pytest.raises(ResponseError):
        await run_script_many(
            any_store.redis, script, [([keys[0]], [5]), ([keys[1]], ["x"]), ([keys[2]], [7])]
        )
    values = [await any_store.redis.get(k) for k in keys]
    assert values == [b"5", None, b"7"]  # not a transaction: each call stands alone
