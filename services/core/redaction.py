"""Events as a seat may see them while a game runs (DESIGN §6).

The seed is the engine's, not a game's: GameCreated carries it for the engine to derive
draws from, and it is hidden here for every game, until the game is over and the whole
log is public, but for what the game seals (``seal``: e.g. a tournament's shared deck,
which tables still playing hold). Everything else a game hides, its own ``redact``
hides."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from services.core.codec import to_domain, to_new
from services.core.eventstore import StoredEvent
from services.kernel.game import Event, Game
from services.kernel.spec import unsealed

S = TypeVar("S")


def redact_event(game: Game[S], state: S, event: Event, seat: int) -> Event:
    if event.type == "GameCreated":
        data: dict[str, Any] = {k: v for k, v in event.data.items() if k != "seed"}
        return Event(event.type, data, event.actor)
    return game.redact(state, event, seat)


def redact_stored(
    game: Game[S], state: S, stored: list[StoredEvent], seat: int
) -> list[StoredEvent]:
    """Stored events as ``seat`` may see them, given the game's current ``state``: all
    of them, seed included, once the game is over. Shared by the engine (reads, command
    answers) and the gateway's live fan-out, so both show the same."""
    over = game.status(state).over
    if over and game.seal is unsealed:
        return stored
    out = []
    for s in stored:
        domain = to_domain(s)
        event = game.seal(state, domain) if over else redact_event(game, state, domain, seat)
        # Most events hide nothing (a game's redact returns them as they are): their
        # stored payload stands, without encoding it again.
        out.append(s if event is domain else replace(s, payload=to_new(event).payload))
    return out
