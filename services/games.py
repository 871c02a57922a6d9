"""Every game this build serves: the only list (DESIGN §2).

A game is a package whose ``game.py`` declares ``GAME`` (a services.kernel.spec.GameSpec);
adding one is its package plus one line below. RAFFE_EXTRA_GAMES (comma-separated
packages) registers more without editing this file, e.g. a game of one's own, or the
test-only game of tests/games.
"""

from __future__ import annotations

import importlib
import os
from typing import Annotated, Any, get_args, get_origin

from services.kernel.spec import GameSpec
from services.kernel.table import seated

PACKAGES = [
    "services.giraffe_raffe",
    "services.giraffometer",
    "services.riff_raff",
]


def packages() -> list[str]:
    extra = os.environ.get("RAFFE_EXTRA_GAMES", "")
    return PACKAGES + [p.strip() for p in extra.split(",") if p.strip()]


def _load(package: str) -> GameSpec[Any]:
    game = importlib.import_module(package + ".game").GAME
    if not isinstance(game, GameSpec):
        raise TypeError(f"{package}.game.GAME is not a GameSpec")
    return game


# Each at a table (services.kernel.table): leaving, stand-in bots, time banks, for all.
GAMES: dict[str, GameSpec[Any]] = {g.name: seated(g) for g in map(_load, packages())}


def command_models(games: list[GameSpec[Any]] | None = None) -> list[type]:
    """Every game's command models, each once (the gateway's request schema)."""
    models: list[type] = []
    for game in GAMES.values() if games is None else games:
        for model in _members(game.commands):
            if model not in models:
                models.append(model)
    return models


def _members(commands: object) -> list[type]:
    """The models of ``Annotated[A | B, ...]``, ``A | B`` or a lone model."""
    if commands is None:
        return []
    if get_origin(commands) is Annotated:
        return _members(get_args(commands)[0])
    if isinstance(commands, type):
        return [commands]
    return [m for member in get_args(commands) for m in _members(member)]
