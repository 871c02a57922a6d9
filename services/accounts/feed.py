"""A player's feed (docs/bot-api.md): what their account event stream sends after its
opening state, a Redis stream per player (``<prefix>:feed:<player>``) of small entries
the projection appends as it reads the log:

- ``game_start`` (``game_id``, ``seat``): the player sat down at a game (quick play, a
  challenge accepted, a seat claimed, a create or a rematch);
- ``game_end`` (``game_id``, ``seat``): a game they hold a seat of is over;
- ``challenge`` (``challenge_id``): a challenge to or from them was issued or answered.

Entries point at their subject; the gateway shows its state as it sends them. Each
append is announced on ``<prefix>:feed`` (the player's id), so a gateway wakes the
streams it holds for that player; a stream resumes by the entry ids (kept FEED_LEN per
player), so a dropped connection loses nothing it missed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from redis.asyncio import Redis, RedisCluster

FEED_LEN = 1000  # entries kept per player (approximately: trimmed with ~)


def feed_key(prefix: str, player_id: str) -> str:
    return f"{prefix}:feed:{player_id}"


def feed_channel(prefix: str) -> str:
    return f"{prefix}:feed"


async def post(
    redis: Redis | RedisCluster, prefix: str, entries: Sequence[tuple[str, dict[str, Any]]]
) -> None:
    """Append (player, entry) pairs to their players' feeds and announce each player."""
    if not entries:
        return
    pipe = redis.pipeline(transaction=False)
    for player, entry in entries:
        body: dict[Any, Any] = {"e": orjson.dumps(entry)}
        pipe.xadd(feed_key(prefix, player), body, maxlen=FEED_LEN, approximate=True)
    for player in sorted({p for p, _ in entries}):
        pipe.publish(feed_channel(prefix), player)
    await pipe.execute()
