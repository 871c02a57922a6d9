"""What a player of Pebbles can send."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from services.kernel.commands import Strict


class Take(Strict):
    """Pebbles: take one to three pebbles from the pile. Its type is "play", as Giraffe
    Raffe's is: each game's commands are its own (the gateway no longer validates every
    game's commands against one union, where two games could not share a name)."""

    type: Literal["play"]
    count: int = Field(ge=1, le=3)


Command = Take  # a game of one command; more would be Annotated[A | B, discriminator]
