"""The table's options, offered and checked with every game's own: time banks and the
spectator delay."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.errors import InvalidArgument
from services.kernel.game import JSON, SeatSpec
from services.kernel.table.speed import SPEED_OPTIONS

TABLE_OPTIONS = (
    "bank_timer",
    "bank_increment",
    "spectator_delay_moves",
    "spectator_delay_s",
    *SPEED_OPTIONS,
)
# Spectators see a table this many moves late unless its options say otherwise, when a
# seat is a player's at creation (a rated game, a quick-play table: docs/fair-table.md).
DEFAULT_DELAY_MOVES = 2


# The table's options, offered with every game's own (a time bank only where the game
# has a default move).
TABLE_SCHEMA: dict[str, Any] = {
    "spectator_delay_moves": {
        "title": "Spectators see the game this many moves late",
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 50,
        "default": None,
        "description": "null: 2 when a seat is a player's (a rated game), else 0",
    },
    "spectator_delay_s": {
        "title": "Spectators see the game this many seconds late",
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 3600,
        "default": None,
    },
    "bank_timer": {
        "title": "Time bank per player (seconds)",
        "type": ["integer", "null"],
        "minimum": 10,
        "maximum": 7200,
        "default": None,
        "description": "each player's clock. When it runs out, a bot makes the move the "
        "player owes and the player stays; afterwards each move has only the seconds added "
        "per move, and with none added the bot makes every later move of that player (AL-3)",
        "x-when": {"speed": ["realtime"]},
    },
    "bank_increment": {
        "title": "Seconds added per move",
        "type": "integer",
        "minimum": 0,
        "maximum": 600,
        "default": 0,
        "x-when": {"speed": ["realtime"]},
    },
}


def delay_options(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> JSON:
    """The spectator delay options, recorded only when they delay anything."""
    moves, seconds = raw.get("spectator_delay_moves"), raw.get("spectator_delay_s")
    if moves is None and seconds is None and any(s.player for s in seats):
        moves = DEFAULT_DELAY_MOVES
    out: JSON = {}
    for name, value, most in (
        ("spectator_delay_moves", moves, 50),
        ("spectator_delay_s", seconds, 3600),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise InvalidArgument(f"option {name} is 0..{most}", "bad_option")
        if value:
            out[name] = value
    return out
