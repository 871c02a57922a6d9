"""Every game this build serves, by the name the event store records."""

from __future__ import annotations

from typing import Any

from services.core.game import Game
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.giraffometer.game import GAME as GIRAFFOMETER
from services.riff_raff.game import GAME as RIFF_RAFF

GAMES: dict[str, Game[Any]] = {g.name: g for g in (GIRAFFE_RAFFE, GIRAFFOMETER, RIFF_RAFF)}
