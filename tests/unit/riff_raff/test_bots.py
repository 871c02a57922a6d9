"""The careful bot beats the random bot (a smaller seeded run of evaluate.py)."""

from __future__ import annotations

from services.riff_raff.evaluate import Tally, careful_beats_random, play_game


def test_the_careful_bot_beats_the_random_bot_at_least_70_percent() -> None:
    assert careful_beats_random(24) >= 0.7


def test_top_yardarm_loads_fall_more_often_than_deck_loads() -> None:
    tally = Tally()
    for n in range(12):
        play_game(["random", "random"], f"tally-{n}", tally)
    deck = sum(tally.own[a] for a in (1, 2, 3, 4)) / sum(tally.loads[a] for a in (1, 2, 3, 4))
    top = sum(tally.own[a] for a in (9, 10)) / sum(tally.loads[a] for a in (9, 10))
    assert top > 2 * deck
