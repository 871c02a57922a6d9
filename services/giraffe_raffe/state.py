"""The state of a Giraffe Raffe game: frozen, rebuilt by folding events (rules.evolve)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.giraffe_raffe.trees import Play, Tree
from services.kernel.frozen import Replaceable, set_at

APPLES = 16  # GR-2
NO_ONE = -1


@dataclass(frozen=True, slots=True)
class RobotTie:
    """A Robot play waiting for the player to pick among options differing in colour."""

    tree: str
    options: tuple[Play, ...]


@dataclass(frozen=True)
class State(Replaceable):
    options: dict[str, Any] = field(default_factory=dict)
    seat_count: int = 0  # human seats; the Robot of a solo game is one more player
    seed: str = ""
    seed_hash: str = ""
    practice: bool = False  # the creator chose the seed (AL-2): they know every deal
    round: int = 0
    dealer: int = NO_ONE
    turn: int = NO_ONE
    hands: tuple[tuple[str, ...], ...] = ()
    apples: tuple[int, ...] = ()
    rotten: tuple[int, ...] = ()
    supply: int = APPLES
    redraw: tuple[str, ...] = ()  # top first
    out: tuple[str, ...] = ()  # out of this game or round
    robot_deck: tuple[str, ...] = ()  # top first
    trees: tuple[Tree, ...] = ()
    robot_tie: RobotTie | None = None
    over: bool = False
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()
    deadline_ms: int = 0  # the current turn's deadline when the game has a turn timer

    @property
    def mode(self) -> str:
        return str(self.options.get("mode", "standard"))

    @property
    def solo(self) -> bool:
        return self.mode == "solo"

    @property
    def robot(self) -> int:
        """The Robot's player index in a solo game (NO_ONE otherwise)."""
        return 1 if self.solo else NO_ONE

    @property
    def players(self) -> int:
        """Players at the table, the Robot included."""
        return len(self.hands)

    def tree(self, tree_id: str) -> Tree | None:
        return next((t for t in self.trees if t.id == tree_id), None)

    def with_hand(self, player: int, hand: tuple[str, ...]) -> State:
        return self.but(hands=set_at(self.hands, player, hand))
