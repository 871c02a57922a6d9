"""Bots play legal moves and the heuristic bot beats random ones (a smaller seeded run
of services/giraffe_raffe/evaluate.py)."""

from __future__ import annotations

from services.giraffe_raffe.evaluate import heuristic_win_rate, play_game


def test_the_heuristic_bot_wins_at_least_60_percent_against_random_bots() -> None:
    assert heuristic_win_rate(60) >= 0.6


def test_bot_games_end_in_every_mode() -> None:
    for options, bots in [
        ({"mode": "longer"}, ["heuristic", "random"]),
        ({"mode": "solo"}, ["heuristic"]),
        ({"mode": "standard", "count_rule": "exactly_one_more"}, ["random"] * 5),
    ]:
        assert play_game(bots, "end", options).over
