"""The account service: registers players, signs them in and out, issues personal API
tokens and erases accounts (docs/accounts.md). Each decision is services.accounts.rules
over the account's own stream, appended at its expected version, so any gateway replica
may take any request; a conflict (two requests of one account at once) is decided
again on the newer state.

Beside the stream, a few keys the rules cannot hold:
- the name reservation (``name:<digest of the look-alike key>`` -> account id), set
  before the account's first event so two people cannot take one name (or two names
  that look alike); the digest keeps the name itself out of the key;
- the account's sealing key (``pii:<id>``), deleted by erasure;
- the players directory (``players``: id -> public name), what views show for a seat
  a player holds, read at answer time, so an erased name disappears from every view;
- each player's games (``player:<id>:games``), newest first;
- token bindings, shared with seat tokens (gateway.accounts.tokens): ``@ <id> <session> <scopes>``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from gateway.accounts.tokens import Caller, SeatTokens, token_hash
from gateway.http.problems import Problem
from gateway.http.quota import counted
from services.accounts import bots, rules, sealing, social, streams
from services.accounts.events import SessionOpened
from services.accounts.passwords import Passwords, check_password
from services.accounts.rules import Account
from services.core.codec import dumps, loads
from services.core.eventstore import EventStore
from services.core.seating import player_games_key
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.names import clean_name, look_alike_key
from services.notifier.channels import channels_key, forget_email

log = logging.getLogger(__name__)

PLAYER_ID_PREFIX = "pl"
PLAYER_ID_PATTERN = r"^pl[0-9a-f]{24}$"
STALE_RESERVATION_MS = 10_000  # a reservation whose account never appeared (a crash)
GUEST_DRAWS = 5  # guest names drawn before one made of the account id
MAX_GAMES_LISTED = 100_000  # an erased player's games whose seat tokens are revoked
TAKE_OVER_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return 1 end
return 0
"""


@dataclass(frozen=True)
class Signed:
    """A sign-in's answer: the account and its new bearer token (shown once)."""

    account: Account
    player_id: str
    name: str
    token: str
    session: SessionOpened


def new_player_id() -> str:
    return PLAYER_ID_PREFIX + secrets.token_hex(12)


