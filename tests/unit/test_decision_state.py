"""``decide`` hands back the state after its events (services.kernel.game.Decision), and
the engine keeps that state instead of folding the events again: it must be exactly the
state a replay folds from the stored events, for every command of whole bot games of
every game and both option sets the tests play, under any seed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.core.codec import to_new
from services.core.eventstore import StoredEvent
from services.core.gamestate import GameAt, fold
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec
from tests.unit.test_one_home import played_ways, table_of

MAX_MOVES = 400


def stored(events: list[Any], first_version: int) -> list[StoredEvent]:
    """The events as the store hands them back (encoded, read, parsed on folding)."""
    out = []
    for version, new in enumerate((to_new(e) for e in events), start=first_version):
        out.append(
            StoredEvent("g", "t", version, new.id, new.type, 0, new.payload, new.actor, "c", 0, "v")
        )
    return out


def check_game(game: GameSpec[Any], options: dict[str, Any], seed: str) -> int:
    """Every command's decided state equals the replayed one; the commands checked."""
    seats = table_of(game, options)
    p = Playthrough.start(game, options, [SeatSpec("human")] * seats, seed)
    bots, rng, checked = [game.bot("random")] * seats, SeededRng(seed, "bots"), 0
    replayed = fold(game, stored(p.events, 1))
    while not game.status(p.state).over and checked < MAX_MOVES:
        seat = game.status(p.state).to_act[0]
        command = bots[seat](game.view(p.state, seat), game.legal_commands(p.state, seat), rng)
        before = p.version
        decided = game.decide(p.state, seat, game.command(command), SeededRng(seed, before))
        replayed = fold(game, stored(decided.events, before + 1), replayed)
        assert decided.state == replayed, (game.name, seat, command)
        at = GameAt(p.state, before, seed).decided(decided, [to_new(e) for e in decided.events])
        assert at.version == before + len(decided.events) and at.state is decided.state
        p.execute(seat, command)
        assert p.state == decided.state
        checked += 1
    return checked


@pytest.mark.parametrize("name", list(GAMES))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(alphabet="abcdefghij0123456789", min_size=1, max_size=12))
def test_the_decided_state_is_the_replayed_state(name: str, seed: str) -> None:
    game = GAMES[name]
    for options in played_ways(game):
        assert check_game(game, options, seed) > 0
