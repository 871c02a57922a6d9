"""The tournament's rules in memory: every format runs to its end for any results,
seats everyone once a round, hands out points and ratings, and folds back from its
events to the same state; bad commands are refused with a code and change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.core.errors import InvalidArgument, RuleViolation
from services.kernel.game import ENGINE, SeatSpec
from services.kernel.playthrough import Playthrough
from services.tournament import pairing
from services.tournament.game import GAME
from services.tournament.rules import ORGANISER, evolve
from services.tournament.state import State

FORMATS = [
    ({"format": "swiss", "table_size": 3, "rounds": 4}, range(3, 17)),
    ({"format": "duplicate", "table_size": 3, "rounds": 3}, range(6, 17)),
    ({"format": "elimination", "table_size": 3, "advance": 1}, range(3, 28)),
    ({"format": "elimination", "table_size": 4, "advance": 2}, range(4, 28)),
    ({"format": "round_robin"}, range(2, 11)),
    ({"format": "ladder", "table_size": 3, "rounds": 4}, range(3, 4)),
    ({"format": "ladder", "table_size": 4, "rounds": 3}, range(4, 5)),
]


def started(options: dict[str, Any], players: int) -> Playthrough[State]:
    p = Playthrough.start(GAME, options, [SeatSpec("human")], "t-seed")
    for i in range(players):
        p.execute(ORGANISER, {"type": "register", "name": f"p{i}", "kind": "bot"})
    p.execute(ORGANISER, {"type": "start"})
    return p


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMATS), st.data())
def test_every_format_ends_seating_everyone_once_a_round(fmt: Any, data: st.DataObject) -> None:
    options, sizes = fmt
    n = data.draw(st.sampled_from(list(sizes)))
    p = started(options, n)
    for _ in range(500):
        if p.state.over:
            break
        current = p.state.current
        assert current is not None
        seated = [q for t in current.tables for q in t.players] + list(current.byes)
        pool = p.state.alive if options["format"] == "elimination" else range(n)
        if options["format"] == "ladder":  # every entrant at every table (a rotation each)
            pool = [q for q in range(n) for _ in range(n)]
        assert sorted(seated) == sorted(pool)
        table = data.draw(st.sampled_from([t for t in current.tables if not t.finished]))
        keys = data.draw(
            st.lists(st.integers(0, 3), min_size=len(table.players), max_size=len(table.players))
        )
        p.execute(
            ENGINE, {"type": "result", "round": current.round, "table": table.table, "keys": keys}
        )
    assert p.state.over and len(p.state.champions) == 1
    view = GAME.view(p.state, -1)
    assert [s["rank"] for s in view["standings"]] == list(range(1, n + 1))
    assert len(view["rating_history"]) == len(p.state.rounds)
    if options["format"] == "round_robin":
        assert len(p.state.rounds) == pairing.round_robin_rounds(n)
    if options["format"] in ("swiss", "duplicate", "ladder"):
        assert len(p.state.rounds) == options["rounds"]
    folded = State()
    for e in p.events:
        folded = evolve(folded, e)
    assert folded == p.state


def test_winning_every_game_wins_the_swiss_and_rates_highest() -> None:
    p = started({"format": "swiss", "table_size": 3, "rounds": 3}, 9)
    while not p.state.over:
        current = p.state.current
        assert current is not None
        table = next(t for t in current.tables if not t.finished)
        keys = [10 if q == 0 else q for q in table.players]  # player 0 always best
        p.execute(
            ENGINE, {"type": "result", "round": current.round, "table": table.table, "keys": keys}
        )
    view = GAME.view(p.state, -1)
    assert p.state.champions == (0,) and view["standings"][0]["player"] == 0
    assert view["standings"][0]["points"] == 6.0  # beat two at each of three tables
    best = max(view["standings"], key=lambda s: s["rating"]["ordinal"])
    assert best["player"] == 0


@pytest.mark.parametrize(
    ("seat", "command", "code"),
    [
        (1, {"type": "register", "name": "x"}, "not_organiser"),
        (ORGANISER, {"type": "register", "name": ""}, "bad_name"),
        (ORGANISER, {"type": "register", "name": "p0"}, "name_taken"),
        (ORGANISER, {"type": "register", "name": "x", "kind": "robot"}, "bad_player"),
        (ORGANISER, {"type": "result", "round": 1, "table": 0, "keys": [1, 2]}, "not_yours"),
        (ENGINE, {"type": "result", "round": 1, "table": 0, "keys": [1]}, "not_current"),
        (ORGANISER, {"type": "start", "now": 1}, "unknown_field"),
    ],
)
def test_bad_commands_before_the_start_are_refused_and_change_nothing(
    seat: int, command: dict[str, Any], code: str
) -> None:
    p = Playthrough.start(GAME, {"table_size": 2}, [SeatSpec("human")], "s")
    p.execute(ORGANISER, {"type": "register", "name": "p0"})
    before = p.state
    with pytest.raises((RuleViolation, InvalidArgument)) as info:
        p.execute(seat, command)
    assert info.value.code == code and p.state == before


def test_ratings_move_as_each_game_finishes() -> None:
    p = started({"format": "swiss", "table_size": 3, "rounds": 2}, 6)
    current = p.state.current
    assert current is not None
    first, other = current.tables
    before = p.state.ratings
    p.execute(ENGINE, {"type": "result", "round": 1, "table": first.table, "keys": [3, 2, 1]})
    winner, _, last = first.players
    assert p.state.ratings[winner][0] > before[winner][0] > p.state.ratings[last][0]
    assert all(p.state.ratings[q] == before[q] for q in other.players)  # not played yet
    assert len(p.state.rating_history) == 0  # the round has not ended


def test_a_duplicate_round_with_a_person_holds_its_results_until_every_table_is_done() -> None:
    """A finished table's result tells how the round's deal plays: while another table
    still plays it, nobody sees any table's result, nor the ratings it moved."""
    p = Playthrough.start(GAME, {"format": "duplicate", "table_size": 2}, [SeatSpec("human")], "s")
    p.execute(ORGANISER, {"type": "register", "name": "ada", "kind": "human"})
    for i in range(3):
        p.execute(ORGANISER, {"type": "register", "name": f"b{i}", "kind": "bot"})
    p.execute(ORGANISER, {"type": "start"})
    current = p.state.current
    assert current is not None and len(current.tables) == 2
    first = current.tables[0]
    done = p.execute(
        ENGINE, {"type": "result", "round": 1, "table": first.table, "keys": [1.0, 0.0]}
    )
    seen = GAME.view(p.state, -1)
    assert [t["keys"] for t in seen["rounds"][0]["tables"]] == [None, None]
    assert all(s["rating"]["mu"] == seen["standings"][0]["rating"]["mu"] for s in seen["standings"])
    hidden = GAME.redact(p.state, done[0], -1)
    assert hidden.type == "TableFinished" and "keys" not in hidden.data
    last = current.tables[1]
    p.execute(ENGINE, {"type": "result", "round": 1, "table": last.table, "keys": [0.0, 1.0]})
    shown = GAME.view(p.state, -1)["rounds"][0]["tables"]
    assert [list(t["keys"]) for t in shown] == [[1.0, 0.0], [0.0, 1.0]]
    assert "keys" in GAME.redact(p.state, done[0], -1).data


