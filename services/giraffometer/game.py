"""Giraffometer wired to the engine runtime's Game protocol."""

from __future__ import annotations

from services.giraffometer import options as game_options
from services.giraffometer import rules
from services.giraffometer import view as views
from services.giraffometer.state import State


class Giraffometer:
    name = "giraffometer"
    engine_version = "giraffometer/1"

    options = staticmethod(rules.options)
    recorded_options = staticmethod(game_options.recorded)
    setup = staticmethod(rules.setup)
    decide = staticmethod(rules.decide)
    evolve = staticmethod(rules.evolve)
    status = staticmethod(rules.status)
    view = staticmethod(views.view)
    redact = staticmethod(views.redact)
    legal_commands = staticmethod(views.legal_commands)

    @staticmethod
    def initial() -> State:
        return State()


GAME = Giraffometer()
