"""Many small Redis calls in one round trip.

Followers of the partition logs (projection, bot and tournament runners, leases) write a
little for each of many partitions; one awaited round trip per partition cost more CPU
in the client (an event-loop wake-up, a parse) than the writes themselves cost Redis.
Here they go out as one non-transactional pipeline: each call is still its own script
run (atomic alone, fenced alone), only the round trip is shared. On Redis Cluster the
client splits the pipeline by node."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

Call = tuple[Sequence[str], Sequence[Any]]  # keys, args


async def run_script_many(
    redis: Redis | RedisCluster, script: AsyncScript, calls: Sequence[Call]
) -> list[Any]:
    """The replies of ``script`` run once per (keys, args), in order, in one round trip
    (two the first time a server has not cached the script). Raises the first error."""
    replies: list[Any] = [None] * len(calls)
    todo = list(range(len(calls)))
    for attempt in range(2):
        pipe = redis.pipeline(transaction=False)
        for i in todo:
            keys, args = calls[i]
            # execute_command: redis-py blocks the evalsha method in cluster pipelines,
            # though the command itself routes by its keys like any other.
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        got = await pipe.execute(raise_on_error=False) if todo else []
        for i, reply in zip(todo, got, strict=True):
            replies[i] = reply
        # Only calls refused for an unknown script are sent again: they did not run.
        todo = [i for i in todo if isinstance(replies[i], NoScriptError)]
        if not todo:
            break
        if attempt == 0:
            await redis.script_load(script.script)
    for reply in replies:
        if isinstance(reply, Exception):
            raise reply
    return replies
