"""Bot evaluation: the heuristic bot against two random bots in 3-player games.

    python -m services.giraffe_raffe.evaluate --games 500

A player "wins" a Giraffe Raffe game when it is not the one who loses (GR-9).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from services.giraffe_raffe.bots import BOTS
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.state import State
from services.kernel.evaluation import win_rate
from services.kernel.playthrough import play_bots

MAX_MOVES = 5000


def play_game(bots: Sequence[str], seed: str, options: dict[str, object] | None = None) -> State:
    """One game of bots, in memory; the bot at seat i is ``bots[i]``."""
    state: State = play_bots(GAME, [BOTS[b] for b in bots], seed, options, MAX_MOVES).state
    return state


def heuristic_win_rate(games: int, progress: bool = False) -> float:
    """Share of games the heuristic bot wins; it sits at every seat in turn."""
    return win_rate(play_game, "heuristic", "random", 3, games, progress=progress)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    rate = heuristic_win_rate(args.games, progress=True)
    print(f"heuristic bot won {rate:.1%} of {args.games} 3-player games against two random bots")


if __name__ == "__main__":
    main()
