"""#53 item 1 for Giraffometer: states resampled from a seat's view show that seat
exactly its view (10,000 sampled states: 100 drawn games, 100 samples each)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.giraffometer.game import GAME
from services.giraffometer.resample import resample
from services.giraffometer.state import State
from services.giraffometer.view import view
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from tests.unit.resampling import mismatches, played


@st.composite
def games_in_play(draw: st.DrawFn) -> State:
    options = {"target": draw(st.integers(1, 5)), "penalties": draw(st.booleans())}
    seed = draw(st.text("0123456789abcdef", min_size=4, max_size=8))
    return played(GAME, options, draw(st.integers(2, 6)), seed, draw(st.integers(0, 30)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_play(), st.data())
def test_every_resampled_state_shows_the_seat_exactly_its_view(
    s: State, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(-1, s.seat_count - 1), label="seat (-1: a spectator)")
    assert mismatches(GAME, resample, s, seat) == 0


def test_what_the_seat_cannot_see_is_drawn_afresh() -> None:
    """The other seat's vote and the table's answers differ from sample to sample."""
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 2, "hidden")
    p.execute(1, {"type": "vote", "lowest": 1, "highest": 2})
    seen = view(p.state, 0)
    samples = [resample(seen, SeededRng("s", n)) for n in range(30)]
    assert len({s.vote_of(1) and (s.vote_of(1).lowest, s.vote_of(1).highest) for s in samples}) > 5
    answers = {tuple(s.facts[i].answer for i in s.table) for s in samples}
    assert len(answers) == 30
