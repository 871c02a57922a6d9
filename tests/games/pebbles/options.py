"""Pebbles' options: the size of the pile."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from services.kernel.errors import InvalidArgument
from services.kernel.game import SeatSpec


def options(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> dict[str, Any]:
    if not 2 <= len(seats) <= 4:
        raise InvalidArgument("Pebbles is for 2 to 4 players", "bad_seats")
    if set(raw) - {"pile"}:
        raise InvalidArgument("the only option is pile", "bad_option")
    pile = raw.get("pile", 15)
    if isinstance(pile, bool) or not isinstance(pile, int) or not 5 <= pile <= 50:
        raise InvalidArgument("pile is 5..50", "bad_option")
    return {"pile": pile}
