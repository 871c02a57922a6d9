"""Bot evaluation and calibration of the ship.

    python -m services.riff_raff.evaluate --games 300            careful vs random, 2 players
    python -m services.riff_raff.evaluate --bot search --against careful --players 3
    python -m services.riff_raff.evaluate --calibrate --games 1000   fall rates, rounds, endings

"Beats" means the careful bot wins and the random bot does not (ties win together)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.kernel.evaluation import win_rate
from services.kernel.game import Event
from services.kernel.playthrough import play_bots
from services.riff_raff.game import GAME
from services.riff_raff.state import State

MAX_MOVES = 5000


@dataclass
class Tally:
    games: int = 0
    loads: Counter[int] = field(default_factory=Counter)
    # Per area: loads after which anything fell, and loads whose own piece fell.
    falls: Counter[int] = field(default_factory=Counter)
    own: Counter[int] = field(default_factory=Counter)
    rounds: Counter[int] = field(default_factory=Counter)
    emptied: int = 0

    def count(self, events: list[Event]) -> None:
        for e in events:
            if e.type == "PieceLoaded":
                fell = {f["id"] for f in e.data["outcome"]["fell"]}
                self.loads[e.data["area"]] += 1
                self.falls[e.data["area"]] += bool(fell)
                self.own[e.data["area"]] += e.data["piece"] in fell


def play_game(bots: Sequence[str], seed: str, tally: Tally | None = None) -> State:
    count = tally.count if tally is not None else None
    p = play_bots(GAME, [GAME.bots[b] for b in bots], seed, max_moves=MAX_MOVES, on_events=count)
    if tally is not None:
        tally.games += 1
        tally.rounds[p.state.round] += 1
        ended = next(e for e in reversed(p.events) if e.type == "GameEnded")
        tally.emptied += ended.data.get("reason") == "emptied"
    state: State = p.state
    return state


def careful_beats_random(games: int, progress: bool = False) -> float:
    return win_rate(play_game, "careful", "random", 2, games, alone=True, progress=progress)


def calibrate(games: int, bot: str, players: int) -> Tally:
    tally = Tally()
    for n in range(games):
        play_game([bot] * players, f"cal-{bot}-{n}", tally)
        if (n + 1) % 10 == 0:
            print(f"\r{bot}: {n + 1}/{games} games", end="", file=sys.stderr)
    print(file=sys.stderr)
    return tally


def report(bot: str, players: int, t: Tally) -> str:
    lines = [
        f"### {bot} bots, {players} players, {t.games} games",
        "",
        "| area | loads | loads followed by a fall |",
        "|---|---|---|",
    ]
    for area in range(1, 11):
        n = t.loads[area] or 1
        lines.append(
            f"| {area} | {t.loads[area]} | {t.own[area] / n:.1%} | {t.falls[area] / n:.1%} |"
        )
    rounds = ", ".join(f"{r}: {n}" for r, n in sorted(t.rounds.items()))
    lines += [
        "",
        f"Rounds per game (rounds: games): {rounds}",
        f"Won by emptying a supply before the cards ran out: {t.emptied / t.games:.1%}",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bot", choices=sorted(GAME.bots))
    parser.add_argument("--against", default="careful", choices=sorted(GAME.bots))
    parser.add_argument("--first", type=int, default=0)
    args = parser.parse_args()
    if args.calibrate:
        for bot in ("random", "careful"):
            print(report(bot, args.players, calibrate(args.games, bot, args.players)))
        return
    if args.bot:
        won = win_rate(
            play_game, args.bot, args.against, args.players, args.games, True, True, args.first
        )
        half = 1.96 * (max(won * (1 - won), 1e-12) / args.games) ** 0.5
        print(
            f"{args.bot} won {won:.1%} ± {half:.1%} of {args.games} {args.players}-player games "
            f"alone against {args.against}"
        )
        return
    rate = careful_beats_random(args.games, progress=True)
    print(f"careful bot beat the random bot in {rate:.1%} of {args.games} 2-player games")


if __name__ == "__main__":
    main()
