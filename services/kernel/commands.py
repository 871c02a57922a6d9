"""Checks every game makes of a command before its own rules: a known type, no unknown
fields. Shared so all games answer malformed commands with the same codes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from services.kernel.errors import InvalidArgument, RuleViolation


class Strict(BaseModel):
    """A command model: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class Timeout(Strict):
    """Any game with a turn timer: after the deadline, the bot of each seat out of time
    makes its move (AL-3, services.kernel.table.timeouts). The bot runner sends it by
    itself; clients may too."""

    type: Literal["timeout"]


def seconds_option(raw: Mapping[str, Any], name: str, low: int = 5, high: int = 3600) -> int | None:
    """A timer option: whole seconds in [low, high], or None for no timer (AL-3)."""
    value = raw.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidArgument(f"option {name} is {low}..{high} seconds or null", "bad_option")
    return value


def has_timer(options: Mapping[str, Any]) -> bool:
    """Whether recorded options switch a timer on: every game names its timer options
    ``*_timer`` (read by seconds_option), so the bot runner can skip untimed games."""
    return any(name.endswith("_timer") and value for name, value in options.items())


def deadline_passed(deadline_ms: int, now_ms: int, what: str) -> None:
    """A clock command (AL-3) is valid only once the deadline has passed."""
    if not deadline_ms:
        raise RuleViolation(f"this game has no {what} timer", f"no_{what}_timer")
    if now_ms < deadline_ms:
        left = (deadline_ms - now_ms + 999) // 1000
        raise RuleViolation(f"the {what} has {left} s left", f"{what}_still_open")


def check_timeout(over: bool, deadline_ms: int, now_ms: int) -> None:
    """The checks of a `timeout` command, the same in every game with a turn timer."""
    if over:
        raise RuleViolation("the game is over", "game_over")
    deadline_passed(deadline_ms, now_ms, "turn")


def timer_schema(title: str) -> dict[str, Any]:
    """The JSON Schema of a timer option (seconds_option), for a game's options schema."""
    return {
        "title": title,
        "type": ["integer", "null"],
        "minimum": 5,
        "maximum": 3600,
        "default": None,
        "description": "when it runs out, a bot makes that move for the player, who stays "
        "at the table (AL-3)",
    }


def seat_schema(title: str) -> dict[str, Any]:
    """The JSON Schema of an option naming a seat, or none (drawn from the seed)."""
    return {
        "title": title,
        "type": ["integer", "null"],
        "minimum": 0,
        "default": None,
        "x-seat": True,
        "x-labels": {"null": "drawn"},
    }
