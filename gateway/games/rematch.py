"""Play again (docs/fair-table.md): at a finished table each player may ask for a rematch;
once every player's seat has asked, the same seats start a new game (same options, a new
seed), created once whichever gateway sees the last acceptance.

Kept in Redis per finished game: the seats that accepted and a secret the new game's id
and seat tokens are derived from, so two gateways creating it at once create one game and
hand out the same tokens (gateway.accounts.tokens.register with a key). The new game's GameCreated
records ``rematch_of`` (the link in the log); the finished game's ``rematched`` key keeps
the other direction for readers. Every player's seat must accept, a leaver's too: a
rematch is everyone's choice."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any, cast

from services.core.codec import dumps, loads
from services.core.eventstore import EventStore
from services.core.lru import BytesLRU
from services.kernel.game import SeatSpec

OFFER_TTL_S = 24 * 3600  # how long a finished table may still agree to play again
TABLES_BYTES = 4 * 1024 * 1024  # finished tables' creations kept (a few thousand)
TABLE_ENTRY_BYTES = 600  # an entry's dicts and links besides its JSON's bytes


@dataclass(frozen=True)
class Offer:
    """A finished game's rematch as it stands."""

    accepted: list[int]
    needed: list[int]  # the seats whose players must accept
    game_id: str = ""  # the new game, once started
    key: str = ""  # the secret its tokens derive from
    seats: list[SeatSpec] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    game: str = ""
    practice: bool = False  # a practice game's rematch is practice too (never rated)

    @property
    def waiting_for(self) -> list[int]:
        return [s for s in self.needed if s not in self.accepted]


class Rematches:
    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.prefix = store.settings.key_prefix
        # Finished games' creations (seats, options), by game id: a finished game never
        # changes, and a finished table's page asks where its rematch stands every 2 s
        # (it read the game's first event and asked the engine whether it was over, each
        # time).
        self._tables: BytesLRU[str, dict[str, Any]] = BytesLRU(TABLES_BYTES)

    def known_over(self, game_id: str) -> bool:
        """Whether the game was found over here (a table kept by ``finished``)."""
        return game_id in self._tables

    async def finished(self, game_id: str) -> None:
        """Note a game found over: its creation is kept for its rematch's answers."""
        if game_id not in self._tables:
            created = await self._read_table(game_id)
            self._tables.put(game_id, created, TABLE_ENTRY_BYTES + len(dumps(created)))

    def _key(self, game_id: str) -> str:
        return f"{self.prefix}:rematch:{game_id}"

    def _link(self, game_id: str) -> str:
        return f"{self.prefix}:rematched:{game_id}"

    async def offer(self, game_id: str, accept_seat: int | None = None) -> Offer:
        """The offer of a finished game, after ``accept_seat`` (if any) accepted."""
        created = await self._table(game_id)
        key = self._key(game_id)
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hsetnx(key, "secret", secrets.token_hex(16))
        if accept_seat is not None:
            pipe.hset(key, f"seat:{accept_seat}", "1")
        pipe.expire(key, OFFER_TTL_S)
        pipe.hgetall(key)
        pipe.get(self._link(game_id))
        *_, fields, link = await pipe.execute()
        raw = cast(dict[bytes, bytes], fields)
        accepted = sorted(int(k[5:]) for k in raw if k.startswith(b"seat:"))
        seats = _seats(created)
        needed = [i for i, s in enumerate(seats) if s.kind == "human"]
        secret = raw[b"secret"].decode()
        return Offer(
            accepted=accepted,
            needed=needed,
            game_id=link.decode() if link else "",
            key=hashlib.sha256(f"rematch\0{secret}".encode()).hexdigest(),
            seats=seats,
            options=dict(created.get("create_options", created.get("options", {}))),
            game=str(created.get("game", "")),
            practice=bool(created.get("practice")),
        )

    def new_game_id(self, offer: Offer) -> str:
        return offer.key[:32]

    async def started(self, game_id: str, new_game_id: str) -> None:
        await self.store.redis.set(self._link(game_id), new_game_id)

    async def _table(self, game_id: str) -> dict[str, Any]:
        """The finished game's creation: its seats, and its options as first sent."""
        return self._tables.get(game_id) or await self._read_table(game_id)

    async def _read_table(self, game_id: str) -> dict[str, Any]:
        stored = await self.store.read_game_range(game_id, 0, 1)
        created = dict(loads(stored[0].payload))
        created["game"] = stored[0].game_type
        if stored[0].command:
            said = loads(stored[0].command).get("create", {})
            created["create_options"] = said.get("options")
        return created


def _seats(created: dict[str, Any]) -> list[SeatSpec]:
    """The finished game's seats again (an open seat was claimed: a person's)."""
    out = []
    for s in created.get("seats", []):
        kind = "human" if s.get("kind") == "open" else str(s.get("kind", "human"))
        player = str(s.get("player", "")) if kind == "human" else ""
        out.append(SeatSpec(kind, s.get("name", ""), s.get("bot_level", ""), player))
    return out
