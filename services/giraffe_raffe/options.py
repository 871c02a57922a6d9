"""Game options (GR-2, GR-5, GR-10, GR-11) validated at creation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.commands import seat_schema, seconds_option, timer_schema
from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec

MODES = ("standard", "longer", "solo")
COUNT_RULES = ("more", "exactly_one_more")
ROBOT_TIES = ("player_chooses", "fixed_order")
DEFAULTS: dict[str, Any] = {
    "mode": "standard",
    "count_rule": "more",
    "robot_deck": 15,
    "robot_ties": "player_chooses",
    "dealer": None,
    "turn_timer": None,
}
MAX_ROBOT_DECK = 40  # 64 cards - your 15 - the Robot's 5 - Redraw pile 4


def _choice(raw: Mapping[str, Any], name: str, allowed: Sequence[str]) -> str:
    value = raw.get(name, DEFAULTS[name])
    if value not in allowed:
        raise InvalidArgument(
            f"option {name} must be one of {', '.join(allowed)}, not {value!r}", "bad_option"
        )
    return str(value)


def validate(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> dict[str, Any]:
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise InvalidArgument(f"unknown option(s): {', '.join(unknown)}", "unknown_option")
    mode = _choice(raw, "mode", MODES)
    players = len(seats)
    if mode == "solo" and players != 1:
        raise InvalidArgument("the solo game has exactly one seat", "bad_seat_count")
    if mode != "solo" and not 2 <= players <= 5:
        raise InvalidArgument("Giraffe Raffe is for 2 to 5 players", "bad_seat_count")
    robot_deck = raw.get("robot_deck", DEFAULTS["robot_deck"])
    if isinstance(robot_deck, bool) or not isinstance(robot_deck, int):
        raise InvalidArgument("option robot_deck must be an integer", "bad_option")
    if not 1 <= robot_deck <= MAX_ROBOT_DECK:
        raise InvalidArgument(f"option robot_deck must be 1..{MAX_ROBOT_DECK}", "bad_option")
    dealer = raw.get("dealer")
    if dealer is not None and (
        isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players
    ):
        raise InvalidArgument(f"option dealer must be a seat 0..{players - 1}", "bad_option")
    timer = seconds_option(raw, "turn_timer")
    return {
        "turn_timer": timer,
        "mode": mode,
        "count_rule": _choice(raw, "count_rule", COUNT_RULES),
        "robot_deck": robot_deck,
        "robot_ties": _choice(raw, "robot_ties", ROBOT_TIES),
        "dealer": dealer,
    }


ALL_KINDS = ["human", "open", "bot"]
# What a client needs to offer these options (GET /v1/game-types): a JSON Schema with a
# title per option and a label per value (x-labels), the options that only apply in some
# modes (x-when), and the seats a table takes (x-seats: "default", and by an option's
# value where it differs: {"mode": {"solo": ...}}; each: least, most, seat kinds).
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "mode": {
            "title": "Game",
            "enum": list(MODES),
            "default": "standard",
            "x-labels": {
                "standard": "Standard: one round, the first who cannot act loses",
                "longer": "Longer: rounds until someone has two rotten apples",
                "solo": "Solo: you against the Robot Giraffe",
            },
        },
        "count_rule": {
            "title": "Straight, Colour and Free trees take",
            "enum": list(COUNT_RULES),
            "default": "more",
            "x-labels": {
                "more": "more cards than the top play",
                "exactly_one_more": "exactly one card more than the top play",
            },
        },
        "robot_deck": {
            "title": "The Robot's deck (cards)",
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_ROBOT_DECK,
            "default": 15,
            "x-when": {"mode": ["solo"]},
        },
        "robot_ties": {
            "title": "When the Robot's plays differ only in colour",
            "enum": list(ROBOT_TIES),
            "default": "player_chooses",
            "x-labels": {
                "player_chooses": "you choose",
                "fixed_order": "it plays red, then blue, yellow, green",
            },
            "x-when": {"mode": ["solo"]},
        },
        "dealer": seat_schema("Dealer (plays first)"),
        "turn_timer": timer_schema("Turn timer (seconds)"),
    },
    "x-seats": {
        "default": {"min": 2, "max": 5, "kinds": ALL_KINDS},
        "mode": {"solo": {"min": 1, "max": 1, "kinds": ALL_KINDS}},
    },
}
