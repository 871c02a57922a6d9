"""What can happen in Pebbles."""

from __future__ import annotations

from typing import Any

from services.kernel.events import EventTypes, event


@event
class GameCreated:
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    seed_hash: str
    seed: str = ""
    practice: bool | None = None


@event
class LuckyNumbersDrawn:
    numbers: list[int]


@event
class TurnStarted:
    seat: int


@event
class PebblesTaken:
    seat: int
    count: int


@event
class GameEnded:
    winners: list[int]
    seed: str = ""


EVENTS = EventTypes(GameCreated, LuckyNumbersDrawn, TurnStarted, PebblesTaken, GameEnded)
