"""Giraffometer: everything the machinery needs to know about the game (services.games
lists this package)."""

from services.giraffometer import options as game_options
from services.giraffometer import rules
from services.giraffometer import view as views
from services.giraffometer.bots import BOTS, NAMES
from services.giraffometer.commands import Command
from services.giraffometer.events import EVENTS
from services.giraffometer.evolve import evolve
from services.giraffometer.how_to_play import HOW_TO_PLAY
from services.giraffometer.state import State
from services.kernel.spec import GameSpec

GAME = GameSpec(
    name="giraffometer",
    title="Giraffometer",
    how_to_play=HOW_TO_PLAY,
    engine_version="giraffometer/1",
    default_port=50062,
    players=(2, 8),
    options=game_options.validate,
    options_schema=game_options.schema,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=evolve,
    events=EVENTS,
    status=rules.status,
    view=views.view,
    redact=views.redact,
    seal=views.seal,
    legal_commands=views.legal_commands,
    recorded_options=game_options.recorded,
    commands=Command,
    view_model=views.GiraffometerView,
    legal_model=views.GiraffometerLegal,
    bots=BOTS,
    default_bot="normal",
    bot_names=NAMES,
    expire=rules.default_move,
    clock_commands=frozenset({"close_round"}),
    result_keys=rules.result_keys,
    variants=({"round_timer": 30},),
)