def test_results_are_checked_against_the_current_round() -> None:
    p = started({"format": "swiss", "table_size": 3, "rounds": 2}, 6)
    current = p.state.current
    assert current is not None
    refused = [
        ({"round": 2, "table": 0, "keys": [1, 2, 3]}, "not_current"),
        ({"round": 1, "table": 9, "keys": [1, 2, 3]}, "not_current"),
        ({"round": 1, "table": 0, "keys": [1, 2]}, "bad_keys"),
        ({"round": 1, "table": 0, "keys": [1, True, 3]}, "bad_keys"),
    ]
    for fields, code in refused:
        with pytest.raises((RuleViolation, InvalidArgument)) as info:
            p.execute(ENGINE, {"type": "result", **fields})
        assert info.value.code == code
    p.execute(ENGINE, {"type": "result", "round": 1, "table": 0, "keys": [1, 2, 3]})
    with pytest.raises(RuleViolation) as again:
        p.execute(ENGINE, {"type": "result", "round": 1, "table": 0, "keys": [1, 2, 3]})
    assert again.value.code == "not_current"
    with pytest.raises(RuleViolation):
        p.execute(ORGANISER, {"type": "register", "name": "late"})


@pytest.mark.parametrize(
    "options",
    [
        {"format": "round_robin", "table_size": 3},
        {"format": "knockout"},
        {"games": ["chess"]},
        {"games": ["riff-raff"], "table_size": 5},
        {"rounds": 0},
        {"colour": "blue"},
        {"game_options": {"giraffe-raffe": {"turn_timer": 1}}},
    ],
)
def test_bad_options_are_refused_at_creation(options: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        GAME.options(options, [SeatSpec("human")])


def test_anyone_joins_an_open_tournament_until_it_starts() -> None:
    """Open registration: a person joins by name through the gateway (the engine's own
    actor), recorded as such; a closed tournament, a started one, a taken name or a
    command from a seat are refused and change nothing."""
    p = Playthrough.start(
        GAME, {"table_size": 2, "open_registration": True}, [SeatSpec("human")], "s"
    )
    joined = p.execute(ENGINE, {"type": "join", "name": "Ada"})
    assert [(e.type, e.data["kind"], e.actor) for e in joined] == [
        ("PlayerRegistered", "human", ENGINE)
    ]
    refusals = [
        (ORGANISER, {"type": "join", "name": "Bob"}, "not_yours"),
        (ENGINE, {"type": "join", "name": "Ada"}, "name_taken"),
        (ENGINE, {"type": "join", "name": ""}, "bad_name"),
        (ENGINE, {"type": "join", "name": "Bob", "kind": "bot"}, "unknown_field"),
    ]
    for seat, command, code in refusals:
        before = p.state
        with pytest.raises((RuleViolation, InvalidArgument)) as info:
            p.execute(seat, command)
        assert info.value.code == code and p.state == before
    p.execute(ENGINE, {"type": "join", "name": "Bob"})
    p.execute(ORGANISER, {"type": "start"})
    with pytest.raises(RuleViolation) as late:
        p.execute(ENGINE, {"type": "join", "name": "Cy"})
    assert late.value.code == "already_started" and len(p.state.players) == 2
    closed = Playthrough.start(GAME, {"table_size": 2}, [SeatSpec("human")], "s")
    with pytest.raises(RuleViolation) as refused:
        closed.execute(ENGINE, {"type": "join", "name": "Ada"})
    assert refused.value.code == "closed" and closed.state.players == ()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FORMATS), st.data())
