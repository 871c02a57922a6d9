"""The ship is deterministic across processes; replay never simulates; hypothesis
playthroughs in both modes conserve every piece."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from hashlib import sha256

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.riff_raff import ship
from services.riff_raff.bots import BOTS
from services.riff_raff.evolve import evolve
from services.riff_raff.game import GAME
from services.riff_raff.rules import status
from services.riff_raff.state import State
from services.riff_raff.view import legal_commands, view
from tests.unit.riff_raff.helpers import tabletop_move

LOADS_SCRIPT = """
import json, random
from services.riff_raff.ship import simulate, Load
from services.riff_raff.pieces import piece_ids
r = random.Random(7)
ids = piece_ids(0, 2) + piece_ids(1, 2) + piece_ids(2, 2) + piece_ids(3, 2)
tilt, placed, out = 0.0, (), []
for n in range(200):
    pid = ids[n % len(ids)]
    o = simulate(tilt, placed, Load(pid, r.randint(1, 10), r.random(), r.uniform(0, 360)))
    tilt, placed = o.tilt, o.pieces
    if len(placed) > 14:
        tilt, placed = 0.0, ()
    out.append(repr(o))
print(json.dumps(out))
"""


# The 200 outcomes as the model raffe-ship/1 first gave them: code made faster (the search
# bot simulates ~90 placements a decision) must give them to the last bit, or bump
# PHYSICS_VERSION (games recorded under the old model verify by re-running it).
SHIP_1_DIGEST = "a202b9e368ce63ed1764dd33d046929564590c4a973cb892345e87c4a96117ed"


def test_the_same_200_loads_give_identical_outcomes_in_two_processes() -> None:
    runs = [
        subprocess.run(
            [sys.executable, "-c", LOADS_SCRIPT], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    assert len(json.loads(runs[0])) == 200
    assert ship.PHYSICS_VERSION != "raffe-ship/1" or sha256(runs[0].encode()).hexdigest() == (
        SHIP_1_DIGEST
    )


def test_replay_never_simulates(monkeypatch: pytest.MonkeyPatch) -> None:
    final = play(["careful", "random"], "replay")

    def boom(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay simulated the ship")

    monkeypatch.setattr(ship, "simulate", boom)
    state = GAME.initial()
    for event in final.events:
        state = evolve(state, event)
    assert state == final.state


def play(bots: list[str], seed: str) -> Playthrough[State]:
    p = Playthrough.start(GAME, {}, [SeatSpec("bot")] * len(bots), seed)
    rng = SeededRng(seed, "bots")
    while not p.state.over:
        seat = status(p.state).to_act[0]
        p.execute(seat, BOTS[bots[seat]](view(p.state, seat), legal_commands(p.state, seat), rng))
    return p


def conserved(s: State, total: int) -> None:
    falling = [p for p, _ in s.turn.fallen] if s.turn else []  # awaiting the catch
    pieces = [p for sup in s.supplies for p in sup] + list(s.on_board()) + list(s.removed) + falling
    assert len(pieces) == total and len(set(pieces)) == total
    per_player = Counter(p.split("-")[0] for p in pieces)
    assert set(per_player.values()) == {total // s.seat_count}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.text(min_size=1, max_size=6))
def test_simulated_playthroughs_conserve_pieces(players: int, seed: str) -> None:
    p = Playthrough.start(GAME, {}, [SeatSpec("bot")] * players, seed)
    total = sum(len(x) for x in p.state.supplies)
    rng = SeededRng(seed, "bots")
    while not p.state.over:
        seat = status(p.state).to_act[0]
        p.execute(seat, BOTS["random"](view(p.state, seat), legal_commands(p.state, seat), rng))
        conserved(p.state, total)
    assert p.events[-1].type == "GameEnded"


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.text(min_size=1, max_size=6))
def test_tabletop_playthroughs_conserve_pieces(players: int, seed: str) -> None:
    p = Playthrough.start(GAME, {"mode": "tabletop"}, [SeatSpec("human")] * players, seed)
    total = sum(len(x) for x in p.state.supplies)
    rng = SeededRng(seed, "tabletop")
    for _ in range(3000):
        if p.state.over:
            break
        tabletop_move(p, rng)
        conserved(p.state, total)
    assert p.state.over
