"""Giraffe Raffe: everything the machinery needs to know about the game (services.games
lists this package)."""

from services.giraffe_raffe import options as game_options
from services.giraffe_raffe import rules
from services.giraffe_raffe import view as views
from services.giraffe_raffe.bots import BOTS
from services.giraffe_raffe.commands import Command
from services.giraffe_raffe.events import EVENTS
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.how_to_play import HOW_TO_PLAY
from services.giraffe_raffe.search import BUDGET, search_bot
from services.giraffe_raffe.state import State
from services.kernel.spec import GameSpec

GAME = GameSpec(
    name="giraffe-raffe",
    title="Giraffe Raffe",
    how_to_play=HOW_TO_PLAY,
    engine_version="giraffe-raffe/1",
    default_port=50061,
    players=(2, 5),
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
    view_model=views.GiraffeRaffeView,
    legal_model=views.GiraffeRaffeLegal,
    bots={**BOTS, "search": search_bot(BUDGET)},
    default_bot="heuristic",
    bot_names={
        "random": ("Beginner", "plays any legal move"),
        "heuristic": ("Intermediate", "keeps high cards and sets, spends apples last"),
        "search": ("Master", "plays out hundreds of deals it cannot tell from the real one"),
    },
    searching_bots=frozenset({"search"}),
    expire=rules.default_move,
    result_keys=rules.result_keys,
    variants=({"mode": "solo"},),
)
