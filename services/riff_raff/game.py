"""Riff Raff: everything the machinery needs to know about the game (services.games
lists this package)."""

from services.kernel.spec import GameSpec
from services.riff_raff import options as game_options
from services.riff_raff import rules
from services.riff_raff import view as views
from services.riff_raff.bots import BOTS
from services.riff_raff.commands import Command
from services.riff_raff.events import EVENTS
from services.riff_raff.evolve import evolve
from services.riff_raff.how_to_play import HOW_TO_PLAY
from services.riff_raff.search import search_bot
from services.riff_raff.state import State

GAME = GameSpec(
    name="riff-raff",
    title="Riff Raff",
    how_to_play=HOW_TO_PLAY,
    engine_version="riff-raff/1",
    default_port=50063,
    players=(2, 4),
    options=game_options.validate,
    options_schema=game_options.SCHEMA,
    initial=State,
    setup=rules.setup,
    decide=rules.decide,
    evolve=evolve,
    status=rules.status,
    view=views.view,
    redact=views.redact,
    legal_commands=views.legal_commands,
    events=EVENTS,
    commands=Command,
    view_model=views.RiffRaffView,
    legal_model=views.RiffRaffLegal,
    bots={**BOTS, "search": search_bot},
    default_bot="careful",
    bot_names={
        "random": ("Beginner", "any piece, anywhere"),
        "careful": ("Intermediate", "tries a dozen placements on the ship's simulation"),
        "search": ("Master", "tries every piece, place and way up; doubles only when safe"),
    },
    searching_bots=frozenset({"search"}),
    expire=rules.default_moves,
    result_keys=rules.result_keys,
    variants=({"turn_timer": 30},),
)
