"""A game module's pure functions gathered into the object the runtime calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def unchanged(options: dict[str, Any]) -> dict[str, Any]:
    return options


@dataclass(frozen=True)
class GameAdapter:
    """Satisfies services.core.game.Game from plain functions (DESIGN §2)."""

    name: str
    engine_version: str
    options: Callable[..., dict[str, Any]]
    initial: Callable[[], Any]
    setup: Callable[..., Any]
    decide: Callable[..., Any]
    evolve: Callable[..., Any]
    status: Callable[..., Any]
    view: Callable[..., dict[str, Any]]
    redact: Callable[..., Any]
    legal_commands: Callable[..., dict[str, Any]]
    recorded_options: Callable[[dict[str, Any]], dict[str, Any]] = unchanged
    # Every game of this kind is followed by the runners (services.core.attention).
    always_attended: bool = False
