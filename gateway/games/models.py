"""Request and response bodies. Request models forbid unknown fields; every command of
every game has its own model, so /docs lists them all with examples."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from services.games import GAMES
from services.kernel import commands as kernel_commands
from services.kernel.errors import InvalidArgument
from services.kernel.names import clean_name

if TYPE_CHECKING:
    GameName = str
else:
    # The games of services.games, as an enum in the schema.
    GameName = Literal[tuple(GAMES)]


Strict = kernel_commands.Strict


class SeatIn(Strict):
    kind: Literal["human", "open", "bot"]
    name: str = Field("", max_length=64, description="shown to everyone: plain text")
    bot_level: str = Field("", max_length=32, description="bots: e.g. heuristic, random, expert")
    player: str | None = Field(
        None,
        pattern=r"^(me|pl[0-9a-f]{24})$",
        description='human seats: the player who holds it, "me" for yourself (send your '
        "sign-in or API token); their token acts at it from any device",
    )

    @field_validator("name")
    @classmethod
    def _plain(cls, name: str) -> str:
        return plain_name(name) if name else name


class CreateGame(Strict):
    game: GameName
    seats: list[SeatIn] = Field(min_length=1, max_length=30)
    options: dict[str, Any] = Field(default_factory=dict)
    seed: str | None = Field(
        None,
        max_length=128,
        description="a seed of your own gives a deal you can replay, and known to you: "
        "only with practice, or with bots alone at the table (AL-2); drawn when absent",
    )
    practice: StrictBool = Field(
        False,
        description="a game whose deals the creator may know (shown in the lobby and in "
        "every view as practice)",
    )
    command_id: str | None = Field(None, min_length=1, max_length=128)

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "game": "giraffe-raffe",
                    "seats": [
                        {"kind": "human"},
                        {"kind": "open"},
                        {"kind": "bot", "bot_level": "heuristic"},
                    ],
                    "options": {"mode": "standard", "count_rule": "more"},
                },
                {
                    "game": "giraffometer",
                    "seats": [{"kind": "human"}, {"kind": "bot"}],
                    "options": {"target": 7},
                },
            ]
        },
    )


class CommandIn(Strict):
    """A command for a game: ``command`` is one of that game's commands (by ``type``).
    The engine checks it against the game's own model, the one place commands are
    validated (the OpenAPI document shows each game's as ``<Game>Command``)."""

    command: dict[str, Any] = Field(description="one of the game's commands, by `type`")
    command_id: str = Field(min_length=1, max_length=128, description="your idempotency key")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "command": {"type": "play", "tree": "pair", "cards": ["R7", "C1"]},
                    "command_id": "c-1",
                },
                {"command": {"type": "return_apple"}, "command_id": "c-2"},
                {"command": {"type": "choose_robot_play", "option": 0}, "command_id": "c-3"},
                {"command": {"type": "vote", "lowest": 2, "highest": 5}, "command_id": "c-4"},
                {"command": {"type": "close_round"}, "command_id": "c-5"},
                {"command": {"type": "choose_card", "card": 7}, "command_id": "c-6"},
                {
                    "command": {"type": "load", "pieces": [{"piece": "barrel", "position": 0.3}]},
                    "command_id": "c-7",
                },
                {"command": {"type": "catch", "pieces": ["s1-rat-0"]}, "command_id": "c-8"},
            ]
        },
    )


class Created(BaseModel):
    game_id: str
    game: str
    version: int
    seed_hash: str
    tokens: dict[int, str] = Field(description="bearer tokens of the human seats, shown once")


class Claimed(BaseModel):
    game_id: str
    seat: int
    token: str


class GameView(BaseModel):
    game_id: str
    version: int
    seat: int
    view: dict[str, Any]
    source: Literal["projection", "engine", "command", "delayed"] = Field(
        description="where the view came from: the read models (a spectator's public "
        "view), the engine (a seat's own view, or when the read models lag), the answer "
        "to your own latest command, or (spectators of a game shown late) the game as it "
        "was at ``version``"
    )


class CommandResult(BaseModel):
    """What a command did, and all its author needs for the next move: the view and
    the legal commands at the new version (no second read)."""

    version: int
    position: int
    duplicate: bool
    events: list[dict[str, Any]]
    view: dict[str, Any]
    commands: dict[str, Any] = Field(description="your legal commands at this version")


class EventPage(BaseModel):
    version: int
    events: list[dict[str, Any]]


# -- tournaments -----------------------------------------------------------------------


DEFAULT_GAMES: tuple[str, ...] = ("giraffe-raffe",)


class CreateTournament(Strict):
    name: str = Field("", max_length=80)
    games: list[GameName] = Field(default_factory=lambda: list(DEFAULT_GAMES), min_length=1)
    format: Literal["round_robin", "swiss", "elimination", "duplicate", "ladder"] = Field(
        "swiss",
        description="ladder: a bot ladder (docs/bots.md), one bot level per entrant and a "
        "table of them per seat rotation, all on one deal a round",
    )
    table_size: int | None = Field(None, ge=2, le=8, description="default 2 (round robin), 3")
    rounds: int = Field(
        3, ge=1, le=5000, description="swiss and duplicate (up to 50), ladder (up to 5,000 deals)"
    )
    advance: int = Field(1, ge=1, le=7, description="elimination: the top N of each table")
    game_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description='per game, e.g. {"giraffe-raffe": {"turn_timer": 60}}'
    )
    max_players: int = Field(
        1024, ge=2, le=1024, description="registration (or joining) stops at this many entrants"
    )
    open_registration: StrictBool = Field(
        False,
        description="anyone with the tournament's id may join (POST .../join) until it starts",
    )
    bots_allowed: StrictBool = Field(
        False,
        description="bot accounts (programs, docs/bot-api.md) may enter; a ladder takes "
        "them anyway",
    )

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"name": "Sunday Swiss", "games": ["giraffe-raffe"], "format": "swiss"},
                {"name": "Open table", "games": ["giraffometer"], "open_registration": True},
                {
                    "name": "Three games",
                    "games": ["giraffe-raffe", "giraffometer", "riff-raff"],
                    "format": "duplicate",
                    "table_size": 3,
                    "rounds": 4,
                },
            ]
        },
    )


