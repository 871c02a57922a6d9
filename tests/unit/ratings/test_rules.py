"""The ratings rules (services.ratings.rules): who a game rates, and that folding the
recorded GameRated events gives back exactly the ratings the rater held live, in any
number of games in any order of results (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.kernel.events import stored
from services.ratings import rules
from services.ratings.events import TYPES
from services.ratings.rules import Ratings

PLAYERS = ["pla", "plb", "plc", "bot:random", "bot:expert"]

tables = st.lists(
    st.tuples(
        st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=4),
        st.lists(st.integers(0, 5), min_size=4, max_size=4),
    ),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(tables)
def test_the_recorded_events_fold_back_to_the_live_ratings(
    games: list[tuple[list[str], list[int]]],
) -> None:
    live, log = Ratings(), []
    for n, (players, keys) in enumerate(games):
        e = rules.decide(
            live, f"g{n}", "giraffometer", n, players, [float(k) for k in keys[: len(players)]]
        )
        rules.evolve(live, e)
        log.append(stored(e))
    replayed = Ratings()
    for e in log:
        rules.evolve(replayed, TYPES.parse(e))
    assert replayed == live
    for player, standing in live.players.items():
        assert standing.games == sum(player in players for players, _ in games)


def test_who_a_game_rates() -> None:
    human = {"kind": "human"}
    bot = {"kind": "bot", "bot_level": ""}
    assert rules.rated_players([human, bot], {0: "pla"}, "heuristic") == ["pla", "bot:heuristic"]
    assert rules.rated_players([human, bot], {}, "heuristic") is None  # an anonymous seat
    assert rules.rated_players([bot, bot], {}, "heuristic") is None  # bots alone
    assert rules.rated_players([human], {0: "pla"}, "heuristic") is None  # solo


def test_a_winner_gains_and_a_loser_loses() -> None:
    e = rules.decide(Ratings(), "g", "giraffometer", 0, ["pla", "plb"], [3.0, 1.0])
    assert e.places == [1, 2]
    assert rules.score(e.after[0]) > rules.score(e.before[0])
    assert rules.score(e.after[1]) < rules.score(e.before[1])


def test_a_leaver_ranks_last_and_loses_more_than_last_place() -> None:
    from services.kernel.table import ranked_keys

    players = ["pa", "pb", "pc"]
    keys = ranked_keys([3.0, 9.0, 1.0], None, [1])  # seat 1 led, then left
    assert keys[1] < min(keys[0], keys[2])
    last = rules.decide(Ratings(), "g", "giraffe-raffe", 1, players, [3.0, 2.0, 1.0])
    left = rules.decide(Ratings(), "g", "giraffe-raffe", 1, players, keys, [1])
    assert left.places[1] == 3 and left.left == [1]
    assert left.after[1][0] == round(last.after[2][0] - rules.LEAVE_PENALTY, 6)
