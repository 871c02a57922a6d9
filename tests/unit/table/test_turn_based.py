"""Turn-based tables (services/kernel/table/speed.py, #52 item 1): a pace is a time bank
in days that never holds more than it started with; presence never hands a turn-based
seat to a bot, its clock does; when a bank runs out the table's rule decides (the bot
plays that turn, or takes the seat); every game ends, whatever the players do."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.games import GAMES
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import ENGINE, SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.table.speed import DAY_S
from tests.unit.table.test_table import check, moves_of

DAY = DAY_S * 1000
TIMED = sorted(name for name, g in GAMES.items() if g.expire is not None)


def start(kind: str, options: dict[str, Any], seats: int = 2) -> Playthrough[Any]:
    opts = {"speed": "turn_based", **options}
    return Playthrough.start(GAMES[kind], opts, [SeatSpec("human")] * seats, "tb", 1_000)


@pytest.mark.parametrize(
    ("pace", "bank", "increment", "most"),
    [("1_day", 1, 1, 1), ("3_days", 3, 3, 3), ("weekend", 7, 1, 7)],
)
def test_a_pace_is_a_bank_in_days(pace: str, bank: int, increment: int, most: int) -> None:
    options = GAMES["giraffe-raffe"].options(
        {"speed": "turn_based", "pace": pace}, [SeatSpec("human")] * 2
    )
    assert (options["bank_timer"], options["bank_increment"], options["bank_max"]) == (
        bank * DAY_S,
        increment * DAY_S,
        most * DAY_S,
    )
    assert options["on_time_out"] == "bot_moves"


@pytest.mark.parametrize(
    ("raw", "names"),
    [
        ({"pace": "hourly"}, "pace"),
        ({"pace": "custom", "bank_days": 15}, "bank_days"),
        ({"pace": "custom", "bank_days": 2, "increment_days": 4}, "increment_days"),
        ({"pace": "custom", "bank_days": True}, "bank_days"),
        ({"on_time_out": "forfeit"}, "on_time_out"),
        ({"turn_timer": 30}, "turn_timer"),
    ],
)
def test_bad_turn_based_options_are_refused_by_name(raw: dict[str, Any], names: str) -> None:
    with pytest.raises(InvalidArgument, match=names):
        GAMES["giraffe-raffe"].options({"speed": "turn_based", **raw}, [SeatSpec("human")] * 2)


def test_a_custom_pace_and_an_unknown_speed() -> None:
    seats = [SeatSpec("human")] * 2
    raw = {"speed": "turn_based", "pace": "custom", "bank_days": 14, "increment_days": 3}
    options = GAMES["giraffometer"].options(raw, seats)
    assert (options["bank_timer"], options["bank_increment"], options["bank_max"]) == (
        14 * DAY_S,
        3 * DAY_S,
        14 * DAY_S,
    )
    with pytest.raises(InvalidArgument, match="speed"):
        GAMES["giraffometer"].options({"speed": "blitz"}, seats)


def test_each_move_refills_a_bank_to_its_pace_and_never_past_it() -> None:
    """1 day per move: whatever time is left, a move gives the next turn a whole day."""
    p = start("giraffe-raffe", {"dealer": 0})
    assert p.state.banks == (DAY, DAY) and p.state.since[0] == 1_000
    moves_of(p, SeededRng("tb", "bots"), 1_000 + 20 * 3_600_000)  # seat 0 after 20 h
    assert p.state.banks[0] == DAY  # 4 h left + a day, held to a day
    view = GAMES["giraffe-raffe"].view(p.state, 1)
    assert view["table"]["speed"] == "turn_based"
    assert view["table"]["clocks"]["max_ms"] == DAY


def test_presence_never_hands_a_turn_based_seat_to_a_bot() -> None:
    p = start("giraffe-raffe", {"dealer": 0})
    with pytest.raises(RuleViolation) as refused:
        p.execute(ENGINE, {"type": "seat_gone", "seat": 1, "claim_after_s": 0}, 5 * DAY)
    assert refused.value.code == "turn_based" and not p.state.gone


def test_out_of_time_the_bot_plays_that_turn_and_the_player_stays() -> None:
    p = start("giraffe-raffe", {"dealer": 0})
    events = p.execute(ENGINE, {"type": "flag"}, 1_000 + DAY)
    kinds = [e.type for e in events]
    assert "TimeRanOut" in kinds and "SeatLeft" not in kinds
    assert not p.state.stand_ins and p.state.banks[0] == DAY  # the next turn: a day again
    assert "stand_in" not in GAMES["giraffe-raffe"].legal_commands(p.state, 0)


def test_out_of_time_with_take_over_a_bot_keeps_the_seat_to_the_end() -> None:
    p = start("giraffe-raffe", {"dealer": 0, "on_time_out": "take_over"})
    events = p.execute(ENGINE, {"type": "flag"}, 1_000 + DAY)
    left = [e.data for e in events if e.type == "SeatLeft"]
    assert left == [{"seat": 0, "reason": "timed_out", "claim_from_ms": 0}]
    assert p.state.stand_ins == (0,)
    assert GAMES["giraffe-raffe"].legal_commands(p.state, 0)["stand_in"] is True
    view = GAMES["giraffe-raffe"].view(p.state, 1)
    assert view["table"]["seats"][0]["left"] == "timed_out"


def test_a_simultaneous_vote_waits_days_and_the_late_voters_bots_vote() -> None:
    """Giraffometer turn-based: both seats' clocks run during a vote; one votes, the other
    lets the day pass; the flag has the late one's bot vote and the round goes on."""
    p = start("giraffometer", {}, seats=2)
    game = GAMES["giraffometer"]
    assert set(game.status(p.state).to_act) == {0, 1}
    p.execute(0, {"type": "vote", "lowest": 1, "highest": 2}, 1_000 + 3_600_000)
    events = p.execute(ENGINE, {"type": "flag"}, 1_000 + DAY)
    ran_out = [e.data["seat"] for e in events if e.type == "TimeRanOut"]
    assert ran_out == [1]
    assert any(e.type == "RoundRevealed" for e in events)


