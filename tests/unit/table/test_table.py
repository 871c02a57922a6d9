"""The table around every game (services.kernel.table), in memory: hypothesis plays whole
games of every kind where players leave, go and come back at random moments, and time
banks run out; the table's invariants hold throughout, and every game still ends."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.games import GAMES
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import ENGINE, SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.table import StandIn

KINDS = sorted(GAMES)
TABLE_MOVES = st.sampled_from(["leave", "concede", "gone", "return", "flag", "claim_win", None])


def moves_of(p: Playthrough[Any], rng: SeededRng, now: int) -> None:
    """One move: the first seat to act plays its bot's choice (as a stand-in if a bot
    stands in for it)."""
    g = p.game
    status = g.status(p.state)
    seat = status.to_act[0]
    legal = g.legal_commands(p.state, seat)
    command = GAMES[g.name].bot("")(g.view(p.state, seat), legal, rng)
    typed = g.command(command)
    if legal.get("stand_in"):
        typed = StandIn(typed)
    decided = g.decide(p.state, seat, typed, SeededRng(p.seed, p.version), now)
    p.state = decided.state
    p.events.extend(decided.events)


def table_move(p: Playthrough[Any], kind: str, seat: int, now: int) -> None:
    command: dict[str, Any] = {"type": kind}
    sender = seat
    if kind == "gone":
        command, sender = {"type": "seat_gone", "seat": seat, "claim_after_s": 0}, ENGINE
    if kind == "flag":
        sender = ENGINE
    with contextlib.suppress(RuleViolation):  # not allowed now: nothing changes
        p.execute(sender, command, now)


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(KINDS),
    seats=st.integers(2, 4),
    script=st.lists(st.tuples(st.integers(0, 3), TABLE_MOVES, st.integers(0, 3)), max_size=40),
    bank=st.sampled_from([None, 10]),
)
def test_games_end_and_the_table_stays_consistent(
    kind: str, seats: int, script: list[tuple[int, str | None, int]], bank: int | None
) -> None:
    game = GAMES[kind]
    seats = max(game.players[0], min(seats, game.players[1]))
    options = {"bank_timer": bank} if bank and game.expire is not None else {}
    p = Playthrough.start(game, options, [SeatSpec("human")] * seats, "table-seed", 1_000)
    rng, now = SeededRng("table-seed", "bots"), 1_000
    for step in range(3000):
        if game.status(p.state).over:
            break
        seat, table_kind, moves = script[step] if step < len(script) else (0, None, 1)
        now += 7_000  # time passes: banks of 10 s run out now and then
        if table_kind is not None:
            table_move(p, table_kind, seat % seats, now)
            check(p)
            if game.status(p.state).over:
                break
        if not game.status(p.state).to_act:
            table_move(p, "flag", 0, now)  # only out-of-time seats are waited on
            continue
        for _ in range(moves):
            if game.status(p.state).over or not game.status(p.state).to_act:
                break
            moves_of(p, rng, now)
            check(p)
    assert game.status(p.state).over, "every game ends"
    assert p.events[-1].type == "GameEnded", "the last event is the ending"
    replayed = game.initial()
    for e in p.events:
        replayed = game.evolve(replayed, e)
    assert replayed == p.state, "the state is a fold of the events"


def check(p: Playthrough[Any]) -> None:
    t = p.state
    assert set(t.stand_ins) <= set(range(len(t.kinds)))
    assert not (t.left_seats & set(t.gone)), "a seat left for good is not merely gone"
    if t.bank_ms:
        assert all(b >= 0 for b in t.banks)
    status = p.game.status(t)
    assert not (set(status.to_act) & t.flagged), "out-of-time seats are not waited on"


def test_a_leaver_ranks_last_in_the_result() -> None:
    game = GAMES["giraffometer"]
    p = Playthrough.start(game, {"target": 1}, [SeatSpec("human")] * 3, "s", 0)
    p.execute(0, {"type": "leave"}, 10)
    assert game.legal_commands(p.state, 0)["stand_in"] is True
    with pytest.raises(RuleViolation, match="seat_left"):
        p.execute(0, {"type": "vote", "lowest": 1, "highest": 2}, 20)
    rng = SeededRng("s", "bots")
    while not game.status(p.state).over:
        moves_of(p, rng, 30)
    assert game.status(p.state).over
    keys = game.result_keys(game.view(p.state, -1))
    assert keys[0] < min(keys[1], keys[2])


def test_a_stand_in_move_needs_a_seat_a_bot_stands_in_for() -> None:
    game = GAMES["giraffe-raffe"]
    p = Playthrough.start(game, {}, [SeatSpec("human")] * 2, "s", 0)
    seat = game.status(p.state).to_act[0]
    typed = game.command({"type": "return_apple"})
    with pytest.raises(RuleViolation, match="not_taken_over"):
        game.decide(p.state, seat, StandIn(typed), SeededRng("s", p.version), 0)
    with pytest.raises(RuleViolation, match="not_allowed"):
        p.execute(seat, {"type": "seat_gone", "seat": 1 - seat}, 0)


def test_spectators_are_two_moves_late_by_default_when_a_seat_is_a_players() -> None:
    game = GAMES["giraffe-raffe"]
    people = [SeatSpec("human", player="pl" + "1" * 24), SeatSpec("human")]
    assert game.options({}, people)["spectator_delay_moves"] == 2
    assert "spectator_delay_moves" not in game.options({}, [SeatSpec("human")] * 2)
    assert "spectator_delay_moves" not in game.options({"spectator_delay_moves": 0}, people)
    chosen = game.options({"spectator_delay_s": 30}, people)
    assert chosen["spectator_delay_s"] == 30 and "spectator_delay_moves" not in chosen
    with pytest.raises(InvalidArgument, match="bad_option"):
        game.options({"spectator_delay_moves": 51}, people)


def test_a_bot_stands_in_on_the_real_ship_too() -> None:
    """Tabletop Riff Raff takes no bot seats, but a leaver's seat still needs playing: the
    stand-in takes the real ship's steps by their defaults (AL-3)."""
    game = GAMES["riff-raff"]
    p = Playthrough.start(game, {"mode": "tabletop"}, [SeatSpec("human")] * 3, "ship", 0)
    p.execute(1, {"type": "leave"}, 1)
    rng = SeededRng("ship", "bots")
    for _ in range(3000):
        if game.status(p.state).over:
            break
        moves_of(p, rng, 2)
    assert game.status(p.state).over
    stand_in = [e for e in p.events[1:] if e.actor == 1 and e.type != "SeatLeft"]
    assert stand_in, "the bot played the seat that was left"


def test_a_tables_copy_changes_only_what_it_names() -> None:
    """Table.but copies the table's fields (its fast path skips dataclasses.replace): the
    original stands, and the copy equals and hashes like a table built whole."""
    from services.kernel.table.state import Table

    t = Table(game="g", kinds=("human", "bot"), seed="s", bank_ms=60_000)
    left = t.but(left=((1, "left"),), claim_from_ms=5)
    assert (t.left, t.claim_from_ms) == ((), 0)
    assert left == Table("g", ("human", "bot"), "s", ((1, "left"),), (), 5, 60_000)
    assert hash(left) == hash(Table("g", ("human", "bot"), "s", ((1, "left"),), (), 5, 60_000))
    assert left.left_seats == frozenset({1}) and left.stand_ins == (1,)
    with pytest.raises(AttributeError):
        left.seed = "other"
