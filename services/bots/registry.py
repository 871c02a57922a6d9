"""The bots of every game, by level, and the default level of each game."""

from __future__ import annotations

from typing import Any

from services.giraffe_raffe.bots import BOTS as GIRAFFE_RAFFE_BOTS
from services.giraffometer.bots import BOTS as GIRAFFOMETER_BOTS
from services.riff_raff.bots import BOTS as RIFF_RAFF_BOTS

BOTS: dict[str, dict[str, Any]] = {
    "giraffe-raffe": GIRAFFE_RAFFE_BOTS,
    "giraffometer": GIRAFFOMETER_BOTS,
    "riff-raff": RIFF_RAFF_BOTS,
}
DEFAULT_LEVEL = {"giraffe-raffe": "heuristic", "giraffometer": "normal", "riff-raff": "careful"}


def bot_for(game: str, level: str) -> Any:
    levels = BOTS[game]
    return levels.get(level or DEFAULT_LEVEL[game], levels[DEFAULT_LEVEL[game]])
