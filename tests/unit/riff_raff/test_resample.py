"""#53 item 1 for Riff Raff: states resampled from a seat's view show that seat exactly
its view (10,000 sampled states: 100 drawn games, 100 samples each)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.riff_raff.game import GAME
from services.riff_raff.resample import resample
from services.riff_raff.state import State
from services.riff_raff.view import view
from tests.unit.resampling import mismatches, played


@st.composite
def games_in_play(draw: st.DrawFn) -> State:
    options = {"mode": draw(st.sampled_from(["simulated", "tabletop"]))}
    seed = draw(st.text("0123456789abcdef", min_size=4, max_size=8))
    return played(GAME, options, draw(st.integers(2, 4)), seed, draw(st.integers(0, 120)))


def hidden_cards_held(sampled: State) -> None:
    """A card another seat chose in secret is one it still holds."""
    for other, choice in sampled.choices:
        assert choice.card in sampled.hands[other]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_play(), st.data())
def test_every_resampled_state_shows_the_seat_exactly_its_view(
    s: State, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(-1, s.seat_count - 1), label="seat (-1: a spectator)")
    assert mismatches(GAME, resample, s, seat, hidden_cards_held) == 0


def test_another_seats_hidden_card_is_drawn_from_its_hand() -> None:
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 3, "hidden")
    status = GAME.status(p.state)
    for seat in status.to_act[1:]:
        p.execute(seat, {"type": "choose_card", "card": 7})
    seen = view(p.state, status.to_act[0])
    drawn = {resample(seen, SeededRng("s", n)).choice_of(status.to_act[1]) for n in range(30)}
    assert len({c.card for c in drawn if c}) > 3