class Accounts:
    def __init__(
        self,
        store: EventStore,
        tokens: SeatTokens,
        passwords: Passwords,
        session_ttl_s: int,
        limits: AccountLimits,
    ) -> None:
        self.store, self.tokens, self.passwords = store, tokens, passwords
        self.session_ttl_s = session_ttl_s
        self.limits = limits
        prefix = store.settings.key_prefix
        self._prefix = prefix
        self.directory_key = streams.directory_key(store)
        self._take_over = store.redis.register_script(TAKE_OVER_LUA)

    # -- keys -------------------------------------------------------------------------

    def _name_key(self, name: str) -> str:
        digest = hashlib.sha256(look_alike_key(name).encode()).hexdigest()
        return f"{self._prefix}:name:{digest}"

    def _key_key(self, player_id: str) -> str:
        return streams.sealing_key_key(self.store, player_id)

    def games_key(self, player_id: str) -> str:
        return player_games_key(self.store, player_id)

    def followers_key(self, player_id: str) -> str:
        """Who follows the player: kept beside the follows in the followers' own streams
        (docs/social.md), so a player's followers are one read."""
        return social.followers_key(self._prefix, player_id)

    def blocks_key(self, player_id: str) -> str:
        return social.blocks_key(self._prefix, player_id)

    # -- reading ----------------------------------------------------------------------

    async def load(self, player_id: str) -> Account:
        return await streams.load(self.store, player_id)

    async def opened(self, player_id: str, sealed: str) -> str | None:
        return sealing.open_sealed(await self._sealing_key(player_id), player_id, sealed)

    async def _sealing_key(self, player_id: str) -> bytes | None:
        return await streams.sealing_key(self.store, player_id)

    async def names(self, player_ids: list[str]) -> dict[str, str]:
        """Public names of players (absent: no such player, or erased)."""
        return {p: e["name"] for p, e in (await self.entries(player_ids)).items()}

    async def entries(self, player_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Players' directory entries: name, guest, and ``bot`` for a bot account."""
        if not player_ids:
            return {}
        raw = await self.store.redis.hmget(self.directory_key, player_ids)
        return {p: dict(loads(r)) for p, r in zip(player_ids, raw, strict=True) if r}

    async def bots(self, player_ids: list[str]) -> set[str]:
        """Which of these players are bot accounts (docs/bot-api.md)."""
        return {p for p, e in (await self.entries(player_ids)).items() if e.get("bot")}

    async def directory_entry(self, player_id: str) -> dict[str, Any] | None:
        raw = await self.store.redis.hget(self.directory_key, player_id)
        return dict(loads(raw)) if raw else None

    # -- deciding ---------------------------------------------------------------------

    async def _append(self, player_id: str, state: Account, events: list[Any]) -> Account:
        after = await streams.append(self.store, player_id, state, events)
        await self._revoke(state, events)
        return after

    async def _decide(self, player_id: str, decide: Any) -> Account:
        """``decide(state)`` -> events, appended; decided again after a conflict."""
        before, after, events = await streams.decide(self.store, player_id, decide)
        await self._revoke(before, events)
        return after

    async def _revoke(self, before: Account, events: list[Any]) -> None:
        """The tokens of the sessions these events end stop working now, everywhere."""
        ended = rules.closed_by(before, events)
        if ended:
            await self.tokens.revoke_digests([s.token_hash for s in ended])

    def _session(self, kind: str, scopes: list[str], label: str) -> tuple[str, SessionOpened]:
        token = secrets.token_urlsafe(32)
        expires = _now_ms() + self.session_ttl_s * 1000 if kind == "session" else 0
        opened = SessionOpened(
            session_id=secrets.token_hex(8),
            kind=kind,
            token_hash=token_hash(token),
            scopes=scopes,
            label=label,
            expires_ms=expires,
        )
        return token, opened

    async def _bind(self, player_id: str, token: str, session: SessionOpened) -> None:
        ttl = self.session_ttl_s if session.kind == "session" else None
        await self.tokens.bind_account(token, player_id, session.session_id, session.scopes, ttl)

    async def _reserve(self, name: str, player_id: str) -> None:
        """Take ``name`` (and every name that looks like it) for ``player_id``."""
        key = self._name_key(name)
        mine = f"{player_id} {_now_ms()}"
        if await self.store.redis.set(key, mine, nx=True):
            return
        held = await self.store.redis.get(key)
        if held is not None:
            holder, _, since = _text(held).partition(" ")
            stale = _now_ms() - int(since or 0) > STALE_RESERVATION_MS
            if (
                stale
                and not (await self.load(holder)).exists
                and await self._take_over(keys=[key], args=[held, mine])
            ):
                return
        raise Problem(409, "name_taken", "that name, or one that looks like it, is taken")

    async def _guest_name(self, player_id: str) -> str:
        """A free guest name, reserved (a drawn one may be taken: draw again)."""
        for _ in range(GUEST_DRAWS - 1):
            try:
                name = _guest_name()
                await self._reserve(name, player_id)
                return name
            except Problem:
                continue
        name = f"Guest {player_id[-8:]}"  # unique as the id is
        await self._reserve(name, player_id)
        return name

    async def _publish(self, player_id: str, name: str, guest: bool, bot: bool = False) -> None:
        entry = dumps(bots.entry(name, guest, bot))
        await self.store.redis.hset(self.directory_key, player_id, entry)

    async def register(self, name: str | None, password: str | None, address: str) -> Signed:
        """A new account with its first sign-in; no password: a guest, named for now."""
        await self.limits.take("register", address, "")
        guest = password is None
        hashed = "" if password is None else await self._hash(check_password(password))
        chosen = clean_name(name, 32) if name else ""
        player_id = new_player_id()
        shown = chosen or await self._guest_name(player_id)
        if chosen:
            await self._reserve(chosen, player_id)
        key = sealing.new_key()
        await self.store.redis.set(self._key_key(player_id), key, nx=True)
        token, session = self._session("session", list(rules.SCOPES), "sign-up")
        sealed_name = sealing.seal(key, player_id, shown)
        sealed_password = sealing.seal(key, player_id, hashed)
        events = rules.register(Account(), guest, sealed_name, sealed_password)
        events += rules.open_session(Account(exists=True), session, _now_ms())
        state = await self._append(player_id, Account(), events)
        await self._publish(player_id, shown, guest)
        await self._bind(player_id, token, session)
        return Signed(state, player_id, shown, token, session)

    async def sign_in(self, name: str, password: str, address: str, label: str) -> Signed:
        """A new session for a name and its password; a wrong one of either answers the
        same, in the same time (services.accounts.passwords)."""
        await self.limits.take("sign_in", address, "")
        try:
            key = self._name_key(clean_name(name))
        except InvalidArgument:  # no such name can exist: the same answer, the same time
            key = ""
        # Counted by the name asked for, whether an account holds it or not: counting
        # only existing names told them apart (a 429 after ten tries, or never).
        await self.limits.take("sign_in_account", "", key or f"unnamed:{name}")
        held = await self.store.redis.get(key) if key else None
        player_id = _text(held).partition(" ")[0] if held else ""
        state = await self.load(player_id) if player_id else Account()
        hashed = await self.opened(player_id, state.password) if state.password else None
        ok = await asyncio.to_thread(self.passwords.verify, hashed or None, password)
        if not ok or state.erased or not state.exists:
            raise Problem(401, "bad_credentials", "that name and password do not match")
        if state.banned:  # the right password, so the player may know why
            reason = next((r for a, _, r, _, _ in reversed(state.moderated) if a == "ban"), "")
            raise Problem(403, "banned", f"this account is banned: {reason}")
        token, session = self._session("session", scopes_of(state, rules.SCOPES), label)
        state = await self._decide(player_id, lambda s: rules.open_session(s, session, _now_ms()))
        await self._bind(player_id, token, session)
        shown = await self.opened(player_id, state.name) or ""
        return Signed(state, player_id, shown, token, session)

    async def claim(self, who: Caller, name: str, password: str) -> Account:
        """A guest takes a name and a password of their own."""
        chosen = clean_name(name, 32)
        hashed = await self._hash(check_password(password))
        before = await self.load(who.player_id)
        old = await self.opened(who.player_id, before.name)
        await self._reserve(chosen, who.player_id)
        key = await self._sealing_key(who.player_id)
        sealed_name = sealing.seal(key, who.player_id, chosen) if key else ""
        sealed_password = sealing.seal(key, who.player_id, hashed) if key else ""
        try:
            state = await self._decide(
                who.player_id, lambda s: rules.claim(s, sealed_name, sealed_password)
            )
        except Exception:
            await self.store.redis.delete(self._name_key(chosen))
            raise
        if old and look_alike_key(old) != look_alike_key(chosen):
            await self.store.redis.delete(self._name_key(old))
        await self._publish(who.player_id, chosen, False)
        return state

    async def new_token(self, who: Caller, label: str, scopes: list[str]) -> tuple[str, Account]:
        before = await self.load(who.player_id)
        token, session = self._session("token", scopes_of(before, scopes), label)
        state = await self._decide(
            who.player_id, lambda s: rules.open_session(s, session, _now_ms())
        )
        await self._bind(who.player_id, token, session)
        return token, state

    async def close(self, who: Caller, session_id: str, kind: str) -> None:
        """End a session or revoke a token of the caller's account (404 if it has none
        of that id: a missing resource, where the rules say no_session)."""
        try:
            await self._decide(who.player_id, lambda s: rules.close_session(s, session_id, kind))
        except RuleViolation as error:
            if error.code != "no_session":
                raise
            raise Problem(404, f"no_{kind}", f"no such {kind} on your account") from None

    async def become_bot(self, who: Caller) -> Signed:
        """The account becomes a bot's (docs/bot-api.md), for good: every sign-in and
        token of it ends, and the answer carries a new sign-in with the bot scope."""
        state = await self._decide(who.player_id, rules.become_bot)
        name = await self.opened(who.player_id, state.name) or ""
        await self._publish(who.player_id, name, False, bot=True)
        token, session = self._session("session", scopes_of(state, rules.SCOPES), "bot")
        state = await self._decide(
            who.player_id, lambda s: rules.open_session(s, session, _now_ms())
        )
        await self._bind(who.player_id, token, session)
        return Signed(state, who.player_id, name, token, session)

    async def welcome_bots(self, player_id: str, quick_play: bool, challenges: bool) -> Account:
        """The player's consent to meet bot accounts, kept where the matchmaker and the
        challenges read it."""
        decide = lambda s: rules.welcome_bots(s, quick_play, challenges)  # noqa: E731
        state = await self._decide(player_id, decide)
        key, welcome = bots.welcome_key(self._prefix), bots.flags(quick_play, challenges)
        if welcome:
            await self.store.redis.hset(key, player_id, welcome)
        else:
            await self.store.redis.hdel(key, player_id)
        return state

    async def sign_out_everywhere(self, who: Caller) -> None:
        await self._decide(who.player_id, rules.sign_out_everywhere)

    async def take_seat(self, player_id: str, game_id: str, seat: int) -> None:
        """The player holds a seat of a game: their stream says so, their games show it."""
        await streams.take_seat(self.store, player_id, game_id, seat)

    async def follow(self, player_id: str, other: str) -> None:
        """The player follows ``other`` (an account: 404 otherwise); again: nothing."""
        if await self.directory_entry(other) is None:
            raise Problem(404, "no_player", f"no player {other}")
        await self._decide(player_id, lambda state: rules.follow(state, player_id, other))
        await self.store.redis.sadd(self.followers_key(other), player_id)

    async def unfollow(self, player_id: str, other: str) -> None:
        await self._decide(player_id, lambda state: rules.unfollow(state, other))
        await self.store.redis.srem(self.followers_key(other), player_id)

    async def block(self, player_id: str, other: str) -> None:
        """The player blocks ``other`` (an account: 404 otherwise), and so stops following
        them; again: nothing."""
        if await self.directory_entry(other) is None:
            raise Problem(404, "no_player", f"no player {other}")
        await self._decide(player_id, lambda state: rules.block(state, player_id, other))
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.sadd(self.blocks_key(player_id), other)
        pipe.sadd(social.blocked_by_key(self._prefix, other), player_id)
        pipe.srem(self.followers_key(other), player_id)
        await pipe.execute()

    async def unblock(self, player_id: str, other: str) -> None:
        await self._decide(player_id, lambda state: rules.unblock(state, other))
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.srem(self.blocks_key(player_id), other)
        pipe.srem(social.blocked_by_key(self._prefix, other), player_id)
        await pipe.execute()

    async def blocked_by(self, player_id: str, others: list[str]) -> set[str]:
        """Which of ``others`` block the player."""
        pipe = self.store.redis.pipeline(transaction=False)
        for other in others:
            pipe.sismember(self.blocks_key(other), player_id)
        return {o for o, hit in zip(others, await pipe.execute(), strict=True) if hit}

    async def grant_moderator(self, player_id: str) -> None:
        if not (await self.load(player_id)).exists:
            raise Problem(404, "no_player", f"no player {player_id}")
        await self._decide(player_id, rules.grant_moderator)

    async def moderate(
        self, moderator: str, player_id: str, action: str, reason: str, until_ms: int
    ) -> Account:
        """A moderator's action, in the player's stream; a ban ends every session and
        API token of theirs on every gateway (the revocation channel)."""
        if not (await self.load(moderator)).moderator:
            raise Problem(403, "not_moderator", "only moderators act on players")
        if not (await self.load(player_id)).exists:
            raise Problem(404, "no_player", f"no player {player_id}")
        return await self._decide(
            player_id, lambda s: rules.moderate(s, action, moderator, reason, until_ms)
        )

    async def followers(self, player_id: str) -> set[str]:
        found = await self.store.redis.smembers(self.followers_key(player_id))
        return {_text(p) for p in cast(set[bytes], found)}

    async def games(self, player_id: str, limit: int) -> list[tuple[str, int]]:
        """The player's games, newest first, with when each was added (ms)."""
        key = self.games_key(player_id)
        found = await self.store.redis.zrevrange(key, 0, limit - 1, withscores=True)
        return [(_text(g), int(score)) for g, score in cast(list[tuple[bytes, float]], found)]

    async def erase(self, who: Caller, password: str | None) -> None:
        """The account and its personal data: its sealing key (so every copy of its name
        and password hash in the logs reads as nothing), its name, its directory entry,
        its list of games; every token of it stops working on every gateway."""
        state = await self.load(who.player_id)
        if not state.guest:
            hashed = await self.opened(who.player_id, state.password)
            ok = await asyncio.to_thread(self.passwords.verify, hashed, password or "")
            if not ok:
                raise Problem(401, "bad_credentials", "erasing an account needs its password")
        await self.erased(who.player_id)

    async def erased(self, player_id: str) -> None:
        """Erase without asking (the operator's ``python -m gateway.accounts.admin erase``, e.g.
        again after a restore from a backup older than the erasure). Logged with the
        player id alone: the line an operator replays erasures from."""
        state = await self.load(player_id)
        if not state.exists:
            raise Problem(404, "no_player", f"no player {player_id}")
        name = await self.opened(player_id, state.name)
        if not state.erased:
            await self._decide(player_id, rules.erase)
        log.info("account erased", extra={"player_id": player_id})
        # The seat tokens handed out for the player's seats stop too (the account's own
        # sessions ended with it), before the list of their games goes.
        games = [g for g, _ in await self.games(player_id, MAX_GAMES_LISTED)]
        await self.tokens.revoke_digests(await self.tokens.seat_token_digests(player_id, games))
        # Notification channels: the address's unsubscribe token, then the whole hash.
        await forget_email(self.store.redis, self.store.settings.key_prefix, player_id)
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.delete(self._key_key(player_id))
        pipe.hdel(self.directory_key, player_id)
        pipe.delete(self.games_key(player_id))
        pipe.delete(self.followers_key(player_id))
        pipe.delete(self.blocks_key(player_id))
        # and they follow nobody any more:
        for followed in state.following:
            pipe.srem(self.followers_key(followed), player_id)
        for blocked in state.blocking:
            pipe.srem(social.blocked_by_key(self._prefix, blocked), player_id)
        pipe.delete(channels_key(self.store.settings.key_prefix, player_id))
        if name:
            pipe.delete(self._name_key(name))
        await pipe.execute()

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.passwords.hash, password)


