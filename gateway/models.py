"""Request and response bodies. Request models forbid unknown fields; every command of
every game has its own model, so /docs lists them all with examples."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

GameName = Literal["giraffe-raffe", "giraffometer"]


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
    seed: str | None = Field(None, max_length=128, description="secret; drawn when absent")
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


Command = Annotated[
    Play | ReturnApple | ChooseRobotPlay | Vote | CloseRound, Field(discriminator="type")
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
    source: Literal["projection", "engine"]


class CommandResult(BaseModel):
    version: int
    position: int
    duplicate: bool
    events: list[dict[str, Any]]
    view: dict[str, Any]


class EventPage(BaseModel):
    version: int
    events: list[dict[str, Any]]
