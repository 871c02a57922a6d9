"""Appends acknowledged only once replicas hold them (docs/operations.md, "Replicated
Redis").

Redis replicates asynchronously: a primary that dies right after answering takes the
writes its replicas had not received yet, and a promoted replica has no trace of them.
So with ``redis_wait_replicas`` set, the append script and ``WAIT n ms`` go to the
primary together, on one connection and in one round trip: WAIT returns once ``n``
replicas confirm every write this connection made, or after ``ms`` with how many did.
Fewer than ``n``: the append is not acknowledged (NotReplicated, 503): it may survive
(the primary lives on) or vanish (a failover); the client sends it again with the same
command id, and either way it is decided exactly once.

A retry that finds its command already appended (a duplicate) wrote nothing, so its WAIT
would cover nothing: it writes one small key beside the game first, which moves this
connection's offset past the original append, and waits for that.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript
from redis.exceptions import ConnectionError, MovedError, NoScriptError, TimeoutError

from services.core.errors import NotReplicated

Command = tuple[Any, ...]


async def evalsha_and_wait(
    redis: Redis | RedisCluster,
    script: AsyncScript,
    keys: Sequence[str],
    args: Sequence[Any],
    replicas: int,
    timeout_ms: int,
) -> Any:
    """The script's reply, once ``replicas`` replicas hold what it wrote; raises
    NotReplicated when they do not confirm in ``timeout_ms``."""
    call: Command = ("EVALSHA", script.sha, len(keys), *keys, *args)
    for attempt in range(2):
        reply, acked = await with_wait(redis, keys[0], [call], replicas, timeout_ms)
        if not isinstance(reply, NoScriptError):
            break
        if attempt == 0:
            await redis.script_load(script.script)
    if isinstance(reply, Exception):
        raise reply
    if acked < replicas:
        raise not_replicated(acked, replicas, timeout_ms)
    return reply


async def confirm(
    redis: Redis | RedisCluster, sync_key: str, replicas: int, timeout_ms: int
) -> None:
    """Wait until ``replicas`` replicas hold everything the primary holds now (a write
    to ``sync_key``, in the slot of what must be confirmed, then WAIT)."""
    reply, acked = await with_wait(redis, sync_key, [("SET", sync_key, b"1")], replicas, timeout_ms)
    if isinstance(reply, Exception):
        raise reply
    if acked < replicas:
        raise not_replicated(acked, replicas, timeout_ms)


def not_replicated(acked: int, replicas: int, timeout_ms: int) -> NotReplicated:
    return NotReplicated(
        f"{acked} of {replicas} replicas confirmed the append in {timeout_ms} ms; its outcome"
        " is unknown: send it again with the same command id"
    )


async def with_wait(
    redis: Redis | RedisCluster,
    key: str,
    commands: Sequence[Command],
    replicas: int,
    timeout_ms: int,
) -> tuple[Any, int]:
    """The last command's reply (an error as a value) and WAIT's count of replicas."""
    if isinstance(redis, RedisCluster):
        return await _on_slot_primary(redis, key, commands, replicas, timeout_ms)
    pipe = redis.pipeline(transaction=False)
    for command in commands:
        pipe.execute_command(*command)
    pipe.execute_command("WAIT", replicas, timeout_ms)
    replies = await pipe.execute(raise_on_error=False)
    acked = replies[-1]
    if isinstance(acked, Exception):
        raise acked
    return replies[-2], int(acked)


async def _on_slot_primary(
    redis: RedisCluster,
    key: str,
    commands: Sequence[Command],
    replicas: int,
    timeout_ms: int,
) -> tuple[Any, int]:
    """The same on a cluster: redis-py sends WAIT to every node on connections of their
    own, where it would confirm nothing; here the commands and WAIT share one connection
    of the key's primary. A moved slot or a lost node (a failover) has the client learn
    the cluster's shape again; the caller answers 503 and the client retries."""
    node = redis.get_node_from_key(key)
    if node is None:
        await _relearn(redis)
        raise ConnectionError("no primary holds the game's slot (a failover): send it again")
    connection = node.acquire_connection()
    try:
        await connection.send_packed_command(
            connection.pack_commands([*commands, ("WAIT", replicas, timeout_ms)])
        )
        replies: list[Any] = []
        for _ in range(len(commands) + 1):
            try:
                replies.append(await connection.read_response())
            except (ConnectionError, TimeoutError):
                raise
            except Exception as error:  # an error reply: the rest are still to be read
                replies.append(error)
    except (ConnectionError, TimeoutError, OSError):
        await connection.disconnect()
        await _relearn(redis)
        raise
    finally:
        node.release(connection)
    if any(isinstance(r, MovedError) for r in replies):
        await _relearn(redis)
        raise ConnectionError("the game's slot moved (a failover): send it again")
    acked = replies[-1]
    if isinstance(acked, Exception):
        raise acked
    return replies[-2], int(acked)


async def _relearn(redis: RedisCluster) -> None:
    """The cluster's shape asked again (a node that is down as well is the next call's
    failure, not this one's)."""
    with contextlib.suppress(Exception):
        await redis.nodes_manager.initialize()


async def execute_confirmed(pipe: Any, replicas: int, timeout_ms: int) -> list[Any]:
    """A pipeline's replies, once ``replicas`` replicas hold its writes and everything
    written before them (WAIT as its last command; replication is in order). For writes
    beside the events that a client is answered with, e.g. a new game's seat tokens. On
    a cluster the pipeline's commands spread over nodes, where one WAIT confirms nothing:
    there they are not waited for (docs/operations.md)."""
    if not replicas or not isinstance(pipe, Pipeline):
        return list(await pipe.execute())
    pipe.execute_command("WAIT", replicas, timeout_ms)
    replies = list(await pipe.execute())
    if int(replies[-1]) < replicas:
        raise not_replicated(int(replies[-1]), replicas, timeout_ms)
    return replies[:-1]
