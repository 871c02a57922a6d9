"""Giraffometer rules, one group per ruling (GM-1..GM-5, AL-1..AL-3).

In the ordered test deck the answers on positions 1..6 are 50, 7, 900, 3000, 120, 64:
the lowest is position 2, the highest position 4."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.core.errors import InvalidArgument, RuleViolation
from services.giraffometer.bots import BOTS
from services.giraffometer.game import GAME
from services.giraffometer.rules import score_change, status
from services.giraffometer.state import Vote
from services.giraffometer.view import legal_commands, redact, view
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from tests.unit.giraffometer.given import deck, fold, ordered, vote, when

LOW, HIGH = 2, 4


# ruling GM-1
@pytest.mark.parametrize(("players", "options"), [(1, {}), (9, {}), (31, {"max_players": 30})])
def test_player_counts_outside_the_box_are_rejected(players: int, options: dict) -> None:
    with pytest.raises(InvalidArgument):
        Playthrough.start(GAME, options, [SeatSpec("human")] * players, "s")


def test_a_classroom_of_30_with_max_players() -> None:
    p = Playthrough.start(GAME, {"max_players": 30}, [SeatSpec("human")] * 30, "s")
    assert len(p.state.scores) == 30


# ruling GM-2
def test_custom_decks_are_validated_naming_the_offending_fact() -> None:
    bad = deck()
    bad["facts"][3]["answer"] = bad["facts"][1]["answer"]
    with pytest.raises(InvalidArgument) as info:
        ordered(deck=bad)
    assert "'f3'" in info.value.message and "unique" in info.value.message
    missing = deck()
    del missing["facts"][2]["source"]
    with pytest.raises(InvalidArgument) as info:
        ordered(deck=missing)
    assert "'f2'" in info.value.message and "source" in info.value.message
    with pytest.raises(InvalidArgument):
        ordered(deck={"name": "tiny", "facts": deck()["facts"][:5]})


def test_a_custom_deck_is_an_event_of_its_own_with_answers_hidden_until_the_end() -> None:
    p = Playthrough.start(GAME, {"deck": deck()}, [SeatSpec("human")] * 2, "s")
    created, loaded = p.events[0], p.events[1]
    assert created.data["options"]["deck"] == {"custom": "test deck", "facts": 12}
    assert loaded.type == "DeckLoaded" and loaded.data["facts"][0]["answer"] == 50
    assert "answer" not in redact(p.state, loaded, 0).data["facts"][0]


# ruling GM-3
def test_a_vote_is_one_lowest_and_one_highest_at_different_positions() -> None:
    s = ordered()
    bad_votes = [
        (vote(3, 3), "same_position"),
        (vote(0, 2), "bad_lowest"),
        (vote(1, 7), "bad_highest"),
        ({"type": "vote", "lowest": 1}, "missing_field"),
    ]
    for bad, code in bad_votes:
        with pytest.raises(InvalidArgument) as info:
            when(s, 0, **bad)
        assert info.value.code == code
    assert [e.type for e in when(s, 0, **vote(1, 2))] == ["VoteCast"]


def test_votes_are_final() -> None:
    s = ordered()
    s = fold(s, when(s, 0, **vote(1, 2)))
    with pytest.raises(RuleViolation) as info:
        when(s, 0, **vote(3, 4))
    assert info.value.code == "already_voted"


def test_the_reveal_happens_when_the_last_vote_is_in() -> None:
    s = ordered(players=2)
    s = fold(s, when(s, 0, **vote(LOW, HIGH)))
    events = when(s, 1, **vote(HIGH, LOW))
    assert [e.type for e in events] == ["VoteCast", "RoundRevealed", "RoundStarted"]
    revealed = events[1].data
    assert revealed["answers"] == [50, 7, 900, 3000, 120, 64]
    assert (revealed["lowest_position"], revealed["highest_position"]) == (LOW, HIGH)
    assert revealed["changes"] == [2, 0]  # seat 1: -2, floored at 0 (GM-4)


def test_non_players_cannot_vote() -> None:
    with pytest.raises(RuleViolation) as info:
        when(ordered(), 5, **vote(1, 2))
    assert info.value.code == "not_a_player"


# ruling GM-4
@pytest.mark.parametrize(
    ("lowest", "highest", "penalties", "change"),
    [
        (LOW, HIGH, True, 2),
        (LOW, 1, True, 1),
        (1, HIGH, True, 1),
        (1, 3, True, 0),
        (HIGH, LOW, True, -2),
        (HIGH, LOW, False, 0),
        (HIGH, 1, True, -1),
    ],
)
def test_scoring(lowest: int, highest: int, penalties: bool, change: int) -> None:
    assert score_change(Vote(lowest, highest, "", ""), LOW, HIGH, penalties) == change


def test_a_score_never_goes_below_zero() -> None:
    s = ordered(players=2).but(scores=(1, 0))
    s = fold(s, when(s, 0, **vote(HIGH, LOW)))
    revealed = when(s, 1, **vote(HIGH, LOW))[1].data
    assert revealed["scores"] == [0, 0] and revealed["changes"] == [-1, 0]


VOTES = st.tuples(st.integers(1, 6), st.integers(1, 6)).filter(lambda v: v[0] != v[1])


@given(VOTES, st.permutations([1, 2, 3, 4, 5, 6]), st.booleans(), st.integers(0, 10))
def test_a_round_changes_a_score_by_minus_2_to_2_never_mixing_gain_and_loss(
    v: tuple[int, int], order: list[int], penalties: bool, score: int
) -> None:
    lowest, highest = order[0], order[1]
    vote_ = Vote(v[0], v[1], "", "")
    gains = (vote_.highest == highest) + (vote_.lowest == lowest)
    losses = (vote_.highest == lowest) + (vote_.lowest == highest)
    assert not (gains and losses)
    delta = score_change(vote_, lowest, highest, penalties)
    assert -2 <= delta <= 2
    if not penalties:
        assert delta >= 0
    assert max(0, score + delta) >= 0


# ruling GM-5
def test_everyone_at_or_above_the_target_wins_together() -> None:
    s = ordered(players=3, target=2)
    for seat in (0, 1):
        s = fold(s, when(s, seat, **vote(LOW, HIGH)))
    events = when(s, 2, **vote(1, 3))
    assert [e.type for e in events] == ["VoteCast", "RoundRevealed", "GameEnded"]
    assert events[-1].data["winners"] == [0, 1] and events[-1].data["losers"] == [2]
    assert events[-1].data["seed"] == "gm-seed"


def test_an_exhausted_deck_is_reshuffled_from_the_discards() -> None:
    s = ordered(players=2)
    kinds: list[str] = []
    for _ in range(3):
        s = fold(s, when(s, 0, **vote(1, 3)))
        events = when(s, 1, **vote(1, 3))
        s = fold(s, events)
        kinds += [e.type for e in events]
    assert kinds.count("DeckReshuffled") == 1
    assert s.round == 4 and len(s.table) == 6
    assert len(s.pile) + len(s.discard) + len(s.table) == 12


# ruling AL-1
def test_votes_are_committed_and_hidden_until_the_reveal() -> None:
    s = ordered(players=3)
    cast = when(s, 0, **vote(LOW, HIGH))[0]
    d = cast.data
    expected = hashlib.sha256(f"{d['salt']}:{LOW}:{HIGH}".encode()).hexdigest()
    assert d["commitment"] == expected
    assert redact(s, cast, 1).data == {"seat": 0, "commitment": expected}
    assert redact(s, cast, -1).data == {"seat": 0, "commitment": expected}
    s = fold(s, [cast])
    for seat in (1, 2, -1):
        v = view(s, seat)
        assert v["voted"] == [0] and v["your_vote"] is None
        assert "votes" not in v and "answers" not in v
    assert view(s, 0)["your_vote"] == {"lowest": LOW, "highest": HIGH}


# ruling AL-3
def test_close_round_only_after_the_deadline_then_missing_voters_score_nothing() -> None:
    s = ordered(players=3, round_timer=30)
    assert s.deadline_ms == 31_000
    s = fold(s, when(s, 0, **vote(LOW, HIGH)))
    with pytest.raises(RuleViolation) as info:
        when(s, -1, now_ms=30_999, type="close_round")
    assert info.value.code == "round_still_open"
    events = when(s, -1, now_ms=31_000, type="close_round")
    assert [e.type for e in events] == ["RoundRevealed", "RoundStarted"]
    assert events[0].data["changes"] == [2, 0, 0] and events[0].data["closed_by"] == "timer"
    assert events[1].data["deadline_ms"] == 31_000 + 30_000


def test_close_round_without_a_timer_is_rejected() -> None:
    with pytest.raises(RuleViolation) as info:
        when(ordered(), 0, type="close_round")
    assert info.value.code == "no_round_timer"


def test_after_the_end_nothing_is_accepted_and_legal_commands_are_empty() -> None:
    s = ordered(players=2, target=1)
    s = fold(s, when(s, 0, **vote(LOW, HIGH)))
    s = fold(s, when(s, 1, **vote(1, 3)))
    assert s.over
    with pytest.raises(RuleViolation):
        when(s, 0, **vote(1, 2))
    assert legal_commands(s, 0)["commands"] == []


@pytest.mark.parametrize(
    "options",
    [
        {"target": 0},
        {"penalties": "maybe"},
        {"deck": "other"},
        {"round_timer": 2},
        {"colour": 1},
        {"themes": ["no-such-theme"]},
    ],
)
def test_bad_options_are_rejected(options: dict) -> None:
    with pytest.raises(InvalidArgument):
        Playthrough.start(GAME, options, [SeatSpec("human")] * 2, "s")


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 8), st.text(min_size=1, max_size=8), st.booleans())
def test_bot_games_keep_scores_non_negative_and_fold_exactly(
    players: int, seed: str, penalties: bool
) -> None:
    bots = ["random", "easy", "normal", "expert"] * 2
    options = {"penalties": penalties, "target": 4}
    p = Playthrough.start(GAME, options, [SeatSpec("bot")] * players, seed)
    rng = SeededRng(seed, "bots")
    while not p.state.over:
        seat = status(p.state).to_act[0]
        p.execute(seat, BOTS[bots[seat]](view(p.state, seat), legal_commands(p.state, seat), rng))
        assert all(score >= 0 for score in p.state.scores)
    assert p.state.winners and all(p.state.scores[w] >= 4 for w in p.state.winners)
    assert fold(GAME.initial(), p.events) == p.state
