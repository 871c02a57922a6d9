"""The record of a finished game, built from its stored events (docs/records.md).

Commands are grouped with the events they appended: a command's first event carries the
command as it was sent (StoredEvent.command), so the record holds each command, who sent
it and when, and its events exactly as stored (payload bytes unchanged), but for what the
game still seals once it is over (``sealed``: a duplicate tournament's shared deck)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import orjson

from services.core.codec import loads
from services.core.eventstore import StoredEvent
from services.core.gamestate import fold
from services.core.redaction import current_shapes, redact_stored
from services.kernel.game import SPECTATOR, Game

FORMAT = "raffe-record/1"
ENDED = "GameEnded"


def is_finished(stored: list[StoredEvent]) -> bool:
    return bool(stored) and stored[-1].type == ENDED


def record(
    game: Game[Any],
    stored: list[StoredEvent],
    names: Mapping[int, str] | None = None,
    bots: Collection[int] = (),
) -> dict[str, Any]:
    """The record of a finished game (``stored``: all its events, from the store); each
    seat with its player's name now and whether that player is a bot account."""
    state = fold(game, stored)
    stored = current_shapes(game, stored)  # every event in its type's current version
    shown = redact_stored(game, state, stored, SPECTATOR)
    created = loads(stored[0].payload)
    seats = [
        {"seat": i, **s, "player_name": (names or {}).get(i, ""), "bot_account": i in bots}
        for i, s in enumerate(created.get("seats", []))
    ]
    return {
        "format": FORMAT,
        "game_id": stored[0].game_id,
        "game": stored[0].game_type,
        "engine_version": stored[-1].engine_version,
        "created_ms": stored[0].time_ms,
        "ended_ms": stored[-1].time_ms,
        "seed": created.get("seed", ""),
        "options": created.get("options", {}),
        "seats": seats,
        "result": game.status(state).to_json(),
        "commands": _commands(stored, shown),
    }


def _commands(stored: list[StoredEvent], shown: list[StoredEvent]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for original, seen in zip(stored, shown, strict=True):
        if not out or original.command or original.command_id != out[-1]["command_id"]:
            said = loads(original.command) if original.command else {}
            out.append(
                {
                    "command_id": original.command_id,
                    "time_ms": original.time_ms,
                    "first_version": original.version,
                    **said,
                    "events": [],
                }
            )
        out[-1]["events"].append(_event(seen, sealed=seen.payload != original.payload))
    return out


def _event(e: StoredEvent, sealed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "version": e.version,
        "type": e.type,
        "schema_version": e.schema_version,
        "actor": e.actor,
        "data": orjson.Fragment(e.payload),  # the stored bytes, as they are
    }
    if sealed:
        out["sealed"] = True
    return out
