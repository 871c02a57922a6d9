"""Giraffometer options (GM-1, GM-2, GM-4, GM-5, AL-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from services.giraffometer import decks
from services.kernel.commands import seconds_option, timer_schema
from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec

DEFAULTS: dict[str, Any] = {
    "target": 7,
    "penalties": True,
    "deck": "default",
    "themes": None,
    "max_players": 8,
    "round_timer": None,
    "seal_deck": False,
}


def _int(raw: Mapping[str, Any], name: str, low: int, high: int) -> int:
    value = raw.get(name, DEFAULTS[name])
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"option {name} must be an integer {low}..{high}", "bad_option")
    return value


def validate(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> dict[str, Any]:
    unknown = sorted(set(raw) - set(DEFAULTS))
    if unknown:
        raise InvalidArgument(f"unknown option(s): {', '.join(unknown)}", "unknown_option")
    max_players = _int(raw, "max_players", 2, 30)
    if not 2 <= len(seats) <= max_players:
        raise InvalidArgument(
            f"Giraffometer is for 2 to {max_players} players (option max_players, up to 30)",
            "bad_seat_count",
        )
    penalties = raw.get("penalties", True)
    if penalties in ("on", "off"):
        penalties = penalties == "on"
    if not isinstance(penalties, bool):
        raise InvalidArgument("option penalties must be true/false or on/off", "bad_option")
    timer = seconds_option(raw, "round_timer")
    seal = raw.get("seal_deck", False)
    if not isinstance(seal, bool):
        raise InvalidArgument("option seal_deck must be true or false", "bad_option")
    out = {
        "target": _int(raw, "target", 1, 100),
        "penalties": penalties,
        "deck": _deck(raw.get("deck", "default"), raw.get("themes")),
        "themes": raw.get("themes"),
        "max_players": max_players,
        "round_timer": timer,
    }
    # A custom deck's answers stay out of the log even once the game is over (a
    # tournament's tables share its deck: GM-6). Recorded only when set.
    return {**out, "seal_deck": True} if seal else out


def _deck(deck: Any, themes: Any) -> Any:
    """ "default" (optionally only some themes) or a custom deck, validated (GM-2)."""
    if themes is not None and (
        not isinstance(themes, list) or not all(isinstance(t, str) for t in themes)
    ):
        raise InvalidArgument("option themes is a list of theme names", "bad_option")
    if deck == "default":
        pool = [f for f in decks.default_deck().values() if not themes or f.theme in themes]
        if len(pool) < decks.MIN_FACTS:
            raise InvalidArgument("those themes hold fewer than 6 facts", "bad_option")
        return "default"
    if isinstance(deck, dict):
        decks.validate(deck)
        return deck
    raise InvalidArgument(
        'option deck is "default" or a deck object (see deck.schema.json)', "bad_deck"
    )


def recorded(options: dict[str, Any]) -> dict[str, Any]:
    """GameCreated records a custom deck by name only: the deck gets an event of its own
    (DeckLoaded), whose answers stay hidden until the game ends."""
    deck = options["deck"]
    if isinstance(deck, dict):
        return {**options, "deck": {"custom": deck["name"], "facts": len(deck["facts"])}}
    return options


ALL = ["human", "open", "bot"]


@cache
def schema() -> dict[str, Any]:
    """For clients (GET /v1/game-types): see services/giraffe_raffe/options.py's SCHEMA.
    The themes are the shipped deck's."""
    themes = sorted({f.theme for f in decks.default_deck().values() if f.theme})
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "target": {
                "title": "Crystals to win",
                "type": "integer",
                "minimum": 1,
                "maximum": 100,
                "default": 7,
            },
            "penalties": {
                "title": "A vote on the opposite extreme loses a crystal",
                "type": "boolean",
                "default": True,
                "x-labels": {"true": "yes", "false": "no (for children)"},
            },
            "themes": {
                "title": "Themes of the shipped deck (none chosen: all)",
                "type": ["array", "null"],
                "items": {"enum": themes},
                "uniqueItems": True,
                "default": None,
            },
            "max_players": {
                "title": "Most players",
                "type": "integer",
                "minimum": 2,
                "maximum": 30,
                "default": 8,
            },
            "round_timer": timer_schema("Round timer (seconds)"),
            "deck": {
                "title": "Deck",
                "description": '"default", or a deck of your own (deck.schema.json)',
                "default": "default",
                "x-form": False,
            },
            "seal_deck": {
                "title": "Keep a custom deck's answers out of the log",
                "type": "boolean",
                "default": False,
                "x-form": False,
            },
        },
        # At most max_players seats (the option, default 8).
        "x-seats": {"default": {"min": 2, "max": 8, "max_option": "max_players", "kinds": ALL}},
    }
