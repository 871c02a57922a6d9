"""#53 item 1 for Giraffometer: states resampled from a seat's view show that seat
exactly its view (10,000 sampled states: 100 drawn games, 100 samples each)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.giraffometer.bots import random_bot
from services.giraffometer.game import GAME
from services.giraffometer.resample import resample
from services.giraffometer.state import State
from services.giraffometer.view import legal_commands, view
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng

SAMPLES = 100


@st.composite
def games_in_play(draw: st.DrawFn) -> State:
    players = draw(st.integers(2, 6))
    seed = draw(st.text("0123456789abcdef", min_size=4, max_size=8))
    options = {"target": draw(st.integers(1, 5)), "penalties": draw(st.booleans())}
    p = Playthrough.start(GAME, options, [SeatSpec("human")] * players, seed)
    rng = SeededRng(seed, "moves")
    for _ in range(draw(st.integers(0, 30))):
        status = GAME.status(p.state)
        if status.over:
            break
        seat = status.to_act[0]
        p.execute(seat, random_bot(view(p.state, seat), legal_commands(p.state, seat), rng))
    return p.state


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_play(), st.data())
def test_every_resampled_state_shows_the_seat_exactly_its_view(
    s: State, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(-1, s.seat_count - 1), label="seat (-1: a spectator)")
    seen = view(s, seat)
    mismatches = sum(
        view(resample(seen, SeededRng(f"sample:{seat}", n)), seat) != seen for n in range(SAMPLES)
    )
    assert mismatches == 0


def test_what_the_seat_cannot_see_is_drawn_afresh() -> None:
    """The other seat's vote and the table's answers differ from sample to sample."""
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 2, "hidden")
    p.execute(1, {"type": "vote", "lowest": 1, "highest": 2})
    seen = view(p.state, 0)
    samples = [resample(seen, SeededRng("s", n)) for n in range(30)]
    assert len({s.vote_of(1) and (s.vote_of(1).lowest, s.vote_of(1).highest) for s in samples}) > 5
    answers = {tuple(s.facts[i].answer for i in s.table) for s in samples}
    assert len(answers) == 30
