"""Which games the runners follow (DESIGN §3, the attended log).

The bot runner plays bot seats and enforces clocks; the tournament runner opens tables
and reports their results. A game that needs neither (humans only, no clock, no
tournament) is never read by them: its events go to the partition log alone, so under
human traffic the runners cost nothing. Decided once, when the game is created."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.kernel.commands import has_timer


def needs_runner(created: Mapping[str, Any]) -> bool:
    """From a GameCreated payload: a bot seat to play, or a clock to enforce."""
    seats = created.get("seats", [])
    return any(s.get("kind") == "bot" for s in seats) or has_timer(created.get("options", {}))


def attended(created: Mapping[str, Any], *, always: bool, asked: bool) -> bool:
    """``always``: every game of the kind (tournaments); ``asked``: the creator says so
    (the tournament runner, for its tables)."""
    return always or asked or needs_runner(created)
