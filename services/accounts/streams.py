"""Reading and appending an account's stream, and the keys derived from it that every
process shares: the players directory (id -> public name) and each player's games.
Used by the gateway's account service and by the quick-play matchmaker (which seats
players), and by the rebuild, which draws the directory and the games from the account
streams alone."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from services.accounts import bots, rules, sealing
from services.accounts.events import SeatTaken
from services.accounts.rules import Account
from services.core.aggregates import append_typed, now_ms
from services.core.codec import dumps, to_domain
from services.core.errors import VersionConflict
from services.core.eventstore import EventStore
from services.core.seating import player_games_key

ACCOUNT = "account"  # the aggregate type of account streams
ENGINE_VERSION = "accounts/1"
ATTEMPTS = 4  # decisions retried on a version conflict
ACCOUNT_STREAM = re.compile(r":game:(pl[0-9a-f]{24})$")  # not its ":seats" and the like


def directory_key(store: EventStore) -> str:
    return f"{store.settings.key_prefix}:players"


def sealing_key_key(store: EventStore, player_id: str) -> str:
    return f"{store.settings.key_prefix}:pii:{player_id}"


async def sealing_key(store: EventStore, player_id: str) -> bytes | None:
    raw = await store.redis.get(sealing_key_key(store, player_id))
    return raw.encode("latin-1") if isinstance(raw, str) else raw


async def load(store: EventStore, player_id: str) -> Account:
    stored = await store.read_game(player_id)
    if stored and stored[0].game_type != ACCOUNT:
        return Account()
    return rules.fold([(to_domain(e), e.time_ms) for e in stored])


async def append(store: EventStore, player_id: str, state: Account, events: list[Any]) -> Account:
    """The events appended at the state's version (VersionConflict if it moved); none:
    nothing to append (a decision that changes nothing, e.g. following again)."""
    now = await append_typed(store, player_id, ACCOUNT, state.version, events, ENGINE_VERSION)
    for e in events:
        state = rules.evolve(state, e, now)
    return state


async def decide(
    store: EventStore, player_id: str, decision: Callable[[Account], list[Any]]
) -> tuple[Account, Account, list[Any]]:
    """``decision(state)`` -> events, appended; decided again on the newer state after a
    conflict. (state before, state after, events)."""
    for attempt in range(ATTEMPTS):
        before = await load(store, player_id)
        events = decision(before)
        try:
            return before, await append(store, player_id, before, events), events
        except VersionConflict:
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


async def take_seat(store: EventStore, player_id: str, game_id: str, seat: int) -> None:
    """Record that the player holds a seat of a game (their stream says so, and their
    games list shows it)."""
    await decide(store, player_id, lambda s: rules.take_seat(s, game_id, seat))
    await store.redis.zadd(player_games_key(store, player_id), {game_id: now_ms()}, nx=True)


async def rebuild(store: EventStore, progress: bool = False) -> int:
    """Draw the players directory and every player's games again from the account
    streams alone (a name opens with its account's key: an erased account has none, so
    it stays out); how many accounts were read."""
    redis = store.redis
    pattern = f"{store.settings.key_prefix}:{{p:*}}:game:pl*"
    ids = []
    async for key in redis.scan_iter(match=pattern, count=1000):
        found = ACCOUNT_STREAM.search(key.decode())
        if found:
            ids.append(found[1])
    ids.sort()
    await redis.delete(directory_key(store), bots.welcome_key(store.settings.key_prefix))
    for done, player_id in enumerate(ids, start=1):
        stored = await store.read_game(player_id)
        if not stored or stored[0].game_type != ACCOUNT:
            continue
        state = rules.fold([(to_domain(e), e.time_ms) for e in stored])
        games = player_games_key(store, player_id)
        await redis.delete(games)
        if state.erased:
            continue
        key = await sealing_key(store, player_id)
        name = sealing.open_sealed(key, player_id, state.name)
        pipe = redis.pipeline(transaction=False)
        if name:
            shown = bots.entry(name, state.guest, state.bot)
            pipe.hset(directory_key(store), player_id, dumps(shown))
        welcome = bots.flags(state.bots_in_quick_play, state.bots_in_challenges)
        if welcome:
            pipe.hset(bots.welcome_key(store.settings.key_prefix), player_id, welcome)
        for e in stored:
            if e.type == "SeatTaken":
                taken = SeatTaken(**to_domain(e).data)
                pipe.zadd(games, {taken.game_id: e.time_ms})
        await pipe.execute()
        if progress and done % 1000 == 0:
            print(f"  accounts: {done}/{len(ids)}", flush=True)
    return len(ids)