class TournamentCreated(BaseModel):
    tournament_id: str
    organiser_token: str = Field(description="bearer token for register and start")
    version: int


def plain_name(name: str) -> str:
    """A name as services.kernel.names cleans it, or a validation error (422)."""
    try:
        return clean_name(name)
    except InvalidArgument as error:
        raise ValueError(error.message) from None


REGISTRATION_ID = (
    "your idempotency key: the same registration sent again with it (after a 503 or an "
    "answer that never came) is answered with the same entry, not refused as a name taken"
)


class RegisterPlayer(Strict):
    name: str = Field("", max_length=64, description="else the account's name")
    kind: Literal["human", "bot"] = "bot"
    bot_level: str = Field("", max_length=32)
    account: str | None = Field(
        None,
        pattern=r"^pl[0-9a-f]{24}$",
        description="an account's entrant (kind human): its tables seat that account, whose "
        "token plays them; a bot account's enters a ladder as a bot (docs/bot-api.md)",
    )
    command_id: str | None = Field(None, min_length=1, max_length=128, description=REGISTRATION_ID)


class JoinTournament(Strict):
    name: str = Field(
        "", max_length=64, description="as the standings show you; signed in: your name"
    )
    command_id: str | None = Field(None, min_length=1, max_length=128, description=REGISTRATION_ID)


class PlayerRegistered(BaseModel):
    player: int
    version: int
    token: str | None = Field(None, description="humans: the player's bearer token")


class TokenRotatedOut(BaseModel):
    tournament_id: str
    token: str = Field(description="your new bearer token, shown once")


# -- typed answers of the remaining routes (a client generator's types) ------------------


class Open(BaseModel):
    """An answer object whose documented fields are always there; a newer server may
    add more."""

    model_config = ConfigDict(extra="allow", json_schema_serialization_defaults_required=True)


class StreamTicket(BaseModel):
    ticket: str = Field(description="open events/stream?ticket=... with it")
    expires_in: int = Field(description="seconds it opens streams for")


class ReplayView(BaseModel):
    game_id: str
    version: int
    seat: int
    view: dict[str, Any]


class SeatSummary(Open):
    kind: str = Field(description="human, open or bot")
    name: str = ""
    bot_level: str = ""
    bot_account: bool = Field(False, description="its player is a program (docs/bot-api.md)")


class StatusSummary(Open):
    to_act: list[int]
    over: bool
    winners: list[int]
    losers: list[int]


class GameSummary(Open):
    game_id: str
    game: str
    version: int
    status: StatusSummary
    seats: list[SeatSummary]
    options: dict[str, Any]
    seed_hash: str
    practice: bool
    created_ms: int
    updated_ms: int
    open_seats: list[int] = Field(default_factory=list, description="seats anyone may claim now")


class Lobby(BaseModel):
    games: list[GameSummary]


class TournamentPlayer(Open):
    player: int
    name: str
    kind: str
    bot_level: str
    removed: bool = False
    account: str | None = Field(None, description="the account whose tables these are")
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")


class TournamentTable(Open):
    table: int
    players: list[int]
    keys: list[float] | None = Field(description="the result, once the table's game ended")
    game_id: str = ""


class TournamentRound(Open):
    round: int
    game: str
    tables: list[TournamentTable]
    byes: list[int]
    points: list[float]


class Rating(Open):
    mu: float
    sigma: float
    ordinal: float


class Standing(Open):
    rank: int
    player: int
    name: str
    points: float
    buchholz: float
    rating: Rating


class Progress(BaseModel):
    games: int
    finished: int


class Tournament(Open):
    tournament_id: str
    version: int
    source: Literal["projection", "engine"]
    options: dict[str, Any]
    started: bool
    players: list[TournamentPlayer]
    rounds: list[TournamentRound]
    standings: list[Standing]
    rating_history: list[list[float]]
    status: StatusSummary
    progress: Progress


class TournamentSummary(GameSummary):
    tournament_id: str
    state: Literal["open", "running", "over"]


class TournamentListing(BaseModel):
    tournaments: list[TournamentSummary]


class Standings(BaseModel):
    version: int
    source: Literal["projection", "engine"]
    standings: list[Standing]
    rating_history: list[list[float]]
    over: bool
    champions: list[int]


class MyTable(Open):
    round: int
    game: str
    game_id: str
    seat: int
    finished: bool
    ready: bool
    token: str | None = Field(description="this table's seat token; null once you rotated it")


class MyTables(BaseModel):
    player: int
    tables: list[MyTable]


class Versioned(BaseModel):
    version: int = Field(description="the version your command made")
