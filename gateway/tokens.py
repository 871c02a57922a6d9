"""Seat tokens: random 256-bit secrets bound to (game, seat), kept only as SHA-256
hashes. A game's seat kinds and token hashes share the game's hash tag.

A token expires ``ttl_s`` after it was issued (its key carries that TTL in Redis) and
its holder may rotate it: a new token for the seat, the old one revoked at once. A
gateway trusts what it resolved for at most TRUST_S, so a token revoked through another
replica stops working everywhere within that time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from services.core.eventstore import EventStore


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat of one game, or a spectator (seat -1, no game)."""

    seat: int = -1
    game_id: str = ""
    token_hash: str = ""


TRUST_S = 5.0
TICKET_S = 60  # a stream ticket opens streams this long after it was issued


class SeatTokens:
    def __init__(self, store: EventStore, ttl_s: int = 30 * 24 * 3600) -> None:
        self.store = store
        self.ttl_s = ttl_s
        # token hash -> (caller, trusted until): tokens are never reassigned, only revoked.
        self._known: dict[str, tuple[Caller, float]] = {}

    def _seats_key(self, game_id: str) -> str:
        return self.store.keys.game(game_id) + ":seats"

    def _token_key(self, digest: str) -> str:
        return f"{self.store.settings.key_prefix}:token:{digest}"

    async def register(self, game_id: str, kinds: list[str], key: str = "") -> dict[int, str]:
        """Record the seat kinds of a new game; returns tokens for its human seats.

        With ``key`` (a secret only the creator holds: see ``creation_key``) the tokens are
        derived from it, so registering again (a retried create) gives the same tokens
        back, but none a seat has rotated away from since."""
        tokens = {
            i: _derived(key, game_id, i) if key else secrets.token_urlsafe(32)
            for i, k in enumerate(kinds)
            if k == "human"
        }
        seats = self._seats_key(game_id)
        pipe = self.store.redis.pipeline(transaction=False)
        for i, k in enumerate(kinds):
            pipe.hsetnx(seats, f"kind:{i}", k)
        for i, t in tokens.items():
            pipe.hsetnx(seats, f"token:{i}", token_hash(t))
        pipe.hgetall(seats)
        current = (await pipe.execute())[-1]
        kept = {
            i: t
            for i, t in tokens.items()
            if current.get(f"token:{i}".encode()) == token_hash(t).encode()
        }
        await self.bind_all([(token, game_id, seat) for seat, token in kept.items()])
        return kept

    async def issue(self, game_id: str, seat: int) -> str:
        """A new token for (game, seat), e.g. a tournament player's."""
        token = secrets.token_urlsafe(32)
        await self.bind(token, game_id, seat)
        return token

    async def bind(self, token: str, game_id: str, seat: int) -> None:
        """Make ``token`` resolve to (game, seat); binding it again changes nothing."""
        await self.bind_all([(token, game_id, seat)])

    async def bind_all(self, bindings: list[tuple[str, str, int]]) -> None:
        """Several (token, game, seat) bindings in one round trip."""
        pipe = self.store.redis.pipeline(transaction=False)
        for token, game_id, seat in bindings:
            pipe.set(self._token_key(token_hash(token)), f"{game_id} {seat}", ex=self.ttl_s)
        await pipe.execute()

    async def rotate(self, caller: Caller) -> str:
        """A new token for the caller's seat; the caller's token is revoked at once."""
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        pipe = self.store.redis.pipeline(transaction=False)
        if caller.seat >= 0:
            pipe.hset(self._seats_key(caller.game_id), f"token:{caller.seat}", digest)
        pipe.delete(self._token_key(caller.token_hash))
        pipe.set(self._token_key(digest), f"{caller.game_id} {caller.seat}", ex=self.ttl_s)
        await pipe.execute()
        self._known.pop(caller.token_hash, None)
        return token

    async def claim(self, game_id: str, seat: int) -> str | None:
        """A token for an open seat, or None if the seat is not open or already taken."""
        kind = await self.store.redis.hget(self._seats_key(game_id), f"kind:{seat}")
        if kind != b"open":
            return None
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        if not await self.store.redis.hsetnx(self._seats_key(game_id), f"token:{seat}", digest):
            return None
        await self.bind(token, game_id, seat)
        return token

    async def open_seats(self, game_ids: list[str]) -> dict[str, list[int]]:
        """Each game's open seats nobody has claimed yet, in one round trip."""
        pipe = self.store.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(self._seats_key(game_id))
        replies = await pipe.execute()
        return {
            game_id: sorted(s for s, (kind, free) in _seats(raw).items() if kind == "open" and free)
            for game_id, raw in zip(game_ids, replies, strict=True)
        }

    async def ticket(self, caller: Caller, ttl_s: int = TICKET_S) -> str:
        """A short-lived ticket that opens the caller's private live stream: a browser's
        EventSource cannot send an Authorization header, so it names the ticket in the
        URL instead. It lets its holder read that seat's stream, nothing else, and may be
        used again until it expires (EventSource reconnects by itself)."""
        ticket = secrets.token_urlsafe(24)
        key = self._ticket_key(token_hash(ticket))
        await self.store.redis.set(key, f"{caller.game_id} {caller.seat}", ex=ttl_s)
        return ticket

    async def resolve_ticket(self, ticket: str) -> Caller | None:
        raw = await self.store.redis.get(self._ticket_key(token_hash(ticket)))
        if raw is None:
            return None
        game_id, seat = (raw.decode() if isinstance(raw, bytes) else raw).split(" ")
        return Caller(int(seat), game_id)

    def _ticket_key(self, digest: str) -> str:
        return f"{self.store.settings.key_prefix}:ticket:{digest}"

    async def resolve(self, token: str) -> Caller | None:
        digest = token_hash(token)
        now = time.monotonic()
        known = self._known.get(digest)
        if known is not None and known[1] > now:
            return known[0]
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.get(self._token_key(digest))
        pipe.pttl(self._token_key(digest))
        raw, ttl_ms = await pipe.execute()
        if raw is None:
            self._known.pop(digest, None)
            return None
        game_id, seat = (raw.decode() if isinstance(raw, bytes) else raw).split(" ")
        if len(self._known) >= 100_000:
            self._known.clear()
        caller = Caller(int(seat), game_id, digest)
        left = ttl_ms / 1000 if ttl_ms and ttl_ms > 0 else TRUST_S
        self._known[digest] = (caller, now + min(TRUST_S, left))
        return caller


def creation_key(caller: str, command_id: str) -> str:
    """Who created a game with which command id, as one secret: the game's id and its
    first tokens are derived from it, so a retried create finds them again. Only the
    creator knows the command id (events of a create record "create", not the id)."""
    return hashlib.sha256(f"create\0{caller}\0{command_id}".encode()).hexdigest()


def _derived(key: str, game_id: str, seat: int) -> str:
    digest = hmac.new(key.encode(), f"seat\0{game_id}\0{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def _seats(raw: dict[bytes, bytes]) -> dict[int, tuple[str, bool]]:
    """Seat -> (kind, still unclaimed), from a game's seats hash."""
    out: dict[int, tuple[str, bool]] = {}
    for key, value in raw.items():
        name, _, index = key.decode().partition(":")
        if name == "kind":
            out[int(index)] = (value.decode(), f"token:{index}".encode() not in raw)
    return out