def test_removed_entrants_are_never_seated_nor_ranked(fmt: Any, data: st.DataObject) -> None:
    """#30 item 3: whoever the organiser removes before the start never plays, and every
    format still seats each remaining entrant once a round to its end."""
    options, sizes = fmt
    n = data.draw(st.sampled_from(list(sizes)))
    p = Playthrough.start(GAME, options, [SeatSpec("human")], "t-seed")
    for i in range(n + 2):
        p.execute(ORGANISER, {"type": "register", "name": f"p{i}", "kind": "bot"})
    gone = data.draw(st.lists(st.integers(0, n + 1), min_size=2, max_size=2, unique=True))
    for player in gone:
        p.execute(ORGANISER, {"type": "remove", "player": player})
    with pytest.raises(RuleViolation):  # once is enough
        p.execute(ORGANISER, {"type": "remove", "player": gone[0]})
    p.execute(ORGANISER, {"type": "start"})
    while not p.state.over:
        current = p.state.current
        assert current is not None
        seated = [q for t in current.tables for q in t.players] + list(current.byes)
        assert not set(seated) & set(gone)
        table = next(t for t in current.tables if not t.finished)
        keys = data.draw(
            st.lists(st.integers(0, 3), min_size=len(table.players), max_size=len(table.players))
        )
        p.execute(
            ENGINE, {"type": "result", "round": current.round, "table": table.table, "keys": keys}
        )
    standings = GAME.view(p.state, -1)["standings"]
    assert sorted(s["player"] for s in standings) == sorted(set(range(n + 2)) - set(gone))


def test_removal_is_the_organisers_before_the_start() -> None:
    p = Playthrough.start(GAME, {"table_size": 3}, [SeatSpec("human")], "t-seed")
    for i in range(4):
        p.execute(ORGANISER, {"type": "register", "name": f"p{i}", "kind": "bot"})
    with pytest.raises(RuleViolation):
        p.execute(ENGINE, {"type": "remove", "player": 0})
    with pytest.raises(InvalidArgument):
        p.execute(ORGANISER, {"type": "remove", "player": "0"})
    p.execute(ORGANISER, {"type": "remove", "player": 0})
    p.execute(ORGANISER, {"type": "register", "name": "p0", "kind": "bot"})  # free again
    p.execute(ORGANISER, {"type": "start"})
    with pytest.raises(RuleViolation):
        p.execute(ORGANISER, {"type": "remove", "player": 1})
