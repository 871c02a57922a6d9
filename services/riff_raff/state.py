"""The state of a Riff Raff game, rebuilt by folding events (evolve.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.kernel.frozen import Replaceable
from services.riff_raff.ship import Placed, area_at

NO_ONE = -1
CARDS = tuple(range(1, 11))


@dataclass(frozen=True)
class Choice:
    card: int
    salt: str
    commitment: str


@dataclass(frozen=True)
class Turn:
    """The active player's turn in progress."""

    seat: int
    area: int
    loaded: tuple[str, ...] = ()  # pieces loaded this turn, in order
    double: bool = False
    fallen: tuple[tuple[str, float], ...] = ()  # (piece, fall height) awaiting the catch
    report: dict[str, Any] | None = None  # tabletop: the active player's report
    accepted: tuple[int, ...] = ()  # tabletop: who accepted the report
    disputed: bool = False


@dataclass(frozen=True)
class State(Replaceable):
    options: dict[str, Any] = field(default_factory=dict)
    seat_count: int = 0
    seed: str = ""
    seed_hash: str = ""
    practice: bool = False  # the creator chose the seed (AL-2): they know every deal
    hands: tuple[tuple[int, ...], ...] = ()
    played: tuple[tuple[int, ...], ...] = ()  # revealed cards, oldest first
    passes: int = 1  # 2 players: the cards come back once (RR-6)
    round: int = 0
    choices: tuple[tuple[int, Choice], ...] = ()  # secret until all chose (AL-1)
    revealed: dict[int, int] = field(default_factory=dict)  # this round's cards
    captain: int = NO_ONE
    pending: dict[str, Any] | None = None  # a decision the rulebook gives to a player
    order: tuple[int, ...] = ()
    turn_index: int = 0
    turn: Turn | None = None
    supplies: tuple[tuple[str, ...], ...] = ()
    removed: tuple[str, ...] = ()
    tilt: float = 0.0
    ship: tuple[Placed, ...] = ()  # simulated mode: every piece with its place
    aboard: tuple[str, ...] = ()  # tabletop mode: which pieces are on the ship
    # tabletop mode: the area each piece aboard was loaded into (RR-4 asks which areas
    # held a piece before the turn; the server knows it in both modes)
    aboard_areas: tuple[tuple[str, int], ...] = ()
    over: bool = False
    winners: tuple[int, ...] = ()
    deadline_ms: int = 0  # when whoever must act runs out of time (turn timer, AL-3)

    @property
    def simulated(self) -> bool:
        return bool(self.options.get("mode", "simulated") == "simulated")

    def choice_of(self, seat: int) -> Choice | None:
        return next((c for s, c in self.choices if s == seat), None)

    def on_board(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.ship) if self.simulated else self.aboard

    def area_held_piece(self, area: int) -> bool:
        """Whether a piece lies in ``area`` (asked before a turn's loads, RR-4)."""
        if self.simulated:
            return any(physics_area(p) == area for p in self.ship)
        return any(a == area for _, a in self.aboard_areas)


def physics_area(p: Placed) -> int:
    return area_at(p.surface, p.x)
