"""Request and response bodies of accounts, sessions and players (gateway.accounts.routes)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from services.kernel.commands import Strict

Scope = Literal["read", "play", "account", "bot"]
TokenScope = Literal["read", "play"]


class Register(Strict):
    """No password: a guest account (a generated name unless you give one), which may
    claim a name and a password later."""

    name: str | None = Field(None, min_length=1, max_length=32, description="plain text")
    password: str | None = Field(None, min_length=8, max_length=256)


class SignIn(Strict):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=256)
    label: str = Field("", max_length=64, description="names this device in your sessions")


class ClaimName(Strict):
    name: str = Field(min_length=1, max_length=32)
    password: str = Field(min_length=8, max_length=256)


class NewToken(Strict):
    label: str = Field(min_length=1, max_length=64)
    scopes: list[TokenScope] = Field(min_length=1, max_length=2)


class EraseAccount(Strict):
    password: str | None = Field(None, max_length=256, description="not for a guest")


class Session(BaseModel):
    id: str
    label: str
    scopes: list[Scope]
    opened_ms: int
    expires_ms: int = Field(description="0: until revoked")


class Account(BaseModel):
    player_id: str
    name: str
    guest: bool
    created_ms: int
    sessions: list[Session] = Field(description="sign-ins still open")
    tokens: list[Session] = Field(description="personal API tokens")
    bot: bool = Field(description="a program's account (docs/bot-api.md), for good")
    bots_welcome: BotsWelcome


class SignedIn(BaseModel):
    player_id: str
    name: str
    guest: bool
    token: str = Field(description="the bearer token of this session, shown once")
    session_id: str
    expires_ms: int
    bot: bool = Field(False, description="a program's account (docs/bot-api.md)")


class TokenIssued(BaseModel):
    id: str
    label: str
    scopes: list[Scope] = Field(description="a bot account's tokens carry ``bot`` as well")
    token: str = Field(description="shown once")


class Player(BaseModel):
    player_id: str
    name: str
    guest: bool
    bot: bool = Field(False, description="a program's account (docs/bot-api.md)")


class BotsWelcome(Strict):
    """Where you meet programs (bot accounts): both off until you turn them on."""

    quick_play: bool = Field(False, description="bot accounts may sit at your quick-play tables")
    challenges: bool = Field(False, description="bot accounts may challenge you")


class Presence(BaseModel):
    state: Literal["connected", "away", "gone"]
    since_ms: int = Field(description="when the seat's player went away; 0 while connected")
    gone_at_ms: int | None = Field(
        None, description="away: when a bot stands in for the seat (Unix ms) unless they are back"
    )
    claim_from_ms: int | None = Field(
        None, description="at a table of two: when the other player may claim the win (Unix ms)"
    )


class SeatOut(BaseModel):
    seat: int
    kind: Literal["human", "open", "bot"]
    name: str = Field(description="the player's name now, else the seat's own")
    bot_level: str = ""
    player_id: str | None = Field(None, description="the player holding the seat, if any")
    bot_account: bool = Field(False, description="that player is a program (docs/bot-api.md)")
    open: bool = Field(description="an open seat nobody has claimed yet")
    presence: Presence | None = Field(
        None,
        description="a human seat's player: connected (a live stream open), away since "
        "since_ms, or gone (away past the server's setting: a bot stands in); at a "
        "turn-based table only connected or away (its clocks decide, nobody stands in for "
        "an absence); none while its player never opened a stream",
    )


class Seats(BaseModel):
    game_id: str
    seats: list[SeatOut]


class MyGame(BaseModel):
    game_id: str
    game: str
    seat: int
    over: bool
    to_act: list[int]
    your_turn: bool
    created_ms: int
    updated_ms: int


class MyGames(BaseModel):
    games: list[MyGame]


class AwaitingGame(BaseModel):
    game_id: str
    game: str
    seat: int
    speed: Literal["realtime", "turn_based"]
    deadline_ms: int | None = Field(description="when your time runs out (Unix ms); none: no clock")
    time_left_ms: int | None = Field(description="deadline_ms less now, as the server answered")
    updated_ms: int = Field(description="the game's last move (Unix ms)")


class Awaiting(BaseModel):
    games: list[AwaitingGame] = Field(description="your turn in each, soonest to run out first")
    turn_based_games: int = Field(description="turn-based games you play now")
    turn_based_cap: int = Field(description="the most a player may play at once here")
