"""Bot accounts and who meets them (docs/bot-api.md), as indexes beside the account
streams' ``BecameBot`` and ``BotsWelcomed`` events, read by the gateway (challenges,
limits) and the matchmaker (quick-play tables):

- the players directory's entry of a bot account says ``"bot": true``;
- ``<prefix>:bots-welcome`` holds, per player who turned consent on, ``q`` (quick play)
  and/or ``c`` (challenges);
- ``<prefix>:bot-games:<player>:<day>`` counts a bot account's games against other bots
  on one UTC day, for the daily cap.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, cast

import orjson
from redis.asyncio import Redis, RedisCluster

DAY_S = 86_400


def welcome_key(prefix: str) -> str:
    return f"{prefix}:bots-welcome"


def flags(quick_play: bool, challenges: bool) -> str:
    return ("q" if quick_play else "") + ("c" if challenges else "")


def day_of(now_s: float) -> int:
    return int(now_s // DAY_S)


def seconds_to_next_day(now_s: float) -> int:
    """Until the daily caps start again (midnight UTC), at least one second."""
    return max(1, int((day_of(now_s) + 1) * DAY_S - now_s))


def bot_games_key(prefix: str, player: str, day: int) -> str:
    return f"{prefix}:bot-games:{player}:{day}"


async def bot_accounts(
    redis: Redis | RedisCluster, directory: str, players: Sequence[str]
) -> set[str]:
    """Which of these players are bot accounts (read off the players directory)."""
    if not players:
        return set()
    raw = cast(list[bytes | None], await redis.hmget(directory, list(players)))
    return {p for p, r in zip(players, raw, strict=True) if r and orjson.loads(r).get("bot")}


async def welcoming(
    redis: Redis | RedisCluster, prefix: str, players: Sequence[str]
) -> dict[str, str]:
    """Each player's consent flags (``q``, ``c``; "" for none)."""
    if not players:
        return {}
    raw = cast(list[bytes | None], await redis.hmget(welcome_key(prefix), list(players)))
    return {p: (r or b"").decode() for p, r in zip(players, raw, strict=True)}


async def games_today(
    redis: Redis | RedisCluster, prefix: str, players: Sequence[str], now_s: float
) -> dict[str, int]:
    """Each bot's games against other bots so far today."""
    if not players:
        return {}
    pipe = redis.pipeline(transaction=False)
    for p in players:
        pipe.get(bot_games_key(prefix, p, day_of(now_s)))
    found = cast(list[bytes | None], await pipe.execute())
    return {p: int(r or 0) for p, r in zip(players, found, strict=True)}


async def count_bot_game(
    redis: Redis | RedisCluster, prefix: str, players: Sequence[str], now_s: float
) -> None:
    """A game seats these bot accounts together: one more for each of them today."""
    pipe = redis.pipeline(transaction=False)
    for p in players:
        key = bot_games_key(prefix, p, day_of(now_s))
        pipe.incr(key)
        pipe.expire(key, 2 * DAY_S)
    await pipe.execute()


async def kept_from_bots(
    redis: Redis | RedisCluster,
    prefix: str,
    directory: str,
    players: Sequence[str],
    daily_cap: int,
) -> tuple[set[str], set[frozenset[str]]]:
    """Of the players waiting for quick play: the bot accounts, and the pairs that may
    not share a table, a bot account and a person who has not turned quick-play
    consent on, or two bot accounts one of which has played its daily cap of games
    against bots."""
    bots = await bot_accounts(redis, directory, players)
    if not bots:
        return bots, set()
    people = [p for p in players if p not in bots]
    consent = await welcoming(redis, prefix, people)
    played = await games_today(redis, prefix, sorted(bots), time.time())
    apart = {frozenset((b, p)) for b in bots for p in people if "q" not in consent[p]}
    capped = {b for b in bots if played[b] >= daily_cap}
    apart |= {frozenset((b, o)) for b in capped for o in bots if o != b}
    return bots, apart


def entry(name: str, guest: bool, bot: bool) -> dict[str, Any]:
    """A player's entry in the players directory (what views show for them)."""
    return {"name": name, "guest": guest, "bot": bot} if bot else {"name": name, "guest": guest}
