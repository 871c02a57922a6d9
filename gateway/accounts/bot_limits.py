"""What bot accounts may do (docs/bot-api.md): requests a minute, games against other
bot accounts a day, and whom they may challenge. Each refusal names its limit in the
problem's code and says how long to wait (Retry-After), as Lichess's Bot API does."""

from __future__ import annotations

import math
import time

from gateway.http.problems import Problem
from services.accounts import bots
from services.core.eventstore import EventStore


async def take_request(store: EventStore, per_minute: int, player_id: str) -> None:
    """Count one request of a bot account against the last minute (shared by every
    gateway: a bot may spread its requests over replicas), or refuse it. The minute
    slides: this clock minute's count plus the last one's share still inside it, so a
    burst across a minute's end is not counted twice over (a fixed window let a bot make
    twice its limit in a few seconds there). A refused request is not counted: a bot
    that asks again before its Retry-After is refused again, but does not push its own
    wait further out (counted, a bot polling through its wait was kept out for minutes)."""
    now = time.time()
    minute = int(now // 60)
    key = f"{store.settings.key_prefix}:quota:bot:{player_id}:{minute}"
    last = f"{store.settings.key_prefix}:quota:bot:{player_id}:{minute - 1}"
    pipe = store.redis.pipeline(transaction=False)
    pipe.incr(key)
    pipe.expire(key, 120)
    pipe.get(last)
    current, _, previous = await pipe.execute()
    elapsed = now - minute * 60
    if last_minute(int(current), int(previous or 0), elapsed) > per_minute:
        await store.redis.decr(key)  # not made: the count stays what was let through
        raise Problem(
            429,
            "bot_requests_per_minute",
            f"a bot account makes at most {per_minute} requests a minute",
            retry_after=wait_s(int(current) - 1, int(previous or 0), elapsed, per_minute),
            limit=per_minute,
        )


def last_minute(current: int, previous: int, elapsed_s: float) -> float:
    """Requests in the minute up to now: this clock minute's (``elapsed_s`` into it) and
    the share of the last one's still inside the minute."""
    return current + previous * (60 - elapsed_s) / 60


def wait_s(current: int, previous: int, elapsed_s: float, limit: int) -> int:
    """Whole seconds until one more request fits (``last_minute`` of the counted
    requests plus it within ``limit``), if nothing more is sent: within this clock minute
    as the last one's share runs out, or into the next, where this one's count becomes
    the share."""
    room = limit - 1  # what the counted requests may come to, with this one on top
    if current <= room and previous:
        wait = 60 - elapsed_s - (room - current) * 60 / previous
    else:
        wait = 60 - elapsed_s + 60 * (1 - room / max(current, 1))
    return max(1, math.ceil(wait))


async def check_cap(store: EventStore, per_day: int, programs: list[str]) -> None:
    """Bot accounts about to play each other: refused if one has played its day's games
    against bots."""
    now = time.time()
    played = await bots.games_today(store.redis, store.settings.key_prefix, programs, now)
    full = sorted(p for p, n in played.items() if n >= per_day)
    if full:
        raise Problem(
            429,
            "bot_games_per_day",
            f"a bot account plays at most {per_day} games a day against other bots "
            f"({', '.join(full)} has)",
            retry_after=bots.seconds_to_next_day(now),
            limit=per_day,
        )


async def check_challenge(
    store: EventStore, per_day: int, programs: set[str], challenger: str, invitee: str
) -> None:
    """A challenge between these two (``programs``: which of them are bot accounts):
    a bot challenges a person only if they welcome challenges from bots, and another bot
    only within the daily cap."""
    if challenger not in programs:
        return  # a person chooses whom they challenge, bot or not
    if invitee in programs:
        await check_cap(store, per_day, sorted(programs))
        return
    welcome = await bots.welcoming(store.redis, store.settings.key_prefix, [invitee])
    if "c" not in welcome[invitee]:
        raise Problem(
            403,
            "bots_not_welcome",
            "that player takes no challenges from bots (their bots-welcome setting)",
        )


async def count_game(store: EventStore, programs: list[str]) -> None:
    if len(programs) > 1:
        await bots.count_bot_game(store.redis, store.settings.key_prefix, programs, time.time())
