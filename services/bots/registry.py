"""The bots of every game, by level, and the default level of each game."""

from __future__ import annotations

from typing import Any

from services.giraffe_raffe.bots import BOTS as GIRAFFE_RAFFE_BOTS
from services.giraffometer.bots import BOTS as GIRAFFOMETER_BOTS

BOTS: dict[str, dict[str, Any]] = {
    "giraffe-raffe": GIRAFFE_RAFFE_BOTS,
    "giraffometer": GIRAFFOMETER_BOTS,
}
DEFAULT_LEVEL = {"giraffe-raffe": "heuristic", "giraffometer": "normal"}


def bot_for(game: str, level: str) -> Any:
    levels = BOTS[game]
    return levels.get(level or DEFAULT_LEVEL[game], levels[DEFAULT_LEVEL[game]])