class AccountLimits:
    """Registrations and sign-in attempts, counted in Redis (shared by every gateway)
    per address and, for sign-ins, per account: a 429 with Retry-After past the limit."""

    def __init__(self, store: EventStore, per_window: dict[str, int], window_s: int) -> None:
        self.store, self.per_window, self.window_s = store, per_window, window_s

    async def take(self, what: str, address: str, account: str) -> None:
        limit = self.per_window[what]
        now = int(time.time())
        who = hashlib.sha256(f"{address}\0{account}".encode()).hexdigest()[:24]
        slot = now // self.window_s
        key = f"{self.store.settings.key_prefix}:quota:{what}:{slot}:{who}"
        if await counted(self.store, key, self.window_s + 60) > limit:
            code, what_of = LIMITED[what]
            raise Problem(
                429,
                code,
                f"at most {limit} {what_of} per {self.window_s} s: try again later",
                retry_after=self.window_s - now % self.window_s,
            )


LIMITED = {  # limit -> (problem code, what it counts)
    "register": ("too_many_registrations", "registrations from one address"),
    "sign_in": ("too_many_sign_ins", "sign-in attempts from one address"),
    "sign_in_account": ("too_many_sign_ins", "sign-in attempts for one account"),
    "queue_join": ("too_many_queue_joins", "quick-play joins for one account"),
    "queue_join_address": ("too_many_queue_joins", "quick-play joins from one address"),
}


