"""The portable record's shape (docs/records.md), for clients and the API document."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class RecordedEvent(BaseModel):
    version: int
    type: str
    schema_version: int
    actor: int = Field(description="the seat whose command it follows; -1 the engine")
    data: dict[str, Any]
    sealed: bool = Field(False, description="hidden for good (its data is not the original)")


class RecordedCommand(BaseModel):
    command_id: str
    time_ms: int = Field(description="when the engine received it (the rules' clock)")
    first_version: int
    seat: int | None = Field(None, description="who sent it (-1 the engine: clocks)")
    command: dict[str, Any] | None = Field(None, description="as sent; absent in old games")
    stand_in: bool = Field(False, description="a bot's move for a player who left or is gone")
    create: dict[str, Any] | None = Field(None, description="the first: options, seats")
    events: list[RecordedEvent]


class RecordedSeat(BaseModel):
    seat: int
    kind: str
    name: str = ""
    bot_level: str = ""
    player: str | None = None
    player_name: str = ""
    bot_account: bool = Field(False, description="a program's account (docs/bot-api.md)")


class GameRecord(BaseModel):
    format: Literal["raffe-record/1"]
    game_id: str
    game: str
    engine_version: str
    created_ms: int
    ended_ms: int
    seed: str
    options: dict[str, Any]
    seats: list[RecordedSeat]
    result: dict[str, Any]
    commands: list[RecordedCommand]
