"""Giraffometer wired to the engine runtime's Game protocol."""

from services.core.adapter import GameAdapter
from services.giraffometer import options as game_options
from services.giraffometer import rules
from services.giraffometer import view as views
from services.giraffometer.state import State

GAME = GameAdapter(
    name="giraffometer",
    engine_version="giraffometer/1",
    options=rules.options,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=rules.evolve,
    status=rules.status,
    view=views.view,
    redact=views.redact,
    legal_commands=views.legal_commands,
    recorded_options=game_options.recorded,
)
