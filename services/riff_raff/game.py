"""Riff Raff wired to the engine runtime's Game protocol."""

from __future__ import annotations

from typing import Any

from services.riff_raff import rules
from services.riff_raff import view as views
from services.riff_raff.evolve import evolve
from services.riff_raff.state import State


class RiffRaff:
    name = "riff-raff"
    engine_version = "riff-raff/1"

    options = staticmethod(rules.options)
    setup = staticmethod(rules.setup)
    decide = staticmethod(rules.decide)
    evolve = staticmethod(evolve)
    status = staticmethod(rules.status)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    legal_commands = staticmethod(views.legal_commands)

    @staticmethod
    def recorded_options(options: dict[str, Any]) -> dict[str, Any]:
        return options

    @staticmethod
    def initial() -> State:
        return State()


GAME = RiffRaff()
