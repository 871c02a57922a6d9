"""Bot evaluation: the expert estimator against the random bot in 2-player games.

    python -m services.giraffometer.evaluate --games 300

"Beats" means the expert wins and the random bot does not (ties win together, GM-5).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from services.core.game import SeatSpec
from services.core.playthrough import Playthrough
from services.core.rng import SeededRng
from services.giraffometer.bots import BOTS
from services.giraffometer.game import GAME
from services.giraffometer.rules import status
from services.giraffometer.state import State
from services.giraffometer.view import legal_commands, view

MAX_MOVES = 10_000


def play_game(bots: Sequence[str], seed: str, options: dict[str, object] | None = None) -> State:
    p = Playthrough.start(GAME, options or {}, [SeatSpec("bot")] * len(bots), seed)
    rng = SeededRng(seed, "bots")
    for _ in range(MAX_MOVES):
        if p.state.over:
            return p.state
        seat = status(p.state).to_act[0]
        p.execute(seat, BOTS[bots[seat]](view(p.state, seat), legal_commands(p.state, seat), rng))
    raise RuntimeError(f"game {seed} did not end")


def expert_beats_random(games: int, progress: bool = False) -> float:
    beaten = 0
    for n in range(games):
        seat = n % 2
        bots = ["random", "random"]
        bots[seat] = "expert"
        final = play_game(bots, f"eval-{n}")
        beaten += seat in final.winners and (1 - seat) not in final.winners
        if progress and (n + 1) % 25 == 0:
            print(f"\r{n + 1}/{games} games, expert beat random {beaten}", end="", file=sys.stderr)
    if progress:
        print(file=sys.stderr)
    return beaten / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    rate = expert_beats_random(args.games, progress=True)
    print(f"expert bot beat the random bot in {rate:.1%} of {args.games} 2-player games")


if __name__ == "__main__":
    main()
