"""Pebbles declared for the machinery, as every game is."""

from services.kernel.spec import GameSpec
from tests.games.pebbles import rules, view
from tests.games.pebbles.bots import BOTS
from tests.games.pebbles.commands import Command
from tests.games.pebbles.events import EVENTS
from tests.games.pebbles.evolve import evolve
from tests.games.pebbles.how_to_play import HOW_TO_PLAY
from tests.games.pebbles.state import State

GAME = GameSpec(
    name="pebbles",
    title="Pebbles",
    how_to_play=HOW_TO_PLAY,
    engine_version="pebbles/1",
    default_port=50069,
    players=(2, 4),
    options=rules.options,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=evolve,
    status=rules.status,
    view=view.view,
    redact=view.redact,
    legal_commands=view.legal_commands,
    events=EVENTS,
    commands=Command,
    bots=BOTS,
    default_bot="perfect",
    result_keys=rules.result_keys,
    variants=({"pile": 7},),
)
