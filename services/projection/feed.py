"""The players' feeds (services.accounts.feed), appended as the projection reads the
log: a seat taken, a game over, a challenge issued or answered. Only events of the last
FRESH_MS: a rebuild reads the whole log again, and a feed tells what happens now (an
account stream opens with the state of every open game and challenge anyway). A batch
read twice (a crash before its checkpoint) posts its entries twice: each is a pointer
at its subject's state, so a client sees the same state again."""

from __future__ import annotations

import time
from typing import Any

import orjson

from services.accounts.feed import post
from services.challenges.streams import CHALLENGE
from services.core.eventstore import EventStore, StoredEvent
from services.core.seating import seated_players

FRESH_MS = 15 * 60 * 1000
ACCOUNT = "account"
CHALLENGE_EVENTS = (
    "ChallengeIssued",
    "ChallengeAccepted",
    "ChallengeDeclined",
    "ChallengeCancelled",
)


class Feeds:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.prefix = store.settings.key_prefix

    async def post(self, events: list[StoredEvent]) -> int:
        """The feed entries of a batch, appended; how many."""
        oldest = int(time.time() * 1000) - FRESH_MS
        entries: list[tuple[str, dict[str, Any]]] = []
        for e in events:
            if e.time_ms >= oldest:
                entries += await self._entries(e)
        await post(self.store.redis, self.prefix, entries)
        return len(entries)

    async def _entries(self, e: StoredEvent) -> list[tuple[str, dict[str, Any]]]:
        if e.game_type == ACCOUNT and e.type == "SeatTaken":
            taken = orjson.loads(e.payload)
            entry = {"type": "game_start", "game_id": taken["game_id"], "seat": taken["seat"]}
            return [(e.game_id, entry)]
        if e.type == "GameEnded":
            seated = await seated_players(self.store, e.game_id)
            return [
                (player, {"type": "game_end", "game_id": e.game_id, "seat": seat})
                for seat, player in seated.items()
            ]
        if e.game_type == CHALLENGE and e.type in CHALLENGE_EVENTS:
            return [
                (player, {"type": "challenge", "challenge_id": e.game_id})
                for player in await self._challenge_players(e)
            ]
        return []

    async def _challenge_players(self, e: StoredEvent) -> list[str]:
        """The challenger and the invitee, from the challenge's first event."""
        if e.type == "ChallengeIssued":
            first = e
        else:
            stored = await self.store.read_game_range(e.game_id, 0, 1)
            if not stored:
                return []
            first = stored[0]
        issued = orjson.loads(first.payload)
        return [str(issued["challenger"]), str(issued["invitee"])]
