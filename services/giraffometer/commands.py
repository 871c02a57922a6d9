"""Giraffometer's commands as clients send them: the one schema of each command, read by
the gateway (its request body and /docs) and checked against every bot move in the
tests. The rules check what only the state can tell (whose turn, which cards)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from services.kernel.commands import Strict


class Vote(Strict):
    """Giraffometer: one vote for the lowest and one for the highest fact (GM-3)."""

    type: Literal["vote"]
    lowest: int = Field(ge=1, le=6)
    highest: int = Field(ge=1, le=6)


class CloseRound(Strict):
    """Giraffometer: reveal with the votes that are in, once the round timer ran out."""

    type: Literal["close_round"]


Command = Annotated[
    Vote | CloseRound,
    Field(discriminator="type"),
]
