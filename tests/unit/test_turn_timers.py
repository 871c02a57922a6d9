"""AL-3: turn timers. Time enters as the command's clock; after the deadline anyone (or
the bot runner, as seat -1) sends "timeout" and the engine plays the default move."""

from __future__ import annotations

import pytest

from services.bots.runner import Watch
from services.core.errors import RuleViolation
from services.games import GAMES
from services.giraffe_raffe.game import GAME as GIRAFFE_RAFFE
from services.kernel.commands import has_timer
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.riff_raff.game import GAME as RIFF_RAFF
from services.riff_raff.rules import phase


def test_giraffe_raffe_returns_an_apple_or_loses_when_the_turn_timer_runs_out() -> None:
    p = Playthrough.start(
        GIRAFFE_RAFFE, {"turn_timer": 30, "dealer": 0}, [SeatSpec("human")] * 2, "t", now_ms=1_000
    )
    status = GIRAFFE_RAFFE.status(p.state).to_json()
    assert status["deadline_ms"] == 31_000 and status["on_deadline"] == {"type": "timeout"}
    with pytest.raises(RuleViolation) as info:
        p.execute(-1, {"type": "timeout"}, now_ms=30_999)
    assert info.value.code == "turn_still_open"
    events = p.execute(-1, {"type": "timeout"}, now_ms=31_000)
    assert [e.type for e in events][:2] == ["PlayerLost", "GameEnded"]  # no apple: loses
    assert p.state.losers == (0,)


def test_giraffe_raffe_without_a_timer_refuses_timeouts() -> None:
    p = Playthrough.start(GIRAFFE_RAFFE, {}, [SeatSpec("human")] * 2, "t")
    with pytest.raises(RuleViolation) as info:
        p.execute(-1, {"type": "timeout"}, now_ms=10**12)
    assert info.value.code == "no_turn_timer"


def test_riff_raff_plays_the_lowest_card_then_the_first_piece_at_the_centre() -> None:
    p = Playthrough.start(
        RIFF_RAFF, {"turn_timer": 20, "captain": 0}, [SeatSpec("human")] * 2, "t", now_ms=0
    )
    p.execute(1, {"type": "choose_card", "card": 9}, now_ms=5_000)
    assert p.state.deadline_ms == 20_000  # set when the round began
    p.execute(-1, {"type": "timeout"}, now_ms=20_000)  # seat 0 plays its lowest card
    assert p.state.revealed == {0: 1, 1: 9}
    assert phase(p.state) == "load" and p.state.turn.seat == 1
    first = p.state.supplies[1][0]
    events = p.execute(-1, {"type": "timeout"}, now_ms=p.state.deadline_ms)
    loaded = next(e for e in events if e.type == "PieceLoaded")
    assert loaded.data["piece"] == first and loaded.data["position"] == 0.5
    assert loaded.actor == -1


@pytest.mark.parametrize(
    ("game", "timer", "players"),
    [
        ("giraffe-raffe", "turn_timer", 3),
        ("giraffometer", "round_timer", 3),
        ("riff-raff", "turn_timer", 2),
    ],
)
def test_the_bot_runner_sees_every_games_timer_in_its_recorded_options(
    game: str, timer: str, players: int
) -> None:
    """The runner skips games with no bot seat and no timer (no engine call per move);
    it finds timers by the ``*_timer`` convention, so each game's timer must follow it."""
    rules, seats = GAMES[game], [SeatSpec("human")] * players
    timed = rules.recorded_options(rules.options({timer: 30}, seats))
    untimed = rules.recorded_options(rules.options({}, seats))
    assert has_timer(timed) and not has_timer(untimed)
    assert not Watch.of({"seats": [{"kind": "human"}], "options": untimed}).timed
    assert Watch.of({"seats": [{"kind": "human"}], "options": timed}).timed
    assert not Watch.of({"seats": [{"kind": "bot"}], "options": untimed}).idle


# AL-3 as revised (2026-12-06): at the table, the seat's bot plays the move it owes.


