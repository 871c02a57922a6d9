"""A player's vacation in Redis (docs/turn-based.md): ``<prefix>:vacation:<player>`` holds
the days used per calendar year and ``until`` (Unix ms). The gateway sets it and stops the
clocks of the player's turn-based games; whoever seats the player at a new turn-based game
(the gateway's create and seat claim, the quick-play matchmaker) stops that game's clock
too, so a game joined during a vacation waits like the others."""

from __future__ import annotations

import logging
import time
from typing import Any

from services.kernel.errors import RaffeError
from services.kernel.game import ENGINE

log = logging.getLogger(__name__)


def vacation_key(prefix: str, player_id: str) -> str:
    return f"{prefix}:vacation:{player_id}"


async def away_until(redis: Any, prefix: str, player_id: str) -> int:
    """When the player's vacation ends (Unix ms); 0 when they are not on one."""
    until = int(await redis.hget(vacation_key(prefix, player_id), "until") or 0)
    return until if until > time.time() * 1000 else 0


async def vacation_at(engine: Any, game_id: str, seat: int, player_id: str, until_ms: int) -> bool:
    """Tell one table that the seat's player is away until ``until_ms`` (a past time: back
    now); False when the game ended meanwhile."""
    command = {"type": "vacation", "seat": seat, "until_ms": until_ms}
    try:
        await engine.execute(game_id, ENGINE, command, f"vacation:{player_id}:{until_ms}")
    except RaffeError as error:
        log.info("vacation not set", extra={"game_id": game_id, "error": str(error)})
        return False
    return True


async def seated_on_vacation(
    redis: Any, prefix: str, engine: Any, game_id: str, seats: dict[int, str]
) -> None:
    """A new turn-based game's seated players (seat -> player) who are on vacation: its
    clock waits for them as their other games' do."""
    for seat, player_id in seats.items():
        until = await away_until(redis, prefix, player_id)
        if until:
            await vacation_at(engine, game_id, seat, player_id, until)
