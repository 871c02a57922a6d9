"""What every game's ``decide`` builds its events with: emit a typed event, and the
state folds at once, so the next step sees the state as it will be after replay."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from services.kernel.events import Folds, stored
from services.kernel.game import ENGINE, Decision, Event

S = TypeVar("S")


@dataclass
class Flow(Generic[S]):
    state: S
    folds: Folds[S]
    actor: int = ENGINE
    now_ms: int = 0  # the command's clock: deadlines count from it (AL-3)
    events: list[Event] = field(default_factory=list)
    # A game's last touch on each event before it is kept (Riff Raff stamps deadlines).
    stamp: Callable[[Flow[S], Any], Any] | None = None

    def emit(self, typed: Any) -> None:
        if self.stamp is not None:
            typed = self.stamp(self, typed)
        self.events.append(stored(typed, self.actor))
        self.state = self.folds.apply(self.state, typed)

    def decision(self) -> Decision[S]:
        """What ``decide`` hands back: the events emitted and the state they folded to."""
        return Decision(self.events, self.state)
