"""Riff Raff's commands as clients send them: the one schema of each command, read by
the gateway (its request body and /docs) and checked against every bot move in the
tests. The rules check what only the state can tell (whose turn, which cards)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from services.kernel.commands import Strict, Timeout


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


Command = Annotated[
    ChooseCard | ChooseCaptain | OrderPlayers | LoadCargo | Catch | Report | Review | Timeout,
    Field(discriminator="type"),
]
