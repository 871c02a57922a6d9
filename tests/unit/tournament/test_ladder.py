"""A bot ladder (docs/bots.md): every entrant in every seat of every round's deal, only
bots, and what it publishes per level, read off the tournament's public view."""

from __future__ import annotations

import pytest

from services.core.errors import RuleViolation
from services.kernel.game import ENGINE, SeatSpec
from services.kernel.playthrough import Playthrough
from services.tournament.game import GAME
from services.tournament.ladder import levels, paired, places
from services.tournament.rules import ORGANISER
from services.tournament.state import State

LEVELS = ["random", "heuristic", "search"]


def ladder(rounds: int, entrants: list[tuple[str, str]]) -> Playthrough[State]:
    options = {"format": "ladder", "table_size": 3, "rounds": rounds, "games": ["giraffe-raffe"]}
    p = Playthrough.start(GAME, options, [SeatSpec("human")], "ladder-seed")
    for kind, level in entrants:
        p.execute(ORGANISER, {"type": "register", "name": level, "kind": kind, "bot_level": level})
    return p


def test_every_entrant_plays_every_seat_of_each_deal() -> None:
    p = ladder(2, [("bot", level) for level in LEVELS])
    p.execute(ORGANISER, {"type": "start"})
    current = p.state.current
    assert current is not None
    seats = [tuple(t.players) for t in current.tables]
    assert sorted(seats) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    for seat in range(3):  # each seat held by each entrant once
        assert sorted(t[seat] for t in seats) == [0, 1, 2]


@pytest.mark.parametrize(
    "entrants",
    [[("bot", "random"), ("bot", "heuristic")], [("bot", "random"), ("bot", "x"), ("human", "h")]],
    ids=["too few", "a person"],
)
def test_a_ladder_is_exactly_a_table_of_bots(entrants: list[tuple[str, str]]) -> None:
    p = ladder(2, entrants)
    with pytest.raises(RuleViolation) as refused:
        p.execute(ORGANISER, {"type": "start"})
    assert refused.value.code in ("bad_ladder", "too_few_players")
    assert not p.state.started


def play(p: Playthrough[State], best_first: list[int]) -> None:
    """Every table's result: entrants finish in ``best_first`` order wherever they sit."""
    while not p.state.over:
        current = p.state.current
        assert current is not None
        for t in [t for t in current.tables if not t.finished]:
            keys = [float(len(best_first) - best_first.index(q)) for q in t.players]
            result = {"type": "result", "round": current.round, "table": t.table, "keys": keys}
            p.execute(ENGINE, result)


def test_the_report_ranks_the_levels_and_says_who_beats_whom() -> None:
    p = ladder(6, [("bot", level) for level in LEVELS])
    p.execute(ORGANISER, {"type": "start"})
    play(p, [2, 1, 0])  # search first, heuristic second, random last, on every deal
    view = GAME.view(p.state, -1)
    published = levels(view)
    assert [r.level for r in published] == ["search", "heuristic", "random"]
    assert [r.place.mean for r in published] == [1.0, 2.0, 3.0]
    assert [r.wins.mean for r in published] == [1.0, 0.0, 0.0]
    assert all(r.games == 18 for r in published)  # 6 deals, 3 rotations each
    gap = paired(view, "search", "heuristic")
    assert gap.mean == 1.0 and gap.excludes_zero


def test_shared_places_and_no_difference() -> None:
    assert places([3.0, 3.0, 1.0]) == [1, 1, 3]
    p = ladder(4, [("bot", level) for level in LEVELS])
    p.execute(ORGANISER, {"type": "start"})
    while not p.state.over:  # every table a three-way tie
        current = p.state.current
        assert current is not None
        for t in [t for t in current.tables if not t.finished]:
            result = {"type": "result", "round": current.round, "table": t.table, "keys": [1, 1, 1]}
            p.execute(ENGINE, result)
    gap = paired(GAME.view(p.state, -1), "search", "random")
    assert gap.mean == 0.0 and not gap.excludes_zero


ROBO = "pl" + "ab" * 12  # a bot account's id (docs/bot-api.md)


def test_a_bot_account_enters_a_ladder_as_a_bot_and_a_person_account_does_not() -> None:
    p = ladder(2, [("bot", "random"), ("bot", "heuristic")])
    program = {"type": "register", "name": "Robo", "kind": "human", "account": ROBO}
    p.execute(ORGANISER, {**program, "program": True})
    with pytest.raises(RuleViolation) as twice:
        p.execute(ORGANISER, {**program, "name": "Robo again", "program": True})
    assert twice.value.code == "already_entered"
    p.execute(ORGANISER, {"type": "start"})
    assert p.state.started and p.state.players[2].account == ROBO
    person = ladder(2, [("bot", "random"), ("bot", "heuristic")])
    person.execute(ORGANISER, {**program, "program": False})
    with pytest.raises(RuleViolation) as refused:
        person.execute(ORGANISER, {"type": "start"})
    assert refused.value.code == "bad_ladder"


@pytest.mark.parametrize("allowed", [False, True])
def test_a_tournament_takes_bot_accounts_only_when_it_says_so(allowed: bool) -> None:
    options = {"format": "swiss", "games": ["giraffometer"], "open_registration": True}
    options |= {"bots_allowed": True} if allowed else {}
    p = Playthrough.start(GAME, options, [SeatSpec("human")], "open-seed")
    join = {"type": "join", "name": "Robo", "account": ROBO, "program": True}
    if allowed:
        p.execute(ENGINE, join)
        assert p.state.players[0].plays_as_bot
    else:
        with pytest.raises(RuleViolation) as refused:
            p.execute(ENGINE, join)
        assert refused.value.code == "bots_not_allowed" and not p.state.players
    assert ("bots_allowed" in p.state.options) == allowed  # left out when off
