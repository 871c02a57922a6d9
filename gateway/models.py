"""Request and response bodies. Request models forbid unknown fields; every command of
every game has its own model, so /docs lists them all with examples."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

GameName = Literal["giraffe-raffe", "giraffometer", "riff-raff"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatIn(Strict):
    kind: Literal["human", "open", "bot"]
    name: str = Field("", max_length=64)
    bot_level: str = Field("", max_length=32, description="bots: e.g. heuristic, random, expert")


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
    practice: bool = Field(
        False, description="a game whose deals the creator may know (shown in the lobby)"
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


# -- Giraffe Raffe commands ------------------------------------------------------------


class Play(Strict):
    """Giraffe Raffe: play cards on a tree; each Copy may name the card it copies."""

    type: Literal["play"]
    tree: str = Field(max_length=32, examples=["pair"])
    cards: list[str] = Field(min_length=1, max_length=64, examples=[["R7", "C1"]])
    copies: dict[str, str] | None = Field(None, examples=[{"C1": "R7"}])


class ReturnApple(Strict):
    """Giraffe Raffe: return an apple to the supply and pass (GR-8)."""

    type: Literal["return_apple"]


class ChooseRobotPlay(Strict):
    """Giraffe Raffe solo: pick the Robot's play among options differing in colour."""

    type: Literal["choose_robot_play"]
    option: int = Field(ge=0, le=1000)


# -- Giraffometer commands --------------------------------------------------------------


class Vote(Strict):
    """Giraffometer: one vote for the lowest and one for the highest fact (GM-3)."""

    type: Literal["vote"]
    lowest: int = Field(ge=1, le=6)
    highest: int = Field(ge=1, le=6)


class CloseRound(Strict):
    """Giraffometer: reveal with the votes that are in, once the round timer ran out."""

    type: Literal["close_round"]


# -- Riff Raff commands -----------------------------------------------------------------


class ChooseCard(Strict):
    """Riff Raff: choose this round's card, secretly (RR-3)."""

    type: Literal["choose_card"]
    card: int = Field(ge=1, le=10)


class ChooseCaptain(Strict):
    """Riff Raff: the previous captain picks the captain among players tied for highest."""

    type: Literal["choose_captain"]
    seat: int = Field(ge=0, le=3)


class OrderPlayers(Strict):
    """Riff Raff: the captain orders players who played the same card."""

    type: Literal["order_players"]
    order: list[int] = Field(min_length=2, max_length=4)


class Cargo(Strict):
    piece: Literal["boat", "barrel", "flacon", "box", "sailor", "plank", "rat", "chest"]
    position: float = Field(0.5, ge=0, le=1, description="across the area, left to right")
    orientation: float = Field(0, ge=0, le=360, description="degrees")


class LoadCargo(Strict):
    """Riff Raff: load one piece, or two (a declared double load) on areas 5-10 (RR-4)."""

    type: Literal["load"]
    pieces: list[Cargo] = Field(min_length=1, max_length=2)


class Catch(Strict):
    """Riff Raff (simulated): try to catch up to two fallen pieces (RR-5, RR-7)."""

    type: Literal["catch"]
    pieces: list[str] = Field(max_length=2)


class Report(Strict):
    """Riff Raff (tabletop): what fell and what was caught on the real ship."""

    type: Literal["report", "settle"]
    fell: list[str] = Field(default_factory=list, max_length=64)
    caught: list[str] = Field(default_factory=list, max_length=2)
    second_not_loaded: bool = False


class Review(Strict):
    """Riff Raff (tabletop): accept or dispute the active player's report."""

    type: Literal["accept", "dispute"]


class Timeout(Strict):
    """Any game with a turn timer: after the deadline, the engine plays the default move
    (AL-3). The bot runner sends it by itself; clients may too."""

    type: Literal["timeout"]


Command = Annotated[
    Play
    | ReturnApple
    | ChooseRobotPlay
    | Vote
    | CloseRound
    | ChooseCard
    | ChooseCaptain
    | OrderPlayers
    | LoadCargo
    | Catch
    | Report
    | Review
    | Timeout,
    Field(discriminator="type"),
]


class CommandIn(Strict):
    command: Command
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
    source: Literal["projection", "engine", "command"] = Field(
        description="where the view came from: the read models, the engine, or the answer "
        "to your own latest command"
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


DEFAULT_GAMES: tuple[GameName, ...] = ("giraffe-raffe",)


class CreateTournament(Strict):
    name: str = Field("", max_length=80)
    games: list[GameName] = Field(default_factory=lambda: list(DEFAULT_GAMES), min_length=1)
    format: Literal["round_robin", "swiss", "elimination", "duplicate"] = "swiss"
    table_size: int | None = Field(None, ge=2, le=8, description="default 2 (round robin), 3")
    rounds: int = Field(3, ge=1, le=50, description="swiss and duplicate")
    advance: int = Field(1, ge=1, le=7, description="elimination: the top N of each table")
    game_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description='per game, e.g. {"giraffe-raffe": {"turn_timer": 60}}'
    )

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"name": "Sunday Swiss", "games": ["giraffe-raffe"], "format": "swiss"},
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


class RegisterPlayer(Strict):
    name: str = Field(min_length=1, max_length=64)
    kind: Literal["human", "bot"] = "bot"
    bot_level: str = Field("", max_length=32)


class PlayerRegistered(BaseModel):
    player: int
    version: int
    token: str | None = Field(None, description="humans: the player's bearer token")
