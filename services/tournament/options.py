"""A tournament's options, checked when it is created."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.games import GAMES
from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec
from services.kernel.names import clean_name
from services.kernel.spec import no_scoring

FORMATS = ("round_robin", "swiss", "elimination", "duplicate", "ladder")
MAX_PLAYERS = 1024
# A bot ladder (docs/bots.md) plays a deal a round, and wants thousands of them.
MOST_ROUNDS = {"ladder": 5000}


def options(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> dict[str, Any]:
    if len(seats) != 1:
        raise InvalidArgument("a tournament has one seat: its organiser", "bad_seats")
    known = {
        *("name", "games", "format", "table_size", "rounds", "advance", "game_options"),
        "open_registration",
        "max_players",
        "bots_allowed",
    }
    extra = sorted(set(raw) - known)
    if extra:
        raise InvalidArgument(f"unknown option(s): {', '.join(extra)}", "bad_option")
    games = _games(raw.get("games", ["giraffe-raffe"]))
    fmt = raw.get("format", "swiss")
    if fmt not in FORMATS:
        raise InvalidArgument(f"format is one of {', '.join(FORMATS)}", "bad_option")
    size = _table_size(raw.get("table_size", 2 if fmt == "round_robin" else 3), games, fmt)
    return {
        "name": _name(raw.get("name", "")),
        "games": games,
        "format": fmt,
        "table_size": size,
        "rounds": _int(raw, "rounds", 3, 1, MOST_ROUNDS.get(fmt, 50)),
        "advance": _int(raw, "advance", 1, 1, size - 1),
        "game_options": _game_options(raw.get("game_options", {}), games),
        # Anyone may join as a human (the gateway's POST .../join) until the start.
        "open_registration": _flag(raw, "open_registration"),
        # Registration (by the organiser or by joining) stops at this many entrants.
        "max_players": _int(raw, "max_players", MAX_PLAYERS, 2, MAX_PLAYERS),
        # Bot accounts (programs, docs/bot-api.md) may enter; a ladder takes them anyway.
        # Kept only when on: tournaments made before it read the same.
        **({"bots_allowed": True} if _flag(raw, "bots_allowed") else {}),
    }


def _games(raw: Any) -> list[str]:
    if isinstance(raw, str):
        raw = [raw]
    if (
        not isinstance(raw, list)
        or not 1 <= len(raw) <= 10
        or any(g not in GAMES or GAMES[g].result_keys is no_scoring for g in raw)
    ):
        names = ", ".join(GAMES)
        raise InvalidArgument(f"games is a list of 1-10 of {names}", "bad_option")
    return list(raw)


def _table_size(raw: Any, games: list[str], fmt: str) -> int:
    if fmt == "round_robin" and raw != 2:
        raise InvalidArgument("round robin is for two-player tables", "bad_option")
    low = max(GAMES[g].players[0] for g in games)
    high = min(GAMES[g].players[1] for g in games)
    if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
        raise InvalidArgument(f"table_size is {low}..{high} for these games", "bad_option")
    return raw


def _int(raw: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = raw.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"{name} is {low}..{high}", "bad_option")
    return value


def _flag(raw: Mapping[str, Any], name: str) -> bool:
    value = raw.get(name, False)
    if not isinstance(value, bool):
        raise InvalidArgument(f"{name} is true or false", "bad_option")
    return value


def _name(raw: Any) -> str:
    """The tournament's name: empty, or plain text (services.kernel.names)."""
    if not isinstance(raw, str) or len(raw) > 80:
        raise InvalidArgument("name is a string of at most 80 characters", "bad_option")
    return clean_name(raw, 80) if raw.strip() else ""


def _game_options(raw: Any, games: list[str]) -> dict[str, dict[str, Any]]:
    """Options passed to every game of that kind (checked by its engine when created)."""
    if not isinstance(raw, dict) or any(
        g not in games or not isinstance(o, dict) for g, o in raw.items()
    ):
        raise InvalidArgument("game_options maps a game of games to its options", "bad_option")
    for g, o in raw.items():  # checked now, so no round can fail to create its games
        GAMES[g].options(o, [SeatSpec("bot")] * GAMES[g].players[0])
    return {g: dict(o) for g, o in raw.items()}


def public_game_options(game_options: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each game's options as its own GameCreated records them: a custom Giraffometer
    deck by its name, without the answers (the tables are still to play it)."""
    out = {}
    for g, o in game_options.items():
        full = GAMES[g].options(o, [SeatSpec("bot")] * GAMES[g].players[0])
        recorded = GAMES[g].recorded_options(full)
        out[g] = {k: recorded[k] for k in o}  # only what the organiser set
    return out


def recorded(options: dict[str, Any]) -> dict[str, Any]:
    """GameCreated holds the public game options; the full ones, when they differ, go
    to a GameOptionsSet event that redaction hides until the tournament is over."""
    return {**options, "game_options": public_game_options(options["game_options"])}
