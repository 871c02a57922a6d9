"""Riff Raff in-process speed: simulated loads (CPU ms per load, against a load on the
empty ship as the baseline) and full bot games per second (random and careful bots).

    python -m bench.riff_raff [--short]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import cast

from bench.common import Figure, print_table, write_json
from services.riff_raff.evaluate import play_game
from services.riff_raff.pieces import piece_ids
from services.riff_raff.ship import Load, Placed, simulate


def load_ms(loads: int, busy: bool) -> float:
    """CPU ms per load; ``busy`` keeps up to 16 pieces aboard, else an empty ship."""
    r = random.Random(3)
    ids = piece_ids(0, 2) + piece_ids(1, 2)
    tilt, placed = 0.0, cast(tuple[Placed, ...], ())
    start = time.process_time()
    for n in range(loads):
        out = simulate(
            tilt, placed, Load(ids[n % len(ids)], r.randint(1, 10), r.random(), r.uniform(0, 180))
        )
        if busy:
            tilt, placed = out.tilt, out.pieces
            if len(placed) >= 16:
                tilt, placed = 0.0, cast(tuple[Placed, ...], ())
    return (time.process_time() - start) / loads * 1000


def games_per_second(bots: list[str], games: int) -> float:
    start = time.perf_counter()
    for n in range(games):
        play_game(bots, f"bench-{n}")
        print(f"\r  {bots[0]} games: {n + 1}/{games}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return games / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    loads, games = (300, 5) if args.short else (3000, 30)
    empty = load_ms(loads, busy=False)
    busy = load_ms(loads, busy=True)
    figures = [
        Figure("load on the empty ship (CPU)", empty, "ms/load"),
        Figure("load among up to 16 pieces (CPU)", busy, "ms/load", "empty ship", busy / empty),
        Figure(
            "random-bot games, 2 players", games_per_second(["random", "random"], games), "games/s"
        ),
        Figure(
            "careful-bot games, 2 players",
            games_per_second(["careful", "careful"], max(2, games // 5)),
            "games/s",
        ),
    ]
    print_table("riff raff (one core)", figures)
    print(f"written to {write_json('riff_raff', figures)}")


if __name__ == "__main__":
    main()
