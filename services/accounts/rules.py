"""An account's rules: state + command -> events, state + event -> state. Pure: the
service seals names, hashes passwords, draws ids and tokens, and passes the time in.

Bounded by design: an account holds at most MAX_SESSIONS sign-ins (the oldest closes
when one more opens) and MAX_TOKENS personal API tokens, and a fold forgets sessions
that expired before the event it folds."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.accounts.events import (
    TYPES,
    BecameBot,
    Blocked,
    BotsWelcomed,
    Erased,
    Followed,
    Moderated,
    ModeratorGranted,
    NameClaimed,
    Registered,
    SeatTaken,
    SessionClosed,
    SessionOpened,
    SignedOutEverywhere,
    Unblocked,
    Unfollowed,
)
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import Event

# read: my games, my account; play: act at my seats, create and join games;
# account: manage the account itself (tokens, sign-out everywhere, erasure);
# bot: play as a program (docs/bot-api.md): every token of a bot account, and only its.
SCOPES = ("read", "play", "account")
TOKEN_SCOPES = ("read", "play")  # a personal API token never manages the account
BOT_SCOPE = "bot"
MAX_SESSIONS = 50
MAX_TOKENS = 20


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    kind: str  # "session" | "token"
    token_hash: str
    scopes: tuple[str, ...]
    label: str
    expires_ms: int  # 0: never
    opened_ms: int

    def live(self, now_ms: int) -> bool:
        return self.expires_ms == 0 or self.expires_ms > now_ms


@dataclass(frozen=True, slots=True)
class Account:
    version: int = 0
    exists: bool = False
    guest: bool = False
    name: str = ""  # sealed
    password: str = ""  # sealed
    erased: bool = False
    created_ms: int = 0
    sessions: tuple[Session, ...] = ()
    following: frozenset[str] = frozenset()  # players it follows (docs/social.md)
    blocking: frozenset[str] = frozenset()  # players it blocks
    moderator: bool = False
    # Moderators' actions on it (docs/social.md), oldest first: (action, by, reason,
    # until_ms, at_ms); what holds now is read off them (``held``).
    moderated: tuple[tuple[str, str, str, int, int], ...] = ()
    banned: bool = False
    played: bool = False  # it holds or held a seat
    bot: bool = False  # a program's account (docs/bot-api.md), for good
    bots_in_quick_play: bool = False  # the player meets bot accounts at quick-play tables
    bots_in_challenges: bool = False  # the player may be challenged by bot accounts

    def held(self, action: str, now_ms: int) -> tuple[str, int] | None:
        """The reason and end (0: for good) of a mute, shadow mute or suspension in force
        now, if any (a later ``clear`` lifts every earlier one)."""
        for done, _, reason, until, _ in reversed(self.moderated):
            if done == "clear":
                return None
            if done == action and (until == 0 or until > now_ms):
                return reason, until
        return None

    def session(self, session_id: str) -> Session | None:
        return next((s for s in self.sessions if s.session_id == session_id), None)


# -- deciding ---------------------------------------------------------------------------


def _live(state: Account) -> None:
    if not state.exists:
        raise RuleViolation("there is no such account", "no_account")
    if state.erased:
        raise RuleViolation("this account was erased", "account_erased")


def register(state: Account, guest: bool, name: str, password: str) -> list[Any]:
    if state.exists:
        raise RuleViolation("this account exists already", "account_exists")
    if not guest and not password:
        raise InvalidArgument("a registered account needs a password", "bad_password")
    return [Registered(guest, name, "" if guest else password)]


def claim(state: Account, name: str, password: str) -> list[Any]:
    _live(state)
    if not state.guest:
        raise RuleViolation("only a guest account claims a name", "not_a_guest")
    return [NameClaimed(name, password)]


def open_session(
    state: Account,
    session: SessionOpened,
    now_ms: int,
) -> list[Any]:
    """A sign-in or an API token; at the sign-in limit the oldest sign-in closes."""
    _live(state)
    if state.banned:
        raise RuleViolation("this account is banned", "banned")
    allowed: tuple[str, ...] = SCOPES if session.kind == "session" else TOKEN_SCOPES
    allowed += (BOT_SCOPE,) if state.bot else ()
    if state.bot and BOT_SCOPE not in session.scopes:  # a bot's every token says so
        raise InvalidArgument("a bot account's tokens carry the bot scope", "bad_scope")
    bad = sorted(set(session.scopes) - set(allowed))
    if bad or not session.scopes:
        raise InvalidArgument(
            f"scopes are some of {', '.join(allowed)}; not {', '.join(bad) or 'none'}",
            "bad_scope",
        )
    live = [s for s in state.sessions if s.kind == session.kind and s.live(now_ms)]
    if session.kind == "token" and len(live) >= MAX_TOKENS:
        raise RuleViolation(f"at most {MAX_TOKENS} API tokens: revoke one first", "too_many_tokens")
    events: list[Any] = []
    if session.kind == "session" and len(live) >= MAX_SESSIONS:
        oldest = min(live, key=lambda s: s.opened_ms)
        events.append(SessionClosed(oldest.session_id))
    return [*events, session]


def close_session(state: Account, session_id: str, kind: str) -> list[Any]:
    _live(state)
    found = state.session(session_id)
    if found is None or found.kind != kind:
        raise RuleViolation(f"no {kind} {session_id} on this account", "no_session")
    return [SessionClosed(session_id)]


def sign_out_everywhere(state: Account) -> list[Any]:
    _live(state)
    return [SignedOutEverywhere()]


def take_seat(state: Account, game_id: str, seat: int) -> list[Any]:
    _live(state)
    return [SeatTaken(game_id, seat)]


MOST_FOLLOWED = 1000  # a list one person can keep up with


def follow(state: Account, me: str, player: str) -> list[Any]:
    """Follow ``player`` (the caller checked it is an account); following again is
    nothing new."""
    _live(state)
    if player == me:
        raise InvalidArgument("you cannot follow yourself", "self")
    if player in state.following:
        return []
    if len(state.following) >= MOST_FOLLOWED:
        raise RuleViolation(f"you follow {MOST_FOLLOWED} players, the most", "too_many")
    return [Followed(player)]


def unfollow(state: Account, player: str) -> list[Any]:
    _live(state)
    return [Unfollowed(player)] if player in state.following else []


def block(state: Account, me: str, player: str) -> list[Any]:
    """Block ``player``: a follow of them ends too. Blocking again is nothing new."""
    _live(state)
    if player == me:
        raise InvalidArgument("you cannot block yourself", "self")
    if player in state.blocking:
        return []
    if len(state.blocking) >= MOST_FOLLOWED:
        raise RuleViolation(f"you block {MOST_FOLLOWED} players, the most", "too_many")
    return [*unfollow(state, player), Blocked(player)]


def unblock(state: Account, player: str) -> list[Any]:
    _live(state)
    return [Unblocked(player)] if player in state.blocking else []


MODERATION = ("warn", "mute", "shadow_mute", "suspend_rated", "ban", "clear")


def grant_moderator(state: Account) -> list[Any]:
    _live(state)
    return [] if state.moderator else [ModeratorGranted("operator")]


def moderate(state: Account, action: str, by: str, reason: str, until_ms: int) -> list[Any]:
    """A moderator's action on the account, with the reason its player is shown."""
    _live(state)
    if action not in MODERATION:
        raise InvalidArgument(f"action is one of {', '.join(MODERATION)}", "bad_action")
    if not reason.strip():
        raise InvalidArgument("a moderator's action needs a reason", "bad_reason")
    return [Moderated(action, by, reason.strip()[:500], until_ms)]


