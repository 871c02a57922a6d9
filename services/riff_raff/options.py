"""Riff Raff's options: simulated or tabletop ship, first captain, turn timer (AL-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.commands import seat_schema, seconds_option, timer_schema
from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec
from services.riff_raff import ship as physics

MODES = ("simulated", "tabletop")


def validate(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> dict[str, Any]:
    unknown = sorted(set(raw) - {"mode", "captain", "turn_timer"})
    if unknown:
        raise InvalidArgument(f"unknown option(s): {', '.join(unknown)}", "unknown_option")
    if not 2 <= len(seats) <= 4:
        raise InvalidArgument("Riff Raff is for 2 to 4 players", "bad_seat_count")
    mode = raw.get("mode", "simulated")
    if mode not in MODES:
        raise InvalidArgument(f"option mode is one of {', '.join(MODES)}", "bad_option")
    captain = raw.get("captain")
    if captain is not None and (
        isinstance(captain, bool) or not isinstance(captain, int) or not 0 <= captain < len(seats)
    ):
        raise InvalidArgument(f"option captain is a seat 0..{len(seats) - 1}", "bad_option")
    if mode == "tabletop" and any(s.kind == "bot" for s in seats):
        raise InvalidArgument("bots play only the simulated ship", "bad_seat")
    timer = seconds_option(raw, "turn_timer")
    return {
        "mode": mode,
        "captain": captain,
        "turn_timer": timer,
        "physics": physics.PHYSICS_VERSION,
    }


# For clients (GET /v1/game-types): see services/giraffe_raffe/options.py's SCHEMA.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "mode": {
            "title": "Ship",
            "enum": list(MODES),
            "default": "simulated",
            "x-labels": {
                "simulated": "Simulated: the server's ship decides what falls",
                "tabletop": "Tabletop: a real ship; players report what fell (people only)",
            },
        },
        "captain": seat_schema("First captain"),
        "turn_timer": timer_schema("Turn timer (seconds)"),
    },
    "x-seats": {
        "default": {"min": 2, "max": 4, "kinds": ["human", "open", "bot"]},
        "mode": {"tabletop": {"min": 2, "max": 4, "kinds": ["human", "open"]}},
    },
}
