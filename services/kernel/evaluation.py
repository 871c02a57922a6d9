"""Bot against bot over many seeded games, the shared loop of every evaluate script."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

PlayGame = Callable[[Sequence[str], str], Any]  # (bots by seat, seed) -> final state


def win_rate(
    play_game: PlayGame,
    bot: str,
    opponent: str,
    players: int,
    games: int,
    alone: bool = False,
    progress: bool = False,
    first: int = 0,
) -> float:
    """Share of games ``bot`` wins against ``opponent``s, sitting at every seat in turn.
    With ``alone``, a win shared with an opponent (a tie) does not count. Games are
    numbered from ``first`` (each game's seed), so runs in several processes add up."""
    won = 0
    for n in range(first, first + games):
        seat = n % players
        bots = [opponent] * players
        bots[seat] = bot
        winners = set(play_game(bots, f"eval-{n}").winners)
        won += seat in winners and not (alone and winners - {seat})
        if progress and (n + 1 - first) % 10 == 0:
            print(f"\r{n + 1 - first}/{games} games, {bot} won {won}", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    return won / games
