"""Seat tokens: random 256-bit secrets bound to (game, seat), kept only as SHA-256
hashes. A game's seat kinds and token hashes share the game's hash tag.

A token expires ``ttl_s`` after it was issued (its key carries that TTL in Redis) and
its holder may rotate it: a new token for the seat, the old one revoked at once. Exactly
one rotation wins per token: it swaps the old token's binding for a tombstone (SET ...
GET, one atomic step) that lives as long as the token would have, so the losers, and
anyone using the old token later, are told it was rotated (not that it is unknown).

Revocation reaches every gateway replica: a rotation publishes the revoked token's hash
on REVOKED_CHANNEL, and each gateway's live hub (gateway.live.hub), which listens on its one
pub/sub connection, drops the token from this cache and ends every live stream opened
with it or with a ticket it minted. A gateway trusts a resolved token from its cache
only while that connection is subscribed (a revocation it might have missed otherwise),
for at most TRUST_S, and never past the token's expiry."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from services.core.eventstore import EventStore
from services.core.eventstore.replication import execute_confirmed
from services.core.lru import BytesLRU
from services.core.seating import bind_players_calls, players_in, seats_key

SEAT_LIMIT = 1000  # seats of a game are below; a tournament's player tokens above


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat of one game, a player (an account's token: ``player_id``,
    its ``session_id`` and ``scopes``; seated in a game once resolved for it), or a
    spectator (seat -1, no game). ``expires_at``: when the token stops working
    (time.time() seconds; 0: no token, or one that never expires)."""

    seat: int = -1
    game_id: str = ""
    token_hash: str = ""
    expires_at: float = 0.0
    player_id: str = ""
    session_id: str = ""
    scopes: frozenset[str] = frozenset()


TRUST_S = 5.0
KNOWN_BYTES = 4 * 1024 * 1024  # some 10,000 tokens
KNOWN_ENTRY_BYTES = 400  # the digest, a Caller, a tuple and the LRU's links
TICKET_S = 60  # a stream ticket opens streams this long after it was issued
ACCOUNT_MARK = "@"  # a token binding of an account's session (not "<game> <seat>")
SEATED_BYTES = 1024 * 1024  # (game, player) -> seat, for players acting at their seats
SEATED_ENTRY_BYTES = 300


class TokenRotated(Exception):
    """The token was rotated (or revoked) already: another rotation won."""


ROTATED = b"rotated"  # what a rotated token's key holds until it would have expired


def revoked_channel(prefix: str) -> str:
    """Where revoked token hashes are published, one per message (every gateway
    listens)."""
    return f"{prefix}:revoked"


