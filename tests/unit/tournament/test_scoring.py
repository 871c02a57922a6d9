"""Scoring: a table hands out one point per pair of seats; duplicate matchpoints one per
pair of tables at each seat; each game's result keys order seats as its rules do."""

from __future__ import annotations

from math import comb

from hypothesis import given
from hypothesis import strategies as st

from services.games import GAMES
from services.kernel.playthrough import play_bots
from services.tournament import scoring

keys = st.lists(st.integers(min_value=-5, max_value=5).map(float), min_size=2, max_size=8)


@given(keys)
def test_table_points_share_one_point_per_pair_and_follow_the_keys(k: list[float]) -> None:
    points = scoring.table_points(k)
    assert sum(points) == comb(len(k), 2)
    for a in range(len(k)):
        for b in range(len(k)):
            if k[a] > k[b]:
                assert points[a] > points[b]
    assert scoring.ranks(k) == [1 + sum(o > m for o in k) for m in k]


@given(st.integers(2, 6), st.integers(2, 5), st.data())
def test_matchpoints_compare_each_seat_with_the_same_seat_elsewhere(
    tables: int, seats: int, data: st.DataObject
) -> None:
    results = [
        data.draw(st.lists(st.integers(0, 3).map(float), min_size=seats, max_size=seats))
        for _ in range(tables)
    ]
    points = scoring.matchpoints(results)
    for seat in range(seats):
        assert sum(p[seat] for p in points) == comb(tables, 2)
        best = max(r[seat] for r in results)
        for t, r in enumerate(results):
            if r[seat] == best and sum(x[seat] == best for x in results) == 1:
                assert points[t][seat] == tables - 1


def test_each_games_keys_rank_its_winners_first() -> None:
    for name, game in GAMES.items():
        for seed in ("a", "b", "c"):
            p = play_bots(game, [GAMES[name].bot("random")] * 3, f"score-{seed}")
            final = game.view(p.state, -1)
            k = scoring.result_keys(name, final)
            winners, losers = final["status"]["winners"], final["status"]["losers"]
            assert len(k) == 3
            if name == "riff-raff":  # the winner emptied their supply or holds the fewest
                assert all(k[w] == max(k) for w in winners)
            else:
                assert all(k[w] > k[lose] for w in winners for lose in losers)
