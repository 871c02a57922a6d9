"""A tournament's state, folded from its events."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.kernel.frozen import Replaceable
from services.tournament.ratings import Rating


@dataclass(frozen=True)
class Player:
    name: str
    kind: str  # "human" | "bot"
    bot_level: str = ""
    removed: bool = False  # taken out by the organiser before the start
    account: str = ""  # the account whose tables these are (docs/bot-api.md)
    program: bool = False  # a bot account's

    @property
    def plays_as_bot(self) -> bool:
        """A bot level, or a program's account: what a ladder takes."""
        return self.kind == "bot" or self.program


@dataclass(frozen=True)
class Table(Replaceable):
    table: int
    game: str
    players: tuple[int, ...]
    keys: tuple[float, ...] | None = None  # the game's result, once it is over

    @property
    def finished(self) -> bool:
        return self.keys is not None


@dataclass(frozen=True)
class Round:
    round: int
    game: str
    tables: tuple[Table, ...]
    byes: tuple[int, ...]
    points: tuple[float, ...] = ()  # every player's points from this round, at its end


@dataclass(frozen=True)
class State(Replaceable):
    options: dict[str, Any] = field(default_factory=dict)
    seed: str = ""
    players: tuple[Player, ...] = ()
    started: bool = False
    rounds: tuple[Round, ...] = ()  # the current one last
    points: tuple[float, ...] = ()
    ratings: tuple[Rating, ...] = ()
    rating_history: tuple[tuple[Rating, ...], ...] = ()  # after each round
    alive: tuple[int, ...] = ()  # elimination: players still in
    over: bool = False
    champions: tuple[int, ...] = ()
    # The look-alike keys of the entrants' names (services.kernel.names): a registration
    # checks its name against a set, not every entrant's name again (O(n) a
    # registration made a thousand registrations quadratic: #28).
    taken: frozenset[str] = frozenset()

    @property
    def current(self) -> Round | None:
        return self.rounds[-1] if self.rounds else None


def entrants(state: State) -> list[int]:
    """The players who were not removed, by number."""
    return [i for i, p in enumerate(state.players) if not p.removed]
