"""The state of a game of Pebbles."""

from __future__ import annotations

from dataclasses import dataclass

from services.kernel.frozen import Replaceable


@dataclass(frozen=True)
class State(Replaceable):
    seat_count: int = 0
    seed: str = ""
    pile: int = 0
    lucky: tuple[int, ...] = ()  # secret until the game ends
    turn: int = -1
    over: bool = False
    winners: tuple[int, ...] = ()
