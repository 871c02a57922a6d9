"""The search bot's parts (#53): deals resampled from a seat's view are views of that
seat, the fast rollout policy is the heuristic, and the bot decides on the view alone."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.giraffe_raffe.bots import BOTS, REWARD, card_costs
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.resample import resample
from services.giraffe_raffe.search import policy, search_bot
from services.giraffe_raffe.state import State
from services.giraffe_raffe.view import legal_commands, view
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from tests.unit.resampling import mismatches, played


@st.composite
def games_in_play(draw: st.DrawFn) -> State:
    """A game of any mode and size, some random moves in (0: just dealt)."""
    mode = draw(st.sampled_from(["standard", "longer", "solo"]))
    players = 1 if mode == "solo" else draw(st.integers(2, 5))
    seed = draw(st.text("abcdef0123456789", min_size=4, max_size=8))
    return played(GAME, {"mode": mode}, players, seed, draw(st.integers(0, 80)))


def every_card_once(sampled: State) -> None:
    """In a hand, on a tree, in the Redraw pile or the Robot's deck, or out."""
    dealt = [c for h in sampled.hands for c in h] + [*sampled.redraw, *sampled.robot_deck]
    everywhere = dealt + [c for t in sampled.trees for p in t.plays for c in p.cards]
    everywhere += sampled.out
    assert len(set(everywhere)) == len(everywhere) == 64


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_play(), st.data())
def test_every_resampled_deal_shows_the_seat_exactly_its_view(
    s: State, data: st.DataObject
) -> None:
    seat = data.draw(st.integers(-1, s.seat_count - 1), label="seat (-1: a spectator)")
    assert mismatches(GAME, resample, s, seat, every_card_once) == 0


def test_resampling_moves_the_hidden_cards() -> None:
    """Not a copy of the truth: the other hands differ from deal to deal."""
    p = Playthrough.start(GAME, {}, [SeatSpec("human")] * 3, "hidden")
    seen = view(p.state, 0)
    others = {resample(seen, SeededRng("s", n)).hands[1] for n in range(20)}
    assert len(others) == 20


def _score(state: State, seat: int, command: dict) -> float:
    """The heuristic's price of a command (higher is better)."""
    if command["type"] != "play":
        return float("-inf")
    tree = state.tree(command["tree"])
    assert tree is not None
    gain = REWARD.get(tree.kind, 0.0) if tree.kind == "pair" or state.supply else 0.0
    costs = card_costs(state.hands[seat])
    return gain - sum(costs[c] for c in command["cards"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games_in_play())
def test_the_rollout_policy_makes_the_heuristics_choice(s: State) -> None:
    to_act = GAME.status(s).to_act
    if s.over or not to_act or s.robot_tie is not None:
        return
    seat = to_act[0]
    fast = policy(s, seat).model_dump(exclude_none=True)
    slow = BOTS["heuristic"](view(s, seat), legal_commands(s, seat), SeededRng("h"))
    assert fast["type"] == slow["type"]
    assert abs(_score(s, seat, fast) - _score(s, seat, slow)) < 1e-9 or fast["type"] != "play"
    GAME.decide(s, seat, GAME.command(fast), SeededRng("check"))  # and the rules take it


def test_the_search_bot_decides_on_the_view_alone() -> None:
    """Two games that differ only in what seat 0 cannot see (the other hands, the Redraw
    pile): the bot's decision is the same; and the same again for the same seed."""
    p = Playthrough.start(GAME, {"dealer": 0}, [SeatSpec("human")] * 4, "poison")
    truth = p.state
    seen = view(truth, 0)
    poisoned = resample(seen, SeededRng("poison", 1))
    assert poisoned.hands[1:] != truth.hands[1:] and view(poisoned, 0) == seen
    bot = search_bot(400)
    decided = [
        bot(view(s, 0), legal_commands(s, 0), SeededRng("decide", 7)) for s in (truth, poisoned)
    ]
    assert decided[0] == decided[1]
    assert GAME.decide(truth, 0, GAME.command(decided[0]), SeededRng("x"))