def become_bot(state: Account) -> list[Any]:
    """The account becomes a bot's, for good: only a registered account that has never
    held a seat. Every sign-in and token ends (a new one carries the bot scope)."""
    _live(state)
    if state.bot:
        return []
    if state.guest:
        raise RuleViolation("a guest cannot become a bot: claim a name first", "guest")
    if state.played:
        raise RuleViolation("only an account that has never played becomes a bot", "has_played")
    tokens = [SessionClosed(s.session_id) for s in state.sessions if s.kind == "token"]
    return [BecameBot(), SignedOutEverywhere(), *tokens]


def welcome_bots(state: Account, quick_play: bool, challenges: bool) -> list[Any]:
    _live(state)
    if state.bot:
        raise RuleViolation("a bot account meets bots as it is", "bot_account")
    if (state.bots_in_quick_play, state.bots_in_challenges) == (quick_play, challenges):
        return []
    return [BotsWelcomed(quick_play, challenges)]


def erase(state: Account) -> list[Any]:
    _live(state)
    return [Erased()]


def closed_by(state: Account, events: Iterable[Any]) -> list[Session]:
    """The sessions (and tokens) these events end: their tokens must stop working."""
    ended: list[Session] = []
    for e in events:
        if isinstance(e, SessionClosed):
            ended += [s for s in state.sessions if s.session_id == e.session_id]
        elif isinstance(e, SignedOutEverywhere):
            ended += [s for s in state.sessions if s.kind == "session"]
        elif isinstance(e, Erased) or (isinstance(e, Moderated) and e.action == "ban"):
            ended += list(state.sessions)  # every session and API token
    return ended


