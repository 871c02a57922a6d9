"""Who follows and who blocks whom (docs/social.md), as indexes beside the account
streams' ``Followed`` and ``Blocked`` events: the gateway writes them with each event,
the matchmaker reads the blocks to keep players apart."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from redis.asyncio import Redis, RedisCluster


def followers_key(prefix: str, player_id: str) -> str:
    """Who follows the player."""
    return f"{prefix}:followers:{player_id}"


ONLINE_S = 60  # a player seen this recently is online


def online_key(prefix: str, player_id: str) -> str:
    """Present while the player has the lobby open (it reads their challenges)."""
    return f"{prefix}:online:{player_id}"


def blocks_key(prefix: str, player_id: str) -> str:
    """Whom the player blocks."""
    return f"{prefix}:blocks:{player_id}"


def blocked_by_key(prefix: str, player_id: str) -> str:
    """Who blocks the player (the same blocks, the other way round)."""
    return f"{prefix}:blocked-by:{player_id}"


async def apart_from(redis: Redis | RedisCluster, prefix: str, player_id: str) -> set[str]:
    """Everyone kept apart from the player: whom they block and who blocks them."""
    pipe = redis.pipeline(transaction=False)
    pipe.smembers(blocks_key(prefix, player_id))
    pipe.smembers(blocked_by_key(prefix, player_id))
    found = cast(list[set[bytes]], await pipe.execute())
    return {p.decode() for members in found for p in members}


async def kept_apart(
    redis: Redis | RedisCluster, prefix: str, players: Sequence[str]
) -> set[frozenset[str]]:
    """The pairs of these players one of whom blocks the other (a block works both
    ways), in one round trip."""
    if not players:
        return set()
    pipe = redis.pipeline(transaction=False)
    for p in players:
        pipe.smembers(blocks_key(prefix, p))
    found = cast(list[set[bytes]], await pipe.execute())
    here = set(players)
    return {
        frozenset((p, other.decode()))
        for p, blocked in zip(players, found, strict=True)
        for other in blocked
        if other.decode() in here
    }
