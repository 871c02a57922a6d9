"""Events as a seat may see them while a game runs (DESIGN §6).

The seed is the engine's, not a game's: GameCreated carries it for the engine to derive
draws from, and it is hidden here for every game, until the game is over and the whole
log is public. Everything else a game hides, its own ``redact`` hides."""

from __future__ import annotations

from typing import Any, TypeVar

from services.core.game import Event, Game

S = TypeVar("S")


def redact_event(game: Game[S], state: S, event: Event, seat: int) -> Event:
    if event.type == "GameCreated":
        data: dict[str, Any] = {k: v for k, v in event.data.items() if k != "seed"}
        return Event(event.type, data, event.actor)
    return game.redact(state, event, seat)
