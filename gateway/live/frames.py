"""The frames of a live stream (Server-Sent Events), encoded once and sent to every
viewer of an audience: an event, a view, a heartbeat, the last frame of a draining
gateway."""

from __future__ import annotations

import random
from typing import Any

import orjson

from services.core.eventstore import StoredEvent
from services.kernel.game import Game


def frame(e: StoredEvent) -> bytes:
    """An event as an SSE frame: id = version, event = type, data = the event's JSON."""
    body = {
        "id": e.id,
        "game_id": e.game_id,
        "version": e.version,
        "type": e.type,
        "schema_version": e.schema_version,
        "data": orjson.Fragment(e.payload),
        "actor": e.actor,
        "command_id": e.command_id,
        "time_ms": e.time_ms,
        "engine_version": e.engine_version,
    }
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (e.version, e.type.encode(), orjson.dumps(body))


PING = b": ping\n\n"  # a comment: keeps proxies from closing an idle stream


def drained() -> bytes:
    """The last frame of a stream this gateway ends as it stops: reconnect (an
    EventSource sends Last-Event-ID, so the stream resumes on another replica, losing
    none) after 250-1000 ms, spread so a gateway's thousands of streams do not all land
    on the others in the same millisecond, yet most players wait less than a second."""
    return b": this gateway is stopping; reconnect\nretry: %d\n\n" % random.randint(250, 1000)


def view_frame(game_id: str, game: Game[Any], state: Any, version: int, seat: int) -> bytes:
    """A ``view`` frame: what ``seat`` sees at ``version`` and its legal commands (None
    for spectators). No ``id:`` line: a reconnect resumes after the last event."""
    commands = {"version": version, **game.legal_commands(state, seat)} if seat >= 0 else None
    body = {
        "game_id": game_id,
        "version": version,
        "seat": seat,
        "view": game.view(state, seat),
        "commands": commands,
    }
    return b"event: view\ndata: %s\n\n" % orjson.dumps(body)