class SeatTokens:
    def __init__(self, store: EventStore, ttl_s: int = 30 * 24 * 3600) -> None:
        self.store = store
        self.ttl_s = ttl_s
        # token hash -> (caller, trusted until): tokens are never reassigned, only revoked.
        # Bounded by bytes (an entry is trusted for TRUST_S only, so a small cache holds
        # every token in use; a token of a finished game is simply pushed out).
        self._known: BytesLRU[str, tuple[Caller, float]] = BytesLRU(KNOWN_BYTES)
        # Whether revocations reach this gateway (its live hub is subscribed): the cache
        # is used only then. The epoch counts revocations heard, so a resolve that raced
        # one does not cache what was revoked meanwhile.
        self.listening = False
        self._epoch = 0
        self._seated: BytesLRU[tuple[str, str], int] = BytesLRU(SEATED_BYTES)

    def _seats_key(self, game_id: str) -> str:
        return seats_key(self.store, game_id)

    def token_key(self, digest: str) -> str:
        return self.store.keys.token(digest)

    async def register(
        self, game_id: str, kinds: list[str], key: str = "", others: frozenset[int] = frozenset()
    ) -> dict[int, str]:
        """Record the seat kinds of a new game; returns tokens for its human seats but
        ``others`` (seats held by other players, whose own tokens act there).

        With ``key`` (a secret only the creator holds: see ``creation_key``) the tokens are
        derived from it, so registering again (a retried create) gives the same tokens
        back, but none a seat has rotated away from since."""
        tokens = {
            i: _derived(key, game_id, i) if key else secrets.token_urlsafe(32)
            for i, k in enumerate(kinds)
            if k == "human" and i not in others
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
        """Several (token, game, seat) bindings in one round trip. This gateway trusts
        them at once, as if resolved (for TRUST_S): a seat's first command here, when it
        comes that soon after the game's creation, reads no binding back."""
        epoch, expires_at = self._epoch, time.time() + self.ttl_s
        callers = [
            Caller(seat, game, token_hash(token), expires_at) for token, game, seat in bindings
        ]
        pipe = self.store.redis.pipeline(transaction=False)
        for c in callers:
            pipe.set(self.token_key(c.token_hash), f"{c.game_id} {c.seat}", ex=self.ttl_s)
            pipe.sadd(self.store.keys.bound_tokens(c.game_id), c.token_hash)  # to go with the game
        # On a replicated Redis a token handed out survives a failover, as its game does.
        settings = self.store.settings
        await execute_confirmed(pipe, settings.redis_wait_replicas, settings.redis_wait_ms)
        if epoch != self._epoch or not self.listening:  # a revocation may have raced them
            return
        until = time.monotonic() + min(TRUST_S, self.ttl_s)
        for c in callers:
            self._known.put(c.token_hash, (c, until), KNOWN_ENTRY_BYTES)

    async def bind_account(
        self, token: str, player_id: str, session_id: str, scopes: list[str], ttl_s: int | None
    ) -> None:
        """Make ``token`` resolve to a player's session (no TTL: until revoked)."""
        value = f"{ACCOUNT_MARK} {player_id} {session_id} {','.join(scopes)}"
        await self.store.redis.set(self.token_key(token_hash(token)), value, ex=ttl_s)

    async def revoke_digests(self, digests: list[str]) -> None:
        """Tokens (by hash) that stop working now, on every gateway: their bindings are
        deleted (an account's closed session is unknown from then on)."""
        pipe = self.store.redis.pipeline(transaction=False)
        for digest in digests:
            pipe.delete(self.token_key(digest))
            pipe.publish(revoked_channel(self.store.settings.key_prefix), digest)
        await pipe.execute()
        for digest in digests:
            self.forget(digest)

    async def bind_players(self, game_id: str, players: dict[int, str]) -> dict[int, bool]:
        """Seat players (seat -> player id) in a game: each player holds at most one seat
        of a game and each seat one player; per seat, whether it is now that player's."""
        seats = self._seats_key(game_id)
        pipe = self.store.redis.pipeline(transaction=False)
        bind_players_calls(pipe, seats, players)
        pipe.hgetall(seats)
        current = (await pipe.execute())[-1]
        return {
            seat: current.get(f"player:{seat}".encode()) == player.encode()
            and current.get(f"seat-of:{player}".encode()) == str(seat).encode()
            for seat, player in players.items()
        }

    async def seat_token_digests(self, player_id: str, game_ids: list[str]) -> list[str]:
        """The current tokens (by hash) of the seats a player holds in these games: an
        erased player's seats stop answering to the tokens handed out for them."""
        pipe = self.store.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(self._seats_key(game_id))
        digests = []
        for raw in await pipe.execute():
            seat = raw.get(f"seat-of:{player_id}".encode())
            token = raw.get(b"token:" + seat) if seat is not None else None
            if token is not None:
                digests.append(token.decode())
        return digests

    async def seat_of(self, game_id: str, player_id: str) -> int:
        """The seat a player holds in a game, or -1 (seats are never given back, so a
        found one is kept)."""
        known = self._seated.get((game_id, player_id))
        if known is not None:
            return known
        raw = await self.store.redis.hget(self._seats_key(game_id), f"seat-of:{player_id}")
        if raw is None:
            return -1
        seat = int(raw)
        self._seated.put((game_id, player_id), seat, SEATED_ENTRY_BYTES)
        return seat

    async def players(self, game_ids: list[str]) -> dict[str, dict[int, str]]:
        """Each game's seated players (seat -> player id), in one round trip."""
        pipe = self.store.redis.pipeline(transaction=False)
        for game_id in game_ids:
            pipe.hgetall(self._seats_key(game_id))
        replies = await pipe.execute()
        return {g: players_in(raw) for g, raw in zip(game_ids, replies, strict=True)}

    async def rotate(self, caller: Caller) -> str:
        """A new token for the caller's seat; the caller's token is revoked at once, on
        every gateway. Raises TokenRotated when another rotation of the same token won."""
        old_key = self.token_key(caller.token_hash)
        was = await self.store.redis.set(old_key, ROTATED, keepttl=True, get=True)
        if was is None or was == ROTATED:  # expired, or another rotation won
            if was is None:
                await self.store.redis.delete(old_key)  # no tombstone for an expired one
            self.forget(caller.token_hash)
            raise TokenRotated
        token = secrets.token_urlsafe(32)
        digest = token_hash(token)
        pipe = self.store.redis.pipeline(transaction=False)
        if 0 <= caller.seat < SEAT_LIMIT:
            pipe.hset(self._seats_key(caller.game_id), f"token:{caller.seat}", digest)
        pipe.set(self.token_key(digest), f"{caller.game_id} {caller.seat}", ex=self.ttl_s)
        pipe.sadd(self.store.keys.bound_tokens(caller.game_id), digest)
        pipe.publish(revoked_channel(self.store.settings.key_prefix), caller.token_hash)
        await pipe.execute()
        self.forget(caller.token_hash)
        return token

    async def revoke(self, tokens: list[str]) -> None:
        """Revoke tokens given in clear (e.g. the seat tokens a tournament player's old
        token derived), on every gateway."""
        digests = [token_hash(t) for t in tokens]
        pipe = self.store.redis.pipeline(transaction=False)
        for digest in digests:
            pipe.set(self.token_key(digest), ROTATED, keepttl=True, xx=True)
            pipe.publish(revoked_channel(self.store.settings.key_prefix), digest)
        await pipe.execute()
        for digest in digests:
            self.forget(digest)

    def forget(self, digest: str) -> None:
        """A revocation was heard (or made here): the token is no longer trusted."""
        self._epoch += 1
        self._known.pop(digest)

    def set_listening(self, listening: bool) -> None:
        """The live hub's pub/sub connection is (re)subscribed, or lost: either way,
        what the cache holds may have been revoked meanwhile."""
        self.listening = listening
        self._epoch += 1
        self._known.clear()

    async def live(self, digests: list[str]) -> list[bool]:
        """Whether each token still works (not expired, rotated or revoked)."""
        pipe = self.store.redis.pipeline(transaction=False)
        for digest in digests:
            pipe.get(self.token_key(digest))
        return [raw is not None and raw != ROTATED for raw in await pipe.execute()]

    async def seat_digests(self, seats: list[tuple[str, int]]) -> list[str | None]:
        """The current token hash of each (game, seat), if a rotation recorded one, in
        one round trip."""
        pipe = self.store.redis.pipeline(transaction=False)
        for game_id, seat in seats:
            pipe.hget(self._seats_key(game_id), f"token:{seat}")
        return [_decoded(v) if v else None for v in await pipe.execute()]

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
        used again until it expires (EventSource reconnects by itself) or until the
        token that minted it is rotated or expires."""
        ticket = secrets.token_urlsafe(24)
        key = self._ticket_key(token_hash(ticket))
        value = f"{caller.game_id} {caller.seat} {caller.token_hash}"
        await self.store.redis.set(key, value, ex=ttl_s)
        return ticket

    async def resolve_ticket(self, ticket: str) -> Caller | None:
        """The caller a ticket stands for, as its minting token resolves now: None when
        the ticket expired or that token was rotated or expired."""
        raw = await self.store.redis.get(self._ticket_key(token_hash(ticket)))
        if raw is None:
            return None
        parts = (raw.decode() if isinstance(raw, bytes) else raw).split(" ")
        if len(parts) != 3:  # minted by a gateway of before revocation: not trusted
            return None
        try:
            found = await self._lookup(parts[2])
        except TokenRotated:
            return None
        if found is None:
            return None
        found = await self.in_game(found, parts[0])
        if (found.game_id, str(found.seat)) != (parts[0], parts[1]):
            return None
        return found

    async def in_game(self, caller: Caller, game_id: str) -> Caller:
        """A player's caller seated at their seat of ``game_id`` (if they hold one); any
        other caller as it is."""
        if not caller.player_id or caller.game_id or not game_id:
            return caller
        seat = await self.seat_of(game_id, caller.player_id)
        return dataclasses.replace(caller, seat=seat, game_id=game_id) if seat >= 0 else caller

    def _ticket_key(self, digest: str) -> str:
        return f"{self.store.settings.key_prefix}:ticket:{digest}"

    async def resolve(self, token: str) -> Caller | None:
        """The caller a token stands for; None for an unknown or expired token; raises
        TokenRotated for a rotated one."""
        digest = token_hash(token)
        known = self._known.get(digest)
        if known is not None and known[1] > time.monotonic() and self.listening:
            return known[0]
        return await self._lookup(digest)

    async def _lookup(self, digest: str) -> Caller | None:
        """The caller a token hash stands for, read from Redis (and cached)."""
        epoch = self._epoch
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.get(self.token_key(digest))
        pipe.pttl(self.token_key(digest))
        raw, ttl_ms = await pipe.execute()
        if raw is None or raw == ROTATED:
            self._known.pop(digest)
            if raw is not None:
                raise TokenRotated
            return None
        left = ttl_ms / 1000 if ttl_ms and ttl_ms > 0 else 0.0
        caller = _caller(_decoded(raw), digest, time.time() + left if left else 0.0)
        if epoch == self._epoch and self.listening:  # no revocation heard meanwhile
            until = time.monotonic() + min(TRUST_S, left or TRUST_S)
            self._known.put(digest, (caller, until), KNOWN_ENTRY_BYTES)
        return caller


def _caller(binding: str, digest: str, expires_at: float) -> Caller:
    """The caller a token's binding names: ``<game> <seat>`` or an account's
    ``@ <player> <session> <scopes>``."""
    parts = binding.split(" ")
    if parts[0] == ACCOUNT_MARK:
        scopes = frozenset(s for s in parts[3].split(",") if s)
        return Caller(-1, "", digest, expires_at, parts[1], parts[2], scopes)
    return Caller(int(parts[1]), parts[0], digest, expires_at)


def creation_key(caller: str, command_id: str) -> str:
    """Who created a game with which command id, as one secret: the game's id and its
    first tokens are derived from it, so a retried create finds them again. Only the
    creator knows the command id (events of a create record "create", not the id)."""
    return hashlib.sha256(f"create\0{caller}\0{command_id}".encode()).hexdigest()


def _derived(key: str, game_id: str, seat: int) -> str:
    digest = hmac.new(key.encode(), f"seat\0{game_id}\0{seat}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()


def _decoded(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _seats(raw: dict[bytes, bytes]) -> dict[int, tuple[str, bool]]:
    """Seat -> (kind, still unclaimed), from a game's seats hash."""
    out: dict[int, tuple[str, bool]] = {}
    for key, value in raw.items():
        name, _, index = key.decode().partition(":")
        if name == "kind":
            out[int(index)] = (value.decode(), f"token:{index}".encode() not in raw)
    return out