def _text(raw: Any) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _guest_name() -> str:
    return f"Guest {secrets.randbelow(900_000) + 100_000}"


def _now_ms() -> int:
    return int(time.time() * 1000)


def scopes_of(state: Account, asked: Sequence[str]) -> list[str]:
    """The scopes a new session or token of this account gets: a bot's always has
    ``bot`` (its requests are a bot's, limited as such: docs/bot-api.md)."""
    return [*asked, rules.BOT_SCOPE] if state.bot and rules.BOT_SCOPE not in asked else list(asked)


def account_json(state: Account, player_id: str, name: str, now_ms: int) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "name": name,
        "guest": state.guest,
        "created_ms": state.created_ms,
        "sessions": [
            _session_json(s) for s in state.sessions if s.kind == "session" and s.live(now_ms)
        ],
        "tokens": [_session_json(s) for s in state.sessions if s.kind == "token"],
        "bot": state.bot,
        "bots_welcome": {
            "quick_play": state.bots_in_quick_play,
            "challenges": state.bots_in_challenges,
        },
    }


def _session_json(s: rules.Session) -> dict[str, Any]:
    return {
        "id": s.session_id,
        "label": s.label,
        "scopes": list(s.scopes),
        "opened_ms": s.opened_ms,
        "expires_ms": s.expires_ms,
    }


__all__ = ["AccountLimits", "Accounts", "Signed", "account_json"]
