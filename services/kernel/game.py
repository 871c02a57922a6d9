"""The shape every game module has (DESIGN §2): pure functions over frozen state.

A game module exposes a ``GAME`` object satisfying ``Game``. The engine runtime is the
only caller; it adds I/O (the event store), the clock and the seeded generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from services.kernel.rng import SeededRng

ENGINE = -1  # actor of events the engine produced itself
SPECTATOR = -1  # viewer that is no seat

S = TypeVar("S")
JSON = dict[str, Any]


@dataclass(frozen=True)
class Event:
    """A domain event: past-tense type and a JSON-serialisable payload, in the shape of
    its type's ``schema_version`` (docs/events.md: older shapes are upcast when read)."""

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    actor: int = ENGINE
    schema_version: int = 1


@dataclass(frozen=True)
class Decision(Generic[S]):
    """What ``decide`` hands back: the command's events and the state after them, folded
    as they were emitted (services.kernel.flow), so no caller folds them a second time."""

    events: list[Event]
    state: S


@dataclass(frozen=True)
class SeatSpec:
    kind: str  # "human" | "bot" | "open"
    name: str = ""
    bot_level: str = ""
    player: str = ""  # the player (account id) holding the seat; their name is not here

    def record(self) -> dict[str, str]:
        """The seat as GameCreated records it (no empty player: older logs have none)."""
        out = {"kind": self.kind, "name": self.name, "bot_level": self.bot_level}
        return {**out, "player": self.player} if self.player else out


@dataclass(frozen=True)
class Status:
    """Who must act now, and the outcome once the game is over."""

    to_act: tuple[int, ...]
    over: bool = False
    winners: tuple[int, ...] = ()
    losers: tuple[int, ...] = ()
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "to_act": list(self.to_act),
            "over": self.over,
            "winners": list(self.winners),
            "losers": list(self.losers),
            **dict(self.detail),
        }


class Game(Protocol[S]):
    @property
    def name(self) -> str:
        """E.g. "giraffe-raffe": the game type in the event store."""
        ...

    @property
    def engine_version(self) -> str: ...

    @property
    def always_attended(self) -> bool:
        """Whether runners follow every game of this kind, whatever its seats and clock
        (services.core.attention)."""
        ...

    def options(self, raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> JSON:
        """Validated options with defaults filled in; raises InvalidArgument."""
        ...

    def initial(self) -> S:
        """The state before any event."""
        ...

    def recorded_options(self, options: JSON) -> JSON:
        """The options as GameCreated records them (a game may keep bulky or secret parts
        out, and record them in events of its own from ``setup``)."""
        ...

    def setup(self, state: S, options: JSON, rng: SeededRng, now_ms: int) -> list[Event]:
        """Opening events, given the state after GameCreated: the deal, the first turn."""
        ...

    def command(self, raw: Mapping[str, Any]) -> Any:
        """The typed command of a client's JSON (the game's commands.py); raises
        InvalidArgument."""
        ...

    def decide(
        self, state: S, seat: int, command: Any, rng: SeededRng, now_ms: int = 0
    ) -> Decision[S]:
        """Events for a command, including what follows by itself, and the state after
        them; raises RuleViolation. ``now_ms`` is the command's clock: time enters as
        data, so decide stays pure."""
        ...

    def evolve(self, state: S, event: Event) -> S:
        """The state after an event: total, no validation, no randomness."""
        ...

    def view(self, state: S, seat: int, reveal: bool = False) -> JSON:
        """What ``seat`` (or SPECTATOR) may see; everything when the game is over or
        ``reveal`` is set (replays of finished games)."""
        ...

    def legal_commands(self, state: S, seat: int) -> JSON:
        """Every legal command of ``seat``, in the game's compact form."""
        ...

    def status(self, state: S) -> Status: ...

    def redact(self, state: S, event: Event, seat: int) -> Event:
        """``event`` as ``seat`` may see it while the game is running."""
        ...

    def seal(self, state: S, event: Event) -> Event:
        """``event`` as anyone may see it once the game is over (most games: as it is)."""
        ...
