"""Climbing the bot ladder (gateway/accounts/ladder.py): rungs are climbed in order,
each by two wins at a fair table of two; practice, stand-ins and bigger tables do not
count."""

from __future__ import annotations

from typing import Any

from gateway.accounts.awaiting import InPlay
from gateway.accounts.ladder import climb
from gateway.games.catalog import BotLevel

LEVELS = [BotLevel(level=lv, name=lv.title(), about="") for lv in ("random", "easy", "normal")]


def game(level: str, won: bool, **extra: Any) -> InPlay:
    seats = [{"kind": "human", "player": "me"}, {"kind": "bot", "bot_level": level}]
    status = {"over": True, "winners": [0] if won else [1], "losers": [1] if won else [0]}
    summary = {"game": "giraffometer", "seats": seats, "status": status, **extra}
    return InPlay("g", 0, summary)


def test_rungs_are_climbed_in_order_by_two_wins_each() -> None:
    games = [game("random", True), game("random", True), game("normal", True), game("normal", True)]
    ladder = climb(LEVELS, games, "giraffometer")
    assert [r.beaten for r in ladder["rungs"]] == [True, False, True]
    assert (ladder["climbed"], ladder["next"]) == (1, "easy")  # easy is next, not above it


def test_only_fair_finished_duels_count() -> None:
    stood_in = game("random", True)
    stood_in.summary["status"]["stand_ins"] = [0]
    three = game("random", True)
    three.summary["seats"].append({"kind": "bot", "bot_level": "random"})
    running = game("random", True)
    running.summary["status"]["over"] = False
    other_kind = game("random", True)
    other_kind.summary["game"] = "riff-raff"
    games = [game("random", True, practice=True), stood_in, three, running, other_kind]
    games.append(game("random", False))
    ladder = climb(LEVELS, games, "giraffometer")
    assert (ladder["rungs"][0].games, ladder["rungs"][0].wins) == (1, 0)
    assert (ladder["climbed"], ladder["next"]) == (0, "random")
