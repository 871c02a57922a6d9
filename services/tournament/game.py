"""The tournament wired to the engine runtime's Game protocol, so a tournament gets what
every game has: its own stream, expected versions, idempotent commands, replay."""

from services.kernel.spec import GameSpec
from services.tournament import options, rules, view
from services.tournament.commands import Command
from services.tournament.events import EVENTS
from services.tournament.evolve import evolve
from services.tournament.state import State

GAME = GameSpec(
    name="tournament",
    engine_version="tournament/1",
    options=options.options,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=evolve,
    events=EVENTS,
    status=rules.status,
    view=view.view,
    redact=view.redact,
    legal_commands=view.legal_commands,
    commands=Command,
    recorded_options=options.recorded,
    always_attended=True,  # its runner opens every round's tables
)
