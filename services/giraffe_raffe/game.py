"""Giraffe Raffe wired to the engine runtime's Game protocol."""

from __future__ import annotations

from typing import Any

from services.giraffe_raffe import rules
from services.giraffe_raffe import view as views
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.state import State


class GiraffeRaffe:
    name = "giraffe-raffe"
    engine_version = "giraffe-raffe/1"

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


GAME = GiraffeRaffe()
