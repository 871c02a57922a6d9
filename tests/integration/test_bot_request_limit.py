"""A bot account's requests a minute against a real Redis (gateway.accounts.bot_limits):
what is let through is counted, what is refused is not, so a bot that asks again during
its wait is refused with the same Retry-After, not kept out longer and longer."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from gateway.accounts.bot_limits import take_request
from gateway.http.problems import Problem
from services.core.eventstore import EventStore

LIMIT = 5


async def refusal(store: EventStore, player: str) -> Problem:
    with pytest.raises(Problem) as refused:
        await take_request(store, LIMIT, player)
    return refused.value


async def test_refused_requests_are_not_counted_and_do_not_push_the_wait_out(
    store: EventStore,
) -> None:
    if time.time() % 60 > 50:  # the minute turns within the test: start in the next one
        await asyncio.sleep(61 - time.time() % 60)
    player = uuid.uuid4().hex
    for _ in range(LIMIT):
        await take_request(store, LIMIT, player)
    first = await refusal(store, player)
    assert first.status == 429 and first.code == "bot_requests_per_minute"
    again = [await refusal(store, player) for _ in range(30)]  # a bot polling through
    wait = first.extra["retry_after"]
    assert {p.extra["retry_after"] for p in again} <= {wait, wait - 1}
    minute = int(time.time() // 60)
    counted = await store.redis.get(f"{store.settings.key_prefix}:quota:bot:{player}:{minute}")
    assert int(counted) == LIMIT  # the 31 refusals left no trace
