"""Riff Raff wired to the engine runtime's Game protocol."""

from services.core.adapter import GameAdapter
from services.riff_raff import rules
from services.riff_raff import view as views
from services.riff_raff.evolve import evolve
from services.riff_raff.state import State

GAME = GameAdapter(
    name="riff-raff",
    engine_version="riff-raff/1",
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
