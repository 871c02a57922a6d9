"""Giraffe Raffe's commands as clients send them: the one schema of each command, read by
the gateway (its request body and /docs) and checked against every bot move in the
tests. The rules check what only the state can tell (whose turn, which cards)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from services.kernel.commands import Strict, Timeout


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


Command = Annotated[
    Play | ReturnApple | ChooseRobotPlay | Timeout,
    Field(discriminator="type"),
]
