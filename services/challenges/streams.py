"""Reading and appending a challenge's stream, and each player's index of their
challenges (docs/social.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from services.challenges import rules
from services.challenges.rules import Challenge
from services.core.aggregates import append_typed, now_ms
from services.core.codec import to_domain
from services.core.errors import VersionConflict
from services.core.eventstore import EventStore

CHALLENGE = "challenge"  # the aggregate type of challenge streams
ENGINE_VERSION = "challenges/1"
ATTEMPTS = 4
KEPT_MS = 86_400_000  # an answered or expired challenge stays in the lists a day


def index_key(store: EventStore, player_id: str) -> str:
    """A player's challenges, sent and received: id -> when it expires (ms)."""
    return f"{store.settings.key_prefix}:challenges:{player_id}"


async def load(store: EventStore, challenge_id: str) -> Challenge:
    stored = await store.read_game(challenge_id)
    if stored and stored[0].game_type != CHALLENGE:
        return Challenge()
    return rules.fold([(to_domain(e), e.time_ms) for e in stored])


async def decide(
    store: EventStore, challenge_id: str, decision: Callable[[Challenge], list[Any]]
) -> Challenge:
    """``decision(state)`` -> events, appended at the state's version; decided again on
    the newer state after a conflict. The state after."""
    for attempt in range(ATTEMPTS):
        state = await load(store, challenge_id)
        events = decision(state)
        try:
            now = await append_typed(
                store,
                challenge_id,
                CHALLENGE,
                state.version,
                events,
                ENGINE_VERSION,
                attended=True,  # the notifier follows it: the invitee is told
            )
        except VersionConflict:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        for e in events:
            state = rules.evolve(state, e, now)
        return state
    raise AssertionError("unreachable")


async def listed(store: EventStore, challenge: Challenge, challenge_id: str) -> None:
    """The challenge in both players' lists (until a day past its end)."""
    pipe = store.redis.pipeline(transaction=False)
    for player in (challenge.challenger, challenge.invitee):
        key = index_key(store, player)
        pipe.zadd(key, {challenge_id: challenge.expires_ms})
        pipe.zremrangebyscore(key, 0, now_ms() - KEPT_MS)  # long gone
    await pipe.execute()


async def of_player(store: EventStore, player_id: str, most: int = 100) -> list[str]:
    """The player's challenges, the latest to expire first."""
    found = await store.redis.zrevrange(index_key(store, player_id), 0, most - 1)
    return [c.decode() if isinstance(c, bytes) else str(c) for c in cast(list[Any], found)]
