"""What each seat sees of Pebbles: the pile, whose turn, its own lucky number."""

from __future__ import annotations

from typing import Any

from services.kernel.game import SPECTATOR, Event
from tests.games.pebbles.rules import status
from tests.games.pebbles.state import State


def view(state: State, seat: int, reveal: bool = False) -> dict[str, Any]:
    shown = reveal or state.over
    return {
        "pile": state.pile,
        "turn": state.turn,
        "lucky": [n if shown or s == seat else None for s, n in enumerate(state.lucky)],
        "status": status(state).to_json(),
    }


def redact(state: State, event: Event, seat: int) -> Event:
    if event.type == "LuckyNumbersDrawn" and not state.over:
        numbers = [n if s == seat else None for s, n in enumerate(event.data["numbers"])]
        return Event(event.type, {"numbers": numbers}, event.actor)
    return event


def legal_commands(state: State, seat: int) -> dict[str, Any]:
    """As every game answers: the seat, whether it must act, and its commands."""
    to_act = not state.over and seat == state.turn and seat != SPECTATOR
    counts = list(range(1, min(3, state.pile) + 1)) if to_act else []
    commands = [{"type": "play", "counts": counts}] if to_act else []
    return {"seat": seat, "to_act": to_act, "commands": commands}
