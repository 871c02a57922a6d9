"""What a bot's decision costs (#53 item 5), per game and level, in this process.

Each level plays seat 0 of in-memory games (bots everywhere, the game's default level in
the other seats) and every decision of seat 0 is timed: wall time p50/p95 and CPU time
(one core: the process runs one decision at a time). The baseline is the game's default
level, timed in the same games. "Tables a core serves" assumes human pace: one person's
move every 10 s and the other seats bots, each deciding once per round
(RAFFE_BOT_PACE_MS apart).

    python -m bench.bots                      # every game and level
    python -m bench.bots --game giraffe-raffe --decisions 300
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from bench.common import Figure, print_table, write_json
from services.games import GAMES
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec

PERSON_S = 10.0  # a person's move, at human pace
PACE_S = 1.0  # the bot pace setting's default (RAFFE_BOT_PACE_MS)
SEATS = {"giraffe-raffe": 4, "giraffometer": 4, "riff-raff": 4}

Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], dict[str, Any]]


def timed_decisions(
    game: GameSpec[Any], level: str, seats: int, decisions: int
) -> list[tuple[float, float]]:
    """(wall s, CPU s) of each of ``decisions`` decisions of seat 0 playing ``level``."""
    bot, other = game.bot(level), game.bot(game.default_bot)
    out: list[tuple[float, float]] = []
    n = 0
    while len(out) < decisions:
        p = Playthrough.start(game, {}, [SeatSpec("bot")] * seats, f"bench-{level}-{n}")
        rng = SeededRng(f"bench-{n}", "bots")
        while not game.status(p.state).over and len(out) < decisions:
            seat = game.status(p.state).to_act[0]
            view, legal = game.view(p.state, seat), game.legal_commands(p.state, seat)
            wall, cpu = time.perf_counter(), time.process_time()
            command = (bot if seat == 0 else other)(view, legal, rng)
            if seat == 0:
                out.append((time.perf_counter() - wall, time.process_time() - cpu))
                print(f"\r  {game.name} {level}: {len(out)}/{decisions}", end="", file=sys.stderr)
            p.execute(seat, command)
        n += 1
    print(file=sys.stderr)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figures(
    name: str, level: str, seats: int, timed: list[tuple[float, float]], base: float
) -> list[Figure]:
    walls = [w for w, _ in timed]
    cpu = sum(c for _, c in timed) / len(timed)
    round_s = PERSON_S + (seats - 1) * PACE_S
    tables = round_s / max(cpu * (seats - 1), 1e-9)
    return [
        Figure(f"{name} {level}: decision p50", percentile(walls, 0.5) * 1000, "ms"),
        Figure(f"{name} {level}: decision p95", percentile(walls, 0.95) * 1000, "ms"),
        Figure(f"{name} {level}: CPU a decision", cpu * 1000, "ms", "default level", cpu / base),
        Figure(f"{name} {level}: tables a core serves", tables, "tables"),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", action="append", help="a game (default: every game)")
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--short", action="store_true", help="30 decisions a level")
    args = parser.parse_args(argv)
    if args.short:
        args.decisions = 30
    out: list[Figure] = []
    for name in args.game or list(SEATS):
        game = GAMES[name]
        seats = SEATS[name]
        base_timed = timed_decisions(game, game.default_bot, seats, args.decisions)
        base = sum(c for _, c in base_timed) / len(base_timed)
        for level in game.bots:
            if level == game.default_bot:
                timed = base_timed
            else:
                timed = timed_decisions(game, level, seats, args.decisions)
            out += figures(name, level, seats, timed, base)
    print_table("bot decisions", out)
    write_json("bots", out)


if __name__ == "__main__":
    main()
