"""Riff Raff's search bot (#53): it tries every placement the careful bot tries and more,
so its load never loses more cargo than the careful bot's would; every load it sends is
one the rules take."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.riff_raff import ship as physics
from services.riff_raff.bots import _ship_of, careful_bot, random_bot
from services.riff_raff.game import GAME
from services.riff_raff.search import search_bot
from services.riff_raff.state import State
from services.riff_raff.view import legal_commands, view


@st.composite
def loads_due(draw: st.DrawFn) -> State:
    """A simulated game some random moves in, at a seat's load."""
    players = draw(st.integers(2, 4))
    seed = draw(st.text("0123456789abcdef", min_size=4, max_size=8))
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * players, seed)
    rng = SeededRng(seed, "moves")
    wanted = draw(st.integers(0, 40))
    loads = 0
    while not GAME.status(p.state).over:
        seat = GAME.status(p.state).to_act[0]
        legal = legal_commands(p.state, seat)
        if legal["commands"] and legal["commands"][0]["type"] == "load":
            if loads >= wanted:
                return p.state
            loads += 1
        p.execute(seat, random_bot(view(p.state, seat), legal, rng))
    return p.state


def _first_fell(state: State, seat: int, command: dict) -> int:
    """How many pieces the command's first load loses, simulated on the seat's view."""
    seen = view(state, seat)
    tilt, ship = _ship_of(seen)
    first = command["pieces"][0]
    piece = next(p for p in seen["supply_ids"][seat] if p.split("-")[1] == first["piece"])
    area = legal_commands(state, seat)["commands"][0]["area"]
    load = physics.Load(piece, area, first["position"], first["orientation"])
    return len(physics.simulate(tilt, ship, load).fell)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loads_due())
def test_a_searched_load_never_loses_more_than_the_careful_one(s: State) -> None:
    seats = [x for x in range(s.seat_count) if legal_commands(s, x)["commands"]]
    if s.over or not seats or legal_commands(s, seats[0])["commands"][0]["type"] != "load":
        return
    seat = seats[0]
    seen, legal = view(s, seat), legal_commands(s, seat)
    searched = search_bot(seen, legal, SeededRng("s"))
    careful = careful_bot(seen, legal, SeededRng("c"))
    assert _first_fell(s, seat, searched) <= _first_fell(s, seat, careful)
    assert len(searched["pieces"]) <= legal["commands"][0]["max_pieces"]
    GAME.decide(s, seat, GAME.command(searched), SeededRng("check"))  # the rules take it
