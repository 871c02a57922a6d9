"""#53 item 1 for Riff Raff: states resampled from a seat's view show that seat exactly
its view (10,000 sampled states: 100 drawn games, 100 samples each)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.riff_raff.bots import random_bot
from services.riff_raff.game import GAME
from services.riff_raff.resample import resample
from services.riff_raff.state import State
from services.riff_raff.view import legal_commands, view

SAMPLES = 100


@st.composite
def games_in_play(draw: st.DrawFn) -> State:
    players = draw(st.integers(2, 4))
    mode = draw(st.sampled_from(["simulated", "tabletop"]))
    seed = draw(st.text("0123456789abcdef", min_size=4, max_size=8))
    p = Playthrough.start(GAME, {"mode": mode}, [SeatSpec("human")] * players, seed)
    rng = SeededRng(seed, "moves")
    for _ in range(draw(st.integers(0, 120))):
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
    mismatches = 0
    for n in range(SAMPLES):
        sampled = resample(seen, SeededRng(f"sample:{seat}", n))
        mismatches += view(sampled, seat) != seen
        for other, choice in sampled.choices:  # a hidden card is one its seat still holds
            assert choice.card in sampled.hands[other]
    assert mismatches == 0


def test_another_seats_hidden_card_is_drawn_from_its_hand() -> None:
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 3, "hidden")
    status = GAME.status(p.state)
    for seat in status.to_act[1:]:
        p.execute(seat, {"type": "choose_card", "card": 7})
    seen = view(p.state, status.to_act[0])
    drawn = {resample(seen, SeededRng("s", n)).choice_of(status.to_act[1]) for n in range(30)}
    assert len({c.card for c in drawn if c}) > 3