def test_at_the_table_a_giraffe_raffe_timeout_without_an_apple_is_the_bots_move() -> None:
    """#51 item 8: a player with 15 cards and no apple whose turn timer ran out used to
    lose the game; now their bot plays that turn, the player stays, the log says so."""
    game = GAMES["giraffe-raffe"]
    p = Playthrough.start(
        game, {"turn_timer": 30, "dealer": 0}, [SeatSpec("human")] * 2, "t", now_ms=1_000
    )
    before = len(p.state.game.hands[0])
    events = p.execute(-1, {"type": "timeout"}, now_ms=31_000)
    assert events[0].type == "TimeRanOut" and events[0].data == {"seat": 0, "clock": "turn"}
    assert "PlayerLost" not in [e.type for e in events]
    assert any(e.actor == 0 for e in events[1:])  # the move is the seat's, made by its bot
    assert not game.status(p.state).over and len(p.state.game.hands[0]) < before
    assert game.status(p.state).to_act == (1,)


def test_at_the_table_the_round_timer_has_the_missing_voters_bots_vote() -> None:
    game = GAMES["giraffometer"]
    seats = [SeatSpec("human")] * 3
    p = Playthrough.start(game, {"round_timer": 30}, seats, "t", now_ms=1_000)
    p.execute(0, {"type": "vote", "lowest": 1, "highest": 2}, now_ms=2_000)
    with pytest.raises(RuleViolation):
        p.execute(-1, {"type": "close_round"}, now_ms=30_999)
    events = p.execute(-1, {"type": "close_round"}, now_ms=31_000)
    ran_out = [e.data["seat"] for e in events if e.type == "TimeRanOut"]
    assert ran_out == [1, 2]
    revealed = next(e for e in events if e.type == "RoundRevealed")
    assert set(revealed.data["votes"]) == {"0", "1", "2"}  # every seat voted, two by bots


def test_at_the_table_riff_raffs_secret_choice_is_the_bots() -> None:
    game = GAMES["riff-raff"]
    p = Playthrough.start(
        game, {"turn_timer": 20, "captain": 0}, [SeatSpec("human")] * 2, "t", now_ms=0
    )
    p.execute(1, {"type": "choose_card", "card": 9}, now_ms=5_000)
    events = p.execute(-1, {"type": "timeout"}, now_ms=20_000)
    assert [e.data["seat"] for e in events if e.type == "TimeRanOut"] == [0]
    assert 0 in p.state.game.revealed and not game.status(p.state).over


def test_a_spent_bank_has_the_bot_move_and_the_increment_gives_the_player_time_back() -> None:
    """A time bank that runs out: its bot moves (flag), the player stays; with an
    increment their next turn has that much time and they move again themselves."""
    game = GAMES["giraffe-raffe"]
    options = {"bank_timer": 10, "bank_increment": 5, "dealer": 0}
    p = Playthrough.start(game, options, [SeatSpec("human")] * 2, "t", now_ms=1_000)
    events = p.execute(-1, {"type": "flag"}, now_ms=11_000)
    kinds = [e.type for e in events]
    assert kinds[0] == "ClocksSet" and "TimeRanOut" in kinds and "PlayerLost" not in kinds
    assert p.state.banks[0] == 5_000 and not p.state.flagged
    assert game.legal_commands(p.state, 0)["seat"] == 0


def test_no_clock_runs_once_the_game_is_over() -> None:
    """#51 item 8: a finished table showed a clock still running (a bot's, counting down
    after "Game over"): the view of a finished game shows every clock stopped."""
    game = GAMES["giraffe-raffe"]
    options = {"bank_timer": 60, "dealer": 0}
    p = Playthrough.start(game, options, [SeatSpec("human")] * 2, "t", now_ms=1_000)
    assert any(game.view(p.state, 0)["table"]["clocks"]["running_since_ms"])
    p.execute(0, {"type": "concede"}, now_ms=2_000)
    assert game.status(p.state).over
    for seat in (-1, 0, 1):
        assert game.view(p.state, seat)["table"]["clocks"]["running_since_ms"] == [0, 0]
