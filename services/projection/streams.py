"""Every kind of stream the projection folds into read models: the games, and
tournaments (their views carry the standings and ratings)."""

from __future__ import annotations

from typing import Any

from services.games import GAMES
from services.kernel.game import Game
from services.tournament.game import GAME as TOURNAMENT

STREAMS: dict[str, Game[Any]] = {**GAMES, TOURNAMENT.name: TOURNAMENT}
