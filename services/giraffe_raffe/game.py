"""Giraffe Raffe wired to the engine runtime's Game protocol."""

from services.core.adapter import GameAdapter
from services.giraffe_raffe import rules
from services.giraffe_raffe import view as views
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.state import State

GAME = GameAdapter(
    name="giraffe-raffe",
    engine_version="giraffe-raffe/1",
    options=rules.options,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=evolve,
    status=rules.status,
    view=views.view,
    redact=views.redact,
    legal_commands=views.legal_commands,
)
