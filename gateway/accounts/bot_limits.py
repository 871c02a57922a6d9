"""What bot accounts may do (docs/bot-api.md): requests a minute, games against other
bot accounts a day, and whom they may challenge. Each refusal names its limit in the
problem's code and says how long to wait (Retry-After), as Lichess's Bot API does."""

from __future__ import annotations

import time

from gateway.http.problems import Problem
from gateway.http.quota import counted
from services.accounts import bots
from services.core.eventstore import EventStore


async def take_request(store: EventStore, per_minute: int, player_id: str) -> None:
    """Count one request of a bot account against its minute (shared by every gateway:
    a bot may spread its requests over replicas), or refuse it."""
    now = int(time.time())
    key = f"{store.settings.key_prefix}:quota:bot:{player_id}:{now // 60}"
    if await counted(store, key, 120) > per_minute:
        raise Problem(
            429,
            "bot_requests_per_minute",
            f"a bot account makes at most {per_minute} requests a minute",
            retry_after=60 - now % 60,
            limit=per_minute,
        )


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
