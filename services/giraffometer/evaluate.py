"""Bot evaluation: the expert estimator against the random bot in 2-player games.

    python -m services.giraffometer.evaluate --games 300

"Beats" means the expert wins and the random bot does not (ties win together, GM-5).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from services.giraffometer.bots import BOTS
from services.giraffometer.game import GAME
from services.giraffometer.state import State
from services.kernel.evaluation import win_rate
from services.kernel.playthrough import play_bots

MAX_MOVES = 10_000


def play_game(bots: Sequence[str], seed: str, options: dict[str, object] | None = None) -> State:
    state: State = play_bots(GAME, [BOTS[b] for b in bots], seed, options, MAX_MOVES).state
    return state


def expert_beats_random(games: int, progress: bool = False) -> float:
    return win_rate(play_game, "expert", "random", 2, games, alone=True, progress=progress)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    rate = expert_beats_random(args.games, progress=True)
    print(f"expert bot beat the random bot in {rate:.1%} of {args.games} 2-player games")


if __name__ == "__main__":
    main()
