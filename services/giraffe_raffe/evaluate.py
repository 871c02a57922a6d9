"""Bot evaluation: one level against another, sitting at every seat in turn.

    python -m services.giraffe_raffe.evaluate --games 500     # heuristic against 2 random
    # Master against 3 Intermediate:
    python -m services.giraffe_raffe.evaluate --bot search --against heuristic --players 4

A player "wins" a Giraffe Raffe game when it is not the one who loses (GR-9). Runs split
over processes with ``--first`` (the first game's number) add up: each game is its seed.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.state import State
from services.kernel.evaluation import win_rate
from services.kernel.playthrough import play_bots

MAX_MOVES = 5000


def play_game(bots: Sequence[str], seed: str, options: dict[str, object] | None = None) -> State:
    """One game of bots, in memory; the bot at seat i plays the level ``bots[i]``."""
    state: State = play_bots(GAME, [GAME.bots[b] for b in bots], seed, options, MAX_MOVES).state
    return state


def heuristic_win_rate(games: int, progress: bool = False) -> float:
    """Share of games the heuristic bot wins; it sits at every seat in turn."""
    return win_rate(play_game, "heuristic", "random", 3, games, progress=progress)


def interval(rate: float, games: int) -> float:
    """The half-width of a 95% confidence interval of a rate (normal approximation)."""
    return 1.96 * math.sqrt(max(rate * (1 - rate), 1e-12) / games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--bot", default="heuristic", choices=sorted(GAME.bots))
    parser.add_argument("--against", default="random", choices=sorted(GAME.bots))
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--first", type=int, default=0)
    args = parser.parse_args()
    rate = win_rate(
        play_game, args.bot, args.against, args.players, args.games, progress=True, first=args.first
    )
    lost = 1 - rate
    print(
        f"{args.bot} lost {lost:.1%} ± {interval(lost, args.games):.1%} of {args.games} "
        f"{args.players}-player games against {args.against} (any seat's share: "
        f"{1 / args.players:.1%})"
    )


if __name__ == "__main__":
    main()
