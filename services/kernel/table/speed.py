"""A table's speed: real time (everyone at the table now; presence decides who is gone)
or turn-based (games over days; each seat's time bank decides, never its presence).

A turn-based table runs the same time banks as a real-time one, in days: a pace sets the
bank, what each move adds and the most a bank may hold (``bank_max``), so "1 day per
move" is a bank of a day refilled to a day by each move. When a turn-based bank runs out,
the table's ``on_time_out`` rule decides: the seat's bot plays the turn it owes and the
player stays (``bot_moves``, the default), or a bot takes the seat for the rest of the
game (``take_over``). Either way the move log says that time ran out, and the game never
stalls (docs/turn-based.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.kernel.errors import InvalidArgument
from services.kernel.game import JSON

DAY_S = 86_400
MAX_BANK_DAYS = 14
MAX_INCREMENT_DAYS = 3
# pace -> (bank, added per move, most a bank holds), in days.
PACES: dict[str, tuple[int, int, int]] = {
    "1_day": (1, 1, 1),
    "3_days": (3, 3, 3),
    "weekend": (7, 1, 7),
}
ON_TIME_OUT = ("bot_moves", "take_over")
SPEED_OPTIONS = ("speed", "pace", "bank_days", "increment_days", "on_time_out", "bank_max")

_TURN_BASED = {"speed": ["turn_based"]}
SPEED_SCHEMA: dict[str, Any] = {
    "speed": {
        "title": "Speed",
        "type": "string",
        "enum": ["realtime", "turn_based"],
        "default": "realtime",
        "x-labels": {
            "realtime": "Real time: everyone plays now",
            "turn_based": "Turn-based: play over days, when you can",
        },
    },
    "pace": {
        "title": "Time per move",
        "type": "string",
        "enum": [*PACES, "custom"],
        "default": "1_day",
        "x-labels": {
            "1_day": "1 day per move",
            "3_days": "3 days per move",
            "weekend": "Weekend: a 7-day bank, a day more each move",
            "custom": "My own bank and days per move",
        },
        "x-when": _TURN_BASED,
    },
    "bank_days": {
        "title": "Time bank per player (days)",
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_BANK_DAYS,
        "default": 3,
        "x-when": {**_TURN_BASED, "pace": ["custom"]},
    },
    "increment_days": {
        "title": "Days added per move (a bank never holds more than it started with)",
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_INCREMENT_DAYS,
        "default": 1,
        "x-when": {**_TURN_BASED, "pace": ["custom"]},
    },
    "on_time_out": {
        "title": "When a player's time runs out",
        "type": "string",
        "enum": list(ON_TIME_OUT),
        "default": "bot_moves",
        "x-labels": {
            "bot_moves": "A bot plays that turn; the player stays",
            "take_over": "A bot takes the seat for the rest of the game",
        },
        "x-when": _TURN_BASED,
    },
}


def turn_based_options(raw: Mapping[str, Any], game_options: Mapping[str, Any]) -> JSON:
    """The recorded options of a turn-based table, from a client's: its pace as a bank in
    seconds (``bank_timer``, ``bank_increment``, ``bank_max``) and its rule at time out."""
    timers = sorted(k for k, v in game_options.items() if k.endswith("_timer") and v)
    if timers:
        raise InvalidArgument(
            f"a turn-based table's clock is its time bank: no {timers[0]}", "bad_option"
        )
    pace = raw.get("pace", "1_day")
    if pace == "custom":
        bank = _days(raw, "bank_days", 1, MAX_BANK_DAYS, 3)
        days = (bank, _days(raw, "increment_days", 0, MAX_INCREMENT_DAYS, 1), bank)
    elif isinstance(pace, str) and pace in PACES:
        days = PACES[pace]
    else:
        paces = ", ".join([*PACES, "custom"])
        raise InvalidArgument(f"option pace is one of {paces}", "bad_option")
    rule = raw.get("on_time_out", "bot_moves")
    if rule not in ON_TIME_OUT:
        raise InvalidArgument("option on_time_out is bot_moves or take_over", "bad_option")
    bank, increment, most = (d * DAY_S for d in days)
    return {
        "speed": "turn_based",
        "pace": pace,
        "bank_timer": bank,
        "bank_increment": increment,
        "bank_max": most,
        "on_time_out": rule,
    }


def _days(raw: Mapping[str, Any], name: str, low: int, high: int, default: int) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"option {name} is {low}..{high} days", "bad_option")
    return value
