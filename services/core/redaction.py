"""Events as a seat may see them while a game runs (DESIGN §6).

The seed is the engine's, not a game's: GameCreated carries it for the engine to derive
draws from, and it is hidden here for every game, until the game is over and the whole
log is public, but for what the game seals (``seal``: e.g. a tournament's shared deck,
which tables still playing hold). Everything else a game hides, its own ``redact``
hides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from services.core.codec import dumps, to_domain
from services.core.eventstore import StoredEvent
from services.kernel.events import EventTypes
from services.kernel.game import Event, Game
from services.kernel.spec import unsealed

S = TypeVar("S")


def current_shapes(game: Game[Any], stored: list[StoredEvent]) -> list[StoredEvent]:
    """``stored`` with every event of an older schema version upcast to the current one
    (the same list when none is: the usual case costs a lookup per event)."""
    types: EventTypes | None = getattr(game, "events", None)
    if types is None or not any(types.stale(s.type, s.schema_version) for s in stored):
        return stored
    out = []
    for s in stored:
        if types.stale(s.type, s.schema_version):
            e = types.upcast(to_domain(s))
            s = replace(s, payload=dumps(e.data), schema_version=e.schema_version)
        out.append(s)
    return out


def redact_event(game: Game[S], state: S, event: Event, seat: int) -> Event:
    if event.type == "GameCreated":
        data: dict[str, Any] = {k: v for k, v in event.data.items() if k != "seed"}
        return Event(event.type, data, event.actor)
    return game.redact(state, event, seat)


def nothing_hidden(game: Game[Any], stored: list[StoredEvent]) -> bool:
    """Whether no event of ``stored`` is of a type the game's redaction may change while
    it runs (EventTypes.hidden, when the game says; GameCreated's seed always is): a
    move's events usually, which every audience then sees as stored without the game
    being asked about each event and audience."""
    types: EventTypes | None = getattr(game, "events", None)
    hidden = types.hidden if types is not None else None
    if hidden is None:
        return False
    return not any(s.type in hidden or s.type == "GameCreated" for s in stored)


def redact_stored(
    game: Game[S],
    state: S,
    stored: list[StoredEvent],
    seat: int,
    domain: Sequence[Event] | None = None,
    over: bool | None = None,
) -> list[StoredEvent]:
    """Stored events as ``seat`` may see them, given the game's current ``state``: all
    of them, seed included, once the game is over. Shared by the engine (reads, command
    answers) and the gateway's live fan-out, so both show the same. ``domain``: the same
    events as the game emitted them (a command's own, at hand in the engine), which
    spares parsing the stored payloads back; ``over``: whether ``state``'s game is over,
    when the caller knows (the live fan-out asks once a move, not once an audience).
    Events stored in an older shape are shown in the current one (docs/events.md).
    When the seat may see every event as stored, the answer is ``stored`` itself (the
    live fan-out frames such a list once for every audience that gets it)."""
    if domain is None:
        stored = current_shapes(game, stored)
    if over is None:
        over = game.status(state).over
    if over and game.seal is unsealed:
        return stored
    if not over and nothing_hidden(game, stored):
        return stored
    typed = [to_domain(s) for s in stored] if domain is None else domain
    out = []
    hidden = False
    for s, event in zip(stored, typed, strict=True):
        seen = game.seal(state, event) if over else redact_event(game, state, event, seat)
        # Most events hide nothing (a game's redact returns them as they are): their
        # stored payload stands, without encoding it again.
        if seen is event:
            out.append(s)
        else:
            hidden = True
            out.append(replace(s, payload=dumps(seen.data)))
    return out if hidden else stored
