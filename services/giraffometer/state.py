"""The state of a Giraffometer game, rebuilt by folding events (rules.evolve)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.giraffometer.decks import Fact
from services.kernel.frozen import Replaceable

POSITIONS = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class Vote:
    lowest: int
    highest: int
    salt: str
    commitment: str


@dataclass(frozen=True)
class State(Replaceable):
    options: dict[str, Any] = field(default_factory=dict)
    seat_count: int = 0
    seed: str = ""
    seed_hash: str = ""
    practice: bool = False  # the creator chose the seed (AL-2): they know every deal
    facts: dict[str, Fact] = field(default_factory=dict)  # the game's deck, by fact id
    pile: tuple[str, ...] = ()  # fact ids, top first
    discard: tuple[str, ...] = ()
    round: int = 0
    table: tuple[str, ...] = ()  # the fact ids on positions 1-6
    deadline_ms: int = 0  # 0: no round timer
    votes: tuple[tuple[int, Vote], ...] = ()  # secret until the reveal (AL-1)
    scores: tuple[int, ...] = ()
    last_reveal: dict[str, Any] | None = None
    over: bool = False
    winners: tuple[int, ...] = ()

    def vote_of(self, seat: int) -> Vote | None:
        return next((v for s, v in self.votes if s == seat), None)

    @property
    def voted(self) -> list[int]:
        return sorted(s for s, _ in self.votes)