@settings(max_examples=30, deadline=None)
@given(
    kind=st.sampled_from(TIMED),
    pace=st.sampled_from(["1_day", "3_days", "weekend"]),
    rule=st.sampled_from(["bot_moves", "take_over"]),
    waits=st.lists(st.integers(0, 4 * 24), min_size=1, max_size=60),  # hours between moves
)
def test_turn_based_games_end_with_banks_held_to_their_pace(
    kind: str, pace: str, rule: str, waits: list[int]
) -> None:
    game = GAMES[kind]
    seats = max(2, game.players[0])
    p = start(kind, {"pace": pace, "on_time_out": rule}, seats)
    rng, now = SeededRng("tb", "bots"), 1_000
    for step in range(3000):
        if game.status(p.state).over:
            break
        now += waits[step % len(waits)] * 3_600_000
        deadline = game.status(p.state).detail.get("deadline_ms") or 0
        if deadline and deadline <= now:
            p.execute(ENGINE, {"type": "flag"}, now)
        elif game.status(p.state).to_act:
            moves_of(p, rng, now)
        check(p)
        assert all(b <= p.state.bank_max_ms for b in p.state.banks)
    assert game.status(p.state).over, "every turn-based game ends"
    replayed = game.initial()
    for e in p.events:
        replayed = game.evolve(replayed, e)
    assert replayed == p.state


def test_a_vacation_stops_a_running_clock_and_starts_it_again_when_it_ends() -> None:
    """#52 item 2: a seat's player on vacation: the time spent is charged, the clock
    waits until the vacation ends (no flag before), the others see until when; a turn
    that comes during it starts its clock when it ends."""
    game = GAMES["giraffe-raffe"]
    p = start("giraffe-raffe", {"dealer": 0, "pace": "3_days"})
    now, until = 1_000 + DAY, 1_000 + 5 * DAY
    p.execute(ENGINE, {"type": "vacation", "seat": 0, "until_ms": until}, now)
    assert p.state.banks[0] == 2 * DAY and p.state.since[0] == until  # a day spent
    assert game.status(p.state).detail["deadline_ms"] == until + 2 * DAY
    with pytest.raises(RuleViolation) as early:
        p.execute(ENGINE, {"type": "flag"}, until + DAY)
    assert early.value.code == "clock_running"
    view = game.view(p.state, 1)
    assert view["table"]["seats"][0]["vacation_until_ms"] == until
    p.execute(ENGINE, {"type": "vacation", "seat": 1, "until_ms": until}, now)
    moves_of(p, SeededRng("tb", "bots"), now + 3_600_000)  # seat 0 plays on anyway
    assert p.state.since[1] == until  # seat 1's turn waits for its vacation's end
    assert p.state.banks[0] == 3 * DAY  # nothing spent on vacation; refilled to the pace


@pytest.mark.parametrize(
    ("seat", "options", "code"),
    [(0, {"speed": "turn_based"}, "not_allowed"), (-1, {}, "not_turn_based")],
)
def test_only_the_engine_sets_a_vacation_and_only_at_turn_based_tables(
    seat: int, options: dict[str, Any], code: str
) -> None:
    p = Playthrough.start(
        GAMES["giraffe-raffe"], {"dealer": 0, **options}, [SeatSpec("human")] * 2, "v", 1_000
    )
    with pytest.raises(RuleViolation) as refused:
        p.execute(seat, {"type": "vacation", "seat": 0, "until_ms": 5_000}, 2_000)
    assert refused.value.code == code