# -- folding ----------------------------------------------------------------------------


def evolve(state: Account, typed: Any, time_ms: int) -> Account:
    state = dataclasses.replace(state, version=state.version + 1)
    if isinstance(typed, Registered):
        return dataclasses.replace(
            state,
            exists=True,
            guest=typed.guest,
            name=typed.name,
            password=typed.password,
            created_ms=time_ms,
        )
    if isinstance(typed, NameClaimed):
        return dataclasses.replace(state, guest=False, name=typed.name, password=typed.password)
    if isinstance(typed, SessionOpened):
        opened = Session(
            typed.session_id,
            typed.kind,
            typed.token_hash,
            tuple(typed.scopes),
            typed.label,
            typed.expires_ms,
            time_ms,
        )
        kept = tuple(s for s in state.sessions if s.live(time_ms))
        return dataclasses.replace(state, sessions=(*kept, opened))
    if isinstance(typed, SessionClosed):
        kept = tuple(s for s in state.sessions if s.session_id != typed.session_id)
        return dataclasses.replace(state, sessions=kept)
    if isinstance(typed, SignedOutEverywhere):
        kept = tuple(s for s in state.sessions if s.kind != "session")
        return dataclasses.replace(state, sessions=kept)
    if isinstance(typed, Erased):
        return dataclasses.replace(
            state,
            erased=True,
            name="",
            password="",
            sessions=(),
            following=frozenset(),
            blocking=frozenset(),
        )
    if isinstance(typed, SeatTaken):
        return dataclasses.replace(state, played=True)
    if isinstance(typed, Followed):
        return dataclasses.replace(state, following=state.following | {typed.player})
    if isinstance(typed, Unfollowed):
        return dataclasses.replace(state, following=state.following - {typed.player})
    if isinstance(typed, Blocked):
        return dataclasses.replace(state, blocking=state.blocking | {typed.player})
    if isinstance(typed, ModeratorGranted):
        return dataclasses.replace(state, moderator=True)
    if isinstance(typed, Moderated):
        done = (typed.action, typed.by, typed.reason, typed.until_ms, time_ms)
        banned = {"ban": True, "clear": False}.get(typed.action, state.banned)
        sessions = () if typed.action == "ban" else state.sessions
        return dataclasses.replace(
            state, moderated=(*state.moderated, done), banned=banned, sessions=sessions
        )
    if isinstance(typed, Unblocked):
        return dataclasses.replace(state, blocking=state.blocking - {typed.player})
    if isinstance(typed, BecameBot):
        return dataclasses.replace(state, bot=True)
    if isinstance(typed, BotsWelcomed):
        return dataclasses.replace(
            state, bots_in_quick_play=typed.quick_play, bots_in_challenges=typed.challenges
        )
    raise TypeError(f"no fold for {type(typed).__name__}")


def fold(stored: Sequence[tuple[Event, int]], state: Account | None = None) -> Account:
    """The account after its stored events, each with its time."""
    state = state or Account()
    for event, time_ms in stored:
        state = evolve(state, TYPES.parse(event), time_ms)
    return state
